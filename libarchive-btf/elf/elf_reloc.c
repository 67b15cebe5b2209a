// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What each machine's data relocations do: the one table of relocation
 * types of the library.
 *
 * The library meets relocations in three places: the encoder applies those
 * of the debug sections it reads (encode/dwarf_reloc.c), the linker reads
 * those of .debug_btf_addr (elf/addr.c), and the ELF writer emits one per
 * address slot (elf/elf_write.c). Each asks here. A relocation in a debug
 * section is a datum, never an instruction: what the table knows is how a
 * value of S + A (the symbol's value and the addend) goes into a place of
 * a given width:
 *
 *  - ABS: the place becomes S + A (in REL sections, A is the place's old
 *    value); TLS: the same, an offset in the thread-local block rather
 *    than an address (no section to tell);
 *  - ADD and SUB: the place's value plus or minus S + A. RISC-V writes the
 *    difference of two labels (a unit's length, DW_AT_high_pc) as an ADD
 *    and a SUB at one place, because linker relaxation may move either;
 *    SET writes S + A, SUB6 and SET6 only the low six bits of a byte (a
 *    DW_CFA_advance_loc), and the ULEB128 pair a LEB128 of the place's
 *    length;
 *  - NONE: nothing (R_*_NONE, and RISC-V's R_RISCV_RELAX, a mark for the
 *    linker).
 *
 * A type the table does not list is an error for the caller to report
 * (object, section, type): skipping one would leave a wrong offset or
 * address in the DWARF, read silently as a wrong type.
 */
#include <errno.h>
#include <string.h>

#include "elf/elf_reloc.h"

#ifndef R_RISCV_SET_ULEB128
#define R_RISCV_SET_ULEB128	60
#define R_RISCV_SUB_ULEB128	61
#endif

#define K(op, width)	((struct abtf_rel_kind){ ABTF_REL_##op, width, \
						     ABTF_FIT_EITHER })
