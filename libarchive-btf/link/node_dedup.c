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
 *     one copy of each string (the root's own table is that already: its
 *     strings were interned as its types were appended, and are kept);
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
 * either.
 *
 * Split BTF (a module over vmlinux) is deduplicated here too, as libbpf
 * does with a base (docs/design.md, "Split BTF for modules"): a string
 * the base has takes the base's offset; the base's types are canonical
 * as they are and candidates for ours (named ones only where one of ours
 * has their name); a walk that pairs a base FWD with a struct of ours
 * points the FWD at it and keeps our struct; our types are numbered after
 * the base's. Where a base's duplicates make the choice libbpf's table
 * order's, the module goes to btf__dedup() as above. btf__dedup() would
 * rebuild an index of every base string and type in each module's link.
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
 * btf__dedup()'s bytes (abtf_link_testing.libbpf_dedup); tests/dedup/ holds
 * the link to btf__dedup() alone by meaning.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/btf.h>

#include "link/linker.h"
#include "link/node_dedup.h"
#include "link/exact.h"

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
	uint32_t nr;		/* the last type ID; 0 is void */
	uint32_t first;		/* the first of ours: 1, or after the base's */
	uint32_t *off;		/* type ID (first to nr) -> offset in types */
	/*
	 * Type ID (first to nr) -> its kind: the passes over every type
	 * that want a few kinds (primitives, structs, FWDs) test it here
	 * and read only those records; at the root of a kernel the records
	 * are tens of MB, each pass over them a stream from memory.
	 */
	uint8_t *kind;
	const struct btf *base;	/* split BTF: the base, or NULL */
	const char *base_strs;	/* the base's strings, and their length */
	uint32_t base_str_len;
	struct abtf_hmap base_idx; /* a base string's hash -> offset + 1 */
	struct abtf_hmap names;	/* over a base: the names of our types */
	uint32_t *rel;		/* the base's types in the table, in order */
	uint32_t nr_rel;
	bool adjust;		/* the walk met a base FWD of a struct of ours */
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

/* Type @id: ours (first to nr), the base's below, or void. */
static inline __attribute__((always_inline)) struct btf_type *
type_of(const struct ndd *d, uint32_t id)
{
	/* without a base first is 1: the one test of void */
	if (__builtin_expect(id < d->first, 0))
		return id ? (struct btf_type *)btf__type_by_id(d->base, id) :
			    (struct btf_type *)&void_type;
	return (struct btf_type *)(d->types + d->off[id]);
}

static uint16_t kind_of(const struct btf_type *t)
{
	return BTF_INFO_KIND(t->info);
}

