# Shared by tests/kernel-e2e*.bats and tests/lab-kernel-e2e*.bats (load
# lib/e2e): run tests/kernel/e2e.sh's phases for the kernel the file
# names (E2E_KERNEL, set before loading this).
# shellcheck shell=bash

E2E_SH=$ABTF_TOP/tests/kernel/e2e.sh
PATCHES=$ABTF_TOP/kbuild-patches/v$E2E_KERNEL
TARBALL=${ABTF_KERNEL_TARBALL:-/usr/src/linux-source-$E2E_KERNEL.tar.xz}

# e2e PHASE...: run the phases with the tools of this build; skip on 77,
# show e2e.sh's report on failure.
e2e() {
	local status=0
	ABTF_E2E_KERNEL=$E2E_KERNEL ABTF_E2E_CC=${E2E_CC:-gcc} ABTF_E2E_ARCH=${E2E_ARCH:-x86_64} \
		ABTF_E2E_LAUNCHER=${E2E_LAUNCHER:-} ABTF_E2E_LTO=${E2E_LTO:-} \
		ABTF_E2E_CONFIG=${E2E_CONFIG:-} ABTF_E2E_PAHOLE=${E2E_PAHOLE:-} \
		ABTF_E2E_JUDGE=${E2E_JUDGE:-} \
		ABTF_BUILD=$ABTF_BUILD \
		"$E2E_SH" "$@" \
		> e2e.out 2>&1 || status=$?
	case $status in
	0) ;;
	77) unavailable "$(sed -n 's/^e2e: unavailable: //p' e2e.out | head -n 1)" ;;
	*) cut -c1-300 e2e.out | tail -n 60
	   echo "tests/kernel/e2e.sh $* failed ($status)"
	   return 1 ;;
	esac
	# what the phase measured, for the log of a verbose run
	grep -E '^e2e: (phase|relink|sizes|vmlinux|incremental|unpatched|extmod|split|.*: (archive|vmlinux):)' \
		e2e.out | sed 's/^/# /' >&3 || true
}

# series: the patches, in order.
series() {
	sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$PATCHES/series"
}

# series_applies: every patch of the series applies with git apply --check
# to the files it touches of a pristine tarball, in order.
series_applies() {
	local p top files=() tree=$BATS_TEST_TMPDIR/tree
	need_cmd git tar xz
	[ -f "$TARBALL" ] ||
		unavailable "$TARBALL is not installed (tests/install-deps.sh installs linux-source-$E2E_KERNEL)"
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
	# (in the test's own directory, never the checkout's)
	mkdir "$tree"
	tar -xJf "$TARBALL" -C "$tree" --strip-components=1 "${files[@]}"
	for p in $(series); do
		GIT_CEILING_DIRECTORIES=$BATS_TEST_TMPDIR git -C "$tree" apply --check "$PATCHES/$p"
		GIT_CEILING_DIRECTORIES=$BATS_TEST_TMPDIR git -C "$tree" apply "$PATCHES/$p"
	done
	[ -f "$tree/scripts/btf-archive.lds" ]
}
