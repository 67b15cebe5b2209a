/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dwarf_reloc.c: an object's DWARF sections decompressed and relocated,
 * and which section an address read from them is in.
 */
#ifndef __ABTF_DWARF_RELOC_H
#define __ABTF_DWARF_RELOC_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

/* The sections whose addresses are told apart by their relocations. */
enum { ABTF_DW_INFO, ABTF_DW_ADDR, ABTF_DW_NR };

/*
 * Pointer-sized relocations of .debug_info and .debug_addr: which section
 * an address is in.
 */
struct abtf_dwarf_addr {
	int sec;		/* ABTF_DW_INFO or ABTF_DW_ADDR */
	uint64_t off;		/* in that section */
	uint32_t shndx;
};

struct abtf_dwarf_rel {
	Elf_Data *data[ABTF_DW_NR];	/* the relocated sections */
	struct abtf_dwarf_addr *addrs;	/* by section, then offset */
	size_t nr, cap;
	Elf *linked;		/* a linked file: addresses are its own */
};

/*
 * The object open at @fd with its compressed debug sections inflated and,
 * in a relocatable object, the relocations of the sections the type walk
 * reads applied (dwarf_reloc.c), as an Elf to end with elf_end(). NULL
 * with errno set and @why (@why_size bytes) saying what is wrong. @rel
 * tells addresses' sections (abtf__dwarf_addr_section(); free with
 * abtf__dwarf_rel_free()).
 */
Elf *abtf__dwarf_open(int fd, struct abtf_dwarf_rel *rel, char *why,
		      size_t why_size);
/*
 * The section of the address @addr read at @p: an operand in .debug_info
 * or an entry of .debug_addr, told by its relocation (a relocatable
 * object) or by the address (a linked file). 0 or -ENOENT.
 */
int abtf__dwarf_addr_section(const struct abtf_dwarf_rel *rel,
			     const unsigned char *p, uint64_t addr,
			     uint32_t *shndx);
void abtf__dwarf_rel_free(struct abtf_dwarf_rel *rel);

#endif /* __ABTF_DWARF_RELOC_H */
