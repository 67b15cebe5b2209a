#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark: a whole kernel build, the pahole path against the cc-btf path,
# in the same run, on the same source and configuration.
#
# Usage: bench/kbuild.sh [-j JOBS] [-r RUNS] [-k] [-s] [-L | -c BASE:FRAGMENT]
#
#   -j N   make -jN for every build, and btf-link -jN (default: the number
#          of CPUs)
#   -r N   the BTF step alone is timed N times, the best kept (default 3)
#   -k     keep the build directories (2 GiB; removed at the start of
#          the next run that builds)
#   -s     no builds: time the BTF step and report on the builds the last
#          run kept with -k (its build times included)
#   -L     the large configuration (issue 9): x86_64_defconfig plus
#          bench/large-config, with modules; the same as
#          -c x86_64_defconfig:bench/large-config. For a 16-core machine.
#   -c BASE:FRAGMENT  the configuration: `make BASE` (a config target such
#          as tinyconfig or x86_64_defconfig), FRAGMENT merged with
#          merge_config.sh, olddefconfig; every option of FRAGMENT must
#          survive
#
# The source is tests/kernel/e2e.sh's (Debian's linux-source-6.1 with
# kbuild-patches/v6.1; its phases "tools source config" make or reuse it),
# and so is the configuration without -L or -c (tinyconfig plus
# tests/kernel/config-fragment). Five builds from scratch, one after the
# other, into ${ABTF_BENCH_DIR:-tests/.work/bench}:
#   pahole       make -jN                                   (BTF from pahole -J)
#   cc-btf       make -jN CC="cc-btf gcc" BTF_LINK=btf-link
#   btf-only     the same with BTF_ONLY=1 (no DWARF kept in the objects)
#   compress     cc-btf's with CC_BTF_OPTS=--compress (each object's .BTF a
#                compressed archive member, docs/archive-format.md)
#   no-btf       make -jN without CONFIG_DEBUG_INFO_BTF (the floor: what
#                the build costs with no BTF at all, DWARF as in the others)
# Each is timed with GNU time: wall, CPU (user + sys of every process of
# the build) and the peak RSS of its largest process.
#
# Then the post-link BTF step alone, as scripts/link-vmlinux.sh runs it,
# on each build's own .tmp_vmlinux.btf (best wall of RUNS):
#   pahole       pahole -J $(scripts/pahole-flags.sh) on a copy, then the
#                objcopy that extracts .btf.vmlinux.bin.o
#   btf-link     btf-link --object .btf.vmlinux.bin.o .tmp_vmlinux.btf
#                (on the cc-btf, btf-only and compress builds' images)
# and btf-link again at -j1 (its default is one thread per CPU). Then, on
# the kept builds, each timed RUNS times, the best kept:
#   relink       rm vmlinux; make -jN vmlinux (link-vmlinux.sh: the
#                intermediate links, the BTF step, kallsyms, the final link)
#   modules      rm every .ko; make -jN modules: each module's final link
#                (ld -r) and its BTF step (pahole -J --btf_base vmlinux, or
#                btf-link --base vmlinux on the module's archive)
#   incremental  touch kernel/panic.c; make -jN: one object compiled (and
#                encoded), vmlinux and bzImage linked again, the modules'
#                BTF step again
# and the sizes: .tmp_vmlinux.btf (the intermediate image), vmlinux.o,
# vmlinux, the object files but vmlinux.o, the build directory, the final
# vmlinux BTF, the modules (count, .ko bytes, and the sum of their split
# BTF).
#
# This is a benchmark, not a test: it never fails on a slow result. The
# machine should be otherwise idle; say in what you report if it was not.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
TOOLS=${ABTF_BUILD:-$TOP/build}
E2E=${ABTF_KERNEL_DIR:-$TOP/tests/.work}/e2e
BENCH=${ABTF_BENCH_DIR:-$TOP/tests/.work/bench}
JOBS=$(nproc 2>/dev/null || echo 2)
# the file the incremental build touches, as tests/kernel/e2e.sh does
TOUCH_C=kernel/panic.c
RUNS=3
KEEP=0
TREES="pahole cc-btf btf-only compress no-btf"
CONF=

usage() {
	echo "usage: bench/kbuild.sh [-j JOBS] [-r RUNS] [-k] [-s] [-L | -c BASE:FRAGMENT]" >&2
	exit 2
}
BUILD=1
while getopts 'j:r:ksLc:' opt; do
	case $opt in
	j) JOBS=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	k) KEEP=1 ;;
	s) BUILD=0 KEEP=1 ;;
	L) CONF=x86_64_defconfig:$HERE/large-config ;;
	c) CONF=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case $CONF in
