#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# libdwfl's way to relocated DWARF (libarchive-btf/encode/dwarf_dwfl.c), which
# enc_dwarf.c takes for what dwarf_reloc.c does not relocate: an x86-64
# object with a thread-local variable (a DTPOFF relocation in
# .debug_info), compressed debug sections, 32-bit objects, other machines
# (riscv64, s390x; tests/cross.bats links theirs), an executable.
# tests/fixtures/dwfl-tls.c is each object; -DDWFL_NO_TLS makes it one
# the fast way reads. tests/unit/dwarf-way.c (compiled here with the
# sources it tests, under ASan and UBSan where gcc has them) checks which
# way each object takes and that its per-CPU variable's address maps back
# to its section either way; cc-btf's BTF must be pahole's (and, where the
# fast way reads the same types, the fast way's bytes).

load test_helper

bats_require_minimum_version 1.5.0

FIXTURE=dwfl-tls

# shellcheck disable=SC2034
NEED_TOOLS="gcc pahole bpftool readelf pkg-config timeout cc-btf btf-link"
# shellcheck disable=SC2034
NEED_ARCH="x86_64 the objects' ways are those of an x86-64 host's gcc"

# dwarf_way OBJ WAY...: tests/unit/dwarf-way.c, built once per test,
# says each OBJ's DWARF is opened WAY (dwarf_reloc or libdwfl).
dwarf_way() {
	[ -x dwarf-way ] ||
		unit_prog dwarf-way encode/enc_obj.c encode/enc_dwarf.c encode/dwarf_dwfl.c \
			encode/dwarf_reloc.c encode/dwarf_read.c elf/elf_read.c util/util.c util/hashmap.c
	run timeout 60 ./dwarf-way "$@"
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

@test "encoder-dwfl: a thread-local variable's relocation: libdwfl, pahole's BTF, the fast way's bytes" {
	need_tools
	gcc -g -O2 -c "$FIXTURES/$FIXTURE.c" -o tls.o
	gcc -g -O2 -DDWFL_NO_TLS -c "$FIXTURES/$FIXTURE.c" -o fast.o
	readelf -rW tls.o | grep -q 'R_X86_64_DTPOFF' || {
		echo "tls.o: no DTPOFF relocation"
		return 1
	}
	dwarf_way tls.o libdwfl fast.o dwarf_reloc
	as_pahole tls.o
	as_pahole fast.o
	cmp tls.o.btf fast.o.btf
}

@test "encoder-dwfl: clang's DWARF 5 (DW_OP_addrx) with a thread-local variable" {
	need_tools
	need_cmd clang
	clang -g -O2 -c "$FIXTURES/$FIXTURE.c" -o tls.o
	clang -g -O2 -DDWFL_NO_TLS -c "$FIXTURES/$FIXTURE.c" -o fast.o
	dwarf_way tls.o libdwfl fast.o dwarf_reloc
	as_pahole tls.o
	"$CC_BTF" --encode -o fast.o.btf fast.o
	cmp tls.o.btf fast.o.btf
}

@test "encoder-dwfl: compressed debug sections: libdwfl, pahole's BTF" {
	need_tools
	gcc -g -O2 -gz=zlib -DDWFL_NO_TLS -c "$FIXTURES/$FIXTURE.c" -o gz.o
	readelf -SW gz.o | grep -qE ' \.debug_info .* [A-Z]*C[A-Z]* ' ||
		skip "gcc did not compress .debug_info"
	gcc -g -O2 -DDWFL_NO_TLS -c "$FIXTURES/$FIXTURE.c" -o fast.o
	dwarf_way gz.o libdwfl
	as_pahole gz.o
	"$CC_BTF" --encode -o fast.o.btf fast.o
	cmp gz.o.btf fast.o.btf
}

@test "encoder-dwfl: a 32-bit object (i386, REL): libdwfl, pahole's BTF" {
	need_tools
	gcc -m32 -g -O2 -c "$FIXTURES/$FIXTURE.c" -o m32.o 2>/dev/null ||
		unavailable "gcc -m32 cannot compile (no multilib)"
	dwarf_way m32.o libdwfl
	as_pahole m32.o
}

@test "encoder-dwfl: riscv64 and s390x objects: libdwfl, pahole's BTF" {
	need_tools
	local arch
	for arch in riscv64 s390x; do
		need_cmd "$arch-linux-gnu-gcc"
		"$arch-linux-gnu-gcc" -g -O2 -c "$FIXTURES/$FIXTURE.c" \
			-o "$arch.o"
		dwarf_way "$arch.o" libdwfl
		as_pahole "$arch.o"
	done
}

@test "encoder-dwfl: an executable (not ET_REL): libdwfl, pahole's BTF" {
	need_tools
	gcc -g -O2 -nostartfiles -e dwfl_get -o exe "$FIXTURES/$FIXTURE.c"
	dwarf_way exe libdwfl
	cp exe ref-exe
	pahole -J --btf_gen_floats --lang_exclude=rust \
		--btf_encode_detached=ref-exe.btf ref-exe
	"$CC_BTF" --encode -o exe.btf exe
	same_btf ref-exe.btf exe.btf
	bpftool btf dump file exe.btf | grep -q "^\[[0-9]*\] FUNC 'dwfl_bump' "
}
