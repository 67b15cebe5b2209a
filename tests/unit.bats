#!/usr/bin/env bats
# The library's input readers on their own: tests/unit/archive.c (the BTF
# archive's members), addr.c (.debug_btf_addr groups, slots, relocations),
# verify.c (the kernel's BTF rules), zmember.c (compressed members) and
# elf-reloc.c (each machine's relocation types), each compiled now with the library sources it tests and
# tests/unit/unit.c (their shared helpers), under ASan and UBSan where gcc
# has them. Everything else reaches these modules through cc-btf and
# btf-link; these hold each one to its contract on real BTF (made by
# libbpf) and ELF (made by libelf), and on every header field, count and
# length of theirs told to lie, at every length cut short.

load test_helper

# unit NAME SOURCE...: tests/unit/NAME.c with the library's SOURCEs
# (unit_prog), run in the test's own directory, bounded; it prints
# nothing and exits 0 when every check holds.
unit() {
	need_cmd gcc pkg-config timeout
	unit_prog "$@"
	run timeout 60 "./$1"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "unit: archive.c: members found, sized and checked; every lying field refused" {
	unit archive btf/archive.c btf/verify.c btf/layout.c util/util.c util/hashmap.c
}

@test "unit: addr.c: groups of four targets read back; lying counts and relocations refused" {
	unit addr elf/addr.c elf/elf_reloc.c elf/elf_read.c util/util.c util/hashmap.c
}

@test "unit: verify.c: the kernel's BTF rules, one broken per row, named by type" {
	unit verify btf/verify.c btf/layout.c util/util.c util/hashmap.c
}

@test "unit: zmember.c: compressed members inflated; lying sizes and streams refused" {
	unit zmember btf/zmember.c btf/archive.c btf/verify.c btf/layout.c util/util.c \
		util/hashmap.c
}

@test "unit: elf_reloc.c: each machine's data relocations, each applied in either byte order" {
	unit elf-reloc elf/elf_reloc.c util/util.c util/hashmap.c
}
