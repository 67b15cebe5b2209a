// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which functions a link with the "optimized_func" or "consistent_func"
 * feature leaves out: pahole 1.31's cross-unit rules (docs/design.md,
 * "optimized_func and consistent_func"), decided once, before the merge
 * tree runs, by name:
 *
 *  - optimized_func: a FUNC of the name whose flags byte (cc-btf's, from
 *    its parameters' locations; docs/archive-format.md) says a parameter
 *    is in an unexpected register or the parameters are reordered; or
 *    every FUNC of the name flagged "optimized" (pahole keeps the first
 *    state that is not);
 *  - consistent_func, inconsistent prototypes: every FUNC of the archive
 *    whose function is in the final image is one "state" of its name;
 *    pahole compares the first state of a name with each later one,
 *    loosely (below), and if any differs the name gets no FUNC at all;
 *  - either, ambiguous address: the final symbol table has function
 *    symbols for the name (the name itself, or the name followed by '.'
 *    and a suffix such as ".isra.0", ".constprop.0"; never ".cold" or
 *    ".part" pieces) at more than one address.
 *
 * pahole's loose comparison (btf_encoder.c's types__match) follows
 * pointers, qualifiers, type tags and arrays (by element count) down to a
 * named type and compares that by kind and name only (a FWD counts as the
 * struct or union it declares, an INT also by size and encoding, a FLOAT
 * by size); CONST is skipped where the other side has none, but not in
 * front of void; a nested FUNC_PROTO compares its return and parameter
 * types. Two types match iff the strings sig_type() writes for them are
 * equal, so each FUNC is reduced to one string in its own member, in
 * parallel (one task per leaf), and the strings are compared after.
 *
 * Determinism: the leaves' records are sorted by name and then by their
 * place in the archive, so "first" is link order at any -j.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/btf.h>

#include "link/linker.h"
#include "link/input.h"
#include "link/symbols.h"
#include "link/plan.h"
#include "link/pool.h"
#include "link/place.h"
#include "link/funcs.h"
#include "link/node.h"

/* Deeper than any C type a prototype names; hostile cycles stop here. */
#define SIG_MAX_STEPS	64
#define SIG_MAX_DEPTH	8

/* One member's types by ID, for following references. */
struct mview {
	const struct input *in;
	const uint32_t *toff;	/* ID -> record offset */
};

static void sb_named(struct sbuf *b, const char *kind,
		     const struct mview *m, const struct btf_type *t)
{
	abtf__sb_add(b, kind);
	abtf__sb_add(b, m->in->strs + t->name_off);
	abtf__sb_add(b, "\x01");
}

static const struct btf_type *mtype(const struct mview *m, uint32_t id)
{
	return (const void *)(m->in->types + m->toff[id]);
}

static void sig_type(const struct mview *m, uint32_t id, struct sbuf *b,
		     int depth);

static void sig_proto(const struct mview *m, const struct btf_type *t,
		      struct sbuf *b, int depth)
{
	const struct btf_param *p = (const void *)(t + 1);
	uint16_t i, vlen = BTF_INFO_VLEN(t->info);

	abtf__sb_add(b, "(");
	sig_type(m, t->type, b, depth + 1);
	for (i = 0; i < vlen; i++) {
		abtf__sb_add(b, ",");
		sig_type(m, p[i].type, b, depth + 1);
	}
	abtf__sb_add(b, ")");
}

/*
 * What sig_type() writes for the kinds that need no more than a mark: a
 * named type, its mark and its name, which ends the signature; a
 * reference, its mark, and the signature goes on with the type it refers
 * to. Indexed by kind (BTF_INFO_KIND()'s 5 bits); sig_end() writes the
 * other kinds' ends.
 */
static const struct sig_kind {
	const char *named;
	const char *ref;
} sig_kinds[32] = {
	[BTF_KIND_TYPEDEF]	= { .named = "t" },
	[BTF_KIND_STRUCT]	= { .named = "s" },
	[BTF_KIND_UNION]	= { .named = "u" },
	[BTF_KIND_ENUM]		= { .named = "e" },
	[BTF_KIND_ENUM64]	= { .named = "E" },
	[BTF_KIND_PTR]		= { .ref = "*" },
	[BTF_KIND_VOLATILE]	= { .ref = "v" },
	[BTF_KIND_RESTRICT]	= { .ref = "r" },
	[BTF_KIND_TYPE_TAG]	= { .ref = "g" },
};

