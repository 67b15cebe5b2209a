#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# The encoder's relocation of the DWARF it reads (libarchive-btf/encode/
# dwarf_reloc.c over elf/elf_reloc.c's table of each machine's types): an
# object of each machine the table knows (x86-64, i386, arm64, arm,
# riscv64 and riscv32 with their ADD/SUB pairs, s390x and powerpc64 big-
# endian, powerpc64le, powerpc), from clang's --target and from the Debian
# cross gcc where installed, with thread-local variables (each machine's
# TLS relocation), compressed debug sections (SHF_COMPRESSED and GNU's
# .zdebug_), an executable. tests/fixtures/reloc-tls.c is each object;
# tests/unit/dwarf-addr.c (compiled here with the sources it tests, under
# ASan and UBSan where gcc has them) checks that its per-CPU variable's
# address maps back to its section. cc-btf's BTF must be pahole's. A
# relocation type or machine the table does not know is an error naming
# the object, the relocation section and the type, the object untouched.

load test_helper

bats_require_minimum_version 1.5.0

FIXTURE=reloc-tls

# shellcheck disable=SC2034
NEED_TOOLS="gcc pahole bpftool readelf pkg-config timeout cc-btf btf-link"

# dwarf_addr OBJ...: tests/unit/dwarf-addr.c, built once per test, opens
# each OBJ's DWARF silently and maps its per-CPU variable to its section.
dwarf_addr() {
	[ -x dwarf-addr ] ||
		unit_prog dwarf-addr encode/enc_obj.c encode/enc_dwarf.c \
			encode/dwarf_reloc.c encode/dwarf_read.c elf/elf_read.c \
			elf/elf_reloc.c util/util.c util/hashmap.c
	run timeout 60 ./dwarf-addr "$@"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

# as_pahole OBJ: cc-btf's BTF of OBJ (OBJ.btf) is pahole's (ref-OBJ.btf),
# and has the fixture's per-CPU VAR, in its DATASEC, and FUNCs.
as_pahole() {
	local obj=$1
	cp "$obj" "ref-$obj"
	pahole -J --btf_gen_floats --lang_exclude=rust \
		--btf_encode_detached="ref-$obj.btf" "ref-$obj"
	"$CC_BTF" --encode -o "$obj.btf" "$obj"
	same_btf "ref-$obj.btf" "$obj.btf"
	bpftool btf dump file "$obj.btf" > "$obj.dump"
	grep -q "^\[[0-9]*\] VAR 'pcpu_counter' type_id=[0-9]*, linkage=global\$" \
		"$obj.dump"
	grep -q "(VAR 'pcpu_counter')\$" "$obj.dump"
	grep -q "^\[[0-9]*\] FUNC 'dwfl_bump' " "$obj.dump"
}

# has_reloc OBJ SECTION TYPE: OBJ's SECTION has a relocation of TYPE, so
# that the test holds what it says it does.
has_reloc() {
	readelf -rW "$1" | awk -v s="'$2'" '/^Relocation section/ { cur = $3 }
		cur == s && $3 ~ /^R_/ { print $3 }' | grep -qx "$3" || {
		echo "$1: no $3 relocation in $2"
		return 1
	}
}

@test "encoder-reloc: x86-64 with thread-local variables (DTPOFF): pahole's BTF, the same as without" {
	need_tools
	gcc -g -O2 -c "$FIXTURES/$FIXTURE.c" -o tls.o
	gcc -g -O2 -DDWFL_NO_TLS -c "$FIXTURES/$FIXTURE.c" -o plain.o
	has_reloc tls.o .rela.debug_info R_X86_64_DTPOFF32
	dwarf_addr tls.o plain.o
	as_pahole tls.o
	as_pahole plain.o
	cmp tls.o.btf plain.o.btf
}

@test "encoder-reloc: clang's DWARF 5 (DW_OP_addrx, .debug_addr) with a thread-local variable" {
	need_tools
	need_cmd clang
	clang -g -O2 -c "$FIXTURES/$FIXTURE.c" -o tls.o
	clang -g -O2 -DDWFL_NO_TLS -c "$FIXTURES/$FIXTURE.c" -o plain.o
	has_reloc tls.o .rela.debug_addr R_X86_64_64
	dwarf_addr tls.o plain.o
	as_pahole tls.o
	"$CC_BTF" --encode -o plain.o.btf plain.o
	cmp tls.o.btf plain.o.btf
}

