// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * elf/elf_reloc.c, the library's one table of relocation types, as two
 * tables of rows: each machine's data relocations (what the encoder meets
 * in .debug_info, .debug_str_offsets and .debug_addr of gcc's and clang's
 * objects, tests/encoder-reloc.bats) with the kind they must get, and
 * each kind applied to a place of known bytes in either byte order, REL
 * and RELA, with the bytes it must leave. A type or machine the table
 * lacks must be refused, and a place that does not fit before the end of
 * its section too. Silent when every check holds.
 */
#include <errno.h>
#include <string.h>

#include "elf/elf_reloc.h"
#include "unit.h"

#ifndef R_RISCV_SET_ULEB128
#define R_RISCV_SET_ULEB128	60
#define R_RISCV_SUB_ULEB128	61
#endif

static const struct kind_row {
	const char *name;
	GElf_Half machine;
	uint32_t type;
	int err;			/* 0, -ENOENT or -EOPNOTSUPP */
	uint8_t op, width;
} kinds[] = {
	{ "x86-64 64", EM_X86_64, R_X86_64_64, 0, ABTF_REL_ABS, 8 },
	{ "x86-64 32", EM_X86_64, R_X86_64_32, 0, ABTF_REL_ABS, 4 },
	{ "x86-64 32S", EM_X86_64, R_X86_64_32S, 0, ABTF_REL_ABS, 4 },
	{ "x86-64 DTPOFF32", EM_X86_64, R_X86_64_DTPOFF32, 0, ABTF_REL_TLS, 4 },
	{ "x86-64 DTPOFF64", EM_X86_64, R_X86_64_DTPOFF64, 0, ABTF_REL_TLS, 8 },
	{ "x86-64 NONE", EM_X86_64, R_X86_64_NONE, 0, ABTF_REL_NONE, 0 },
	{ "x86-64 PC32 (code, not data)", EM_X86_64, R_X86_64_PC32, -ENOENT },
	{ "i386 32", EM_386, R_386_32, 0, ABTF_REL_ABS, 4 },
	{ "i386 TLS_LDO_32", EM_386, R_386_TLS_LDO_32, 0, ABTF_REL_TLS, 4 },
	{ "i386 PC32", EM_386, R_386_PC32, -ENOENT },
	{ "arm64 ABS64", EM_AARCH64, R_AARCH64_ABS64, 0, ABTF_REL_ABS, 8 },
	{ "arm64 ABS32", EM_AARCH64, R_AARCH64_ABS32, 0, ABTF_REL_ABS, 4 },
	{ "arm64 ABS16", EM_AARCH64, R_AARCH64_ABS16, 0, ABTF_REL_ABS, 2 },
	{ "arm64 CALL26", EM_AARCH64, R_AARCH64_CALL26, -ENOENT },
	{ "arm ABS32", EM_ARM, R_ARM_ABS32, 0, ABTF_REL_ABS, 4 },
	{ "arm TLS_LDO32", EM_ARM, R_ARM_TLS_LDO32, 0, ABTF_REL_TLS, 4 },
	{ "riscv 64", EM_RISCV, R_RISCV_64, 0, ABTF_REL_ABS, 8 },
	{ "riscv 32", EM_RISCV, R_RISCV_32, 0, ABTF_REL_ABS, 4 },
	{ "riscv ADD32", EM_RISCV, R_RISCV_ADD32, 0, ABTF_REL_ADD, 4 },
	{ "riscv SUB64", EM_RISCV, R_RISCV_SUB64, 0, ABTF_REL_SUB, 8 },
	{ "riscv SUB8", EM_RISCV, R_RISCV_SUB8, 0, ABTF_REL_SUB, 1 },
	{ "riscv SET16", EM_RISCV, R_RISCV_SET16, 0, ABTF_REL_SET, 2 },
	{ "riscv SET6", EM_RISCV, R_RISCV_SET6, 0, ABTF_REL_SET6, 1 },
	{ "riscv SUB6", EM_RISCV, R_RISCV_SUB6, 0, ABTF_REL_SUB6, 1 },
	{ "riscv SET_ULEB128", EM_RISCV, R_RISCV_SET_ULEB128, 0,
	  ABTF_REL_ULEB_SET, 0 },
	{ "riscv SUB_ULEB128", EM_RISCV, R_RISCV_SUB_ULEB128, 0,
	  ABTF_REL_ULEB_SUB, 0 },
	{ "riscv RELAX", EM_RISCV, R_RISCV_RELAX, 0, ABTF_REL_NONE, 0 },
	{ "riscv CALL", EM_RISCV, R_RISCV_CALL, -ENOENT },
	{ "s390 64", EM_S390, R_390_64, 0, ABTF_REL_ABS, 8 },
	{ "s390 32", EM_S390, R_390_32, 0, ABTF_REL_ABS, 4 },
	{ "s390 TLS_LDO64", EM_S390, R_390_TLS_LDO64, 0, ABTF_REL_TLS, 8 },
	{ "s390 PC32", EM_S390, R_390_PC32, -ENOENT },
	{ "ppc64 ADDR64", EM_PPC64, R_PPC64_ADDR64, 0, ABTF_REL_ABS, 8 },
	{ "ppc64 ADDR32", EM_PPC64, R_PPC64_ADDR32, 0, ABTF_REL_ABS, 4 },
	{ "ppc64 DTPREL64", EM_PPC64, R_PPC64_DTPREL64, 0, ABTF_REL_TLS, 8 },
	{ "ppc ADDR32", EM_PPC, R_PPC_ADDR32, 0, ABTF_REL_ABS, 4 },
	{ "ppc ADDR64 (64-bit only)", EM_PPC, R_PPC64_ADDR64, -ENOENT },
	{ "mips (no table)", EM_MIPS, R_MIPS_32, -EOPNOTSUPP },
};

