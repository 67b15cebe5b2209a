#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# A distribution's kernel, whole: Debian's linux-source-7.3 with
# kbuild-patches/v7.3, configured from Debian's own cloud-amd64
# configuration (linux-config-7.3: 1,916 options built in, 1,012 modules;
# tests/kernel/config-fragment.cloud-amd64 says what olddefconfig and this
# toolchain change) with PAHOLE=$ABTF_LAB_PAHOLE (upstream, v1.31 or
# later), so that the tree asks btf-link for 7.3's feature list; built
# with make CC="cc-btf gcc": vmlinux and every module. vmlinux's BTF and
# every module's split BTF are compared by meaning with what that pahole
# and the tree's resolve_btfids make of the same images, beyond the kinds
# docs/design.md explains (tests/kernel/e2e-classify), and the kernel
# boots under qemu with its BTF and loads a sample of modules of several
# subsystems with theirs. The work is tests/kernel/e2e.sh's
# (ABTF_E2E_CONFIG=cloud-amd64), cached in
# ${ABTF_KERNEL_DIR:-tests/.work}/e2e-7.3-cloud-amd64-paholeNNN (NNN: that
# pahole's version, 131 for v1.31): the build
# (about an hour on 2 cores) is made once, and a later run with the same
# tools compares again without rebuilding. make check-lab runs it; it
# needs ABTF_LAB_PAHOLE, and fails saying so without it.

load test_helper
E2E_KERNEL=7.3
E2E_CONFIG=cloud-amd64
load lib/e2e

bats_require_minimum_version 1.5.0

# The phases build on each other: never run two tests of this file at once.
BATS_NO_PARALLELIZE_WITHIN_FILE=true

setup() {
	need_lab_pahole
	E2E_PAHOLE=$LAB_PAHOLE
}

@test "kernel e2e 7.3 cloud-amd64: Debian's configuration, make CC=\"cc-btf gcc\" builds the kernel and its 1,012 modules" {
	e2e tools source config cc-btf
	local dir=${ABTF_KERNEL_DIR:-$ABTF_TOP/tests/.work}/e2e-7.3-cloud-amd64-pahole$("$LAB_PAHOLE" --version | tr -dc 0-9)
	local n
	n=$(wc -l < "$dir/cc-btf/modules.order")
	[ "$n" -ge 1000 ] || { echo "only $n modules built"; return 1; }
}

@test "kernel e2e 7.3 cloud-amd64: every object has BTF; vmlinux carries the final BTF only, each module its own" {
	e2e check
}

@test "kernel e2e 7.3 cloud-amd64: vmlinux's and every module's BTF equal upstream pahole's through resolve_btfids, but for witnessed differences" {
	e2e compare
}

@test "kernel e2e 7.3 cloud-amd64: the kernel boots under qemu with its BTF and loads a sample of modules with theirs" {
	e2e boot
}