@test "encoder-reloc: compressed debug sections (SHF_COMPRESSED, .zdebug_): pahole's BTF, the same bytes" {
	need_tools
	gcc -g -O2 -DDWFL_NO_TLS -c "$FIXTURES/$FIXTURE.c" -o plain.o
	gcc -g -O2 -gz=zlib -DDWFL_NO_TLS -c "$FIXTURES/$FIXTURE.c" -o gz.o
	gcc -g -O2 -gz=zlib-gnu -DDWFL_NO_TLS -c "$FIXTURES/$FIXTURE.c" \
		-o zgnu.o
	readelf -SW gz.o | grep -qE ' \.debug_info .* [A-Z]*C[A-Z]* ' ||
		unavailable "gcc did not compress .debug_info"
	# (binutils 2.44, Debian 13's, no longer writes GNU's old format, and
	# no package brings it back there: skipped, not failed)
	readelf -SW zgnu.o | grep -q ' \.zdebug_info ' ||
		skip "this assembler ($(as --version | head -n 1)) no longer writes .zdebug_info"
	dwarf_addr gz.o zgnu.o
	as_pahole gz.o
	as_pahole zgnu.o
	"$CC_BTF" --encode -o plain.o.btf plain.o
	cmp gz.o.btf plain.o.btf
	cmp zgnu.o.btf plain.o.btf
}

@test "encoder-reloc: a 32-bit x86 object (i386, REL: addends in place): pahole's BTF" {
	need_tools
	gcc -m32 -g -O2 -c "$FIXTURES/$FIXTURE.c" -o m32.o 2>/dev/null ||
		unavailable "gcc -m32 cannot compile (no multilib)"
	has_reloc m32.o .rel.debug_info R_386_32
	has_reloc m32.o .rel.debug_info R_386_TLS_LDO_32
	dwarf_addr m32.o
	as_pahole m32.o
}

# clang_machine TARGET SECTION TYPE...: the fixture for clang's --target
# TARGET, with DWARF 5 and 4, is pahole's BTF and has each TYPE of
# relocation in SECTION.
clang_machine() {
	local target=$1 sec=$2 type
	shift 2
	clang --target="$target" -g -O2 -c "$FIXTURES/$FIXTURE.c" \
		-o "$target.o"
	clang --target="$target" -gdwarf-4 -O2 -c "$FIXTURES/$FIXTURE.c" \
		-o "$target-4.o"
	for type in "$@"; do
		has_reloc "$target-4.o" "$sec" "$type"
	done
	dwarf_addr "$target.o" "$target-4.o"
	as_pahole "$target.o"
	as_pahole "$target-4.o"
}

@test "encoder-reloc: clang's objects of every machine of the table: pahole's BTF" {
	need_tools
	need_cmd clang
	clang_machine x86_64-linux-gnu .rela.debug_info R_X86_64_32 R_X86_64_64
	clang_machine i686-linux-gnu .rel.debug_info R_386_32
	clang_machine aarch64-linux-gnu .rela.debug_info R_AARCH64_ABS32 \
		R_AARCH64_ABS64
	clang_machine armv7a-linux-gnueabihf .rel.debug_info R_ARM_ABS32
	clang_machine riscv64-linux-gnu .rela.debug_info R_RISCV_32 \
		R_RISCV_64 R_RISCV_ADD32 R_RISCV_SUB32
	clang_machine riscv32-linux-gnu .rela.debug_info R_RISCV_32 \
		R_RISCV_ADD32 R_RISCV_SUB32
	clang_machine s390x-linux-gnu .rela.debug_info R_390_32 R_390_64
	clang_machine powerpc64le-linux-gnu .rela.debug_info R_PPC64_ADDR32 \
		R_PPC64_ADDR64
	clang_machine powerpc64-linux-gnu .rela.debug_info R_PPC64_ADDR64
	clang_machine powerpc-linux-gnu .rela.debug_info R_PPC_ADDR32
}

