/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * symbols.c: the input's sections and symbols (struct link_symbols), by
 * index for placing by slot, by name for placing and choosing by name.
 */
#ifndef __ABTF_LINK_SYMBOLS_H
#define __ABTF_LINK_SYMBOLS_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct abtf_linker;

struct lsec {
	const char *name;
	uint64_t addr, size, flags;
};

/* A defined FUNC or OBJECT symbol, for placement by name. */
struct lsym {
	const char *name;
	/* its first 16 bytes, big-endian, zero after the NUL: sorting */
	uint64_t key[2];
	uint64_t value;
	uint64_t size;
	uint32_t idx;		/* in .symtab */
	uint32_t shndx;
	uint8_t type;		/* STT_FUNC or STT_OBJECT */
	uint8_t bind;
};

/* Every symbol by index: what a relocation of .debug_btf_addr points at. */
struct lsymval {
	uint64_t value;
	uint32_t shndx;
};

/*
 * The input's sections, read at open (input.c), and symbols (symbols.c,
 * the symbols by name made on demand while planning,
 * abtf__syms_by_name()), read-only after: freed by symbols.c's
 * abtf__link_symbols_free().
 */
struct link_symbols {
	struct lsec *secs;	/* by section index */
	size_t nr_secs;
	Elf_Scn *symtab;	/* .symtab, NULL without one */
	size_t symtab_strs;	/* its string table's section index */
	struct lsym *syms;	/* defined FUNC/OBJECT symbols, by name */
	size_t nr_syms;
	bool sorted;		/* syms made (abtf__syms_by_name()) */
	bool loaded;		/* vals read (abtf__link_symbols_load()) */
	struct lsymval *vals;	/* every symbol, by index */
	size_t nr_vals;
};

/* Its symbols' values and sections (l->sym.vals), once; 0 or -errno. */
int abtf__link_symbols_load(struct abtf_linker *l);
/*
 * Make l->sym.syms, the defined FUNC and OBJECT symbols sorted by name,
 * for abtf__first_sym(): only placing and choosing by name need them (a
 * member without a .debug_btf_addr group, funcs.c's choices), so a kernel
 * image whose members all have groups pays for neither the memory nor the
 * sort. Single-threaded: before the leaves run. 0 or a negative errno.
 */
int abtf__syms_by_name(struct abtf_linker *l);
size_t abtf__first_sym(const struct abtf_linker *l, const char *name);
/* The STT_FILE symbol before local symbol @idx, or NULL */
const char *abtf__sym_file(const struct abtf_linker *l, size_t idx);
void abtf__link_symbols_free(struct link_symbols *s);

#endif /* __ABTF_LINK_SYMBOLS_H */
