#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# A real kernel, end to end: Debian's linux-source-6.1 with
# kbuild-patches/v6.1, configured with tests/kernel/config-fragment,
# built once with pahole and once with CC="cc-btf gcc" BTF_LINK=btf-link,
# compared by meaning, booted under qemu, built again with another -j and
# BTF_ONLY=1, relinked and rebuilt after a touch. The work is
# tests/kernel/e2e.sh's; each test here runs one or more of its phases,
# in order, on the cache the earlier ones left
# (${ABTF_KERNEL_DIR:-tests/.work}/e2e). From scratch on 2 cores this file
# takes about 20 minutes (three kernel builds); cached, two.
#
# Skipped only when e2e.sh says a prerequisite cannot be installed or the
# host is not x86-64 (its exit status 77).

load test_helper

bats_require_minimum_version 1.5.0

# The phases build on each other: never run two tests of this file at once.
BATS_NO_PARALLELIZE_WITHIN_FILE=true

E2E_SH=$ABTF_TOP/tests/kernel/e2e.sh
PATCHES=$ABTF_TOP/kbuild-patches/v6.1
TARBALL=${ABTF_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}

# e2e PHASE...: run the phases with the tools of this build; skip on 77,
# show e2e.sh's report on failure.
e2e() {
	local status=0
	ABTF_BUILD=$ABTF_BUILD "$E2E_SH" "$@" > e2e.out 2>&1 || status=$?
	case $status in
	0) ;;
	77) skip "$(sed -n 's/^e2e: unavailable: //p' e2e.out | head -n 1)" ;;
	*) cut -c1-300 e2e.out | tail -n 60
	   echo "tests/kernel/e2e.sh $* failed ($status)"
	   return 1 ;;
	esac
	# what the phase measured, for the log of a verbose run
	grep -E '^e2e: (phase|relink|sizes|vmlinux|incremental|.*: (archive|vmlinux):)' \
		e2e.out | sed 's/^/# /' >&3 || true
}

# series: the patches, in order.
series() {
	sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$PATCHES/series"
}

@test "kernel e2e: the series applies with git apply --check to a pristine linux-source-6.1" {
	local p top files=()
	need_cmd git tar xz
	[ -f "$TARBALL" ] || skip "$TARBALL is not installed (apt-get install linux-source-6.1)"
	# only the files the series touches that the tarball has
	top=$(tar -tJf "$TARBALL" | head -n 1)
	top=${top%%/*}
	[ -n "$top" ]
	for p in $(series); do
		[ -f "$PATCHES/$p" ]
	done
	mapfile -t files < <(for p in $(series); do
		sed -n -e '/^new file mode/,/^+++ /d' \
			-e "s|^--- a/\\(.*\\)|$top/\\1|p" "$PATCHES/$p"
	done | sort -u)
	[ "${#files[@]}" -gt 0 ]
	mkdir tree
	tar -xJf "$TARBALL" -C tree --strip-components=1 "${files[@]}"
	for p in $(series); do
		GIT_CEILING_DIRECTORIES=$PWD git -C tree apply --check "$PATCHES/$p"
		GIT_CEILING_DIRECTORIES=$PWD git -C tree apply "$PATCHES/$p"
	done
	[ -f tree/scripts/btf-archive.lds ]
}

@test "kernel e2e: the patched tree builds as before with pahole (plain make)" {
	e2e tools source config pahole
}

@test "kernel e2e: make CC=\"cc-btf gcc\" BTF_LINK=btf-link builds the kernel and its modules" {
	e2e cc-btf
}

@test "kernel e2e: vmlinux and the modules carry the final BTF only, no archive" {
	e2e check
}

@test "kernel e2e: vmlinux and module BTF equal pahole's by meaning, but for docs/design.md's differences" {
	e2e compare
}

@test "kernel e2e: the kernel boots under qemu and accepts its BTF and the modules' BTF" {
	e2e boot
}

@test "kernel e2e: another make -j, btf-link -j 1 and BTF_ONLY=1 give the same .BTF bytes" {
	e2e repro
}

@test "kernel e2e: relinking gives the same BTF; resolve_btfids as with pahole" {
	e2e relink
}

@test "kernel e2e: touching one .c encodes that object only and relinks" {
	e2e incremental
}
