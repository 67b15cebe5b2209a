// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Why a function or a variable is, or is not, in the final BTF
 * (abtf_linker__explain(), btf-link --explain; docs/design.md, "Why is my
 * function not in BTF?").
 *
 * The link decides about each FUNC and VAR of each member in merge.c's
 * decide(), from facts the earlier phases made: where the slot or the
 * symbol table puts it (place.c), which names and which states
 * funcs.c leaves without a FUNC (optimized_func, consistent_func), one
 * FUNC per name (the first in link order), merge.c's rules for VARs, and
 * the root's DATASECs, which drop a variable that overlaps the one before
 * it. None of that keeps a reason: a link pays nothing for this file.
 *
 * After the link, explain walks the archive once more, in link order, one
 * member at a time, on the calling thread, and puts each FUNC and VAR of
 * a name asked about through the same tests, by the same functions, in
 * decide()'s order:
 *
 *  FUNC: place__func_placed() (in the image, under its name), a clone of
 *        the extension only with optimized_func, funcs__dropped()
 *        (funcs.c's verdict on the name, with its reason),
 *        funcs__skipped() (funcs.c's choice of the name's canonical
 *        state), then the first of its name in link order is kept;
 *  VAR:  the var feature, its place (slot, or the name placement of
 *        place.c, or a raw member's DATASEC), the final
 *        .data..percpu, its name (encode_force), then the final DATASEC.
 *
 * funcs.c's states of a name are exactly the FUNCs that pass the first
 * test; with consistent_func, each state's loose signature (funcs.c's
 * funcs__sig()) is compared with the first's, as funcs.c did, to say
 * which differ. The verdicts are then held to the final BTF: a FUNC kept
 * must be there (or in a base, whose FUNC the module's dedup took), and
 * no other FUNC of its name; a VAR the merge kept that is not in its
 * DATASEC at its offset is the root's overlap; anything else is a bug
 * (-EPROTO), never a guess.
 *
 * A member has no name in the archive (docs/archive-format.md): records
 * give its index and offset, and its compile unit's name where the image
 * tells: in a final image, the DWARF unit whose address ranges hold one of
 * the member's functions that is not weak (the slot of a weak definition
 * the linker overrode points at the winner's code); else the STT_FILE
 * symbol that one of its local symbols follows.
 *
 * Records are collected per name and handed out name by name, in the order
 * the names were given, each name's in link order: the output is a pure
 * function of the input and the names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <elfutils/libdw.h>
#include <linux/btf.h>

#include "link/linker.h"
#include "link/input.h"
#include "link/symbols.h"
#include "link/plan.h"
#include "link/place.h"
#include "link/funcs.h"
#include "link/merge.h"

_Static_assert(ABTF_EXPLAIN_FN_OPTIMIZED == ABTF_FN_OPTIMIZED &&
	       ABTF_EXPLAIN_FN_UNEXPECTED_REG == ABTF_FN_UNEXPECTED_REG &&
	       ABTF_EXPLAIN_FN_REORDERED == ABTF_FN_REORDERED &&
	       ABTF_EXPLAIN_FN_WEAK == ABTF_FN_WEAK &&
	       ABTF_EXPLAIN_FN_OPTIMIZED_ABI == ABTF_FN_OPTIMIZED_ABI &&
	       ABTF_EXPLAIN_FN_VARARGS_DIFFER == ABTF_FN_VARARGS_DIFFER,
	       "the public flags are the group's");

#define NONE	SIZE_MAX

/* One record, until its name's turn. */
struct xrec {
	struct abtf_explain r;	/* r.other and r.other_decl: from @other */
	size_t name;		/* index in xctx.names */
	size_t other;		/* the record compared with, or NONE */
	char *decl;		/* owned: r.decl */
	char *sig;		/* a state's loose signature (consistent_func) */
};

/* A name asked about (each once, however often it was given). */
struct xname {
	const char *name;
	size_t kept;		/* the record of the FUNC kept, or NONE */
	size_t first_state;	/* the record of its first state, or NONE */
	size_t nr_recs;
};

/* An address range of a DWARF unit of the image. */
struct xcu {
	uint64_t lo, hi;
	const char *name;
};

struct xctx {
	struct abtf_linker *l;
	struct abtf_explain_opts o;
	struct xname *names;
	size_t nr_names;
	size_t *by_name;	/* indices into names, sorted by name */
	struct xrec *recs;
	size_t nr_recs, cap_recs;
	/* the member being walked */
	const struct input *in;
	const uint32_t *toff;
	struct btf *mbtf;	/* for declarations, made on first need */
	bool mbtf_tried;
	/* the image's DWARF units, made on first need (final images) */
	Elf *dw_elf;
	Dwarf *dw;
	struct xcu *cus;
	size_t nr_cus, cap_cus;
	bool cus_tried;
};

/* Where @name is, or would be, in x->by_name; *@found if it is. */
static size_t name_pos(const struct xctx *x, const char *name, bool *found)
{
	size_t lo = 0, hi = x->nr_names;

	*found = false;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, x->names[x->by_name[mid]].name);

		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The index of @name among the names asked about, or NONE. */
static size_t find_name(const struct xctx *x, const char *name)
{
	bool found;
	size_t pos = name_pos(x, name, &found);

	return found ? x->by_name[pos] : NONE;
}

/* The distinct names of @names, and their index by name. */
static int collect_names(struct xctx *x, const char *const *names, size_t nr)
{
	size_t i, pos;
	bool found;

	x->names = calloc(nr ? nr : 1, sizeof(*x->names));
	x->by_name = calloc(nr ? nr : 1, sizeof(*x->by_name));
	if (!x->names || !x->by_name)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		if (!names[i])
			return -EINVAL;
		pos = name_pos(x, names[i], &found);
		if (found)
			continue;
		x->names[x->nr_names].name = names[i];
		x->names[x->nr_names].kept = NONE;
		x->names[x->nr_names].first_state = NONE;
		memmove(&x->by_name[pos + 1], &x->by_name[pos],
			(x->nr_names - pos) * sizeof(*x->by_name));
		x->by_name[pos] = x->nr_names++;
	}
	return 0;
}

/* ---- what a member's FUNC or VAR is ---- */

static void __abtf_printf(2, 0)
sbuf_vprintf(void *ctx, const char *fmt, va_list ap)
{
	abtf__sb_vaddf(ctx, fmt, ap);
}

/* The member being walked as a libbpf BTF, for btf_dump. */
static struct btf *member_btf(struct xctx *x)
{
	const struct input *in = x->in;
	struct btf_header h = {
		.magic = BTF_MAGIC, .version = BTF_VERSION,
		.hdr_len = sizeof(h), .type_len = in->type_len,
		.str_off = in->type_len, .str_len = in->str_len,
	};
	size_t size = sizeof(h) + (size_t)in->type_len + in->str_len;
	uint8_t *raw;

	if (x->mbtf_tried)
		return x->mbtf;
	x->mbtf_tried = true;
	raw = malloc(size);
	if (!raw)
		return NULL;
	memcpy(raw, &h, sizeof(h));
	memcpy(raw + sizeof(h), in->types, in->type_len);
	memcpy(raw + sizeof(h) + in->type_len, in->strs, in->str_len);
	x->mbtf = btf__new(raw, size);	/* NULL: records without decl */
	free(raw);
	return x->mbtf;
}

/*
 * The C declaration of FUNC or VAR @id: "long f(int x)", "long hits";
 * malloc()ed, or NULL where libbpf cannot write it (the record goes
 * without).
 */
static char *decl_of(struct xctx *x, uint32_t id, const char *name)
{
	const struct btf_type *t = (const void *)(x->in->types + x->toff[id]);
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = name);
	struct btf *btf = member_btf(x);
	struct sbuf b = { 0 };
	struct btf_dump *d;
	char *decl;
	int err;

	if (!btf)
		return NULL;
	d = btf_dump__new(btf, sbuf_vprintf, &b, NULL);
	if (!d)
		return NULL;
	err = btf_dump__emit_type_decl(d, t->type, &o);
	btf_dump__free(d);
	if (err || b.err || !b.buf) {
		free(b.buf);
		return NULL;
	}
	/* BTF's prototype without parameters is C's (void) */
	if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC && t->type &&
	    t->type <= x->in->nr_types && b.len >= 2 &&
	    !strcmp(b.buf + b.len - 2, "()")) {
		const struct btf_type *p =
			(const void *)(x->in->types + x->toff[t->type]);

		if (BTF_INFO_KIND(p->info) == BTF_KIND_FUNC_PROTO &&
		    !BTF_INFO_VLEN(p->info)) {
			b.len--;	/* "()" -> "(void)" */
			abtf__sb_add(&b, "void)");
		}
	}
	return abtf__sb_take(&b, &decl) ? NULL : decl;
}