''|*?:?*) ;;
*) usage ;;
esac

say() { printf 'kbuild: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 1970'
export KBUILD_BUILD_USER=archive-btf KBUILD_BUILD_HOST=bench KBUILD_BUILD_VERSION=1
unset CC_BTF CC_BTF_OPTS BTF_LINK BTF_ONLY

# timed OUT CMD...: run CMD under GNU time; OUT gets "wall cpu rss_kb".
timed() {
	local out=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$out.t" "$@"
	awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }' "$out.t" > "$out"
}

# args NAME: the make arguments of a build.
args() {
	case $1 in
	pahole)		;;
	cc-btf)		printf '%s\n' "CC=$TOOLS/bin/cc-btf gcc" "BTF_LINK=$TOOLS/bin/btf-link" ;;
	btf-only)	printf '%s\n' "CC=$TOOLS/bin/cc-btf gcc" "BTF_LINK=$TOOLS/bin/btf-link" \
				BTF_ONLY=1 ;;
	compress)	printf '%s\n' "CC=$TOOLS/bin/cc-btf gcc" "BTF_LINK=$TOOLS/bin/btf-link" \
				CC_BTF_OPTS=--compress ;;
	no-btf)		;;
	esac
}

build() {
	local name=$1 dir=$BENCH/$1 extra=()
	mapfile -t extra < <(args "$name")
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$BENCH/config/.config" "$dir/.config"
	if [ "$name" = no-btf ]; then
		"$E2E/src/scripts/config" --file "$dir/.config" \
			--disable DEBUG_INFO_BTF
		make -C "$E2E/src" O="$dir" ARCH=x86_64 olddefconfig \
			> "$BENCH/$name.config.log" 2>&1
		! grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$dir/.config" ||
			die "no-btf: CONFIG_DEBUG_INFO_BTF stayed on"
	fi
	say "building $name: make -j$JOBS ${extra[*]}"
	timed "$BENCH/$name.build" make -C "$E2E/src" O="$dir" ARCH=x86_64 \
		-j"$JOBS" "${extra[@]}" > "$BENCH/$name.log" 2>&1 ||
		{ tail -n 30 "$BENCH/$name.log" >&2; die "the $name build failed"; }
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

pahole_step() {
	local dir=$1 tmp=$2
	cp "$dir/.tmp_vmlinux.btf" "$tmp/img"
	# shellcheck disable=SC2046
	LLVM_OBJCOPY=objcopy pahole -J $(PAHOLE=pahole "$E2E/src/scripts/pahole-flags.sh") \
		"$tmp/img"
	objcopy --only-section=.BTF --set-section-flags .BTF=alloc,readonly \
		--strip-all "$tmp/img" "$tmp/btf.o" 2>/dev/null
	printf '\1\0' | dd of="$tmp/btf.o" conv=notrunc bs=1 seek=16 status=none
}

mib() { echo "$(($1 >> 20))"; }
objects_bytes() {
	find "$1" -name '*.o' ! -path "$1/vmlinux.o" -printf '%s\n' |
		awk '{ s += $1 } END { print s + 0 }'
}

field() { cut -d' ' -f"$2" "$BENCH/$1"; }
# ratio A B: A's wall over B's.
ratio() { awk -v a="$(field "$1" 1)" -v b="$(field "$2" 1)" 'BEGIN { printf "%.2f", a / b }'; }

report() {
	local n
	echo
	echo "| make -j$JOBS, from scratch | wall s | CPU s | peak RSS MiB |"
	echo "|---|---|---|---|"
	for n in $TREES; do
		echo "| $n | $(field "$n.build" 1) | $(field "$n.build" 2) |" \
		     "$(($(field "$n.build" 3) >> 10)) |"
	done
	echo
	echo "| the BTF step alone (best of $RUNS) | wall s | CPU s | peak RSS MiB |"
	echo "|---|---|---|---|"
	for n in pahole btf-link btf-link-j1 btf-link-only btf-link-z; do
		echo "| $n | $(field "$n.step" 1) | $(field "$n.step" 2) |" \
		     "$(($(field "$n.step" 3) >> 10)) |"
	done
	echo
	echo "| kept builds, make -j$JOBS, best of $RUNS | pahole wall / CPU s | cc-btf wall / CPU s | btf-only wall / CPU s | compress wall / CPU s | no-btf wall / CPU s | cc-btf / pahole | compress / pahole | no-btf / pahole |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for w in relink modules incremental; do
		[ -f "$BENCH/pahole.$w" ] || continue
		echo "| $w | $(field "pahole.$w" 1) / $(field "pahole.$w" 2) |" \
		     "$(field "cc-btf.$w" 1) / $(field "cc-btf.$w" 2) |" \
		     "$(field "btf-only.$w" 1) / $(field "btf-only.$w" 2) |" \
		     "$(field "compress.$w" 1) / $(field "compress.$w" 2) |" \
		     "$(field "no-btf.$w" 1) / $(field "no-btf.$w" 2) |" \
		     "$(ratio "cc-btf.$w" "pahole.$w") | $(ratio "compress.$w" "pahole.$w") |" \
		     "$(ratio "no-btf.$w" "pahole.$w") |"
	done
	echo
	echo "| sizes, MiB (BTF: bytes) | pahole | cc-btf | btf-only | compress |"
	echo "|---|---|---|---|---|"
	for f in .tmp_vmlinux.btf vmlinux.o vmlinux; do
		echo "| $f | $(mib "$(stat -c %s "$BENCH/pahole/$f")") |" \
		     "$(mib "$(stat -c %s "$BENCH/cc-btf/$f")") |" \
		     "$(mib "$(stat -c %s "$BENCH/btf-only/$f")") |" \
		     "$(mib "$(stat -c %s "$BENCH/compress/$f")") |"
	done
	echo "| object files but vmlinux.o | $(mib "$(objects_bytes "$BENCH/pahole")") |" \
	     "$(mib "$(objects_bytes "$BENCH/cc-btf")") |" \
	     "$(mib "$(objects_bytes "$BENCH/btf-only")") |" \
	     "$(mib "$(objects_bytes "$BENCH/compress")") |"
	echo "| build directory | $(du -sm "$BENCH/pahole" | cut -f1) |" \
	     "$(du -sm "$BENCH/cc-btf" | cut -f1) | $(du -sm "$BENCH/btf-only" | cut -f1) |" \
	     "$(du -sm "$BENCH/compress" | cut -f1) |"
	echo "| final vmlinux BTF | $(stat -c %s "$BENCH/pahole.btf") |" \
	     "$(stat -c %s "$BENCH/cc-btf.btf") | $(stat -c %s "$BENCH/btf-only.btf") |" \
	     "$(stat -c %s "$BENCH/compress.btf") |"
	read -r -a mp <<< "$(modules_report pahole)"
	read -r -a mc <<< "$(modules_report cc-btf)"
	read -r -a mo <<< "$(modules_report btf-only)"
	read -r -a mz <<< "$(modules_report compress)"
	if [ "${mp[0]}" -gt 0 ]; then
		echo "| modules (.ko) | ${mp[0]}: $(mib "${mp[1]}") | ${mc[0]}: $(mib "${mc[1]}") |" \
		     "${mo[0]}: $(mib "${mo[1]}") | ${mz[0]}: $(mib "${mz[1]}") |"
		echo "| modules' split BTF, bytes | ${mp[2]} | ${mc[2]} | ${mo[2]} | ${mz[2]} |"
	fi
}

# configure: $BENCH/config/.config, e2e.sh's or from $CONF.
configure() {
	local base=${CONF%%:*} frag=${CONF#*:} dir=$BENCH/config opt want
	rm -rf "$dir"
	mkdir -p "$dir"
	if [ -z "$CONF" ]; then
		cp "$E2E/config/.config" "$dir/.config"
		return 0
	fi
	[ -f "$frag" ] || die "-c: no fragment $frag"
	say "configuring: make $base + $(basename "$frag")"
	{
		make -C "$E2E/src" O="$dir" ARCH=x86_64 "$base" &&
		"$E2E/src/scripts/kconfig/merge_config.sh" -m -O "$dir" \
			"$dir/.config" "$frag" &&
		make -C "$E2E/src" O="$dir" ARCH=x86_64 olddefconfig
	} > "$BENCH/config.log" 2>&1 || die "configuring failed (see $BENCH/config.log)"
	while IFS= read -r opt; do
		want=${opt%%=*}
		grep -qx -- "$opt" "$dir/.config" ||
			die "$frag: $opt did not survive olddefconfig ($(grep -- "^$want=\|# $want is" "$dir/.config" || echo absent))"
	done < <(grep '^CONFIG_' "$frag")
}

# timed_make NAME WHAT DIR TARGET...: make TARGET in the kept build DIR,
# timed into $BENCH/NAME.WHAT.run; the best run so far (lowest wall) is
# $BENCH/NAME.WHAT.
timed_make() {
	local name=$1 dir=$3 extra=() out=$BENCH/$1.$2
	shift 3
	mapfile -t extra < <(args "$name")
	timed "$out.run" make -C "$E2E/src" O="$dir" ARCH=x86_64 \
		-j"$JOBS" "${extra[@]}" "$@" > "$out.log" 2>&1 ||
		{ tail -n 30 "$out.log" >&2; die "$name: make $* failed"; }
	if ! [ -f "$out" ] || awk -v a="$(cut -d' ' -f1 "$out.run")" \
		-v b="$(cut -d' ' -f1 "$out")" 'BEGIN { exit !(a < b) }'; then
		cp "$out.run" "$out"
	fi
	rm -f "$out.run" "$out.run.t"
}

# relink_and_modules NAME: the relink, the modules' final step and an
# incremental build of a kept build, RUNS times each.
relink_and_modules() {
	local name=$1 dir=$BENCH/$1 w _
	for w in relink modules incremental; do
		rm -f "$BENCH/$name.$w"
	done
	for _ in $(seq "$RUNS"); do
		rm -f "$dir/vmlinux"
		timed_make "$name" relink "$dir" vmlinux
	done
	if grep -q '^CONFIG_MODULES=y' "$dir/.config"; then
		for _ in $(seq "$RUNS"); do
			find "$dir" -name '*.ko' -delete
			timed_make "$name" modules "$dir" modules
		done
	fi
	for _ in $(seq "$RUNS"); do
		# (the source is every build's: touched before each)
		touch "$E2E/src/$TOUCH_C"
		timed_make "$name" incremental "$dir"
	done
}

# modules_report NAME: count, .ko bytes and split BTF bytes of its modules.
modules_report() {
	local dir=$BENCH/$1 n=0 ko=0 btf=0 f s
	while IFS= read -r f; do
		n=$((n + 1))
		ko=$((ko + $(stat -c %s "$f")))
		s=$(readelf -SW "$f" | sed 's/^ *\[ *[0-9]*\]//' |
			awk '$1 == ".BTF" { print $5 }')
		btf=$((btf + 16#${s:-0}))
	done < <(find "$dir" -name '*.ko' | LC_ALL=C sort)
	echo "$n $ko $btf"
}

main() {
	local tmp n
	say "the source and the configuration (tests/kernel/e2e.sh tools source config)"
	ABTF_BUILD=$TOOLS "$TOP/tests/kernel/e2e.sh" tools source config
	mkdir -p "$BENCH"
	[ "$BUILD" -eq 0 ] || configure
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	for n in $TREES; do
		if [ "$BUILD" -eq 1 ]; then
			build "$n"
		elif ! [ -f "$BENCH/$n/vmlinux" ] || ! [ -f "$BENCH/$n.build" ]; then
			die "-s: no $n build kept by an earlier run with -k"
		fi
		[ "$n" = no-btf ] ||
			objcopy --dump-section .BTF="$BENCH/$n.btf" \
				"$BENCH/$n/vmlinux" /dev/null
	done
	cmp -s "$BENCH/cc-btf.btf" "$BENCH/btf-only.btf" ||
		say "warning: the cc-btf and btf-only builds have different BTF"
	objcopy --dump-section .BTF="$tmp/z" "$BENCH/compress/.tmp_vmlinux.btf" /dev/null
	[ "$(head -c 4 "$tmp/z")" = BTFz ] ||
		die "compress: the archive's first member is not a compressed one"
	rm -f "$tmp/z"
	cmp -s "$BENCH/cc-btf.btf" "$BENCH/compress.btf" ||
		say "warning: the cc-btf and compress builds have different BTF"

	say "the BTF step alone, best of $RUNS"
	export -f pahole_step
	export E2E
	best "$BENCH/pahole.step" bash -c 'pahole_step "$1" "$2"' _ "$BENCH/pahole" "$tmp"
	best "$BENCH/btf-link.step" "$TOOLS/bin/btf-link" --object "$tmp/o" \
		"$BENCH/cc-btf/.tmp_vmlinux.btf"
	best "$BENCH/btf-link-only.step" "$TOOLS/bin/btf-link" --object "$tmp/o" \
		"$BENCH/btf-only/.tmp_vmlinux.btf"
	best "$BENCH/btf-link-z.step" "$TOOLS/bin/btf-link" --object "$tmp/o" \
		"$BENCH/compress/.tmp_vmlinux.btf"
	best "$BENCH/btf-link-j1.step" "$TOOLS/bin/btf-link" -j1 --object "$tmp/o" \
		"$BENCH/cc-btf/.tmp_vmlinux.btf"
	for n in $TREES; do
		say "$n: the relink, the modules' final step, an incremental build"
		relink_and_modules "$n"
	done
	report
	[ "$KEEP" -eq 1 ] ||
		rm -rf "$BENCH/pahole" "$BENCH/cc-btf" "$BENCH/btf-only" "$BENCH/no-btf"
}

main
