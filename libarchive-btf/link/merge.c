// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One node of btf-link's merge tree: take inputs (archive members or child
 * nodes' results) in order, keep one FUNC per name and only the VARs that
 * have a place, map the types the node has already (exact.c) and append
 * the others with their type IDs and strings remapped. The root then
 * deduplicates with libbpf's algorithm and rebuilds the DATASECs. See the
 * essay atop linker.c.
 *
 * A node touches only its own state and the linker's read-only tables, so
 * nodes of one level run in parallel. The root without a base merges its
 * children a task per child ("the root: its children merged a task per
 * child", below).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "link/linker.h"
#include "link/input.h"
#include "link/pool.h"
#include "link/place.h"
#include "link/merge_tree.h"
#include "link/funcs.h"
#include "link/kfuncs.h"
#include "link/merge.h"
#include "link/node_dedup.h"
#include "link/node_str.h"
#include "link/exact.h"
#include "link/node.h"
#include "btf/verify.h"

/* ---- node bookkeeping ---- */

static void node_place(const struct node *n, char *buf, size_t size);

/* One error of node @n of the link of @path: the file, the node, @what. */
static int node_error(const char *path, struct node *n, int err,
		      const char *what)
{
	char place[96];

	node_place(n, place, sizeof(place));
	pr_warn(&n->pr, "%s: %s: %s", path, place, what);
	return err;
}

/* The FUNC names a node has (one FUNC per name): 1 if @name_off was there. */
static int fn_seen_add(struct node *n, uint32_t name_off)
{
	uint32_t val = name_off + 1, hash = val * 2654435761u;
	struct abtf_hent *e;

	if (abtf__hmap_reserve(&n->fn_seen, 4096))
		return -ENOMEM;
	for (e = abtf__hmap_first(&n->fn_seen, hash); e->val;
	     e = abtf__hmap_next(&n->fn_seen, e))
		if (e->val == val)
			return 1;	/* already there */
	abtf__hmap_fill(&n->fn_seen, e, hash, val);
	return 0;
}

static int add_var(struct node_vars *v, const struct place *pl, uint32_t id)
{
	if (abtf_grow(v->places, v->cap, v->nr + 1) ||
	    abtf_grow(v->ids, v->cap_ids, v->nr + 1))
		return -ENOMEM;
	v->places[v->nr] = *pl;
	if (pl->dsec_name) {
		/* the input's strings are gone by the time the node is done */
		v->places[v->nr].dsec_name = strdup(pl->dsec_name);
		if (!v->places[v->nr].dsec_name)
			return -ENOMEM;
	}
	v->ids[v->nr] = id;
	v->nr++;
	return 0;
}

/* VARs stay in order from here on: their IDs are no longer needed. */
static void node_vars_drop_ids(struct node_vars *v)
{
	free(v->ids);
	v->ids = NULL;
	v->cap_ids = 0;
}

static void node_vars_free(struct node_vars *v)
{
	size_t i;

	for (i = 0; i < v->nr; i++)
		free((char *)v->places[i].dsec_name);	/* add_var()'s copies */
	free(v->places);
	free(v->ids);
	memset(v, 0, sizeof(*v));
}

void merge__node_free(struct node *n)
{
	abtf__strtab_free(&n->strs);
	free(n->types);
	abtf__hmap_free(&n->fn_seen);
	funcs__sigs_free(&n->fsigs);
	node_vars_free(&n->vars);
	free(n->raw);
	node_str__smap_free(&n->smap);
	exact__free(&n->ex);
	memset(&n->strs, 0, sizeof(n->strs));
	n->types = NULL;
	n->raw = NULL;
}

/* ---- where FUNCs and VARs are ---- */

/*
 * pahole keeps the variables of the final ".data..percpu" only: the vmlinux
 * linker script has merged its input subsections into it by now.
 */
bool merge__in_percpu_section(const struct abtf_linker *l,
			      const struct place *pl)
{
	const char *name = l->file.elf ? (pl->key < l->sym.nr_secs ?
				     l->sym.secs[pl->key].name : NULL) :
				    pl->dsec_name;

	return name && !strcmp(name, ABTF_PERCPU_SEC);
}

/* ---- one input ---- */

/* Per-input scratch: which local IDs survive, and where VARs go. */
struct scratch {
	const struct input *in;
	const char *path;	/* for messages */
	uint32_t *map;		/* local ID -> node ID; 0: dropped */
	struct place *places;	/* local VAR ID -> place */
	uint32_t *dsec_of;	/* local VAR ID -> its DATASEC record offset + 1 */
	uint32_t *dsec_off;	/* local VAR ID -> its DATASEC entry offset */
	uint32_t *var_size;	/* local VAR ID -> its DATASEC entry size */
	uint32_t *toff;		/* local ID -> its record's offset */
	uint8_t *held;		/* local ID -> held back (exact.c), or NULL */
	uint32_t next_slot;	/* IN_SLOTS: slots go FUNC and VAR, in order */
	uint32_t next_func;	/* FUNCs seen, for funcs.c's choices */
	uint32_t next_var;	/* IN_NAMES, IN_CHILD: the next VAR's place */
};

static struct btf_type *next_type(const struct input *in, uint32_t *off)
{
	struct btf_type *t = (void *)(in->types + *off);

	*off += abtf__record_size(t);
	return t;
}

/* A member's DATASEC gives its VARs their sizes (and, raw, offsets). */
static void note_datasec(struct scratch *sc, const struct btf_type *t)
{
	const struct btf_var_secinfo *v = (const void *)(t + 1);
	uint32_t at = (const uint8_t *)t - sc->in->types;
	uint16_t i;

	for (i = 0; i < BTF_INFO_VLEN(t->info); i++) {
		if (!v[i].type || v[i].type > sc->in->nr_types)
			continue;
		sc->var_size[v[i].type] = v[i].size;
		sc->dsec_off[v[i].type] = v[i].offset;
		sc->dsec_of[v[i].type] = at + 1;
	}
}

/* Raw input places VARs by their DATASEC, which comes after them. */
static void collect_datasecs(struct scratch *sc)
{
	uint32_t off = 0, id;

	for (id = 1; id <= sc->in->nr_types; id++) {
		const struct btf_type *t = next_type(sc->in, &off);

		if (BTF_INFO_KIND(t->info) == BTF_KIND_DATASEC)
			note_datasec(sc, t);
	}
}

/* A raw file holds no symbols: VARs keep their member DATASEC, if one. */
static void raw_place(struct abtf_linker *l, struct scratch *sc, uint32_t id,
		      struct place *pl)
{
	const struct btf_type *d;

	memset(pl, 0, sizeof(*pl));
	if (l->plan.nr_members != 1 || !sc->dsec_of[id])
		return;	/* offsets of several members cannot be placed */
	d = (void *)(sc->in->types + sc->dsec_of[id] - 1);
	pl->present = true;
	pl->dsec_name = sc->in->strs + d->name_off;
	pl->dsec_size = d->size;
	pl->off = sc->dsec_off[id];
}

static int place_var(struct abtf_linker *l, struct scratch *sc, uint32_t id,
		     struct place *pl)
{
	const struct input *in = sc->in;
	int err = 0;

	switch (in->kind) {
	case IN_SLOTS:
		err = place__slot(l, in->plan, sc->next_slot++, pl);
		break;
	case IN_NAMES:
		if (sc->next_var >= in->plan->nr_vars)
			return -EINVAL;
		*pl = in->plan->vars[sc->next_var++];
		break;
	case IN_CHILD:
		if (sc->next_var >= in->nr_vars)
			return -EINVAL;
		*pl = in->vars[sc->next_var++];
		break;
	case IN_RAW:
		raw_place(l, sc, id, pl);
		break;
	}
	if (!err && pl->present && in->kind != IN_CHILD)
		pl->present = merge__in_percpu_section(l, pl);
	return err;
}

/*
 * pahole's test of a variable's name (btf_encoder.c, btf_name_valid()): a
 * letter, '_' or '.', then letters, digits, '_' or '.', at most
 * KSYM_NAME_LEN (128) characters. The kernel rejects a VAR named otherwise.
 */
bool merge__var_name_valid(const char *p)
{
	const char *limit = p + 128;

	if (!(isalpha((unsigned char)*p) || *p == '_' || *p == '.'))
		return false;
	for (p++; *p && p < limit; p++)
		if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '.'))
			return false;
	return !*p;
}

