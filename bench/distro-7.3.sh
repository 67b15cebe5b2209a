#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark: a distribution's kernel, Debian's 7.3 cloud-amd64 as
# tests/lab-kernel-e2e-7.3-cloud.bats builds it whole with cc-btf: the BTF
# steps of btf-link against upstream pahole's, side by side, on that one
# tree.
#
# Usage: bench/distro-7.3.sh [-r RUNS] [-p PAHOLE] [-l]
#
#   -r N       each timed step N times, the best kept (default 3)
#   -p PAHOLE  upstream pahole, v1.31 or later (default: $ABTF_LAB_PAHOLE):
#              the one the tree was configured with, whose feature list
#              (7.3's, with layout) both tools get
#   -l         also relink (rm vmlinux vmlinux.unstripped; make), which
#              ends in every module's BTF linked again: with btf-link, then
#              with pahole (BTF_LINK=pahole, kbuild-patches/v7.3), then,
#              not timed, with btf-link again, which links the modules
#              linked for pahole again with their archives
#
# The tree is ${ABTF_KERNEL_DIR:-tests/.work}/e2e-7.3-cloud-amd64-paholeNNN/
# cc-btf (NNN: PAHOLE's version; tests/kernel/e2e.sh
# ABTF_E2E_CONFIG=cloud-amd64 builds it). It
# has no pahole twin (a second hour of build): pahole reads the DWARF of
# its vmlinux, the same objects' DWARF as gen-btf.sh would give it in a
# pahole tree, and of each module; btf-link reads .tmp_vmlinux1 (linked
# without DWARF) and each module's kept archive, as kbuild runs them.
# Reported, best of RUNS:
#   vmlinux  gen-btf.sh's first step: wall, CPU, peak RSS (GNU time)
#   modules  every module's BTF step, one process each, CPU summed
#            (bench/module-instructions.sh -C)
#   sizes    the archive (.tmp_vmlinux1's .BTF) against vmlinux's DWARF
#   relink   with -l: the same tree relinked with btf-link, then with
#            pahole making the BTF (BTF_LINK=pahole)
#
# This is a benchmark, not a test: it never fails on a slow result. The
# machine should be otherwise idle; say in what you report if it was not.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
TOOLS=${ABTF_BUILD:-$TOP/build}
RUNS=3
PAHOLE_BIN=${ABTF_LAB_PAHOLE:-}
RELINK=0

die() { echo "distro-7.3.sh: error: $*" >&2; exit 1; }
say() { echo "distro-7.3.sh: $*" >&2; }

while getopts r:p:l opt; do
	case $opt in
	r) RUNS=$OPTARG ;;
	p) PAHOLE_BIN=$OPTARG ;;
	l) RELINK=1 ;;
	*) exit 2 ;;
	esac
done
[ -n "$PAHOLE_BIN" ] && [ -x "$PAHOLE_BIN" ] ||
	die "give upstream pahole (v1.31 or later) with -p or ABTF_LAB_PAHOLE"
E2E=${ABTF_KERNEL_DIR:-$TOP/tests/.work}/e2e-7.3-cloud-amd64-pahole$("$PAHOLE_BIN" --version | tr -dc 0-9)
SRC=$E2E/src
B=$E2E/cc-btf
[ -f "$B/vmlinux" ] && [ -f "$B/.tmp_vmlinux1" ] ||
	die "$B: no vmlinux: build it with tests/lab-kernel-e2e-7.3-cloud.bats"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/abtf-distro.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# timed OUT CMD...: CMD (a program, or a function of this script,
# exported) under GNU time; OUT gets "wall cpu rss_kb"
timed() {
	local out=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$out.t" bash -c '"$@"' bash "$@" \
		> /dev/null 2>&1 || die "$* failed"
	awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }' "$out.t" > "$out"
}

# best OUT CMD...: the run of CMD with the lowest wall time, of $RUNS
best() {
	local out=$1 _
	shift
	for _ in $(seq "$RUNS"); do
		timed "$out.run" "$@"
		cat "$out.run"
	done | sort -n | sed -n 1p > "$out"
}

# flags: "PAHOLE_FLAGS|BTF_LINK_FLAGS" of the tree's Makefile.btf
flags() {
	make -s --no-print-directory -f - srctree="$SRC" \
		auto="$B/include/config/auto.conf" <<'MK'
include $(auto)
include $(srctree)/scripts/Kbuild.include
include $(srctree)/scripts/Makefile.btf
all: ; @echo "$(PAHOLE_FLAGS)|$(BTF_LINK_FLAGS)"
MK
}

