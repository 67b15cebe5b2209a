#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark: the serial part of the post-link step, btf-link against
# pahole -J, measured the same way for both: perf record's samples of the
# whole process, cut into 10 ms buckets, a bucket serial when one thread
# alone is busy in it (bench/serial.py). What stays serial decides how the
# step scales to more cores: T(N) >= serial + (CPU - serial) / N.
#
# Usage: bench/serial.sh [-r RUNS] [-j JOBS] IMAGE VMLINUX
#
#   IMAGE    what btf-link reads (a 7.x build's .tmp_vmlinux1: the archive)
#   VMLINUX  what pahole reads, with DWARF (the same build's vmlinux)
#   -r RUNS  runs of each, alternated (default 5); the line of each run,
#            then the fastest of each
#   -j JOBS  threads for both (default 2)
#
# Environment: BTF_LINK (default: build/bin/btf-link), PAHOLE (default:
# pahole), BTF_FEATURES (default: 7.3's list, for both), PAHOLE_FLAGS
# (more flags for pahole; default "--lang_exclude=rust").
#
# This is a benchmark, not a test: it never fails on a slow result.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
BTF_LINK=${BTF_LINK:-${ABTF_BUILD:-$TOP/build}/bin/btf-link}
PAHOLE=${PAHOLE:-pahole}
FEATS=${BTF_FEATURES:-encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs}
read -r -a PFLAGS <<< "${PAHOLE_FLAGS:---lang_exclude=rust}"
FREQ=2000
BUCKET_MS=10

die() { echo "serial.sh: error: $*" >&2; exit 1; }

runs=5 jobs=2
while getopts r:j: o; do
	case $o in
	r) runs=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { sed -n '10,16s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2; exit 2; }
command -v perf > /dev/null || die "needs perf (linux-perf)"
[ -x "$BTF_LINK" ] || die "no btf-link at $BTF_LINK"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/abtf-serial.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cp "$1" "$TMP/image"
cp "$2" "$TMP/vmlinux"

# measure NAME CMD...: one run under perf; prints NAME WALL SERIAL PARALLEL CPU
measure() {
	local name=$1
	shift
	perf record -q -F "$FREQ" -o "$TMP/perf.data" -- "$@" \
		> /dev/null 2> "$TMP/err" || { cat "$TMP/err" >&2; die "$name failed"; }
	echo "$name $(perf script -i "$TMP/perf.data" -F tid,time 2> /dev/null |
		      python3 "$HERE/serial.py" "$FREQ" "$BUCKET_MS")"
}

echo "# tool wall serial parallel cpu (seconds; -j$jobs, ${BUCKET_MS} ms buckets)"
for _ in $(seq "$runs"); do
	measure pahole "$PAHOLE" -J -j"$jobs" --btf_features="$FEATS" \
		"${PFLAGS[@]}" --btf_encode_detached="$TMP/pahole.btf" \
		"$TMP/vmlinux"
	measure btf-link "$BTF_LINK" -j"$jobs" --btf_features="$FEATS" \
		-o "$TMP/ours.btf" "$TMP/image"
done | tee "$TMP/all"
echo "# the fastest run of each"
for t in pahole btf-link; do
	grep "^$t " "$TMP/all" | sort -k2,2n | head -1
done
