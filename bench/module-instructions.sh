#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark: what each module's BTF step costs, btf-link --base vmlinux on
# the module's archive against pahole -J --btf_base vmlinux on its DWARF,
# as kbuild runs each once per module: instructions counted by valgrind's
# callgrind (user space, all threads), module by module and summed, and
# CPU time (user + system, exact to the microsecond: bench/rusage.py)
# summed over all modules, the best of -r runs.
#
# Usage: bench/module-instructions.sh [-C] [-r RUNS] BUILD
#
#   BUILD   a kernel build directory made with CC="cc-btf ..." and the
#           tree's series (tests/kernel-e2e-7.3.bats's cc-btf/, say): its
#           vmlinux and every *.ko under it, each still holding its
#           archive (btf-link --keep-archive, as kbuild-patches do).
#   -r N    CPU time: the best of N runs over all modules (default 5)
#   -C      CPU time only, no callgrind: a distribution's thousand modules
#           (tests/lab-kernel-e2e-7.3-cloud.bats's tree) in minutes
#
# One line per module: btf-link's and pahole's millions of instructions
# and their ratio; then their sums, and the two tools' CPU seconds over
# all modules. Both tools run with what kbuild gives them for a module:
# the tree's scripts/Makefile.btf read for BUILD's configuration
# (PAHOLE_FLAGS and BTF_LINK_FLAGS, as make -j1 computes them; BUILD/source
# is the tree), each output detached; btf-link with -j1 too. A run that
# fails (callgrind's or the tool's exit status) ends the bench.
# Environment: BTF_LINK (default: build/bin/btf-link, or
# $ABTF_BUILD/bin/btf-link), PAHOLE (default: pahole).
#
# This is a benchmark, not a test: it never fails on a slow result.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
BTF_LINK=${BTF_LINK:-${ABTF_BUILD:-$TOP/build}/bin/btf-link}
PAHOLE=${PAHOLE:-pahole}
RUNS=5
CPU_ONLY=

die() { echo "module-instructions.sh: error: $*" >&2; exit 1; }
# shellcheck source=bench/callgrind.sh
. "$HERE/callgrind.sh"

while getopts Cr: opt; do
	case $opt in
	C) CPU_ONLY=1 ;;
	r) RUNS=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { sed -n '10,18s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2; exit 2; }
B=$1
[ -n "$CPU_ONLY" ] || need_callgrind "$BTF_LINK" "$PAHOLE"
[ -f "$B/vmlinux" ] || die "$B: no vmlinux"

# tree_flags: "PAHOLE_FLAGS|BTF_LINK_FLAGS" as BUILD's tree computes them
tree_flags() {
	[ -f "$B/include/config/auto.conf" ] && [ -f "$B/source/scripts/Makefile.btf" ] ||
		die "$B: no include/config/auto.conf or source/scripts/Makefile.btf (a 6.12 or 7.3 build)"
	MAKEFLAGS=-j1 make -s --no-print-directory -f - srctree="$B/source" \
		auto="$B/include/config/auto.conf" <<'MK'
include $(auto)
include $(srctree)/scripts/Kbuild.include
include $(srctree)/scripts/Makefile.btf
all: ; @echo "$(PAHOLE_FLAGS)|$(BTF_LINK_FLAGS)"
MK
}
flags=$(tree_flags) || die "cannot read the flags of $B/source/scripts/Makefile.btf"
PAHOLE_FLAGS=${flags%%|*}
LINK_FLAGS=${flags#*|}
[[ $LINK_FLAGS == --btf_features=* ]] || die "the tree gives btf-link no features ($flags): not a patched tree"
echo "module-instructions.sh: pahole $PAHOLE_FLAGS; btf-link $LINK_FLAGS" >&2

TMP=$(mktemp -d "${TMPDIR:-/tmp}/abtf-modinstr.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# the commands, "{obj}" the module and "{out}" the output (rusage.py's)
# shellcheck disable=SC2206 # PAHOLE_FLAGS is a list
# shellcheck disable=SC2206 # LINK_FLAGS is a list
LINK=("$BTF_LINK" -j1 $LINK_FLAGS --base "$B/vmlinux" -o "{out}" "{obj}")
PAH=("$PAHOLE" -J $PAHOLE_FLAGS --btf_base "$B/vmlinux"
     --btf_encode_detached="{out}" "{obj}")

# on CMD...: the instructions of CMD on module $ko, its output in $TMP;
# dies if CMD fails or wrote no BTF
on() {
	local a n args=()
	for a in "$@"; do
		a=${a//\{obj\}/$ko}
		args+=("${a//\{out\}/$TMP/out.btf}")
	done
	rm -f "$TMP/out.btf"
	n=$(instructions "${args[@]}") || die "${args[*]} failed under callgrind"
	[ -s "$TMP/out.btf" ] && [ "$n" -gt 0 ] || die "${args[*]} wrote no BTF"
	echo "$n"
}

# cpu CMD...: the least CPU seconds of $RUNS runs of CMD on every module
cpu() {
	local i
	for ((i = 0; i < RUNS; i++)); do
		python3 "$HERE/rusage.py" "$TMP/list" "$TMP/out" -- "$@" |
			awk '$2 != 0 { print "failed"; exit } { print $3 }'
	done | sort -g | head -n 1
}

# cpu_of CMD...: cpu, or die when a run failed
cpu_of() {
	local t
	t=$(cpu "$@")
	[ "$t" != failed ] || die "$1 failed on a module (the logs: rusage.py's)"
	echo "$t"
}

find "$B" -name '*.ko' | LC_ALL=C sort > "$TMP/list"
[ -s "$TMP/list" ] || die "$B: no modules"
mkdir "$TMP/out"
[ -n "$CPU_ONLY" ] || while read -r ko; do
	echo "${ko#"$B"/} $(on "${LINK[@]}") $(on "${PAH[@]}")"
done < "$TMP/list" | awk '{
	printf "%-40s btf-link %7.1f M, pahole %7.1f M, %.2f\n",
		$1, $2 / 1e6, $3 / 1e6, $3 ? $2 / $3 : 0
	l += $2; p += $3; n++
} END {
	printf "%d modules: btf-link %.1f M, pahole %.1f M, %.2f\n",
		n, l / 1e6, p / 1e6, p ? l / p : 0
}'
l=$(cpu_of "${LINK[@]}")
p=$(cpu_of "${PAH[@]}")
awk -v l="$l" -v p="$p" -v n="$(wc -l < "$TMP/list")" 'BEGIN {
	printf "CPU, all %d modules (best of runs): btf-link %.3f s, pahole %.3f s, %.2f\n",
		n, l, p, p ? l / p : 0 }'
