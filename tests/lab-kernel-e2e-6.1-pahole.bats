#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# The lab tier's half of the 6.1 end-to-end run (make check-lab): the
# patched linux-source-6.1 built as before with plain make and pahole, and
# the CC="cc-btf ccache gcc" build of tests/kernel-e2e.bats compared with
# that build's vmlinux and relinked beside it, packaged with bindeb-pkg,
# and built again from scratch with every object from ccache (the warm
# phase: about 5 minutes).
# More kernel builds than CI's 2 cores can afford; the cache is the same
# (${ABTF_KERNEL_DIR:-tests/.work}/e2e-nonet: CI's configuration, without
# networking), so after tests/kernel-e2e.bats
# this file takes about 17 minutes.
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

@test "kernel e2e 6.1 lab: the patched tree builds as before with pahole (plain make)" {
	e2e tools source config pahole
}

@test "kernel e2e 6.1 lab: the cc-btf build's vmlinux and module BTF equal the pahole build's by meaning, but for witnessed differences" {
	e2e cc-btf compare
}

@test "kernel e2e 6.1 lab: relinking both builds; the cc-btf build's BTF unchanged" {
	e2e relink
}

@test "kernel e2e 6.1 lab: make bindeb-pkg packages vmlinux and modules with their BTF; INSTALL_MOD_STRIP=1 keeps it" {
	e2e cc-btf package
}

@test "kernel e2e 6.1 lab: the ccache build again from scratch: every object from the cache, the same BTF" {
	e2e cc-btf check warm
}
