#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark: Linux 7.3 with split DWARF (CONFIG_DEBUG_INFO_SPLIT), with and
# without BTF, against the builds without split DWARF, side by side in one
# run on the same source and configuration.
#
# Usage: bench/kbuild-split-7.3.sh [-j JOBS] [-r RUNS] [-b BUILDS] [-k] [-s]
#
#   -j N       make -jN for every build (default: the number of CPUs)
#   -r N       each timed step N times, the best kept (default 3)
#   -b LIST    the builds, comma-separated (default: all four, below)
#   -k         keep the build directories (removed at the next run that
#              builds)
#   -s         no builds: time the steps on the builds the last run kept
#
# The source is tests/kernel/e2e.sh's (Debian's linux-source-7.3 with
# kbuild-patches/v7.3; its phases "tools source config" make or reuse it),
# and so is the configuration (tinyconfig plus tests/kernel/config-fragment,
# with CONFIG_DEBUG_INFO_BTF=y). The builds, from scratch into
# ${ABTF_BENCH_DIR:-tests/.work/bench-split-7.3}:
#   pahole        make -jN                      (upstream's path: pahole -J)
#   cc-btf        make -jN CC="cc-btf gcc"
#   cc-btf-split  make -jN CC="cc-btf gcc", CONFIG_DEBUG_INFO_SPLIT=y
#   split         make -jN, CONFIG_DEBUG_INFO_SPLIT=y, which Kconfig
#                 allows without BTF only (upstream's choice with split
#                 DWARF)
# The split configurations are the test configuration with
# DEBUG_INFO_SPLIT enabled by scripts/config and olddefconfig run with the
# build's CC; each row says whether the build has BTF. Each build from
# scratch is timed with GNU time (wall, CPU of every process, peak RSS of
# the largest), then, best of RUNS:
#   relink       rm vmlinux; make -jN (the links, the BTF step, the
#                modules' BTF, bzImage)
#   incremental  touch kernel/panic.c; make -jN
# and the build directory's size (du), its .dwo files' apart.
#
# This is a benchmark, not a test: it never fails on a slow result. The
# machine should be otherwise idle; say in what you report if it was not.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
TOOLS=${ABTF_BUILD:-$TOP/build}
BENCH=${ABTF_BENCH_DIR:-$TOP/tests/.work/bench-split-7.3}
JOBS=$(nproc 2>/dev/null || echo 2)
RUNS=3
KEEP=0
BUILD=1
BUILDS=pahole,cc-btf,cc-btf-split,split
TOUCH_C=kernel/panic.c

usage() {
	echo "usage: bench/kbuild-split-7.3.sh [-j JOBS] [-r RUNS] [-b BUILDS] [-k] [-s]" >&2
	exit 2
}
while getopts 'j:r:b:ks' opt; do
	case $opt in
	j) JOBS=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	b) BUILDS=$OPTARG ;;
	k) KEEP=1 ;;
	s) BUILD=0 KEEP=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage

say() { printf 'kbuild-split-7.3: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 1970'
export KBUILD_BUILD_USER=archive-btf KBUILD_BUILD_HOST=bench KBUILD_BUILD_VERSION=1
unset CC_BTF CC_BTF_OPTS BTF_LINK BTF_ONLY

E2E=${ABTF_KERNEL_DIR:-$TOP/tests/.work}/e2e-7.3
SRC=$E2E/src
CC_BTF="CC=$TOOLS/bin/cc-btf gcc"

# cc_of NAME: the make argument of a build's compiler, or nothing
cc_of() {
	case $1 in
	cc-btf|cc-btf-split) echo "$CC_BTF" ;;
	pahole|split) ;;
	*) die "unknown build $1: pahole, cc-btf, cc-btf-split or split" ;;
	esac
}

# kmake DIR [CC=...] ARGS...: make in the tree, out of tree in DIR
kmake() {
	local dir=$1
	shift
	make -C "$SRC" O="$dir" -j"$JOBS" "$@"
}

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
	local out=$1
	shift
	for _ in $(seq "$RUNS"); do
		timed "$out.run" "$@" > /dev/null 2>&1 || die "$* failed"
		cat "$out.run"
	done | sort -n | sed -n 1p > "$out"
	rm -f "$out.run" "$out.run.t"
}

