#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# A real kernel, end to end: Debian's linux-source-6.1 with
# kbuild-patches/v6.1, configured with tests/kernel/config-fragment
# without networking (config-fragment.nonet: the 6.12 clang kernel proves
# a networking kernel, the sample objects gcc's networking objects of this
# tree; CI's time goes to the s390x kernel instead), built with CC="cc-btf ccache gcc" and distcc as ccache's prefix (the
# launchers kernel developers use; every compile a cache miss that a
# distccd on 127.0.0.1 runs), compared by meaning with pahole on the
# build's own images, booted under qemu, rebuilt after a touch. The plain
# CC="cc-btf <compiler>" is the 6.12 files' (clang, arm64), and so is a
# relink (clang's). One kernel build: the plain build with pahole, the
# relink beside it, bindeb-pkg, the same build again from the cache
# alone, another -j and BTF_ONLY=1 are the lab tier's
# (tests/lab-kernel-*.bats, make check-lab), which CI's 2 cores cannot
# afford. The work is
# tests/kernel/e2e.sh's; each test here runs one or more of its phases, in
# order, on the cache the earlier ones left
# (${ABTF_KERNEL_DIR:-tests/.work}/e2e-nonet). From scratch on 2 cores this file
# takes about 20 minutes; cached, five.
#
# Skipped only when e2e.sh says a prerequisite cannot be installed or the
# host is not x86-64 (its exit status 77).

load test_helper
E2E_KERNEL=6.1
E2E_LAUNCHER=ccache-distcc
E2E_CONFIG=nonet
load lib/e2e

bats_require_minimum_version 1.5.0

# The phases build on each other: never run two tests of this file at once.
BATS_NO_PARALLELIZE_WITHIN_FILE=true

@test "kernel e2e: the series applies with git apply --check to a pristine linux-source-6.1" {
	series_applies
}

@test "kernel e2e: make CC=\"cc-btf ccache gcc\" (distcc as ccache's prefix) builds the kernel and its modules with btf-link" {
	e2e tools source config cc-btf
}

@test "kernel e2e: vmlinux carries the final BTF only; each module its split BTF, its archive kept aside" {
	e2e check
}

@test "kernel e2e: vmlinux and module BTF equal pahole's on the same images by meaning, but for docs/design.md's differences, each witnessed" {
	e2e compare
}

@test "kernel e2e: btf-link takes the features the tree gives pahole 1.21 to 1.31 (scripts/pahole-flags.sh --btf-link)" {
	e2e features
}

@test "kernel e2e: btf-link --explain explains every function name, and what it calls kept is the link's BTF" {
	e2e explain
}

@test "kernel e2e: the kernel boots under qemu and accepts its BTF and the modules' BTF" {
	e2e boot
}

@test "kernel e2e: touching one .c encodes that object only, relinks vmlinux, links the modules' BTF again without relinking them" {
	e2e incremental
}

@test "kernel e2e: a tree without CC_BTF_KBUILD (unpatched) refuses the wrapper, loudly" {
	e2e unpatched
}

@test "kernel e2e: through ccache and distcc: from an empty cache, every object from C compiled by distccd" {
	e2e launchers
}