/* The flags byte of the @k-th FUNC of the member (0 without a group). */
static unsigned int fn_flags(const struct xctx *x, uint32_t k)
{
	const struct mplan *mp = x->in->plan;

	if (x->in->kind != IN_SLOTS || k >= mp->grp.nr_flags)
		return 0;
	return abtf__addr_flags(&x->l->file.addr, &mp->grp, k);
}

/* Whether symbol @s is at @pl: in its section, at its offset there. */
static bool sym_is_at(const struct abtf_linker *l, const struct lsym *s,
		      const struct place *pl)
{
	uint64_t off = s->value;

	if (s->shndx != pl->key)
		return false;
	if (l->file.ehdr.e_type != ET_REL)
		off -= l->sym.secs[s->shndx].addr;
	return off == pl->off;
}

/*
 * The defined symbol named @name, or @name and a '.' suffix (a clone),
 * at @pl, or NULL.
 */
static const struct lsym *sym_at(const struct abtf_linker *l,
				 const char *name, const struct place *pl)
{
	const struct link_symbols *sy = &l->sym;
	size_t len = strlen(name), i = abtf__first_sym(l, name);

	for (; i < sy->nr_syms && !strncmp(sy->syms[i].name, name, len); i++) {
		const struct lsym *s = &sy->syms[i];
		char next = s->name[len];

		if ((!next || next == '.') && sym_is_at(l, s, pl))
			return s;
	}
	return NULL;
}