/* The end of the signature of type @id, @t, of a kind not in sig_kinds. */
static void sig_end(const struct mview *m, uint32_t id,
		    const struct btf_type *t, struct sbuf *b, int depth)
{
	char tmp[64];

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		snprintf(tmp, sizeof(tmp), "i%u:%x:", t->size,
			 *(const uint32_t *)(t + 1));
		sb_named(b, tmp, m, t);
		return;
	case BTF_KIND_FLOAT:
		snprintf(tmp, sizeof(tmp), "f%u:", t->size);
		sb_named(b, tmp, m, t);
		return;
	case BTF_KIND_FWD:
		sb_named(b, BTF_INFO_KFLAG(t->info) ? "u" : "s", m, t);
		return;
	case BTF_KIND_FUNC_PROTO:
		sig_proto(m, t, b, depth);
		return;
	default:	/* pahole never matches these */
		snprintf(tmp, sizeof(tmp), "!%u", id);
		abtf__sb_add(b, tmp);
		return;
	}
}

/* The loose signature of type @id (see the essay). */
static void sig_type(const struct mview *m, uint32_t id, struct sbuf *b,
		     int depth)
{
	unsigned int consts = 0, steps;
	const struct sig_kind *sk;
	const struct btf_array *a;
	const struct btf_type *t;
	char tmp[64];

	for (steps = 0; steps < SIG_MAX_STEPS && depth < SIG_MAX_DEPTH;
	     steps++) {
		if (!id) {
			while (consts--)
				abtf__sb_add(b, "c");
			abtf__sb_add(b, "0");
			return;
		}
		if (id > m->in->nr_types)
			break;
		t = mtype(m, id);
		if (BTF_INFO_KIND(t->info) == BTF_KIND_CONST) {
			consts++;
			id = t->type;
			continue;
		}
		consts = 0;
		sk = &sig_kinds[BTF_INFO_KIND(t->info)];
		if (sk->named) {
			sb_named(b, sk->named, m, t);
			return;
		}
		if (sk->ref) {
			abtf__sb_add(b, sk->ref);
			id = t->type;
			continue;
		}
		if (BTF_INFO_KIND(t->info) != BTF_KIND_ARRAY) {
			sig_end(m, id, t, b, depth);
			return;
		}
		a = (const void *)(t + 1);
		snprintf(tmp, sizeof(tmp), "[%u]", a->nelems);
		abtf__sb_add(b, tmp);
		id = a->type;
	}
	abtf__sb_add(b, "?");
}

char *funcs__sig(const struct input *in, const uint32_t *toff,
		     uint32_t id)
{
	struct mview m = { .in = in, .toff = toff };
	struct sbuf b = { 0 };
	char *sig;

	sig_type(&m, mtype(&m, id)->type, &b, 0);
	return abtf__sb_take(&b, &sig) ? NULL : sig;
}

/* ---- one leaf: a (name, signature) record per FUNC in the image ---- */

static int add_rec(struct func_sigs *fs, int64_t name, int64_t sig,
		   uint8_t flags, uint32_t member, uint32_t ordinal)
{
	struct fsig *f;

	if (name < 0 || sig < 0)
		return name < 0 ? name : sig;
	if (abtf_grow(fs->sigs, fs->cap, fs->nr + 1))
		return -ENOMEM;
	f = &fs->sigs[fs->nr++];
	f->name = name;
	f->sig = sig;
	f->flags = flags;
	f->member = member;
	f->ordinal = ordinal;
	return 0;
}

void funcs__sigs_free(struct func_sigs *fs)
{
	abtf__strtab_free(&fs->strs);
	free(fs->sigs);
	memset(fs, 0, sizeof(*fs));
}

/* The flags byte of the @k-th FUNC of a member (0 without a group). */
static uint8_t func_flags(const struct abtf_linker *l, const struct input *in,
			  uint32_t k)
{
	const struct mplan *mp = in->plan;

	if (in->kind != IN_SLOTS || k >= mp->grp.nr_flags)
		return 0;
	return abtf__addr_flags(&l->file.addr, &mp->grp, k);
}

static int member_sigs(struct abtf_linker *l, struct func_sigs *fs,
		       const struct input *in, uint32_t nr_slots,
		       struct sbuf *b)
{
	uint32_t *toff = abtf__type_offsets(in->types, in->nr_types);
	struct mview m = { .in = in, .toff = toff };
	uint32_t id, slot = 0, nr_funcs = 0;
	int err = 0;