/*
 * A VAR of a member that the link keeps: pahole's rules for its name. An
 * invalid name stops the link, or with encode_force, the VAR is left out.
 */
static int var_name_check(struct abtf_linker *l, struct node *n,
			  const struct scratch *sc, const char *name)
{
	char safe[96];

	if (merge__var_name_valid(name))
		return 1;
	if (l->feats & ABTF_FEAT_ENCODE_FORCE)
		return 0;
	pr_warn(&n->pr, "%s member %zu: variable '%s': not a valid BTF "
		"name (the kernel rejects it); --btf_features=encode_force "
		"leaves it out", l->where, abtf__member_idx(l, sc->in->plan),
		abtf__safe_name(name, safe, sizeof(safe)));
	return -EILSEQ;
}

/* Keep this type? 1 yes, 0 no, < 0 error. */
static int decide(struct abtf_linker *l, struct node *n, struct scratch *sc,
		  uint32_t id, const struct btf_type *t)
{
	const char *name = sc->in->strs + t->name_off;
	int64_t soff;
	int ret;

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_DATASEC:
		note_datasec(sc, t);
		return 0;	/* rebuilt by the root */
	case BTF_KIND_TYPE_TAG:	/* type_tag off: unreferenced (filter.c) */
		return !!(l->feats & ABTF_FEAT_TYPE_TAG);
	case BTF_KIND_DECL_TAG:	/* decided after the others */
		return 0;
	case BTF_KIND_FUNC:
		sc->next_func++;
		ret = place__func_present(l, sc->in, sc->next_slot, name);
		if (sc->in->kind == IN_SLOTS)
			sc->next_slot++;
		if (ret <= 0)
			return ret;
		if (sc->in->kind != IN_CHILD &&
		    (funcs__dropped(&l->fn_rules, name) ||
		     funcs__skipped(&l->fn_rules,
					abtf__member_idx(l, sc->in->plan),
					sc->next_func - 1)))
			return 0;	/* optimized/consistent_func: funcs.c */
		/*
		 * A child's FUNCs have one name each: a name the node
		 * lacks is no FUNC's of it, and is interned as the FUNC is
		 * appended (node_str.c), in the order of the types.
		 */
		soff = sc->in->kind == IN_CHILD ?
		       node_str__find(n, sc->in, t->name_off) :
		       abtf__strtab_add(&n->strs, name);
		if (soff == -ENOENT)
			return 1;
		if (soff < 0)
			return soff;
		ret = fn_seen_add(n, soff);
		return ret < 0 ? ret : !ret;	/* one FUNC per name */
	case BTF_KIND_VAR:	/* placed even when left out: slots go in order */
		ret = place_var(l, sc, id, &sc->places[id]);
		if (ret < 0 || !sc->places[id].present ||
		    !(l->feats & ABTF_FEAT_VAR))
			return ret < 0 ? ret : 0;
		if (sc->in->kind == IN_CHILD)
			return 1;	/* checked in its leaf */
		return var_name_check(l, n, sc, name);
	default:
		return 1;
	}
}

struct remap {
	struct node *n;
	struct scratch *sc;
	uint32_t bad;		/* the input type ID that was dropped */
};

