#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# A cross-compiled arm64 kernel end to end: Debian's linux-source-6.12 with
# kbuild-patches/v6.12, configured with tests/kernel/config-fragment and
# config-fragment.arm64 (no networking: the x86-64 kernels prove those
# types, and CI's time is short; two lib modules), built with make ARCH=arm64
# CROSS_COMPILE=aarch64-linux-gnu- CC="cc-btf aarch64-linux-gnu-gcc",
# every object compiled from C with debug information carrying BTF (none
# in the vDSO), vmlinux and module BTF compared by meaning with pahole on
# the same images, booted under qemu-system-aarch64 -M virt with its BTF
# and the modules' accepted. The work is tests/kernel/e2e.sh's
# (ABTF_E2E_ARCH=arm64), cached in ${ABTF_KERNEL_DIR:-tests/.work}/e2e-6.12-arm64.
# One kernel build; what the x86-64 files check of relinking, touching,
# packaging and launchers does not depend on the target and is not redone.
#
# Skipped only when e2e.sh says a prerequisite cannot be installed or the
# host is not x86-64 (its exit status 77).

load test_helper
E2E_KERNEL=6.12
E2E_ARCH=arm64
load lib/e2e

bats_require_minimum_version 1.5.0

# The phases build on each other: never run two tests of this file at once.
BATS_NO_PARALLELIZE_WITHIN_FILE=true

@test "kernel e2e 6.12 arm64: make ARCH=arm64 CC=\"cc-btf aarch64-linux-gnu-gcc\" builds the kernel and its modules with btf-link" {
	e2e tools source config cc-btf
}

@test "kernel e2e 6.12 arm64: every object has BTF, the vDSO none; vmlinux carries the final BTF only, each module its own and its archive" {
	e2e check
}

@test "kernel e2e 6.12 arm64: vmlinux and module BTF equal pahole's on the same images by meaning, but for docs/design.md's differences, each witnessed" {
	e2e compare
}

@test "kernel e2e 6.12 arm64: the kernel boots under qemu-system-aarch64 and accepts its BTF and the modules' BTF" {
	e2e boot
}
