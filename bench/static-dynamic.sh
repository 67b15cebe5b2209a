#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark: what linking libbpf, libdw and libelf dynamically costs cc-btf
# per object, against the static link (make's default where elfutils'
# archives link; Debian 13's do not, docs/performance.md "Static or
# dynamic").
#
# Usage: bench/static-dynamic.sh [-r ROUNDS] [TREE]
#
#   TREE     a kernel build directory (default: the one
#            tests/kernel/prepare.sh makes, prepared first)
#   -r N     rounds, each encoding every object with each build, the
#            builds alternated (default 3); the best round of each is shown
#
# Both builds are made from this checkout into a temporary directory
# (make STATIC=1 and make STATIC=0). CPU is user+sys summed over the
# processes, from wait4() (bench/rusage.py). A benchmark, not a test: it
# never fails on a slow result.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
# shellcheck source=bench/objects.sh
. "$HERE/objects.sh"
ROUNDS=3

die() { echo "static-dynamic.sh: error: $*" >&2; exit 1; }

while getopts "r:h" opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	*) sed -n '9,14s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || die "usage: bench/static-dynamic.sh [-r ROUNDS] [TREE]"
TREE=$(bench_tree "$@")

TMP=$(mktemp -d "${TMPDIR:-/tmp}/abtf-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
for s in 1 0; do
	make -s -C "$TOP" O="$TMP/static$s" STATIC=$s >/dev/null ||
		die "make STATIC=$s failed"
done
bench_objects "$TREE" | sed "s|^|$TREE/|" > "$TMP/objects"
NR=$(wc -l < "$TMP/objects")
[ "$NR" -gt 0 ] || die "$TREE: no object with .debug_info"
tr '\n' '\0' < "$TMP/objects" | xargs -0 cat > /dev/null

echo "static-dynamic.sh: $NR objects of $TREE, $ROUNDS rounds" >&2
for r in $(seq "$ROUNDS"); do
	for s in 1 0; do
		rm -rf "$TMP/out"
		mkdir -p "$TMP/out"
		printf '%s ' "$s"
		python3 "$HERE/rusage.py" "$TMP/objects" "$TMP/out" -- \
			"$TMP/static$s/bin/cc-btf" --encode -o '{out}' '{obj}'
	done
done | awk -v nr="$NR" '
	{ if (!($1 in best) || $4 < best[$1]) best[$1] = $4
	  if ($3 > 0) bad[$1] += $3 }
	END {
		printf "%-8s %8s %12s %14s\n", "link", "objects", "CPU u+s (s)", "per object (ms)"
		printf "%-8s %8d %12.3f %14.3f\n", "static", nr, best[1], best[1] * 1000 / nr
		printf "%-8s %8d %12.3f %14.3f\n", "dynamic", nr, best[0], best[0] * 1000 / nr
		printf "dynamic - static: %.3f ms per object (%+.1f %%)%s\n",
			(best[0] - best[1]) * 1000 / nr, (best[0] / best[1] - 1) * 100,
			(bad[0] + bad[1]) ? ", with FAILED encodings" : ""
	}'