static int remap_id(uint32_t *id, void *ctx)
{
	struct remap *r = ctx;

	if (!*id)
		return 0;
	if (*id > r->sc->in->nr_types || !r->sc->map[*id]) {
		r->bad = *id;
		return -EINVAL;
	}
	*id = r->sc->map[*id];
	return 0;
}

static int remap_str(uint32_t *off, void *ctx)
{
	struct remap *r = ctx;
	int64_t no = node_str__get(r->n, r->sc->in, *off);

	if (no < 0)
		return no;
	*off = no;
	return 0;
}

static int grow_types(struct node *n, size_t more)
{
	size_t need = n->types_len + more;

	if (need < n->types_len)
		return -ENOMEM;
	return abtf_grow(n->types, n->types_cap,
			 need < (1 << 20) ? (1 << 20) : need);
}

/* Input type @t refers to input type @bad, which the merge left out. */
static int dropped_error(struct node *n, const struct scratch *sc,
			 const struct btf_type *t, uint32_t bad)
{
	const struct input *in = sc->in;
	char name[80], where[96];

	abtf__safe_name(t->name_off < in->str_len ? in->strs + t->name_off :
			"", name, sizeof(name));
	if (in->plan)
		snprintf(where, sizeof(where), ".BTF member at byte %zu",
			 in->plan->off);
	else
		snprintf(where, sizeof(where), "a merged node");
	pr_warn(&n->pr, "%s: %s: %s '%s' refers to type [%u], which the "
		"link left out", sc->path, where,
		abtf__kind_str(BTF_INFO_KIND(t->info)), name, bad);
	return -EINVAL;
}

static int append_type(struct node *n, struct scratch *sc, uint32_t in_id,
		       const struct btf_type *t)
{
	uint32_t id = sc->map[in_id];
	size_t sz = abtf__record_size(t);
	struct remap r = { .n = n, .sc = sc };
	struct btf_type *dst;
	int err;

	if (grow_types(n, sz))
		return -ENOMEM;
	dst = (void *)(n->types + n->types_len);
	memcpy(dst, t, sz);
	if (abtf__for_each_type_id(dst, remap_id, &r))
		return dropped_error(n, sc, t, r.bad);
	err = abtf__for_each_str_off(dst, remap_str, &r);
	if (err)
		return err;
	err = exact__add(n, id, n->types_len,
			 sc->held ? &sc->held[in_id] : NULL);
	n->types_len += sz;
	return err;
}

/* Each input type's offset; whether there are VARs or DATASECs. */
static bool index_types(struct scratch *sc)
{
	const struct input *in = sc->in;
	uint32_t off = 0, id;
	bool vars = false;

	for (id = 1; id <= in->nr_types; id++) {
		const struct btf_type *t;

		sc->toff[id] = off;
		t = next_type(in, &off);
		vars |= BTF_INFO_KIND(t->info) == BTF_KIND_VAR ||
			BTF_INFO_KIND(t->info) == BTF_KIND_DATASEC;
	}
	return vars;
}

/* Where VARs go: most members have none, and need none of this. */
static int alloc_var_scratch(struct scratch *sc, bool vars)
{
	size_t cnt = vars ? sc->in->nr_types + 1 : 0;

	if (!cnt)
		return 0;
	sc->places = calloc(cnt, sizeof(*sc->places));
	sc->dsec_of = calloc(cnt, sizeof(*sc->dsec_of));
	sc->dsec_off = calloc(cnt, sizeof(*sc->dsec_off));
	sc->var_size = calloc(cnt, sizeof(*sc->var_size));
	if (sc->places && sc->dsec_of && sc->dsec_off && sc->var_size)
		return 0;
	return -ENOMEM;
}

/*
 * A DECL_TAG survives with what it tags: a FUNC or VAR the link dropped
 * takes its tags along. Decided once every other type is, since a tag
 * may come before its target (libbpf's dedup keeps the first of equal
 * types, which may follow a tag of a later copy); a tag of a tag is not
 * one BTF allows. With decl_tag off, none survives.
 */
static void decide_decl_tags(struct scratch *sc)
{
	const struct input *in = sc->in;
	uint32_t id;

	for (id = 1; id <= in->nr_types; id++) {
		const struct btf_type *t = (const void *)(in->types + sc->toff[id]);
		const struct btf_type *target;

		if (BTF_INFO_KIND(t->info) != BTF_KIND_DECL_TAG ||
		    !t->type || t->type > in->nr_types || !sc->map[t->type])
			continue;
		target = (const void *)(in->types + sc->toff[t->type]);
		if (BTF_INFO_KIND(target->info) != BTF_KIND_DECL_TAG)
			sc->map[id] = EXACT_NEW;
	}
}

/* decide() for input type @id, its -EINVAL said as @n's error. */
static int decide_type(struct abtf_linker *l, struct node *n,
		       struct scratch *sc, uint32_t id)
{
	int keep;

	if (sc->in->gone && sc->in->gone[id])
		return 0;	/* an inner ARRAY, flattened (filter.c) */
	keep = decide(l, n, sc, id, (const void *)(sc->in->types +
						   sc->toff[id]));
	if (keep == -EINVAL)
		return node_error(l->path, n, keep, ".debug_btf_addr does "
				  "not match its member");
	return keep;
}

/* Which input types survive: EXACT_NEW, or 0 (dropped). */
static int decide_all(struct abtf_linker *l, struct node *n,
		      struct scratch *sc)
{
	const struct input *in = sc->in;
	uint32_t id;
	int keep;

	if (in->kind == IN_RAW && sc->places)
		collect_datasecs(sc);
	for (id = 1; id <= in->nr_types; id++) {
		keep = decide_type(l, n, sc, id);
		if (keep < 0)
			return keep;
		sc->map[id] = keep ? EXACT_NEW : 0;
	}
	keep = funcs__drop_protos(in, sc->toff, sc->map);
	if (keep < 0)
		return keep;
	if (l->feats & ABTF_FEAT_DECL_TAG)
		decide_decl_tags(sc);
	return 0;
}