# configure NAME DIR: the test configuration, with split DWARF for the
# split builds, made by olddefconfig with the build's compiler
configure() {
	local name=$1 dir=$2 cc
	cc=$(cc_of "$name")
	cp "$E2E/config/.config" "$dir/.config"
	case $name in
	*split) "$SRC/scripts/config" --file "$dir/.config" -e DEBUG_INFO_SPLIT ;;
	esac
	kmake "$dir" ${cc:+"$cc"} olddefconfig > "$BENCH/$name.log" 2>&1 ||
		die "olddefconfig failed for $name (see $BENCH/$name.log)"
	case $name in
	*split) grep -qx CONFIG_DEBUG_INFO_SPLIT=y "$dir/.config" ||
			die "$name: Kconfig dropped DEBUG_INFO_SPLIT" ;;
	esac
}

build() {
	local name=$1 dir=$BENCH/$1 cc
	cc=$(cc_of "$name")
	rm -rf "$dir"
	mkdir -p "$dir"
	configure "$name" "$dir"
	say "building $name: make -j$JOBS $cc"
	timed "$BENCH/$name.build" kmake "$dir" ${cc:+"$cc"} >> "$BENCH/$name.log" 2>&1 ||
		{ tail -n 30 "$BENCH/$name.log" >&2; die "the $name build failed"; }
}

relink() {
	rm -f "$1/vmlinux" "$1/vmlinux.unstripped"
	kmake "$@"
}

incremental() {
	touch "$SRC/$TOUCH_C"
	kmake "$@"
}

# what the timed functions need, in the shell GNU time runs them in
export SRC JOBS TOUCH_C
export -f kmake relink incremental

field() { cut -d' ' -f"$2" "$BENCH/$1"; }
# mib DIR [FIND-ARGS...]: the size of DIR's files (those FIND-ARGS select)
mib() {
	local dir=$1
	shift
	find "$dir/" -type f "$@" -printf '%s\n' | awk '{ s += $1 } END { printf "%d", s / 1048576 }'
}

row() {
	local name=$1 dir=$BENCH/$1 btf=no scratch="-"
	! grep -qx CONFIG_DEBUG_INFO_BTF=y "$dir/.config" || btf=yes
	[ ! -f "$BENCH/$name.build" ] ||
		scratch="$(field "$name.build" 1) | $(field "$name.build" 2)"
	[ "$scratch" != "-" ] || scratch="- | -"
	echo "| $name | $btf | $scratch | $(field "$name.relink" 1) |" \
	     "$(field "$name.incremental" 1) | $(mib "$dir") | $(mib "$dir" -name '*.dwo') |"
}

main() {
	local name names=() cc
	IFS=, read -r -a names <<< "$BUILDS"
	for name in "${names[@]}"; do
		cc_of "$name" > /dev/null
	done
	ABTF_E2E_KERNEL=7.3 ABTF_BUILD="$TOOLS" "$TOP/tests/kernel/e2e.sh" tools source config >&2 ||
		die "tests/kernel/e2e.sh tools source config failed"
	mkdir -p "$BENCH"
	for name in "${names[@]}"; do
		if [ "$BUILD" = 1 ]; then
			build "$name"
		else
			[ -f "$BENCH/$name/vmlinux" ] || die "-s: no $name build kept in $BENCH"
		fi
	done
	for name in "${names[@]}"; do
		cc=$(cc_of "$name")
		say "timing $name: relink, incremental"
		best "$BENCH/$name.relink" relink "$BENCH/$name" ${cc:+"$cc"}
		best "$BENCH/$name.incremental" incremental "$BENCH/$name" ${cc:+"$cc"}
	done

	echo
	echo "Linux 7.3 (tinyconfig + tests/kernel/config-fragment), make -j$JOBS," \
	     "pahole $(pahole --version), $(gcc -dumpfullversion), best of $RUNS"
	echo
	echo "| build | BTF | from scratch wall s | CPU s | relink s | touch $TOUCH_C s | build dir MiB | .dwo MiB |"
	echo "|---|---|---|---|---|---|---|---|"
	for name in "${names[@]}"; do
		row "$name"
	done
	if [ "$KEEP" = 0 ]; then
		for name in "${names[@]}"; do
			rm -rf "${BENCH:?}/$name"
		done
	fi
}

main
