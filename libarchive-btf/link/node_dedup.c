// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Deduplication of a merge node's BTF (merge.c), with libbpf's result.
 *
 * Why not btf__dedup(). At the root of the merge tree of a large
 * configuration's vmlinux, exact.c has already mapped every type that
 * was there before: of 119,500 types, libbpf's dedup removes 174 (FWDs
 * resolved to their structs, and what pointed at them). It still cost
 * half of the root's time, on the link's critical path: a malloc()ed
 * hash table entry per type, every string hashed twice (its string set,
 * then the deduplicated one), its equivalence walk. This file does the
 * same work over flat arrays and the library's open-addressing table,
 * and strings are hashed once per distinct string, not per reference.
 *
 * What it computes is libbpf 1.1's algorithm (btf__dedup() in its btf.c),
 * step for step, so that the bytes are the same:
 *  1. strings: every string reference, type by type in ID order (a
 *     type's name, then its members', enumerators' or parameters'),
 *     gets the offset of its string in a new table filled in that order,
 *     one copy of each string;
 *  2. INT, ENUM, ENUM64, FWD and FLOAT: each equal to an earlier
 *     canonical one maps to it, or becomes canonical;
 *  3. STRUCT and UNION, in ID order: a candidate is an earlier canonical
 *     struct of the same name, size, member names and offsets; the two
 *     type graphs are walked side by side, pairing each canonical-side
 *     type with one candidate-side type (a hypothetical map), a FWD equal
 *     to a struct or union of its name and kind. The first candidate
 *     that passes maps the struct, and the walk's pairs resolve FWDs and
 *     map further structs (libbpf's btf_dedup_merge_hypot_map());
 *  4. a FWD still unresolved resolves to the one canonical struct or
 *     union of its name, if there is exactly one and of its kind;
 *  5. the reference kinds (modifiers, pointers, typedefs, arrays,
 *     prototypes, FUNCs, tags), depth first in ID order: the types they
 *     refer to are resolved first and written into them, then each is
 *     equal to an earlier canonical one or becomes canonical;
 *  6. canonical types keep their order and get consecutive IDs, and
 *     every type ID in them is rewritten. VARs and DATASECs are never
 *     merged.
 *
 * Where libbpf's result depends on its hash table rather than on the
 * BTF, this file does not guess: for two canonical structs that both
 * pass the walk with a third, libbpf keeps the one its table lists first,
 * and an enum forward declaration (an ENUM without values) is resolved
 * through a walk of the same table. node_dedup__run() then returns 1
 * and leaves the BTF to btf__dedup(); none of the kernels we test has
 * either. Split BTF (a module over vmlinux) also goes to btf__dedup():
 * its base changes the rules, and a module's BTF is small.
 *
 * No recursion over type references: the walk and the reference types
 * use explicit stacks, so a chain of 100,000 typedefs costs no stack.
 * The one recursive check, for two structs equal down to their type IDs
 * (libbpf's btf_dedup_identical_structs()), stops at a nesting depth no C
 * program reaches, or after as many steps per walk as there are types
 * (two structs of n members each pointing to two copies of the next
 * would otherwise cost n to the power of the depth), and then answers
 * "not identical": the two stay apart, where libbpf would hang.
 *
 * tests/dedup-diff.bats and tests/link-kernel.bats hold this file to
 * btf__dedup()'s bytes (abtf_link_opts.libbpf_dedup); tests/dedup/ holds
 * the link to btf__dedup() alone by meaning.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/btf.h>

#include "link/linker.h"

#define MAX_ID		0x7fffffffu	/* libbpf's BTF_MAX_NR_TYPES */
#define UNPROCESSED	UINT32_MAX
#define IN_PROGRESS	(UINT32_MAX - 1)
#define NOT_UNIQUE	UINT32_MAX	/* a name of several structs */
#define MAX_NESTING	256		/* identical_structs()'s depth */

/* A pair of the walk (cand, canon), or a reference type being resolved. */
struct frame {
	uint32_t a, b;
};

struct ndd {
	uint8_t *types;		/* the records, rewritten in place */
	uint32_t nr;		/* types 1..nr; 0 is void */
	uint32_t *off;		/* type ID -> offset in types */
	uint32_t *map;		/* type ID -> canonical, or UNPROCESSED */
	uint32_t *hypot;	/* the walk's map; then compacted IDs */
	uint32_t *hlist;	/* hypot's entries, in the walk's order */
	size_t nr_hlist, cap_hlist;
	struct frame *stack;
	size_t nr_stack, cap_stack;
	struct abtf_hmap table;	/* canonical candidates by hash */
	uint32_t budget;	/* identical_structs() steps left in a walk */
	struct strtab strs;	/* the new string section */
};

static const struct btf_type void_type;

static struct btf_type *type_of(const struct ndd *d, uint32_t id)
{
	if (!id)
		return (struct btf_type *)&void_type;
	return (struct btf_type *)(d->types + d->off[id]);
}

static uint16_t kind_of(const struct btf_type *t)
{
	return BTF_INFO_KIND(t->info);
}

static uint16_t vlen_of(const struct btf_type *t)
{
	return BTF_INFO_VLEN(t->info);
}

static bool is_composite(uint16_t kind)
{
	return kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION;
}

static bool is_mapped(const struct ndd *d, uint32_t id)
{
	return d->map[id] <= MAX_ID;
}

/* Follow the map to the canonical type; a chain is at most nr long. */
static uint32_t resolve(const struct ndd *d, uint32_t id)
{
	uint32_t steps = 0;

	while (is_mapped(d, id) && d->map[id] != id && steps++ <= d->nr)
		id = d->map[id];
	return id;
}

/* A FWD resolved to its struct or union, if it is yet. */
static uint32_t resolve_fwd(const struct ndd *d, uint32_t id)
{
	uint32_t r;

	if (kind_of(type_of(d, id)) != BTF_KIND_FWD)
		return id;
	r = resolve(d, id);
	return kind_of(type_of(d, r)) != BTF_KIND_FWD ? r : id;
}

/* ---- hashing and equality, as libbpf defines them ---- */

static uint32_t mix(uint32_t h, uint32_t v)
{
	h = (h ^ v) * 0x9e3779b1u;
	return h ^ (h >> 15);
}

static uint32_t hash_common(const struct btf_type *t)
{
	return mix(mix(mix(0x2545f491u, t->name_off), t->info), t->size);
}

static uint32_t hash_int_tag(const struct btf_type *t)
{
	return mix(hash_common(t), *(const uint32_t *)(t + 1));
}

static uint32_t hash_struct(const struct btf_type *t)
{
	const struct btf_member *m = (const void *)(t + 1);
	uint32_t h = hash_common(t);
	uint16_t i;

	for (i = 0; i < vlen_of(t); i++)
		h = mix(mix(h, m[i].name_off), m[i].offset);
	return h;
}

static uint32_t hash_array(const struct btf_type *t)
{
	const struct btf_array *a = (const void *)(t + 1);

	return mix(mix(mix(hash_common(t), a->type), a->index_type),
		   a->nelems);
}

static uint32_t hash_proto(const struct btf_type *t)
{
	const struct btf_param *p = (const void *)(t + 1);
	uint32_t h = hash_common(t);
	uint16_t i;

	for (i = 0; i < vlen_of(t); i++)
		h = mix(mix(h, p[i].name_off), p[i].type);
	return h;
}

static bool equal_common(const struct btf_type *a, const struct btf_type *b)
{
	return a->name_off == b->name_off && a->info == b->info &&
	       a->size == b->size;
}

static bool equal_int_tag(const struct btf_type *a, const struct btf_type *b)
{
	return equal_common(a, b) &&
	       *(const uint32_t *)(a + 1) == *(const uint32_t *)(b + 1);
}

/* ENUM or ENUM64 values: 8 or 12 bytes each, compared whole. */
static bool equal_enum(const struct btf_type *a, const struct btf_type *b)
{
	size_t each = kind_of(a) == BTF_KIND_ENUM ? sizeof(struct btf_enum) :
			sizeof(struct btf_enum64);

	return equal_common(a, b) &&
	       !memcmp(a + 1, b + 1, vlen_of(a) * each);
}

static bool shallow_equal_struct(const struct btf_type *a,
				 const struct btf_type *b)
{
	const struct btf_member *ma = (const void *)(a + 1);
	const struct btf_member *mb = (const void *)(b + 1);
	uint16_t i;

	if (!equal_common(a, b))
		return false;
	for (i = 0; i < vlen_of(a); i++)
		if (ma[i].name_off != mb[i].name_off ||
		    ma[i].offset != mb[i].offset)
			return false;
	return true;
}

static bool equal_array(const struct btf_type *a, const struct btf_type *b)
{
	return equal_common(a, b) &&
	       !memcmp(a + 1, b + 1, sizeof(struct btf_array));
}

static bool compat_array(const struct btf_type *a, const struct btf_type *b)
{
	const struct btf_array *x = (const void *)(a + 1);
	const struct btf_array *y = (const void *)(b + 1);

	return equal_common(a, b) && x->nelems == y->nelems;
}

/* Prototypes: @with_types compares parameter (not return) types too. */
static bool proto_params_equal(const struct btf_type *a,
			       const struct btf_type *b, bool with_types)
{
	const struct btf_param *pa = (const void *)(a + 1);
	const struct btf_param *pb = (const void *)(b + 1);
	uint16_t i;

	for (i = 0; i < vlen_of(a); i++)
		if (pa[i].name_off != pb[i].name_off ||
		    (with_types && pa[i].type != pb[i].type))
			return false;
	return true;
}

static bool equal_proto(const struct btf_type *a, const struct btf_type *b)
{
	return equal_common(a, b) && proto_params_equal(a, b, true);
}

static bool compat_proto(const struct btf_type *a, const struct btf_type *b)
{
	return a->name_off == b->name_off && a->info == b->info &&
	       proto_params_equal(a, b, false);
}

static bool identical_arrays(const struct ndd *d, uint32_t a, uint32_t b)
{
	const struct btf_type *x = type_of(d, a), *y = type_of(d, b);

	return kind_of(x) == BTF_KIND_ARRAY && kind_of(y) == BTF_KIND_ARRAY &&
	       equal_array(x, y);
}

/* Two structs or unions equal down to the type IDs they refer to. */
static bool identical_structs(struct ndd *d, uint32_t a, uint32_t b,
			      unsigned int depth)
{
	const struct btf_type *x = type_of(d, a), *y = type_of(d, b);
	const struct btf_member *mx = (const void *)(x + 1);
	const struct btf_member *my = (const void *)(y + 1);
	uint16_t i;

	if (!is_composite(kind_of(x)) || kind_of(x) != kind_of(y) ||
	    !shallow_equal_struct(x, y) || depth > MAX_NESTING || !d->budget)
		return false;
	d->budget--;
	for (i = 0; i < vlen_of(x); i++)
		if (mx[i].type != my[i].type &&
		    !identical_arrays(d, mx[i].type, my[i].type) &&
		    !identical_structs(d, mx[i].type, my[i].type, depth + 1))
			return false;
	return true;
}

/* ---- the candidate table ---- */

static int table_add(struct ndd *d, uint32_t hash, uint32_t id)
{
	return abtf__hmap_add(&d->table, 1 << 14, hash, id);
}

/* ---- 1. strings ---- */

struct str_pass {
	struct ndd *d;
	const char *old;
	uint32_t old_len;
	struct abtf_hmap seen;	/* old offset (bijectively mixed) -> new + 1 */
};

static uint32_t off_hash(uint32_t off)
{
	uint32_t h = off * 0x9e3779b1u;

	return h ^ (h >> 16);	/* a bijection: equal hash, equal offset */
}

static int remap_str(uint32_t *off, void *ctx)
{
	struct str_pass *sp = ctx;
	uint32_t h = off_hash(*off);
	struct abtf_hent *e;
	int64_t s;

	if (!*off)
		return 0;
	if (*off >= sp->old_len)
		return -EINVAL;
	if (abtf__hmap_reserve(&sp->seen, 1 << 14))
		return -ENOMEM;
	for (e = abtf__hmap_first(&sp->seen, h); e->val;
	     e = abtf__hmap_next(&sp->seen, e))
		if (e->hash == h) {
			*off = e->val - 1;
			return 0;
		}
	s = abtf__strtab_add(&sp->d->strs, sp->old + *off);
	if (s < 0)
		return (int)s;
	abtf__hmap_fill(&sp->seen, e, h, (uint32_t)s + 1);
	*off = (uint32_t)s;
	return 0;
}

static int dedup_strings(struct ndd *d, const char *old, uint32_t old_len)
{
	struct str_pass sp = { .d = d, .old = old, .old_len = old_len };
	uint32_t id;
	int err;

	/* the section ends in a NUL, so every string in it does */
	if (!old_len || old[old_len - 1])
		return -EINVAL;
	/* sized once: about as many strings as types, the same bytes */
	if (abtf__hmap_reset(&sp.seen, d->nr) ||
	    abtf__hmap_reset(&d->strs.map, d->nr) ||
	    abtf_grow(d->strs.data, d->strs.cap, old_len))
		err = -ENOMEM;
	else
		err = abtf__strtab_add(&d->strs, "") < 0 ? -ENOMEM : 0;
	for (id = 1; !err && id <= d->nr; id++)
		err = abtf__for_each_str_off(type_of(d, id), remap_str, &sp);
	abtf__hmap_free(&sp.seen);
	return err;
}

/* ---- 2. primitive types ---- */

static bool is_enum_fwd(const struct btf_type *t)
{
	return (kind_of(t) == BTF_KIND_ENUM || kind_of(t) == BTF_KIND_ENUM64) &&
	       !vlen_of(t);
}

/* libbpf's btf_compat_enum(): an enum FWD is any enum of its name. */
static bool compat_enum(const struct btf_type *a, const struct btf_type *b)
{
	if (!is_enum_fwd(a) && !is_enum_fwd(b))
		return equal_enum(a, b);
	return a->name_off == b->name_off &&
	       (kind_of(a) == BTF_KIND_ENUM || kind_of(a) == BTF_KIND_ENUM64) &&
	       (kind_of(b) == BTF_KIND_ENUM || kind_of(b) == BTF_KIND_ENUM64);
}

/*
 * An ENUM or ENUM64 in the primitive phase, libbpf's loop: an enum FWD
 * maps to the first compatible candidate, a full enum maps every
 * compatible FWD it passes to itself until it meets its equal. Which
 * candidate comes first is the table's order, but what each enum
 * resolves to is not, as long as a name has at most one full enum
 * (enum_order_matters() checks that afterwards): all of that name
 * then resolve to the first full one, or without one to the first FWD.
 */
static uint32_t dedup_enum(struct ndd *d, uint32_t id, uint32_t h)
{
	const struct btf_type *t = type_of(d, id);
	struct abtf_hent *e;

	for (e = abtf__hmap_first(&d->table, h); e->val;
	     e = abtf__hmap_next(&d->table, e)) {
		const struct btf_type *c = type_of(d, e->val);

		if (e->hash != h)
			continue;
		if (equal_enum(t, c))
			return e->val;
		if (!compat_enum(t, c))
			continue;
		if (is_enum_fwd(t))
			return e->val;
		d->map[e->val] = id;
	}
	return id;
}

/* 1 if a name has an enum FWD and two different full enums. */
static int enum_order_matters(const struct ndd *d)
{
	struct abtf_hmap names = { 0 };
	struct abtf_hent *e;
	uint32_t id, h, pass;
	int ret = 0;

	/* first the names of enum FWDs, then each full enum's against them */
	for (pass = 0; pass < 2 && !ret; pass++)
		for (id = 1; id <= d->nr && !ret; id++) {
			const struct btf_type *t = type_of(d, id);

			if (kind_of(t) != BTF_KIND_ENUM &&
			    kind_of(t) != BTF_KIND_ENUM64)
				continue;
			if (pass != !is_enum_fwd(t) || (pass && d->map[id] != id))
				continue;
			h = off_hash(t->name_off);
			if (abtf__hmap_reserve(&names, 1 << 6))
				return -ENOMEM;
			for (e = abtf__hmap_first(&names, h); e->val;
			     e = abtf__hmap_next(&names, e))
				if (e->hash == h)
					break;
			if (!pass && !e->val)
				abtf__hmap_fill(&names, e, h, NOT_UNIQUE);
			else if (pass && e->val == NOT_UNIQUE)
				e->val = id;
			else if (pass && e->val)
				ret = 1;	/* a second full enum */
		}
	abtf__hmap_free(&names);
	return ret;
}

static int dedup_prim(struct ndd *d, uint32_t id)
{
	const struct btf_type *t = type_of(d, id);
	bool (*equal)(const struct btf_type *, const struct btf_type *);
	struct abtf_hent *e;
	uint32_t h, to = id;

	switch (kind_of(t)) {
	case BTF_KIND_INT:
		h = hash_int_tag(t);
		equal = equal_int_tag;
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		h = mix(0x2545f491u, t->name_off);
		to = dedup_enum(d, id, h);
		d->map[id] = to;
		return to == id ? table_add(d, h, id) : 0;
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
		h = hash_common(t);
		equal = equal_common;
		break;
	default:
		return 0;
	}
	for (e = abtf__hmap_first(&d->table, h); e->val;
	     e = abtf__hmap_next(&d->table, e))
		if (e->hash == h && equal(t, type_of(d, e->val))) {
			to = e->val;
			break;
		}
	d->map[id] = to;
	return to == id ? table_add(d, h, id) : 0;
}

/* ---- 3. structs and unions: the walk ---- */

/*
 * A member type's signature (exact.c's exact__member_sig()), which any
 * type libbpf's walk pairs with it shares too: the walk compares kinds,
 * flags, names and lengths pair by pair, and a pair it takes as equal
 * without comparing (both resolve to one type, or one already paired)
 * shares them as well, since only equal names are ever mapped or paired.
 */
static const struct btf_type *sig_type(const void *ctx, uint32_t id)
{
	return type_of(ctx, id);
}

static int64_t sig_name(const void *ctx, uint32_t off)
{
	return off;	/* strings are unique: the offset is the name */
}

static uint32_t member_sig(const struct ndd *d, uint32_t id)
{
	const struct abtf_sig_src src = { d, sig_type, sig_name };

	return (uint32_t)exact__member_sig(&src, id);	/* cannot fail */
}

static int push(struct ndd *d, uint32_t a, uint32_t b)
{
	if (abtf_grow(d->stack, d->cap_stack, d->nr_stack + 1))
		return -ENOMEM;
	d->stack[d->nr_stack].a = a;
	d->stack[d->nr_stack].b = b;
	d->nr_stack++;
	return 0;
}

static int hypot_add(struct ndd *d, uint32_t canon, uint32_t cand)
{
	if (abtf_grow(d->hlist, d->cap_hlist, d->nr_hlist + 1))
		return -ENOMEM;
	d->hlist[d->nr_hlist++] = canon;
	d->hypot[canon] = cand;
	return 0;
}

static void hypot_clear(struct ndd *d)
{
	size_t i;

	for (i = 0; i < d->nr_hlist; i++)
		d->hypot[d->hlist[i]] = UNPROCESSED;
	d->nr_hlist = 0;
}

/*
 * Push the pairs of types two records of one kind refer to, last first,
 * so that they are taken in libbpf's order. 1: pushed (or nothing to
 * push) and equal so far; 0: not equal.
 */
static int push_refs(struct ndd *d, const struct btf_type *x,
		     const struct btf_type *y)
{
	const struct btf_member *mx = (const void *)(x + 1);
	const struct btf_member *my = (const void *)(y + 1);
	const struct btf_param *px = (const void *)(x + 1);
	const struct btf_param *py = (const void *)(y + 1);
	const struct btf_array *ax = (const void *)(x + 1);
	const struct btf_array *ay = (const void *)(y + 1);
	int i, err = 0;

	switch (kind_of(x)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (!shallow_equal_struct(x, y))
			return 0;
		for (i = vlen_of(x) - 1; !err && i >= 0; i--)
			err = push(d, mx[i].type, my[i].type);
		break;
	case BTF_KIND_FUNC_PROTO:
		if (!compat_proto(x, y))
			return 0;
		for (i = vlen_of(x) - 1; !err && i >= 0; i--)
			err = push(d, px[i].type, py[i].type);
		if (!err)
			err = push(d, x->type, y->type);
		break;
	case BTF_KIND_ARRAY:
		if (!compat_array(x, y))
			return 0;
		err = push(d, ax->type, ay->type);
		if (!err)
			err = push(d, ax->index_type, ay->index_type);
		break;
	default:	/* modifiers, pointers, typedefs, FUNCs, type tags */
		if (x->info != y->info)
			return 0;
		err = push(d, x->type, y->type);
		break;
	}
	return err ? err : 1;
}

/* Is @cand equal to @canon, as far as the two records go? */
static int pair_equal(struct ndd *d, uint32_t cand, uint32_t canon)
{
	const struct btf_type *x = type_of(d, cand), *y = type_of(d, canon);
	uint16_t kx = kind_of(x), ky = kind_of(y);

	if (x->name_off != y->name_off)
		return 0;
	if ((kx == BTF_KIND_FWD || ky == BTF_KIND_FWD) && kx != ky) {
		const struct btf_type *fwd = kx == BTF_KIND_FWD ? x : y;
		uint16_t real = kx == BTF_KIND_FWD ? ky : kx;

		return real == (BTF_INFO_KFLAG(fwd->info) ? BTF_KIND_UNION :
						      BTF_KIND_STRUCT);
	}
	if (kx != ky)
		return 0;
	switch (kx) {
	case BTF_KIND_INT:
		return equal_int_tag(x, y);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return compat_enum(x, y);
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
		return equal_common(x, y);
	case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_ARRAY: case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: case BTF_KIND_FUNC_PROTO:
		return push_refs(d, x, y);
	default:
		return -EINVAL;	/* a VAR, DATASEC or tag met by reference */
	}
}

/* One pair of the walk: 1 equal (so far), 0 not, or a negative errno. */
static int walk_pair(struct ndd *d, uint32_t cand, uint32_t canon)
{
	uint32_t h;
	int err;

	if (resolve(d, cand) == resolve(d, canon))
		return 1;
	canon = resolve_fwd(d, canon);
	h = d->hypot[canon];
	if (h <= MAX_ID)
		return h == cand || identical_arrays(d, h, cand) ||
		       identical_structs(d, h, cand, 0);
	err = hypot_add(d, canon, cand);
	return err ? err : pair_equal(d, cand, canon);
}

/* libbpf's btf_dedup_is_equiv(), depth first with an explicit stack. */
static int is_equiv(struct ndd *d, uint32_t cand, uint32_t canon)
{
	int eq = 1;

	hypot_clear(d);
	d->budget = d->nr;
	d->nr_stack = 0;
	eq = push(d, cand, canon) ? -ENOMEM : 1;
	while (eq > 0 && d->nr_stack) {
		struct frame f = d->stack[--d->nr_stack];

		eq = walk_pair(d, f.a, f.b);
	}
	return eq;
}

/* libbpf's btf_dedup_merge_hypot_map(), for BTF without a base. */
static void merge_hypot(struct ndd *d)
{
	size_t i;

	for (i = 0; i < d->nr_hlist; i++) {
		uint32_t c = resolve(d, d->hlist[i]);
		uint32_t t = resolve(d, d->hypot[d->hlist[i]]);
		uint16_t ck = kind_of(type_of(d, c));
		uint16_t tk = kind_of(type_of(d, t));

		if (tk != BTF_KIND_FWD && ck == BTF_KIND_FWD)
			d->map[c] = t;
		if (tk == BTF_KIND_FWD && ck != BTF_KIND_FWD)
			d->map[t] = c;
		if (is_composite(tk) && ck != BTF_KIND_FWD &&
		    is_mapped(d, c) && !is_mapped(d, t))
			d->map[t] = c;
	}
}

/*
 * Decide struct or union @id. 1 where two canonical candidates pass the
 * walk: libbpf takes the one its table lists first, which is not ours to
 * know.
 */
static int dedup_struct(struct ndd *d, uint32_t id)
{
	const struct btf_type *t = type_of(d, id);
	const struct btf_member *m = (const void *)(t + 1);
	uint32_t h, to = id, last = 0;
	struct abtf_hent *e;
	uint16_t i;
	int eq;

	if (is_mapped(d, id) || !is_composite(kind_of(t)))
		return 0;
	h = hash_struct(t);
	for (i = 0; i < vlen_of(t); i++)
		h = mix(h, member_sig(d, m[i].type));
	for (e = abtf__hmap_first(&d->table, h); e->val;
	     e = abtf__hmap_next(&d->table, e)) {
		if (e->hash != h || !shallow_equal_struct(t, type_of(d, e->val)))
			continue;
		eq = is_equiv(d, id, e->val);
		last = e->val;
		if (eq < 0)
			return eq;
		if (!eq)
			continue;
		if (to != id)
			return 1;	/* a second one passes */
		to = e->val;
	}
	if (to != id) {
		/* the walk that passed, again, for its pairs */
		if (last != to && is_equiv(d, id, to) <= 0)
			return -EINVAL;
		merge_hypot(d);
	}
	d->map[id] = to;
	return to == id ? table_add(d, h, id) : 0;
}

/* ---- 4. FWDs left: the one struct or union of their name ---- */

static int resolve_fwds(struct ndd *d)
{
	struct abtf_hmap names = { 0 };
	struct abtf_hent *e;
	uint32_t id, h;
	int err = 0;

	for (id = 1; !err && id <= d->nr; id++) {
		const struct btf_type *t = type_of(d, id);

		if (!is_composite(kind_of(t)) || d->map[id] != id)
			continue;
		h = off_hash(t->name_off);
		err = abtf__hmap_reserve(&names, 1 << 12);
		for (e = abtf__hmap_first(&names, h); !err && e->val;
		     e = abtf__hmap_next(&names, e))
			if (e->hash == h)
				break;
		if (err)
			break;
		if (e->val)
			e->val = NOT_UNIQUE;
		else
			abtf__hmap_fill(&names, e, h, id);
	}
	for (id = 1; !err && id <= d->nr; id++) {
		const struct btf_type *t = type_of(d, id), *s;

		if (kind_of(t) != BTF_KIND_FWD || d->map[id] != id)
			continue;
		h = off_hash(t->name_off);
		for (e = abtf__hmap_first(&names, h); e->val;
		     e = abtf__hmap_next(&names, e))
			if (e->hash == h)
				break;
		if (!e->val || e->val == NOT_UNIQUE)
			continue;
		s = type_of(d, e->val);
		if (kind_of(s) == (BTF_INFO_KFLAG(t->info) ? BTF_KIND_UNION :
							      BTF_KIND_STRUCT))
			d->map[id] = e->val;
	}
	abtf__hmap_free(&names);
	return err;
}

/* ---- 5. reference types ---- */

/* The @k-th type ID field of a reference type, or NULL past the last. */
static uint32_t *ref_field(struct btf_type *t, uint32_t k)
{
	switch (kind_of(t)) {
	case BTF_KIND_ARRAY: {
		struct btf_array *a = (void *)(t + 1);

		return k == 0 ? &a->type : k == 1 ? &a->index_type : NULL;
	}
	case BTF_KIND_FUNC_PROTO: {
		struct btf_param *p = (void *)(t + 1);

		return k == 0 ? &t->type : k <= vlen_of(t) ? &p[k - 1].type :
			NULL;
	}
	default:
		return k == 0 ? &t->type : NULL;
	}
}

/* A reference type whose referenced IDs are canonical: map it. */
static int ref_finish(struct ndd *d, uint32_t id)
{
	const struct btf_type *t = type_of(d, id);
	bool (*equal)(const struct btf_type *, const struct btf_type *);
	struct abtf_hent *e;
	uint32_t h, to = id;

	switch (kind_of(t)) {
	case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC:
	case BTF_KIND_TYPE_TAG:
		h = hash_common(t);
		equal = equal_common;
		break;
	case BTF_KIND_DECL_TAG:
		h = hash_int_tag(t);
		equal = equal_int_tag;
		break;
	case BTF_KIND_ARRAY:
		h = hash_array(t);
		equal = equal_array;
		break;
	case BTF_KIND_FUNC_PROTO:
		h = hash_proto(t);
		equal = equal_proto;
		break;
	default:
		return -EINVAL;
	}
	for (e = abtf__hmap_first(&d->table, h); e->val;
	     e = abtf__hmap_next(&d->table, e))
		if (e->hash == h && equal(t, type_of(d, e->val))) {
			to = e->val;
			break;
		}
	d->map[id] = to;
	return to == id ? table_add(d, h, id) : 0;
}

/*
 * libbpf's btf_dedup_ref_type() on @id, depth first with an explicit
 * stack: a frame is a type and the index of its next type ID field.
 */
static int dedup_ref(struct ndd *d, uint32_t id)
{
	int err = 0;

	if (is_mapped(d, id))
		return 0;
	d->nr_stack = 0;
	d->map[id] = IN_PROGRESS;
	err = push(d, id, 0);
	while (!err && d->nr_stack) {
		struct frame *f = &d->stack[d->nr_stack - 1];
		uint32_t *field = ref_field(type_of(d, f->a), f->b);

		if (!field) {
			err = ref_finish(d, f->a);
			d->nr_stack--;
			if (!err && d->nr_stack) {
				f = &d->stack[d->nr_stack - 1];
				*ref_field(type_of(d, f->a), f->b++) =
					resolve(d, d->map[f[1].a]);
			}
			continue;
		}
		if (*field <= d->nr && d->map[*field] == IN_PROGRESS)
			return -ELOOP;
		if (*field > d->nr)
			return -EINVAL;
		if (is_mapped(d, *field)) {
			*field = resolve(d, *field);
			f->b++;
			continue;
		}
		d->map[*field] = IN_PROGRESS;
		err = push(d, *field, 0);
	}
	return err;
}

/* ---- 6. compaction ---- */

static int remap_id(uint32_t *id, void *ctx)
{
	struct ndd *d = ctx;
	uint32_t to;

	if (*id > d->nr)
		return -EINVAL;
	to = d->hypot[resolve(d, *id)];
	if (to > MAX_ID)
		return -EINVAL;
	*id = to;
	return 0;
}

/* Canonical types in order, renumbered; returns the bytes they take. */
static int compact(struct ndd *d, uint32_t *len)
{
	uint32_t id, next = 1, at = 0;
	int err = 0;

	d->hypot[0] = 0;
	for (id = 1; id <= d->nr; id++) {
		struct btf_type *t = type_of(d, id);
		size_t sz = abtf__record_size(t);

		if (d->map[id] != id) {
			d->hypot[id] = UNPROCESSED;
			continue;
		}
		memmove(d->types + at, t, sz);
		d->off[next] = at;
		d->hypot[id] = next++;
		at += sz;
	}
	for (id = 1; !err && id < next; id++)
		err = abtf__for_each_type_id(type_of(d, id), remap_id, d);
	*len = at;
	return err;
}

/* ---- the whole ---- */

static int index_types(struct ndd *d, uint32_t len)
{
	uint32_t at = 0;
	size_t cap = 0;

	while (at < len) {
		size_t sz;

		if (len - at < sizeof(struct btf_type))
			return -EINVAL;
		sz = abtf__record_size((const void *)(d->types + at));
		if (!sz || sz > len - at)
			return -EINVAL;
		if (abtf_grow(d->off, cap, (size_t)d->nr + 2))
			return -ENOMEM;
		d->off[++d->nr] = at;
		at += sz;
	}
	return d->nr >= MAX_ID ? -E2BIG : 0;
}

static int check_id(uint32_t *id, void *ctx)
{
	return *id > ((struct ndd *)ctx)->nr ? -EINVAL : 0;
}

static int run(struct ndd *d)
{
	uint32_t id;
	int err = 0;

	for (id = 1; !err && id <= d->nr; id++)
		err = abtf__for_each_type_id(type_of(d, id), check_id, d);
	if (err)
		return err;

	d->map = malloc((d->nr + 1) * sizeof(*d->map));
	d->hypot = malloc((d->nr + 1) * sizeof(*d->hypot));
	/* at most one candidate per type */
	if (!d->map || !d->hypot || abtf__hmap_reset(&d->table, d->nr))
		return -ENOMEM;
	d->map[0] = 0;
	d->hypot[0] = UNPROCESSED;
	for (id = 1; id <= d->nr; id++) {
		uint16_t k = kind_of(type_of(d, id));

		d->map[id] = k == BTF_KIND_VAR || k == BTF_KIND_DATASEC ?
			     id : UNPROCESSED;
		d->hypot[id] = UNPROCESSED;
	}
	for (id = 1; !err && id <= d->nr; id++)
		err = dedup_prim(d, id);
	if (!err)
		err = enum_order_matters(d);
	for (id = 1; !err && id <= d->nr; id++)
		err = dedup_struct(d, id);
	if (!err)
		err = resolve_fwds(d);
	for (id = 1; !err && id <= d->nr; id++)
		err = dedup_ref(d, id);
	return err;
}

/* hdr, types and the new strings into one buffer (@raw's, reused). */
static void *assemble(struct ndd *d, uint8_t *raw, uint32_t type_len,
		      size_t *size)
{
	struct btf_header hdr = {
		.magic = BTF_MAGIC, .version = BTF_VERSION,
		.hdr_len = sizeof(hdr), .type_len = type_len,
		.str_off = type_len, .str_len = d->strs.len,
	};
	size_t total = sizeof(hdr) + type_len + d->strs.len;
	uint8_t *out;

	out = realloc(raw, total > 1 ? total : 1);
	if (!out)
		return NULL;
	memcpy(out, &hdr, sizeof(hdr));
	memcpy(out + sizeof(hdr) + type_len, d->strs.data, d->strs.len);
	*size = total;
	return out;
}

static void ndd_free(struct ndd *d)
{
	free(d->off);
	free(d->map);
	free(d->hypot);
	free(d->hlist);
	free(d->stack);
	abtf__hmap_free(&d->table);
	abtf__strtab_free(&d->strs);
}

int node_dedup__run(void **raw, size_t *size)
{
	const struct btf_header *hdr = *raw;
	struct ndd d = { 0 };
	uint32_t type_len = 0;
	int err, ret = 0;
	void *out;

	if (*size < sizeof(*hdr) || hdr->hdr_len != sizeof(*hdr) ||
	    hdr->type_off || hdr->str_off != hdr->type_len ||
	    *size != sizeof(*hdr) + (size_t)hdr->type_len + hdr->str_len)
		return -EINVAL;
	d.types = (uint8_t *)*raw + sizeof(*hdr);
	err = index_types(&d, hdr->type_len);
	if (!err)
		err = dedup_strings(&d, (const char *)d.types + hdr->type_len,
				    hdr->str_len);
	type_len = hdr->type_len;
	if (!err)
		err = run(&d);
	if (err > 0) {
		ret = 1;	/* btf__dedup() decides, on the new strings */
		err = 0;
	}
	if (!err && !ret)
		err = compact(&d, &type_len);
	if (!err) {
		out = assemble(&d, *raw, type_len, size);
		if (out)
			*raw = out;
		else
			err = -ENOMEM;
	}
	ndd_free(&d);
	return err ? err : ret;
}