/*
 * Pass 1 decides which types survive and maps those the node already has
 * (exact.c); the others are numbered in order and, in pass 2, appended,
 * every reference known.
 */
static int merge_input(struct abtf_linker *l, struct node *n,
		       struct scratch *sc)
{
	const struct input *in = sc->in;
	uint32_t id, first_new = n->next_id;
	int err;

	err = decide_all(l, n, sc);
	/*
	 * Over a base, a type of one meaning in the module may still be
	 * decided two ways by the root's dedup, against a base struct that
	 * reaches a FWD: the root alone merges a module's types.
	 */
	if (!err && !l->testing.no_exact && !l->base) {
		sc->held = malloc((size_t)in->nr_types + 1);
		err = sc->held ? exact__map(n, in, sc->map, sc->toff,
					    sc->held) : -ENOMEM;
	}
	if (err)
		return err;
	for (id = 1; id <= in->nr_types; id++)
		if (sc->map[id] == EXACT_NEW)
			sc->map[id] = n->next_id++;
	for (id = 1; id <= in->nr_types; id++) {
		const struct btf_type *t = (const void *)(in->types + sc->toff[id]);
		int kind = BTF_INFO_KIND(t->info);
		size_t at = n->types_len;

		if (!sc->map[id] || sc->map[id] < first_new)
			continue;	/* dropped, or the node has it */
		err = append_type(n, sc, id, t);
		if (err)
			return err;
		if (kind == BTF_KIND_VAR) {
			if (in->kind == IN_SLOTS || in->kind == IN_RAW)
				sc->places[id].size = sc->var_size[id];
			err = add_var(&n->vars, &sc->places[id], sc->map[id]);
			if (err)
				return err;
		} else if (kind == BTF_KIND_FUNC) {
			n->funcs++;
			/* decide(): a child's FUNC may be first of its name */
			err = fn_seen_add(n, ((const struct btf_type *)
					      (n->types + at))->name_off);
			if (err < 0)
				return err;
		}
	}
	n->types_in += in->nr_types;
	return 0;
}

static void scratch_free(struct scratch *sc)
{
	free(sc->map);
	free(sc->places);
	free(sc->dsec_of);
	free(sc->dsec_off);
	free(sc->var_size);
	free(sc->toff);
	free(sc->held);
}

int merge__node_merge(struct abtf_linker *l, struct node *n,
		     const struct input *in)
{
	size_t cnt = in->nr_types + 1;
	struct scratch sc = { .in = in, .path = l->path };
	int err = -ENOMEM;

	if (!n->next_id) {
		if (abtf__strtab_add(&n->strs, "") < 0)
			return -ENOMEM;
		n->first_id = n->root && l->base ? btf__type_cnt(l->base) : 1;
		n->next_id = n->first_id;
	}
	sc.map = malloc(cnt * sizeof(*sc.map));
	sc.toff = malloc(cnt * sizeof(*sc.toff));
	if (sc.map && sc.toff &&
	    !node_str__smap_reserve(&n->smap, in->str_len) &&
	    !alloc_var_scratch(&sc, index_types(&sc)))
		err = merge_input(l, n, &sc);
	if (!err)
		err = exact__index(n);
	node_str__smap_clear(&n->smap);
	scratch_free(&sc);
	return err;
}

/* ---- the root: its children merged a task per child ---- */

/*
 * Below a root without a base, exact.c is off at the root (what it
 * maps there libbpf's walk maps the same way: the same bytes), so each
 * child's types are a copy with IDs and strings renumbered, and only two
 * things pass from one child to the next: which FUNC names came before,
 * and which strings the root has. Those are decided in order, the rest
 * in a task per child:
 *
 *  1. (tasks) each child's types indexed and decided, its FUNCs noted;
 *  2. (in order) a FUNC survives if no earlier child kept its name;
 *  3. (tasks) FUNC_PROTOs and DECL_TAGs that go with dropped FUNCs; the
 *     kept types counted; the child's strings in the order its kept
 *     types first name them;
 *  4. (in order) type IDs and places in the root's buffer; each child's
 *     new strings interned, so the root's table is in the order of
 *     first reference, as one input after another would make it;
 *  5. (tasks) each child's kept types copied and renumbered, its VARs
 *     noted, the child freed;
 *  6. (in order) the VARs, in child order.
 *
 * The root's types, strings and VARs are what merge__node_merge() of
 * each child in turn would make with exact.c off.
 */
#define MAX_ROOT_ID	0x7fffffffu	/* libbpf's BTF_MAX_NR_TYPES */
#define RELEASE_STEP	(1u << 20)	/* root_copy() gives back a MiB at a time */

struct rchild {
	struct input in;
	struct scratch sc;
	uint32_t *funcs;	/* the child's FUNCs, by ID */
	size_t nr_funcs, cap_funcs;
	uint32_t *strs;		/* child string offsets, first-reference order */
	size_t nr_strs, cap_strs;
	uint32_t *roff;		/* strs[k]'s offset in the root's strings */
	uint8_t *seen;		/* a bit per byte of its strings: in strs */
	uint8_t *kept;		/* a bit per type, from step 3 to step 5 */
	uint32_t *smap;		/* while it is copied: its offsets -> root's */
	uint32_t nr_kept;
	size_t kept_len;
	uint32_t first_id;	/* the root's ID of its first kept type */
	size_t at;		/* where its types go in the root's buffer */
	size_t funcs_kept;
	struct node_vars vars;	/* its VARs, root IDs */
};

struct rmerge {
	struct node *root;
	struct node *kids;	/* the root's children, n->nr of them */
	struct rchild *rc;
};

