#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# End to end on a real kernel: Debian's Linux 6.1 (or 6.12, with
# ABTF_E2E_KERNEL=6.12) with kbuild-patches/v6.1 (v6.12),
# configured with tests/kernel/config-fragment, built with pahole and with
# archive-btf, compared, booted in qemu, rebuilt.
#
# Usage: tests/kernel/e2e.sh [PHASE...]
#
# The phases, in order (all of them when none is named):
#   tools        make the archive-btf tools (make -C TOP O=ABTF_BUILD)
#   source       extract the tarball, apply the series (checked first)
#   config       tinyconfig + config-fragment, checked
#   pahole       build 1: plain make, BTF from pahole          (O=pahole)
#   cc-btf       build 2: CC="cc-btf gcc", nothing else         (O=cc-btf)
#   check        build 2's images: final BTF only, no archive left behind
#   compare      build 2's vmlinux and module BTF against pahole's, by meaning
#   features     what the tree gives btf-link (BTF_LINK_FLAGS) for each pahole
#                version, as the tree computes pahole's flags: btf-link
#                takes each on build 2's image, and where the tree gives
#                pahole a --btf_features list (6.12, pahole 1.26 and
#                later), btf-link gets the same
#   explain      btf-link --explain, with the flags the tree gives it, of
#                every FUNC name of vmlinux's BTF and every function symbol
#                of vmlinux: each name explained, the FUNCs it calls kept
#                exactly those of the final BTF
#   boot         boot build 2 in qemu: /sys/kernel/btf, insmod, no BTF error
#   judge        with ABTF_E2E_JUDGE, a second pahole on the same images:
#                btf-link links vmlinux's and each module's archive again
#                with the flags the tree gives it for that pahole's version
#                (--flat_arrays before 1.32), that pahole encodes them with
#                the tree's flags for it, and the two are compared by
#                meaning as in the compare phase
#   extmod       6.12: an external module (tests/kernel/extmod/) built with
#                make M= against build 2, given the distilled base the tree
#                asks of pahole 1.26 and later: .BTF split on .BTF.base of
#                the kernel's types it uses, and build 2's kernel loads it;
#                linked again without it, its BTF split on vmlinux means
#                what pahole makes of it
#   repro        build 3: as build 2 with another make -j, BTF_LINK="btf-link
#                -j 1" and BTF_ONLY=1 (O=cc-btf-only); its .BTF bytes must be
#                build 2's
#   relink       the link step (rm vmlinux; make) of each build made,
#                timed; resolve_btfids warns the same with build 2's BTF as
#                with pahole's of the same image (the compare phase's)
#   incremental  touch one .c in build 2: only its object is encoded again,
#                vmlinux is relinked, its BTF bytes do not change
#   unpatched    build 2's make with CC_BTF_KBUILD= (as an unpatched tree
#                has it): the wrapper refuses the touched object, names the
#                patches, and leaves no object (the object is put back
#                as it was: no relink; the incremental phase redoes one)
#   package      make bindeb-pkg in build 2 (6.1): the linux-image package's
#                modules and the -dbg package's vmlinux carry build 2's final
#                .BTF bytes; modules_install with INSTALL_MOD_STRIP=1 keeps
#                each module's .BTF and drops its DWARF
#   launchers    with ABTF_E2E_LAUNCHER=ccache-distcc (below), build 2 was
#                made through ccache and distcc from an empty cache: every C
#                object a miss compiled by distccd
#   warm         build 5: build 2 again from scratch in the same directory,
#                every object from the cache, with build 2's .BTF bytes in
#                vmlinux and the modules
#   split        with ABTF_E2E_CONFIG=split (CONFIG_DEBUG_INFO_SPLIT=y, 7.3):
#                build 2's BTF is byte for byte that of build 2 of the same
#                configuration without split DWARF (the cache without the
#                variant, e2e-7.3, built first): the objects' archive,
#                vmlinux's .BTF and .BTF_ids, each module's .BTF and kept
#                archive; gdb finds in the .dwo files the struct sk_buff it
#                finds in the other vmlinux; pahole finds no types in the
#                split vmlinux, Kconfig refuses BTF with split DWARF to gcc
#                alone, and the tree refuses BTF_LINK=pahole
# A phase needs the ones before it; each finds their results in the cache.
#
# Idempotent and cached: the source and every build directory are redone
# from scratch only when what they were made with changes (the tarball, the
# series, the fragment, the compiler, pahole, the tools), as recorded in
# stamp files; otherwise make brings them up to date, which is quick.
#
# Environment:
#   ABTF_E2E_KERNEL      the kernel: 6.1 (default) or 6.12
#   ABTF_E2E_CC          the compiler: gcc (default) or clang, which builds
#                        with LLVM=1 (clang, ld.lld, llvm-objcopy, ...) in
#                        a cache of its own (e2e-6.12-clang)
#   ABTF_E2E_ARCH        the target: x86_64 (default), arm64, riscv64 or
#                        s390x (6.12 with gcc: aarch64-linux-gnu-gcc,
#                        riscv64-linux-gnu-gcc or s390x-linux-gnu-gcc,
#                        booted with qemu-system-aarch64 or
#                        qemu-system-riscv64 -M virt, qemu-system-s390x
#                        -M s390-ccw-virtio), in e2e-6.12-ARCH; arm64
#                        also with ABTF_E2E_CC=clang (LLVM=1, clang's
#                        --target from CROSS_COMPILE), in
#                        e2e-6.12-clang-arm64, and for 6.1; riscv64
#                        with clang too
#   ABTF_E2E_CONFIG      NAME: the configuration with config-fragment.NAME
#                        (nonet: no networking; split: split DWARF), in a
#                        cache of its own (e2e-nonet, ...)
#   ABTF_E2E_LTO         thin: 6.12 with clang's ThinLTO (config-fragment.lto),
#                        in a cache of its own (e2e-6.12-clang-lto)
#   ABTF_E2E_LAUNCHER    ccache-distcc: build 2 through CC="cc-btf ccache
#                        gcc" and distcc (the launchers phase); default none
#   ABTF_KERNEL_DIR      the cache is $ABTF_KERNEL_DIR/e2e (e2e-6.12 for 6.12)
#                        (default: tests/.work/e2e, git-ignored)
#   ABTF_KERNEL_TARBALL  the source (default:
#                        /usr/src/linux-source-$ABTF_E2E_KERNEL.tar.xz)
#   ABTF_KERNEL_JOBS     make -j (default: the number of CPUs)
#   ABTF_BUILD           where the tools are built (default: build/)
#   ABTF_STRICT          1: a missing prerequisite fails the run (CI)
#   ABTF_E2E_TIMEOUT     seconds the boot may take (default: 300)
#   ABTF_E2E_ACCEL       qemu's -accel (default: tcg, which boots the tiny
#                        kernel in seconds; nested KVM can fail to emulate
#                        its cmpxchg16b)
#
# The cache ($ABTF_KERNEL_DIR/e2e):
#   src/                 the patched source, never written by the builds
#   config/              the .config every build starts from
#   pahole/ cc-btf/ cc-btf-only/   the three O= build directories
#   *.log                each phase's output; results/ what the checks read
#   summary              the timing lines of the last run
#
# Exit status: 0 when every phase passed; 77 when a prerequisite is missing
# (tests/install-deps.sh installs them all) or the host is not x86-64
# (callers skip; 1 instead with ABTF_STRICT=1, as .ci/run
# sets it); 1 when a phase failed.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
KVER=${ABTF_E2E_KERNEL:-6.1}
TARBALL=${ABTF_KERNEL_TARBALL:-/usr/src/linux-source-$KVER.tar.xz}
JOBS=${ABTF_KERNEL_JOBS:-$(nproc 2>/dev/null || echo 2)}
TOOLS=$(mkdir -p "${ABTF_BUILD:-$TOP/build}" && cd "${ABTF_BUILD:-$TOP/build}" && pwd)
BOOT_TIMEOUT=${ABTF_E2E_TIMEOUT:-300}
BOOT_MEM=256M
ACCEL=${ABTF_E2E_ACCEL:-tcg}
PATCHES=$TOP/kbuild-patches/v$KVER
FRAGMENT=$HERE/config-fragment
CC_BTF_BIN=$TOOLS/bin/cc-btf
BTF_LINK_BIN=$TOOLS/bin/btf-link

# What differs between the kernels: where the BTF is made. 6.1 links
# .tmp_vmlinux.btf for BTF alone and makes .btf.vmlinux.bin.o of it; 6.12
# makes .tmp_vmlinux1.btf.o of its first kallsyms link, .tmp_vmlinux1; 7.3
# too, through scripts/gen-btf.sh, where resolve_btfids --btf finishes the
# BTF that pahole (btf-link) made (btf2btf: kfunc tags, sorting by name)
# before it goes into the image.
case $KVER in
6.1)	E2E=${ABTF_KERNEL_DIR:-$TOP/tests/.work}/e2e
	BTF_IMAGE=.tmp_vmlinux.btf
	BTF_OBJECT=.btf.vmlinux.bin.o ;;
6.12)	E2E=${ABTF_KERNEL_DIR:-$TOP/tests/.work}/e2e-6.12
	BTF_IMAGE=.tmp_vmlinux1
	BTF_OBJECT=.tmp_vmlinux1.btf.o ;;
7.3)	E2E=${ABTF_KERNEL_DIR:-$TOP/tests/.work}/e2e-7.3
	BTF_IMAGE=.tmp_vmlinux1
	BTF_OBJECT=.tmp_vmlinux1.btf.o ;;
*)	echo "e2e: error: ABTF_E2E_KERNEL=$KVER: 6.1, 6.12 or 7.3" >&2
	exit 1 ;;
esac
# What the link step prints: the BTF step names the object (7.3: the
# image gen-btf.sh reads), and 7.3 links vmlinux.unstripped, of which
# objcopy makes vmlinux.
case $KVER in
7.3)	BTF_STEP=$BTF_IMAGE
	LD_VMLINUX=vmlinux.unstripped ;;
*)	BTF_STEP=$BTF_OBJECT
	LD_VMLINUX=vmlinux ;;
esac
KCC=${ABTF_E2E_CC:-gcc}
case $KCC in
gcc)	LLVM_ARGS=() ;;
clang)	E2E=$E2E-clang
	# 7.3 needs LLVM 17 or later: Debian 12's clang-19 and lld-19
	if [ "$KVER" = 7.3 ]; then
		LLVM_ARGS=(LLVM=-19)
	else
		LLVM_ARGS=(LLVM=1)
	fi ;;
*)	echo "e2e: error: ABTF_E2E_CC=$KCC: gcc or clang" >&2
	exit 1 ;;
esac
# The target: x86-64 natively, or arm64 / riscv64 / s390x (big-endian)
# cross-compiled (6.12, gcc) and booted with qemu-system-aarch64 /
# qemu-system-riscv64 -M virt, qemu-system-s390x -M s390-ccw-virtio.
# KARCH names the target, KMARCH is the kernel's ARCH= for it.
KARCH=${ABTF_E2E_ARCH:-x86_64}
KMARCH=$KARCH
case $KARCH in
x86_64)	CROSS=
	KIMAGE=arch/x86/boot/bzImage
	VDSO_SO=arch/x86/entry/vdso/vdso64.so
	[ "$KVER" != 7.3 ] || VDSO_SO=arch/x86/entry/vdso/vdso64/vdso64.so
	QEMU=qemu-system-x86_64 ;;
arm64)	CROSS=aarch64-linux-gnu-
	KIMAGE=arch/arm64/boot/Image
	VDSO_SO=arch/arm64/kernel/vdso/vdso.so
	QEMU=qemu-system-aarch64 ;;
riscv64) CROSS=riscv64-linux-gnu-
	KMARCH=riscv
	KIMAGE=arch/riscv/boot/Image
	VDSO_SO=arch/riscv/kernel/vdso/vdso.so
	QEMU=qemu-system-riscv64 ;;
s390x)	CROSS=s390x-linux-gnu-
	KMARCH=s390
	KIMAGE=arch/s390/boot/bzImage
	VDSO_SO=arch/s390/kernel/vdso64/vdso64.so
	[ "$KVER" != 7.3 ] || VDSO_SO=arch/s390/kernel/vdso/vdso.so
	QEMU=qemu-system-s390x ;;
*)	echo "e2e: error: ABTF_E2E_ARCH=$KARCH: x86_64, arm64, riscv64 or s390x" >&2
	exit 1 ;;
esac
if [ "$KARCH" != x86_64 ]; then
	{ [ "$KVER" != 6.1 ] || [ "$KARCH" = arm64 ]; } &&
	{ [ "$KCC" = gcc ] || [ "$KARCH" != s390x ]; } || {
		echo "e2e: error: ABTF_E2E_ARCH=$KARCH is for 6.12 and 7.3 (arm64: 6.1 too) with gcc (arm64, riscv64: clang too)" >&2
		exit 1
	}
	E2E=$E2E-$KARCH
fi
# ABTF_E2E_LTO=thin: 6.12 with clang's ThinLTO (config-fragment.lto), in
# a cache of its own: the objects are LLVM bitcode, and the tree encodes
# vmlinux.o and the modules' objects that the LTO links write (patch 5)
LTO=${ABTF_E2E_LTO:-}
case $LTO in
"")	LTO_FRAGMENT= ;;
thin)	[ "$KVER" = 6.12 ] && [ "$KCC" = clang ] && [ "$KARCH" = x86_64 ] || {
		echo "e2e: error: ABTF_E2E_LTO=thin is for 6.12 with clang on x86_64" >&2
		exit 1
	}
	E2E=$E2E-lto
	LTO_FRAGMENT=$HERE/config-fragment.lto ;;
*)	echo "e2e: error: ABTF_E2E_LTO=$LTO: thin or nothing" >&2
	exit 1 ;;
esac
# the compiler cc-btf runs: the cross gcc, or clang, which kbuild gives
# --target from CROSS_COMPILE
KCC_BIN=$KCC
[ "$KCC" = clang ] || KCC_BIN=$CROSS$KCC
[ "$KCC$KVER" != clang7.3 ] || KCC_BIN=clang-19
# ABTF_E2E_LAUNCHER=ccache-distcc: build 2 is made with CC="cc-btf ccache
# gcc", distcc as ccache's prefix (CCACHE_PREFIX), from an empty cache and
# compiled by a distccd of 127.0.0.1; later compiles (the incremental
# phase's) by distcc on this machine
LAUNCHER=${ABTF_E2E_LAUNCHER:-}
case $LAUNCHER in
"")	;;
ccache-distcc)
	export CCACHE_DIR=$E2E/ccache CCACHE_PREFIX=distcc CCACHE_NOCOMPRESS=1 \
		DISTCC_DIR=$E2E/distcc DISTCC_HOSTS=localhost ;;
*)	echo "e2e: error: ABTF_E2E_LAUNCHER=$LAUNCHER: ccache-distcc or nothing" >&2
	exit 1 ;;
esac
# the architecture's own additions to the fragment (and the base
# fragment's options it has no use for)
ARCH_FRAGMENT=$HERE/config-fragment.$KARCH
# (a kernel version's own, where it has one: config-fragment.arm64-7.3)
[ ! -f "$ARCH_FRAGMENT-$KVER" ] || ARCH_FRAGMENT=$ARCH_FRAGMENT-$KVER
# ABTF_E2E_CONFIG=NAME: a variant of the configuration,
# config-fragment.NAME (its "# drop:" lines and options, as an
# architecture's), in a cache of its own (e2e-NAME, ...). A variant with
# a "# base: NAME" line starts instead from Debian's configuration NAME
# of the kernel (linux-config-$KVER's config.NAME.xz), its own options
# merged in, not tinyconfig and config-fragment: a distribution's kernel
# (config-fragment.cloud-amd64), whose "# boot-modules:" lines name the
# modules the boot phase loads (with what they depend on), not all.
VARIANT=${ABTF_E2E_CONFIG:-}
VARIANT_FRAGMENT=
BASE_CONFIG=
BASE=
BOOT_MODULES=
CONFIG_CC=()
if [ -n "$VARIANT" ]; then
	VARIANT_FRAGMENT=$HERE/config-fragment.$VARIANT
	[ -f "$VARIANT_FRAGMENT" ] || {
		echo "e2e: error: ABTF_E2E_CONFIG=$VARIANT: no $VARIANT_FRAGMENT" >&2
		exit 1
	}
	# (the cache without the variant: the split phase's BASE)
	BASE=$E2E
	E2E=$E2E-$VARIANT
	BASE_CONFIG=$(sed -n 's/^# base: *//p' "$VARIANT_FRAGMENT")
	[ -z "$BASE_CONFIG" ] ||
		BASE_CONFIG=/usr/src/linux-config-$KVER/config.$BASE_CONFIG.xz
	BOOT_MODULES=$(sed -n 's/^# boot-modules: *//p' "$VARIANT_FRAGMENT" | tr '\n' ' ')
	# "# configure with cc-btf": Kconfig runs with build 2's compiler,
	# for what it allows only to cc-btf (config-fragment.split)
	! grep -qx '# configure with cc-btf' "$VARIANT_FRAGMENT" ||
		CONFIG_CC=("CC=$CC_BTF_BIN $KCC_BIN")
	[ -z "$BASE_CONFIG" ] || BOOT_MEM=1G	# a distribution's kernel
