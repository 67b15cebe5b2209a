#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run.sh BUILD SECONDS TARGET...: run the libFuzzer harnesses BUILD/fuzz/
# fuzz-TARGET (made by `make fuzz-build`, ASan + UBSan) one after the other,
# each for SECONDS, on one core, at low priority (nice), with bounded time
# per input, memory and input length. Seeds: $FUZZ_CORPUS/TARGET (default
# BUILD/corpus, made by make-corpus.sh when absent). What a run adds to the
# corpus is kept in $FUZZ_WORK/TARGET (default BUILD/fuzz-work), its log in
# BUILD/fuzz-logs/TARGET.log.
#
# Files written are bounded too (ulimit -f: 256 MiB; an output past it is
# "file size exceeded"), and what a crashed harness left in its temporary
# directory is removed after each target.
#
# With FUZZ_RUNS=N a target stops after N inputs (or SECONDS, whichever
# comes first), and with FUZZ_SEED=S its random choices start from S: a run
# with both is the same sequence of inputs on every machine (the seeds are
# made without paths, make-corpus.sh), and one stopped early by SECONDS on a
# slower machine ran a prefix of it. `make check` runs that way
# (tests/fuzz.bats); `make fuzz` explores instead, from a new seed each time.
#
# A crash, leak, sanitizer report, timeout or out-of-memory fails: the
# reproducer is left in BUILD/crashes/TARGET/ and printed with the report.
# Reproduce with: BUILD/fuzz/fuzz-TARGET FILE (or -minimize_crash=1 FILE).
# Exit status: 0, 1 if a target failed, 2 on a usage or setup error.
set -uo pipefail

[ $# -ge 3 ] || { echo "usage: $0 BUILD SECONDS TARGET..." >&2; exit 2; }
B=$1
T=$2
shift 2
WORK=${FUZZ_WORK:-$B/fuzz-work}
CORPUS=${FUZZ_CORPUS:-$B/corpus}
HERE=$(cd "$(dirname "$0")" && pwd)

# The longest input of each target: a few times its largest seed.
max_len() {
	case $1 in
	archive) echo 32768 ;;
	split) echo 32768 ;;
	link-raw) echo 16384 ;;
	parse) echo 16384 ;;
	encode) echo 65536 ;;
	*) echo 4096 ;;
	esac
}

if [ ! -d "$CORPUS" ]; then
	"$HERE/make-corpus.sh" "$B/bin" "$CORPUS.new" &&
		mv "$CORPUS.new" "$CORPUS" || exit 2
fi

# UBSan: every report fatal but those ubsan.supp names (docs/reliability.md)
: "${ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1}"
: "${UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1}"
export ASAN_OPTIONS
export UBSAN_OPTIONS="$UBSAN_OPTIONS:suppressions=$HERE/ubsan.supp"
ulimit -f 262144
repeat=()
[ -z "${FUZZ_RUNS:-}" ] || repeat+=("-runs=$FUZZ_RUNS")
[ -z "${FUZZ_SEED:-}" ] || repeat+=("-seed=$FUZZ_SEED")
fail=0
for t in "$@"; do
	bin=$B/fuzz/fuzz-$t
	[ -x "$bin" ] || { echo "$0: $bin: not built (make fuzz-build)" >&2; exit 2; }
	mkdir -p "$WORK/$t" "$B/crashes/$t" "$B/fuzz-logs" "$B/fuzz-tmp/$t"
	log=$B/fuzz-logs/$t.log
	before=$(ls "$B/crashes/$t" | wc -l)
	echo "fuzz-$t: ${T}s, log $log"
	TMPDIR=$B/fuzz-tmp/$t timeout -k 10 $((T + 120)) nice -n 10 "$bin" \
		-max_total_time="$T" "${repeat[@]}" -timeout=25 -rss_limit_mb=2048 \
		-malloc_limit_mb=1024 -max_len="$(max_len "$t")" \
		-artifact_prefix="$B/crashes/$t/" -print_final_stats=1 \
		"$WORK/$t" "$CORPUS/$t" > "$log" 2>&1
	rc=$?
	rm -rf "$B/fuzz-tmp/$t"/abtf-fuzz.*
	grep -E '^(stat::number_of_executed_units|stat::new_units_added|#[0-9]+ +DONE)' \
		"$log" | sed "s/^/  /"
	if [ $rc -ne 0 ] || [ "$(ls "$B/crashes/$t" | wc -l)" -ne "$before" ]; then
		fail=1
		echo "fuzz-$t: FAILED (exit $rc)"
		grep -E '^(artifact_prefix|Test unit written to)' "$log" |
			sed "s/^/  /"
		# the sanitizer's (or libFuzzer's) report, without the noise
		sed -n '/ERROR: \|runtime error: \|^fuzz harness: \|^ALARM: /,/^SUMMARY: /p' \
			"$log" | grep -v ' in fuzzer::\| in __libc_start\| in _start ' |
			head -60
	fi
done
exit $fail