field() { cut -d' ' -f"$2" "$TMP/$1"; }
row() {
	echo "| $1 | $(field "$2" 1) | $(field "$2" 2) | $(($(field "$2" 3) >> 10)) |" \
	     "$(field "$3" 1) | $(field "$3" 2) | $(($(field "$3" 3) >> 10)) |" \
	     "$(awk -v a="$(field "$3" 1)" -v b="$(field "$2" 1)" 'BEGIN { printf "%.2f", a / b }') |"
}

# secsize FILE SECTION: the section's size in bytes
secsize() {
	local hex
	hex=$(readelf -SW "$1" | awk -v s="$2" '$2 == s { print $6; exit }
		$3 == s { print $7; exit }')
	echo $((16#${hex:-0}))
}

f=$(flags) || die "cannot read scripts/Makefile.btf"
PAHOLE_FLAGS=${f%%|*}
BTF_LINK_FLAGS=${f#*|}
say "pahole $("$PAHOLE_BIN" --version): $PAHOLE_FLAGS"
say "btf-link: $BTF_LINK_FLAGS"
# shellcheck disable=SC2086 # the tree's flags are lists
best "$TMP/pahole.step" "$PAHOLE_BIN" -J $PAHOLE_FLAGS \
	--btf_encode_detached="$TMP/pahole.btf" "$B/vmlinux"
# shellcheck disable=SC2086
best "$TMP/btf-link.step" "$TOOLS/bin/btf-link" $BTF_LINK_FLAGS \
	-o "$TMP/btf-link.btf" "$B/.tmp_vmlinux1"
# modules: the tree's module flags are its vmlinux flags less -j
# shellcheck disable=SC2086
mods=$(PAHOLE="$PAHOLE_BIN" BTF_LINK="$TOOLS/bin/btf-link" \
	PAHOLE_FLAGS="-j1 $(printf '%s\n' $PAHOLE_FLAGS | grep -vx -- '-j[0-9]*' | tr '\n' ' ')" \
	"$HERE/module-instructions.sh" -C -r "$RUNS" "$B") || die "module-instructions.sh failed"

echo
echo "Debian's 7.3 cloud-amd64 through cc-btf ($(wc -l < "$B/modules.order") modules)," \
     "pahole $("$PAHOLE_BIN" --version), best of $RUNS"
echo
echo "| | pahole wall s | CPU s | peak MiB | btf-link wall s | CPU s | peak MiB | btf-link / pahole |"
echo "|---|---|---|---|---|---|---|---|"
row "gen-btf.sh's first step (vmlinux)" pahole.step btf-link.step
echo
echo "$mods"
echo
echo "the archive (.tmp_vmlinux1's .BTF): $(secsize "$B/.tmp_vmlinux1" .BTF) bytes;" \
     "vmlinux's .debug_info $(secsize "$B/vmlinux" .debug_info) bytes," \
     "its final .BTF $(secsize "$B/vmlinux" .BTF) bytes"
# relink [pahole]: rm vmlinux vmlinux.unstripped; make, the BTF by
# btf-link, or by pahole (the tree's BTF_LINK=pahole: .tmp_vmlinux1 then
# keeps its DWARF, and each module's BTF comes from its DWARF)
relink() {
	rm -f "$B/vmlinux" "$B/vmlinux.unstripped"
	make -C "$SRC" O="$B" PAHOLE="$PAHOLE_BIN" -j"$(nproc)" \
		CC="$TOOLS/bin/cc-btf gcc" ${1:+BTF_LINK="$1"}
}
export B SRC PAHOLE_BIN TOOLS
export -f relink
if [ "$RELINK" = 1 ]; then
	# btf-link's first, on the tree as its build left it: once pahole
	# has made a module's BTF, the module has no archive until it is
	# linked again, which btf-link's relink after pahole's does
	best "$TMP/relink" relink
	best "$TMP/relink.pahole" relink pahole
	relink > "$TMP/relink.back.log" 2>&1 ||
		die "linking the tree again with btf-link failed"
	echo "relink (rm vmlinux vmlinux.unstripped; make -j$(nproc)), each" \
	     "module's BTF linked again: pahole (BTF_LINK=pahole)" \
	     "$(field relink.pahole 1) s wall, $(field relink.pahole 2) s CPU," \
	     "$(($(field relink.pahole 3) >> 10)) MiB peak;" \
	     "btf-link $(field relink 1) s wall, $(field relink 2) s CPU," \
	     "$(($(field relink 3) >> 10)) MiB peak"
fi