/*
 * Any defined function or object symbol at @pl (a FUNC whose symbol was
 * renamed has none of its name), the first by name, or NULL.
 */
static const struct lsym *any_sym_at(const struct abtf_linker *l,
				     const struct place *pl)
{
	size_t i;

	for (i = 0; i < l->sym.nr_syms; i++)
		if (sym_is_at(l, &l->sym.syms[i], pl))
			return &l->sym.syms[i];
	return NULL;
}

/* Where the image has the member's FUNC or VAR: fill @r's place. */
static void set_place(const struct xctx *x, struct abtf_explain *r,
		      const struct place *pl, const char *name)
{
	const struct abtf_linker *l = x->l;
	const struct lsym *s;

	if (!pl->present)
		return;
	r->placed = true;
	if (!l->file.elf) {
		r->section = pl->dsec_name;
		r->addr = pl->off;
		return;
	}
	if (pl->key >= l->sym.nr_secs)
		return;
	r->section = l->sym.secs[pl->key].name;
	r->addr = pl->off;
	if (l->file.ehdr.e_type != ET_REL)
		r->addr += l->sym.secs[pl->key].addr;
	s = sym_at(l, name, pl);
	if (!s)
		s = any_sym_at(l, pl);
	r->symbol = s ? s->name : NULL;
}

/* ---- the member's name: its compile unit ---- */

static int cu_add(struct xctx *x, uint64_t lo, uint64_t hi, const char *name)
{
	if (!lo || lo >= hi)	/* a discarded function's range (tombstone) */
		return 0;
	if (abtf_grow(x->cus, x->cap_cus, x->nr_cus + 1))
		return -ENOMEM;
	x->cus[x->nr_cus].lo = lo;
	x->cus[x->nr_cus].hi = hi;
	x->cus[x->nr_cus].name = name;
	x->nr_cus++;
	return 0;
}