#define KF(op, width, fit) \
	((struct abtf_rel_kind){ ABTF_REL_##op, width, ABTF_FIT_##fit })

static int kind_x86_64(uint32_t type, struct abtf_rel_kind *k)
{
	switch (type) {
	case R_X86_64_NONE:	*k = K(NONE, 0); return 0;
	case R_X86_64_64:	*k = K(ABS, 8); return 0;
	case R_X86_64_32:	*k = KF(ABS, 4, UNSIGNED); return 0;
	case R_X86_64_32S:	*k = KF(ABS, 4, SIGNED); return 0;
	case R_X86_64_DTPOFF64:	*k = K(TLS, 8); return 0;
	case R_X86_64_DTPOFF32:	*k = KF(TLS, 4, SIGNED); return 0;
	}
	return -ENOENT;
}

static int kind_386(uint32_t type, struct abtf_rel_kind *k)
{
	switch (type) {
	case R_386_NONE:	*k = K(NONE, 0); return 0;
	case R_386_32:		*k = K(ABS, 4); return 0;
	case R_386_TLS_LDO_32:	*k = K(TLS, 4); return 0;
	}
	return -ENOENT;
}

static int kind_aarch64(uint32_t type, struct abtf_rel_kind *k)
{
	switch (type) {
	case R_AARCH64_NONE:	*k = K(NONE, 0); return 0;
	case R_AARCH64_ABS64:	*k = K(ABS, 8); return 0;
	case R_AARCH64_ABS32:	*k = K(ABS, 4); return 0;
	case R_AARCH64_ABS16:	*k = K(ABS, 2); return 0;
	case R_AARCH64_TLS_DTPREL: *k = K(TLS, 8); return 0;
	}
	return -ENOENT;
}

static int kind_arm(uint32_t type, struct abtf_rel_kind *k)
{
	switch (type) {
	case R_ARM_NONE:	*k = K(NONE, 0); return 0;
	case R_ARM_ABS32:	*k = K(ABS, 4); return 0;
	case R_ARM_TLS_LDO32:	*k = K(TLS, 4); return 0;
	}
	return -ENOENT;
}

static int kind_riscv(uint32_t type, struct abtf_rel_kind *k)
{
	switch (type) {
	case R_RISCV_NONE:
	case R_RISCV_RELAX:	*k = K(NONE, 0); return 0;
	case R_RISCV_32:	*k = K(ABS, 4); return 0;
	case R_RISCV_64:	*k = K(ABS, 8); return 0;
	case R_RISCV_TLS_DTPREL32: *k = K(TLS, 4); return 0;
	case R_RISCV_TLS_DTPREL64: *k = K(TLS, 8); return 0;
	case R_RISCV_ADD8:	*k = K(ADD, 1); return 0;
	case R_RISCV_ADD16:	*k = K(ADD, 2); return 0;
	case R_RISCV_ADD32:	*k = K(ADD, 4); return 0;
	case R_RISCV_ADD64:	*k = K(ADD, 8); return 0;
	case R_RISCV_SUB8:	*k = K(SUB, 1); return 0;
	case R_RISCV_SUB16:	*k = K(SUB, 2); return 0;
	case R_RISCV_SUB32:	*k = K(SUB, 4); return 0;
	case R_RISCV_SUB64:	*k = K(SUB, 8); return 0;
	case R_RISCV_SET8:	*k = K(SET, 1); return 0;
	case R_RISCV_SET16:	*k = K(SET, 2); return 0;
	case R_RISCV_SET32:	*k = K(SET, 4); return 0;
	case R_RISCV_SET6:	*k = K(SET6, 1); return 0;
	case R_RISCV_SUB6:	*k = K(SUB6, 1); return 0;
	case R_RISCV_SET_ULEB128: *k = K(ULEB_SET, 0); return 0;
	case R_RISCV_SUB_ULEB128: *k = K(ULEB_SUB, 0); return 0;
	}
	return -ENOENT;
}

static int kind_s390(uint32_t type, struct abtf_rel_kind *k)
{
	switch (type) {
	case R_390_NONE:	*k = K(NONE, 0); return 0;
	case R_390_8:		*k = K(ABS, 1); return 0;
	case R_390_16:		*k = K(ABS, 2); return 0;
	case R_390_32:		*k = K(ABS, 4); return 0;
	case R_390_64:		*k = K(ABS, 8); return 0;
	case R_390_TLS_LDO32:	*k = K(TLS, 4); return 0;
	case R_390_TLS_LDO64:	*k = K(TLS, 8); return 0;
	}
	return -ENOENT;
}

static int kind_ppc(bool is64, uint32_t type, struct abtf_rel_kind *k)
{
	switch (type) {
	case R_PPC_NONE:	*k = K(NONE, 0); return 0;
	case R_PPC_ADDR32:
	case R_PPC_UADDR32:	*k = K(ABS, 4); return 0;
	}
	if (!is64)
		return type == R_PPC_DTPREL32 ? (*k = K(TLS, 4), 0) : -ENOENT;
	switch (type) {
	case R_PPC64_ADDR64:
	case R_PPC64_UADDR64:	*k = K(ABS, 8); return 0;
	case R_PPC64_DTPREL64:	*k = K(TLS, 8); return 0;
	}
	return -ENOENT;
}

int abtf__reloc_kind(GElf_Half machine, uint32_t type,
		     struct abtf_rel_kind *k)
{
	switch (machine) {
	case EM_X86_64:		return kind_x86_64(type, k);
	case EM_386:		return kind_386(type, k);
	case EM_AARCH64:	return kind_aarch64(type, k);
	case EM_ARM:		return kind_arm(type, k);
	case EM_RISCV:		return kind_riscv(type, k);
	case EM_S390:		return kind_s390(type, k);
	case EM_PPC64:		return kind_ppc(true, type, k);
	case EM_PPC:		return kind_ppc(false, type, k);
	}
	return -EOPNOTSUPP;
}

int abtf__reloc_abs(GElf_Half machine, unsigned char ei_class, bool *is_rela)
{
	bool rela = true;
	int type;

	switch (machine) {
	case EM_X86_64:	type = R_X86_64_64; break;
	case EM_AARCH64: type = R_AARCH64_ABS64; break;
	case EM_RISCV:	type = ei_class == ELFCLASS32 ? R_RISCV_32 : R_RISCV_64;
			break;
	case EM_S390:	type = R_390_64; break;
	case EM_PPC64:	type = R_PPC64_ADDR64; break;
	case EM_PPC:	type = R_PPC_ADDR32; break;
	case EM_386:	type = R_386_32; rela = false; break;
	case EM_ARM:	type = R_ARM_ABS32; rela = false; break;
	default:
		return -EOPNOTSUPP;
	}
	if (is_rela)
		*is_rela = rela;
	return type;
}

/* The ULEB128 at @p, at most @room bytes: its length, or 0 if it ends not. */
static size_t uleb_len(const unsigned char *p, size_t room, uint64_t *v)
{
	size_t i;

	for (*v = 0, i = 0; i < room && i < 10; i++) {
		*v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80))
			return i + 1;
	}
	return 0;
}