@test "encoder-reloc: the Debian cross gcc's arm64, riscv64 and s390x objects: pahole's BTF" {
	need_tools
	local arch n=0
	for arch in aarch64 riscv64 s390x; do
		command -v "$arch-linux-gnu-gcc" >/dev/null || continue
		"$arch-linux-gnu-gcc" -g -O2 -c "$FIXTURES/$FIXTURE.c" \
			-o "$arch.o"
		dwarf_addr "$arch.o"
		as_pahole "$arch.o"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || unavailable "no Debian cross gcc is installed"
	if command -v riscv64-linux-gnu-gcc >/dev/null; then
		has_reloc riscv64.o .rela.debug_info R_RISCV_ADD64
		has_reloc riscv64.o .rela.debug_info R_RISCV_SUB64
	fi
}

@test "encoder-reloc: an executable (not ET_REL): nothing to relocate, pahole's BTF" {
	need_tools
	gcc -g -O2 -nostartfiles -e dwfl_get -o exe "$FIXTURES/$FIXTURE.c"
	dwarf_addr exe
	cp exe ref-exe
	pahole -J --btf_gen_floats --lang_exclude=rust \
		--btf_encode_detached=ref-exe.btf ref-exe
	"$CC_BTF" --encode -o exe.btf exe
	same_btf ref-exe.btf exe.btf
	bpftool btf dump file exe.btf | grep -q "^\[[0-9]*\] FUNC 'dwfl_bump' "
}

# set_reloc_type OBJ SECTION N TYPE: relocation N of SECTION (a 64-bit
# little-endian RELA table) gets type TYPE.
set_reloc_type() {
	python3 - "$@" <<'EOF'
import struct, sys
path, sec, idx, typ = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
b = bytearray(open(path, 'rb').read())
shoff, = struct.unpack_from('<Q', b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
def shdr(i):
    return struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * shentsize)
strs = shdr(shstrndx)[4]
for i in range(shnum):
    h = shdr(i)
    if b[strs + h[0]:b.index(0, strs + h[0])].decode() == sec:
        at = h[4] + idx * 24 + 8
        info, = struct.unpack_from('<Q', b, at)
        struct.pack_into('<Q', b, at, (info & ~0xffffffff) | typ)
        open(path, 'wb').write(b)
        sys.exit(0)
sys.exit(path + ': no ' + sec)
EOF
}

@test "encoder-reloc: a relocation type the table does not know: an error naming object, section and type" {
	need_tools
	need_cmd python3
	gcc -g -O2 -DDWFL_NO_TLS -c "$FIXTURES/$FIXTURE.c" -o bad.o
	set_reloc_type bad.o .rela.debug_info 3 2	# R_X86_64_PC32
	cp bad.o bad.orig
	run -1 "$CC_BTF" --encode -o bad.btf bad.o
	echo "$output"
	[ "$output" = "cc-btf: error: bad.o: cannot read DWARF: .rela.debug_info: relocation 3: type 2, unknown to x86-64" ]
	[ ! -e bad.btf ]
	cmp bad.o bad.orig
	run -1 "$CC_BTF" --encode bad.o		# in place
	[[ "$output" == *"bad.o: cannot read DWARF: .rela.debug_info: relocation 3: type 2, unknown to x86-64"* ]]
	cmp bad.o bad.orig
}

@test "encoder-reloc: an object of a machine the table does not know: an error, not unrelocated DWARF" {
	need_tools
	need_cmd python3
	gcc -g -O2 -DDWFL_NO_TLS -c "$FIXTURES/$FIXTURE.c" -o mips.o
	python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[18:20] = (8).to_bytes(2, "little"); open(sys.argv[1], "wb").write(b)' mips.o
	cp mips.o mips.orig
	run -1 "$CC_BTF" --encode -o mips.btf mips.o
	echo "$output"
	[[ "$output" == *"mips.o: cannot read DWARF: .rela.debug_info: relocations of machine 8, which cc-btf does not know"* ]]
	[ ! -e mips.btf ]
	cmp mips.o mips.orig
}