/*
 * The address ranges of the image's DWARF units, read with libdw from a
 * handle of its own: without DWARF, members have no source names.
 */
static int load_cus(struct xctx *x)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t unit_type;
	Dwarf_Half version;
	int err = 0;

	x->cus_tried = true;
	x->dw_elf = elf_begin(x->l->file.fd, ELF_C_READ_MMAP, NULL);
	x->dw = x->dw_elf ? dwarf_begin_elf(x->dw_elf, DWARF_C_READ, NULL) :
			    NULL;
	if (!x->dw)
		return 0;
	while (!err && !dwarf_get_units(x->dw, cu, &cu, &version, &unit_type,
					&cudie, NULL)) {
		Dwarf_Addr base, lo, hi;
		const char *name = dwarf_diename(&cudie);
		ptrdiff_t off = 0;

		if (!name)
			continue;
		while (!err &&
		       (off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0)
			err = cu_add(x, lo, hi, name);
	}
	return err;
}

static const char *cu_at(const struct xctx *x, uint64_t addr)
{
	size_t i;

	for (i = 0; i < x->nr_cus; i++)
		if (addr >= x->cus[i].lo && addr < x->cus[i].hi)
			return x->cus[i].name;
	return NULL;
}

/*
 * The source of the member being walked, into *@src: in a final image, the
 * DWARF unit of its first function that is not weak (a weak definition's
 * slot may hold the address of another object's); else the STT_FILE
 * before one of its local symbols; NULL if neither tells. 0 or -ENOMEM.
 */
static int member_source(struct xctx *x, const char **out)
{
	const struct input *in = x->in;
	struct abtf_linker *l = x->l;
	const char *src = NULL;
	uint32_t id, slot, func;
	int pass, err;

	*out = NULL;
	if (in->kind != IN_SLOTS)
		return 0;
	if (l->file.ehdr.e_type != ET_REL && !x->cus_tried) {
		err = load_cus(x);
		if (err)
			return err;
	}
	for (pass = 0; pass < 2 && !src; pass++) {
		for (id = 1, slot = func = 0; !src && id <= in->nr_types; id++) {
			const struct btf_type *t =
				(const void *)(in->types + x->toff[id]);
			int kind = BTF_INFO_KIND(t->info);
			const struct lsym *s;
			struct place pl;
			bool is_func = kind == BTF_KIND_FUNC;

			if (!is_func && kind != BTF_KIND_VAR)
				continue;
			if (is_func)
				func++;
			if (place__slot(l, in->plan, slot++, &pl) ||
			    !pl.present || pl.key >= l->sym.nr_secs)
				continue;
			if (!pass) {
				if (x->nr_cus && is_func &&
				    !(fn_flags(x, func - 1) & ABTF_FN_WEAK))
					src = cu_at(x, pl.off +
						    l->sym.secs[pl.key].addr);
				continue;
			}
			s = sym_at(l, in->strs + t->name_off, &pl);
			if (s && s->bind == STB_LOCAL)
				src = abtf__sym_file(l, s->idx);
		}
	}
	*out = src;
	return 0;
}

/* ---- the tests of the link, in decide()'s order ---- */

static struct xrec *new_rec(struct xctx *x, size_t name,
			    enum abtf_explain_kind kind, uint32_t id)
{
	const struct btf_type *t = (const void *)(x->in->types + x->toff[id]);
	const struct mplan *mp = x->in->plan;
	struct xrec *rec;

	if (abtf_grow(x->recs, x->cap_recs, x->nr_recs + 1))
		return NULL;
	rec = &x->recs[x->nr_recs++];
	memset(rec, 0, sizeof(*rec));
	rec->name = name;
	rec->other = NONE;
	rec->r.sz = sizeof(rec->r);
	rec->r.name = x->names[name].name;
	rec->r.kind = kind;
	rec->r.member.index = mp - x->l->plan.members;
	rec->r.member.offset = mp->off;
	rec->decl = decl_of(x, id, rec->r.name);
	rec->r.decl = rec->decl;
	if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC)
		rec->r.linkage = BTF_INFO_VLEN(t->info);
	else
		rec->r.linkage = ((const struct btf_var *)(t + 1))->linkage;
	x->names[name].nr_recs++;
	return rec;
}

