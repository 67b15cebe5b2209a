/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading ELF (elf_read.c): the checks every reader relies on, sections
 * by name and type, symbol tables with their extended indices. Not
 * installed.
 */
#ifndef __ABTF_ELF_READ_H
#define __ABTF_ELF_READ_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/internal.h"

/* The largest sh_addralign accepted: a huge page (x86-64's PMD). */
#define ABTF_MAX_ALIGN		(2u << 20)

/*
 * Check once what every reader of @elf (a file of @fsize bytes, named
 * @path in errors) relies on: the section header table and every section
 * inside the file, alignments, section indices in headers, with extended
 * numbering; the symbols of every relocation, or with @relocs_of only of
 * the relocations that apply to the section of that name. 0 or -EINVAL
 * after one message.
 */
int abtf__elf_check(Elf *elf, size_t fsize, const char *path,
		    const char *relocs_of, const struct abtf_printer *pr);
/*
 * The section index of symbol @s, number @idx of its table, reading
 * SHN_XINDEX through @xndx (the table's SHT_SYMTAB_SHNDX data, or NULL).
 * Reserved indices (SHN_ABS, SHN_COMMON) come back as they are; -EINVAL
 * for an SHN_XINDEX without its word.
 */
int abtf__sym_shndx(const GElf_Sym *s, Elf_Data *xndx, size_t idx);
/*
 * The section of symbol @s whose index abtf__sym_shndx() or abtf__elf_sym()
 * resolved to @shndx: SHN_UNDEF where it is in none (SHN_ABS, SHN_COMMON).
 */
int abtf__sym_section(const GElf_Sym *s, int shndx);
/* The data of the first section named @name (not SHT_NOBITS), or NULL. */
Elf_Data *abtf__elf_section_data(Elf *elf, const char *name);
/* The name of section @shndx, or NULL. */
const char *abtf__elf_scn_name(Elf *elf, size_t shndx);
/*
 * The index of the first section of type @type (SHT_NULL: any type) named
 * @name (NULL: any name), its header in *@shdr if not NULL; 0 if there is
 * none.
 */
size_t abtf__elf_find(Elf *elf, uint32_t type, const char *name,
		      GElf_Shdr *shdr);
/*
 * The index of the first SHT_RELA or SHT_REL section that applies to
 * section @target, its header in *@shdr if not NULL; 0 if there is none.
 */
size_t abtf__elf_relocs_of(Elf *elf, size_t target, GElf_Shdr *shdr);
/* The SHT_SYMTAB_SHNDX data of symbol table @symtab, or NULL. */
Elf_Data *abtf__elf_xndx(Elf *elf, size_t symtab);

/* A symbol table with its extended section indices and its names. */
struct abtf_elf_syms {
	Elf *elf;
	Elf_Data *data;		/* the symbols (libelf's, host order) */
	Elf_Data *xndx;		/* its SHT_SYMTAB_SHNDX words, or NULL */
	size_t nr;		/* symbols, the null one included */
	size_t shndx;		/* the table's section */
	size_t strndx;		/* the section of its names */
	bool in_place;		/* Elf64_Sym in the host's order: read as is */
};

/*
 * Symbol @i of @t read in place, where the table is Elf64_Sym in the
 * host's order and the symbol's section index needs no SHT_SYMTAB_SHNDX:
 * true; false: ask abtf__elf_sym(). Inline, for the loops over every
 * relocation of an object.
 */
static inline bool abtf__elf_sym_fast(const struct abtf_elf_syms *t, size_t i,
				      GElf_Sym *s)
{
	const GElf_Sym *p;

	if (!t->in_place || i >= t->nr)
		return false;
	p = (const GElf_Sym *)t->data->d_buf + i;
	if (p->st_shndx == SHN_XINDEX)
		return false;
	*s = *p;
	return true;
}
/*
 * The first table of type @type (SHT_SYMTAB, SHT_DYNSYM) of @elf into
 * *@t: 0, -ENOENT if there is none, -EINVAL if it does not read.
 */
int abtf__elf_syms_open(Elf *elf, uint32_t type, struct abtf_elf_syms *t);
/* The symbol table of section @shndx into *@t: 0 or -EINVAL. */
int abtf__elf_syms_at(Elf *elf, size_t shndx, struct abtf_elf_syms *t);
/*
 * Symbol @i of @t into *@s, with its section index (SHN_XINDEX resolved,
 * reserved indices as they are) into *@shndx and its name (NULL if it has
 * none that reads) into *@name, each if not NULL. 0 or -EINVAL.
 */
int abtf__elf_sym(const struct abtf_elf_syms *t, size_t i, GElf_Sym *s,
		  int *shndx, const char **name);

#endif /* __ABTF_ELF_READ_H */
