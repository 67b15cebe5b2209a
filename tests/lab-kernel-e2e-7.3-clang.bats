#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# Linux 7.3 with clang: Debian's linux-source-7.3 with kbuild-patches/v7.3,
# configured with tests/kernel/config-fragment, built with make LLVM=-19
# CC="cc-btf clang-19" (7.3 needs LLVM 17 or later: Debian 12's clang-19,
# ld.lld-19, llvm-objcopy-19, ...), every object compiled from C with
# debug information carrying BTF, clang's type and declaration tags
# included; vmlinux and module BTF compared by meaning with what pahole and
# the tree's resolve_btfids make of the same images, booted under qemu
# with its BTF and the modules' accepted, an external module given its
# distilled base. The work is tests/kernel/e2e.sh's (ABTF_E2E_KERNEL=7.3
# ABTF_E2E_CC=clang), cached in ${ABTF_KERNEL_DIR:-tests/.work}/e2e-7.3-clang.
# The lab tier (make check-lab): CI builds 7.3 with gcc.
#
# Skipped only when e2e.sh says a prerequisite cannot be installed or the
# host is not x86-64 (its exit status 77).

load test_helper
E2E_KERNEL=7.3
E2E_CC=clang
load lib/e2e

bats_require_minimum_version 1.5.0

# The phases build on each other: never run two tests of this file at once.
BATS_NO_PARALLELIZE_WITHIN_FILE=true

@test "kernel e2e 7.3 clang: make LLVM=-19 CC=\"cc-btf clang-19\" builds the kernel and its modules with btf-link" {
	e2e tools source config cc-btf
}

@test "kernel e2e 7.3 clang: every object has BTF; vmlinux carries the final BTF only, each module its own and its archive" {
	e2e check
}

@test "kernel e2e 7.3 clang: vmlinux's BTF is btf-link's through resolve_btfids, and it and the modules' equal pahole's through it, tags included, but for witnessed differences" {
	e2e compare
}

@test "kernel e2e 7.3 clang: the kernel boots under qemu and accepts its BTF and the modules' BTF" {
	e2e boot
}

@test "kernel e2e 7.3 clang: an external module (make M=) gets its distilled base from resolve_btfids, and loads" {
	e2e extmod
}