static struct rchild *rchild_of(struct rmerge *rm, struct node *c)
{
	return &rm->rc[c - rm->kids];
}

static void rchild_free(struct rchild *rc)
{
	scratch_free(&rc->sc);
	free(rc->funcs);
	free(rc->strs);
	free(rc->roff);
	free(rc->seen);
	free(rc->kept);
	free(rc->smap);
	node_vars_free(&rc->vars);
	memset(rc, 0, sizeof(*rc));
}

/* 1. Index and decide the child's types; its FUNCs wait for step 2. */
static int root_prepare(struct abtf_linker *l, struct node *c, void *ctx)
{
	struct rmerge *rm = ctx;
	struct rchild *rc = rchild_of(rm, c);
	struct scratch *sc = &rc->sc;
	size_t cnt;
	uint32_t id;
	int keep;

	abtf__child_input(c, &rc->in);
	cnt = (size_t)rc->in.nr_types + 1;
	sc->in = &rc->in;
	sc->path = l->path;
	sc->map = malloc(cnt * sizeof(*sc->map));
	sc->toff = malloc(cnt * sizeof(*sc->toff));
	if (!sc->map || !sc->toff || alloc_var_scratch(sc, index_types(sc)))
		return -ENOMEM;
	for (id = 1; id < cnt; id++) {
		const struct btf_type *t = (const void *)(rc->in.types +
							  sc->toff[id]);

		if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC) {
			/* a child's FUNC is in the image: its leaf said so */
			sc->next_func++;
			if (abtf_grow(rc->funcs, rc->cap_funcs, rc->nr_funcs + 1))
				return -ENOMEM;
			rc->funcs[rc->nr_funcs++] = id;
			sc->map[id] = EXACT_NEW;
			continue;
		}
		keep = decide_type(l, c, sc, id);
		if (keep < 0)
			return keep;
		sc->map[id] = keep ? EXACT_NEW : 0;
	}
	return 0;
}

/* 2. One FUNC per name: the first child's, in order. */
static int root_funcs(struct rmerge *rm)
{
	struct strtab names = { 0 };
	size_t i, k;
	int err = 0;

	for (i = 0; !err && i < rm->root->nr; i++) {
		struct rchild *rc = &rm->rc[i];

		for (k = 0; !err && k < rc->nr_funcs; k++) {
			uint32_t id = rc->funcs[k];
			const struct btf_type *t = (const void *)
				(rc->in.types + rc->sc.toff[id]);
			size_t end = names.len;
			int64_t no = abtf__strtab_add(&names,
						      rc->in.strs + t->name_off);

			if (no < 0)
				err = (int)no;
			else if ((size_t)no != end)	/* not new: not first */
				rc->sc.map[id] = 0;
		}
	}
	abtf__strtab_free(&names);
	return err;
}

static int note_str(uint32_t *off, void *ctx)
{
	struct rchild *rc = ctx;

	if (!*off || rc->seen[*off / 8] & 1 << *off % 8)
		return 0;
	if (abtf_grow(rc->strs, rc->cap_strs, rc->nr_strs + 1))
		return -ENOMEM;
	rc->seen[*off / 8] |= 1 << *off % 8;
	rc->strs[rc->nr_strs++] = *off;
	return 0;
}

/*
 * Until its copy the map of a child is a bit per type: every child waits
 * for step 4 with it, and 4 bytes per type were 3 MB of the peak.
 */
static int kept_bits(struct rchild *rc)
{
	uint32_t id;

	rc->kept = calloc(rc->in.nr_types / 8 + 1, 1);
	if (!rc->kept)
		return -ENOMEM;
	for (id = 1; id <= rc->in.nr_types; id++)
		if (rc->sc.map[id])
			rc->kept[id / 8] |= 1 << id % 8;
	free(rc->sc.map);
	rc->sc.map = NULL;
	return 0;
}

/* 3. What goes with dropped FUNCs; the kept types and their strings. */
static int root_count(struct abtf_linker *l, struct node *c, void *ctx)
{
	struct rchild *rc = rchild_of(ctx, c);
	struct scratch *sc = &rc->sc;
	uint32_t id;
	int err;

	err = funcs__drop_protos(&rc->in, sc->toff, sc->map);
	if (err)
		return err;
	if (l->feats & ABTF_FEAT_DECL_TAG)
		decide_decl_tags(sc);
	rc->seen = calloc(rc->in.str_len / 8 + 1, 1);
	if (!rc->seen)
		return -ENOMEM;
	for (id = 1; !err && id <= rc->in.nr_types; id++) {
		struct btf_type *t = (void *)(rc->in.types + sc->toff[id]);

		if (!sc->map[id])
			continue;
		rc->nr_kept++;
		rc->kept_len += abtf__record_size(t);
		err = abtf__for_each_str_off(t, note_str, rc);
	}
	free(sc->toff);		/* the copy goes by record */
	sc->toff = NULL;
	free(rc->seen);
	rc->seen = NULL;
	if (!err) {
		rc->roff = malloc((rc->nr_strs + 1) * sizeof(*rc->roff));
		err = rc->roff ? kept_bits(rc) : -ENOMEM;
	}
	return err;
}

/* 4. IDs and places, in child order; the new strings interned in order. */
static int root_place(struct node *n, struct rmerge *rm)
{
	uint32_t id;
	size_t i, k, len = n->types_len;

	if (!n->next_id) {
		if (abtf__strtab_add(&n->strs, "") < 0)
			return -ENOMEM;
		n->first_id = n->next_id = 1;
	}
	id = n->next_id;
	for (i = 0; i < n->nr; i++) {
		struct rchild *rc = &rm->rc[i];

		if (id > MAX_ROOT_ID - rc->nr_kept)
			return -E2BIG;
		rc->first_id = id;
		rc->at = len;
		id += rc->nr_kept;
		len += rc->kept_len;
		for (k = 0; k < rc->nr_strs; k++) {
			int64_t no = abtf__strtab_add(&n->strs,
						      rc->in.strs + rc->strs[k]);

			if (no < 0)
				return (int)no;
			rc->roff[k] = (uint32_t)no;
		}
	}
	if (grow_types(n, len - n->types_len))
		return -ENOMEM;
	n->next_id = id;
	n->types_len = len;	/* filled by step 5 */
	return 0;
}