	if (!toff)
		return -ENOMEM;
	for (id = 1; !err && id <= in->nr_types; id++) {
		const struct btf_type *t = mtype(&m, id);
		const char *name = in->strs + t->name_off;
		int kind = BTF_INFO_KIND(t->info);

		if (kind != BTF_KIND_FUNC && kind != BTF_KIND_VAR)
			continue;
		if (in->kind == IN_SLOTS && slot >= nr_slots) {
			err = -EINVAL;
			break;
		}
		if (kind == BTF_KIND_VAR) {
			slot++;
			continue;
		}
		err = place__func_present(l, in, slot++, name);
		nr_funcs++;
		if (err <= 0)
			continue;
		abtf__sb_reset(b);
		sig_type(&m, t->type, b, 0);
		err = b->err ? b->err :
		      add_rec(fs, abtf__strtab_add(&fs->strs, name),
			      abtf__strtab_add(&fs->strs, b->buf),
			      func_flags(l, in, nr_funcs - 1),
			      abtf__member_idx(l, in->plan), nr_funcs - 1);
	}
	free(toff);
	return err < 0 ? err : 0;
}

struct sigs_ctx {
	struct abtf_linker *l;
	struct func_sigs *fs;
	struct sbuf *b;
};

static int sigs_of(const struct input *in, uint32_t nr_slots, void *ctx)
{
	struct sigs_ctx *c = ctx;

	return member_sigs(c->l, c->fs, in, nr_slots, c->b);
}

/* One member, read alone (place__with_member()); its messages go to @n's. */
static int funcs_member(struct abtf_linker *l, struct node *n, size_t idx,
			struct abtf_rbuf *rb, struct sbuf *b)
{
	struct sigs_ctx c = { .l = l, .fs = &n->fsigs, .b = b };
	int err;

	err = place__with_member(l, &n->pr, idx, false, rb, sigs_of, &c);
	if (err == -EINVAL && !n->msg[0])
		pr_warn(&n->pr, "%s member %zu at byte %zu: its "
			".debug_btf_addr group has too few slots",
			l->where, idx, l->plan.members[idx].off);
	return err;
}

static int funcs_leaf(struct abtf_linker *l, struct node *n, void *ctx)
{
	struct abtf_rbuf rb = { 0 };
	struct sbuf b = { 0 };
	size_t i;
	int err = 0;

	(void)ctx;
	for (i = 0; !err && i < n->nr; i++)
		err = funcs_member(l, n, n->first + i, &rb, &b);
	free(rb.data);
	free(b.buf);
	return err;
}

/* ---- the whole archive ---- */

struct frec {
	const char *name, *sig;
	size_t seq;		/* place in the archive */
	uint8_t flags;		/* ABTF_FN_* */
	uint64_t key;		/* member << 32 | FUNC ordinal */
};