/* @v as a ULEB128 of exactly @len bytes, as the assembler laid it out. */
static int uleb_put(unsigned char *p, size_t len, uint64_t v)
{
	size_t i;

	for (i = 0; i < len; i++, v >>= 7)
		p[i] = (v & 0x7f) | (i + 1 < len ? 0x80 : 0);
	return v ? -ERANGE : 0;
}

static int apply_uleb(const struct abtf_rel_kind *k, unsigned char *p,
		      size_t room, uint64_t sa)
{
	uint64_t old;
	size_t len = uleb_len(p, room, &old);

	if (!len)
		return -ERANGE;
	return uleb_put(p, len, k->op == ABTF_REL_ULEB_SET ? sa : old - sa);
}

int abtf__reloc_apply(const struct abtf_rel_kind *k, unsigned char *p,
		      size_t room, bool big, bool rel, uint64_t sa)
{
	uint64_t old;

	if (k->op == ABTF_REL_NONE)
		return 0;
	if (k->op == ABTF_REL_ULEB_SET || k->op == ABTF_REL_ULEB_SUB)
		return apply_uleb(k, p, room, sa);
	if (room < k->width)
		return -ERANGE;
	if ((k->op == ABTF_REL_ABS || k->op == ABTF_REL_TLS) && !rel) {
		if (!abtf__reloc_fits(k, sa))
			return -EOVERFLOW;
		abtf__put_n(p, k->width, big, sa);	/* the common case */
		return 0;
	}
	old = abtf__get_n(p, k->width, big);
	switch (k->op) {
	case ABTF_REL_ABS:
	case ABTF_REL_TLS:
		abtf__put_n(p, k->width, big, sa + old);
		return 0;
	case ABTF_REL_SET:
		abtf__put_n(p, k->width, big, sa);
		return 0;
	case ABTF_REL_ADD:
		abtf__put_n(p, k->width, big, old + sa);
		return 0;
	case ABTF_REL_SUB:
		abtf__put_n(p, k->width, big, old - sa);
		return 0;
	case ABTF_REL_SET6:
		*p = (*p & 0xc0) | (sa & 0x3f);
		return 0;
	case ABTF_REL_SUB6:
		*p = (*p & 0xc0) | ((*p - sa) & 0x3f);
		return 0;
	}
	return -EINVAL;
}

const char *abtf__machine_name(GElf_Half machine)
{
	switch (machine) {
	case EM_X86_64:	return "x86-64";
	case EM_386:	return "i386";
	case EM_AARCH64: return "AArch64";
	case EM_ARM:	return "ARM";
	case EM_RISCV:	return "RISC-V";
	case EM_S390:	return "s390";
	case EM_PPC64:	return "PowerPC64";
	case EM_PPC:	return "PowerPC";
	}
	return NULL;
}
