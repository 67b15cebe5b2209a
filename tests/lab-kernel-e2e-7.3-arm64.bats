#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# Linux 7.3 cross-compiled for arm64: Debian's linux-source-7.3 with
# kbuild-patches/v7.3, configured with tests/kernel/config-fragment and
# config-fragment.arm64, built with make ARCH=arm64
# CROSS_COMPILE=aarch64-linux-gnu- CC="cc-btf aarch64-linux-gnu-gcc",
# every object compiled from C with debug information carrying BTF (none
# in the vDSO), vmlinux and module BTF compared by meaning with what pahole
# and the tree's resolve_btfids make of the same images, booted under
# qemu-system-aarch64 -M virt with its BTF and the modules' accepted. The
# work is tests/kernel/e2e.sh's (ABTF_E2E_KERNEL=7.3 ABTF_E2E_ARCH=arm64),
# cached in ${ABTF_KERNEL_DIR:-tests/.work}/e2e-7.3-arm64. The lab tier
# (make check-lab): CI builds 7.3 for x86-64.
#
# Skipped only when e2e.sh says a prerequisite cannot be installed or the
# host is not x86-64 (its exit status 77).

load test_helper
E2E_KERNEL=7.3
E2E_ARCH=arm64
load lib/e2e

bats_require_minimum_version 1.5.0

# The phases build on each other: never run two tests of this file at once.
BATS_NO_PARALLELIZE_WITHIN_FILE=true

@test "kernel e2e 7.3 arm64: make ARCH=arm64 CC=\"cc-btf aarch64-linux-gnu-gcc\" builds the kernel and its modules with btf-link" {
	e2e tools source config cc-btf
}

@test "kernel e2e 7.3 arm64: every object has BTF, the vDSO none; vmlinux carries the final BTF only, each module its own and its archive" {
	e2e check
}

@test "kernel e2e 7.3 arm64: vmlinux's BTF is btf-link's through resolve_btfids, and it and the modules' equal pahole's through it, but for witnessed differences" {
	e2e compare
}

@test "kernel e2e 7.3 arm64: the kernel boots under qemu-system-aarch64 and accepts its BTF and the modules' BTF" {
	e2e boot
}