static int frec_cmp(const void *a, const void *b)
{
	const struct frec *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Is @sym @name or @name followed by a byte up to '.'? */
static bool has_prefix(const char *sym, const char *name, size_t len)
{
	return !strncmp(sym, name, len) && (unsigned char)sym[len] <= '.';
}

/* A piece of a function GCC split (pahole files no symbol of these). */
static bool is_piece(const char *sym)
{
	return strstr(sym, ".cold") || strstr(sym, ".part");
}

static int lsym_idx_cmp(const void *a, const void *b)
{
	const struct lsym *x = *(const struct lsym *const *)a;
	const struct lsym *y = *(const struct lsym *const *)b;

	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * Function symbols of @name (or "name.suffix") at more than one address,
 * as pahole sees it: in symbol table order, an address of 0 counts as
 * none yet (so in a relocatable file, where a function at the start of
 * its section is at 0, "0 then 0x10" is one address and "0x10 then 0"
 * two). 1 yes, 0 no, < 0 error.
 */
static int ambiguous_address(const struct abtf_linker *l, const char *name)
{
	const struct link_symbols *sy = &l->sym;
	size_t len = strlen(name), i = abtf__first_sym(l, name), n = 0, k;
	const struct lsym **v;
	uint64_t addr = 0;
	int ret = 0;

	/* sorted by name: "name", then "name" and a byte below '.', then
	 * "name.suffix", then the names that go on with a byte above '.' */
	for (k = i; k < sy->nr_syms && has_prefix(sy->syms[k].name, name, len);
	     k++)
		n++;
	if (n < 2)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (n = 0; i < k; i++) {
		const struct lsym *s = &sy->syms[i];
		char next = s->name[len];

		if (s->type == STT_FUNC && (!next || next == '.') &&
		    !is_piece(s->name))
			v[n++] = s;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), lsym_idx_cmp);
	for (k = 0; k < n && !ret; k++) {
		if (addr && addr != v[k]->value)
			ret = 1;
		addr = v[k]->value;
	}
	free(v);
	return ret;
}

static int drop_name(struct abtf_linker *l, const char *name, int why,
		     const char *words)
{
	struct func_rules *fr = &l->fn_rules;
	int64_t off = abtf__strtab_add(&fr->drop_strs, name);

	if (off < 0)
		return off;
	if (abtf_grow(fr->drop, fr->cap_drop, fr->nr_drop + 1))
		return -ENOMEM;
	fr->drop[fr->nr_drop].name = (const char *)(uintptr_t)off;
	fr->drop[fr->nr_drop].why = why;
	fr->nr_drop++;
	pr_debug(&l->pr, "%s: FUNC %s left out: %s", l->path, name, words);
	return 0;
}

/*
 * Is the final symbol called @name weak? A weak definition of an object
 * whose symbol the linker resolved to another (strong) one left its code
 * without a symbol: pahole's state for it is at no symbol's address.
 */
static bool final_weak(const struct abtf_linker *l, const char *name)
{
	size_t i = abtf__first_sym(l, name);

	for (; i < l->sym.nr_syms && !strcmp(l->sym.syms[i].name, name); i++)
		if (l->sym.syms[i].type == STT_FUNC)
			return l->sym.syms[i].bind == STB_WEAK;
	return false;
}

/* A walk of a name's records in order: which is at its symbol's address. */
struct at_sym_walk {
	bool weak_won, seen_weak;
};

/*
 * Unless record @r is of a weak definition, true; if it is, whether ld
 * kept that one: the final symbol is weak and it is the first weak one.
 */
static bool weak_kept(const struct abtf_linker *l, struct at_sym_walk *w,
		      const struct frec *r)
{
	bool kept = true;

	if (l->file.elf && (r->flags & ABTF_FN_WEAK)) {
		kept = w->weak_won && !w->seen_weak;
		w->seen_weak = true;
	}
	return kept;
}

/*
 * Is record @r at a symbol's address? Not one of a weak definition ld
 * did not keep, nor one whose DWARF has no DW_AT_low_pc (pahole reads
 * its address as 0).
 */
static bool at_symbol(const struct abtf_linker *l, struct at_sym_walk *w,
		      const struct frec *r)
{
	return weak_kept(l, w, r) && !(r->flags & ABTF_FN_NO_ADDR);
}

/* Why record @r, before the canonical one, was passed over. */
static int passed_over(const struct abtf_linker *l, struct at_sym_walk *w,
		       const struct frec *r)
{
	if (!weak_kept(l, w, r))
		return ABTF_EXPLAIN_WEAK_OVERRIDDEN;
	if (r->flags & ABTF_FN_NO_ADDR)
		return ABTF_EXPLAIN_NO_ADDRESS;
	return ABTF_EXPLAIN_NOT_CANONICAL;
}

/*
 * pahole's canonical state of the name of records @r[0..@nr): the first
 * at a symbol's address that is not skipped for optimized parameters,
 * else the first at a symbol's address, else the first.
 */
static size_t canonical(const struct abtf_linker *l, const struct frec *r,
			size_t nr)
{
	struct at_sym_walk w = {
		.weak_won = l->file.elf && final_weak(l, r[0].name),
	};
	size_t i, first = nr;

	if (l->file.ehdr.e_type == ET_REL)
		return 0;	/* see optimized() */

	for (i = 0; i < nr; i++) {
		if (!at_symbol(l, &w, &r[i]))
			continue;
		if (!(r[i].flags & ABTF_FN_OPTIMIZED))
			return i;
		if (first == nr)
			first = i;
	}
	return first == nr ? 0 : first;
}

/*
 * Is the canonical record skipped for optimized parameters? In a
 * relocatable file (a module) pahole compares DWARF addresses that libdwfl
 * laid out with symbol values that are section offsets: no state is at a
 * symbol's address, the first is canonical and no symbol is "optimized",
 * so only a changed ABI (DW_CC_nocall) counts.
 */
static bool optimized(const struct abtf_linker *l, const struct frec *r)
{
	if (l->file.ehdr.e_type == ET_REL)
		return r->flags & ABTF_FN_OPTIMIZED_ABI;
	return r->flags & ABTF_FN_OPTIMIZED;
}

static int skip_rec(struct func_rules *fr, uint64_t key, int why)
{
	if (abtf_grow(fr->skip, fr->cap_skip, fr->nr_skip + 1))
		return -ENOMEM;
	fr->skip[fr->nr_skip].key = key;
	fr->skip[fr->nr_skip].why = why;
	fr->nr_skip++;
	return 0;
}

/*
 * Keep the canonical record's FUNC: skip those of the name before it,
 * each a weak definition the linker overrode, one without an address or,
 * at its symbol, one with optimized parameters (canonical() passed it
 * over).
 */
static int keep_canonical(struct abtf_linker *l, const struct frec *r,
			  size_t nr, size_t c)
{
	struct at_sym_walk w = { 0 };
	size_t i;
	int err = 0;

	if (c)
		w.weak_won = l->file.elf && final_weak(l, r[0].name);
	for (i = 0; !err && i < c; i++)
		err = skip_rec(&l->fn_rules, r[i].key,
			       passed_over(l, &w, &r[i]));
	return err;
}

static int fskip_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct fskip *)a)->key;
	uint64_t y = ((const struct fskip *)b)->key;

	return x < y ? -1 : x > y;
}