static int remap_root_str(uint32_t *off, void *ctx)
{
	const struct rchild *rc = ctx;

	*off = *off ? rc->smap[*off] : 0;
	return 0;
}

/* 5. The child's kept types into the root's buffer, renumbered. */
static int root_copy(struct abtf_linker *l, struct node *c, void *ctx)
{
	struct rmerge *rm = ctx;
	struct rchild *rc = rchild_of(rm, c);
	struct scratch *sc = &rc->sc;
	struct remap r = { .n = c, .sc = sc };
	uint8_t *dst = rm->root->types + rc->at;
	uint32_t id, next = rc->first_id, off = 0, done = 0;
	size_t k;
	int err = 0;

	(void)l;
	/* the string map lives while the child is copied, not before */
	rc->smap = malloc((rc->in.str_len ? rc->in.str_len : 1) *
			  sizeof(*rc->smap));
	if (!rc->smap)
		return -ENOMEM;
	sc->map = malloc(((size_t)rc->in.nr_types + 1) * sizeof(*sc->map));
	if (!sc->map)
		return -ENOMEM;
	for (k = 0; k < rc->nr_strs; k++)
		rc->smap[rc->strs[k]] = rc->roff[k];
	sc->map[0] = 0;
	for (id = 1; id <= rc->in.nr_types; id++)
		sc->map[id] = rc->kept[id / 8] & 1 << id % 8 ? next++ : 0;
	for (id = 1; !err && id <= rc->in.nr_types; id++) {
		const struct btf_type *t = next_type(&rc->in, &off);
		struct btf_type *d = (void *)dst;
		size_t sz = abtf__record_size(t);

		if (!sc->map[id])
			continue;
		memcpy(d, t, sz);
		if (abtf__for_each_type_id(d, remap_id, &r))
			return dropped_error(c, sc, t, r.bad);
		abtf__for_each_str_off(d, remap_root_str, rc);
		dst += sz;
		if (BTF_INFO_KIND(d->info) == BTF_KIND_VAR)
			err = add_var(&rc->vars, &sc->places[id], sc->map[id]);
		else if (BTF_INFO_KIND(d->info) == BTF_KIND_FUNC)
			rc->funcs_kept++;
		/*
		 * The child's types are read in order, once: give them back,
		 * last, since the pages released hold the start of @t when
		 * it crosses into the page @off is in.
		 */
		if (off - done >= RELEASE_STEP) {
			abtf__release_pages(rc->in.types + done,
					    rc->in.types + off);
			done = off;
		}
	}
	if (!err)
		merge__node_free(c);	/* copied: its memory can go */
	free(rc->smap);
	rc->smap = NULL;
	free(sc->map);
	sc->map = NULL;
	return err;
}

/* 6. The VARs in child order; the counts. */
static int root_vars(struct node *n, struct rmerge *rm)
{
	size_t i, k;
	int err = 0;

	for (i = 0; !err && i < n->nr; i++) {
		struct rchild *rc = &rm->rc[i];

		for (k = 0; !err && k < rc->vars.nr; k++)
			err = add_var(&n->vars, &rc->vars.places[k],
				      rc->vars.ids[k]);
		n->types_in += rc->in.nr_types;
		n->funcs += rc->funcs_kept;
	}
	return err;
}

int merge__root_children(struct abtf_linker *l, struct node *n,
			 struct node *kids)
{
	struct rmerge rm = { .root = n, .kids = kids };
	size_t i;
	int err;

	rm.rc = calloc(n->nr, sizeof(*rm.rc));
	if (!rm.rc)
		return -ENOMEM;
	err = abtf__run_level(l, kids, n->nr, root_prepare, &rm);
	if (!err)
		err = root_funcs(&rm);
	if (!err)
		err = abtf__run_level(l, kids, n->nr, root_count, &rm);
	if (!err)
		err = root_place(n, &rm);
	if (!err)
		err = abtf__run_level(l, kids, n->nr, root_copy, &rm);
	if (!err)
		err = root_vars(n, &rm);
	for (i = 0; i < n->nr; i++)
		rchild_free(&rm.rc[i]);
	free(rm.rc);
	return err;
}

/* ---- a node's result ---- */

static int shift_str(uint32_t *off, void *ctx)
{
	uint32_t *shift = ctx;

	if (*off)
		*off += *shift;
	return 0;
}

static void *raw_btf(struct node *n, uint32_t shift, size_t *size)
{
	struct btf_header hdr = {
		.magic = BTF_MAGIC, .version = BTF_VERSION,
		.hdr_len = sizeof(hdr),
	};
	uint8_t *raw;

	/* split BTF names its own strings from the end of the base's */
	if (shift) {
		uint32_t off = 0;

		while (off < n->types_len) {
			struct btf_type *t = (void *)(n->types + off);
			abtf__for_each_str_off(t, shift_str, &shift);
			off += abtf__record_size(t);
		}
	}
	hdr.type_len = n->types_len;
	hdr.str_off = n->types_len;
	hdr.str_len = n->strs.len;
	*size = sizeof(hdr) + n->types_len + n->strs.len;
	/* in the type buffer itself: no second copy of a leaf's types */
	raw = realloc(n->types, *size);
	if (!raw)
		return NULL;
	n->types = NULL;
	memmove(raw + sizeof(hdr), raw, n->types_len);
	memcpy(raw, &hdr, sizeof(hdr));
	memcpy(raw + sizeof(hdr) + n->types_len, n->strs.data, n->strs.len);
	/* the merge state is no longer needed: free it before dedup's peak */
	abtf__strtab_free(&n->strs);
	memset(&n->strs, 0, sizeof(n->strs));
	node_str__smap_free(&n->smap);
	exact__free_index(&n->ex);
	return raw;
}

