// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What btf-link's optimized_func and consistent_func features (pahole
 * 1.31's function rules, docs/design.md) need of one object, beyond its
 * .BTF: a version 2 .debug_btf_addr group (enc_slots.c) holds a flags
 * byte per FUNC and an "extension".
 *
 *  - A state is a top-level function DIE with code whose parameters all
 *    have names (enc_select.c notes them, with the facts func_facts.c
 *    reads of their parameters' locations). A FUNC's flags are its
 *    name's states' facts (enc_funcext__flags()).
 *  - The extension is a FUNC_PROTO and a FUNC per .isra or .constprop
 *    clone whose object has no FUNC of the clone's source name but has
 *    a state of it, with its own slot; its types are numbered after the
 *    object's and its strings after the object's strings.
 *
 * None of it changes .BTF, whose bytes stay those of pahole 1.24's rules.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "elf/addr.h"
#include "encode/dwarf_types.h"
#include "encode/enc.h"

static bool is_piece_sym(const char *name)
{
	return strstr(name, ".cold") || strstr(name, ".part");
}

static bool is_optimized_sym(const char *name)
{
	return strstr(name, ".isra") || strstr(name, ".constprop");
}

static int fstate_cmp(const void *a, const void *b)
{
	const struct enc_fstate *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* strcmp() of @n with the @len bytes at @key. */
static int name_cmp(const char *n, const char *key, size_t len)
{
	int c = strncmp(n, key, len);

	return c ? c : n[len] ? 1 : 0;
}

/* The first state named exactly the @len bytes at @name, or NULL. */
static const struct enc_fstate *find_state(const struct enc_funcext *fx,
					   const char *name, size_t len)
{
	size_t lo = 0, hi = fx->nr_states;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (name_cmp(fx->states[mid].name, name, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < fx->nr_states && !name_cmp(fx->states[lo].name, name, len))
		return &fx->states[lo];
	return NULL;
}

/*
 * The flags byte of a FUNC named @name standing for symbol @sym: the
 * or of the name's states' unexpected register, reordered and varargs
 * facts;
 * no address if the first state (the code at the symbol: one per symbol)
 * has no DW_AT_low_pc, or there is none (the FUNC's DIE has no code: GCC
 * folded the function into an identical one and left it a thunk): pahole
 * takes its address as 0, which no symbol has;
 * optimized if that state lost parameters and either its ABI changed or,
 * pahole finding the symbol at its address, the symbol says so.
 */
uint8_t enc_funcext__flags(const struct enc_funcext *fx, const char *name,
			   const char *sym)
{
	const struct enc_fstate *st = find_state(fx, name, strlen(name));
	const struct enc_fstate *end;
	uint8_t f = 0;

	if (!st)	/* no states: fx->states may be NULL */
		return ABTF_FN_NO_ADDR;
	if (st->ff.no_low_pc)
		f |= ABTF_FN_NO_ADDR;
	if (st->ff.optimized_parms &&
	    (st->ff.nocall || (!st->ff.no_low_pc && is_optimized_sym(sym))))
		f |= ABTF_FN_OPTIMIZED;
	if (st->ff.optimized_parms && st->ff.nocall)
		f |= ABTF_FN_OPTIMIZED_ABI;
	for (end = fx->states + fx->nr_states;
	     st < end && !strcmp(st->name, name); st++) {
		if (st->ff.unexpected_reg)
			f |= ABTF_FN_UNEXPECTED_REG;
		if (st->ff.reordered)
			f |= ABTF_FN_REORDERED;
		if (st->ff.varargs_differ)
			f |= ABTF_FN_VARARGS_DIFFER;
	}
	return f;
}

/* Does the object have a FUNC named @name (its symbol given to one)? */
static bool has_func(const struct enc_select *s, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < s->nr_placed; i++) {
		const char *n = s->placed[i].sym->name;

		if (s->placed[i].sym->type == STT_FUNC &&
		    !strncmp(n, name, len) && !n[len])
			return true;
	}
	return false;
}

/*
 * Clones: a function symbol "foo.suffix" (not a .cold or .part piece)
 * whose object has a state "foo" but no FUNC "foo". One per name, at the
 * first such symbol; a second one would make the address ambiguous.
 */
int enc_funcext__find_extras(struct enc_funcext *fx,
			     const struct enc_syms *syms,
			     const struct enc_select *s)
{
	size_t i, k;

	if (fx->nr_states)
		qsort(fx->states, fx->nr_states, sizeof(*fx->states),
		      fstate_cmp);
	fx->extras = calloc(syms->nr + 1, sizeof(*fx->extras));
	if (!fx->extras)
		return -ENOMEM;
	for (i = 0; i < syms->nr; i++) {
		struct enc_sym *sym = &syms->v[i];
		const char *dot = strchr(sym->name, '.');
		const struct enc_fstate *st;
		size_t len;

		/* a used symbol stands for a FUNC already (ThinLTO's) */
		if (sym->type != STT_FUNC || sym->used || !dot ||
		    dot == sym->name || is_piece_sym(sym->name))
			continue;
		len = dot - sym->name;
		st = find_state(fx, sym->name, len);
		if (!st || has_func(s, sym->name, len))
			continue;
		for (k = 0; k < fx->nr_extras; k++)
			if (fx->extras[k].st == st)
				break;
		if (k < fx->nr_extras)
			continue;
		fx->extras[fx->nr_extras].st = st;
		fx->extras[fx->nr_extras].sym = sym;
		fx->nr_extras++;
	}
	return 0;
}

/* A BTF type's info word (vlen, kind; no kind_flag here). */
static uint32_t btf_info(uint32_t kind, uint32_t vlen)
{
	return kind << 24 | (vlen & 0xffff);
}

struct grow {
	uint8_t *b;
	size_t len, cap;
};

static int grow_put(struct grow *g, const void *p, size_t n)
{
	if (!n)
		return 0;
	if (g->len + n < g->len || abtf_grow(g->b, g->cap, g->len + n))
		return -ENOMEM;
	memcpy(g->b + g->len, p, n);
	g->len += n;
	return 0;
}

/* What building the extension reads, and what it has built so far. */
struct ext_build {
	struct dw_file *f;
	const struct ir *ir;
	struct grow types, strs;
	uint32_t str_base;	/* the object's strings' length */
	uint32_t next_id;
};

static int type_id_of(const struct ir *ir, const struct dw_die *die,
		      uint32_t *id)
{
	*id = 0;
	if (!(die->have & DW_HAVE_TYPE))
		return 0;
	return ir__btf_id_of_off(ir, die->type, id);
}

/* @die's parameters into @params (their names into b->strs), *@vlen. */
static int add_extra_params(struct ext_build *b, struct dw_die *die,
			    struct grow *params, uint32_t *vlen)
{
	const char *why = NULL;
	bool varargs = false;
	struct dw_die c;
	int res, err = 0;

	for (res = dw_die__child(b->f, die, &c, &why); !err && !res;
	     res = dw_die__sibling(b->f, &c, &why)) {
		struct btf_param p = { 0 };

		if (c.tag != DW_TAG_formal_parameter) {
			/* the vararg marker last (dwarf_types__func_proto()) */
			varargs |= c.tag == DW_TAG_unspecified_parameters;
			continue;
		}
		err = dw_die__integrate(b->f, &c, &why);
		if (!err)
			err = type_id_of(b->ir, &c, &p.type);
		if (!err && !(c.have & DW_HAVE_NAME))
			err = -ENOENT;
		p.name_off = b->str_base + b->strs.len;
		if (!err)
			err = grow_put(&b->strs, c.name, strlen(c.name) + 1);
		if (!err)
			err = grow_put(params, &p, sizeof(p));
		(*vlen)++;
	}
	if (!err && res < 0)
		err = res;
	if (!err && varargs) {
		struct btf_param p = { 0 };

		err = grow_put(params, &p, sizeof(p));
		(*vlen)++;
	}
	return err;
}

/* An extension FUNC_PROTO + FUNC for @x; -ENOENT: a type not converted. */
static int add_extra_types(struct ext_build *b, const struct enc_extra *x)
{
	struct btf_type t = { 0 }, fn = { 0 };
	struct grow params = { 0 };
	const char *why = NULL;
	struct dw_die die;
	uint32_t vlen = 0;
	int err;

	err = dw_die__read(b->f, NULL, x->st->off, &die, &why);
	if (!err)
		err = dw_die__integrate(b->f, &die, &why);
	if (!err)
		err = type_id_of(b->ir, &die, &t.type);
	if (!err)
		err = add_extra_params(b, &die, &params, &vlen);
	if (!err && vlen > BTF_MAX_VLEN)
		err = -ENOENT;
	if (!err) {
		t.info = btf_info(BTF_KIND_FUNC_PROTO, vlen);
		fn.name_off = b->str_base + b->strs.len;
		fn.info = btf_info(BTF_KIND_FUNC, BTF_FUNC_STATIC);
		fn.type = b->next_id++;
		b->next_id++;
		err = grow_put(&b->strs, x->st->name,
			       strlen(x->st->name) + 1) ?:
		      grow_put(&b->types, &t, sizeof(t)) ?:
		      grow_put(&b->types, params.b, params.len) ?:
		      grow_put(&b->types, &fn, sizeof(fn));
	}
	free(params.b);
	return err;
}

/* The extension built: types, then strings, in one buffer. */
static int keep_extension(struct enc_funcext *fx, const struct ext_build *b)
{
	if (b->types.len > UINT32_MAX / 2 || b->strs.len > UINT32_MAX / 2)
		return -E2BIG;
	if (!b->types.len)
		return 0;
	fx->ext = malloc(b->types.len + b->strs.len);
	if (!fx->ext)
		return -ENOMEM;
	memcpy(fx->ext, b->types.b, b->types.len);
	memcpy(fx->ext + b->types.len, b->strs.b, b->strs.len);
	fx->ext_type_len = b->types.len;
	fx->ext_str_len = b->strs.len;
	return 0;
}

/*
 * The extension: a FUNC_PROTO and a FUNC per clone, numbered after the
 * object's types, strings after its strings. Only for one-unit objects,
 * whose BTF IDs are the deduplicated nodes' (ir->out). A clone whose
 * types cannot be named is left out (nothing is ever added to the BTF).
 */
int enc_funcext__build(struct enc_funcext *fx, const struct enc_obj *o,
		       struct dw_file *f, const struct ir *ir,
		       const struct btf *btf, uint32_t nr_units)
{
	struct ext_build b = { .f = f, .ir = ir };
	uint32_t size;
	const struct btf_header *h;
	size_t i, kept = 0;
	int err = 0;

	b.next_id = btf__type_cnt(btf);
	h = btf__raw_data(btf, &size);
	if (!h)
		return -ENOMEM;
	b.str_base = h->str_len;
	if (nr_units > 1)
		fx->nr_extras = 0;
	for (i = 0; !err && i < fx->nr_extras; i++) {
		size_t tl = b.types.len, sl = b.strs.len;
		uint32_t id = b.next_id;

		err = add_extra_types(&b, &fx->extras[i]);
		if (err == -ENOENT || err == -EINVAL) {
			pr_debug(o->pr, "%s: no FUNC for clone %s: its "
				 "types are not the unit's", o->path,
				 fx->extras[i].sym->name);
			b.types.len = tl;
			b.strs.len = sl;
			b.next_id = id;
			err = 0;
			continue;
		}
		fx->extras[kept++] = fx->extras[i];
	}
	fx->nr_extras = kept;
	if (!err)
		err = keep_extension(fx, &b);
	free(b.types.b);
	free(b.strs.b);
	return err;
}

int enc_funcext__add_state(struct enc_funcext *fx, const char *name,
			   uint64_t off, const struct abtf_fn_facts *ff)
{
	struct enc_fstate *st;

	if (abtf_grow(fx->states, fx->cap_states, fx->nr_states + 1))
		return -ENOMEM;
	st = &fx->states[fx->nr_states++];
	st->name = name;
	st->off = off;
	st->ff = *ff;
	return 0;
}

void enc_funcext__free(struct enc_funcext *fx)
{
	free(fx->states);
	free(fx->extras);
	free(fx->ext);
	memset(fx, 0, sizeof(*fx));
}