static int fdrop_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fdrop *)a)->name,
		      ((const struct fdrop *)b)->name);
}

/* The rules made: their names as strings, and sorted for bsearch(). */
static void rules_sort(struct func_rules *fr)
{
	size_t k;

	/* offsets into drop_strs, now that it no longer moves */
	for (k = 0; k < fr->nr_drop; k++)
		fr->drop[k].name = fr->drop_strs.data +
				   (uintptr_t)fr->drop[k].name;
	if (fr->nr_drop)
		qsort(fr->drop, fr->nr_drop, sizeof(*fr->drop), fdrop_cmp);
	if (fr->nr_skip)
		qsort(fr->skip, fr->nr_skip, sizeof(*fr->skip), fskip_cmp);
}

/* Decide per name, over the records sorted by name and archive order. */
static int decide_names(struct abtf_linker *l, struct frec *r, size_t nr)
{
	bool opt = l->feats & ABTF_FEAT_OPTIMIZED_FUNC;
	bool con = l->feats & ABTF_FEAT_CONSISTENT_FUNC;
	size_t i, j;
	int err = 0;

	if (nr)
		qsort(r, nr, sizeof(*r), frec_cmp);
	for (i = 0; !err && i < nr; i = j) {
		bool inconsistent = false;
		uint8_t any = r[i].flags;
		size_t c;

		for (j = i + 1; j < nr && !strcmp(r[j].name, r[i].name); j++) {
			if (strcmp(r[j].sig, r[i].sig))
				inconsistent = true;
			any |= r[j].flags;
		}
		c = canonical(l, r + i, j - i);
		if (opt && (any & ABTF_FN_UNEXPECTED_REG))
			err = drop_name(l, r[i].name, ABTF_EXPLAIN_UNEXPECTED_REG,
					"unexpected register");
		else if (opt && (any & ABTF_FN_REORDERED))
			err = drop_name(l, r[i].name, ABTF_EXPLAIN_REORDERED,
					"reordered parameters");
		else if (opt && optimized(l, &r[i + c]))
			err = drop_name(l, r[i].name, ABTF_EXPLAIN_OPTIMIZED,
					"optimized parameters");
		else if (l->file.elf && (err = ambiguous_address(l, r[i].name)))
			err = err < 0 ? err :
			      drop_name(l, r[i].name, ABTF_EXPLAIN_AMBIGUOUS_ADDR,
					"ambiguous address");
		else if (con && (inconsistent ||
				 (any & ABTF_FN_VARARGS_DIFFER)))
			err = drop_name(l, r[i].name, ABTF_EXPLAIN_INCONSISTENT,
					"inconsistent prototypes");
		else
			err = keep_canonical(l, r + i, j - i, c);
	}
	if (err)
		return err;
	rules_sort(&l->fn_rules);
	return 0;
}

