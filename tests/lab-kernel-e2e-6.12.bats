#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# A real kernel, end to end: Debian's linux-source-6.12 with
# kbuild-patches/v6.12, configured with tests/kernel/config-fragment,
# built once with pahole and once with CC="cc-btf gcc" (nothing else),
# compared by meaning, booted under qemu, built again with another -j and
# BTF_ONLY=1, relinked and rebuilt after a touch. The work is
# tests/kernel/e2e.sh's; each test here runs one or more of its phases,
# in order, on the cache the earlier ones left
# (${ABTF_KERNEL_DIR:-tests/.work}/e2e-6.12). From scratch on 2 cores this file
# takes about 35 minutes (three kernel builds); cached, two. The lab tier
# (make check-lab): CI's 2 cores build 6.12 with clang only
# (tests/kernel-e2e-6.12-clang.bats).
#
# Skipped only when e2e.sh says a prerequisite cannot be installed or the
# host is not x86-64 (its exit status 77).

load test_helper
E2E_KERNEL=6.12
load lib/e2e

bats_require_minimum_version 1.5.0

# The phases build on each other: never run two tests of this file at once.
BATS_NO_PARALLELIZE_WITHIN_FILE=true

@test "kernel e2e 6.12: the series applies with git apply --check to a pristine linux-source-6.12" {
	series_applies
}

@test "kernel e2e 6.12: the patched tree builds as before with pahole (plain make)" {
	e2e tools source config pahole
}

@test "kernel e2e 6.12: make CC=\"cc-btf gcc\" alone builds the kernel and its modules with btf-link" {
	e2e cc-btf
}

@test "kernel e2e 6.12: vmlinux carries the final BTF only; each module its split BTF, its archive kept aside" {
	e2e check
}

@test "kernel e2e 6.12: vmlinux and module BTF equal pahole's by meaning, but for docs/design.md's differences, each witnessed" {
	e2e compare
}

@test "kernel e2e 6.12: btf-link takes the features the tree gives pahole 1.21 to 1.31, the same list from 1.26" {
	e2e features
}

@test "kernel e2e 6.12: the kernel boots under qemu and accepts its BTF and the modules' BTF" {
	e2e boot
}

@test "kernel e2e 6.12: an external module (make M=) with a distilled base: .BTF.base, and the kernel loads it; without one, as pahole" {
	e2e extmod
}

@test "kernel e2e 6.12: another make -j, BTF_LINK=\"btf-link -j 1\" and BTF_ONLY=1 give the same .BTF bytes" {
	e2e repro
}

@test "kernel e2e 6.12: relinking gives the same BTF; resolve_btfids warns as with pahole's BTF" {
	e2e relink
}

@test "kernel e2e 6.12: touching one .c encodes that object only, relinks vmlinux, links the modules' BTF again without relinking them" {
	e2e incremental
}

@test "kernel e2e 6.12: a tree without CC_BTF_KBUILD (unpatched) refuses the wrapper, loudly" {
	e2e unpatched
}
