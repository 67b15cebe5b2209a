#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# A ThinLTO kernel end to end: Debian's linux-source-6.12 with
# kbuild-patches/v6.12, configured with tests/kernel/config-fragment and
# config-fragment.lto (CONFIG_LTO_CLANG_THIN), built with make LLVM=1
# CC="cc-btf clang". The objects are LLVM bitcode, which cc-btf leaves
# alone (the tree sets CC_BTF_LTO); patch 5 encodes vmlinux.o and the
# modules' objects that ld.lld's LTO links write, and btf-link links them
# as in any build. Compared by meaning with pahole on the same images,
# booted under qemu. The work is tests/kernel/e2e.sh's
# (ABTF_E2E_CC=clang ABTF_E2E_LTO=thin), cached in
# ${ABTF_KERNEL_DIR:-tests/.work}/e2e-6.12-clang-lto. The lab tier (make
# check-lab): one more kernel build than CI's 2 cores have time for
# (about 25 minutes here).
#
# Skipped only when e2e.sh says a prerequisite cannot be installed or the
# host is not x86-64 (its exit status 77).

load test_helper
E2E_KERNEL=6.12
E2E_CC=clang
E2E_LTO=thin
load lib/e2e

bats_require_minimum_version 1.5.0

# The phases build on each other: never run two tests of this file at once.
BATS_NO_PARALLELIZE_WITHIN_FILE=true

@test "kernel e2e 6.12 ThinLTO: make LLVM=1 CC=\"cc-btf clang\" with CONFIG_LTO_CLANG_THIN builds the kernel and its modules with btf-link" {
	e2e tools source config cc-btf
}

@test "kernel e2e 6.12 ThinLTO: the objects are bitcode, vmlinux.o has BTF; vmlinux carries the final BTF only, each module its own and its archive" {
	e2e check
}

@test "kernel e2e 6.12 ThinLTO: vmlinux and module BTF equal pahole's on the same images, but for docs/design.md's differences, each witnessed" {
	e2e compare
}

@test "kernel e2e 6.12 ThinLTO: the kernel boots under qemu and accepts its BTF and the modules' BTF" {
	e2e boot
}