static const struct apply_row {
	const char *name;
	struct abtf_rel_kind k;
	bool big, rel;
	uint64_t sa;
	size_t room;			/* bytes to the section's end */
	unsigned char in[8], out[8];
	int err;
} applies[] = {
	{ "ABS 8, little-endian", { ABTF_REL_ABS, 8 }, false, false,
	  0x0102030405060708, 8, { 0 },
	  { 8, 7, 6, 5, 4, 3, 2, 1 } },
	{ "ABS 8, big-endian", { ABTF_REL_ABS, 8 }, true, false,
	  0x0102030405060708, 8, { 0 },
	  { 1, 2, 3, 4, 5, 6, 7, 8 } },
	{ "ABS 4, big-endian, rest kept", { ABTF_REL_ABS, 4 }, true, false,
	  0x11223344, 8, { 9, 9, 9, 9, 9, 9, 9, 9 },
	  { 0x11, 0x22, 0x33, 0x44, 9, 9, 9, 9 } },
	{ "ABS 2, little-endian", { ABTF_REL_ABS, 2 }, false, false,
	  0xbeef, 2, { 0 }, { 0xef, 0xbe } },
	{ "ABS 4, REL: the place holds the addend", { ABTF_REL_ABS, 4 },
	  false, true, 0x100, 4, { 0x10, 0, 0, 0 }, { 0x10, 1, 0, 0 } },
	{ "TLS 4, REL", { ABTF_REL_TLS, 4 }, false, true, 8, 4,
	  { 4, 0, 0, 0 }, { 12, 0, 0, 0 } },
	{ "ADD 4 then the SUB's place", { ABTF_REL_ADD, 4 }, false, false,
	  0x30, 4, { 0x10, 0, 0, 0 }, { 0x40, 0, 0, 0 } },
	{ "SUB 4: an end less a start", { ABTF_REL_SUB, 4 }, false, false,
	  0x10, 4, { 0x40, 0, 0, 0 }, { 0x30, 0, 0, 0 } },
	{ "SUB 8 through zero", { ABTF_REL_SUB, 8 }, false, false, 1, 8,
	  { 0 }, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
	{ "ADD 8, big-endian", { ABTF_REL_ADD, 8 }, true, false, 0x101, 8,
	  { 0, 0, 0, 0, 0, 0, 0, 0xff }, { 0, 0, 0, 0, 0, 0, 2, 0 } },
	{ "SUB 1", { ABTF_REL_SUB, 1 }, false, false, 3, 1, { 10 }, { 7 } },
	{ "SET 2", { ABTF_REL_SET, 2 }, false, false, 0x1234, 2,
	  { 0xff, 0xff }, { 0x34, 0x12 } },
	{ "SET6 keeps the top two bits", { ABTF_REL_SET6, 1 }, false, false,
	  0x7f, 1, { 0xc1 }, { 0xff } },
	{ "SUB6 keeps the top two bits", { ABTF_REL_SUB6, 1 }, false, false,
	  2, 1, { 0x41 }, { 0x7f } },
	{ "ULEB SET in the assembler's two bytes", { ABTF_REL_ULEB_SET, 0 },
	  false, false, 5, 2, { 0x80, 0x00 }, { 0x85, 0x00 } },
	{ "ULEB SUB", { ABTF_REL_ULEB_SUB, 0 }, false, false, 0x10, 2,
	  { 0x90, 0x01 }, { 0x80, 0x01 } },
	{ "ULEB too large for its bytes", { ABTF_REL_ULEB_SET, 0 }, false,
	  false, 0x4000, 2, { 0x80, 0x00 }, { 0x80, 0x00 }, -ERANGE },
	{ "ULEB not ended before the section", { ABTF_REL_ULEB_SET, 0 },
	  false, false, 1, 2, { 0x80, 0x80 }, { 0x80, 0x80 }, -ERANGE },
	{ "ABS 8 with 7 bytes left", { ABTF_REL_ABS, 8 }, false, false, 1, 7,
	  { 0 }, { 0 }, -ERANGE },
	{ "NONE", { ABTF_REL_NONE, 0 }, false, false, 1, 0, { 5 }, { 5 } },
};

static void check_kinds(void)
{
	struct abtf_rel_kind k;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		const struct kind_row *r = &kinds[i];
		int err = abtf__reloc_kind(r->machine, r->type, &k);

		if (!CHECK_ROW(r->name, err == r->err) || err)
			continue;
		CHECK_ROW(r->name, k.op == r->op && k.width == r->width);
	}
}

