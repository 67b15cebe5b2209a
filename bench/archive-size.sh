#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark: what a BTF archive holds, and what it would take compressed
# or shared (issue 9).
#
#   bench/archive-size.sh [-m] [-l] FILE...
#
# FILE is either objects encoded by cc-btf (each one's .BTF is one member),
# or one linked file whose .BTF is an archive (vmlinux.o, .tmp_vmlinux.btf,
# a module). Reports, in total (and with -m per member): the members'
# header, type and string bytes, the share of the strings, how many of the
# strings and types repeat across members (bench/archive-size.py says
# how), the .debug_btf_addr bytes, the DWARF beside it (.debug_info,
# .debug_str, .debug_abbrev, .debug_line), the files' growth (the bytes of
# .BTF, .debug_btf_addr and its relocations against the rest of the file)
# and what gzip -1, zstd -1 and xz make of the .BTF. With -l, also links
# the archive with btf-link -v (objects are joined with `ld -r` first):
# types in, after its exact-merge pass and out, and the final BTF's size.
#
# Only readelf, objcopy, ld, python3 and the compressors; nothing is
# written next to FILE.
#
# Environment: ABTF_BUILD  the build whose btf-link -l runs (default: build)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${ABTF_BUILD:-$top/build}
die() { echo "archive-size.sh: error: $*" >&2; exit 1; }

opt_m='' opt_l=''
while getopts ml o; do
	case $o in
	m) opt_m=-m ;;
	l) opt_l=1 ;;
	*) die "usage: bench/archive-size.sh [-m] [-l] FILE..." ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || die "usage: bench/archive-size.sh [-m] [-l] FILE..."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# section_size FILE NAME: the size in FILE of section NAME, 0 if none
section_size() {
	local hex
	hex=$(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' |
		awk -v n="$2" '$1 == n { s = $5 } END { print s }')
	echo $((16#${hex:-0}))
}

# machine FILE: its ELF class and machine, as readelf says them
machine() {
	readelf -hW "$1" | awk -F: '$1 ~ /Class|Machine/ { gsub(/^ +/, "", $2); printf "%s ", $2 }'
}

i=0
for f in "$@"; do
	[ -f "$f" ] || die "$f: no such file"
	[ "$(section_size "$f" .BTF)" -gt 0 ] || die "$f: no .BTF section"
	i=$((i + 1))
	objcopy --dump-section .BTF="$tmp/$i.btf" "$f" "$tmp/discard" ||
		die "$f: objcopy --dump-section failed"
	printf '%s\t%s' "$f" "$tmp/$i.btf"
	printf '\t%s' "$(stat -c %s "$f")" \
		"$(($(section_size "$f" .rela.debug_btf_addr) + \
		    $(section_size "$f" .rel.debug_btf_addr)))"
	for s in .debug_btf_addr .debug_info .debug_str .debug_abbrev .debug_line; do
		printf '\t%s' "$(section_size "$f" "$s")"
	done
	printf '\n'
done >"$tmp/manifest"
rm -f "$tmp/discard"
python3 "$top/bench/archive-size.py" $opt_m "$tmp/manifest"

[ -n "$opt_l" ] || exit 0
img=$1
if [ $# -gt 1 ]; then
	# Only the objects of the first one's machine (not the 16- and
	# 32-bit real-mode code of an x86-64 kernel). Objects of several
	# modules define the same init_module etc.
	m0=$(machine "$1")
	for f in "$@"; do
		if [ "$(machine "$f")" = "$m0" ]; then
			printf '%s\n' "$f"
		else
			echo "archive-size.sh: -l: $f left out: not $m0" >&2
		fi
	done >"$tmp/same"
	mapfile -t same <"$tmp/same"
	ld -r --allow-multiple-definition -o "$tmp/joined.o" "${same[@]}" \
		2>"$tmp/ld.err" ||
		{ cat "$tmp/ld.err" >&2; die "ld -r failed"; }
	img=$tmp/joined.o
fi
"$build/bin/btf-link" -v -o "$tmp/final.btf" "$img" 2>&1 | sed 's/^/  /'
echo "final BTF:             $(stat -c %s "$tmp/final.btf")"
