#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# Linux 7.3 as the tree builds it with current upstream pahole: Debian's
# linux-source-7.3 with kbuild-patches/v7.3, configured with
# tests/kernel/config-fragment and PAHOLE=$ABTF_LAB_PAHOLE (v1.31 or
# later, built from its sources: Debian 12 has 1.24), so that
# scripts/Makefile.btf asks for 7.3's feature list, layout included, and
# gives btf-link the same; built with make CC="cc-btf gcc". vmlinux's BTF
# (with its layout table) and each module's are compared by meaning with
# what that pahole, without -j, and the tree's resolve_btfids make of the
# same images, beyond the differences docs/design.md explains; the kernel
# boots with them, and an external module gets its distilled base. The
# work is tests/kernel/e2e.sh's (ABTF_E2E_KERNEL=7.3 ABTF_E2E_PAHOLE=...),
# cached in ${ABTF_KERNEL_DIR:-tests/.work}/e2e-7.3-upstream. Only make
# check-upstream runs it (tagged upstream); without that pahole it fails.

load test_helper
E2E_KERNEL=7.3
load lib/e2e

bats_require_minimum_version 1.5.0

# The phases build on each other: never run two tests of this file at once.
BATS_NO_PARALLELIZE_WITHIN_FILE=true

setup() {
	need_lab_pahole
	E2E_PAHOLE=$LAB_PAHOLE
}

# bats test_tags=upstream
@test "kernel e2e 7.3 upstream: configured with the lab's pahole, make CC=\"cc-btf gcc\" builds the kernel and its modules" {
	e2e tools source config cc-btf
}

# bats test_tags=upstream
@test "kernel e2e 7.3 upstream: vmlinux carries the final BTF, with its layout table; each module its own, none" {
	e2e check
	local dir=${ABTF_KERNEL_DIR:-$ABTF_TOP/tests/.work}/e2e-7.3-upstream
	python3 - "$dir/results/cc-btf.vmlinux.btf" <<-'EOF'
	import struct, sys
	d = open(sys.argv[1], 'rb').read()
	hdr_len, type_off, type_len, str_off, str_len, lay_off, lay_len = \
	    struct.unpack_from('<7I', d, 4)
	assert hdr_len == 32 and lay_len == 80, (hdr_len, lay_len)
	assert lay_off >= type_off + type_len and lay_off + lay_len <= str_off
	EOF
}

# bats test_tags=upstream
@test "kernel e2e 7.3 upstream: vmlinux's and the modules' BTF equal upstream pahole's through resolve_btfids, but for witnessed differences" {
	e2e compare
}

# bats test_tags=upstream
@test "kernel e2e 7.3 upstream: the kernel boots under qemu and accepts its BTF, layout table included, and the modules'" {
	e2e boot
}

# bats test_tags=upstream
@test "kernel e2e 7.3 upstream: an external module gets its distilled base from resolve_btfids, means what pahole's does, and loads" {
	e2e extmod
}