/* What node @n merged, for messages: its members, or its child nodes. */
static void node_place(const struct node *n, char *buf, size_t size)
{
	if (n->leaf)
		snprintf(buf, size, "the types of .BTF members %zu to %zu",
			 n->first, n->first + n->nr - 1);
	else
		snprintf(buf, size, "the types merged from %zu nodes%s", n->nr,
			 n->root ? " (the root)" : "");
}

static struct btf *libbpf_dedup(const struct abtf_linker *l, struct node *n,
				void *raw, size_t size, struct btf *base)
{
	struct btf *btf = abtf__new_btf(raw, size, base);
	char place[96];
	int err;

	free(raw);
	node_place(n, place, sizeof(place));
	if (!btf) {
		err = -errno;
		pr_warn(&n->pr, "%s: %s: libbpf finds the merged BTF invalid: "
			"%s", l->path, place, strerror(-err));
		errno = -err;
		return NULL;
	}
	err = btf__dedup(btf, NULL);
	if (err) {
		pr_warn(&n->pr, "%s: %s: libbpf's BTF deduplication failed: "
			"%s", l->path, place, strerror(-err));
		btf__free(btf);
		errno = -err;
		return NULL;
	}
	return btf;
}

/*
 * Deduplicate the node's merged BTF @raw (consumed) into *@raw_out, or
 * into *@btf_out where libbpf decides: at the root by libbpf's algorithm
 * (node_dedup.c, a module's split BTF too; btf__dedup() for a shape
 * whose result is libbpf's table order's, and with testing.libbpf_dedup).
 * Below the root nothing is left to do: exact.c has merged, as each input came, every type that
 * may be merged there (docs/design.md, "one meaning"), and a second pass
 * found nothing more on any kernel (it cost 14 % of the link).
 * Returns 0 or a negative errno.
 */
static int dedup(const struct abtf_linker *l, struct node *n, void *raw,
		 size_t size, struct btf *base, void **raw_out,
		 size_t *size_out, struct btf **btf_out)
{
	char place[96];
	int ret = 1;

	*raw_out = NULL;
	*btf_out = NULL;
	if (!n->root)
		ret = 0;	/* left to the root */
	else if (!l->testing.libbpf_dedup)
		ret = node_dedup__run(&raw, &size, base,
				      abtf__btf_str_len(base));
	if (ret < 0) {
		node_place(n, place, sizeof(place));
		pr_warn(&n->pr, "%s: %s: cannot deduplicate the merged BTF: %s",
			l->path, place, strerror(-ret));
		free(raw);
		return ret;
	}
	if (!ret) {
		*raw_out = raw;
		*size_out = size;
		return 0;
	}
	n->libbpf_dedup = true;
	*btf_out = libbpf_dedup(l, n, raw, size, base);
	return *btf_out ? 0 : (errno ? -errno : -EINVAL);
}

/* A non-root node keeps its deduplicated BTF as raw bytes and its VARs. */
int merge__node_finish(struct abtf_linker *l, struct node *n)
{
	struct btf *btf;
	const void *data;
	void *raw, *out;
	size_t size;
	int err;

	raw = raw_btf(n, 0, &size);
	if (!raw)
		return -ENOMEM;
	err = dedup(l, n, raw, size, NULL, &out, &size, &btf);
	if (err)
		return err;
	n->raw_size = size;
	if (btf) {
		data = btf__raw_data(btf, &n->raw_size);
		out = data ? malloc(n->raw_size) : NULL;
		if (out)
			memcpy(out, data, n->raw_size);
		btf__free(btf);
	}
	n->raw = out;
	node_vars_drop_ids(&n->vars);
	return n->raw ? 0 : -ENOMEM;
}

/* ---- the root: DATASECs and the final BTF ---- */

/* A VAR of a final DATASEC: its ID and its place in the section. */
struct final_dsec_var {
	uint32_t id;
	uint32_t off;
	uint32_t size;
};

/* A DATASEC the root rebuilds: one per output section holding VARs. */
struct final_dsec {
	const char *name;
	uint32_t key;
	uint32_t size;
	struct final_dsec_var *vars;
	size_t nr, cap;
};

/* The DATASECs of one node, in the order their first variable came. */
struct final_dsecs {
	struct final_dsec *secs;
	size_t nr, cap;
};

static struct final_dsec *final_dsec_get(struct abtf_linker *l,
					 struct final_dsecs *fd,
					 const struct place *pl)
{
	const char *name = l->file.elf ? l->sym.secs[pl->key].name :
					 pl->dsec_name;
	struct final_dsec *s;
	size_t i;

	for (i = 0; i < fd->nr; i++)
		if (l->file.elf ? fd->secs[i].key == pl->key :
			     !strcmp(fd->secs[i].name, name))
			return &fd->secs[i];
	if (abtf_grow(fd->secs, fd->cap, fd->nr + 1))
		return NULL;
	s = &fd->secs[fd->nr++];
	memset(s, 0, sizeof(*s));
	s->name = name ? name : "";
	s->key = pl->key;
	s->size = l->file.elf ? l->sym.secs[pl->key].size : pl->dsec_size;
	return s;
}

static int final_dsec_add(struct final_dsec *s, uint32_t id,
			  const struct place *pl)
{
	if (pl->off > UINT32_MAX)
		return -ERANGE;
	if (abtf_grow(s->vars, s->cap, s->nr + 1))
		return -ENOMEM;
	s->vars[s->nr].id = id;
	s->vars[s->nr].off = pl->off;
	s->vars[s->nr].size = pl->size;
	s->nr++;
	return 0;
}

