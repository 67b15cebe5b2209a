#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# The fuzz harnesses of tests/fuzz/ (docs/reliability.md, "Fuzzing"), run
# briefly under ASan and UBSan, from a seed corpus made now from
# tests/fixtures: each target a fixed number of inputs from a fixed random
# seed (FUZZ_SEED, default 1), about 30 s on this project's 2-core
# machines, so that every machine runs the same inputs and a failure here is
# one anybody can reproduce (tests/fuzz/run.sh); FUZZ_TEST_TIME (default
# 150) seconds at most. Exploring with new seeds is `make fuzz`'s job
# (docs/reliability.md). A crash, leak,
# sanitizer report, timeout or out-of-memory fails the test with the
# reproducer's path (kept in $ABTF_FUZZ_BUILD/crashes/TARGET/) and the
# report. The harnesses are built by `make fuzz-build` into
# $ABTF_FUZZ_BUILD (default build-fuzz/), here, once for the file.
#
# Needs clang with libFuzzer (Debian: libclang-rt-14-dev); skips without (fails under ABTF_STRICT=1).

load test_helper

bats_require_minimum_version 1.5.0

# One fuzzer at a time: they would share two cores otherwise.
BATS_NO_PARALLELIZE_WITHIN_FILE=true

FUZZ_BUILD=${ABTF_FUZZ_BUILD:-$ABTF_TOP/build-fuzz}
FUZZ_TEST_TIME=${FUZZ_TEST_TIME:-150}
FUZZ_SEED=${FUZZ_SEED:-1}

# runs TARGET: how many inputs a target runs here.
runs() {
	case $1 in
	archive) echo 50000 ;;
	link-raw) echo 130000 ;;
	encode) echo 160000 ;;
	parse) echo 100000 ;;
	split) echo 150000 ;;
	esac
}

setup_file() {
	local t=$BATS_FILE_TMPDIR status=0

	export FUZZ_SETUP=$t/setup.out
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)%s\n' \
		'{ return 0; }' > "$t/probe.c"
	if ! command -v clang >/dev/null ||
	   ! clang -fsanitize=fuzzer,address,undefined -o "$t/probe" \
		"$t/probe.c" >"$FUZZ_SETUP" 2>&1; then
		export FUZZ_STATUS=77
		return 0
	fi
	timeout 1200 make -C "$ABTF_TOP" -j2 fuzz-build \
		FUZZ_O="$FUZZ_BUILD" >"$FUZZ_SETUP" 2>&1 || status=$?
	if [ "$status" -eq 0 ]; then
		timeout 600 "$ABTF_TOP/tests/fuzz/make-corpus.sh" \
			"$FUZZ_BUILD/bin" "$t/corpus" >>"$FUZZ_SETUP" 2>&1 ||
			status=$?
	fi
	export FUZZ_STATUS=$status
}

setup() {
	WORK=$BATS_TEST_TMPDIR
	cd "$WORK" || return 1
	if [ "$FUZZ_STATUS" -eq 77 ]; then
		unavailable "clang with libFuzzer is not installed (libclang-rt-14-dev)"
	fi
	if [ "$FUZZ_STATUS" -ne 0 ]; then
		echo "make fuzz-build or make-corpus.sh failed ($FUZZ_STATUS):"
		tail -40 "$FUZZ_SETUP"
		return 1
	fi
}

# fuzz TARGET: run it; fail on any finding, or if it ran no input beyond
# its seeds (a harness that does nothing must not pass).
fuzz() {
	local t=$1 seeds units

	run env FUZZ_WORK="$WORK/work" FUZZ_CORPUS="$BATS_FILE_TMPDIR/corpus" \
		FUZZ_RUNS="$(runs "$t")" FUZZ_SEED="$FUZZ_SEED" \
		"$ABTF_TOP/tests/fuzz/run.sh" "$FUZZ_BUILD" "$FUZZ_TEST_TIME" "$t"
	echo "$output"
	[ "$status" -eq 0 ]
	seeds=$(ls "$BATS_FILE_TMPDIR/corpus/$t" | wc -l)
	units=$(sed -n 's/^stat::number_of_executed_units: *//p' \
		"$FUZZ_BUILD/fuzz-logs/$t.log")
	echo "$t: $units inputs run, $seeds seeds"
	[ -n "$units" ] && [ "$units" -gt "$seeds" ]
}

@test "fuzz: archive (btf-link on an object's .BTF archive and .debug_btf_addr)" {
	fuzz archive
}

@test "fuzz: link-raw (btf-link on a raw BTF file)" {
	fuzz link-raw
}

@test "fuzz: encode (cc-btf's encoder on an ELF object)" {
	fuzz encode
}

@test "fuzz: parse (abtf_btf__parse: final BTF of either byte order, longer headers)" {
	fuzz parse
}

@test "fuzz: split (btf-link on a base and a module: either damaged)" {
	fuzz split
}

# The inputs of the crashes found before (tests/fuzz/known-crashes.sh),
# each run once through its harness: none may crash again.
@test "fuzz: the crashes found before stay fixed (known-crashes.sh)" {
	local f t failed=

	"$ABTF_TOP/tests/fuzz/known-crashes.sh" "$FUZZ_BUILD/bin" known
	mkdir -p tmp
	for f in known/*; do
		t=${f##*.}
		run env TMPDIR="$WORK/tmp" \
			ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
			UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$ABTF_TOP/tests/fuzz/ubsan.supp" \
			bash -c 'ulimit -f 262144; exec timeout 120 "$@"' _ \
			"$FUZZ_BUILD/fuzz/fuzz-$t" -rss_limit_mb=2048 \
			-malloc_limit_mb=1024 "$f"
		if [ "$status" -ne 0 ]; then
			echo "$f (fuzz-$t): exit $status"
			echo "$output" | grep -E 'ERROR|runtime error|^ +#[0-9] ' |
				head -8
			failed+=" ${f#known/}"
		fi
		rm -rf tmp/abtf-fuzz.*
	done
	[ -z "$failed" ] || { echo "still crashing:$failed"; return 1; }
}
