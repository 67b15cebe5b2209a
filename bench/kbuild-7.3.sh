#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark: Linux 7.3's BTF step, btf-link against pahole in
# scripts/gen-btf.sh, side by side in one run on the same source and
# configuration.
#
# Usage: bench/kbuild-7.3.sh [-j JOBS] [-r RUNS] [-p PAHOLE] [-k] [-s]
#
#   -j N       make -jN for every build; pahole gets -jN as the tree gives
#              it (default: the number of CPUs)
#   -r N       each timed step N times, the best kept (default 3)
#   -p PAHOLE  the pahole that configures both trees and makes the pahole
#              tree's BTF (default: pahole on PATH; Debian 12's is 1.24,
#              for which 7.3 asks for no feature list: give upstream's,
#              v1.31 or later, for 7.3's list with layout)
#   -k         keep the build directories (removed at the next run that
#              builds)
#   -s         no builds: time the steps on the builds the last run kept
#
# The source is tests/kernel/e2e.sh's (Debian's linux-source-7.3 with
# kbuild-patches/v7.3; its phases "tools source config" make or reuse it),
# and so is the configuration (tinyconfig plus tests/kernel/config-fragment).
# Two builds from scratch into ${ABTF_BENCH_DIR:-tests/.work/bench-7.3}:
#   pahole   make -jN PAHOLE=PAHOLE             (no wrapper: upstream's path)
#   cc-btf   make -jN PAHOLE=PAHOLE CC="cc-btf gcc"
# each timed with GNU time (wall, CPU of every process, peak RSS of the
# largest). Then, best of RUNS:
#   step     gen-btf.sh's first step on each tree's .tmp_vmlinux1: pahole
#            -J $PAHOLE_FLAGS --btf_encode_detached (the pahole tree's image,
#            with its DWARF), btf-link $BTF_LINK_FLAGS -o (the cc-btf tree's,
#            linked without DWARF), and both followed by the tree's
#            resolve_btfids --btf, the step's second half, the same program
#            on either
#   relink   rm vmlinux; make -jN (the links, the BTF step, the modules'
#            BTF, bzImage)
#   incremental  touch kernel/panic.c; make -jN
#
# This is a benchmark, not a test: it never fails on a slow result. The
# machine should be otherwise idle; say in what you report if it was not.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
TOOLS=${ABTF_BUILD:-$TOP/build}
BENCH=${ABTF_BENCH_DIR:-$TOP/tests/.work/bench-7.3}
JOBS=$(nproc 2>/dev/null || echo 2)
RUNS=3
KEEP=0
BUILD=1
PAHOLE_BIN=pahole
TOUCH_C=kernel/panic.c

usage() {
	echo "usage: bench/kbuild-7.3.sh [-j JOBS] [-r RUNS] [-p PAHOLE] [-k] [-s]" >&2
	exit 2
}
while getopts 'j:r:p:ks' opt; do
	case $opt in
	j) JOBS=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	p) PAHOLE_BIN=$OPTARG ;;
	k) KEEP=1 ;;
	s) BUILD=0 KEEP=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage

say() { printf 'kbuild-7.3: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 1970'
export KBUILD_BUILD_USER=archive-btf KBUILD_BUILD_HOST=bench KBUILD_BUILD_VERSION=1
unset CC_BTF CC_BTF_OPTS BTF_LINK BTF_ONLY

# the e2e cache of this pahole (tests/kernel/e2e.sh)
E2E_ENV=(ABTF_E2E_KERNEL=7.3 ABTF_BUILD="$TOOLS")
E2E=${ABTF_KERNEL_DIR:-$TOP/tests/.work}/e2e-7.3
if [ "$PAHOLE_BIN" != pahole ]; then
	PAHOLE_BIN=$(readlink -f "$PAHOLE_BIN")
	E2E_ENV+=(ABTF_E2E_PAHOLE="$PAHOLE_BIN")
	# (tests/kernel/e2e.sh names the cache after its version)
	E2E=$E2E-pahole$("$PAHOLE_BIN" --version | tr -dc 0-9)
fi
SRC=$E2E/src

# timed OUT CMD...: run CMD (a program, or a function of this script,
# exported) under GNU time; OUT gets "wall cpu rss_kb"; CMD's exit status.
timed() {
	local out=$1 rc=0
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$out.t" bash -c '"$@"' bash "$@" || rc=$?
	awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }' "$out.t" > "$out"
	return $rc
}

# best OUT CMD...: the run of CMD with the lowest wall time, of $RUNS.
best() {
	local out=$1 i
	shift
	for i in $(seq "$RUNS"); do
		timed "$out.run" "$@" > /dev/null 2>&1 || die "$* failed"
		cat "$out.run"
	done | sort -n | sed -n 1p > "$out"
	rm -f "$out.run" "$out.run.t"
}

kmake() {
	local dir=$1
	shift
	make -C "$SRC" O="$dir" PAHOLE="$PAHOLE_BIN" -j"$JOBS" "$@"
}

build() {
	local name=$1 dir=$BENCH/$1
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$E2E/config/.config" "$dir/.config"
	say "building $name: make -j$JOBS PAHOLE=$PAHOLE_BIN $*"
	timed "$BENCH/$name.build" kmake "$dir" "$@" > "$BENCH/$name.log" 2>&1 ||
		{ tail -n 30 "$BENCH/$name.log" >&2; die "the $name build failed"; }
}