/* Every leaf's records, in archive order, into *@out (*@total of them). */
static int gather_recs(struct node *leaves, size_t nr, struct frec **out,
		       size_t *total)
{
	struct frec *r = NULL;
	size_t i, k, seq = 0;

	*total = 0;
	for (i = 0; i < nr; i++)
		*total += leaves[i].fsigs.nr;
	if (*total) {
		r = malloc(*total * sizeof(*r));
		if (!r)
			return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		const struct func_sigs *fs = &leaves[i].fsigs;

		for (k = 0; k < fs->nr; k++, seq++) {
			r[seq].name = fs->strs.data + fs->sigs[k].name;
			r[seq].sig = fs->strs.data + fs->sigs[k].sig;
			r[seq].flags = fs->sigs[k].flags;
			r[seq].key = (uint64_t)fs->sigs[k].member << 32 |
				     fs->sigs[k].ordinal;
			r[seq].seq = seq;
		}
	}
	*out = r;
	return 0;
}

int funcs__select(struct abtf_linker *l, struct node *leaves, size_t nr)
{
	struct frec *r = NULL;
	size_t i, total = 0;
	int err;

	err = abtf__syms_by_name(l);
	if (err)
		return err;
	err = abtf__run_level(l, leaves, nr, funcs_leaf, NULL);
	if (!err)
		err = gather_recs(leaves, nr, &r, &total);
	if (!err)
		err = decide_names(l, r, total);
	free(r);
	for (i = 0; i < nr; i++)
		funcs__sigs_free(&leaves[i].fsigs);
	return err;
}

int funcs__dropped(const struct func_rules *fr, const char *name)
{
	struct fdrop key = { .name = name };
	const struct fdrop *d;

	if (!fr->nr_drop)
		return 0;
	d = bsearch(&key, fr->drop, fr->nr_drop, sizeof(*fr->drop), fdrop_cmp);
	return d ? d->why : 0;
}

int funcs__skipped(const struct func_rules *fr, size_t member,
		       uint32_t ordinal)
{
	struct fskip key = { .key = (uint64_t)member << 32 | ordinal };
	const struct fskip *d;

	if (!fr->nr_skip)
		return 0;
	d = bsearch(&key, fr->skip, fr->nr_skip, sizeof(*fr->skip), fskip_cmp);
	return d ? d->why : 0;
}

void funcs__rules_free(struct func_rules *fr)
{
	abtf__strtab_free(&fr->drop_strs);
	free(fr->drop);
	free(fr->skip);
	memset(fr, 0, sizeof(*fr));
}

/* ---- the prototypes of FUNCs left out ---- */

#define REF_BY_DROPPED	1	/* a FUNC the link leaves out */
#define REF_BY_KEPT	2	/* any type the link keeps */

static int mark_kept(uint32_t *id, void *ctx)
{
	struct { uint8_t *ref; uint32_t nr; } *c = ctx;

	if (*id && *id <= c->nr)
		c->ref[*id] |= REF_BY_KEPT;
	return 0;
}

/*
 * pahole writes a function's prototype only with its FUNC: a FUNC_PROTO
 * that a FUNC the link leaves out (absent from the image, not the first
 * of its name, or left out by optimized_func or consistent_func) refers
 * to goes too, unless a type the link keeps refers to it as well (another
 * FUNC of the same prototype, a pointer to a function). Types only the
 * prototype reaches stay: pahole writes every type of a unit. @map is
 * the input's choice (0: left out), DECL_TAGs not decided yet.
 */
int funcs__drop_protos(const struct input *in, const uint32_t *toff,
		       uint32_t *map)
{
	struct { uint8_t *ref; uint32_t nr; } c = { .nr = in->nr_types };
	bool any = false;
	uint32_t id;

	for (id = 1; id <= in->nr_types && !any; id++) {
		const struct btf_type *t = (const void *)(in->types + toff[id]);

		any = BTF_INFO_KIND(t->info) == BTF_KIND_FUNC && !map[id];
	}
	if (!any)
		return 0;	/* every FUNC kept: nothing to look at */
	c.ref = calloc((size_t)in->nr_types + 1, 1);
	if (!c.ref)
		return -ENOMEM;
	for (id = 1; id <= in->nr_types; id++) {
		struct btf_type *t = (void *)(in->types + toff[id]);

		if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC && !map[id]) {
			if (t->type && t->type <= in->nr_types)
				c.ref[t->type] |= REF_BY_DROPPED;
		} else if (map[id]) {
			abtf__for_each_type_id(t, mark_kept, &c);
		}
	}
	for (id = 1; id <= in->nr_types; id++) {
		const struct btf_type *t = (const void *)(in->types + toff[id]);

		if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC_PROTO &&
		    c.ref[id] == REF_BY_DROPPED)
			map[id] = 0;
	}
	free(c.ref);
	return 0;
}
