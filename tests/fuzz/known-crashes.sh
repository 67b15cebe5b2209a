#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# known-crashes.sh BINDIR OUTDIR: recreate the inputs with which the fuzz
# harnesses found a crash (docs/reliability.md, "Fuzzing"), from
# tests/fixtures at the time of use: a fixture compiled with gcc -g -O2,
# encoded by BINDIR/cc-btf, its .BTF dumped and changed by patch.py
# where the case needs it. Each input is written as OUTDIR/CASE.TARGET and
# crashes BUILD/fuzz/fuzz-TARGET (make fuzz-build) until its bug is fixed:
#
#   build-fuzz/fuzz/fuzz-TARGET OUTDIR/CASE.TARGET
#
# and a link-raw input crashes the tools too, in an ASan build:
#
#   build-san/bin/btf-link -f -o out.btf OUTDIR/CASE.link-raw
#
# The cases (CASE: what the input is; where it crashes):
#
#   raw-datasec-uaf: a cc-btf object's .BTF with a DATASEC (percpu-local.c),
#     linked as a raw file; heap-use-after-free in out_sec_get() (now
#     final_dsec_get(), merge.c) or abtf__strtab_add() from
#     append_datasec(): for a raw input the DATASEC names were kept as
#     pointers into the member's buffer, which merge_leaf() (now in
#     merge_tree.c) frees before finish_node().
#   fwd-type: forward-decls.c's .BTF with the FWD "opaque_s" given a type
#     (size_type field) 0x400000; SEGV in libbpf's btf__dedup() called from
#     dedup() (merge.c): a FWD with a non-zero type passes validation.
#   nobits-debug-info: an object whose .debug_info is SHT_NOBITS (its
#     relocations kept); SEGV (NULL + r_offset) in apply_one()
#     (dwarf_reloc.c): relocations are applied to a section without data.
#   huge-addralign: an object whose .rela.eh_frame has sh_addralign 2^35;
#     abtf_encoder__write_object() (elf_write.c, elf_update()) writes an
#     output of about 32 GiB (a timeout, or "file size exceeded" under
#     ulimit -f): the input's alignment is kept without a bound. Run it
#     with ulimit -f!
#   no-attributes: an object whose .debug_abbrev is one abbreviation, the
#     unit DIE's, without attributes; UBSan "applying zero offset to null
#     pointer" in read_attrs() (dwarf_read.c): the table's attribute array
#     is NULL when no abbreviation has an attribute.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 BINDIR OUTDIR" >&2; exit 2; }
BIN=$(cd "$1" && pwd)
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$HERE/../fixtures
mkdir -p "$OUT"
T=$(mktemp -d "${TMPDIR:-/tmp}/known-crashes.XXXXXX")
trap 'rm -rf "$T"' EXIT

# btf NAME: the .BTF of tests/fixtures/NAME.c through cc-btf, into $T/NAME.btf
btf() {
	obj "$1"
	"$BIN/cc-btf" --encode "$T/$1.o"
	objcopy --dump-section .BTF="$T/$1.btf" "$T/$1.o" /dev/null
}

# patch btf|shdr IN OUT ...: patch.py
patch() {
	python3 "$HERE/patch.py" "$@"
}

# obj NAME: tests/fixtures/NAME.c compiled, not encoded, into $T/NAME.o
obj() {
	gcc -g -O2 -c "$FIX/$1.c" -o "$T/$1.o"
}

btf percpu-local
cp "$T/percpu-local.btf" "$OUT/raw-datasec-uaf.link-raw"

btf forward-decls
patch btf "$T/forward-decls.btf" "$OUT/fwd-type.link-raw" FWD opaque_s type 0x400000

obj percpu-local
patch shdr "$T/percpu-local.o" "$OUT/nobits-debug-info.encode" \
	.debug_info type 8

obj bitfields
patch shdr "$T/bitfields.o" "$OUT/huge-addralign.encode" \
	.rela.eh_frame addralign 0x800000000

obj bitfields
patch abbrev "$T/bitfields.o" "$OUT/no-attributes.encode"