fi

# ABTF_E2E_PAHOLE=PATH: another pahole (Debian sid's 1.32, the lab's
# upstream one) configures the tree (its version decides the features the
# tree asks for: 7.3's layout from 1.31, the nested arrays of 1.32), builds
# what pahole builds and is compared with, in a cache of its own named
# after its version (e2e-7.3-pahole132, ...)
PAHOLE_BIN=pahole
PAHOLE_ARGS=()
if [ -n "${ABTF_E2E_PAHOLE:-}" ]; then
	PAHOLE_BIN=$ABTF_E2E_PAHOLE
	PAHOLE_ARGS=(PAHOLE="$PAHOLE_BIN")
	E2E=$E2E-pahole$("$PAHOLE_BIN" --version 2>/dev/null | tr -dc 0-9)
	BASE=${BASE:+$BASE-pahole$("$PAHOLE_BIN" --version 2>/dev/null | tr -dc 0-9)}
fi
# ABTF_E2E_JUDGE=PATH: a second pahole for the judge phase (7.3 in CI:
# Debian 12's 1.24, beside sid's 1.32 that configures the tree)
JUDGE_BIN=${ABTF_E2E_JUDGE:-}
JUDGE_PFLAGS=

SRC=$E2E/src
CONFIG=$E2E/config
B_PAHOLE=$E2E/pahole
B_CC=$E2E/cc-btf
B_ONLY=$E2E/cc-btf-only
RES=$E2E/results

# The object the incremental phase touches: built into vmlinux, quick.
TOUCH_C=kernel/panic.c

# Fixed build identity: the images depend on the sources only.
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 1970'
export KBUILD_BUILD_USER=archive-btf KBUILD_BUILD_HOST=e2e KBUILD_BUILD_VERSION=1
unset CC_BTF CC_BTF_OPTS BTF_LINK BTF_ONLY

ALL_PHASES="tools source config pahole cc-btf check compare judge features explain boot extmod repro relink incremental unpatched package launchers warm split"

