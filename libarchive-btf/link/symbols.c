// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The input's symbols (see the essay atop linker.c, step 1): every
 * symbol's value and section by index, for placing by slot, read once by
 * the link; the defined FUNC and OBJECT symbols sorted by name, made on
 * demand for placing and choosing by name; the STT_FILE a local symbol
 * follows, for explain's messages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "link/linker.h"
#include "link/symbols.h"
#include "elf/elf_read.h"

/*
 * strcmp()'s order from the keys (unsigned bytes, as strcmp() compares
 * them), the names themselves read only past 16 equal bytes: most
 * comparisons of a kernel's tens of thousands of symbols then touch no
 * name at all.
 */
static int lsym_cmp(const void *a, const void *b)
{
	const struct lsym *x = a, *y = b;
	int c = 0, k;

	for (k = 0; k < 2 && !c; k++)
		c = x->key[k] < y->key[k] ? -1 : x->key[k] > y->key[k];
	/* equal keys without a NUL in them: the rest decides */
	if (!c && (y->key[1] & 0xff))
		c = strcmp(x->name + 16, y->name + 16);
	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void lsym_key(struct lsym *e)
{
	const unsigned char *p = (const unsigned char *)e->name;
	bool end = false;
	int i;

	e->key[0] = e->key[1] = 0;
	for (i = 0; i < 16; i++) {
		end = end || !p[i];
		e->key[i / 8] = e->key[i / 8] << 8 | (end ? 0 : p[i]);
	}
}

static void add_lsym(struct abtf_linker *l, const GElf_Sym *s, uint32_t i,
		     uint32_t shndx, const char *name)
{
	int type = GELF_ST_TYPE(s->st_info);
	struct lsym *e;

	if ((type != STT_FUNC && type != STT_OBJECT) || !shndx ||
	    shndx >= l->sym.nr_secs || !name || !*name)
		return;
	e = &l->sym.syms[l->sym.nr_syms++];
	e->name = name;
	e->value = s->st_value;
	e->size = s->st_size;
	e->idx = i;
	e->shndx = shndx;
	e->type = type;
	e->bind = GELF_ST_BIND(s->st_info);
	lsym_key(e);
}

int abtf__syms_by_name(struct abtf_linker *l)
{
	struct link_symbols *sy = &l->sym;
	struct abtf_elf_syms t;
	size_t i, n = sy->nr_vals;
	int err;

	if (sy->sorted || !sy->symtab)
		return 0;
	err = abtf__elf_syms_open(l->file.elf, SHT_SYMTAB, &t);
	sy->syms = calloc(n + 1, sizeof(*sy->syms));
	if (err || !sy->syms)
		return err ? abtf__link_elf_fail(l, "cannot read .symtab") : -ENOMEM;
	for (i = 1; i < n; i++) {
		const char *name;
		GElf_Sym s;
		int shndx;

		if (abtf__elf_sym(&t, i, &s, &shndx, &name))
			return abtf__link_elf_fail(l, "bad symbol");
		add_lsym(l, &s, i, abtf__sym_section(&s, shndx), name);
	}
	if (sy->nr_syms)
		qsort(sy->syms, sy->nr_syms, sizeof(*sy->syms), lsym_cmp);
	sy->sorted = true;
	return 0;
}

/* The index of the first defined symbol called @name (or where it would be). */
size_t abtf__first_sym(const struct abtf_linker *l, const char *name)
{
	size_t lo = 0, hi = l->sym.nr_syms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(l->sym.syms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The name of the STT_FILE symbol that local symbol @idx follows, or NULL:
 * ld writes each input file's local symbols after its STT_FILE (globals
 * come last, all together, and name no file). For explain's messages.
 */
const char *abtf__sym_file(const struct abtf_linker *l, size_t idx)
{
	const struct link_symbols *sy = &l->sym;
	Elf_Data *d = sy->symtab ? elf_getdata(sy->symtab, NULL) : NULL;
	GElf_Sym s;

	if (!d || !idx || idx >= sy->nr_vals || !gelf_getsym(d, idx, &s) ||
	    GELF_ST_BIND(s.st_info) != STB_LOCAL ||
	    GELF_ST_TYPE(s.st_info) == STT_SECTION)
		return NULL;
	while (--idx) {
		if (!gelf_getsym(d, idx, &s) ||
		    GELF_ST_BIND(s.st_info) != STB_LOCAL)
			return NULL;
		if (GELF_ST_TYPE(s.st_info) == STT_FILE)
			return elf_strptr(l->file.elf, sy->symtab_strs,
					  s.st_name);
	}
	return NULL;
}

/*
 * Every symbol's value and section by index, for placing by slot (by
 * name: abtf__syms_by_name()): read by the link, not at open, so that a
 * file opened only to be checked (a --base, each --compare operand) does
 * not read vmlinux's symbol table.
 */
int abtf__link_symbols_load(struct abtf_linker *l)
{
	struct abtf_elf_syms t;
	size_t i;
	int err;

	if (!l->file.elf || l->sym.loaded)
		return 0;
	l->sym.loaded = true;

	err = abtf__elf_syms_open(l->file.elf, SHT_SYMTAB, &t);
	if (err == -ENOENT)
		return 0;
	if (err)
		return abtf__link_elf_fail(l, "cannot read .symtab");
	l->sym.vals = calloc(t.nr + 1, sizeof(*l->sym.vals));
	l->plan.sym_used = calloc(t.nr + 1, sizeof(*l->plan.sym_used));
	if (!l->sym.vals || !l->plan.sym_used)
		return -ENOMEM;
	for (i = 1; i < t.nr; i++) {
		GElf_Sym s;
		int shndx;

		if (abtf__elf_sym(&t, i, &s, &shndx, NULL))
			return abtf__link_elf_fail(l, "bad symbol");
		l->sym.vals[i].value = s.st_value;
		l->sym.vals[i].shndx = abtf__sym_section(&s, shndx);
	}
	l->sym.nr_vals = t.nr;
	l->sym.symtab = elf_getscn(l->file.elf, t.shndx);
	l->sym.symtab_strs = t.strndx;
	return 0;
}

void abtf__link_symbols_free(struct link_symbols *s)
{
	free(s->secs);
	free(s->syms);
	free(s->vals);
	memset(s, 0, sizeof(*s));
}
