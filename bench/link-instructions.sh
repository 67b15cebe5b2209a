#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark: the instructions the post-link step executes, btf-link -j1 on
# a 6.12 build's BTF image against pahole -J on its vmlinux, counted by
# valgrind's callgrind (user space, all threads): steady where CPU times
# on a busy machine are not, and the same for a cross-compiled image.
#
# Usage: bench/link-instructions.sh BUILD...
#
#   BUILD   a Linux 6.12 build directory made with CC="cc-btf ..." and the
#           v6.12 series (tests/kernel/e2e.sh's cc-btf/ of any target):
#           btf-link reads its .tmp_vmlinux1 (the archive, no DWARF),
#           pahole its vmlinux (the DWARF), as each runs in kbuild.
#
# One line per BUILD: the target's machine, the archive's members,
# btf-link's and pahole's instructions and their ratio. pahole runs with
# the flags 6.12 gives pahole 1.24 less -j ("--btf_gen_floats
# --lang_exclude=rust"), btf-link with its defaults (the same BTF).
# Environment: BTF_LINK (default: build/bin/btf-link, or
# $ABTF_BUILD/bin/btf-link), PAHOLE (default: pahole).
#
# This is a benchmark, not a test: it never fails on a slow result.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
BTF_LINK=${BTF_LINK:-${ABTF_BUILD:-$TOP/build}/bin/btf-link}
PAHOLE=${PAHOLE:-pahole}

die() { echo "link-instructions.sh: error: $*" >&2; exit 1; }
# shellcheck source=bench/callgrind.sh
. "$HERE/callgrind.sh"

[ $# -ge 1 ] || { sed -n '9,14s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2; exit 2; }
need_callgrind "$BTF_LINK" "$PAHOLE"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/abtf-linstr.XXXXXX")
trap 'rm -rf "$TMP"' EXIT


for b in "$@"; do
	if ! [ -f "$b/.tmp_vmlinux1" ] || ! [ -f "$b/vmlinux" ]; then
		die "$b: no .tmp_vmlinux1 and vmlinux (a 6.12 build with cc-btf?)"
	fi
	machine=$(readelf -h "$b/vmlinux" | sed -n 's/^ *Machine: *//p')
	members=$("$BTF_LINK" -v -o "$TMP/v.btf" "$b/.tmp_vmlinux1" 2>&1 |
		  grep -o '[0-9]* members' | head -n 1)
	l=$(instructions "$BTF_LINK" -j1 -o "$TMP/l.btf" "$b/.tmp_vmlinux1")
	# pahole writes its output into the ELF file unless detached: a copy
	cp "$b/vmlinux" "$TMP/vmlinux"
	p=$(instructions "$PAHOLE" -J --btf_gen_floats --lang_exclude=rust \
		--btf_encode_detached="$TMP/p.btf" "$TMP/vmlinux")
	rm -f "$TMP/vmlinux"
	awk -v m="$machine" -v n="$members" -v l="$l" -v p="$p" 'BEGIN {
		printf "%s (%s): btf-link %.2f G, pahole %.2f G, %.2f\n",
			m, n, l / 1e9, p / 1e9, p ? l / p : 0 }'
done
