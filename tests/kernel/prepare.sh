#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Prepare a real Linux 6.1 tree for the tests and the benchmarks: extract
# Debian's linux-source-6.1, configure it with tests/kernel/config-fragment
# (tinyconfig for x86-64 plus what BTF needs), `make prepare`, and build the
# sample objects of tests/kernel/objects with the kernel's own flags.
#
# Usage: tests/kernel/prepare.sh
#
# Idempotent and cached: each step records what it was done with (the
# tarball, the fragment, the object list, the compiler and pahole) in a
# stamp file and is redone only when that changes, so a second run takes a
# second. Concurrent runs wait for each other (flock).
#
# Environment:
#   ABTF_KERNEL_DIR      the cache (default: tests/.work/kernel, git-ignored)
#   ABTF_KERNEL_TARBALL  the source (default: /usr/src/linux-source-6.1.tar.xz)
#   ABTF_KERNEL_JOBS     make -j (default: the number of CPUs)
#   ABTF_STRICT          1: a missing prerequisite fails the run (CI)
#
# The cache:
#   src/           the extracted source, never written by the build (O=)
#   build/         .config, the prepared tree and the sample objects:
#                  `make -C src O=build ...` goes on from there
#   *.stamp        what each step was last done with
#   prepare.log    the last run's make output
#
# Exit status: 0 when the tree is ready; 77 when a prerequisite is missing
# (tests/install-deps.sh installs them all) or the host is not x86-64
# (callers skip; 1 instead with ABTF_STRICT=1, as .ci/run
# sets it); 1 on any other failure.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
KDIR=${ABTF_KERNEL_DIR:-$TOP/tests/.work/kernel}
TARBALL=${ABTF_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
JOBS=${ABTF_KERNEL_JOBS:-$(nproc 2>/dev/null || echo 2)}
FRAGMENT=$HERE/config-fragment
OBJLIST=$HERE/objects
SRC=$KDIR/src
BUILD=$KDIR/build
LOG=$KDIR/prepare.log

say() { printf 'prepare: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
# unavailable WHY: the run cannot be made here; the tests skip, but
# with ABTF_STRICT=1 (CI) the run fails.
unavailable() {
	say "unavailable: $*"
	[ "${ABTF_STRICT:-0}" = 1 ] && exit 1
	exit 77
}

# kmake ARGS...: make in the kernel tree, quietly, the output in the log.
kmake() {
	make -C "$SRC" O="$BUILD" ARCH=x86_64 -j"$JOBS" "$@" >>"$LOG" 2>&1 || {
		tail -n 30 "$LOG" >&2
		die "make $* failed; the whole output is in $LOG"
	}
}

# step_done NAME KEY: whether step NAME was last done with KEY.
step_done() {
	[ -f "$KDIR/$1.stamp" ] && [ "$(cat "$KDIR/$1.stamp")" = "$2" ]
}

mark_done() {
	printf '%s\n' "$2" > "$KDIR/$1.stamp"
}

sample_objects() {
	sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$OBJLIST"
}

# The packages a run needs: tests/install-deps.sh installs them; the tests
# never install anything themselves.
missing_packages() {
	local pkgs=()
	[ -f "$TARBALL" ] || pkgs+=(linux-source-6.1)
	command -v make >/dev/null || pkgs+=(make)
	command -v gcc >/dev/null || pkgs+=(gcc)
	command -v bc >/dev/null || pkgs+=(bc)
	command -v flex >/dev/null || pkgs+=(flex)
	command -v bison >/dev/null || pkgs+=(bison)
	command -v pahole >/dev/null || pkgs+=(dwarves)
	command -v xz >/dev/null || pkgs+=(xz-utils)
	command -v objcopy >/dev/null || pkgs+=(binutils)
	command -v flock >/dev/null || pkgs+=(util-linux)
	[ -f /usr/include/libelf.h ] || pkgs+=(libelf-dev)
	[ -f /usr/include/openssl/opensslv.h ] || pkgs+=(libssl-dev)
	[ ${#pkgs[@]} -eq 0 ] && return 0
	unavailable "${pkgs[*]} missing: tests/install-deps.sh installs them"
}

extract() {
	local key
	key="$(readlink -f "$TARBALL") $(stat -c '%s %Y' "$TARBALL")"
	step_done extract "$key" && [ -f "$SRC/Makefile" ] && return 0
	say "extracting $TARBALL"
	rm -rf "$SRC" "$SRC.tmp" "$BUILD" "$KDIR"/config.stamp "$KDIR"/objects.stamp
	mkdir -p "$SRC.tmp"
	tar -xJf "$TARBALL" -C "$SRC.tmp" --strip-components=1
	mv "$SRC.tmp" "$SRC"
	mark_done extract "$key"
}

# Every option of the fragment must have survived olddefconfig: a silently
# dropped CONFIG_DEBUG_INFO_BTF (say, pahole missing) would make the whole
# sample worthless.
check_config() {
	local line opt bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$BUILD/.config" || {
				say "config: $line did not survive olddefconfig"
				bad=1
			} ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			grep -q "^$opt=" "$BUILD/.config" && {
				say "config: $opt is set, the fragment unsets it"
				bad=1
			} ;;
		esac
	done < "$FRAGMENT"
	[ $bad -eq 0 ] || die "the configuration is not the fragment's (see above)"
}

configure() {
	local key
	key="$(cat "$KDIR/extract.stamp") $(sha256sum < "$FRAGMENT" | cut -c1-16)"
	key+=" $(gcc -dumpfullversion) $(pahole --version)"
	step_done config "$key" && [ -f "$BUILD/.config" ] && return 0
	say "configuring (tinyconfig + $(basename "$FRAGMENT")) and make prepare"
	rm -f "$KDIR/objects.stamp"
	mkdir -p "$BUILD"
	kmake tinyconfig
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$BUILD" "$BUILD/.config" \
		"$FRAGMENT" >>"$LOG" 2>&1 || die "merge_config.sh failed (see $LOG)"
	kmake olddefconfig
	check_config
	kmake prepare
	mark_done config "$key"
}

build_objects() {
	local key objs=() o missing=0
	mapfile -t objs < <(sample_objects)
	[ ${#objs[@]} -gt 0 ] || die "$OBJLIST lists no object"
	key="$(cat "$KDIR/config.stamp") $(sample_objects | sha256sum | cut -c1-16)"
	for o in "${objs[@]}"; do
		[ -f "$BUILD/$o" ] || missing=1
	done
	step_done objects "$key" && [ $missing -eq 0 ] && return 0
	say "building ${#objs[@]} objects with make -j$JOBS"
	kmake "${objs[@]}"
	for o in "${objs[@]}"; do
		[ -f "$BUILD/$o" ] || die "$o was not built: is it in the configuration?"
		readelf -S "$BUILD/$o" | grep '\.debug_info' >/dev/null ||
			die "$o has no DWARF"
	done
	mark_done objects "$key"
}

main() {
	local t0 t
	[ "$(uname -m)" = x86_64 ] || unavailable "the sample is x86-64 and this is $(uname -m)"
	missing_packages
	mkdir -p "$KDIR"
	exec 9>"$KDIR/.lock"
	flock 9
	: > "$LOG"
	t0=$SECONDS
	t=$SECONDS; extract;       say "extract: $((SECONDS - t))s"
	t=$SECONDS; configure;     say "configure + prepare: $((SECONDS - t))s"
	t=$SECONDS; build_objects; say "objects: $((SECONDS - t))s"
	say "ready in $((SECONDS - t0))s: $BUILD"
}

main "$@"