static int final_dsec_var_cmp(const void *a, const void *b)
{
	const struct final_dsec_var *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int final_dsec_cmp(const void *a, const void *b)
{
	const struct final_dsec *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->key < y->key ? -1 : x->key > y->key);
}

/*
 * Sorted, without overlaps (the kernel rejects them), inside the section;
 * the DATASEC then ends where its last variable does, as pahole sizes it
 * (a section's tail padding, as s390x's .data..percpu has, is not in it).
 */
static void clean_vars(struct abtf_linker *l, struct final_dsec *s)
{
	uint64_t end = 0;
	size_t i, n = 0;

	qsort(s->vars, s->nr, sizeof(*s->vars), final_dsec_var_cmp);
	for (i = 0; i < s->nr; i++) {
		struct final_dsec_var *v = &s->vars[i];

		if ((n && v->off < end) || (uint64_t)v->off + v->size > s->size) {
			pr_info(&l->pr, "%s: %s: dropped variable [%u] at offset "
				"%u: overlaps or runs past the section",
				l->path, s->name, v->id, v->off);
			continue;
		}
		end = (uint64_t)v->off + v->size;
		s->vars[n++] = *v;
	}
	s->nr = n;
	if (n)
		s->size = end;
}

static int append_datasec(const char *path, struct node *n,
			  struct final_dsec *s)
{
	size_t sz = sizeof(struct btf_type) +
		    s->nr * sizeof(struct btf_var_secinfo), i;
	struct btf_var_secinfo *v;
	struct btf_type *t;
	int64_t name;

	if (s->nr > 0xffff)
		return node_error(path, n, -E2BIG,
				  "too many variables in a section");
	name = abtf__strtab_add(&n->strs, s->name);
	if (name < 0 || grow_types(n, sz))
		return -ENOMEM;
	t = (void *)(n->types + n->types_len);
	t->name_off = name;
	t->info = (BTF_KIND_DATASEC << 24) | s->nr;
	t->size = s->size;
	v = (void *)(t + 1);
	for (i = 0; i < s->nr; i++) {
		v[i].type = s->vars[i].id;
		v[i].offset = s->vars[i].off;
		v[i].size = s->vars[i].size;
	}
	n->types_len += sz;
	n->next_id++;
	return 0;
}

static int append_datasecs(struct abtf_linker *l, struct node *n)
{
	struct final_dsecs fd = {};
	struct final_dsec *secs;
	size_t i;
	int err = 0;

	for (i = 0; i < n->vars.nr && !err; i++) {
		const struct place *pl = &n->vars.places[i];
		struct final_dsec *s = final_dsec_get(l, &fd, pl);

		err = s ? final_dsec_add(s, n->vars.ids[i], pl) : -ENOMEM;
	}
	secs = fd.secs;
	if (fd.nr)
		qsort(secs, fd.nr, sizeof(*secs), final_dsec_cmp);
	for (i = 0; i < fd.nr && !err; i++) {
		clean_vars(l, &secs[i]);
		if (secs[i].nr)
			err = append_datasec(l->path, n, &secs[i]);
	}
	for (i = 0; i < fd.nr; i++)
		free(secs[i].vars);
	free(secs);
	return err;
}

/* A DECL_TAG @value on the whole of type @id (component -1). */
static int append_decl_tag(struct node *n, const char *value, uint32_t id)
{
	size_t sz = sizeof(struct btf_type) + sizeof(struct btf_decl_tag);
	struct btf_type *t;
	int64_t name;

	name = abtf__strtab_add(&n->strs, value);
	if (name < 0 || grow_types(n, sz))
		return -ENOMEM;
	t = (void *)(n->types + n->types_len);
	t->name_off = name;
	t->info = BTF_KIND_DECL_TAG << 24;
	t->type = id;
	((struct btf_decl_tag *)(t + 1))->component_idx = -1;
	n->types_len += sz;
	n->next_id++;
	return 0;
}

/* decl_tag_kfuncs: tag the FUNC of every kfunc, in type ID order. */
static int append_kfunc_tags(const struct kfunc_list *kl, struct node *n)
{
	size_t off = 0, end = n->types_len;
	uint32_t id = n->first_id;
	int err = 0;

	while (!err && off < end) {
		const struct btf_type *t = (const void *)(n->types + off);
		const char *tags[2];
		const struct kfunc *k;
		int i, nr;

		off += abtf__record_size(t);
		if (BTF_INFO_KIND(t->info) != BTF_KIND_FUNC ||
		    !(k = abtf__find_kfunc(kl, n->strs.data + t->name_off))) {
			id++;
			continue;
		}
		nr = abtf__kfunc_tags(k, tags);
		for (i = 0; !err && i < nr; i++)
			err = append_decl_tag(n, tags[i], id);
		id++;
	}
	return err;
}

struct btf *merge__root_btf(struct abtf_linker *l, struct node *n)
{
	struct btf *btf;
	void *raw, *out;
	size_t size;
	int err;

	err = l->kfuncs.nr ? append_kfunc_tags(&l->kfuncs, n) : 0;
	if (!err)
		err = append_datasecs(l, n);
	if (err) {
		errno = -err;
		return NULL;
	}
	/* split BTF names its own strings from the end of the base's */
	raw = raw_btf(n, abtf__btf_str_len(l->base), &size);
	if (!raw) {
		errno = ENOMEM;
		return NULL;
	}
	err = dedup(l, n, raw, size, l->base, &out, &size, &btf);
	if (err) {
		errno = -err;
		return NULL;
	}
	if (!btf) {
		btf = abtf__new_btf(out, size, l->base);
		err = btf ? 0 : errno;
		free(out);
		errno = err;
	}
	return btf;
}
