#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# A clang kernel end to end: Debian's linux-source-6.12 with
# kbuild-patches/v6.12, configured with tests/kernel/config-fragment for
# clang, its networking without IPv6 and ethtool's netlink interface
# (config-fragment.ipv4, a seventh of the build, for CI's time), built with make LLVM=1 CC="cc-btf clang" (clang, ld.lld,
# llvm-objcopy, ...), every object compiled from C with debug information
# carrying BTF, vmlinux and module BTF compared by meaning with pahole on
# the same images (TYPE_TAG and DECL_TAG counts equal), explained by
# btf-link --explain, booted under qemu, relinked. What a touch rebuilds and
# what an unpatched tree does is kbuild's and cc-btf's, not the compiler's:
# tests/kernel-e2e.bats checks it on 6.1, and CI's time goes to the arm64
# and s390x kernels instead.
# The work is tests/kernel/e2e.sh's (ABTF_E2E_CC=clang), cached in
# ${ABTF_KERNEL_DIR:-tests/.work}/e2e-6.12-clang-ipv4. One kernel build: pahole
# runs on the cc-btf build's own images.
#
# Skipped only when e2e.sh says a prerequisite cannot be installed or the
# host is not x86-64 (its exit status 77).

load test_helper
E2E_KERNEL=6.12
E2E_CC=clang
E2E_CONFIG=ipv4
load lib/e2e

bats_require_minimum_version 1.5.0

# The phases build on each other: never run two tests of this file at once.
BATS_NO_PARALLELIZE_WITHIN_FILE=true

@test "kernel e2e 6.12 clang: the series applies with git apply --check to a pristine linux-source-6.12" {
	series_applies
}

@test "kernel e2e 6.12 clang: make LLVM=1 CC=\"cc-btf clang\" builds the kernel and its modules with btf-link" {
	e2e tools source config cc-btf
}

@test "kernel e2e 6.12 clang: every object has BTF; vmlinux carries the final BTF only, each module its own and its archive" {
	e2e check
}

@test "kernel e2e 6.12 clang: vmlinux and module BTF equal pahole's on the same images, tags included, but for witnessed differences" {
	e2e compare
}

@test "kernel e2e 6.12 clang: btf-link takes the features the tree gives pahole 1.21 to 1.31, the same list from 1.26" {
	e2e features
}

@test "kernel e2e 6.12 clang: btf-link --explain explains every function name, and what it calls kept is the link's BTF" {
	e2e explain
}

@test "kernel e2e 6.12 clang: the kernel boots under qemu and accepts its BTF and the modules' BTF" {
	e2e boot
}

@test "kernel e2e 6.12 clang: an external module (make M=) with a distilled base: .BTF.base, and the kernel loads it; without one, as pahole" {
	e2e extmod
}

@test "kernel e2e 6.12 clang: relinking gives the same BTF; resolve_btfids warns as with pahole's BTF" {
	e2e relink
}