# flags DIR: "PAHOLE_FLAGS|BTF_LINK_FLAGS" of the tree's Makefile.btf, as
# kbuild computes them for make -jN
flags() {
	make -s --no-print-directory -j"$JOBS" -f - srctree="$SRC" \
		auto="$1/include/config/auto.conf" <<'MK'
include $(auto)
include $(srctree)/scripts/Kbuild.include
include $(srctree)/scripts/Makefile.btf
all: ; @echo "$(PAHOLE_FLAGS)|$(BTF_LINK_FLAGS)"
MK
}

# step_pahole DIR TMP, step_btf_link DIR TMP: gen-btf.sh's first step
step_pahole() {
	# shellcheck disable=SC2086
	"$PAHOLE_BIN" -J $PAHOLE_FLAGS --btf_encode_detached="$2/pahole.btf" \
		"$1/.tmp_vmlinux1"
}
step_btf_link() {
	# shellcheck disable=SC2086
	"$TOOLS/bin/btf-link" $BTF_LINK_FLAGS -o "$2/btf-link.btf" "$1/.tmp_vmlinux1"
}
# btfids DIR TMP NAME: the step's second half, on a copy of the image
btfids() {
	cp "$1/.tmp_vmlinux1" "$2/img"
	"$1/tools/bpf/resolve_btfids/resolve_btfids" --btf "$2/$3.btf" "$2/img"
}

relink() {
	rm -f "$1/vmlinux" "$1/vmlinux.unstripped"
	kmake "$1" "${@:2}"
}

incremental() {
	touch "$SRC/$TOUCH_C"
	kmake "$1" "${@:2}"
}

field() { cut -d' ' -f"$2" "$BENCH/$1"; }
ratio() { awk -v a="$(field "$1" 1)" -v b="$(field "$2" 1)" 'BEGIN { printf "%.2f", a / b }'; }
row() {
	echo "| $1 | $(field "$2" 1) | $(field "$2" 2) | $(($(field "$2" 3) >> 10)) |" \
	     "$(field "$3" 1) | $(field "$3" 2) | $(($(field "$3" 3) >> 10)) | $(ratio "$3" "$2") |"
}

# what the timed functions need, in the shell GNU time runs them in
export SRC PAHOLE_BIN JOBS TOOLS TOUCH_C
export -f kmake step_pahole step_btf_link btfids relink incremental

main() {
	local cc=("CC=$TOOLS/bin/cc-btf gcc") tmp
	env "${E2E_ENV[@]}" "$TOP/tests/kernel/e2e.sh" tools source config >&2 ||
		die "tests/kernel/e2e.sh tools source config failed"
	mkdir -p "$BENCH"
	if [ "$BUILD" = 1 ]; then
		build pahole
		build cc-btf "${cc[@]}"
	fi
	local f
	f=$(flags "$BENCH/cc-btf") || die "cannot read scripts/Makefile.btf"
	export PAHOLE_FLAGS=${f%%|*}
	export BTF_LINK_FLAGS=${f#*|}
	say "pahole $("$PAHOLE_BIN" --version): $PAHOLE_FLAGS"
	say "btf-link: $BTF_LINK_FLAGS"
	tmp=$(mktemp -d "$BENCH/step.XXXXXX")
	best "$BENCH/pahole.step" step_pahole "$BENCH/pahole" "$tmp"
	best "$BENCH/btf-link.step" step_btf_link "$BENCH/cc-btf" "$tmp"
	best "$BENCH/pahole.btfids" btfids "$BENCH/pahole" "$tmp" pahole
	best "$BENCH/btf-link.btfids" btfids "$BENCH/cc-btf" "$tmp" btf-link
	rm -rf "$tmp"
	best "$BENCH/pahole.relink" relink "$BENCH/pahole"
	best "$BENCH/cc-btf.relink" relink "$BENCH/cc-btf" "${cc[@]}"
	best "$BENCH/pahole.incremental" incremental "$BENCH/pahole"
	best "$BENCH/cc-btf.incremental" incremental "$BENCH/cc-btf" "${cc[@]}"

	echo
	echo "Linux 7.3 (tinyconfig + tests/kernel/config-fragment), make -j$JOBS," \
	     "pahole $("$PAHOLE_BIN" --version), best of $RUNS"
	echo
	echo "| | pahole wall s | CPU s | peak MiB | btf-link wall s | CPU s | peak MiB | btf-link / pahole |"
	echo "|---|---|---|---|---|---|---|---|"
	[ ! -f "$BENCH/pahole.build" ] ||
		row "from scratch (one run)" pahole.build cc-btf.build
	row "gen-btf.sh's first step" pahole.step btf-link.step
	row "then resolve_btfids --btf" pahole.btfids btf-link.btfids
	row "relink (rm vmlinux; make)" pahole.relink cc-btf.relink
	row "incremental (touch $TOUCH_C; make)" pahole.incremental cc-btf.incremental
	if [ "$KEEP" = 0 ]; then
		rm -rf "$BENCH/pahole" "$BENCH/cc-btf"
	fi
}

main
