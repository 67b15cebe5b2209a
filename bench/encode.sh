#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark: encode every object of a built kernel tree with cc-btf and with
# pahole, and compare what it costs.
#
# Usage: bench/encode.sh [-j JOBS] [-k] [TREE]
#
#   TREE   a kernel build directory (default: the one tests/kernel/prepare.sh
#          makes, ${ABTF_KERNEL_DIR:-tests/.work/kernel}/build, prepared first)
#   -j N   run N encodings at a time (default 1); CPU and RSS are per
#          process, so only the wall time depends on it
#   -k     keep the temporary directory with the BTF files and the logs
#
# Every *.o under TREE that has a .debug_info section is encoded twice, into
# raw BTF files in a temporary directory:
#   cc-btf --encode -o OUT.btf OBJ
#   pahole -J --btf_gen_floats -j --lang_exclude=rust --btf_encode_detached=OUT.btf OBJ
# (pahole's flags are the kernel's, scripts/pahole-flags.sh for 1.24).
# Left out: vmlinux.o (the linked kernel, no compiler output) and the host
# programs under scripts/ and tools/, which never get BTF.
#
# The table gives, per tool: the objects encoded and failed (non-zero exit),
# the total user+sys CPU seconds and the largest peak RSS of any one
# process -- both from getrusage via wait4() in bench/rusage.py, exact to
# the microsecond where GNU time's per-process figures are truncated to
# 10 ms -- the total BTF bytes written and the wall time; then the ratios
# cc-btf / pahole.
#
# Environment: CC_BTF (default: build/bin/cc-btf, or $ABTF_BUILD/bin/cc-btf),
# PAHOLE (default: pahole).
#
# This is a benchmark, not a test: it never fails on a slow result.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
CC_BTF=${CC_BTF:-${ABTF_BUILD:-$TOP/build}/bin/cc-btf}
PAHOLE=${PAHOLE:-pahole}
JOBS=1
# shellcheck source=bench/objects.sh
. "$HERE/objects.sh"
KEEP=0

usage() {
	sed -n '6,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 2
}

die() { echo "encode.sh: error: $*" >&2; exit 1; }

while getopts "j:kh" opt; do
	case $opt in
	j) JOBS=$OPTARG ;;
	k) KEEP=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || usage

TREE=$(bench_tree "$@")
[ -x "$CC_BTF" ] || die "$CC_BTF: not built (run make)"
command -v "$PAHOLE" >/dev/null || die "$PAHOLE: not installed (apt-get install dwarves)"
command -v python3 >/dev/null || die "python3 is not installed"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/abtf-bench.XXXXXX")
if [ $KEEP -eq 0 ]; then
	trap 'rm -rf "$TMP"' EXIT
else
	echo "encode.sh: keeping $TMP" >&2
fi
mkdir -p "$TMP/cc-btf" "$TMP/pahole"

# The objects, in a fixed order.
bench_objects "$TREE" | sed "s|^|$TREE/|" > "$TMP/objects"
NR=$(wc -l < "$TMP/objects")
[ "$NR" -gt 0 ] || die "$TREE: no object with .debug_info"
# Read them all once: neither tool pays for a cold page cache.
tr '\n' '\0' < "$TMP/objects" | xargs -0 cat > /dev/null

echo "encode.sh: $NR objects of $TREE, $JOBS at a time" >&2
CC_LINE=$(python3 "$HERE/rusage.py" -j "$JOBS" "$TMP/objects" "$TMP/cc-btf" -- \
	"$CC_BTF" --encode -o '{out}' '{obj}')
PA_LINE=$(python3 "$HERE/rusage.py" -j "$JOBS" "$TMP/objects" "$TMP/pahole" -- \
	"$PAHOLE" -J "${PAHOLE_KERNEL_FLAGS[@]}" \
	'--btf_encode_detached={out}' '{obj}')

printf '%s %s\n%s %s\n' cc-btf "$CC_LINE" pahole "$PA_LINE" | awk '
	{ t[NR] = $1; n[NR] = $2; bad[NR] = $3; cpu[NR] = $4; rss[NR] = $5
	  bytes[NR] = $6; wall[NR] = $7 }
	function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
	END {
		printf "%-8s %8s %7s %12s %14s %10s %9s\n", "tool", "objects",
			"failed", "CPU u+s (s)", "max RSS (MiB)", "BTF (KiB)", "wall (s)"
		for (i = 1; i <= 2; i++)
			printf "%-8s %8d %7d %12.3f %14.1f %10.0f %9.2f\n", t[i], n[i],
				bad[i], cpu[i], rss[i] / 1024, bytes[i] / 1024, wall[i]
		printf "%-8s %8s %7s %12s %14s %10s %9s\n", "ratio", "", "",
			ratio(cpu[1], cpu[2]), ratio(rss[1], rss[2]),
			ratio(bytes[1], bytes[2]), ratio(wall[1], wall[2])
		print "(ratio: cc-btf / pahole)"
	}'
