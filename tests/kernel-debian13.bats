#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# Debian 13 (trixie), the release users build 7.3 on: GCC 14 (DWARF 5 by
# default), binutils 2.44, elfutils 0.192, libbpf 1.5, pahole 1.30. On
# CI's Debian 12 machine, tests/release-root.sh makes a trixie root with
# debootstrap from apt's own mirror (cached in
# ${ABTF_KERNEL_DIR:-tests/.work}/root-trixie) and runs, inside it, with
# this checkout at the same path:
#
#   - the README's first step, tests/install-deps.sh, as a Debian 13 user
#     runs it (which also unpacks Debian 12's pahole 1.24, the quick
#     tier's judge, into tests/.work: tests/pahole-of.sh);
#   - make, with elfutils 0.192, whose libelf.a does not link statically
#     (it needs elfutils' internal libeu): the tools link dynamically and
#     the build says so;
#   - the quick tier's encoder, link and kernel-object tests, with GCC 14;
#   - Linux 7.3 end to end (tests/kernel-e2e-7.3.bats: the build, the
#     checks, both judges and the boot), built with make CC="cc-btf gcc"
#     by GCC 14 and binutils 2.44, its BTF compared with pahole 1.32's and
#     1.24's through the tree's resolve_btfids, booted under qemu.
#
# Everything the root builds goes to ${ABTF_KERNEL_DIR:-tests/.work}/debian13
# (the tools, the kernel sample, the 7.3 build), apart from this host's.
# Skipped (failed with ABTF_STRICT=1) where debootstrap, unshare or root
# rights are missing, or the host is not x86-64.

load test_helper

bats_require_minimum_version 1.5.0

# The steps build on each other: never run two tests of this file at once.
BATS_NO_PARALLELIZE_WITHIN_FILE=true

D13=${ABTF_KERNEL_DIR:-$ABTF_TOP/tests/.work}/debian13

# in_root CMD...: run CMD in the trixie root, in the checkout, its output
# in $D13/LOG (the test's name for it, $LOG); show its end if it fails.
in_root() {
	local status=0
	mkdir -p "$D13"
	"$ABTF_TOP/tests/release-root.sh" trixie "$@" > "$D13/$LOG" 2>&1 || status=$?
	case $status in
	0) ;;
	77) unavailable "$(grep -m1 'unavailable:' "$D13/$LOG")" ;;
	*) tail -n 60 "$D13/$LOG" | cut -c1-300
	   echo "in the trixie root: $* failed ($status); all of it in $D13/$LOG"
	   return 1 ;;
	esac
}

setup() {
	need_arch x86_64 "the trixie root is x86-64's"
	need_cmd debootstrap unshare chroot
	[ "$(id -u)" -eq 0 ] || unavailable "not root: debootstrap and chroot need root"
	WORK=$BATS_TEST_TMPDIR
	cd "$WORK" || return 1
}

@test "Debian 13: a trixie root from apt's mirror; tests/install-deps.sh installs everything there" {
	LOG=install-deps.log in_root tests/install-deps.sh
	LOG=release.log in_root bash -c '. /etc/os-release && echo "$VERSION_CODENAME $(gcc -dumpversion) $(pahole --version)"'
	read -r codename gccv pahole < "$D13/release.log"
	[ "$codename" = trixie ]
	[ "${gccv%%.*}" -ge 14 ]
	[ "$pahole" != v1.24 ]
	[ -f "$ABTF_TOP/tests/.work/pahole-bookworm/version" ]
	[ "$(cat "$ABTF_TOP/tests/.work/pahole-bookworm/version")" = v1.24 ]
}

@test "Debian 13: make builds the tools with GCC 14, dynamically where elfutils' archives do not link" {
	# (the link again, so that what it says is in this log)
	rm -f "$D13/build/bin/cc-btf" "$D13/build/bin/btf-link"
	LOG=make.log in_root make -C "$ABTF_TOP" O="$D13/build"
	LOG=ldd.log in_root ldd "$D13/build/bin/cc-btf"
	# a static link that failed is said, never silent
	if grep -q 'libdw\.so' "$D13/ldd.log"; then
		[ "$(grep -c 'NOTE .*do not link statically.*linked dynamically' "$D13/make.log")" -eq 2 ]
	fi
	LOG=version.log in_root "$D13/build/bin/cc-btf" --version
}

@test "Debian 13: the encoder, link and kernel-object tests pass with GCC 14" {
	LOG=quick.log in_root env ABTF_KERNEL_DIR="$D13/kernel" \
		make -C "$ABTF_TOP" O="$D13/build" check \
		TESTS="tests/encoder.bats tests/link.bats tests/kernel-objects.bats"
	grep -E '^(not )?ok ' "$D13/quick.log" | grep -v '^ok' && return 1
	[ "$(grep -c '^ok ' "$D13/quick.log")" -gt 50 ]
}

@test "Debian 13: Linux 7.3 built by GCC 14 with cc-btf: kernel-e2e-7.3.bats's build, checks, both judges and boot" {
	# (its features, explain, external module, relink and touch tests
	# are the host's: they test the tools, not the compiler)
	LOG=e2e-7.3.log in_root env ABTF_KERNEL_DIR="$D13" \
		make -C "$ABTF_TOP" O="$D13/build" check-kernel \
		TESTS=tests/kernel-e2e-7.3.bats \
		BATS_FLAGS="-f 'series applies|builds the kernel|every object has BTF|equal pahole 1.32|a second judge|boots under qemu'"
	grep -E '^(not )?ok ' "$D13/e2e-7.3.log" | grep -v '^ok' && return 1
	[ "$(grep -c '^ok ' "$D13/e2e-7.3.log")" -eq 6 ]
	# the tree was built by trixie's GCC 14
	grep -q '^CONFIG_GCC_VERSION=14' "$D13/e2e-7.3-pahole132/cc-btf/.config"
}