/*
 * A FUNC: decide()'s tests. @state: it is one of funcs.c's states of its
 * name. The reason, or < 0.
 */
static int func_fate(struct xctx *x, uint32_t slot, uint32_t ord,
		     const char *name, bool ext, bool *state)
{
	struct abtf_linker *l = x->l;
	int why = place__func_placed(l, x->in, slot, name);

	*state = false;
	if (why)
		return why;
	if (ext && !(l->feats & ABTF_FEAT_OPTIMIZED_FUNC))
		return ABTF_EXPLAIN_CLONE_UNUSED;
	*state = true;
	why = funcs__dropped(&l->fn_rules, name);
	if (!why)
		why = funcs__skipped(&l->fn_rules,
					 abtf__member_idx(l, x->in->plan), ord);
	return why;
}

static int explain_func(struct xctx *x, size_t n, uint32_t id, uint32_t slot,
			uint32_t ord)
{
	const struct input *in = x->in;
	const struct btf_type *t = (const void *)(in->types + x->toff[id]);
	const char *name = in->strs + t->name_off;
	bool ext = in->kind == IN_SLOTS && slot >= in->plan->grp.nr_slots;
	struct xname *xn = &x->names[n];
	struct xrec *rec;
	struct place pl;
	bool state;
	int why = func_fate(x, slot, ord, name, ext, &state);

	if (why < 0)
		return why;
	rec = new_rec(x, n, ABTF_EXPLAIN_FUNC, id);
	if (!rec)
		return -ENOMEM;
	rec->r.extension = ext;
	rec->r.fn_flags = fn_flags(x, ord);
	if (in->kind == IN_SLOTS && !place__slot(x->l, in->plan, slot, &pl))
		set_place(x, &rec->r, &pl, name);
	if (state && (x->l->feats & ABTF_FEAT_CONSISTENT_FUNC)) {
		rec->sig = funcs__sig(in, x->toff, id);
		if (!rec->sig)
			return -ENOMEM;
		if (xn->first_state == NONE)
			xn->first_state = rec - x->recs;
	}
	if (why == ABTF_EXPLAIN_INCONSISTENT &&
	    xn->first_state != (size_t)(rec - x->recs)) {
		rec->other = xn->first_state;
		rec->r.differs = strcmp(rec->sig, x->recs[rec->other].sig);
	}
	if (!why && xn->kept != NONE) {
		why = ABTF_EXPLAIN_NOT_FIRST;
		rec->other = xn->kept;
	} else if (!why) {
		xn->kept = rec - x->recs;
	}
	rec->r.reason = why;
	return 0;
}

/* A raw member's VAR keeps its DATASEC's place, if the file has one member. */
static void raw_place(const struct xctx *x, uint32_t var, struct place *pl)
{
	const struct input *in = x->in;
	uint32_t id;

	if (x->l->plan.nr_members != 1)
		return;
	for (id = 1; id <= in->nr_types; id++) {
		const struct btf_type *t = (const void *)(in->types + x->toff[id]);
		const struct btf_var_secinfo *v = (const void *)(t + 1);
		uint16_t i;

		if (BTF_INFO_KIND(t->info) != BTF_KIND_DATASEC)
			continue;
		for (i = 0; i < BTF_INFO_VLEN(t->info); i++) {
			if (v[i].type != var)
				continue;
			pl->present = true;
			pl->dsec_name = in->strs + t->name_off;
			pl->off = v[i].offset;
			pl->size = v[i].size;
		}
	}
}

