#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# A cross-compiled big-endian kernel end to end: Debian's linux-source-6.12
# with kbuild-patches/v6.12, configured with tests/kernel/config-fragment
# and config-fragment.s390x (no networking, two lib modules, the debug
# information compressed: CONFIG_DEBUG_INFO_COMPRESSED_ZLIB), built with
# make ARCH=s390 CROSS_COMPILE=s390x-linux-gnu- CC="cc-btf
# s390x-linux-gnu-gcc": every object of the kernel compiled from C with
# debug information carries BTF (in the target's byte order), the vDSO's
# and the boot decompressor's none; vmlinux and module BTF compared by
# meaning with pahole on the same images (pahole encodes big-endian
# images in their own order), booted under qemu-system-s390x -M
# s390-ccw-virtio with its BTF and the modules' accepted by the kernel's
# verifier. The work is tests/kernel/e2e.sh's (ABTF_E2E_ARCH=s390x),
# cached in ${ABTF_KERNEL_DIR:-tests/.work}/e2e-6.12-s390x. One kernel
# build (about 2 minutes on 2 cores: s390's tiny configuration is small).
#
# Skipped only when e2e.sh says a prerequisite cannot be installed or the
# host is not x86-64 (its exit status 77).

load test_helper
E2E_KERNEL=6.12
E2E_ARCH=s390x
load lib/e2e

bats_require_minimum_version 1.5.0

# The phases build on each other: never run two tests of this file at once.
BATS_NO_PARALLELIZE_WITHIN_FILE=true

@test "kernel e2e 6.12 s390x: make ARCH=s390 CC=\"cc-btf s390x-linux-gnu-gcc\" builds the kernel and its modules with btf-link" {
	e2e tools source config cc-btf
}

@test "kernel e2e 6.12 s390x: every object has BTF, the vDSO and the decompressor none; vmlinux carries the final BTF only, each module its own and its archive" {
	e2e check
}

@test "kernel e2e 6.12 s390x: vmlinux and module BTF equal pahole's on the same images by meaning, but for docs/design.md's differences, each witnessed" {
	e2e compare
}

@test "kernel e2e 6.12 s390x: the kernel boots under qemu-system-s390x and accepts its BTF and the modules' BTF" {
	e2e boot
}
