#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make-corpus.sh BINDIR OUTDIR: the seed corpus of the fuzz harnesses of
# tests/fuzz/, made from tests/fixtures/*.c at the time of use (nothing
# binary is kept in the tree):
#
#   OUTDIR/encode/    each fixture compiled with gcc -g -O2 and clang -g -O2
#                     (objects with DWARF, not yet encoded)
#   OUTDIR/link-raw/  the .BTF of each of those objects encoded by
#                     BINDIR/cc-btf (one member), the same for s390x (big-
#                     endian, where Debian's s390x-linux-gnu-gcc is
#                     installed), and the .BTF archives below
#   OUTDIR/parse/     each link-raw seed of one member, and again with a
#                     32-byte header (8 zero bytes more, as upstream pahole
#                     writes it), in either byte order
#   OUTDIR/split/     a module on a base, as fuzz-split.c reads them: the
#                     base's length (4 bytes, little-endian), the base (the
#                     "vmlinux" below linked by btf-link -o) and a
#                     module (one encoded fixture's .BTF, or a pair's)
#   OUTDIR/archive/   archives: the fixtures' "vmlinux" of tests/link.bats
#                     (ld -T link.lds; again of compressed members, cc-btf
#                     --compress), ld -r of pairs of encoded fixtures,
#                     and the s390x "vmlinux" (big-endian) where Debian's
#                     s390x-linux-gnu-gcc is installed, as fuzz-archive.c
#                     reads them: 2 bytes of features
#                     (0: default; 0xffff: all), the .BTF, "=ADDR=" and the
#                     .debug_btf_addr groups
#
# A fixture a compiler cannot build, or cc-btf refuses, is left out. The
# seeds do not depend on where the tree is (compiled in tests/fixtures with
# its path mapped to /fixtures) nor on the locale, so that tests/fuzz.bats
# runs the same inputs on every machine with the same compilers.
set -euo pipefail
export LC_ALL=C