static void check_applies(void)
{
	unsigned char buf[8];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(applies); i++) {
		const struct apply_row *r = &applies[i];

		memcpy(buf, r->in, sizeof(buf));
		CHECK_ROW(r->name, abtf__reloc_apply(&r->k, buf, r->room,
						     r->big, r->rel, r->sa) ==
				   r->err);
		CHECK_ROW(r->name, !memcmp(buf, r->out, sizeof(buf)));
	}
}

/* The writer's slot relocation: absolute, pointer-sized, REL or RELA. */
static void check_abs(void)
{
	struct abtf_rel_kind k;
	bool rela;
	int t;

	t = abtf__reloc_abs(EM_RISCV, ELFCLASS64, &rela);
	CHECK(t == R_RISCV_64 && rela);
	t = abtf__reloc_abs(EM_386, ELFCLASS32, &rela);
	CHECK(t == R_386_32 && !rela);
	CHECK(abtf__reloc_abs(EM_MIPS, ELFCLASS64, NULL) == -EOPNOTSUPP);
	/* every machine's writer type is one its reader knows */
	for (t = 0; t < (int)ARRAY_SIZE(kinds); t++) {
		int type = abtf__reloc_abs(kinds[t].machine, ELFCLASS64, NULL);

		if (type < 0)
			continue;
		CHECK_ROW(kinds[t].name,
			  !abtf__reloc_kind(kinds[t].machine, type, &k) &&
			  k.op == ABTF_REL_ABS);
	}
}

int main(void)
{
	check_kinds();
	check_applies();
	check_abs();
	return unit_status();
}
