#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# Split DWARF with BTF: Debian's linux-source-7.3 with kbuild-patches/v7.3,
# configured with tests/kernel/config-fragment and CONFIG_DEBUG_INFO_SPLIT=y
# (config-fragment.split), which lib/Kconfig.debug allows with
# DEBUG_INFO_BTF only when the compiler is cc-btf (patch 7), built with
# make CC="cc-btf gcc": each object's types are in a .dwo file beside it,
# where cc-btf reads them. vmlinux's and every module's BTF are byte for
# byte those of tests/kernel-e2e-7.3.bats's build, the same configuration
# without split DWARF; gdb reads struct sk_buff from the .dwo files as it
# reads it from that build's vmlinux; pahole finds no types in the split
# vmlinux, Kconfig drops BTF with split DWARF for gcc alone, and the tree
# refuses BTF_LINK=pahole; the kernel boots with its BTF and its modules'.
# The tree is configured with Debian sid's pahole 1.32, as
# kernel-e2e-7.3.bats's. The work is tests/kernel/e2e.sh's
# (ABTF_E2E_KERNEL=7.3 ABTF_E2E_CONFIG=split ABTF_E2E_PAHOLE), cached in
# ${ABTF_KERNEL_DIR:-tests/.work}/e2e-7.3-split-pahole132.
# One kernel build: the other is kernel-e2e-7.3.bats's (e2e-7.3-pahole132), which
# the first test makes if it is not there, or waits for while that file
# makes it (the cache's lock), and then finds up to date.
#
# Skipped only when e2e.sh says a prerequisite cannot be installed or the
# host is not x86-64 (its exit status 77).

load test_helper
E2E_KERNEL=7.3
E2E_CONFIG=split
load lib/e2e

bats_require_minimum_version 1.5.0

# The phases build on each other: never run two tests of this file at once.
BATS_NO_PARALLELIZE_WITHIN_FILE=true

setup() {
	# the configuration of kernel-e2e-7.3.bats, whose build is the one
	# without split DWARF
	need_pahole_sid
	E2E_PAHOLE=$PAHOLE_SID
}

@test "kernel e2e 7.3 split DWARF: the build without split DWARF to compare with is there (kernel-e2e-7.3.bats's)" {
	E2E_CONFIG= e2e tools source config cc-btf
}

@test "kernel e2e 7.3 split DWARF: Kconfig with cc-btf keeps BTF with DEBUG_INFO_SPLIT; make CC=\"cc-btf gcc\" builds the kernel and its modules" {
	e2e tools source config cc-btf
}

@test "kernel e2e 7.3 split DWARF: every object has BTF; vmlinux carries the final BTF only, each module its own and its archive" {
	e2e check
}

@test "kernel e2e 7.3 split DWARF: the BTF is byte for byte that without split DWARF; gdb reads sk_buff from the .dwo files; pahole cannot" {
	e2e split
	grep -q '^e2e: split: vmlinux and [1-9][0-9]* modules: the BTF of the build without split DWARF' e2e.out
}

@test "kernel e2e 7.3 split DWARF: the kernel boots under qemu and accepts its BTF and the modules' BTF" {
	e2e boot
}