/* Is VAR @name in the final DATASEC of @pl's section, at its offset? */
static bool in_final_datasec(const struct xctx *x, const char *section,
			     const struct place *pl, const char *name)
{
	const struct btf *btf = x->l->btf;
	uint32_t id = x->l->base ? btf__type_cnt(x->l->base) : 1;
	uint32_t n = btf__type_cnt(btf);

	for (; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_var_secinfo *v = btf_var_secinfos(t);
		uint16_t i;

		if (!btf_is_datasec(t) ||
		    strcmp(btf__name_by_offset(btf, t->name_off), section))
			continue;
		for (i = 0; i < btf_vlen(t); i++) {
			const struct btf_type *var =
				btf__type_by_id(btf, v[i].type);

			if (v[i].offset == pl->off && var &&
			    !strcmp(btf__name_by_offset(btf, var->name_off),
				    name))
				return true;
		}
	}
	return false;
}

/* A VAR: decide()'s tests, then the root's DATASEC. */
static int var_fate(struct xctx *x, uint32_t id, uint32_t slot, uint32_t var,
		    const char *name, struct abtf_explain *r, struct place *pl)
{
	const struct input *in = x->in;
	struct abtf_linker *l = x->l;
	int err;

	memset(pl, 0, sizeof(*pl));
	switch (in->kind) {
	case IN_SLOTS:
		err = place__slot(l, in->plan, slot, pl);
		if (err)
			return err;
		break;
	case IN_NAMES:
		if (var >= in->plan->nr_vars)
			return -EINVAL;
		*pl = in->plan->vars[var];
		break;
	default:
		raw_place(x, id, pl);
		break;
	}
	set_place(x, r, pl, name);
	if (!(l->feats & ABTF_FEAT_VAR))
		return ABTF_EXPLAIN_NO_VAR_FEATURE;
	if (!pl->present)
		return in->kind == IN_SLOTS ? ABTF_EXPLAIN_DISCARDED :
		       in->kind == IN_NAMES ? ABTF_EXPLAIN_NO_SYMBOL :
					      ABTF_EXPLAIN_NO_SYMTAB;
	if (!merge__in_percpu_section(l, pl))
		return ABTF_EXPLAIN_NOT_PERCPU;
	if (!merge__var_name_valid(name))
		return ABTF_EXPLAIN_BAD_NAME;	/* encode_force, or no link */
	if (!r->section || !in_final_datasec(x, r->section, pl, name))
		return ABTF_EXPLAIN_OVERLAP;
	return ABTF_EXPLAIN_KEPT;
}

static int explain_var(struct xctx *x, size_t n, uint32_t id, uint32_t slot,
		       uint32_t var)
{
	const struct btf_type *t = (const void *)(x->in->types + x->toff[id]);
	struct xrec *rec = new_rec(x, n, ABTF_EXPLAIN_VAR, id);
	struct place pl;
	int why;

	if (!rec)
		return -ENOMEM;
	why = var_fate(x, id, slot, var, x->in->strs + t->name_off, &rec->r,
		       &pl);
	if (why < 0)
		return why;
	rec->r.reason = why;
	return 0;
}

/* ---- the walk ---- */

/* The FUNCs and VARs of member @in asked about, in type ID order. */
static int walk_input(struct xctx *x, const struct input *in,
		      uint32_t nr_slots)
{
	uint32_t *toff = abtf__type_offsets(in->types, in->nr_types);
	uint32_t id, slot = 0, func = 0, var = 0;
	size_t first_rec = x->nr_recs, k, n;
	const char *src;
	int err = 0;

	if (!toff)
		return -ENOMEM;
	x->in = in;
	x->toff = toff;
	for (id = 1; !err && id <= in->nr_types; id++) {
		const struct btf_type *t = (const void *)(in->types + toff[id]);
		int kind = BTF_INFO_KIND(t->info);

		if (kind != BTF_KIND_FUNC && kind != BTF_KIND_VAR)
			continue;
		if (in->kind == IN_SLOTS && slot >= nr_slots) {
			err = -EINVAL;	/* the link has refused it already */
			break;
		}
		n = find_name(x, in->strs + t->name_off);
		if (n != NONE)
			err = kind == BTF_KIND_FUNC ?
			      explain_func(x, n, id, slot, func) :
			      explain_var(x, n, id, slot, var);
		slot++;
		func += kind == BTF_KIND_FUNC;
		var += kind == BTF_KIND_VAR;
	}
	src = NULL;
	if (!err && x->nr_recs > first_rec)
		err = member_source(x, &src);
	for (k = first_rec; k < x->nr_recs; k++)
		x->recs[k].r.member.source = src;
	btf__free(x->mbtf);
	x->mbtf = NULL;
	x->mbtf_tried = false;
	x->in = NULL;
	x->toff = NULL;
	free(toff);
	return err;
}