say() { printf 'e2e: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
# unavailable WHY: the run cannot be made here; the tests skip, but
# with ABTF_STRICT=1 (CI) the run fails.
unavailable() {
	say "unavailable: $*"
	[ "${ABTF_STRICT:-0}" = 1 ] && exit 1
	exit 77
}

# fail WHAT: a check failed; the phase goes on, the run fails at its end.
FAILED=0
fail() { say "FAIL: $*"; FAILED=1; }

step_done() { [ -f "$E2E/$1.stamp" ] && [ "$(cat "$E2E/$1.stamp")" = "$2" ]; }
mark_done() { printf '%s\n' "$2" > "$E2E/$1.stamp"; }
stamp_of() { cat "$E2E/$1.stamp" 2>/dev/null || echo none; }

# ---------------------------------------------------------------- helpers

# kmake DIR LOG ARGS...: make in the patched tree, out of tree in DIR, the
# output in LOG (appended).
kmake() {
	local dir=$1 log=$2
	shift 2
	make -C "$SRC" O="$dir" ARCH="$KMARCH" ${CROSS:+CROSS_COMPILE="$CROSS"} "${LLVM_ARGS[@]}" \
		"${PAHOLE_ARGS[@]}" "$@" >>"$log" 2>&1 || {
		tail -n 40 "$log" >&2
		die "make O=${dir#"$E2E"/} $* failed; the whole output is in $log"
	}
}

# The make arguments of each build.
args_pahole() { echo "-j$JOBS"; }
args_cc() { printf '%s\n' "-j$JOBS" "CC=$CC_BTF_BIN ${LAUNCHER:+ccache }$KCC_BIN"; }
args_only() {
	printf '%s\n' "-j$((JOBS + 1))" "CC=$CC_BTF_BIN $KCC_BIN" "BTF_LINK=$BTF_LINK_BIN -j 1" BTF_ONLY=1
}

# kmake_build DIR LOG ARGSFN [MORE...]: make with the build's arguments.
kmake_build() {
	local dir=$1 log=$2 fn=$3 args=()
	shift 3
	mapfile -t args < <($fn)
	kmake "$dir" "$log" "${args[@]}" "$@"
}

# section FILE NAME OUT: dump an ELF section; fails if there is none
# (objcopy only warns, exit status 0, for a section that does not exist).
section() {
	rm -f "$3"
	"${CROSS}objcopy" --dump-section "$2=$3" "$1" /dev/null 2>/dev/null && [ -f "$3" ]
}

# section_size FILE NAME: the size of a section, in bytes.
section_size() {
	local hex
	hex=$(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' |
		awk -v s="$2" '$1 == s && !n++ { print $5 }')
	[ -n "$hex" ] && echo $((16#$hex))
}

# has_btf FILE: FILE has a .BTF section.
has_btf() {
	readelf -SW "$1" | grep -F ' .BTF ' >/dev/null
}

# symbol_addr FILE NAME: a symbol's value.
symbol_addr() {
	local hex
	hex=$("${CROSS}nm" "$1" | awk -v s="$2" '$3 == s && !n++ { print $1 }')
	[ -n "$hex" ] && echo $((16#$hex))
}

modules_of() {
	sed -e 's/\.o$/.ko/' "$1/modules.order"
}

# boot_modules_of DIR: the modules the boot loads: all of them, or with a
# variant's "# boot-modules:" list, those and what they depend on
# (modinfo's depends), in the order of modules.order.
boot_modules_of() {
	local dir=$1 want=" " m ko deps
	if [ -z "$BOOT_MODULES" ]; then
		modules_of "$dir"
		return
	fi
	declare -A path=()
	for ko in $(modules_of "$dir"); do
		m=$(basename "$ko" .ko)
		path[${m//-/_}]=$ko
	done
	# shellcheck disable=SC2086 # a list of names
	set -- $BOOT_MODULES
	while [ $# -gt 0 ]; do
		m=${1//-/_}
		shift
		case $want in *" $m "*) continue ;; esac
		[ -n "${path[$m]:-}" ] || die "boot-modules: no module $m in modules.order"
		want+="$m "
		deps=$(modinfo -F depends "$dir/${path[$m]}" | tr ',' ' ')
		# shellcheck disable=SC2086
		set -- "$@" $deps
	done
	for ko in $(modules_of "$dir"); do
		m=$(basename "$ko" .ko)
		case $want in *" ${m//-/_} "*) echo "$ko" ;; esac
	done
}

sha() { sha256sum "$@" | cut -c1-16; }

# ----------------------------------------------------------------- phases

# missing_packages: the packages a run needs are there (tests/install-deps.sh
# installs them; the tests never install anything themselves).
missing_packages() {
	local pkgs=()
	[ -f "$TARBALL" ] || pkgs+=("linux-source-$KVER")
	[ -z "$BASE_CONFIG" ] || [ -f "$BASE_CONFIG" ] || pkgs+=("linux-config-$KVER")
	command -v make >/dev/null || pkgs+=(make)
	command -v gcc >/dev/null || pkgs+=(gcc)
	command -v bc >/dev/null || pkgs+=(bc)
	command -v flex >/dev/null || pkgs+=(flex)
	command -v bison >/dev/null || pkgs+=(bison)
	command -v pahole >/dev/null || pkgs+=(dwarves)
	command -v xz >/dev/null || pkgs+=(xz-utils)
	command -v objcopy >/dev/null || pkgs+=(binutils)
	command -v cpio >/dev/null || pkgs+=(cpio)
	if [ "$KCC" = clang ]; then
		command -v "$KCC_BIN" >/dev/null || pkgs+=("$KCC_BIN")
		[ "$KVER" != 7.3 ] || command -v ld.lld-19 >/dev/null || pkgs+=(lld-19 llvm-19)
	fi
	case $KARCH in
	x86_64)	command -v qemu-system-x86_64 >/dev/null || pkgs+=(qemu-system-x86) ;;
	arm64)	command -v qemu-system-aarch64 >/dev/null || pkgs+=(qemu-system-arm)
		command -v "${CROSS}gcc" >/dev/null || pkgs+=(gcc-aarch64-linux-gnu)
		[ -f /usr/aarch64-linux-gnu/lib/libc.a ] || pkgs+=(libc6-dev-arm64-cross) ;;
	riscv64) command -v qemu-system-riscv64 >/dev/null || pkgs+=(qemu-system-misc opensbi)
		command -v "${CROSS}gcc" >/dev/null || pkgs+=(gcc-riscv64-linux-gnu)
		[ -f /usr/riscv64-linux-gnu/lib/libc.a ] || pkgs+=(libc6-dev-riscv64-cross) ;;
	s390x)	command -v qemu-system-s390x >/dev/null || pkgs+=(qemu-system-misc)
		command -v "${CROSS}gcc" >/dev/null || pkgs+=(gcc-s390x-linux-gnu)
		[ -f /usr/s390x-linux-gnu/lib/libc.a ] || pkgs+=(libc6-dev-s390x-cross) ;;
	esac
	command -v bpftool >/dev/null || pkgs+=(bpftool)
	command -v python3 >/dev/null || pkgs+=(python3)
	command -v git >/dev/null || command -v patch >/dev/null || pkgs+=(patch)
	static_busybox || pkgs+=(busybox-static)
	if [ -n "$LAUNCHER" ]; then
		command -v ccache >/dev/null || pkgs+=(ccache)
		command -v distccd >/dev/null || pkgs+=(distcc)
	fi
	# the split phase reads the split vmlinux with gdb
	! grep -qsx 'CONFIG_DEBUG_INFO_SPLIT=y' "${VARIANT_FRAGMENT:-/dev/null}" ||
		command -v gdb >/dev/null || pkgs+=(gdb)
	[ -f /usr/include/libelf.h ] || pkgs+=(libelf-dev)
	[ -f /usr/include/openssl/opensslv.h ] || pkgs+=(libssl-dev)
	[ ${#pkgs[@]} -eq 0 ] && return 0
	unavailable "${pkgs[*]} missing: tests/install-deps.sh installs them"
}

# The initramfs has no libraries: busybox must be linked statically.
static_busybox() {
	[ -x /bin/busybox ] &&
		! readelf -lW /bin/busybox 2>/dev/null | grep 'program interpreter' >/dev/null
}

phase_tools() {
	make -s -C "$TOP" O="$TOOLS" >"$E2E/tools.log" 2>&1 || {
		cat "$E2E/tools.log" >&2
		die "building the tools failed"
	}
	if ! [ -x "$CC_BTF_BIN" ] || ! [ -x "$BTF_LINK_BIN" ]; then
		die "make left no $CC_BTF_BIN or $BTF_LINK_BIN"
	fi
}

series() {
	sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$PATCHES/series"
}

# apply_series DIR: check every patch, then apply them in order.
apply_series() {
	local dir=$1 p
	for p in $(series); do
		[ -f "$PATCHES/$p" ] || die "series names $p, which is not there"
		if command -v git >/dev/null; then
			# not inside the repository around the cache: git apply
			# would skip every path outside the current directory
			GIT_CEILING_DIRECTORIES=$(dirname "$dir") \
				git -C "$dir" apply --check "$PATCHES/$p" ||
				die "$p does not apply to $TARBALL"
			GIT_CEILING_DIRECTORIES=$(dirname "$dir") \
				git -C "$dir" apply "$PATCHES/$p"
			GIT_CEILING_DIRECTORIES=$(dirname "$dir") \
				git -C "$dir" apply --check -R "$PATCHES/$p" ||
				die "$p did not apply"
		else
			patch -d "$dir" -p1 --dry-run -s < "$PATCHES/$p" >/dev/null ||
				die "$p does not apply to $TARBALL"
			patch -d "$dir" -p1 -s < "$PATCHES/$p"
		fi
	done
}

phase_source() {
	local key p
	key="$(readlink -f "$TARBALL") $(stat -c '%s %Y' "$TARBALL")"
	for p in series $(series); do
		key+=" $(sha "$PATCHES/$p")"
	done
	step_done source "$key" && [ -f "$SRC/Makefile" ] && return 0
	say "extracting $TARBALL and applying $(series | wc -l) patches"
	rm -rf "$SRC" "$SRC.tmp" "$E2E"/config.stamp
	mkdir -p "$SRC.tmp"
	tar -xJf "$TARBALL" -C "$SRC.tmp" --strip-components=1
	apply_series "$SRC.tmp"
	mv "$SRC.tmp" "$SRC"
	mark_done source "$key"
}

# Every option of the fragment must have survived olddefconfig.
check_config() {
	local line opt bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$CONFIG/.config" || {
				say "config: $line did not survive olddefconfig"
				bad=1
			} ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			grep -q "^$opt=" "$CONFIG/.config" && {
				say "config: $opt is set, the fragment unsets it"
				bad=1
			} ;;
		esac
	done < "$FRAGMENT"
	[ $bad -eq 0 ] || die "the configuration is not the fragment's (see above)"
}

# cc_version: what identifies the compiler in the stamps.
cc_version() {
	case $KCC in
	gcc) "${CROSS}gcc" -dumpfullversion ;;
	*) "$KCC_BIN" --version | head -n 1 ;;
	esac
}

# arch_fragment: for a target other than x86-64 or a variant
# (ABTF_E2E_CONFIG), the fragment made of the base one less the options
# their config-fragment.ARCH and .NAME drop ("# drop: CONFIG_X ...",
# options the target does not have or the variant leaves out), then those
# files; FRAGMENT names it.
arch_fragment() {
	local drop extra=()
	if [ -n "$BASE_CONFIG" ]; then
		FRAGMENT=$VARIANT_FRAGMENT	# a distribution's, whole
		return
	fi
	if [ "$KARCH" != x86_64 ]; then
		[ -f "$ARCH_FRAGMENT" ] || die "no $ARCH_FRAGMENT"
		extra+=("$ARCH_FRAGMENT")
	fi
	[ -z "$VARIANT_FRAGMENT" ] || extra+=("$VARIANT_FRAGMENT")
	if [ ${#extra[@]} -gt 0 ]; then
		drop=$(sed -n 's/^# drop: *//p' "${extra[@]}" | tr ' ' '\n' | sed '/^$/d' | paste -sd'|')
		{
			grep -vE "^(${drop:-NONE})=" "$FRAGMENT"
			cat "${extra[@]}"
		} > "$E2E/fragment"
		FRAGMENT=$E2E/fragment
	fi
	if [ -n "$LTO_FRAGMENT" ]; then
		cat "$FRAGMENT" "$LTO_FRAGMENT" > "$E2E/fragment.lto"
		FRAGMENT=$E2E/fragment.lto
	fi
}

phase_config() {
	local key log=$E2E/config.log
	arch_fragment
	# (which modules the boot loads is no part of the configuration)
	key="$(stamp_of source) $(grep -v '^# boot-modules:' "$FRAGMENT" | sha) $(cc_version) $("$PAHOLE_BIN" --version)"
	[ -z "$BASE_CONFIG" ] || key+=" $(sha "$BASE_CONFIG")"
	step_done config "$key" && [ -f "$CONFIG/.config" ] && return 0
	: > "$log"
	rm -rf "$CONFIG"
	mkdir -p "$CONFIG"
	if [ -n "$BASE_CONFIG" ]; then
		xz -dc "$BASE_CONFIG" > "$CONFIG/.config"
	else
		kmake "$CONFIG" "$log" tinyconfig "${CONFIG_CC[@]}"
	fi
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$CONFIG" "$CONFIG/.config" \
		"$FRAGMENT" >>"$log" 2>&1 || die "merge_config.sh failed (see $log)"
	kmake "$CONFIG" "$log" olddefconfig "${CONFIG_CC[@]}"
	check_config
	mark_done config "$key"
}

# build NAME DIR ARGSFN KEY: build the tree in DIR, from scratch when KEY
# (what it is built with) changed since the last time.
build() {
	local name=$1 dir=$2 fn=$3 key log=$E2E/$1.log
	key=$(build_key "$fn" "$4")
	: > "$log"
	if ! step_done "$name" "$key" || ! [ -f "$dir/vmlinux" ]; then
		say "building $name from scratch: make $($fn | tr '\n' ' ')"
		rm -rf "$dir"
		mkdir -p "$dir"
		cp "$CONFIG/.config" "$dir/.config"
		rm -f "$E2E/$name.stamp"
	fi
	kmake_build "$dir" "$log" "$fn"
	mark_done "$name" "$key"
	if grep -E "orphan section|non-allocatable section" "$log" >&2; then
		fail "$name: orphan or unexpected sections (above)"
	fi
	if ! [ -f "$dir/vmlinux" ] || ! [ -f "$dir/$KIMAGE" ]; then
		die "$name: make left no vmlinux or $KIMAGE"
	fi
}

# build_key ARGSFN EXTRA: what a build is made with, as its stamp records.
build_key() {
	echo "$(stamp_of config) $($1 | tr '\n' ' ') $2"
}

# cc_key: build 2's EXTRA: the tools, and the launchers it went through.
cc_key() {
	echo "$(tools_key)${LAUNCHER:+ $LAUNCHER}"
}

tools_key() {
	sha "$CC_BTF_BIN" "$BTF_LINK_BIN" | tr '\n' ' '
}

phase_pahole() {
	build pahole "$B_PAHOLE" args_pahole "$("$PAHOLE_BIN" --version)"
}

phase_cc_btf() {
	if [ -n "$LAUNCHER" ] && ! { step_done cc-btf "$(build_key args_cc "$(cc_key)")" &&
	     [ -f "$B_CC/vmlinux" ]; }; then
		rm -rf "$B_CC"
		launched_build
		return
	fi
	build cc-btf "$B_CC" args_cc "$(cc_key)"
}

# is_bitcode FILE: LLVM bitcode, as clang -flto writes an object.
is_bitcode() {
	[ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' ')" = 4243c0de ]
}

# check_objects NAME DIR: every object that kbuild compiled from C with
# $(CC), that is with cc-btf, and with debug information (-g) carries its
# own .BTF, but for those without any DWARF (clang writes none for a unit
# that defines nothing), and the vDSO's, which must have none (cc-btf/kbuild.c).
# Host programs (scripts/, tools/) are built with $(HOSTCC).
check_objects() {
	local name=$1 dir=$2 obj rel cmd line sections n=0 nodwarf=0 missing=()
	local vdso=0 vdso_btf=() boot=0 boot_btf=() bitcode=0
	while IFS= read -r obj; do
		rel=${obj#"$dir"/}
		cmd=$(dirname "$obj")/.$(basename "$obj").cmd
		[ -f "$SRC/${rel%.o}.c" ] && [ -f "$cmd" ] || continue
		line=$(head -n 1 "$cmd")
		# s390's boot decompressor, an image of its own (cc-btf's kbuild.c)
		case $rel in
		arch/s390/boot/*)
			has_btf "$obj" && boot_btf+=("$rel")
			boot=$((boot + 1))
			continue ;;
		esac
		case $line in
		*" -DBUILD_VDSO"*|*"cmd_"*/vdso*/*" := "*" -fpic "*|*"cmd_"*/vdso*/*" := "*" -fPIC "*)
			has_btf "$obj" && vdso_btf+=("$rel")
			vdso=$((vdso + 1))
			continue ;;
		*"$CC_BTF_BIN ${LAUNCHER:+ccache }$KCC_BIN "*" -g "*) ;;
		*) continue ;;
		esac
		if [ -n "$LTO" ] && is_bitcode "$obj"; then
			bitcode=$((bitcode + 1))
			continue
		fi
		sections=$(readelf -SW "$obj")
		case $sections in
		*" .BTF "*) n=$((n + 1)) ;;
		# clang writes no DWARF at all for a unit that defines nothing
		*" .debug_info "*) missing+=("$rel") ;;
		*) nodwarf=$((nodwarf + 1)) ;;
		esac
	done < <(find "$dir" -name '*.o' ! -name vmlinux.o | sort)
	say "$name: $n objects compiled from C by cc-btf with -g, all with .BTF" \
	    "($nodwarf more without any DWARF)"
	[ ${#missing[@]} -eq 0 ] ||
		fail "$name: ${#missing[@]} objects compiled from C by cc-btf with -g have no .BTF: ${missing[*]:0:10}"
	[ "$n" -gt 0 ] || fail "$name: no object compiled by cc-btf with -g"
	if [ -n "$LTO" ]; then
		# the bitcode's BTF is vmlinux.o's, encoded after the LTO link
		say "$name: $bitcode objects of LLVM bitcode, left to the LTO links"
		[ "$bitcode" -gt 0 ] || fail "$name: LTO, but no object is LLVM bitcode"
		has_btf "$dir/vmlinux.o" ||
			fail "$name: vmlinux.o, the LTO link's output, has no .BTF"
	fi
	say "$name: $vdso vDSO objects, none with .BTF"
	[ ${#vdso_btf[@]} -eq 0 ] ||
		fail "$name: vDSO objects with .BTF: ${vdso_btf[*]:0:10}"
	[ "$vdso" -gt 0 ] || fail "$name: no vDSO object seen"
	if ! [ -f "$dir/$VDSO_SO" ]; then
		fail "$name: no $VDSO_SO"
	elif has_btf "$dir/$VDSO_SO"; then
		fail "$name: $VDSO_SO has a .BTF section"
	fi
	if [ "$KARCH" = s390x ]; then
		say "$name: $boot objects of the boot decompressor, none with .BTF"
		[ ${#boot_btf[@]} -eq 0 ] ||
			fail "$name: decompressor objects with .BTF: ${boot_btf[*]:0:10}"
		[ "$boot" -gt 0 ] || fail "$name: no decompressor object seen"
	fi
	return 0
}

# check_image NAME DIR: the images of a BTF_LINK build carry the final BTF:
# vmlinux nothing of the archive, each module its archive kept aside.
check_image() {
	local name=$1 dir=$2 size start stop ko kept
	mkdir -p "$RES"

	# vmlinux: one BTF, __start_BTF..__stop_BTF, the size of btf-link's
	size=$(section_size "$dir/$BTF_OBJECT" .BTF) ||
		{ fail "$name: $BTF_OBJECT has no .BTF"; return; }
	start=$(symbol_addr "$dir/vmlinux" __start_BTF)
	stop=$(symbol_addr "$dir/vmlinux" __stop_BTF)
	[ $((stop - start)) -eq "$size" ] ||
		fail "$name: vmlinux: __stop_BTF - __start_BTF = $((stop - start)), the final BTF is $size bytes"
	[ "$(section_size "$dir/vmlinux" .BTF)" -eq "$size" ] ||
		fail "$name: vmlinux: .BTF is $(section_size "$dir/vmlinux" .BTF) bytes, the final BTF $size"
	readelf -SW "$dir/vmlinux" | grep -F .debug_btf_addr >/dev/null &&
		fail "$name: vmlinux has a .debug_btf_addr section"
	section "$dir/vmlinux" .BTF "$RES/$name.vmlinux.btf" ||
		fail "$name: no .BTF in vmlinux"
	section "$dir/$BTF_OBJECT" .BTF "$RES/$name.final.btf"
	cmp -s "$RES/$name.vmlinux.btf" "$RES/$name.final.btf" ||
		fail "$name: vmlinux's .BTF is not $BTF_OBJECT's"
	bpftool btf dump file "$RES/$name.vmlinux.btf" >/dev/null 2>&1 ||
		fail "$name: bpftool cannot read vmlinux's BTF"
	"$BTF_LINK_BIN" -v -o "$RES/$name.archive.btf" "$dir/$BTF_IMAGE" \
		2>"$RES/$name.archive" ||
		fail "$name: btf-link cannot read the archive of $BTF_IMAGE again"
	say "$name: archive: $(grep -m 1 ' members (' "$RES/$name.archive" | sed 's/^[^:]*: [^:]*: //')"
	# btf-link reads the archive and the slots of the BTF image, which
	# is linked without the objects' DWARF (patch 0004)
	readelf -SW "$dir/$BTF_IMAGE" | grep -F ' .debug_btf_addr ' >/dev/null ||
		fail "$name: $BTF_IMAGE has no .debug_btf_addr"
	readelf -SW "$dir/$BTF_IMAGE" | grep -E ' \.debug_(info|line|str|abbrev) ' >/dev/null &&
		fail "$name: $BTF_IMAGE was linked with the objects' DWARF"
	say "$name: vmlinux: final BTF $size bytes, __stop_BTF - __start_BTF $((stop - start))"

	check_objects "$name" "$dir"

	# modules: the final split BTF, and the archive kept aside for a
	# link on a new vmlinux without a relink (patch 2), which btf-link
	# links again (the incremental phase checks the bytes it gives)
	for ko in $(modules_of "$dir"); do
		kept=$(section_size "$dir/$ko" .debug_btf_archive) && [ "$kept" -gt 0 ] ||
			fail "$name: $ko: no archive kept in .debug_btf_archive"
		"$BTF_LINK_BIN" -v -o "$RES/$name.ko.btf" \
			--base "$dir/vmlinux" "$dir/$ko" 2>"$RES/$name.ko.log" ||
			fail "$name: $ko: btf-link cannot link its kept archive"
		say "$name: $ko: archive kept, $kept bytes: $(grep -m 1 ' members (' "$RES/$name.ko.log" | sed 's/^[^:]*: [^:]*: //')"
		rm -f "$RES/$name.ko.btf" "$RES/$name.ko.log"
		size=$(section_size "$dir/$ko" .BTF) ||
			{ fail "$name: $ko has no .BTF"; continue; }
		bpftool -B "$dir/vmlinux" btf dump file "$dir/$ko" >/dev/null 2>&1 ||
			fail "$name: bpftool cannot read $ko's BTF on top of vmlinux"
		say "$name: $ko: split BTF $size bytes"
	done
}

phase_check() {
	check_image cc-btf "$B_CC"
}

# funcs BTF [BASE]: the names of the FUNCs of BTF, split BTF on BASE if given.
funcs() {
	bpftool ${2:+-B "$2"} btf dump file "$1" | sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p"
}

# compare IMAGE A B OUT LINES [-j] [--base BASE]: btf-link --compare A B,
# the differences in OUT, the first LINES of them shown, all of them sorted
# into the deliberate ones (docs/design.md) and the others, each with its
# witness (e2e-classify). IMAGE is the ELF file that B is the BTF of; -j:
# A was made by pahole -j.
compare() {
	local image=$1 a=$2 b=$3 out=$4 lines=$5 rc=0 desc refj=()
	shift 5
	if [ "${1:-}" = -j ]; then
		refj=(--reference-j)
		shift
	fi
	"$BTF_LINK_BIN" --compare "$@" "$a" "$b" >"$out" || rc=$?
	case $rc in
	0)	say "  equal by meaning: ${a#"$E2E"/} and ${b#"$E2E"/}"
		return ;;
	1)	say "  $(wc -l < "$out") differences (- only pahole's, + only archive-btf's," \
		    "~ both), in ${out#"$E2E"/}"
		head -n "$lines" "$out" | sed -e 's/^/    /' -e 's/^\(.\{200\}\).*/\1 .../' >&2
		[ "$lines" -eq 0 ] || [ "$(wc -l < "$out")" -le "$lines" ] || say "    ..." ;;
	*)	fail "btf-link --compare $* $a $b failed ($rc)"
		return ;;
	esac
	funcs "$a" "${2:-}" > "$out.a-funcs"
	funcs "$b" "${2:-}" > "$out.b-funcs"
	"${CROSS}nm" "$image" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | sort | uniq -d > "$out.dup-funcs"
	# the diff's function names and the objects defining them (nm of
	# every object), once for both witnesses that need them
	defs_of "$image" "$out" "$out.defs" ${2:+"$2"}
	lenders "$image" "$b" "$out" "$out.defs" ${2:+"$2"} > "$out.lenders"
	asm_units "$image" "$b" "$out" "$out.defs" ${2:+"$2"} > "$out.asm"
	weak_c "$out" "$out.defs" > "$out.weak"
	rm -f "$out.defs".*
	lost_types "$image" "$out" ${2:+"$2"} > "$out.lost"
	clones_only "$image" > "$out.clones"
	percpu_start "$image" > "$out.percpu-start"
	pi_aliases "$image" > "$out.aliases"
	last_ambiguous "$image" > "$out.last"
	desc=$RES/base.described
	if [ -n "${2:-}" ]; then
		base_described "$2"
	else
		desc=$RES/none.described
		: > "$desc"
	fi
	rc=0
	"$HERE/e2e-classify" "${refj[@]}" \
		--pahole-version "$("$PAHOLE_BIN" --version | tr -dc 0-9)" \
		"$out" "$out.a-funcs" "$out.b-funcs" \
		"$out.dup-funcs" "$out.lenders" "$out.last" "$desc" \
		"$out.asm" "$out.percpu-start" "$out.aliases" "$out.lost" \
		"$out.clones" "$out.weak" > "$out.kinds" || rc=$?
	sed -e 's/^/  /' "$out.kinds" >&2
	[ $rc -le 1 ] || fail "e2e-classify failed"
	[ $rc -ne 1 ] || fail "${out#"$E2E"/}: differences that docs/design.md does not explain"
}

# unit_objects: the objects whose .BTF a function's own unit made, NUL-
# separated: each object vmlinux links (the members of vmlinux.a and of the
# libraries, thin archives of object-tree paths; not the objects of other
# images, such as s390's decompressor or the purgatory, which define their
# own strcpy), or with LTO (bitcode, no BTF) vmlinux.o, which cc-btf
# encoded whole after the LTO link.
unit_objects() {
	local a
	if [ -n "$LTO" ]; then
		printf '%s\0' "$B_CC/vmlinux.o"
		return
	fi
	# (ar t names a thin archive's members as the archive was named; in
	# link order, each once)
	for a in vmlinux.a $(cd "$B_CC" && find . -name lib.a -printf '%P\n' | LC_ALL=C sort); do
		(cd "$B_CC" && ar t "$a") || die "cannot list $B_CC/$a"
	done | awk '!seen[$0]++' | sed "s|^|$B_CC/|" | tr '\n' '\0'
}

# defs_of IMAGE DIFF OUT [BASE]: for the function names of DIFF's func
# lines, OUT.names; those the image has one function of (its symbol NAME,
# or a GCC clone of it, NAME.isra.N or NAME.constprop.N), "NAME SYMBOL" in
# OUT.once; and "NAME OBJECT" for each object of the build that defines
# NAME (the unit objects of vmlinux; with BASE, the module's objects,
# kbuild's .mod list), in OUT.defs.
defs_of() {
	local image=$1 diff=$2 tmp=$3 base=${4:-}
	sed -n 's/^[~+-] func \([^:]*\):.*/\1/p' "$diff" | sort -u > "$tmp.names"
	"${CROSS}nm" "$image" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | clone_names |
		LC_ALL=C sort > "$tmp.syms"
	awk '{ print $1 }' "$tmp.syms" | uniq -u > "$tmp.one"
	awk 'NR == FNR { one[$1] = 1; next } ($1 in one) { print $1, $2 }' \
		"$tmp.one" "$tmp.syms" > "$tmp.once"
	if [ -n "$base" ]; then
		[ ! -f "${image%.ko}.mod" ] ||
			sed "s|^|$B_CC/|" "${image%.ko}.mod" | tr '\n' '\0'
	else
		unit_objects
	fi | xargs -0 -r "${CROSS}nm" -A --defined-only 2>/dev/null |
		awk 'NF == 3 { o = $1; sub(/:[^:]*$/, "", o); print $3, o, $2 }' |
		clone_names | awk -v names="$tmp.names" '
			BEGIN { while ((getline n < names) > 0) want[n] = 1 }
			($1 in want) && !seen[$1 " " $3]++ { print $1, $3, $4 }' > "$tmp.defs"
}

# (An object's function may be of another symbol type than in the image:
# arm64's head.S functions are in a section of their own, "R" there.)

# one_def TMP NAME: the one object defining NAME (defs_of's), if the image
# has one function NAME and one object defines it; fails otherwise.
one_def() {
	grep -q "^$2 " "$1.once" || return 1
	[ "$(awk -v n="$2" '$1 == n' "$1.defs" | wc -l)" -eq 1 ] || return 1
	awk -v n="$2" '$1 == n { print $2 }' "$1.defs"
}

# first_def TMP NAME: the first object in link order that defines NAME,
# not weakly (the FUNC btf-link keeps for a name defined several times).
first_def() {
	local o
	o=$(awk -v n="$2" '$1 == n && $3 !~ /^[wWvV]$/ && !k++ { print $2 }' "$1.defs")
	[ -n "$o" ] && echo "$o"
}

# asm_weak TMP NAME: the image has one function NAME, which an object of
# assembler units alone defines (strongly) and one C object defines
# weakly (W): the assembly overrides a generic C function of the same
# declaration (crc32_le, arch_bpf_timed_may_goto). Prints the C object.
asm_weak() {
	local strong weak
	grep -q "^$2 " "$1.once" || return 1
	[ "$(awk -v n="$2" '$1 == n' "$1.defs" | wc -l)" -eq 2 ] || return 1
	strong=$(awk -v n="$2" '$1 == n && $3 !~ /^[wWvV]$/ { print $2 }' "$1.defs")
	weak=$(awk -v n="$2" '$1 == n && $3 ~ /^[wW]$/ { print $2 }' "$1.defs")
	[ -n "$strong" ] && [ -n "$weak" ] || return 1
	[ "$(unit_languages "$strong" | sort -u)" = "MIPS assembler" ] || return 1
	[ -n "$(unit_languages "$weak" | grep -v "MIPS assembler")" ] || return 1
	echo "$weak"
}

# dwarf_types FILE: "KIND NAME" of every struct, union, enum and typedef
# that FILE's DWARF defines (not a declaration), as readelf reads it.
dwarf_types() {
	readelf --debug-dump=info "$1" 2>/dev/null | awk '
		function flush() { if (kind != "" && name != "" && !decl) print kind, name }
		/^ *<[0-9]+><[0-9a-f]+>: Abbrev Number/ {
			flush(); kind = name = ""; decl = 0
			if ($0 ~ /DW_TAG_structure_type/) kind = "struct"
			else if ($0 ~ /DW_TAG_union_type/) kind = "union"
			else if ($0 ~ /DW_TAG_enumeration_type/) kind = "enum"
			else if ($0 ~ /DW_TAG_typedef/) kind = "typedef"
			next }
		kind != "" && /DW_AT_name/ { name = $NF }
		kind != "" && /DW_AT_declaration/ { decl = 1 }
		END { flush() }' | LC_ALL=C sort -u
}

# lost_types IMAGE DIFF [BASE]: "KIND NAME" of the types of DIFF that only
# archive-btf has ("+ struct NAME: ..."), where the image's DWARF, which
# pahole reads, defines no such type and an object linked into the image
# does (readelf of both): the link lost that unit's DWARF (the riscv64 7.3
# image), not the object's compiler nor cc-btf. The objects: vmlinux's unit
# objects, or with BASE the module's (kbuild's .mod list).
lost_types() {
	local image=$1 diff=$2 base=${3:-} tmp=$2.lost-tmp kind name o
	sed -n 's/^+ \(struct\|union\|enum\|typedef\) \([A-Za-z_][A-Za-z0-9_]*\):.*/\1 \2/p' \
		"$diff" | LC_ALL=C sort -u > "$tmp.want"
	if [ -s "$tmp.want" ]; then
		dwarf_types "$image" > "$tmp.image"
		if [ -n "$base" ]; then
			[ ! -f "${image%.ko}.mod" ] ||
				sed "s|^|$B_CC/|" "${image%.ko}.mod" | tr '\n' '\0'
		else
			unit_objects
		fi > "$tmp.objs"
		LC_ALL=C comm -23 "$tmp.want" "$tmp.image" |
		while read -r kind name; do
			# the objects that name it at all, then their DWARF
			xargs -0 -r grep -l -a -F -w -- "$name" < "$tmp.objs" |
			while read -r o; do
				if dwarf_types "$o" | grep -qxF "$kind $name"; then
					echo "$kind $name"
					break
				fi
			done
		done
	fi
	rm -f "$tmp".*
}

# weak_c DIFF DEFS: the names of DIFF's "~" func lines of which the image
# has one function, that one object defines weakly (W) and another
# strongly, both objects with a unit of C (not only an assembler's): the
# linker chose the strong definition (a COND_SYSCALL stub of
# kernel/sys_ni.c and the system call's own). DEFS: defs_of()'s OUT for
# DIFF.
weak_c() {
	local diff=$1 tmp=$2 name strong weak
	sed -n 's/^~ func \([^:]*\):.*/\1/p' "$diff" | sort -u |
	while read -r name; do
		grep -q "^$name " "$tmp.once" || continue
		[ "$(awk -v n="$name" '$1 == n' "$tmp.defs" | wc -l)" -eq 2 ] || continue
		strong=$(awk -v n="$name" '$1 == n && $3 ~ /^[tT]$/ { print $2 }' "$tmp.defs")
		weak=$(awk -v n="$name" '$1 == n && $3 ~ /^[wW]$/ { print $2 }' "$tmp.defs")
		[ -n "$strong" ] && [ -n "$weak" ] || continue
		[ -n "$(unit_languages "$strong" | grep -vx 'MIPS assembler')" ] &&
		[ -n "$(unit_languages "$weak" | grep -vx 'MIPS assembler')" ] &&
			echo "$name"
	done
}

# clones_only IMAGE: the names IMAGE has only as GCC clones: nm shows
# NAME.constprop.N, NAME.isra.N or NAME.part.N and no function NAME.
clones_only() {
	local syms=$RES/clones.syms
	"${CROSS}nm" "$1" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | LC_ALL=C sort -u > "$syms"
	sed -n 's/^\([^.]*\)\.\(constprop\|isra\|part\)\..*/\1/p' "$syms" |
		LC_ALL=C sort -u | LC_ALL=C comm -23 - "$syms"
	rm -f "$syms"
}

# unit_languages OBJ: the DW_AT_language of each unit of OBJ's DWARF, as
# readelf names them, one a line.
unit_languages() {
	readelf --debug-dump=info --dwarf-depth=1 "$1" 2>/dev/null |
		sed -n 's/.*DW_AT_language *: *[0-9]*[[:space:]]*(\(.*\))$/\1/p'
}

# asm_units IMAGE B DIFF DEFS [BASE]: the names of DIFF's "-" and "~" func
# lines whose one function in IMAGE is defined by one object whose DWARF is
# an assembler's (readelf: every unit DW_AT_language "MIPS assembler", as
# gas writes it): such a unit has no prototype, and cc-btf encodes none;
# and "NAME weak" where that assembly overrides a weak C function of the
# name (asm_weak()), pahole wrote "void NAME(void)" ("~"; pahole 1.31 and
# later, which see two prototypes, no FUNC: "+") and pahole on the C
# object alone gives B's prototype of NAME. DEFS: defs_of()'s OUT for DIFF.
asm_units() {
	local image=$1 b=$2 diff=$3 tmp=$4 base=${5:-} name obj langs
	sed -n 's/^[~+-] func \([^:]*\):.*/\1/p' "$diff" | sort -u |
	while read -r name; do
		if obj=$(one_def "$tmp" "$name") && ! grep -q "^+ func $name:" "$diff"; then
			langs=$(unit_languages "$obj" | sort -u)
			if [ "$langs" = "MIPS assembler" ]; then
				echo "$name"
			fi
		elif obj=$(asm_weak "$tmp" "$name") &&
		     grep -qE "^(~ func $name: a: static void $name\(void\) \| b: |\+ func $name: )" "$diff" &&
		     pahole_alone_agrees "$obj" "$name" "$b" "$base"; then
			echo "$name weak"
		fi
	done
}

# inlined_elsewhere IMAGE OUT: for the names of OUT.names, "NAME UNIT" for
# each subprogram NAME of IMAGE's DWARF with DW_AT_inline, UNIT its
# compile unit's DW_AT_name (readelf, top-level DIEs), in OUT.inline.
inlined_elsewhere() {
	readelf --debug-dump=info --dwarf-depth=2 "$1" 2>/dev/null | awk -v names="$2.names" '
		BEGIN { while ((getline n < names) > 0) want[n] = 1 }
		function done() { if (is_sub && inl && (nm in want)) print nm, cu }
		/^ *<[0-9]+><[0-9a-f]+>: Abbrev Number/ {
			done()
			lvl = $1; sub(/^</, "", lvl); sub(/>.*/, "", lvl)
			is_cu = lvl == 0
			is_sub = lvl == 1 && / \(DW_TAG_subprogram\)$/
			inl = 0; nm = ""
			next }
		/ DW_AT_name / { v = $0; sub(/.*: /, "", v)
			if (is_cu) cu = v; else nm = v }
		/ DW_AT_inline / { inl = 1 }
		END { done() }' > "$2.inline"
}

# unit_names OBJ: the DW_AT_name of each compile unit of OBJ.
unit_names() {
	readelf --debug-dump=info --dwarf-depth=1 "$1" 2>/dev/null |
		sed -n 's/.*DW_AT_name *: *\(([^)]*): \)\{0,1\}//p'
}

# pahole_alone_agrees OBJ NAME B [BASE]: pahole, with the tree's flags, on
# OBJ alone gives func NAME as B has it (or neither has one).
pahole_alone_agrees() {
	local obj=$1 name=$2 b=$3 base=${4:-} p=$RES/lender.pahole flags
	flags=$(pahole_flags)
	# shellcheck disable=SC2086 # the flags are words
	"$PAHOLE_BIN" -J $flags ${base:+--btf_base "$base"} \
		--btf_encode_detached="$p" "$obj" >/dev/null 2>&1 || return 1
	# (to a file: grep -q would end btf-link with SIGPIPE)
	"$BTF_LINK_BIN" --compare --no-vars ${base:+--base "$base"} "$p" "$b" \
		> "$p.diff" || true
	! grep -q "^[-+~] func $name:" "$p.diff"
}

# lenders IMAGE B DIFF DEFS [BASE]: the functions whose FUNC pahole takes
# from a same-named function inlined in another unit, or leaves out for
# it (pahole 1.31's consistent_func), each with three witnesses none of
# which is archive-btf's output: one object of the build defines NAME (or,
# for static namesakes, the first in link order, whose FUNC btf-link
# keeps); IMAGE's DWARF has a subprogram NAME with DW_AT_inline in a unit
# other than those of the objects defining NAME; and pahole run on that
# object alone (with the tree's flags, split on BASE for a module) gives
# func NAME as B has it. DEFS: defs_of()'s OUT for DIFF.
lenders() {
	local image=$1 b=$2 diff=$3 tmp=$4 base=${5:-} name obj units
	[ -s "$tmp.names" ] || return 0
	inlined_elsewhere "$image" "$tmp"
	while read -r name; do
		# one definition; or several (static namesakes), of which
		# btf-link keeps the first in link order
		obj=$(one_def "$tmp" "$name") || obj=$(first_def "$tmp" "$name") || continue
		units=$(awk -v n="$name" '$1 == n { print $2 }' "$tmp.defs" |
			while read -r o; do unit_names "$o"; done)
		# (no grep -q in a pipe: its early exit is SIGPIPE upstream)
		[ -n "$(awk -v n="$name" '$1 == n { $1 = ""; sub(/^ /, ""); print }' \
			"$tmp.inline" | grep -vxF "$units")" ] || continue
		if pahole_alone_agrees "$obj" "$name" "$b" "$base"; then
			echo "$name"
		fi
	done < "$tmp.names"
}

# percpu_start IMAGE: the symbols at the start of IMAGE's .data..percpu
# (readelf -S for its address, nm for the symbols).
percpu_start() {
	local at
	at=$(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' |
		awk '$1 == ".data..percpu" && !n++ { print $3 }')
	[ -n "$at" ] || return 0
	"${CROSS}nm" "$1" | awk -v at="$at" '
		{ a = $1; sub(/^0+/, "", a); b = at; sub(/^0+/, "", b) }
		a == b && $3 !~ /^__per_cpu_/ { print $3 }'
}

# pi_aliases IMAGE: the names N for which IMAGE has a symbol N and a symbol
# __pi_N at one address (Linux 7.x's SYM_PIC_ALIAS).
pi_aliases() {
	"${CROSS}nm" "$1" | awk '
		{ at[$3] = $1 }
		END { for (n in at) if (n ~ /^__pi_/ && (substr(n, 6) in at) &&
					at[substr(n, 6)] == at[n]) print substr(n, 6) }' |
		LC_ALL=C sort
}

# clone_names: lines "SYMBOL REST" to "NAME SYMBOL REST", NAME the symbol
# without GCC's clone suffixes (.isra.N, .constprop.N, in any sequence);
# pieces (.cold, .part) and other dotted names stay themselves.
clone_names() {
	awk '{ n = $1
	       if (n !~ /\.(cold|part)/)
		       while (sub(/\.(isra|constprop)\.[0-9]+$/, "", n)) ;
	       print n, $0 }'
}

# described BTF: every type, FUNC and VAR of BTF as btf-link --compare
# describes it ("- func NAME: DECL", "- struct NAME: size ..."): its
# comparison with a BTF of no types (this machine's byte order; --compare
# reads either).
described() {
	[ -f "$RES/empty.btf" ] ||
		printf '\x9f\xeb\x01\x00\x18\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00' \
			> "$RES/empty.btf"
	"$BTF_LINK_BIN" --compare --no-vars "$1" "$RES/empty.btf" || true
}

# last_ambiguous IMAGE: the last name of pahole's ELF function table
# (function symbols up to their first ".", those with ".cold" or ".part"
# left out, sorted by strcmp()) if its symbols lie at more than one
# address: pahole's elf_functions__collect() checks a name's addresses
# when the next name begins, so the last name's never are.
last_ambiguous() {
	"${CROSS}nm" "$1" | awk '$2 ~ /^[tTwW]$/ && $3 !~ /\.(cold|part)/ {
		n = $3; sub(/\..*/, "", n); print n, $1 }' |
		LC_ALL=C sort -k1,1 -s | awk '
		{ if ($1 != name) { name = $1; delete at; nat = 0 }
		  if (!($2 in at)) { at[$2] = 1; nat++ } }
		END { if (nat > 1) print name }'
}

# base_described BASE: the structs and unions of BASE as btf-link
# --compare describes them ("- struct NAME: size ... {members}"), once
# per BASE, in $RES/base.described.
base_described() {
	[ "$RES/base.described" -nt "$1" ] && return
	described "$1" | grep -E '^- (struct|union) ' > "$RES/base.described" || true
}

# tag_counts BTF: "TYPE_TAG n, DECL_TAG m" of a BTF file.
tag_counts() {
	bpftool btf dump file "$1" | awk '
		$2 == "TYPE_TAG" { t++ } $2 == "DECL_TAG" { d++ }
		END { printf "TYPE_TAG %d, DECL_TAG %d\n", t, d }'
}

# tree_btfids ELF BTF OUT [BASE [FLAGS...]]: 7.3's second step of the BTF
# (scripts/gen-btf.sh): the tree's resolve_btfids --btf BTF on a copy of
# ELF (BTF split on BASE), as kbuild runs it; its BTF into OUT, what it
# said into OUT.warnings. Fails if resolve_btfids does.
tree_btfids() {
	local elf=$1 btf=$2 out=$3 base=${4:-} dir=$RES/btfids copy
	shift $(($# < 4 ? $# : 4))
	rm -rf "$dir"
	mkdir -p "$dir"
	copy=$dir/$(basename "$elf")
	cp "$elf" "$copy"
	if ! "$B_CC/tools/bpf/resolve_btfids/resolve_btfids" "$@" ${base:+--btf_base "$base"} \
		--btf "$btf" "$copy" > "$out.warnings" 2>&1; then
		cat "$out.warnings" >&2
		rm -rf "$dir"
		return 1
	fi
	mv "$copy.BTF" "$out"
	[ ! -f "$copy.BTF.base" ] || mv "$copy.BTF.base" "$out.base"
	rm -rf "$dir"
}

# final_of7 NAME: 7.3, the BTF that pahole (-serial, in RES/NAME.vmlinux.btf)
# made of the image, through the tree's resolve_btfids, as gen-btf.sh puts
# it into vmlinux: RES/NAME.final.btf
final_of7() {
	tree_btfids "$B_CC/$BTF_IMAGE" "$RES/$1.vmlinux.btf" "$RES/$1.final.btf" ||
		die "resolve_btfids fails on $1's BTF of $BTF_IMAGE"
}

# check_gen_btf7: 7.3, vmlinux's BTF is btf-link's, with the flags the tree
# gives it, through the tree's resolve_btfids: gen-btf.sh made it so
check_gen_btf7() {
	local lflags
	lflags=$(link_flags)
	# shellcheck disable=SC2086
	"$BTF_LINK_BIN" $lflags -o "$RES/btf-link.vmlinux.btf" "$B_CC/$BTF_IMAGE" ||
		{ fail "btf-link $lflags -o ... $BTF_IMAGE failed"; return; }
	final_of7 btf-link
	cmp "$RES/btf-link.final.btf" "$RES/cc-btf.vmlinux.btf" >&2 ||
		fail "vmlinux's .BTF is not btf-link's ($lflags) through resolve_btfids"
	say "vmlinux: btf-link $lflags, then resolve_btfids: vmlinux's .BTF," \
	    "$(stat -c %s "$RES/btf-link.vmlinux.btf") -> $(stat -c %s "$RES/btf-link.final.btf") bytes"
}

# pahole_image: the image pahole reads vmlinux's DWARF from: vmlinux; on
# 7.3, a copy of it with the .BTF_ids of $BTF_IMAGE, as pahole reads them
# in kbuild (decl_tag_kfuncs takes a kfunc's flags from the word after
# its ID; in vmlinux, resolve_btfids has sorted each set by ID, moving the
# words but not the symbols that name them)
pahole_image() {
	if [ "$KVER" != 7.3 ]; then
		echo "$B_CC/vmlinux"
		return
	fi
	cp "$B_CC/vmlinux" "$RES/vmlinux.ids"
	section "$B_CC/$BTF_IMAGE" .BTF_ids "$RES/ids.bin" &&
		"${CROSS}objcopy" --update-section .BTF_ids="$RES/ids.bin" "$RES/vmlinux.ids" ||
		die "cannot put the .BTF_ids of $BTF_IMAGE into a copy of vmlinux"
	echo "$RES/vmlinux.ids"
}

phase_compare() {
	local ko m flags serial tags_a tags_b ref
	mkdir -p "$RES"
	section "$B_CC/vmlinux" .BTF "$RES/cc-btf.vmlinux.btf" ||
		die "cc-btf/vmlinux has no .BTF"
	flags=$(pahole_flags)
	if [ -f "$B_PAHOLE/vmlinux" ]; then
		section "$B_PAHOLE/vmlinux" .BTF "$RES/pahole.vmlinux.btf" ||
			die "pahole/vmlinux has no .BTF"
		say "vmlinux: the pahole build's $(stat -c %s "$RES/pahole.vmlinux.btf") bytes," \
		    "archive-btf $(stat -c %s "$RES/cc-btf.vmlinux.btf") bytes"
		compare "$B_CC/vmlinux" "$RES/pahole.vmlinux.btf" "$RES/cc-btf.vmlinux.btf" \
			"$RES/vmlinux.diff" 0
	fi

	# pahole -j, as the kernel runs it, keeps one FUNC per name and
	# thread, which thread depends on scheduling: its BTF changes from
	# run to run. Without -j, it keeps the first in DWARF order, as
	# btf-link does in link order. It reads the DWARF of vmlinux: the
	# image btf-link linked the archive of is linked without DWARF
	# (patch 0004), and vmlinux is the same link of the same objects,
	# with the DWARF, kallsyms and the final BTF added.
	# shellcheck disable=SC2086
	serial=$(printf '%s\n' $flags | grep -vx -- -j | tr '\n' ' ')
	say "vmlinux: against pahole without -j ($serial) on cc-btf/vmlinux:"
	# shellcheck disable=SC2086
	"$PAHOLE_BIN" -J $serial --btf_encode_detached="$RES/pahole-serial.vmlinux.btf" \
		"$(pahole_image)" >/dev/null 2>&1 || die "pahole failed on cc-btf/vmlinux"
	ref=$RES/pahole-serial.vmlinux.btf
	if [ "$KVER" = 7.3 ]; then
		# what gen-btf.sh makes of pahole's BTF, and of btf-link's
		final_of7 pahole-serial
		ref=$RES/pahole-serial.final.btf
		say "vmlinux: through the tree's resolve_btfids: pahole's" \
		    "$(stat -c %s "$RES/pahole-serial.vmlinux.btf") -> $(stat -c %s "$ref") bytes"
		check_gen_btf7
	fi
	compare "$B_CC/vmlinux" "$ref" "$RES/cc-btf.vmlinux.btf" \
		"$RES/vmlinux-serial.diff" 20
	tags_a=$(tag_counts "$ref")
	tags_b=$(tag_counts "$RES/cc-btf.vmlinux.btf")
	say "vmlinux: pahole $tags_a; archive-btf $tags_b"
	[ "$tags_a" = "$tags_b" ] || fail "vmlinux: the tags differ from pahole's"

	# pahole encodes each module's DWARF on top of the cc-btf build's
	# vmlinux, with the kernel's flags: split BTF refers to its base by
	# type ID.
	for ko in $(modules_of "$B_CC"); do
		m=$(basename "$ko" .ko)
		# shellcheck disable=SC2086
		"$PAHOLE_BIN" -J $flags --btf_base "$B_CC/vmlinux" \
			--btf_encode_detached="$RES/$m.pahole.btf" "$B_CC/$ko" \
			>/dev/null 2>&1 || { fail "pahole cannot encode $ko"; continue; }
		if [ "$KVER" = 7.3 ]; then
			tree_btfids "$B_CC/$ko" "$RES/$m.pahole.btf" "$RES/$m.final.btf" \
				"$B_CC/vmlinux" || { fail "resolve_btfids fails on pahole's BTF of $ko"; continue; }
			mv "$RES/$m.final.btf" "$RES/$m.pahole.btf"
		fi
		say "$ko: pahole $(stat -c %s "$RES/$m.pahole.btf") bytes," \
		    "archive-btf $(section_size "$B_CC/$ko" .BTF) bytes (split BTF)"
		compare "$B_CC/$ko" "$RES/$m.pahole.btf" "$B_CC/$ko" "$RES/$m.diff" 20 \
			--base "$B_CC/vmlinux"
	done
	modules_summary
}

# modules_summary [DIR]: how many modules' BTF equal pahole's by meaning
# (DIR/MODULE.diff, DIR: RES), and the differences of the others by kind,
# summed (DIR/modules.kinds).
modules_summary() {
	local ko m equal=0 differ=0 dir=${1:-$RES}
	: > "$dir/modules.kinds.all"
	for ko in $(modules_of "$B_CC"); do
		m=$(basename "$ko" .ko)
		[ -f "$dir/$m.diff" ] || continue
		if [ ! -s "$dir/$m.diff" ]; then
			equal=$((equal + 1))
			continue
		fi
		differ=$((differ + 1))
		[ ! -f "$dir/$m.diff.kinds" ] || cat "$dir/$m.diff.kinds" >> "$dir/modules.kinds.all"
	done
	awk '$1 ~ /^[0-9]+$/ { n = $1; $1 = ""; sum[substr($0, 2)] += n }
	     END { for (k in sum) printf "%7d  %s\n", sum[k], k }' "$dir/modules.kinds.all" |
		sort -rn > "$dir/modules.kinds"
	say "modules: $equal equal to pahole's by meaning, $differ with differences, by kind:"
	sed 's/^/    /' "$dir/modules.kinds" >&2
	# asserted, not only said: every module compared, none with a
	# difference of no witnessed kind
	[ $((equal + differ)) -eq "$(modules_of "$B_CC" | wc -l)" ] ||
		fail "modules: $((equal + differ)) of $(modules_of "$B_CC" | wc -l) compared with pahole's"
	! grep -q 'not a deliberate difference' "$dir/modules.kinds.all" ||
		fail "modules: differences of no witnessed kind (${dir#"$E2E"/}/*.diff.kinds)"
}

# judge_final ELF RAW OUT [BASE]: 7.3, RAW through the tree's
# resolve_btfids as gen-btf.sh (a module: its link) does it; before 7.3,
# RAW itself.
judge_final() {
	if [ "$KVER" = 7.3 ]; then
		tree_btfids "$@"
	else
		cp "$2" "$3"
	fi
}

# judge_modules J LFLAGS PFLAGS: each module's archive linked again by
# btf-link with LFLAGS on the judge's base (J/ours.vmlinux.btf), and the
# judge's pahole with PFLAGS on the same base, compared.
judge_modules() {
	local j=$1 lflags=$2 pflags=$3 ko m base=$1/ours.vmlinux.btf
	for ko in $(modules_of "$B_CC"); do
		m=$(basename "$ko" .ko)
		# shellcheck disable=SC2086
		"$BTF_LINK_BIN" $lflags -f --base "$base" -o "$j/$m.ours.raw" "$B_CC/$ko" ||
			{ fail "btf-link $lflags --base ... $ko failed"; continue; }
		# shellcheck disable=SC2086
		"$JUDGE_BIN" -J $pflags --btf_base "$base" \
			--btf_encode_detached="$j/$m.pahole.raw" "$B_CC/$ko" \
			>/dev/null 2>&1 || { fail "$JUDGE_BIN cannot encode $ko"; continue; }
		judge_final "$B_CC/$ko" "$j/$m.ours.raw" "$j/$m.ours.btf" "$base" &&
		judge_final "$B_CC/$ko" "$j/$m.pahole.raw" "$j/$m.pahole.btf" "$base" ||
			{ fail "resolve_btfids fails on the judge's BTF of $ko"; continue; }
		compare "$B_CC/$ko" "$j/$m.pahole.btf" "$j/$m.ours.btf" "$j/$m.diff" 20 \
			--base "$base"
	done
}

# phase_judge: a second pahole (ABTF_E2E_JUDGE) judges the same images:
# btf-link with the flags the tree gives it for that pahole's version (as
# if the tree had been configured with it), against that pahole with the
# tree's flags for it (without -j), each through the tree's resolve_btfids
# on 7.3; vmlinux and every module.
phase_judge() {
	local v flags pflags lflags serial saved=$PAHOLE_BIN j=$RES/judge
	[ -n "$JUDGE_BIN" ] || die "the judge phase needs ABTF_E2E_JUDGE (a pahole)"
	v=$("$JUDGE_BIN" --version | tr -dc 0-9)
	flags=$(tree_flags "$v") || die "cannot compute the flags for pahole $v"
	pflags=${flags%%|*}
	lflags=${flags#*|}
	# shellcheck disable=SC2086
	serial=$(printf '%s\n' $pflags | grep -vx -- -j | tr '\n' ' ')
	rm -rf "$j"
	mkdir -p "$j"
	say "judge: pahole 1.${v#?} ($JUDGE_BIN): pahole $serial; btf-link $lflags"
	# the witnesses ask the judge, with its flags (pahole_alone_agrees)
	PAHOLE_BIN=$JUDGE_BIN
	JUDGE_PFLAGS=$pflags
	# shellcheck disable=SC2086
	"$BTF_LINK_BIN" $lflags -o "$j/ours.vmlinux.raw" "$B_CC/$BTF_IMAGE" ||
		die "btf-link $lflags -o ... $BTF_IMAGE failed"
	# shellcheck disable=SC2086
	"$JUDGE_BIN" -J $serial --btf_encode_detached="$j/pahole.vmlinux.raw" \
		"$(pahole_image)" >/dev/null 2>&1 || die "$JUDGE_BIN failed on cc-btf/vmlinux"
	judge_final "$B_CC/$BTF_IMAGE" "$j/ours.vmlinux.raw" "$j/ours.vmlinux.btf" &&
	judge_final "$B_CC/$BTF_IMAGE" "$j/pahole.vmlinux.raw" "$j/pahole.vmlinux.btf" ||
		die "resolve_btfids fails on the judge's BTF of $BTF_IMAGE"
	compare "$B_CC/vmlinux" "$j/pahole.vmlinux.btf" "$j/ours.vmlinux.btf" \
		"$j/vmlinux.diff" 20
	judge_modules "$j" "$lflags" "$pflags"
	modules_summary "$j"
	PAHOLE_BIN=$saved
	JUDGE_PFLAGS=
}

# makefile_btf AUTOCONF: "PAHOLE_FLAGS|BTF_LINK_FLAGS" of 6.12's
# scripts/Makefile.btf for the configuration AUTOCONF.
makefile_btf() {
	make -s --no-print-directory -f - srctree="$SRC" auto="$1" <<'MK'
include $(auto)
include $(srctree)/scripts/Kbuild.include
include $(srctree)/scripts/Makefile.btf
all: ; @echo "$(PAHOLE_FLAGS)|$(BTF_LINK_FLAGS)"
MK
}

# tree_flags VERSION: "PAHOLE_FLAGS|BTF_LINK_FLAGS" as the tree computes
# them for pahole VERSION (e.g. 124): 6.1's scripts/pahole-flags.sh runs a
# stand-in pahole that reports that version, 6.12's Makefile.btf reads it
# from the configuration.
tree_flags() {
	local v=$1 fake=$RES/fake-pahole
	if [ -x "$SRC/scripts/pahole-flags.sh" ]; then
		printf '#!/bin/sh\necho v%s.%s\n' "${v%??}" "${v#?}" > "$fake"
		chmod +x "$fake"
		echo "$(PAHOLE=$fake "$SRC/scripts/pahole-flags.sh")|$(PAHOLE=$fake "$SRC/scripts/pahole-flags.sh" --btf-link)"
		return
	fi
	sed "s/^CONFIG_PAHOLE_VERSION=.*/CONFIG_PAHOLE_VERSION=$v/" \
		"$B_CC/include/config/auto.conf" > "$RES/auto.conf"
	makefile_btf "$RES/auto.conf"
}

phase_features() {
	local v flags pflags lflags want
	mkdir -p "$RES"
	for v in 121 122 123 124 125 126 127 131 132; do
		flags=$(tree_flags $v) || die "cannot compute the flags for pahole $v"
		pflags=${flags%%|*}
		lflags=${flags#*|}
		say "pahole 1.${v#?}: pahole $pflags; btf-link $lflags"
		# shellcheck disable=SC2086
		"$BTF_LINK_BIN" $lflags -o "$RES/features.btf" "$B_CC/$BTF_IMAGE" ||
			fail "btf-link refuses what the tree gives it for pahole 1.${v#?}: $lflags"
		# a tree that gives pahole feature lists (6.12 and 7.3, pahole
		# 1.26 and later) gives btf-link the same features: what
		# pahole's lists add up to (7.3: layout from 1.31, and with a
		# reproducible build '+reproducible_build', pahole's default
		# set), as btf-link's parser, which follows pahole's, reads them
		# shellcheck disable=SC2086
		want=$(features_of $(printf '%s\n' $pflags | grep '^--btf_features='))
		[ -n "$want" ] || continue
		# shellcheck disable=SC2086
		[ "$(features_of $lflags)" = "$want,reproducible_build" ] ||
		[ "$(features_of $lflags)" = "$want" ] ||
			fail "pahole 1.${v#?} gets the features $want, btf-link $(features_of $lflags)"
	done
	rm -f "$RES/features.btf" "$RES/auto.conf" "$RES/fake-pahole"
}

# features_of ARGS...: the features that btf-link -v says the
# --btf_features options ARGS make, in pahole's order
features_of() {
	[ $# -gt 0 ] || return 0
	{ "$BTF_LINK_BIN" -v "$@" -o "$RES/features.btf" "$RES/no-such-file" 2>&1 || true; } |
		sed -n 's/^btf-link: [^:]*: BTF features: //p'
}

# explain_with VERSION: the explain phase with the flags the tree gives
# btf-link for pahole VERSION.
explain_with() {
	local flags names=$RES/explain.names out=$RES/explain.out kept=$RES/explain.kept
	local asked said args=()
	flags=$(tree_flags "$1") || die "cannot compute the flags for pahole $1"
	flags=${flags#*|}
	mapfile -t args < <(sed 's/^/--explain\n/' "$names")
	# shellcheck disable=SC2086
	"$BTF_LINK_BIN" $flags "${args[@]}" "$B_CC/$BTF_IMAGE" > "$out" ||
		{ fail "btf-link $flags --explain ... $BTF_IMAGE failed"; return; }
	# shellcheck disable=SC2086
	"$BTF_LINK_BIN" $flags -o "$RES/explain.btf" "$B_CC/$BTF_IMAGE" ||
		{ fail "btf-link $flags -o ... $BTF_IMAGE failed"; return; }
	asked=$(wc -l < "$names")
	said=$(cut -d: -f1 "$out" | sort -u | wc -l)
	say "explain, pahole 1.${1#?}'s flags ($flags): $asked names asked, $said explained:"
	sed -E 's/^[^:]*: ([^:]*): (FUNC|VAR)?.*/\1 \2/' "$out" | sort | uniq -c | sed 's/^/    /' >&2
	[ "$said" -eq "$asked" ] || fail "explain: $asked names asked, $said explained"
	sed -n 's/^\([^:]*\): kept: FUNC .*/\1/p' "$out" | sort > "$kept"
	funcs "$RES/explain.btf" | sort | diff "$kept" - >&2 ||
		fail "explain: the FUNCs --explain calls kept are not those of the same link (above)"
	rm -f "$RES/explain.btf"
}

phase_explain() {
	local v
	mkdir -p "$RES"
	[ -f "$RES/cc-btf.vmlinux.btf" ] || die "explain: the check phase comes first"
	{
		funcs "$RES/cc-btf.vmlinux.btf"
		"${CROSS}nm" "$B_CC/vmlinux" | awk '$2 ~ /^[tTwW]$/ { sub(/\..*/, "", $3); print $3 }'
	} | grep -E '^[A-Za-z_][A-Za-z0-9_]*$' | sort -u > "$RES/explain.names"
	# the installed pahole's (the build's), and the newest's
	v=$("$PAHOLE_BIN" --version | tr -dc 0-9)
	explain_with "$v"
	[ "$v" = 131 ] || explain_with 131
}

# link_flags: the flags the tree gives btf-link (BTF_LINK_FLAGS of
# scripts/Makefile.btf, 6.12 and 7.3)
link_flags() {
	local flags
	flags=$(makefile_btf "$B_CC/include/config/auto.conf") ||
		die "cannot read BTF_LINK_FLAGS of scripts/Makefile.btf"
	echo "${flags#*|}"
}

# pahole_flags: the flags the tree gives pahole (scripts/pahole-flags.sh in
# 6.1, PAHOLE_FLAGS of scripts/Makefile.btf in 6.12), for the configuration;
# in the judge phase, those it gives the judge (JUDGE_PFLAGS).
pahole_flags() {
	local flags
	if [ -n "$JUDGE_PFLAGS" ]; then
		echo "$JUDGE_PFLAGS"
		return
	fi
	if [ -x "$SRC/scripts/pahole-flags.sh" ]; then
		PAHOLE=pahole "$SRC/scripts/pahole-flags.sh"
		return
	fi
	flags=$(makefile_btf "$B_CC/include/config/auto.conf") ||
		die "cannot read PAHOLE_FLAGS of scripts/Makefile.btf"
	echo "${flags%%|*}"
}

# initramfs DIR OUT: busybox and e2e-init as /init (x86-64), or e2e-init.c
# built for the target (the host's busybox cannot run there); DIR's modules.
initramfs() {
	local dir=$1 out=$2 list=$2.list ko mods
	shift 2
	mods=$(boot_modules_of "$dir") || exit 1
	if [ "$KARCH" != x86_64 ]; then
		"${CROSS}gcc" -static -O2 -o "$RES/init" "$HERE/e2e-init.c" ||
			die "${CROSS}gcc cannot build a static e2e-init.c"
	fi
	{
		echo "dir /dev 0755 0 0"
		echo "nod /dev/console 0600 0 0 c 5 1"
		echo "dir /proc 0755 0 0"
		echo "dir /sys 0755 0 0"
		echo "dir /bin 0755 0 0"
		echo "dir /modules 0755 0 0"
		if [ "$KARCH" = x86_64 ]; then
			echo "file /bin/busybox $(readlink -f /bin/busybox) 0755 0 0"
			echo "file /init $HERE/e2e-init 0755 0 0"
		else
			echo "file /init $RES/init 0755 0 0"
		fi
		for ko in $mods; do
			echo "file /modules/$(basename "$ko") $(boot_copy "$dir/$ko") 0644 0 0"
		done
		for ko in "$@"; do
			echo "file /modules/$(basename "$ko") $ko 0644 0 0"
		done
	} > "$list"
	"$dir/usr/gen_init_cpio" "$list" > "$out"
}

# boot_copy KO: the module file the initramfs takes: KO itself, or for a
# distribution's kernel a copy as modules_install with INSTALL_MOD_STRIP=1
# installs it: without its DWARF (.BTF kept), which keeps the initramfs of
# a sample of modules small, and signed with the build's key
# (CONFIG_MODULE_SIG_ALL), which the kernel checks. Not compressed: the
# init loads plain files.
boot_copy() {
	local copy key=$B_CC/certs/signing_key
	if [ -z "$BASE_CONFIG" ]; then
		echo "$1"
		return
	fi
	copy=$RES/boot-modules/$(basename "$1")
	mkdir -p "$RES/boot-modules"
	"${CROSS}objcopy" --strip-debug "$1" "$copy" || die "cannot strip a copy of $1"
	if grep -qx CONFIG_MODULE_SIG_ALL=y "$B_CC/.config"; then
		"$B_CC/scripts/sign-file" sha256 "$key.pem" "$key.x509" "$copy" ||
			die "cannot sign $copy"
	fi
	echo "$copy"
}

# qemu_machine, qemu_console: the machine and its serial console.
qemu_machine() {
	case $KARCH in
	arm64) echo "-M virt -cpu cortex-a57" ;;
	riscv64) echo "-M virt" ;;	# OpenSBI, qemu's default firmware
	s390x) echo "-M s390-ccw-virtio" ;;
	esac
}
qemu_console() {
	case $KARCH in
	x86_64) echo ttyS0 ;;
	arm64) echo ttyAMA0 ;;
	riscv64) echo ttyS0 ;;
	s390x) echo ttysclp0 ;;
	esac
}

# fnv1a64 FILE: FNV-1a (64 bits) of FILE, as e2e-init.c computes it.
fnv1a64() {
	python3 - "$1" <<'PY'
import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
print("%016x" % h)
PY
}

# report LOG KEY: the value of the guest's "E2E: KEY VALUE" line.
report() {
	tr -d '\r' < "$1" | sed -n "s/^E2E: $2 //p" | sed -n 1p
}

# boot_guest CPIO LOG: boot build 2 with the initramfs CPIO, the console
# into LOG; fails unless the guest got to the end of its /init.
boot_guest() {
	local cpio=$1 log=$2 rc=0 machine=()
	say "booting cc-btf/$KIMAGE (qemu, $ACCEL)"
	read -r -a machine <<< "$(qemu_machine)"
	timeout "$BOOT_TIMEOUT" "$QEMU" "${machine[@]}" -accel "$ACCEL" -m "$BOOT_MEM" -smp 2 \
		-nographic -no-reboot -kernel "$B_CC/$KIMAGE" -initrd "$cpio" \
		-append "console=$(qemu_console) panic=-1 oops=panic loglevel=7" \
		</dev/null >"$log" 2>&1 || rc=$?
	[ $rc -eq 0 ] || { fail "qemu exited with $rc (124: timeout after ${BOOT_TIMEOUT}s); see $log"; return 1; }
	grep '^E2E: end' <(tr -d '\r' < "$log") >/dev/null ||
		{ tail -n 30 "$log" >&2; fail "the guest did not get to the end of /init"; return 1; }
}

# btf_errors LOG: the guest's BTF errors, if any (shown); the kernel's
# BTF verifier logs "BPF: ..." lines; module BTF that fails it: "failed
# to validate module [m] BTF: -22".
btf_errors() {
	tr -d '\r' < "$1" | grep -v '^E2E:' |
		grep -iE '^(\[[ 0-9.]*\] )?BPF:|btf.*(error|fail|invalid|bad|mismatch|reject)|failed to validate module' >&2
}

phase_boot() {
	local log=$RES/boot.log size md5 ko m got mods
	mkdir -p "$RES"
	[ -x "$B_CC/usr/gen_init_cpio" ] || die "no usr/gen_init_cpio in the cc-btf build"
	initramfs "$B_CC" "$RES/initramfs.cpio"
	boot_guest "$RES/initramfs.cpio" "$log" || return 0

	size=$(stat -c %s "$RES/cc-btf.vmlinux.btf")
	md5=$(md5sum < "$RES/cc-btf.vmlinux.btf" | cut -d' ' -f1)
	got=$(report "$log" vmlinux-btf-size)
	[ "$got" = "$size" ] ||
		fail "/sys/kernel/btf/vmlinux is ${got:-missing} bytes, vmlinux's .BTF $size"
	if [ "$KARCH" = x86_64 ]; then
		[ "$(report "$log" vmlinux-btf-md5)" = "$md5" ] ||
			fail "/sys/kernel/btf/vmlinux is not vmlinux's .BTF"
	else
		[ "$(report "$log" vmlinux-btf-fnv)" = "$(fnv1a64 "$RES/cc-btf.vmlinux.btf")" ] ||
			fail "/sys/kernel/btf/vmlinux is not vmlinux's .BTF"
	fi
	mods=$(boot_modules_of "$B_CC") || exit 1
	[ -z "$BOOT_MODULES" ] ||
		say "boot: $(wc -w <<< "$mods") modules: $(xargs -n1 basename <<< "$mods" | tr '\n' ' ')"
	for ko in $mods; do
		m=$(basename "$ko" .ko)
		[ "$(report "$log" "insmod $m")" = ok ] || fail "insmod $m failed"
		got=$(report "$log" "module-btf-size $m")
		[ "$got" = "$(section_size "$B_CC/$ko" .BTF)" ] ||
			fail "/sys/kernel/btf/$m is ${got:-missing}, $ko's .BTF $(section_size "$B_CC/$ko" .BTF) bytes"
	done
	say "the guest's BTF lines:"
	tr -d '\r' < "$log" | grep -E 'E2E:|BTF|btf|BPF' | grep -v 'Linux version' |
		sed 's/^/    /' >&2
	if btf_errors "$log"; then
		fail "BTF errors in the boot log (above)"
	fi
	if [ -n "$BASE_CONFIG" ] && grep -i 'module verification failed' "$log" >&2; then
		fail "a module's signature did not verify (above)"
	fi
}

# extmod_build DIR LOG: tests/kernel/extmod/ built in DIR with make M=
# against build 2, with the distilled base a 6.12 tree asks of pahole 1.26
# and later (MODULE_PAHOLE_FLAGS; with Debian's pahole 1.24 the tree asks
# for none, so it is given as such a tree gives it).
extmod_build() {
	local dir=$1 log=$2
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$HERE/extmod/extmod.c" "$HERE/extmod/Kbuild" "$dir/"
	: > "$log"
	kmake_build "$B_CC" "$log" args_cc M="$dir" \
		MODULE_PAHOLE_FLAGS=--btf_features=distilled_base modules
}

# extmod_btf DIR: the module's .BTF is split on its .BTF.base, which holds
# the kernel's types it uses as the rules of a distilled base say.
extmod_btf() {
	local dir=$1 base split want
	section "$dir/extmod.ko" .BTF "$dir/split.raw" || fail "extmod: no .BTF in extmod.ko"
	section "$dir/extmod.ko" .BTF.base "$dir/base.raw" ||
		{ fail "extmod: no .BTF.base in extmod.ko"; return 1; }
	base=$(bpftool btf dump file "$dir/base.raw") ||
		{ fail "extmod: bpftool cannot read the .BTF.base"; return 1; }
	split=$(bpftool -B "$dir/base.raw" btf dump file "$dir/split.raw") ||
		{ fail "extmod: bpftool cannot read the .BTF on its .BTF.base"; return 1; }
	for want in "STRUCT 'list_head' size=16 vlen=0" "STRUCT 'file' size=" \
		    "ENUM 'pid_type' " "INT 'int' size=4"; do
		grep -F "$want" <<< "$base" >/dev/null ||
			fail "extmod: the distilled base has no $want"
	done
	grep -E "^\[[0-9]+\] (STRUCT|UNION)" <<< "$base" | grep -v ' vlen=0$' >&2 &&
		fail "extmod: the distilled base has a struct with members"
	for want in "STRUCT 'extmod_state' size=" "FUNC 'extmod_use' "; do
		grep -F "$want" <<< "$split" >/dev/null ||
			fail "extmod: the split BTF has no $want"
	done
	say "extmod: .BTF $(stat -c %s "$dir/split.raw") bytes on a .BTF.base of" \
	    "$(grep -c '^\[' <<< "$base") types"
}

# extmod_pahole DIR LOG: the module linked again as a tree links it for a
# pahole that distils no base (MODULE_PAHOLE_FLAGS empty): its split BTF on
# build 2's vmlinux means what pahole makes of the same .ko. The distilled
# .ko is put back.
extmod_pahole() {
	local dir=$1 log=$2 flags
	mv "$dir/extmod.ko" "$dir/extmod.ko.distilled"
	kmake_build "$B_CC" "$log" args_cc M="$dir" MODULE_PAHOLE_FLAGS= modules
	if section "$dir/extmod.ko" .BTF.base "$RES/extmod.base"; then
		fail "extmod: linked without distilled_base, it has a .BTF.base"
	fi
	flags=$(pahole_flags)
	# shellcheck disable=SC2086
	if "$PAHOLE_BIN" -J $flags --btf_base "$B_CC/vmlinux" \
		--btf_encode_detached="$RES/extmod.pahole.btf" "$dir/extmod.ko" >/dev/null 2>&1; then
		say "extmod: without a distilled base, against pahole:"
		compare "$dir/extmod.ko" "$RES/extmod.pahole.btf" "$dir/extmod.ko" \
			"$RES/extmod.diff" 20 --base "$B_CC/vmlinux"
	else
		fail "pahole cannot encode extmod.ko"
	fi
	mv "$dir/extmod.ko.distilled" "$dir/extmod.ko"
}

# extmod_pahole7 DIR: 7.3, where resolve_btfids distils the base of every
# external module (--distill_base): what the tree makes of pahole's BTF of
# the same .ko, its .BTF and .BTF.base in a copy of it, means what the
# module carries, each on its own distilled base.
extmod_pahole7() {
	local dir=$1 flags ref=$RES/extmod.ref.ko
	flags=$(pahole_flags)
	# shellcheck disable=SC2086
	"$PAHOLE_BIN" -J $flags --btf_base "$B_CC/vmlinux" \
		--btf_encode_detached="$RES/extmod.pahole.btf" "$dir/extmod.ko" >/dev/null 2>&1 ||
		{ fail "pahole cannot encode extmod.ko"; return; }
	tree_btfids "$dir/extmod.ko" "$RES/extmod.pahole.btf" "$RES/extmod.final.btf" \
		"$B_CC/vmlinux" --distill_base ||
		{ fail "resolve_btfids --distill_base fails on pahole's BTF of extmod.ko"; return; }
	"${CROSS}objcopy" --remove-section=.BTF --remove-section=.BTF.base \
		--add-section .BTF="$RES/extmod.final.btf" \
		--add-section .BTF.base="$RES/extmod.final.btf.base" "$dir/extmod.ko" "$ref"
	say "extmod: against pahole's, through resolve_btfids --distill_base:"
	compare "$dir/extmod.ko" "$ref" "$dir/extmod.ko" "$RES/extmod.diff" 20
	rm -f "$ref"
}

phase_extmod() {
	local dir=$E2E/extmod log=$E2E/extmod.log got size
	if [ "$KVER" = 6.1 ]; then
		say "extmod: $KVER's modules have no distilled base: nothing to check"
		return
	fi
	mkdir -p "$RES"
	extmod_build "$dir" "$log"
	extmod_btf "$dir" || return 0
	if [ "$KVER" = 7.3 ]; then
		extmod_pahole7 "$dir"
	else
		extmod_pahole "$dir" "$log"
	fi
	# build 2's kernel, its modules and this one
	initramfs "$B_CC" "$RES/extmod.cpio" "$dir/extmod.ko"
	boot_guest "$RES/extmod.cpio" "$RES/extmod-boot.log" || return 0
	[ "$(report "$RES/extmod-boot.log" "insmod extmod")" = ok ] ||
		fail "extmod: insmod extmod failed"
	got=$(report "$RES/extmod-boot.log" "module-btf-size extmod")
	size=$(stat -c %s "$dir/split.raw")
	[ "$got" = "$size" ] ||
		fail "extmod: /sys/kernel/btf/extmod is ${got:-missing}, the .BTF $size bytes"
	if btf_errors "$RES/extmod-boot.log"; then
		fail "extmod: BTF errors in the boot log (above)"
	fi
	say "extmod: the kernel relocated and loaded it: /sys/kernel/btf/extmod ${got:-missing} bytes"
}

phase_repro() {
	local ko
	build cc-btf-only "$B_ONLY" args_only "$(tools_key)"
	check_image cc-btf-only "$B_ONLY"
	cmp "$RES/cc-btf.vmlinux.btf" "$RES/cc-btf-only.vmlinux.btf" >&2 ||
		fail "vmlinux's .BTF differs between cc-btf and cc-btf-only"
	for ko in $(modules_of "$B_CC"); do
		section "$B_CC/$ko" .BTF "$RES/a.btf"
		section "$B_ONLY/$ko" .BTF "$RES/b.btf"
		cmp "$RES/a.btf" "$RES/b.btf" >&2 ||
			fail "$ko's .BTF differs between cc-btf and cc-btf-only"
	done
	rm -f "$RES/a.btf" "$RES/b.btf"
	say "cc-btf and cc-btf-only: the same .BTF bytes in vmlinux and the modules"
	readelf -SW "$B_ONLY/$(dirname "$TOUCH_C")/$(basename "$TOUCH_C" .c).o" |
		grep -q '\.debug_info' && fail "BTF_ONLY=1 left DWARF in the objects"
	say "sizes in MiB, pahole / cc-btf / cc-btf-only:" \
	    "object files but vmlinux.o $(sizes objects_size)," \
	    "vmlinux.o $(sizes file_size vmlinux.o), vmlinux $(sizes file_size vmlinux)," \
	    "build directory $(sizes dir_size)"
}

objects_size() {
	find "$1" -name '*.o' ! -path "$1/vmlinux.o" -printf '%s\n' |
		awk '{ s += $1 } END { print int(s / 1048576) }'
}
file_size() { echo $(($(stat -c %s "$1/$2") >> 20)); }
dir_size() { du -sm "$1" | cut -f1; }

# sizes FN [ARGS...]: FN DIR ARGS... of each build, as A / B / C.
sizes() {
	local fn=$1
	shift
	echo "$($fn "$B_PAHOLE" "$@") / $($fn "$B_CC" "$@") / $($fn "$B_ONLY" "$@")"
}

# relink NAME DIR ARGSFN: time the link step alone (the modules follow).
relink() {
	local t0 log=$E2E/relink-$1.log
	: > "$log"
	# (7.3's vmlinux is an objcopy of vmlinux.unstripped, the link's)
	rm -f "$2/vmlinux" "$2/$LD_VMLINUX"
	t0=$(date +%s.%N)
	kmake_build "$2" "$log" "$3"
	say "relink $1: $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-5)s" \
	    "(LD $BTF_IMAGE, BTF, LD vmlinux, BTFIDS, the modules' BTF)"
}

# btfids_warnings VMLINUX [BTF]: what resolve_btfids (the tree's own) warns
# when it resolves a copy of VMLINUX against BTF (default: VMLINUX's own);
# fails if resolve_btfids does.
btfids_warnings() {
	local copy=$RES/btfids.vmlinux rc=0
	cp "$1" "$copy"
	"$B_CC/tools/bpf/resolve_btfids/resolve_btfids" ${2:+--btf "$2"} "$copy" \
		> "$RES/btfids.out" 2>&1 || rc=$?
	rm -f "$copy"
	[ $rc -eq 0 ] || { cat "$RES/btfids.out" >&2; return 1; }
	# type IDs differ between two BTFs of one meaning: not compared
	sed -E 's/(multiple IDs found for [^:]*):.*/\1/' "$RES/btfids.out" | sort -u
}

phase_relink() {
	local name names=cc-btf ours theirs
	# build 1 and build 3 when the pahole and repro phases made them
	# (the lab's tier; CI builds only build 2)
	if [ -f "$B_PAHOLE/vmlinux" ]; then
		relink pahole "$B_PAHOLE" args_pahole
	fi
	relink cc-btf "$B_CC" args_cc
	if [ -f "$B_ONLY/vmlinux" ]; then
		relink cc-btf-only "$B_ONLY" args_only
		names+=" cc-btf-only"
	fi
	for name in $names; do
		grep -qxF "  BTF     $BTF_STEP" "$E2E/relink-$name.log" ||
			fail "$name: no BTF step in the link"
		if grep -E "orphan section|non-allocatable section" "$E2E/relink-$name.log" >&2; then
			fail "$name: orphan or unexpected sections in the link (above)"
		fi
	done
	section "$B_CC/vmlinux" .BTF "$RES/relink.btf"
	cmp -s "$RES/relink.btf" "$RES/cc-btf.vmlinux.btf" ||
		fail "relinking cc-btf changed vmlinux's .BTF"
	rm -f "$RES/relink.btf"
	# one kernel of each series is enough (CI's time): x86-64, GCC
	if [ "$KARCH" = x86_64 ] && [ "$KCC" = gcc ]; then
		relink_pahole_and_back
	fi
	# resolve_btfids resolves as much with btf-link's BTF as with pahole's
	# of the same image (the compare phase made it): the same warnings
	[ -f "$RES/pahole-serial.vmlinux.btf" ] ||
		die "no pahole BTF of cc-btf/$BTF_IMAGE: the compare phase comes first"
	if [ "$KVER" = 7.3 ]; then
		# gen-btf.sh's resolve_btfids --btf, on btf-link's BTF and on
		# pahole's of the same image (the compare phase ran both)
		ours=$(btfids_said "$RES/btf-link.final.btf.warnings")
		theirs=$(btfids_said "$RES/pahole-serial.final.btf.warnings")
	else
		btfids_both || return 0
	fi
	say "resolve_btfids: $(printf '%s' "$theirs" | grep -c .) warnings with pahole's BTF," \
	    "$(printf '%s' "$ours" | grep -c .) with btf-link's"
	diff <(printf '%s\n' "$theirs") <(printf '%s\n' "$ours") >&2 ||
		fail "resolve_btfids warns differently with btf-link's BTF than with pahole's (above)"
}

args_cc_pahole() { args_cc; echo BTF_LINK=pahole; }

# keep_module_btfs: each module of build 2's .BTF as it is now, for
# same_module_btf.
keep_module_btfs() {
	local ko
	for ko in $(modules_of "$B_CC"); do
		section "$B_CC/$ko" .BTF "$RES/before.${ko//\//_}.btf" ||
			fail "$ko: no .BTF"
	done
}

# same_module_btf KO: module KO's .BTF is what keep_module_btfs kept (the
# copy is dropped either way).
same_module_btf() {
	local kept=$RES/before.${1//\//_}.btf rc=0
	section "$B_CC/$1" .BTF "$RES/after.ko.btf" &&
		cmp "$kept" "$RES/after.ko.btf" >&2 || rc=1
	rm -f "$kept" "$RES/after.ko.btf"
	return $rc
}

# relink_pahole_and_back: build 2 linked with pahole making the BTF
# (BTF_LINK=pahole), then with btf-link again, as a user who tried one and
# went back would: pahole encodes each module's DWARF, its archive
# removed; back with btf-link, the link's command no longer names pahole,
# so each module is linked again, its archive back, and btf-link makes its
# BTF to the bytes it had (kbuild-patches' patch 2). Without that, the
# modules stayed pahole's: gen-btf.sh found no .debug_btf_addr in them.
relink_pahole_and_back() {
	local ko back=$E2E/relink-cc-btf-back.log n=0
	keep_module_btfs
	relink cc-btf-pahole "$B_CC" args_cc_pahole
	for ko in $(modules_of "$B_CC"); do
		[ -z "$(section_size "$B_CC/$ko" .debug_btf_archive)" ] ||
			fail "$ko kept its archive with BTF_LINK=pahole"
	done
	relink cc-btf-back "$B_CC" args_cc
	for ko in $(modules_of "$B_CC"); do
		grep -q "^  LD \[M\]  $ko$" "$back" ||
			fail "$ko, linked for pahole, was not linked again for btf-link"
		[ -n "$(section_size "$B_CC/$ko" .debug_btf_archive)" ] ||
			fail "$ko has no archive after BTF_LINK=pahole and back"
		if same_module_btf "$ko"; then
			n=$((n + 1))
		else
			fail "$ko's .BTF is not what btf-link made before"
		fi
	done
	section "$B_CC/vmlinux" .BTF "$RES/relink.btf"
	cmp -s "$RES/relink.btf" "$RES/cc-btf.vmlinux.btf" ||
		fail "vmlinux's .BTF changed after BTF_LINK=pahole and back"
	rm -f "$RES/relink.btf"
	say "relink: BTF_LINK=pahole, then btf-link again: $n modules linked" \
	    "again with their archives, to the same .BTF"
}

# btfids_said FILE: what resolve_btfids said, type IDs left out (they
# differ between two BTFs of one meaning)
btfids_said() {
	sed -E 's/(multiple IDs found for [^:]*):.*/\1/' "$1" | sort -u
}

# btfids_both: 6.1 and 6.12, ours and theirs: resolve_btfids on copies of
# vmlinux, with btf-link's BTF and with pahole's
btfids_both() {
	ours=$(btfids_warnings "$B_CC/vmlinux") ||
		{ fail "resolve_btfids fails on cc-btf/vmlinux (above)"; return 1; }
	theirs=$(btfids_warnings "$B_CC/vmlinux" "$RES/pahole-serial.vmlinux.btf") ||
		{ fail "resolve_btfids fails with pahole's BTF (above)"; return 1; }
}

phase_incremental() {
	local log=$E2E/incremental.log obj built encoded boot
	obj=${TOUCH_C%.c}.o
	: > "$log"
	section "$B_CC/vmlinux" .BTF "$RES/before.btf"
	keep_module_btfs
	touch "$SRC/$TOUCH_C"
	CC_BTF_OPTS=-v kmake_build "$B_CC" "$log" args_cc
	# arch/x86/boot/ makes bzImage of vmlinux, and compiles again after
	# every change of vmlinux, with or without cc-btf
	boot=$(sed -n 's/^  \(CC\|AS\)  *\(arch\/x86\/boot\/[^ ]*\.o\)$/\2/p' "$log" |
		sort | tr '\n' ' ')
	built=$(sed -n 's/^  \(CC\|AS\)  *\([^ ]*\.o\)$/\2/p' "$log" |
		grep -v '^arch/x86/boot/' | sort | tr '\n' ' ')
	encoded=$(sed -n 's/^cc-btf: \([^:]*\.o\): .*/\1/p' "$log" |
		grep -v '^arch/x86/boot/' | sort | tr '\n' ' ')
	say "incremental: compiled: $built; encoded: $encoded;" \
	    "and for bzImage, as after any change of vmlinux: $boot"
	[ "$built" = "$obj " ] || fail "touching $TOUCH_C compiled $built, not $obj alone"
	[ "$encoded" = "$obj " ] || fail "touching $TOUCH_C encoded $encoded, not $obj alone"
	grep -qxF "  LD      $LD_VMLINUX" "$log" || fail "vmlinux was not linked again"
	grep -qxF "  BTF     $BTF_STEP" "$log" || fail "btf-link did not run again"
	# a module is not linked again for a new vmlinux (as upstream): its
	# BTF is, from the archive it kept (patch 2), to the same bytes
	for ko in $(modules_of "$B_CC"); do
		grep -q "^  BTF \[M\] $ko$" "$log" || fail "$ko's BTF was not linked again"
		grep -q "^  LD \[M\]  $ko$" "$log" && fail "$ko was linked again for a new vmlinux"
		same_module_btf "$ko" ||
			fail "$ko's .BTF changed although vmlinux's did not"
	done
	say "incremental: $(modules_of "$B_CC" | wc -w) modules' BTF linked again from their kept archives, not relinked"
	section "$B_CC/vmlinux" .BTF "$RES/after.btf"
	cmp "$RES/before.btf" "$RES/after.btf" >&2 ||
		fail "vmlinux's .BTF changed although $TOUCH_C did not"
	rm -f "$RES/before.btf" "$RES/after.btf"
}

phase_unpatched() {
	local log=$E2E/unpatched.log obj rc=0 args saved=$E2E/unpatched.saved.o
	obj=${TOUCH_C%.c}.o
	: > "$log"
	# the object goes, so that make compiles it again; it comes back
	# with its time afterwards, and build 2 is as it was, unlinked
	cp -p "$B_CC/$obj" "$saved"
	rm -f "$B_CC/$obj"
	mapfile -t args < <(args_cc)
	make -C "$SRC" O="$B_CC" ARCH="$KMARCH" ${CROSS:+CROSS_COMPILE="$CROSS"} "${LLVM_ARGS[@]}" "${PAHOLE_ARGS[@]}" \
		"${args[@]}" CC_BTF_KBUILD= "$obj" \
		>>"$log" 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "make with CC_BTF_KBUILD= succeeded"
	grep "^cc-btf: error: $obj: this kernel tree lacks archive-btf's kbuild patches" \
		"$log" >/dev/null || fail "no cc-btf error naming $obj and the patches in $log"
	[ ! -e "$B_CC/$obj" ] || fail "the refused $obj was left behind"
	say "unpatched: $(grep -m1 '^cc-btf: error:' "$log" | cut -c1-160)"
	cp -p "$saved" "$B_CC/$obj"
	rm -f "$saved"
}

# same_btf NAME DIR [PREFIX]: DIR's vmlinux and modules (the modules under
# PREFIX/lib/modules/*/ if given, as installed) carry build 2's .BTF bytes.
same_btf() {
	local name=$1 dir=$2 prefix=${3:-} ko m n=0
	section "$dir/vmlinux" .BTF "$RES/same.btf" && cmp -s "$RES/same.btf" "$RES/cc-btf.vmlinux.btf" ||
		fail "$name: vmlinux's .BTF is not build 2's"
	for ko in $(modules_of "$B_CC"); do
		m=$dir/$ko
		[ -z "$prefix" ] || m=$(find "$prefix/lib/modules" -path "*/$ko" -print -quit)
		[ -n "$m" ] && [ -f "$m" ] || { fail "$name: no $ko"; continue; }
		section "$B_CC/$ko" .BTF "$RES/same-a.btf"
		if section "$m" .BTF "$RES/same-b.btf" &&
		   cmp -s "$RES/same-a.btf" "$RES/same-b.btf"; then
			n=$((n + 1))
		else
			fail "$name: ${m#"$E2E"/}'s .BTF is not build 2's"
		fi
	done
	rm -f "$RES/same.btf" "$RES/same-a.btf" "$RES/same-b.btf"
	say "$name: vmlinux and $n modules with build 2's .BTF bytes"
}

# deb_of NAME: the one package NAME*.deb that bindeb-pkg wrote beside build 2.
deb_of() {
	local debs=()
	mapfile -t debs < <(find "$E2E" -maxdepth 1 -name "$1_*.deb")
	[ ${#debs[@]} -eq 1 ] || die "package: ${#debs[@]} $1 packages in $E2E"
	echo "${debs[0]}"
}

phase_package() {
	local log=$E2E/package.log pkg=$E2E/package image dbg ko n=0
	if [ "$KVER" != 6.1 ] || [ "$KARCH" != x86_64 ]; then
		say "package: written for 6.1's builddeb on x86-64: nothing to check"
		return
	fi
	# bindeb-pkg's build dependencies (dpkg-checkbuilddeps)
	command -v dpkg-buildpackage >/dev/null || unavailable "dpkg-dev missing: tests/install-deps.sh installs it"
	command -v rsync >/dev/null || unavailable "rsync missing: tests/install-deps.sh installs it"
	command -v depmod >/dev/null || [ -x /sbin/depmod ] || unavailable "kmod missing: tests/install-deps.sh installs it"
	: > "$log"
	rm -rf "$pkg" "$E2E"/*.deb "$E2E"/*.buildinfo "$E2E"/*.changes
	# (packages uncompressed: xz of the -dbg package's vmlinux is most
	# of the time otherwise, and tests nothing of ours)
	KDEB_COMPRESS=none kmake_build "$B_CC" "$log" args_cc bindeb-pkg
	image=$(deb_of "linux-image-$(cat "$B_CC/include/config/kernel.release")")
	dbg=$(deb_of "linux-image-$(cat "$B_CC/include/config/kernel.release")-dbg")
	mkdir -p "$pkg/image" "$pkg/dbg" "$pkg/strip"
	dpkg-deb -x "$image" "$pkg/image"
	dpkg-deb -x "$dbg" "$pkg/dbg"
	say "package: $(basename "$image"), $(basename "$dbg")"
	# builddeb strips the modules' DWARF (objcopy --strip-debug) and
	# keeps the whole vmlinux in -dbg
	same_btf "package" "$pkg/dbg/usr/lib/debug/lib/modules/"* "$pkg/image"
	# modules_install with INSTALL_MOD_STRIP=1: strip --strip-debug
	kmake_build "$B_CC" "$log" args_cc INSTALL_MOD_PATH="$pkg/strip" INSTALL_MOD_STRIP=1 modules_install
	while IFS= read -r ko; do
		n=$((n + 1))
		readelf -SW "$ko" | grep -F ' .debug_info ' >/dev/null &&
			fail "package: INSTALL_MOD_STRIP=1 left DWARF in ${ko#"$pkg"/}"
	done < <(find "$pkg/strip/lib/modules" -name '*.ko')
	[ "$n" -gt 0 ] || fail "package: modules_install installed no module"
	cp "$B_CC/vmlinux" "$pkg/strip/vmlinux"
	same_btf "INSTALL_MOD_STRIP=1" "$pkg/strip" "$pkg/strip"
	rm -rf "$pkg"
}

# start_distccd LOG: a distccd on 127.0.0.1, on a free port, for this run
# only (killed on exit, and by its own timeout at the latest); DISTCC_HOSTS
# names it, and distcc may not fall back to compiling here.
start_distccd() {
	local port _
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	timeout 3600 distccd --no-detach --daemon --allow 127.0.0.1 --listen 127.0.0.1 \
		--port "$port" --jobs "$JOBS" --log-stderr --log-level info 2>"$1" &
	DISTCCD_PID=$!
	trap 'kill $DISTCCD_PID 2>/dev/null || true' EXIT
	for _ in $(seq 50); do
		python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' \
			"$port" 2>/dev/null && break
		sleep 0.2
	done
	export DISTCC_HOSTS="127.0.0.1:$port/$JOBS" DISTCC_FALLBACK=0
}

# ccache_stat NAME: one counter of ccache --print-stats.
ccache_stat() {
	ccache --print-stats | awk -v k="$1" '$1 == k { print $2 }'
}

# ccache_misses LOG: the source files of the compiles that missed the
# cache, by ccache's log, but for /dev/null and standard input (probes).
ccache_misses() {
	awk '{ pid = $2 }
	     / Source file: / { src[pid] = $NF }
	     / Result: cache_miss$/ && src[pid] != "/dev/null" && src[pid] != "-" { print src[pid] }' "$1"
}

# ccache_hits: direct and preprocessed hits together.
ccache_hits() {
	echo $(( $(ccache_stat direct_cache_hit) + $(ccache_stat preprocessed_cache_hit) ))
}

# launched_build: build 2 from scratch through the launchers: an empty
# cache, every compile a miss that distccd on 127.0.0.1 runs. What it saw
# is kept in launchers-cold for the launchers phase.
launched_build() {
	local dlog=$E2E/distccd.log encoded remote local_c
	rm -rf "$CCACHE_DIR" "$DISTCC_DIR" "$E2E/launchers-cold"
	mkdir -p "$DISTCC_DIR"
	start_distccd "$dlog"
	CC_BTF_OPTS=-v build cc-btf "$B_CC" args_cc "$(cc_key)"
	kill "$DISTCCD_PID" 2>/dev/null || true
	export DISTCC_HOSTS=localhost
	unset DISTCC_FALLBACK
	# the objects cc-btf encoded, and the sources distccd compiled (of
	# the tree or generated in the build directory) as objects
	sed -nE 's/^cc-btf: ([^:]*\.o): [0-9]+ types.*/\1/p' "$E2E/cc-btf.log" | sort -u > "$E2E/encoded.list"
	# (no match is the launchers phase's failure to name, not this one's)
	{ grep 'COMPILE_OK' "$dlog" || true; } | awk '{ print $NF }' |
		sed -E "s#^($SRC|$B_CC)/##; s#\\.[cS]\$#.o#" | sort -u > "$E2E/remote.list"
	encoded=$(wc -l < "$E2E/encoded.list")
	remote=$(grep -c 'COMPILE_OK' "$dlog" || true)
	# the objects compiled from C that distccd did not compile (distcc
	# sends no assembly out); the loop's status must not be its last
	# test's, which pipefail would take for a failure of the build
	local_c=$(comm -23 "$E2E/encoded.list" "$E2E/remote.list" | while read -r o; do
		if [ -f "$SRC/${o%.o}.c" ] || [ -f "$B_CC/${o%.o}.c" ]; then
			echo "$o"
		fi
	done | wc -l)
	echo "$encoded $remote $(ccache_stat cache_miss) $(ccache_hits) $local_c" > "$E2E/launchers-cold"
}

# launchers_cold: the checks of build 2's cold run.
launchers_cold() {
	local encoded remote miss hit local_c
	[ -f "$E2E/launchers-cold" ] ||
		die "launchers: no record of build 2's cold run; remove $B_CC to build it again"
	read -r encoded remote miss hit local_c < "$E2E/launchers-cold"
	say "launchers: build 2 (cold): cc-btf encoded $encoded objects; ccache $miss misses," \
	    "$hit hits (a source compiled twice alike); distccd compiled $remote," \
	    "and all objects from C but $local_c"
	[ "$encoded" -gt 0 ] || fail "launchers: build 2 encoded no object"
	[ "$miss" -gt "$hit" ] && [ $((miss + hit)) -ge "$encoded" ] ||
		fail "launchers: build 2 (empty cache): $miss misses, $hit hits, $encoded objects"
	# an object from C that distccd did not compile came from the cache
	[ "$local_c" -le "$hit" ] && [ "$remote" -gt 0 ] ||
		fail "launchers: $local_c objects from C compiled on this machine, $hit cache hits"
}

phase_launchers() {
	if [ -z "$LAUNCHER" ]; then
		say "launchers: build 2 was made without them (ABTF_E2E_LAUNCHER): nothing to check"
		return
	fi
	launchers_cold
}

phase_warm() {
	local log=$E2E/launchers.log encoded miss hit
	if [ -z "$LAUNCHER" ]; then
		say "warm: build 2 was made without launchers (ABTF_E2E_LAUNCHER): nothing to check"
		return
	fi
	[ -f "$RES/cc-btf.vmlinux.btf" ] || die "warm: the check phase comes first"
	# build 5: build 2 again from scratch, every compile from the cache
	# (the cache hashes the build directory: the same path); a miss
	# would compile here (DISTCC_HOSTS=localhost), and ccache's log
	# names it
	: > "$log"
	ccache -z >/dev/null
	mv "$B_CC" "$B_CC.cold"
	mkdir -p "$B_CC"
	cp "$CONFIG/.config" "$B_CC/.config"
	rm -f "$E2E/ccache-warm.log"
	CCACHE_LOGFILE=$E2E/ccache-warm.log CC_BTF_OPTS=-v kmake_build "$B_CC" "$log" args_cc
	encoded=$(grep -cE '^cc-btf: [^:]*\.o: [0-9]+ types' "$log" || true)
	miss=$(ccache_stat cache_miss)
	hit=$(ccache_hits)
	# kbuild's compiler probes (cc-option: "-c -x c /dev/null -o
	# .tmp_PID/tmp.o", with the PID in a -gsplit-dwarf object) miss
	# again; the tree's sources may not
	ccache_misses "$E2E/ccache-warm.log" > "$E2E/ccache-warm.misses"
	say "warm: build 5 (a new build directory): cc-btf encoded $encoded objects;" \
	    "ccache $miss misses ($(grep -c . "$E2E/ccache-warm.misses") of the tree's sources), $hit hits"
	[ ! -s "$E2E/ccache-warm.misses" ] ||
		fail "warm: build 5 compiled again: $(head -n 5 "$E2E/ccache-warm.misses" | tr '\n' ' ')"
	[ "$encoded" -gt 0 ] && [ "$hit" -ge "$encoded" ] ||
		fail "warm: build 5: $hit cache hits, $encoded objects encoded"
	grep -qxF "  BTF     $BTF_STEP" "$log" || fail "warm: build 5 has no BTF step"
	same_btf "warm: build 5" "$B_CC"
	# the cold build stays: the phases after this one may use it
	rm -rf "$B_CC.warm"
	mv "$B_CC" "$B_CC.warm"
	mv "$B_CC.cold" "$B_CC"
	rm -rf "$B_CC.warm"
}

# split_same LABEL FILE SECTION: SECTION of FILE is the same bytes in
# build 2 and in build 2 of the configuration without split DWARF (BASE);
# where not, btf-link --compare says whether the two mean the same.
split_same() {
	local label=$1 file=$2 sect=$3 a=$RES/split-a.btf b=$RES/split-b.btf
	section "$BASE/cc-btf/$file" "$sect" "$a" ||
		{ fail "split: $file: no $sect without split DWARF"; return 1; }
	section "$B_CC/$file" "$sect" "$b" ||
		{ fail "split: $file: no $sect with split DWARF"; return 1; }
	if ! cmp -s "$a" "$b"; then
		fail "split: $label: $file's $sect is not the bytes it has without split DWARF ($(stat -c %s "$a") and $(stat -c %s "$b") bytes)"
		[ "$sect" != .BTF ] || [ "$file" = "$BTF_IMAGE" ] ||
			"$BTF_LINK_BIN" --compare ${4:+--base "$4"} "$a" "$b" >&2 ||
			say "split: $label: ... and btf-link --compare says they differ in meaning (above)"
		return 1
	fi
	say "split: $label: $file's $sect: the same $(stat -c %s "$b") bytes"
}

# The build of the configuration without split DWARF that the split phase
# compares with: the cache of the same kernel, compiler, target and pahole
# without the variant (BASE, set with E2E above).

phase_split() {
	local log=$E2E/split.log tmp=$E2E/kconfig ko n=0 dwo base_dwo structs gdb_base gdb_split
	if [ -z "$VARIANT" ] || ! grep -qx CONFIG_DEBUG_INFO_SPLIT=y "$CONFIG/.config"; then
		say "split: written for a configuration with split DWARF (ABTF_E2E_CONFIG=split): nothing to check"
		return
	fi
	[ -f "$BASE/cc-btf/vmlinux" ] ||
		die "split: no build without split DWARF in $BASE: e2e.sh without ABTF_E2E_CONFIG makes it"
	# that cache's runs must not change it meanwhile
	exec 8>"$BASE/.lock"
	flock 8
	: > "$log"
	mkdir -p "$RES"
	# the same configuration, but for split DWARF (and what Kconfig
	# computes of the compiler: CC_HAS_BTF_LINK)
	diff <(grep -vE '^(# )?CONFIG_(DEBUG_INFO_SPLIT|CC_HAS_BTF_LINK)[= ]' "$BASE/cc-btf/.config") \
	     <(grep -vE '^(# )?CONFIG_(DEBUG_INFO_SPLIT|CC_HAS_BTF_LINK)[= ]' "$B_CC/.config") >&2 ||
		fail "split: the two configurations differ by more than CONFIG_DEBUG_INFO_SPLIT (above)"
	# split DWARF indeed: a .dwo beside each object with DWARF, and no
	# types in vmlinux's DWARF, which is its objects' skeletons
	dwo=$(find "$B_CC" -name '*.dwo' | wc -l)
	base_dwo=$(find "$BASE/cc-btf" -name '*.dwo' | wc -l)
	say "split: $dwo .dwo files ($base_dwo without split DWARF);" \
	    "vmlinux's .debug_info $(section_size "$B_CC/vmlinux" .debug_info) bytes" \
	    "($(section_size "$BASE/cc-btf/vmlinux" .debug_info) without);" \
	    "the build directory $(du -sm "$B_CC" | cut -f1) MB ($(du -sm "$BASE/cc-btf" | cut -f1) MB without)"
	[ "$dwo" -gt 0 ] && [ "$base_dwo" -eq 0 ] || fail "split: $dwo .dwo files with split DWARF, $base_dwo without"
	# (-wN: not the .dwo files the skeletons name)
	structs=$("${CROSS}readelf" -wN --debug-dump=info "$B_CC/vmlinux" 2>/dev/null |
		grep -c DW_TAG_structure_type || true)
	[ "$structs" -eq 0 ] || fail "split: vmlinux's own DWARF describes $structs structures"

	# the BTF, byte for byte: the objects' (the archive in the BTF image),
	# vmlinux's (after resolve_btfids) and the IDs resolve_btfids took of
	# it, each module's split BTF and the archive it keeps
	split_same objects "$BTF_IMAGE" .BTF
	split_same vmlinux vmlinux .BTF
	split_same vmlinux vmlinux .BTF_ids
	cmp -s "$BASE/cc-btf/modules.order" "$B_CC/modules.order" ||
		fail "split: the two builds have not the same modules"
	for ko in $(modules_of "$B_CC"); do
		split_same module "$ko" .BTF "$B_CC/vmlinux" &&
			split_same module "$ko" .debug_btf_archive && n=$((n + 1))
	done
	say "split: vmlinux and $n modules: the BTF of the build without split DWARF"
	[ "$n" -gt 0 ] || fail "split: no module compared"

	# gdb reads the types from the .dwo files beside the objects
	gdb_base=$(gdb -batch -nx -ex 'ptype struct sk_buff' "$BASE/cc-btf/vmlinux" 2>&1 || true)
	gdb_split=$(gdb -batch -nx -ex 'ptype struct sk_buff' "$B_CC/vmlinux" 2>&1 || true)
	grep -q '^type = struct sk_buff {' <<< "$gdb_base" ||
		fail "split: gdb finds no struct sk_buff in the vmlinux without split DWARF: $(head -n 3 <<< "$gdb_base")"
	if [ "$gdb_split" = "$gdb_base" ]; then
		say "split: gdb's ptype struct sk_buff: the same $(wc -l <<< "$gdb_split") lines from the .dwo files"
	else
		diff <(echo "$gdb_base") <(echo "$gdb_split") | head -n 20 >&2
		fail "split: gdb's ptype struct sk_buff differs with split DWARF (above)"
	fi

	# pahole reads the DWARF of vmlinux, which has no types
	section "$B_CC/vmlinux" .BTF "$RES/split.vmlinux.btf"
	if pahole -J --btf_encode_detached="$RES/split.pahole.btf" "$B_CC/vmlinux" >>"$log" 2>&1; then
		say "split: pahole -J of the split vmlinux: $(bpftool btf dump file "$RES/split.pahole.btf" 2>/dev/null | grep -c '^\[') types" \
		    "(its .BTF: $(bpftool btf dump file "$RES/split.vmlinux.btf" | grep -c '^\['))"
		[ "$(bpftool btf dump file "$RES/split.pahole.btf" 2>/dev/null |
		     grep -c "^\[[0-9]*\] STRUCT 'sk_buff'" || true)" -eq 0 ] ||
			fail "split: pahole found struct sk_buff in the split vmlinux"
	else
		say "split: pahole -J of the split vmlinux fails: $(tail -n 1 "$log")"
	fi
	# Kconfig drops DEBUG_INFO_BTF with split DWARF for gcc alone, and the
	# tree refuses BTF_LINK=pahole (patch 7)
	rm -rf "$tmp"
	mkdir -p "$tmp"
	cp "$B_CC/.config" "$tmp/.config"
	kmake "$tmp" "$log" olddefconfig
	if grep -qx CONFIG_DEBUG_INFO_BTF=y "$tmp/.config"; then
		fail "split: Kconfig keeps DEBUG_INFO_BTF with DEBUG_INFO_SPLIT and CC=$KCC_BIN"
	else
		say "split: Kconfig with CC=$KCC_BIN: DEBUG_INFO_BTF dropped"
	fi
	cp "$B_CC/.config" "$tmp/.config"
	if make -C "$SRC" O="$tmp" ARCH="$KMARCH" "CC=$CC_BTF_BIN $KCC_BIN" BTF_LINK=pahole \
		btf-link-check >>"$log" 2>&1; then
		fail "split: make BTF_LINK=pahole accepts CONFIG_DEBUG_INFO_SPLIT"
	else
		grep -q 'which pahole does not read' "$log" ||
			fail "split: make BTF_LINK=pahole fails, but without saying why: $(tail -n 3 "$log")"
		say "split: make BTF_LINK=pahole: $(grep -m 1 'which pahole does not read' "$log")"
	fi
	# modules_install, run without CC= (as by root after the build),
	# installs the modules with their BTF: the check is prepare's only
	[ -f "$RES/cc-btf.vmlinux.btf" ] || die "split: the check phase comes first"
	kmake "$B_CC" "$log" INSTALL_MOD_PATH="$tmp/mods" modules_install
	same_btf "split: modules_install without CC=" "$B_CC" "$tmp/mods"
	rm -rf "$tmp" "$RES/split-a.btf" "$RES/split-b.btf" "$RES/split.vmlinux.btf" \
		"$RES/split.pahole.btf"
}

main() {
	local phases=("$@") p t t0
	[ "$(uname -m)" = x86_64 ] || unavailable "this test is x86-64 and this is $(uname -m)"
	if [ ${#phases[@]} -eq 0 ]; then
		# all of them; the judge phase only with a judge
		read -r -a phases <<< "$ALL_PHASES"
		[ -n "$JUDGE_BIN" ] || read -r -a phases <<< "${ALL_PHASES/ judge / }"
	fi
	for p in "${phases[@]}"; do
		case " $ALL_PHASES " in
		*" $p "*) ;;
		*) die "unknown phase $p; the phases: $ALL_PHASES" ;;
		esac
	done
	missing_packages
	mkdir -p "$E2E"
	exec 9>"$E2E/.lock"
	flock 9
	: > "$E2E/summary"
	t0=$SECONDS
	for p in "${phases[@]}"; do
		t=$SECONDS
		say "--- $p"
		"phase_${p//-/_}"
		printf 'e2e: phase %-12s %4ds\n' "$p" $((SECONDS - t)) | tee -a "$E2E/summary" >&2
	done
	printf 'e2e: total %20ds\n' $((SECONDS - t0)) | tee -a "$E2E/summary" >&2
	[ $FAILED -eq 0 ] || die "some checks failed (FAIL above)"
	say "passed"
}

main "$@"
