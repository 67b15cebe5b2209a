/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The .debug_btf_addr format (docs/archive-format.md), owned by addr.c:
 * the group headers, the slots and the relocations against them. The
 * encoder writes a group per object; the linker reads the linked section's
 * groups, pairs them with the .BTF members and reads the slots. Internal,
 * not installed.
 */
#ifndef __ABTF_ADDR_H
#define __ABTF_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/internal.h"

/*
 * Each object's .debug_btf_addr contribution starts with this header, in the
 * object's byte order, then holds one slot per FUNC and VAR of the .BTF
 * member it belongs to. btf-link pairs headers with archive members by
 * size and hash, so objects without .debug_btf_addr (pahole's) may sit in between.
 */
struct abtf_addr_hdr {
	char magic[4];		/* ABTF_ADDR_MAGIC */
	uint32_t nr_slots;
	uint32_t btf_size;	/* size of the .BTF member it describes */
	uint32_t btf_hash;	/* abtf__hash32() of that member */
};
#define ABTF_ADDR_MAGIC		"BTFA"

/*
 * Version 2 of a group (docs/archive-format.md): the same first four
 * fields, then what the optimized_func and consistent_func features need.
 * After the header: nr_slots + nr_extra slots, the extension's types and
 * strings, one flags byte per FUNC, zero padding to a slot's size.
 */
struct abtf_addr_hdr2 {
	char magic[4];		/* ABTF_ADDR_MAGIC2 */
	uint32_t nr_slots;	/* FUNCs and VARs of the .BTF member */
	uint32_t btf_size;
	uint32_t btf_hash;
	uint32_t nr_extra;	/* FUNCs of the extension, each with a slot */
	uint32_t ext_type_len;	/* the extension's type records */
	uint32_t ext_str_len;	/* its strings, numbered after the member's */
	uint32_t nr_flags;	/* FUNCs of the member, then of the extension */
};
#define ABTF_ADDR_MAGIC2	"BTFB"

/* A FUNC's flags byte (pahole 1.31's per-function facts). */
#define ABTF_FN_ALL		0x7f	/* the bits defined; others are 0 */
#define ABTF_FN_OPTIMIZED	0x01	/* parameters optimized, ABI changed */
#define ABTF_FN_UNEXPECTED_REG	0x02	/* a parameter in an unexpected register */
#define ABTF_FN_REORDERED	0x04	/* parameters reordered */
#define ABTF_FN_WEAK		0x08	/* its symbol is weak in its object */
#define ABTF_FN_OPTIMIZED_ABI	0x10	/* parameters optimized, DW_CC_nocall */
#define ABTF_FN_VARARGS_DIFFER	0x20	/* "..." in one instance, not another */
#define ABTF_FN_NO_ADDR		0x40	/* its DWARF has no DW_AT_low_pc */

/* A slot's size: an address of the target (@ei_class: ELFCLASS32/64). */
size_t abtf__addr_slot_size(unsigned char ei_class);

/* ---- writing (the encoder): one version 2 group ---- */

/* What an object's group says, in host order. */
struct abtf_addr_group_out {
	unsigned char ei_class, ei_data;	/* the target's ELF class, byte order */
	uint32_t nr_slots;	/* FUNCs and VARs of the member */
	uint32_t nr_extra;	/* extension FUNCs, slots after nr_slots */
	const void *btf;	/* the member it describes */
	uint32_t btf_size;
	const void *ext;	/* the extension's types then strings */
	uint32_t ext_type_len, ext_str_len;
	const uint8_t *flags;	/* ABTF_FN_*, one per FUNC */
	uint32_t nr_flags;
};

/* The offset of slot @k in a group written by abtf__addr_group_make(). */
size_t abtf__addr_slot_offset(unsigned char ei_class, size_t k);

/*
 * The group's bytes (malloc()ed, *size set): header, zeroed slots the
 * linker fills through relocations, the extension, the flags, padding.
 */
void *abtf__addr_group_make(const struct abtf_addr_group_out *g, size_t *size);

/* ---- reading (the linker): the linked section's groups ---- */

/* A group of .debug_btf_addr, version 1 ("BTFA") or 2 ("BTFB"). */
struct abtf_addr_group {
	uint32_t btf_size, btf_hash;	/* the member it describes */
	size_t slots_off;	/* offsets in the section */
	uint32_t nr_slots;	/* the member's FUNCs and VARs */
	/* version 2: its extension FUNCs and the FUNCs' flags */
	uint32_t nr_extra;	/* extension FUNCs, slots after nr_slots */
	uint32_t ext_type_len, ext_str_len;
	size_t ext_off;
	uint32_t nr_flags;
	size_t flags_off;
	size_t end;		/* past the group and its padding */
};

/* The section's bytes (mapped, in the target's order) and its slot size. */
struct abtf_addr_sec {
	const uint8_t *data;
	size_t size;
	size_t slot_size;
	bool swapped;		/* the target's byte order is not the host's */
};

/* The group at @at, if one is there, is valid and fits in the section. */
bool abtf__addr_group_read(const struct abtf_addr_sec *s, size_t at,
			   struct abtf_addr_group *g);

/* Past the zero padding at @at that aligns the next group to a slot. */
size_t abtf__addr_skip_pad(const struct abtf_addr_sec *s, size_t at);

/* The value of the slot at byte @at: 0, or an address + 1 (final image). */
uint64_t abtf__addr_slot_value(const struct abtf_addr_sec *s, size_t at);

/* Flags byte @k of group @g (k < g->nr_flags). */
static inline uint8_t abtf__addr_flags(const struct abtf_addr_sec *s,
				       const struct abtf_addr_group *g,
				       uint32_t k)
{
	return s->data[g->flags_off + k];
}

/* ---- the relocations of .debug_btf_addr (a relocatable input) ---- */

struct abtf_addr_rela {
	uint64_t offset;	/* in .debug_btf_addr */
	uint32_t sym;
	uint32_t idx;		/* its index in the relocation section */
	int64_t addend;
};

/* By offset, for lookups; inplace (SHT_REL): the addend is in the slot. */
struct abtf_addr_relocs {
	struct abtf_addr_rela *r;
	size_t nr;
	bool inplace;
};

/*
 * Load and sort the relocation section against section @addr_shndx of
 * @elf, if there is one (none: 0, empty table). Errors are printed as
 * "PATH: what: libelf's message".
 */
int abtf__addr_relocs_load(Elf *elf, size_t addr_shndx, const char *path,
			   const struct abtf_printer *pr,
			   struct abtf_addr_relocs *t);
/* The relocation of the slot at byte @offset, or NULL. */
const struct abtf_addr_rela *
abtf__addr_reloc_at(const struct abtf_addr_relocs *t, uint64_t offset);
void abtf__addr_relocs_free(struct abtf_addr_relocs *t);

#endif /* __ABTF_ADDR_H */