static int walk_one(const struct input *in, uint32_t nr_slots, void *ctx)
{
	return walk_input(ctx, in, nr_slots);
}

/*
 * Member @i, with its extension whatever the features (a clone's FUNC that
 * only optimized_func would use is worth a word), one at a time.
 */
static int walk_member(struct xctx *x, size_t i)
{
	return place__with_member(x->l, &x->l->pr, i, true, NULL, walk_one, x);
}

/* ---- the final BTF: every verdict held to it ---- */

/* Is there a FUNC @name among the types [@from, @to) of @btf? */
static bool has_func(const struct btf *btf, uint32_t from, uint32_t to,
		     const char *name)
{
	for (; from < to; from++) {
		const struct btf_type *t = btf__type_by_id(btf, from);

		if (btf_is_func(t) &&
		    !strcmp(btf__name_by_offset(btf, t->name_off), name))
			return true;
	}
	return false;
}

static int check_funcs(struct xctx *x)
{
	struct abtf_linker *l = x->l;
	uint32_t first = l->base ? btf__type_cnt(l->base) : 1;
	uint32_t end = btf__type_cnt(l->btf);
	size_t i;

	for (i = 0; i < x->nr_names; i++) {
		const struct xname *xn = &x->names[i];
		bool there = has_func(l->btf, first, end, xn->name);

		if (xn->kept != NONE && !there && l->base &&
		    has_func(l->base, 1, first, xn->name)) {
			x->recs[xn->kept].r.reason = ABTF_EXPLAIN_KEPT_IN_BASE;
			continue;
		}
		if ((xn->kept != NONE) == there)
			continue;
		pr_warn(&l->pr, "%s: --explain: the final BTF %s a FUNC '%s' "
			"that explain %s (a bug of explain)", l->path,
			there ? "has" : "lacks", xn->name,
			there ? "finds dropped" : "finds kept");
		return -EPROTO;
	}
	return 0;
}

/* ---- the records ---- */

static int sym_idx_cmp(const void *a, const void *b)
{
	const struct lsym *x = *(const struct lsym *const *)a;
	const struct lsym *y = *(const struct lsym *const *)b;

	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * The image's defined function and object symbols named @name, or @name
 * and a '.' suffix, in symbol table order, into *@out (malloc()ed).
 */
static int name_syms(const struct abtf_linker *l, const char *name,
		     struct abtf_explain_sym **out, size_t *nr)
{
	const struct link_symbols *sy = &l->sym;
	size_t len = strlen(name), i = abtf__first_sym(l, name), k, n = 0;
	const struct lsym **v = NULL;
	size_t cap = 0;

	*out = NULL;
	*nr = 0;
	for (; i < sy->nr_syms && !strncmp(sy->syms[i].name, name, len); i++) {
		char next = sy->syms[i].name[len];

		if (next && next != '.')
			continue;
		if (abtf_grow(v, cap, n + 1)) {
			free(v);
			return -ENOMEM;
		}
		v[n++] = &sy->syms[i];
	}
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), sym_idx_cmp);
	*out = calloc(n, sizeof(**out));
	if (!*out) {
		free(v);
		return -ENOMEM;
	}
	for (k = 0; k < n; k++) {
		(*out)[k].name = v[k]->name;
		(*out)[k].section = sy->secs[v[k]->shndx].name;
		(*out)[k].value = v[k]->value;
		(*out)[k].size = v[k]->size;
		(*out)[k].type = v[k]->type;
		(*out)[k].bind = v[k]->bind;
	}
	*nr = n;
	free(v);
	return 0;
}

