/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Each machine's data relocations (elf_reloc.c). */
#ifndef ABTF_ELF_RELOC_H
#define ABTF_ELF_RELOC_H

#include <byteswap.h>
#include <endian.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ABTF_HOST_BIG	(__BYTE_ORDER == __BIG_ENDIAN)

enum abtf_rel_op {
	ABTF_REL_NONE,		/* nothing */
	ABTF_REL_ABS,		/* S + A, an address or an offset */
	ABTF_REL_TLS,		/* S + A, an offset in the TLS block */
	ABTF_REL_SET,		/* S + A */
	ABTF_REL_ADD,		/* place + S + A */
	ABTF_REL_SUB,		/* place - (S + A) */
	ABTF_REL_SET6,		/* S + A, into the low 6 bits */
	ABTF_REL_SUB6,		/* place - (S + A), in the low 6 bits */
	ABTF_REL_ULEB_SET,	/* S + A, as the place's ULEB128 */
	ABTF_REL_ULEB_SUB,	/* place - (S + A), as its ULEB128 */
};

/* Which values of S + A an ABS or TLS place narrower than 8 bytes holds. */
enum abtf_rel_fit {
	ABTF_FIT_EITHER,	/* zero- or sign-extended (ld's "bitfield") */
	ABTF_FIT_UNSIGNED,	/* zero-extended: R_X86_64_32 */
	ABTF_FIT_SIGNED,	/* sign-extended: R_X86_64_32S */
};

struct abtf_rel_kind {
	uint8_t op;		/* enum abtf_rel_op */
	uint8_t width;		/* bytes of the place (0: a ULEB128's) */
	uint8_t fit;		/* enum abtf_rel_fit */
};

/*
 * What relocation @type of machine @machine does: 0, -ENOENT for a type
 * the table does not know, -EOPNOTSUPP for a machine it does not know.
 */
int abtf__reloc_kind(GElf_Half machine, uint32_t type,
		     struct abtf_rel_kind *k);
/*
 * The absolute, pointer-sized relocation type of @machine for class
 * @ei_class (R_X86_64_64, R_AARCH64_ABS64, R_RISCV_64, R_386_32, ...), with
 * *@is_rela set if the machine uses RELA. The type, or -EOPNOTSUPP.
 */
int abtf__reloc_abs(GElf_Half machine, unsigned char ei_class, bool *is_rela);
/*
 * Apply @k with value @sa (S + A) to the place @p, @room bytes before the
 * end of its section, in big-endian order if @big; @rel: the place holds
 * the addend (SHT_REL). 0, -ERANGE if the place does not fit its section,
 * -EOVERFLOW if the value does not fit the place (abtf__reloc_fits()).
 */
int abtf__reloc_apply(const struct abtf_rel_kind *k, unsigned char *p,
		      size_t room, bool big, bool rel, uint64_t sa);
/*
 * Whether value @v of S + A (RELA: the addend explicit) fits the place of
 * an ABS or TLS relocation @k: one cut to its width (pahole 1.24 cuts it)
 * would read as another string or address. ADD, SUB and SET wrap, as
 * their differences of labels do; a REL addend is the place's own.
 */
static inline bool abtf__reloc_fits(const struct abtf_rel_kind *k, uint64_t v)
{
	unsigned int bits = k->width * 8;
	uint64_t top;

	if ((k->op != ABTF_REL_ABS && k->op != ABTF_REL_TLS) || !bits ||
	    bits >= 64)
		return true;
	top = v >> (bits - 1);		/* the sign bit and what is above */
	switch (k->fit) {
	case ABTF_FIT_UNSIGNED:
		return !(v >> bits);
	case ABTF_FIT_SIGNED:
		return !top || top == UINT64_MAX >> (bits - 1);
	default:
		return !(v >> bits) || top == UINT64_MAX >> (bits - 1);
	}
}

/* The machine's name for messages, or NULL for one the table lacks. */
const char *abtf__machine_name(GElf_Half machine);

/*
 * A @width-byte unsigned value at @p, big-endian if @big; inline, for the
 * encoder's relocation loop writes tens of thousands per object.
 */
static inline uint64_t abtf__get_n(const unsigned char *p, unsigned int width,
				   bool big)
{
	uint64_t v = 0;
	uint32_t v32;
	unsigned int i;

	switch (width) {
	case 4:
		memcpy(&v32, p, 4);
		return big == ABTF_HOST_BIG ? v32 : bswap_32(v32);
	case 8:
		memcpy(&v, p, 8);
		return big == ABTF_HOST_BIG ? v : bswap_64(v);
	}
	for (i = 0; i < width; i++)
		v |= (uint64_t)p[i] << (8 * (big ? width - 1 - i : i));
	return v;
}

static inline void abtf__put_n(unsigned char *p, unsigned int width, bool big,
			       uint64_t v)
{
	uint32_t v32 = v;
	unsigned int i;

	switch (width) {
	case 4:
		v32 = big == ABTF_HOST_BIG ? v32 : bswap_32(v32);
		memcpy(p, &v32, 4);
		return;
	case 8:
		v = big == ABTF_HOST_BIG ? v : bswap_64(v);
		memcpy(p, &v, 8);
		return;
	}
	for (i = 0; i < width; i++)
		p[i] = v >> (8 * (big ? width - 1 - i : i));
}

#endif
