#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# A distribution's kernel as its distribution builds it, Rust on: Debian's
# linux-source-7.3 with kbuild-patches/v7.3, configured from Debian's own
# cloud-amd64 configuration, which has CONFIG_RUST=y
# (tests/kernel/config-fragment.cloud-amd64-rust: the tree's two Rust
# samples added as modules, Debian's configuration building none), built
# in a Debian 13 (trixie) root as Debian builds it: GCC 14, rustc 1.85,
# bindgen 0.71, trixie's pahole 1.30 configuring the tree (which gives it
# --lang_exclude=rust), make CC="cc-btf gcc". First the test
# configuration with Rust (config-fragment.rust: the same two samples, a
# quick build), then the cloud kernel (about 1,000 modules, the tier's
# longest build): vmlinux's BTF and every module's split BTF compared
# by meaning with what pahole 1.30 and the tree's resolve_btfids make of
# the same images, beyond the kinds docs/design.md explains
# (tests/kernel/e2e-classify); a second judge, Debian sid's pahole 1.32,
# compares the BTF btf-link makes of the same images with the flags the
# tree gives 1.32 (nested arrays); each kernel boots under qemu, its Rust
# samples loaded with their BTF. pahole 1.30 differs from btf-link on
# vmlinux by kinds of its own, each accepted with its witness (GCC clones
# and names at several addresses given a FUNC, the syscalls' weak stubs'
# prototypes: docs/design.md; docs/kbuild.md, "Rust", counts them).
#
# tests/release-root.sh makes the root (as tests/kernel-debian13.bats
# does, in ${ABTF_KERNEL_DIR:-tests/.work}/root-trixie) and runs
# tests/install-deps.sh there, which installs what a Rust kernel needs on
# Debian 13 (rust-src, bindgen, libclang), and unpacks pahole 1.32 into
# tests/.work/pahole-sid, in the checkout. The tools and both kernels are
# built in ${ABTF_KERNEL_DIR:-tests/.work}/debian13-rust, once: a later
# run with the same tools compares again without rebuilding. make
# check-lab runs it. Skipped (failed with ABTF_STRICT=1) where
# debootstrap, unshare or root rights are missing, or the host is not
# x86-64.

load test_helper

bats_require_minimum_version 1.5.0

# The steps build on each other: never run two tests of this file at once.
BATS_NO_PARALLELIZE_WITHIN_FILE=true

D13R=${ABTF_KERNEL_DIR:-$ABTF_TOP/tests/.work}/debian13-rust

# in_root CMD...: run CMD in the trixie root, in the checkout, its output
# in $D13R/LOG (the test's name for it, $LOG); show its end if it fails.
in_root() {
	local status=0
	mkdir -p "$D13R"
	"$ABTF_TOP/tests/release-root.sh" trixie "$@" > "$D13R/$LOG" 2>&1 || status=$?
	case $status in
	0) ;;
	77) unavailable "$(grep -m1 'unavailable:' "$D13R/$LOG")" ;;
	*) tail -n 60 "$D13R/$LOG" | cut -c1-300
	   echo "in the trixie root: $* failed ($status); all of it in $D13R/$LOG"
	   return 1 ;;
	esac
}

# e2e_root CONFIG PHASE...: tests/kernel/e2e.sh's PHASEs of 7.3 with
# ABTF_E2E_CONFIG=CONFIG in the root, the tools of $D13R/build, pahole
# 1.32 the judge, the cache in $D13R/e2e-7.3-CONFIG; the output in
# $D13R/CONFIG.log.
e2e_root() {
	local config=$1
	shift
	LOG=$config.log in_root env ABTF_KERNEL_DIR="$D13R" ABTF_BUILD="$D13R/build" \
		ABTF_E2E_KERNEL=7.3 ABTF_E2E_CONFIG="$config" \
		ABTF_E2E_JUDGE="$ABTF_TOP/tests/.work/pahole-sid/bin/pahole" \
		tests/kernel/e2e.sh "$@"
}

# rust_module DIR NAME: the module samples/rust/NAME.ko of the build DIR
# is built, and of Rust: an object its .mod lists was compiled by rustc.
rust_module() {
	local o n=0
	grep -qx "samples/rust/$2.o" "$1/modules.order"
	for o in $(cat "$1/samples/rust/$2.mod"); do
		head -n 1 "$1/$(dirname "$o")/.$(basename "$o").cmd" | grep -q ' rustc ' &&
			n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}

# samples_loaded LOG: the guest loaded both Rust samples, which ran.
samples_loaded() {
	grep -q 'Rust minimal sample (init)' "$1"
	grep -q 'Rust printing macros sample (init)' "$1"
}

setup() {
	need_arch x86_64 "the trixie root is x86-64's"
	need_cmd debootstrap unshare chroot
	[ "$(id -u)" -eq 0 ] || unavailable "not root: debootstrap and chroot need root"
}

@test "Rust on Debian 13: tests/install-deps.sh installs what make rustavailable asks; make builds the tools" {
	LOG=install-deps.log in_root tests/install-deps.sh
	LOG=rust.log in_root bash -c 'rustc --version && bindgen --version && ls "$(rustc --print sysroot)/lib/rustlib/src/rust/library/core"'
	grep -q '^rustc 1\.' "$D13R/rust.log"
	grep -q '^bindgen ' "$D13R/rust.log"
	LOG=make.log in_root make -C "$ABTF_TOP" O="$D13R/build"
	[ "$("$ABTF_TOP/tests/.work/pahole-sid/bin/pahole" --version)" = v1.32 ]
}

@test "Rust on Debian 13, the test configuration: built with cc-btf, its Rust modules' BTF equal pahole 1.30's and 1.32's, booted with them" {
	local dir=$D13R/e2e-7.3-rust
	e2e_root rust tools source config cc-btf check compare judge boot
	grep -qx 'CONFIG_RUST=y' "$dir/cc-btf/.config"
	rust_module "$dir/cc-btf" rust_minimal
	rust_module "$dir/cc-btf" rust_print
	samples_loaded "$dir/results/boot.log"
}

@test "Rust on Debian 13, cloud-amd64: Debian's configuration, make CC=\"cc-btf gcc\" builds the kernel, its Rust and its 1,000 modules" {
	local dir=$D13R/e2e-7.3-cloud-amd64-rust n
	e2e_root cloud-amd64-rust tools source config cc-btf
	grep -qx 'CONFIG_RUST=y' "$dir/cc-btf/.config"
	n=$(wc -l < "$dir/cc-btf/modules.order")
	[ "$n" -ge 1000 ] || { echo "only $n modules built"; return 1; }
	rust_module "$dir/cc-btf" rust_minimal
	rust_module "$dir/cc-btf" rust_print
}

@test "Rust on Debian 13, cloud-amd64: every object has BTF; vmlinux carries the final BTF only, each module its own" {
	e2e_root cloud-amd64-rust check
}

@test "Rust on Debian 13, cloud-amd64: vmlinux's and every module's BTF equal pahole 1.30's through resolve_btfids, but for witnessed differences" {
	e2e_root cloud-amd64-rust compare
}

@test "Rust on Debian 13, cloud-amd64: a second judge, pahole 1.32: btf-link with the tree's flags for 1.32 equals it on vmlinux and every module, but for witnessed differences" {
	e2e_root cloud-amd64-rust judge
}

@test "Rust on Debian 13, cloud-amd64: the kernel boots under qemu with its BTF and loads its Rust samples and a sample of modules with theirs" {
	e2e_root cloud-amd64-rust boot
	samples_loaded "$D13R/e2e-7.3-cloud-amd64-rust/results/boot.log"
}