static int emit_rec(struct xctx *x, struct xrec *rec)
{
	struct abtf_explain_sym *syms = NULL;
	int err = 0;

	if (rec->other != NONE) {
		rec->r.has_other = true;
		rec->r.other = x->recs[rec->other].r.member;
		rec->r.other_decl = x->recs[rec->other].decl;
		if (rec->r.reason == ABTF_EXPLAIN_NOT_FIRST)
			rec->r.differs = !rec->decl || !rec->r.other_decl ||
					 strcmp(rec->decl, rec->r.other_decl);
	}
	if (rec->r.reason == ABTF_EXPLAIN_AMBIGUOUS_ADDR)
		err = name_syms(x->l, rec->r.name, &syms, &rec->r.nr_syms);
	rec->r.syms = syms;
	if (!err)
		err = x->o.fn(x->o.ctx, &rec->r);
	free(syms);
	rec->r.syms = NULL;
	return err;
}

/* No member has a FUNC or VAR of the name: what the symbol table has. */
static int emit_none(struct xctx *x, const char *name)
{
	struct abtf_explain r = {
		.sz = sizeof(r), .name = name, .kind = ABTF_EXPLAIN_NONE,
		.reason = ABTF_EXPLAIN_NOT_ENCODED,
		.member = { .index = NONE, .offset = NONE },
		.other = { .index = NONE, .offset = NONE },
	};
	struct abtf_explain_sym *syms = NULL;
	int err = 0;

	if (x->l->file.elf)
		err = name_syms(x->l, name, &syms, &r.nr_syms);
	r.syms = syms;
	r.no_symtab = !x->l->sym.symtab;
	r.in_base = x->l->base &&
		    (btf__find_by_name_kind(x->l->base, name, BTF_KIND_FUNC) > 0 ||
		     btf__find_by_name_kind(x->l->base, name, BTF_KIND_VAR) > 0);
	if (!err)
		err = x->o.fn(x->o.ctx, &r);
	free(syms);
	return err;
}

/* Each name as given, its records in link order. */
static int emit_all(struct xctx *x, const char *const *names, size_t nr)
{
	size_t i, k;
	int err = 0;

	for (i = 0; !err && i < nr; i++) {
		size_t n = find_name(x, names[i]);

		if (!x->names[n].nr_recs) {
			err = emit_none(x, names[i]);
			continue;
		}
		for (k = 0; !err && k < x->nr_recs; k++)
			if (x->recs[k].name == n)
				err = emit_rec(x, &x->recs[k]);
	}
	return err;
}

static void xctx_free(struct xctx *x)
{
	size_t i;

	for (i = 0; i < x->nr_recs; i++) {
		free(x->recs[i].decl);
		free(x->recs[i].sig);
	}
	free(x->recs);
	free(x->names);
	free(x->by_name);
	free(x->cus);
	if (x->dw)
		dwarf_end(x->dw);
	if (x->dw_elf)
		elf_end(x->dw_elf);
}

ABTF_API int abtf_linker__explain(struct abtf_linker *l,
				  const char *const *names, size_t nr_names,
				  const struct abtf_explain_opts *opts)
{
	struct xctx x = { .l = l };
	size_t i;
	int err;

	if (!l || (nr_names && !names))
		return -EINVAL;
	err = abtf__copy_opts(&x.o, sizeof(x.o), opts);
	if (err || !x.o.fn)
		return -EINVAL;
	err = abtf_linker__link(l);
	if (err < 0)
		return err;
	if (l->final_input) {
		pr_warn(&l->pr, "%s: its BTF is already final: no archive "
			"left to explain (force links it again)", l->path);
		return -EALREADY;
	}
	err = collect_names(&x, names, nr_names);
	if (!err && l->file.elf)
		err = abtf__syms_by_name(l);
	for (i = 0; !err && x.nr_names && i < l->plan.nr_members; i++)
		err = walk_member(&x, i);
	if (!err)
		err = check_funcs(&x);
	if (!err)
		err = emit_all(&x, names, nr_names);
	xctx_free(&x);
	return err;
}
