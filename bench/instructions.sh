#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark: the instructions cc-btf --encode and pahole -J execute on a
# sample of a built kernel tree's objects, counted by valgrind's callgrind
# (user space, all threads): steady where CPU times on a busy machine are
# not.
#
# Usage: bench/instructions.sh [-n N] [TREE]
#
#   TREE   a kernel build directory (default: the one tests/kernel/prepare.sh
#          makes, ${ABTF_KERNEL_DIR:-tests/.work/kernel}/build, prepared first)
#   -n N   every Nth object (default 20; 1: all of them)
#
# The objects are encode.sh's (every *.o under TREE with a .debug_info
# section, but vmlinux.o and those under scripts/ and tools/, in C sort
# order); of those the 1st, the N+1st, ... Each line gives an object, the
# millions of instructions of each tool, and their ratio; the last line
# the totals. Environment: CC_BTF (default: build/bin/cc-btf, or
# $ABTF_BUILD/bin/cc-btf), PAHOLE (default: pahole).
#
# This is a benchmark, not a test: it never fails on a slow result.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
CC_BTF=${CC_BTF:-${ABTF_BUILD:-$TOP/build}/bin/cc-btf}
PAHOLE=${PAHOLE:-pahole}
EVERY=20
# shellcheck source=bench/objects.sh
. "$HERE/objects.sh"
# shellcheck source=bench/callgrind.sh
. "$HERE/callgrind.sh"

usage() {
	sed -n '9,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 2
}

die() { echo "instructions.sh: error: $*" >&2; exit 1; }

while getopts "n:h" opt; do
	case $opt in
	n) EVERY=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || usage
[[ $EVERY =~ ^[1-9][0-9]*$ ]] || usage

TREE=$(bench_tree "$@")
need_callgrind "$CC_BTF" "$PAHOLE"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/abtf-instr.XXXXXX")
trap 'rm -rf "$TMP"' EXIT


bench_objects "$TREE" | awk -v n="$EVERY" 'NR % n == 1 || n == 1' > "$TMP/objects"
[ -s "$TMP/objects" ] || die "$TREE: no object with .debug_info"

echo "instructions.sh: $(wc -l < "$TMP/objects") objects of $TREE" >&2
while IFS= read -r o; do
	c=$(instructions "$CC_BTF" --encode -o "$TMP/a.btf" "$TREE/$o")
	p=$(instructions "$PAHOLE" -J "${PAHOLE_KERNEL_FLAGS[@]}" \
		"--btf_encode_detached=$TMP/b.btf" "$TREE/$o")
	printf '%s %s %s\n' "$o" "$c" "$p"
done < "$TMP/objects" | awk '
	function ratio(a, b) { return b > 0 ? sprintf("%.3f", a / b) : "-" }
	{ printf "%-48s %10.2f %10.2f %7s\n", $1, $2 / 1e6, $3 / 1e6,
		ratio($2, $3); c += $2; p += $3; n++ }
	END {
		printf "%-48s %10.2f %10.2f %7s\n", "total (" n " objects, M instr.)",
			c / 1e6, p / 1e6, ratio(c, p)
		print "(columns: cc-btf, pahole, cc-btf / pahole)"
	}'