[ $# -eq 2 ] || { echo "usage: $0 BINDIR OUTDIR" >&2; exit 2; }
BIN=$(cd "$1" && pwd)
OUT=$2
TOP=$(cd "$(dirname "$0")/../.." && pwd)
FIX=$TOP/tests/fixtures

rm -rf "$OUT"
mkdir -p "$OUT"/{encode,link-raw,archive,parse,split,tmp/obj}
T=$OUT/tmp

# archive_seed OBJ NAME [OBJCOPY]: the archive seeds of a linked OBJ.
archive_seed() {
	local obj=$1 name=$2 objcopy=${3:-objcopy}
	"$objcopy" --dump-section .BTF="$T/btf" "$obj" /dev/null 2>/dev/null ||
		return 0
	cp "$T/btf" "$OUT/link-raw/archive-$name"
	: > "$T/addr"
	"$objcopy" --dump-section .debug_btf_addr="$T/addr" "$obj" /dev/null \
		2>/dev/null || :
	{ printf '\0\0'; cat "$T/btf"; printf '=ADDR='; cat "$T/addr"; } \
		> "$OUT/archive/$name"
	{ printf '\377\377'; cat "$T/btf"; printf '=ADDR='; cat "$T/addr"; } \
		> "$OUT/archive/$name-all"
}

# split_seeds VMLINUX NAME: a few modules on VMLINUX's final BTF (after
# the pairs' archives are made: those of NAME-pair* are modules too).
split_seeds() {
	local base=$T/base-$2 m n=0
	timeout 60 "$BIN/btf-link" -o "$base" "$1" 2>/dev/null || return 0
	for m in "$OUT/link-raw/$2-"{link-mod1,link-mod2,split-fwd-dup,split-fwd-local,funcs-opt,bitfields,percpu}; do
		[ -f "$m" ] || continue
		python3 -c 'import os, struct, sys
sys.stdout.buffer.write(struct.pack("<I", os.path.getsize(sys.argv[1])))' \
			"$base" > "$OUT/split/$2-$n"
		cat "$base" "$m" >> "$OUT/split/$2-$n"
		n=$((n + 1))
	done
}

for cc in gcc clang; do
	command -v "$cc" >/dev/null || continue
	encoded=()
	for src in "$FIX"/*.c; do
		n=$(basename "$src" .c)
		o=$T/obj/$cc-$n.o
		(cd "$FIX" && timeout 60 "$cc" -g -O2 -ffunction-sections \
			-fdata-sections -fdebug-prefix-map="$FIX=/fixtures" \
			-c "$n.c" -o "$o") 2>/dev/null || continue
		cp "$o" "$OUT/encode/$cc-$n.o"
		timeout 60 "$BIN/cc-btf" --encode "$o" 2>/dev/null || continue
		objcopy --dump-section .BTF="$OUT/link-raw/$cc-$n" "$o" \
			/dev/null 2>/dev/null || continue
		encoded+=("$o")
	done
	# the "vmlinux" of tests/link.bats
	if ld -T "$FIX/link.lds" -o "$T/prog-$cc" "$T/obj/$cc-link-"{main,a,gc,b}.o \
		2>/dev/null; then
		archive_seed "$T/prog-$cc" "$cc-vmlinux"
		split_seeds "$T/prog-$cc" "$cc"
	fi
	# pairs of consecutive fixtures, ld -r
	for ((i = 0; i + 1 < ${#encoded[@]}; i += 2)); do
		ld -r -o "$T/pair.o" "${encoded[i]}" "${encoded[i + 1]}" \
			2>/dev/null || continue
		archive_seed "$T/pair.o" "$cc-pair$i"
	done
	# the same "vmlinux" of compressed members (cc-btf --compress)
	for n in main a gc b; do
		cp "$OUT/encode/$cc-link-$n.o" "$T/obj/z-$n.o" 2>/dev/null &&
			timeout 60 "$BIN/cc-btf" --compress --encode \
				"$T/obj/z-$n.o" 2>/dev/null || continue 2
	done
	if ld -T "$FIX/link.lds" -o "$T/prog-z-$cc" "$T/obj/z-"{main,a,gc,b}.o \
		2>/dev/null; then
		archive_seed "$T/prog-z-$cc" "$cc-vmlinux-z"
	fi
done
# big-endian: the "vmlinux" and the fixtures' BTF for s390x
X=s390x-linux-gnu
if command -v $X-gcc >/dev/null; then
	for src in "$FIX"/*.c; do
		n=$(basename "$src" .c)
		o=$T/obj/s390x-$n.o
		(cd "$FIX" && timeout 60 "$BIN/cc-btf" $X-gcc -g -O2 \
			-ffunction-sections -fdata-sections \
			-fdebug-prefix-map="$FIX=/fixtures" -c "$n.c" -o "$o") \
			2>/dev/null || continue
		$X-objcopy --dump-section .BTF="$OUT/link-raw/s390x-$n" "$o" \
			/dev/null 2>/dev/null || :
	done
	if $X-ld -T "$FIX/link.lds" -o "$T/prog-s390x" \
		"$T/obj/s390x-link-"{main,a,gc,b}.o 2>/dev/null; then
		archive_seed "$T/prog-s390x" s390x-vmlinux $X-objcopy
	fi
fi
# hostile4 SEEDDIR: seeds of the mutations of issue 49, made by
# tests/crafted/craft.py from seeds above, so that the fuzzers start at
# them: a pointer DIE or a PTR that is its own type (a type cycle), a
# unit's address size, an R_X86_64_32 whose value does not fit, a
# relocation of .debug_info moved into its place (relocation offsets), a
# FUNC's undefined flags bit, BTF headers of version 0 and a layout table
# past the strings.
hostile4() {
	local c=$TOP/tests/crafted/craft.py e=$OUT/encode/gcc-percpu.o m
	if [ -f "$e" ]; then
		cp "$e" "$OUT/encode/h4-self-loop.o"
		python3 "$c" type-loop "$OUT/encode/h4-self-loop.o" self || :
		cp "$e" "$OUT/encode/h4-unit-addr.o"
		python3 "$c" unit-addr-size "$OUT/encode/h4-unit-addr.o" 4 || :
		cp "$e" "$OUT/encode/h4-overflow.o"
		python3 "$c" reloc-overflow "$OUT/encode/h4-overflow.o" || :
		cp "$e" "$OUT/encode/h4-reloc-off.o"
		python3 "$TOP/tests/fuzz/patch.py" reloc-offset \
			"$OUT/encode/h4-reloc-off.o" "$OUT/encode/h4-reloc-off.o" 3 || :
	fi
	e=$OUT/encode/clang-percpu.o
	if [ -f "$e" ]; then
		cp "$e" "$OUT/encode/h4-debug-addr.o"
		python3 "$c" debug-addr-size "$OUT/encode/h4-debug-addr.o" 4 || :
	fi
	for m in gcc-percpu archive-gcc-vmlinux; do
		for d in link-raw parse; do
			[ -f "$OUT/$d/$m" ] || continue
			cp "$OUT/$d/$m" "$OUT/$d/h4-loop-$m"
			python3 "$c" btf "$OUT/$d/h4-loop-$m" ptr-loop || :
		done
	done
	m=$OUT/link-raw/h4-loop-archive-gcc-vmlinux
	[ ! -f "$m" ] || { printf '\0\0'; cat "$m"; } > "$OUT/archive/h4-loop"
	m=$OUT/parse/gcc-percpu
	if [ -f "$m" ]; then
		cp "$m" "$OUT/parse/h4-version0"
		python3 "$c" btf-header "$OUT/parse/h4-version0" version0 || :
		cp "$m" "$OUT/parse/h4-layout-after"
		python3 "$c" btf-header "$OUT/parse/h4-layout-after" layout-after || :
	fi
	python3 "$TOP/tests/fuzz/patch.py" flags "$OUT/archive/gcc-vmlinux-all" \
		"$OUT/archive/h4-flags" 0x80 || :
} 2>/dev/null

# parse: one member's BTF, with its header and with a 32-byte one
for f in "$OUT"/link-raw/{gcc,clang,s390x}-*; do
	[ -f "$f" ] || continue
	cp "$f" "$OUT/parse/${f##*/}"
	python3 - "$f" "$OUT/parse/long-${f##*/}" <<'PY' || :
import struct, sys
b = open(sys.argv[1], 'rb').read()
order = '<' if b[:2] == b'\x9f\xeb' else '>'
hdr_len, = struct.unpack_from(order + 'I', b, 4)
if hdr_len == 24 and len(b) >= 24:
    out = bytearray(b[:24]) + bytes(8) + b[24:]
    struct.pack_into(order + 'I', out, 4, 32)
    open(sys.argv[2], 'wb').write(out)
PY
done
hostile4
rm -rf "$T"
for d in encode link-raw archive parse split; do
	[ -n "$(ls -A "$OUT/$d")" ] || { echo "$0: no seeds for $d" >&2; exit 1; }
done