/* The kind of type @id, ours from the index, the base's from its record. */
static inline __attribute__((always_inline)) uint16_t
kind_at(const struct ndd *d, uint32_t id)
{
	return id >= d->first ? d->kind[id] : kind_of(type_of(d, id));
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

typedef bool (*equal_fn)(const struct btf_type *, const struct btf_type *);

/*
 * Map @id to the canonical candidate of hash @h equal to it, or make it
 * canonical. Without a base no two canonical types are equal; a base's
 * are canonical as they come, and two equal ones there (a base libbpf
 * did not deduplicate) leave the choice to libbpf's table order: 1.
 */
static inline __attribute__((always_inline)) int
map_equal(struct ndd *d, uint32_t id, uint32_t h, equal_fn equal)
{
	const struct btf_type *t = type_of(d, id);
	struct abtf_hent *e;
	uint32_t to = id;

	for (e = abtf__hmap_first(&d->table, h); e->val;
	     e = abtf__hmap_next(&d->table, e)) {
		if (e->hash != h || !equal(t, type_of(d, e->val)))
			continue;
		if (to != id)
			return 1;
		to = e->val;
		if (!d->base)
			break;
	}
	d->map[id] = to;
	return to == id ? table_add(d, h, id) : 0;
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

/*
 * The base's strings, indexed as libbpf's btf__find_str() finds them:
 * each string that starts after a NUL, the first of equal ones.
 */
static int index_base_strs(struct ndd *d)
{
	const char *strs = d->base_strs;
	uint32_t len = d->base_str_len, at;
	struct abtf_hent *e;
	size_t n;
	uint32_t h;

	if (!len || strs[len - 1])
		return -EINVAL;
	/* a vmlinux's strings average 40 bytes: it grows if need be */
	if (abtf__hmap_reset(&d->base_idx, len / 32))
		return -ENOMEM;
	for (at = 0; at < len; at += n + 1) {
		h = abtf__str_hash(strs + at, &n);
		if (abtf__hmap_reserve(&d->base_idx, 1 << 14))
			return -ENOMEM;
		for (e = abtf__hmap_first(&d->base_idx, h); e->val;
		     e = abtf__hmap_next(&d->base_idx, e))
			if (e->hash == h && !strcmp(strs + e->val - 1, strs + at))
				break;
		if (!e->val)
			abtf__hmap_fill(&d->base_idx, e, h, at + 1);
	}
	return 0;
}

/* The base's offset of string @s, or -1. */
static int64_t base_str(const struct ndd *d, const char *s)
{
	struct abtf_hent *e;
	size_t n;
	uint32_t h = abtf__str_hash(s, &n);

	for (e = abtf__hmap_first(&d->base_idx, h); e->val;
	     e = abtf__hmap_next(&d->base_idx, e))
		if (e->hash == h && !strcmp(d->base_strs + e->val - 1, s))
			return e->val - 1;
	return -1;
}

/*
 * A string of ours, first met: the base's offset where the base has it,
 * else its offset in the new table, after the base's strings.
 */
static int64_t new_str(struct ndd *d, const char *s)
{
	int64_t off = d->base ? base_str(d, s) : -1;

	if (off >= 0)
		return off;
	off = abtf__strtab_add(&d->strs, s);
	if (off < 0)
		return off;
	off += d->base_str_len;
	return off < UINT32_MAX ? off : -E2BIG;
}

/*
 * libbpf's strs_dedup_remap_str_off(): an offset into the base's strings
 * stays, one into ours is that string's new offset.
 */
static int remap_str(uint32_t *off, void *ctx)
{
	struct str_pass *sp = ctx;
	uint32_t h = off_hash(*off);
	struct abtf_hent *e;
	int64_t s;

	if (!*off)
		return 0;
	if (*off < sp->d->base_str_len)
		return 0;
	if (*off - sp->d->base_str_len >= sp->old_len)
		return -EINVAL;
	if (abtf__hmap_reserve(&sp->seen, 1 << 14))
		return -ENOMEM;
	for (e = abtf__hmap_first(&sp->seen, h); e->val;
	     e = abtf__hmap_next(&sp->seen, e))
		if (e->hash == h) {
			*off = e->val - 1;
			return 0;
		}
	s = new_str(sp->d, sp->old + (*off - sp->d->base_str_len));
	if (s < 0)
		return (int)s;
	abtf__hmap_fill(&sp->seen, e, h, (uint32_t)s + 1);
	*off = (uint32_t)s;
	return 0;
}

/* How many strings the section @s of @len bytes holds: its NULs. */
static uint32_t count_strs(const char *s, uint32_t len)
{
	const char *end = s + len, *nul;
	uint32_t n = 0;

	for (; s < end && (nul = memchr(s, 0, end - s)); s = nul + 1)
		n++;
	return n;
}

/* in_order()'s walk: the next string not yet referenced starts at @next. */
struct order_pass {
	const char *old;
	uint32_t old_len;
	uint32_t next;
};

static int follow_str(uint32_t *off, void *ctx)
{
	struct order_pass *op = ctx;

	if (*off < op->next)
		return 0;
	if (*off > op->next || op->next >= op->old_len)
		return 1;
	op->next += strlen(op->old + op->next) + 1;
	return 0;
}

/*
 * Whether the new string table would be @old itself: its strings, unique
 * (merge.c interned them: node_dedup__run()), are each first
 * referenced in their order, and every one is. Then the string pass of
 * libbpf adds each, at its offset, in the same order, and maps every
 * offset to itself. One pass over the references, no hashing; at the root
 * of a kernel's link, whose strings were interned as its types came, the
 * answer is yes and the pass costs a fifth of the hashing one.
 */
static bool in_order(const struct ndd *d, const char *old, uint32_t old_len)
{
	struct order_pass op = { .old = old, .old_len = old_len, .next = 1 };
	uint32_t id;

	if (d->base || !old_len || old[0])
		return false;
	for (id = d->first; id <= d->nr; id++)
		if (abtf__for_each_str_off(type_of(d, id), follow_str, &op))
			return false;
	return op.next == old_len;
}

/* The new table is @old: copied, for assemble(), without an index. */
static int keep_strings(struct ndd *d, const char *old, uint32_t old_len)
{
	if (abtf_grow(d->strs.data, d->strs.cap, old_len))
		return -ENOMEM;
	memcpy(d->strs.data, old, old_len);
	d->strs.len = old_len;
	return 0;
}

static int dedup_strings(struct ndd *d, const char *old, uint32_t old_len)
{
	struct str_pass sp = { .d = d, .old = old, .old_len = old_len };
	uint32_t id, nr_strs;
	int err;

	/* the section ends in a NUL, so every string in it does */
	if (old_len ? old[old_len - 1] : !d->base)
		return -EINVAL;
	if (in_order(d, old, old_len))
		return keep_strings(d, old, old_len);
	/*
	 * Sized once, for every string the section holds: sized by the
	 * types instead (a root holds about 15 of them to a string), each
	 * table was 16 MB on the 7.3 image and every probe a cache miss.
	 */
	nr_strs = count_strs(old, old_len);
	if (abtf__hmap_reset(&sp.seen, nr_strs) ||
	    abtf__hmap_reset(&d->strs.map, nr_strs) ||
	    abtf_grow(d->strs.data, d->strs.cap, old_len))
		err = -ENOMEM;
	else if (d->base)	/* libbpf adds no "" to a split BTF's strings */
		err = index_base_strs(d);
	else
		err = abtf__strtab_add(&d->strs, "") < 0 ? -ENOMEM : 0;
	for (id = d->first; !err && id <= d->nr; id++)
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
 * Over a base that argument fails (the base's enum FWDs and full enums
 * are all canonical, and which of them an enum of ours meets first
 * decides whether the FWD is mapped): there an enum with more than one
 * compatible candidate is libbpf's to decide, 1.
 */
static int dedup_enum(struct ndd *d, uint32_t id, uint32_t h)
{
	const struct btf_type *t = type_of(d, id);
	struct abtf_hent *e;
	uint32_t to = id, nr = 0;

	for (e = abtf__hmap_first(&d->table, h); d->base && e->val;
	     e = abtf__hmap_next(&d->table, e))
		if (e->hash == h && compat_enum(t, type_of(d, e->val)))
			nr++;
	if (nr > 1)
		return 1;
	for (e = abtf__hmap_first(&d->table, h); e->val;
	     e = abtf__hmap_next(&d->table, e)) {
		const struct btf_type *c = type_of(d, e->val);

		if (e->hash != h)
			continue;
		if (equal_enum(t, c)) {
			to = e->val;
			break;
		}
		if (!compat_enum(t, c))
			continue;
		if (is_enum_fwd(t)) {
			to = e->val;
			break;
		}
		d->map[e->val] = id;
	}
	d->map[id] = to;
	return to == id ? table_add(d, h, id) : 0;
}

/*
 * The slot of name offset @off in @names, a map by name: its entry, or
 * the empty slot that abtf__hmap_fill() may take (room made first, a map
 * without slots getting @first). NULL: no memory.
 */
static struct abtf_hent *name_slot(struct abtf_hmap *names, uint32_t off,
				   size_t first)
{
	uint32_t h = off_hash(off);
	struct abtf_hent *e;

	if (abtf__hmap_reserve(names, first))
		return NULL;
	for (e = abtf__hmap_first(names, h); e->val;
	     e = abtf__hmap_next(names, e))
		if (e->hash == h)
			break;
	return e;
}

/*
 * Enum @id in enum_order_matters()'s @pass: 0 notes an enum FWD's name,
 * 1 a canonical full enum's against them; 1 for a second full enum.
 */
static inline __attribute__((always_inline)) int
enum_name(const struct ndd *d, struct abtf_hmap *names, uint32_t id,
	  uint32_t pass)
{
	const struct btf_type *t;
	struct abtf_hent *e;

	if (kind_at(d, id) != BTF_KIND_ENUM && kind_at(d, id) != BTF_KIND_ENUM64)
		return 0;
	t = type_of(d, id);
	if (pass != !is_enum_fwd(t) || (pass && d->map[id] != id))
		return 0;
	e = name_slot(names, t->name_off, 1 << 6);
	if (!e)
		return -ENOMEM;
	if (!pass && !e->val)
		abtf__hmap_fill(names, e, off_hash(t->name_off), NOT_UNIQUE);
	else if (pass && e->val == NOT_UNIQUE)
		e->val = id;
	else if (pass && e->val)
		return 1;	/* a second full enum */
	return 0;
}

/*
 * 1 if a name has an enum FWD and two different full enums: of ours and
 * of the base's that may meet ours (base_types()).
 */
static int enum_order_matters(const struct ndd *d)
{
	struct abtf_hmap names = { 0 };
	uint32_t i, id, pass;
	int ret = 0;

	/* first the names of enum FWDs, then each full enum's against them */
	for (pass = 0; pass < 2 && !ret; pass++) {
		for (i = 0; i < d->nr_rel && !ret; i++)
			ret = enum_name(d, &names, d->rel[i], pass);
		for (id = d->first; id <= d->nr && !ret; id++)
			ret = enum_name(d, &names, id, pass);
	}
	abtf__hmap_free(&names);
	return ret;
}

static uint32_t struct_hash(const struct ndd *d, const struct btf_type *t);

/*
 * The hash under which a type of @t's kind is a candidate in the table:
 * the one choice for the base's types (base_types()) and for ours (each
 * phase), which must agree or a base candidate is never met.
 */
static int table_hash(const struct ndd *d, const struct btf_type *t,
		      uint32_t *h)
{
	switch (kind_of(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_DECL_TAG:
		*h = hash_int_tag(t);
		return 0;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		*h = mix(0x2545f491u, t->name_off);
		return 0;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		*h = struct_hash(d, t);
		return 0;
	case BTF_KIND_ARRAY:
		*h = hash_array(t);
		return 0;
	case BTF_KIND_FUNC_PROTO:
		*h = hash_proto(t);
		return 0;
	case BTF_KIND_FWD: case BTF_KIND_FLOAT: case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT: case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC: case BTF_KIND_TYPE_TAG:
		*h = hash_common(t);
		return 0;
	default:
		return -EINVAL;	/* libbpf's btf_dedup_prep() fails too */
	}
}

static int dedup_prim(struct ndd *d, uint32_t id)
{
	const struct btf_type *t;
	equal_fn equal;
	uint32_t h;

	switch (d->kind[id]) {
	case BTF_KIND_INT:
		equal = equal_int_tag;
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		table_hash(d, type_of(d, id), &h);
		return dedup_enum(d, id, h);
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
		equal = equal_common;
		break;
	default:
		return 0;
	}
	t = type_of(d, id);
	table_hash(d, t, &h);
	return map_equal(d, id, h, equal);
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
	d->adjust = false;
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
		bool eq = real == (BTF_INFO_KFLAG(fwd->info) ?
				   BTF_KIND_UNION : BTF_KIND_STRUCT);

		/* a base FWD that a struct of ours would resolve */
		if (eq && ky == BTF_KIND_FWD && canon < d->first)
			d->adjust = true;
		return eq;
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

/*
 * libbpf's btf_dedup_merge_hypot_map(). A walk that met a base FWD
 * paired with a struct of ours (d->adjust) only points such FWDs at
 * their structs: for the rest, the two were not equivalent.
 */
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
		if (d->adjust)
			continue;
		if (tk == BTF_KIND_FWD && ck != BTF_KIND_FWD)
			d->map[t] = c;
		if (is_composite(tk) && ck != BTF_KIND_FWD &&
		    is_mapped(d, c) && !is_mapped(d, t))
			d->map[t] = c;
	}
}

/* A struct's hash: libbpf's fields, and its members' signatures. */
static uint32_t struct_hash(const struct ndd *d, const struct btf_type *t)
{
	const struct btf_member *m = (const void *)(t + 1);
	uint32_t h = hash_struct(t);
	uint16_t i;

	for (i = 0; i < vlen_of(t); i++)
		h = mix(h, member_sig(d, m[i].type));
	return h;
}

/*
 * Decide struct or union @id. 1 where two canonical candidates pass the
 * walk: libbpf takes the one its table lists first, which is not ours to
 * know. Over a base, a walk that passes by pointing a base FWD at a
 * struct of ours counts as one that passes (libbpf merges its map and
 * tries the next candidate), and leaves @id canonical.
 */
static int dedup_struct(struct ndd *d, uint32_t id)
{
	const struct btf_type *t;
	uint32_t h, to = id, last = 0;
	struct abtf_hent *e;
	int eq;

	if (!is_composite(d->kind[id]) || is_mapped(d, id))
		return 0;
	t = type_of(d, id);
	table_hash(d, t, &h);
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
		if (d->adjust)
			to = id;	/* not really equivalent */
	}
	d->map[id] = to;
	return to == id ? table_add(d, h, id) : 0;
}

/* ---- 4. FWDs left: the one struct or union of their name ---- */

/* A canonical struct or union @id into @names: its ID, or NOT_UNIQUE. */
static inline __attribute__((always_inline)) int
struct_name(const struct ndd *d, struct abtf_hmap *names, uint32_t id)
{
	const struct btf_type *t;
	struct abtf_hent *e;

	if (!is_composite(kind_at(d, id)) || d->map[id] != id)
		return 0;
	t = type_of(d, id);
	e = name_slot(names, t->name_off, 1 << 12);
	if (!e)
		return -ENOMEM;
	if (e->val)
		e->val = NOT_UNIQUE;
	else
		abtf__hmap_fill(names, e, off_hash(t->name_off), id);
	return 0;
}

/* libbpf's btf_dedup_resolve_fwds(), the base's structs included. */
static int resolve_fwds(struct ndd *d)
{
	struct abtf_hmap names = { 0 };
	struct abtf_hent *e;
	uint32_t i, id, h;
	int err = 0;

	for (i = 0; !err && i < d->nr_rel; i++)
		err = struct_name(d, &names, d->rel[i]);
	for (id = d->first; !err && id <= d->nr; id++)
		err = struct_name(d, &names, id);
	for (id = d->first; !err && id <= d->nr; id++) {
		const struct btf_type *t, *s;

		if (d->kind[id] != BTF_KIND_FWD || d->map[id] != id)
			continue;
		t = type_of(d, id);
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
	equal_fn equal;
	uint32_t h;

	switch (kind_of(t)) {
	case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC:
	case BTF_KIND_TYPE_TAG:
		equal = equal_common;
		break;
	case BTF_KIND_DECL_TAG:
		equal = equal_int_tag;
		break;
	case BTF_KIND_ARRAY:
		equal = equal_array;
		break;
	case BTF_KIND_FUNC_PROTO:
		equal = equal_proto;
		break;
	default:
		return -EINVAL;
	}
	table_hash(d, t, &h);
	return map_equal(d, id, h, equal);
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
	uint32_t id, next = d->first, at = 0;
	int err = 0;

	d->hypot[0] = 0;
	for (id = 1; id < d->first; id++)
		d->hypot[id] = id;	/* the base's keep their IDs */
	for (id = d->first; id <= d->nr; id++) {
		struct btf_type *t;
		size_t sz;

		if (d->map[id] != id) {	/* its record is not read */
			d->hypot[id] = UNPROCESSED;
			continue;
		}
		t = type_of(d, id);
		sz = abtf__record_size(t);
		memmove(d->types + at, t, sz);
		d->off[next] = at;
		d->hypot[id] = next++;
		at += sz;
	}
	for (id = d->first; !err && id < next; id++)
		err = abtf__for_each_type_id(type_of(d, id), remap_id, d);
	*len = at;
	return err;
}

/* ---- the whole ---- */

static int max_id(uint32_t *id, void *ctx)
{
	uint32_t *max = ctx;

	if (*id > *max)
		*max = *id;
	return 0;
}

/* Each record's offset and kind; every type ID it refers to one of them. */
static int index_types(struct ndd *d, uint32_t len)
{
	uint32_t at = 0, max = 0;
	size_t cap = 0, kcap = 0;

	d->nr = d->first - 1;
	while (at < len) {
		struct btf_type *t = (void *)(d->types + at);
		size_t sz;

		if (len - at < sizeof(struct btf_type))
			return -EINVAL;
		sz = abtf__record_size(t);
		if (!sz || sz > len - at)
			return -EINVAL;
		if (d->nr >= MAX_ID - 1)
			return -E2BIG;
		if (abtf_grow(d->off, cap, (size_t)d->nr + 2) ||
		    abtf_grow(d->kind, kcap, (size_t)d->nr + 2))
			return -ENOMEM;
		d->off[++d->nr] = at;
		d->kind[d->nr] = kind_of(t);
		abtf__for_each_type_id(t, max_id, &max);
		at += sz;
	}
	return max > d->nr ? -EINVAL : 0;
}

/* The names of our types (their new offsets), for base_types(). */
static int own_names(struct ndd *d)
{
	struct abtf_hent *e;
	uint32_t id;

	if (abtf__hmap_reset(&d->names, d->nr - d->first + 1))
		return -ENOMEM;
	for (id = d->first; id <= d->nr; id++) {
		uint32_t off = type_of(d, id)->name_off;

		if (!off)
			continue;
		e = name_slot(&d->names, off, 16);	/* the reset made room */
		if (!e)
			return -ENOMEM;
		if (!e->val)
			abtf__hmap_fill(&d->names, e, off_hash(off), 1);
	}
	return 0;
}

/* Whether one of our types is named by string offset @off. */
static bool named_here(const struct ndd *d, uint32_t off)
{
	uint32_t h = off_hash(off);
	struct abtf_hent *e;

	for (e = abtf__hmap_first(&d->names, h); e->val;
	     e = abtf__hmap_next(&d->names, e))
		if (e->hash == h)
			return true;
	return false;
}

/*
 * libbpf's btf_dedup_prep(): the base's types are canonical, each its
 * own, and candidates for ours (but VARs and DATASECs). A named base
 * type none of ours shares its name with is left out of the table: every
 * test of a candidate (libbpf's btf_equal_*(), btf_compat_enum(),
 * btf_shallow_equal_struct()) first wants the same name offset, so that
 * it could never be taken, nor make a choice ambiguous. Of a large
 * vmlinux's types that leaves the anonymous ones and a few hundred; the
 * passes over all types (resolve_fwds(), enum_order_matters()) see those
 * and ours only: a FWD of ours, an enum of ours, has a name of ours.
 */
static int base_types(struct ndd *d)
{
	size_t cap = 0;
	uint32_t id, h;
	int err = d->first > 1 ? own_names(d) : 0;

	for (id = 1; !err && id < d->first; id++) {
		const struct btf_type *t = type_of(d, id);

		d->map[id] = id;
		d->hypot[id] = UNPROCESSED;
		if (kind_of(t) == BTF_KIND_VAR || kind_of(t) == BTF_KIND_DATASEC)
			continue;
		if (t->name_off && !named_here(d, t->name_off))
			continue;
		err = table_hash(d, t, &h);
		if (!err)
			err = table_add(d, h, id);
		if (!err && abtf_grow(d->rel, cap, (size_t)d->nr_rel + 1))
			err = -ENOMEM;
		if (!err)
			d->rel[d->nr_rel++] = id;
	}
	return err;
}

static int run(struct ndd *d)
{
	uint32_t id;
	int err = 0;

	d->map = malloc((d->nr + 1) * sizeof(*d->map));
	d->hypot = malloc((d->nr + 1) * sizeof(*d->hypot));
	/*
	 * Room for one canonical type of ours in eight (the root of a
	 * kernel keeps one in seventeen) and half a base's (base_types()):
	 * a table sized for every type was 16 MB at the root of the 7.3
	 * image, and each of its pages a page fault in every module's link.
	 * It grows if need be; what a lookup finds does not depend on the
	 * size: where two candidates could answer, libbpf decides (1).
	 */
	if (!d->map || !d->hypot ||
	    abtf__hmap_reset(&d->table, (d->nr - d->first + 1) / 8 +
					(d->first - 1) / 2))
		return -ENOMEM;
	d->map[0] = 0;
	d->hypot[0] = UNPROCESSED;
	err = base_types(d);
	for (id = d->first; id <= d->nr; id++) {
		uint16_t k = d->kind[id];

		d->map[id] = k == BTF_KIND_VAR || k == BTF_KIND_DATASEC ?
			     id : UNPROCESSED;
		d->hypot[id] = UNPROCESSED;
	}
	for (id = d->first; !err && id <= d->nr; id++)
		err = dedup_prim(d, id);
	if (!err)
		err = enum_order_matters(d);
	for (id = d->first; !err && id <= d->nr; id++)
		err = dedup_struct(d, id);
	if (!err)
		err = resolve_fwds(d);
	for (id = d->first; !err && id <= d->nr; id++)
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
	free(d->kind);
	free(d->map);
	free(d->hypot);
	free(d->hlist);
	free(d->stack);
	abtf__hmap_free(&d->table);
	abtf__hmap_free(&d->base_idx);
	abtf__hmap_free(&d->names);
	free(d->rel);
	abtf__strtab_free(&d->strs);
}

int node_dedup__run(void **raw, size_t *size, const struct btf *base,
		    uint32_t base_str_len)
{
	const struct btf_header *hdr = *raw;
	struct ndd d = { .first = 1 };
	uint32_t type_len = 0;
	int err, ret = 0;
	void *out;

	if (base) {
		d.base = base;
		d.first = btf__type_cnt(base);
		d.base_strs = btf__str_by_offset(base, 0);
		d.base_str_len = base_str_len;
		if (!d.first || !d.base_strs)
			return -EINVAL;
	}
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
