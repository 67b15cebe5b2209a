// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The object's defined FUNC and OBJECT symbols, sorted by name (then
 * symbol index, so the first of a name is the first in .symtab): what a
 * FUNC or VAR stands for. Each symbol is given to one FUNC or VAR at most.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "encode/enc.h"
#include "elf/elf_read.h"

static bool is_percpu_section(const char *name)
{
	size_t len = strlen(ABTF_PERCPU_SEC);

	return name && !strncmp(name, ABTF_PERCPU_SEC, len) &&
	       (!name[len] || !strncmp(name + len, "..", 2));
}

static int sym_cmp(const void *a, const void *b)
{
	const struct enc_sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int add_sym(struct enc_syms *ss, const struct enc_obj *o, size_t *cap,
		   const GElf_Sym *s, const char *name, uint32_t idx,
		   uint32_t shndx)
{
	struct enc_sym *e;

	if (abtf_grow(ss->v, *cap, ss->nr + 1))
		return -ENOMEM;
	e = &ss->v[ss->nr++];
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->value = s->st_value;
	e->size = s->st_size;
	e->idx = idx;
	e->shndx = shndx;
	e->type = GELF_ST_TYPE(s->st_info) == STT_OBJECT ? STT_OBJECT : STT_FUNC;
	e->bind = GELF_ST_BIND(s->st_info);
	e->secname = enc_obj__section_name(o, shndx);
	return 0;
}

static bool sym_wanted(const GElf_Sym *s, uint32_t shndx)
{
	int type = GELF_ST_TYPE(s->st_info);

	if (shndx == SHN_UNDEF || (shndx >= SHN_LORESERVE && shndx != SHN_XINDEX))
		return false;
	return type == STT_FUNC || type == STT_OBJECT;
}

int enc_syms__load(struct enc_syms *ss, const struct enc_obj *o)
{
	struct abtf_elf_syms t;
	size_t i, cap = 0;
	int err;

	err = abtf__elf_syms_open(o->elf, SHT_SYMTAB, &t);
	if (err == -ENOENT)
		return 0;	/* no symbols: no FUNC, no VAR */
	if (err)
		return enc_obj__elf_error(o, "cannot read .symtab");
	for (i = 1; i < t.nr; i++) {
		const char *name;
		GElf_Sym s;
		int shndx;

		if (abtf__elf_sym(&t, i, &s, &shndx, NULL))
			return enc_obj__elf_error(o, "cannot read .symtab");
		if (!sym_wanted(&s, s.st_shndx) || !shndx)
			continue;
		/* the name of a wanted symbol alone */
		name = elf_strptr(o->elf, t.strndx, s.st_name);
		if (!name || !*name)
			continue;
		if (add_sym(ss, o, &cap, &s, name, i, shndx))
			return -ENOMEM;
	}
	if (ss->nr)
		qsort(ss->v, ss->nr, sizeof(*ss->v), sym_cmp);
	for (i = 0; i < ss->nr; i++)
		if (ss->v[i].type == STT_OBJECT && ss->v[i].size &&
		    is_percpu_section(ss->v[i].secname))
			ss->has_percpu = true;
	return 0;
}

void enc_syms__free(struct enc_syms *ss)
{
	free(ss->v);
	memset(ss, 0, sizeof(*ss));
}

/* The index of the first symbol whose name is >= @name. */
static size_t first_sym(const struct enc_syms *ss, const char *name)
{
	size_t lo = 0, hi = ss->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(ss->v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct enc_sym *enc_syms__find(struct enc_syms *ss, const char *name,
			       uint8_t type)
{
	size_t lo = first_sym(ss, name);

	for (; lo < ss->nr && !strcmp(ss->v[lo].name, name); lo++) {
		struct enc_sym *s = &ss->v[lo];

		if (!s->used && s->type == type)
			return s;
	}
	return NULL;
}

bool enc_sym__is_of(const struct enc_sym *sym, const char *name)
{
	return !strcmp(sym->name, name) ||
	       abtf__is_thinlto_name(sym->name, name, strlen(name));
}

struct enc_sym *enc_syms__find_thinlto(struct enc_syms *ss, const char *name)
{
	size_t len = strlen(name), lo = first_sym(ss, name);

	/* "name.llvm.N" sorts after "name" and before "name/" */
	for (; lo < ss->nr && !strncmp(ss->v[lo].name, name, len) &&
	       (unsigned char)ss->v[lo].name[len] <= '.'; lo++) {
		struct enc_sym *s = &ss->v[lo];

		if (!s->used && s->type == STT_FUNC &&
		    abtf__is_thinlto_name(s->name, name, len))
			return s;
	}
	return NULL;
}

bool enc_sym__of_var(const char *sym, const char *name)
{
	size_t len = strlen(name);
	const char *p = sym;

	for (;;) {
		if (!strncmp(p, name, len) && (p[len] == '.' || !p[len]))
			return true;
		p = strchr(p, '.');
		if (!p)
			return false;
		p++;
	}
}

struct enc_sym *enc_syms__percpu_at(struct enc_syms *ss, uint32_t shndx,
				    uint64_t addr, const char *name)
{
	size_t i;

	for (i = 0; i < ss->nr; i++) {
		struct enc_sym *s = &ss->v[i];

		if (s->shndx == shndx && s->value == addr && !s->used &&
		    s->type == STT_OBJECT && s->size &&
		    is_percpu_section(s->secname) &&
		    (!name || enc_sym__of_var(s->name, name)))
			return s;
	}
	return NULL;
}

void enc_syms__take(struct enc_sym *sym)
{
	sym->used = true;
}
