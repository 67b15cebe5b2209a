#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# Today's kernel end to end: Debian's linux-source-7.3 (7.3.4, from
# trixie-backports, which tests/install-deps.sh reaches) with
# kbuild-patches/v7.3, configured with tests/kernel/config-fragment
# (networking, the veth and dummy modules), built with make CC="cc-btf gcc"
# and nothing else. 7.3 makes its BTF in scripts/gen-btf.sh: btf-link
# takes pahole's place there, and the tree's resolve_btfids --btf finishes
# btf-link's BTF as it finishes pahole's (kfunc tags, sorting vmlinux's
# types by name). The tree is configured with today's pahole, Debian sid's
# 1.32 (tests/install-deps.sh unpacks it into tests/.work/pahole-sid), so
# that it asks for 7.3's feature list with layout and 1.32's nested arrays.
# vmlinux's and each module's BTF are compared by meaning with what that
# pahole (without -j) and the same resolve_btfids make of the same images,
# vmlinux's is checked to be btf-link's through resolve_btfids, and the
# kernel boots under qemu with its BTF and its modules'. A second judge,
# Debian 12's pahole 1.24, compares the BTF btf-link makes of the same
# images with the flags the tree gives it for 1.24 (its features, flat
# arrays). An external module gets its distilled base from resolve_btfids;
# a touch relinks vmlinux and links the modules' BTF again without
# relinking them. The work is tests/kernel/e2e.sh's (ABTF_E2E_KERNEL=7.3,
# ABTF_E2E_PAHOLE, ABTF_E2E_JUDGE), cached in
# ${ABTF_KERNEL_DIR:-tests/.work}/e2e-7.3-pahole132. One kernel build:
# pahole runs on the cc-btf build's own images.
#
# Skipped only when e2e.sh says a prerequisite cannot be installed or the
# host is not x86-64 (its exit status 77).

load test_helper
E2E_KERNEL=7.3
load lib/e2e

bats_require_minimum_version 1.5.0

# The phases build on each other: never run two tests of this file at once.
BATS_NO_PARALLELIZE_WITHIN_FILE=true

setup() {
	need_pahole_sid
	E2E_PAHOLE=$PAHOLE_SID
	# the quick tier's pahole: Debian 12's 1.24 (tests/lib/tools.bash)
	E2E_JUDGE=$(command -v pahole)
	"$E2E_JUDGE" --version | grep -qx 'v1.24' ||
		unavailable "no pahole 1.24 in PATH for the second judge"
}

@test "kernel e2e 7.3: the series applies with git apply --check to a pristine linux-source-7.3" {
	series_applies
}

@test "kernel e2e 7.3: make CC=\"cc-btf gcc\" builds the kernel and its modules, btf-link in gen-btf.sh" {
	e2e tools source config cc-btf
}

@test "kernel e2e 7.3: every object has BTF; vmlinux carries the final BTF only, each module its own and its archive" {
	e2e check
}

@test "kernel e2e 7.3: vmlinux's BTF is btf-link's through resolve_btfids, and it and every module's equal pahole 1.32's through it, but for witnessed differences" {
	e2e compare
}

@test "kernel e2e 7.3: a second judge, pahole 1.24: btf-link with the tree's flags for 1.24 (flat arrays) equals it on vmlinux and every module, but for witnessed differences" {
	e2e judge
}

@test "kernel e2e 7.3: btf-link takes the features the tree gives pahole 1.22 to 1.31, the same lists from 1.26, layout from 1.31" {
	e2e features
}

@test "kernel e2e 7.3: btf-link --explain explains every function name, and what it calls kept is the link's BTF" {
	e2e explain
}

@test "kernel e2e 7.3: the kernel boots under qemu and accepts its BTF and the modules' BTF" {
	e2e boot
}

@test "kernel e2e 7.3: an external module (make M=) gets its distilled base from resolve_btfids, means what pahole's does, and loads" {
	e2e extmod
}

@test "kernel e2e 7.3: relinking gives the same BTF; resolve_btfids warns as with pahole's BTF" {
	e2e relink
}

@test "kernel e2e 7.3: a touch compiles and encodes one object, links vmlinux and the modules' BTF again, relinks no module" {
	e2e incremental
}
