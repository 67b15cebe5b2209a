// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Exact pre-deduplication of a merge node's input.
 *
 * An archive repeats each header's types in every object that includes
 * it: most of what a node takes in is, type for type, already there.
 * Appending all of it and letting the deduplication find the copies
 * costs hashing, string interning and an equivalence walk on every copy.
 * Here a type of the input is mapped to a type of the node instead of
 * appended when the two have one meaning (docs/design.md, "The archive
 * linker"): same kind, name, sizes, members and values, and every type
 * they refer to mapped to the very type the node's refers to. Whether a
 * FWD stands for a struct depends on every struct of its name in the
 * archive and on the order of libbpf's walks, so here a FWD is only the
 * same as a FWD, and what reaches a FWD stays new, for the root's
 * deduplication alone to decide (docs/design.md says why deciding it in a
 * part of the archive merges types libbpf's dedup keeps apart: issue 19,
 * and "names of one meaning", a rule since refuted).
 *
 * How (the scheme of libbpf's own dedup):
 *  - types without a cycle through them (everything but structs and
 *    unions, in C) are resolved depth first: their referenced types
 *    first, then the record with its strings and IDs mapped is looked up
 *    by a hash of all of it and compared byte for byte;
 *  - a struct or union is looked up by a hash of its name, size, member
 *    names and offsets and what its members' types must share with any
 *    match (exact__member_sig()), and each candidate is walked together
 *    with it: every pair of referenced types must be exactly equal too,
 *    assuming the pairs on the way are (cycles), each input type paired
 *    with one node type only. The first candidate that passes maps the
 *    whole walk. A part of the walk that depends on no pair still open
 *    when it ends (a strongly connected component, in Tarjan's terms) is
 *    settled at once, even if the walk fails later; the rest of a failed
 *    walk maps nothing, and its failed pairs are remembered, so that
 *    later walks do not explore them again.
 *
 * A mapping is made only when the input type, its strings and IDs
 * mapped, is byte for byte the node type: replacing one by the other
 * changes no meaning. Anything unusual (a walk too deep, a reference
 * cycle without a struct, a dropped type) only means "append":
 * correctness never depends on finding a match. The decisions depend
 * only on the node's types and the input, in order, so the result is as
 * deterministic as the rest of the merge. FUNCs (one per name already),
 * VARs, DATASECs and DECL_TAGs are never mapped.
 *
 * The node's index of its types (struct exact_index, n->ex) is this
 * file's: merge.c reports each type it appends (exact__add()) and
 * the end of each input (exact__index()), and has it freed with the
 * node's merge state (exact__free_index()); which of its types reach
 * a FWD stays until the node is freed (exact__free()), for the
 * parent that merges it (exact__held()).
 *
 * The final BTF has the meaning of the link without this step
 * (abtf_link_testing.no_exact; tests/dedup/ holds both to libbpf's dedup
 * alone, tests/dedup-diff.bats compares their bytes on the fixtures).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/btf.h>

#include "link/linker.h"
#include "link/input.h"
#include "link/node_str.h"
#include "link/exact.h"
#include "link/node.h"

/* Deeper walks give up (append): a bound on stack use, not on meaning. */
#define EXACT_MAX_DEPTH	1024

enum { T_OPEN, T_BUSY, T_DONE };

struct exact {
	struct node *n;
	const struct input *in;
	uint32_t *map;		/* in: EXACT_NEW or a node ID; 0 dropped */
	const uint32_t *toff;	/* input ID -> record offset */
	uint8_t *state;		/* input ID -> T_* */
	uint32_t *hyp;		/* input ID -> node ID assumed by the walk */
	uint32_t *widx;		/* input ID -> its index in walked */
	uint32_t *walked;	/* input IDs with a hyp, to commit or undo */
	uint32_t nr_walked;
	struct abtf_hmap failed;	/* pairs not equal: input IDs by pair_hash() */
	uint32_t end_old;	/* node IDs below this existed before the input */
	uint8_t *rec;		/* one record, mapped, for hashing */
	size_t rec_cap;
	int err;
};

/* ---- hashing ---- */

/*
 * Odd hashes: the table once marked empty slots with 0. The order in
 * which a lookup meets the candidates of a hash, and so which of two
 * equal node types an input type maps to, follows the hash values: they
 * stay as they were.
 */
static uint32_t hash_words(const uint32_t *w, size_t nr, uint64_t h)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 31;
	}
	return (uint32_t)(h >> 32) | 1;
}

static bool is_composite(const struct btf_type *t)
{
	int kind = BTF_INFO_KIND(t->info);

	return kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION;
}

/* Types are of known kinds here: the archive's were validated. */
static bool can_map(const struct btf_type *t)
{
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG:
		return false;
	default:
		return true;
	}
}

/* A struct or union by what does not refer to other types. */
static uint32_t composite_hash(const struct btf_type *t)
{
	const struct btf_member *m = (const void *)(t + 1);
	uint16_t i, vlen = BTF_INFO_VLEN(t->info);
	uint64_t h = 0x243f6a8885a308d3ULL;
	uint32_t w[3] = { t->name_off, t->info, t->size };

	h = hash_words(w, 3, h);
	for (i = 0; i < vlen; i++) {
		w[0] = m[i].name_off;
		w[1] = m[i].offset;
		h = hash_words(w, 2, h);
	}
	return h;
}

/* Any other type by all of its record. */
static uint32_t record_hash(const struct btf_type *t)
{
	return hash_words((const uint32_t *)t, abtf__record_size(t) / 4,
			  0x13198a2e03707344ULL);
}

/*
 * What a struct's member type shares with every type a walk may find it
 * equal to: through up to SIG_DEPTH modifiers, pointers, typedefs and
 * arrays their records but the type IDs, then the name of the type
 * reached (not its kind: a FWD pairs with the struct of its name).
 * Mixed into a struct's hash, it keeps the walk from structs of the
 * same member names and offsets whose members are other types: Linux's
 * tracepoints give a thousand anonymous unions of the same members but
 * for a typedef's name, each of which was walked against all others.
 * node_dedup.c mixes it into its struct hash for the same reason.
 */
#define SIG_DEPTH	4

static uint64_t sig_step(uint64_t h, const struct btf_type *t, uint32_t name,
			 uint32_t extra)
{
	uint32_t w[3] = { t->info, name, extra };

	return hash_words(w, 3, h);
}

int64_t exact__member_sig(const struct abtf_sig_src *s, uint32_t id)
{
	uint64_t h = 0x452821e638d01377ULL;
	int depth;

	for (depth = 0; depth < SIG_DEPTH; depth++) {
		const struct btf_type *t = id ? s->type_of(s->ctx, id) : NULL;
		int64_t name = t ? s->name_of(s->ctx, t->name_off) : 0;

		if (name < 0)
			return name;
		if (!t)
			return hash_words((const uint32_t[1]){ 0 }, 1, h);
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_PTR: case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
		case BTF_KIND_TYPEDEF:
			h = sig_step(h, t, name, 0);
			id = t->type;
			break;
		case BTF_KIND_ARRAY: {
			const struct btf_array *a = (const void *)(t + 1);

			h = sig_step(h, t, name, a->nelems);
			id = a->type;
			break;
		}
		case BTF_KIND_FUNC_PROTO:
			return sig_step(h, t, name, 0) >> 1;
		default:	/* the type reached: its name only */
			return hash_words((const uint32_t[1]){ name }, 1, h) >> 1;
		}
	}
	return h >> 1;
}

/* A struct's composite_hash() with its members' signatures. */
static int64_t struct_hash(const struct abtf_sig_src *s,
			   const struct btf_type *t)
{
	const struct btf_member *m = (const void *)(t + 1);
	uint16_t i, vlen = BTF_INFO_VLEN(t->info);
	uint32_t w[2] = { composite_hash(t), 0 };

	for (i = 0; i < vlen; i++) {
		int64_t sig = exact__member_sig(s, m[i].type);

		if (sig < 0)
			return sig;
		w[1] = (uint32_t)sig;
		w[0] = hash_words(w, 2, 0x082efa98ec4e6c89ULL);
	}
	return w[0];
}

/* ---- the node's types by hash ---- */

static const struct btf_type *node_type(const struct node *n, uint32_t id)
{
	return (const void *)(n->types + n->ex.type_off[id - n->first_id]);
}

static const struct btf_type *node_sig_type(const void *ctx, uint32_t id)
{
	const struct node *n = ctx;

	return id >= n->first_id && id < n->next_id ? node_type(n, id) : NULL;
}

static int64_t node_sig_name(const void *ctx, uint32_t off)
{
	return off;
}

/*
 * Index the type just appended at @off as node ID @id, unless *@held says
 * it is held back (exact__map(): no input type maps to it; @held
 * NULL: not known, nothing was mapped into this input). A struct or union
 * waits for the end of its input (exact__index()): its members'
 * types may come after it. An input has no two equal types, so no type
 * of the same input looks for it.
 */
int exact__add(struct node *n, uint32_t id, size_t off,
	       const uint8_t *held)
{
	const struct btf_type *t = (const void *)(n->types + off);
	struct exact_index *ex = &n->ex;
	size_t idx = id - n->first_id;

	if (abtf_grow(ex->type_off, ex->cap_type_off, idx + 1) ||
	    abtf_grow(ex->held, ex->cap_held, idx + 2))
		return -ENOMEM;
	ex->type_off[idx] = off;
	ex->held[0] = 0;
	ex->held[idx + 1] = held && *held;
	if (idx + 1 > ex->nr_held)
		ex->nr_held = idx + 1;
	if (!held)
		ex->held_unknown = true;
	if ((held && *held) || !can_map(t))
		return 0;
	if (!is_composite(t))
		return abtf__hmap_add(&ex->map, 1 << 12, record_hash(t), id);
	if (abtf_grow(ex->pending, ex->cap_pending, ex->nr_pending + 1))
		return -ENOMEM;
	ex->pending[ex->nr_pending++] = id;
	return 0;
}

int exact__index(struct node *n)
{
	struct abtf_sig_src s = { n, node_sig_type, node_sig_name };
	struct exact_index *ex = &n->ex;
	size_t i;
	int err = 0;

	for (i = 0; i < ex->nr_pending && !err; i++) {
		uint32_t id = ex->pending[i];
		int64_t h = struct_hash(&s, node_type(n, id));

		err = h < 0 ? (int)h :
		      abtf__hmap_add(&ex->map, 1 << 12, (uint32_t)h, id);
	}
	ex->nr_pending = 0;
	return err;
}

/*
 * The held bits of child @c's @nr_types types by its local type ID, as a
 * parent merging it would work them out, or NULL where they are not known
 * for each of them. Its types keep their references through the merge,
 * and what they map to reaches no FWD, so a child type reaches a FWD
 * exactly where its member's copy did.
 */
const uint8_t *exact__held(const struct node *c, uint32_t nr_types)
{
	const struct exact_index *ex = &c->ex;

	if (ex->held_unknown || ex->nr_held != nr_types)
		return NULL;
	return ex->held;
}

/* The index, once the node's merges are done; the held bits stay. */
void exact__free_index(struct exact_index *ex)
{
	free(ex->type_off);
	free(ex->pending);
	abtf__hmap_free(&ex->map);
	ex->type_off = ex->pending = NULL;
	ex->cap_type_off = ex->nr_pending = ex->cap_pending = 0;
}

void exact__free(struct exact_index *ex)
{
	exact__free_index(ex);
	free(ex->held);
	memset(ex, 0, sizeof(*ex));
}

/* ---- failed pairs ---- */

/*
 * The hash of the pair (input ID @a, node ID @b), stored with @a as its
 * value: for a given @a it is a bijection of @b (a xor, an odd multiplier
 * and a xor-shift each are), so hash and value together are the pair.
 */
static uint32_t pair_hash(uint32_t a, uint32_t b)
{
	uint32_t h = (a * 0x9e3779b1u ^ b) * 0x85ebca6bu;

	return h ^ h >> 16;
}

/* The slot of the pair, or the empty one where it belongs. */
static struct abtf_hent *failed_slot(const struct exact *x, uint32_t in_id,
				     uint32_t h)
{
	struct abtf_hent *e;

	for (e = abtf__hmap_first(&x->failed, h); e->val;
	     e = abtf__hmap_next(&x->failed, e))
		if (e->hash == h && e->val == in_id)
			break;
	return e;
}

static bool failed_has(const struct exact *x, uint32_t in_id, uint32_t id)
{
	return x->failed.cnt &&
	       failed_slot(x, in_id, pair_hash(in_id, id))->val;
}

/* Losing one is harmless (a walk is explored again): no error. */
static void failed_add(struct exact *x, uint32_t in_id, uint32_t id)
{
	uint32_t h = pair_hash(in_id, id);
	struct abtf_hent *e;

	if (abtf__hmap_reserve(&x->failed, 1024))
		return;
	e = failed_slot(x, in_id, h);
	if (!e->val)
		abtf__hmap_fill(&x->failed, e, h, in_id);
}

/* ---- one walk: is input type @a exactly node type @b? ---- */

static const struct btf_type *in_type(const struct exact *x, uint32_t id)
{
	return (const void *)(x->in->types + x->toff[id]);
}

/* Input string @a is node string @b. */
static bool same_str(struct exact *x, uint32_t a, uint32_t b)
{
	return node_str__is(x->n, x->in, a, b);
}

static inline bool equal(struct exact *x, uint32_t a, uint32_t b, int depth,
			 uint32_t *low);

static bool equal_members(struct exact *x, const struct btf_type *a,
			  const struct btf_type *b, int depth, uint32_t *low)
{
	const struct btf_member *ma = (const void *)(a + 1);
	const struct btf_member *mb = (const void *)(b + 1);
	uint16_t i, vlen = BTF_INFO_VLEN(a->info);

	if (a->size != b->size)
		return false;
	for (i = 0; i < vlen; i++)
		if (ma[i].offset != mb[i].offset ||
		    !same_str(x, ma[i].name_off, mb[i].name_off))
			return false;
	for (i = 0; i < vlen; i++)
		if (!equal(x, ma[i].type, mb[i].type, depth + 1, low))
			return false;
	return true;
}

static bool equal_enum(struct exact *x, const struct btf_type *a,
		       const struct btf_type *b)
{
	uint16_t i, vlen = BTF_INFO_VLEN(a->info);
	size_t esz = BTF_INFO_KIND(a->info) == BTF_KIND_ENUM ?
		     sizeof(struct btf_enum) : sizeof(struct btf_enum64);
	const uint8_t *ea = (const void *)(a + 1), *eb = (const void *)(b + 1);

	if (a->size != b->size)
		return false;
	for (i = 0; i < vlen; i++, ea += esz, eb += esz) {
		uint32_t na, nb;

		memcpy(&na, ea, 4);
		memcpy(&nb, eb, 4);
		if (memcmp(ea + 4, eb + 4, esz - 4) || !same_str(x, na, nb))
			return false;
	}
	return true;
}

static bool equal_proto(struct exact *x, const struct btf_type *a,
			const struct btf_type *b, int depth, uint32_t *low)
{
	const struct btf_param *pa = (const void *)(a + 1);
	const struct btf_param *pb = (const void *)(b + 1);
	uint16_t i, vlen = BTF_INFO_VLEN(a->info);

	for (i = 0; i < vlen; i++)
		if (!same_str(x, pa[i].name_off, pb[i].name_off))
			return false;
	if (!equal(x, a->type, b->type, depth + 1, low))
		return false;
	for (i = 0; i < vlen; i++)
		if (!equal(x, pa[i].type, pb[i].type, depth + 1, low))
			return false;
	return true;
}

/* The records, kind by kind; referenced types through equal(). */
static bool equal_record(struct exact *x, const struct btf_type *a,
			 const struct btf_type *b, int depth, uint32_t *low)
{
	const struct btf_array *aa, *ab;
	uint32_t ia, ib;

	if (a->info != b->info || !same_str(x, a->name_off, b->name_off))
		return false;
	switch (BTF_INFO_KIND(a->info)) {
	case BTF_KIND_INT:
		memcpy(&ia, a + 1, 4);
		memcpy(&ib, b + 1, 4);
		return a->size == b->size && ia == ib;
	case BTF_KIND_FLOAT:
		return a->size == b->size;
	case BTF_KIND_FWD:
		return true;
	case BTF_KIND_PTR: case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT: case BTF_KIND_TYPEDEF: case BTF_KIND_TYPE_TAG:
		return equal(x, a->type, b->type, depth + 1, low);
	case BTF_KIND_ARRAY:
		aa = (const void *)(a + 1);
		ab = (const void *)(b + 1);
		return aa->nelems == ab->nelems &&
		       equal(x, aa->type, ab->type, depth + 1, low) &&
		       equal(x, aa->index_type, ab->index_type, depth + 1, low);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return equal_members(x, a, b, depth, low);
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		return equal_enum(x, a, b);
	case BTF_KIND_FUNC_PROTO:
		return equal_proto(x, a, b, depth, low);
	default:
		return false;
	}
}

/* The pairs walked from index @from on become mappings. */
static void commit(struct exact *x, uint32_t from)
{
	uint32_t i;

	for (i = from; i < x->nr_walked; i++) {
		uint32_t a = x->walked[i];

		x->map[a] = x->hyp[a];
		x->state[a] = T_DONE;
		x->hyp[a] = 0;
	}
	x->nr_walked = from;
}

/*
 * Is input type @a exactly node type @b, assuming the pairs of the walk
 * so far? *@low: the lowest walk index of a pair still open that the
 * answer depends on. A pair whose answer depends on no pair walked before
 * it is settled, with all it walked (Tarjan's rule for strongly connected
 * components): whatever becomes of the walk, those are equal.
 */
static bool walk(struct exact *x, uint32_t a, uint32_t b, int depth,
		 uint32_t *low)
{
	const struct btf_type *ta, *tb;
	uint32_t i, mine;

	if (x->state[a] == T_DONE)	/* decided: equal if mapped to @b */
		return x->map[a] == b;
	if (x->hyp[a]) {
		if (x->hyp[a] != b)	/* paired with another */
			return false;
		if (x->widx[a] < *low)
			*low = x->widx[a];
		return true;
	}
	if (depth > EXACT_MAX_DEPTH || failed_has(x, a, b))
		return false;
	ta = in_type(x, a);
	tb = node_type(x->n, b);
	if (!can_map(ta))
		return false;
	i = mine = x->nr_walked++;
	x->walked[i] = a;
	x->widx[a] = i;
	x->hyp[a] = b;
	if (!equal_record(x, ta, tb, depth, &mine)) {
		failed_add(x, a, b);
		return false;
	}
	if (mine >= i)
		commit(x, i);
	else if (mine < *low)
		*low = mine;
	return true;
}

/* The common answers (void, or a type mapped already) without a call. */
static inline bool equal(struct exact *x, uint32_t a, uint32_t b, int depth,
			 uint32_t *low)
{
	if (!a || !b)
		return a == b;
	if (a > x->in->nr_types || !x->map[a] || b < x->n->first_id ||
	    b >= x->end_old)
		return false;
	if (x->state[a] == T_DONE && x->map[a] == b)
		return true;
	return walk(x, a, b, depth, low);
}

/* After a failed walk: its open pairs are forgotten. */
static void undo_walk(struct exact *x)
{
	uint32_t i;

	for (i = 0; i < x->nr_walked; i++)
		x->hyp[x->walked[i]] = 0;
	x->nr_walked = 0;
}

/* ---- deciding each input type ---- */

/*
 * @t with its strings and (all mapped) IDs in the node's terms, in x->rec.
 * A string the node lacks ends it (1): no type of the node is @t. Looked
 * up, not interned: merge.c interns as it appends (node_str.c).
 */
static int map_str_cb(uint32_t *off, void *ctx)
{
	struct exact *x = ctx;
	int64_t s = node_str__find(x->n, x->in, *off);

	if (s == -ENOENT)
		return 1;
	if (s < 0)
		return s;
	*off = s;
	return 0;
}

static int map_id_cb(uint32_t *id, void *ctx)
{
	struct exact *x = ctx;

	if (!*id)
		return 0;
	if (*id > x->in->nr_types || x->state[*id] != T_DONE ||
	    x->map[*id] >= x->end_old || !x->map[*id])
		return 1;	/* refers to a new or dropped type */
	*id = x->map[*id];
	return 0;
}

static struct btf_type *mapped_record(struct exact *x,
				      const struct btf_type *t, bool ids)
{
	size_t sz = abtf__record_size(t);
	struct btf_type *r;
	int err;

	if (abtf_grow(x->rec, x->rec_cap, sz)) {
		x->err = -ENOMEM;
		return NULL;
	}
	r = memcpy(x->rec, t, sz);
	err = abtf__for_each_str_off(r, map_str_cb, x);
	if (err) {
		if (err < 0)
			x->err = err;
		return NULL;
	}
	if (ids && abtf__for_each_type_id(r, map_id_cb, x))
		return NULL;
	return r;
}

static const struct btf_type *in_sig_type(const void *ctx, uint32_t id)
{
	const struct exact *x = ctx;

	return id <= x->in->nr_types ? in_type(x, id) : NULL;
}

/* A name the node lacks: a value no offset of the node's strings has. */
static int64_t in_sig_name(const void *ctx, uint32_t off)
{
	const struct exact *x = ctx;
	int64_t s = node_str__find(x->n, x->in, off);

	return s == -ENOENT ? UINT32_MAX : s;
}

/* A struct or union: the first candidate whose walk passes. */
static void decide_composite(struct exact *x, uint32_t id)
{
	const struct btf_type *r = mapped_record(x, in_type(x, id), false);
	struct abtf_sig_src s = { x, in_sig_type, in_sig_name };
	const struct abtf_hmap *m = &x->n->ex.map;
	struct abtf_hent *e;
	int64_t sh;
	uint32_t h;

	x->state[id] = T_DONE;	/* new, unless a walk maps it */
	if (!r)
		return;
	/* @r's members keep the input's IDs: the signatures follow them */
	sh = struct_hash(&s, r);
	if (sh < 0) {
		x->err = (int)sh;
		return;
	}
	h = (uint32_t)sh;
	for (e = abtf__hmap_first(m, h); e->val; e = abtf__hmap_next(m, e)) {
		uint32_t low = UINT32_MAX;

		if (e->hash != h)
			continue;
		x->state[id] = T_OPEN;
		if (equal(x, id, e->val, 0, &low))
			return;	/* settled: mapped */
		undo_walk(x);
		x->state[id] = T_DONE;
	}
}

static int resolve_ref(uint32_t *id, void *ctx);

/* Any other type: its references first, then the whole record. */
static void decide(struct exact *x, uint32_t id, int depth)
{
	const struct btf_type *t = in_type(x, id), *r;
	const struct abtf_hmap *m = &x->n->ex.map;
	struct abtf_hent *e;
	uint32_t h;

	if (x->state[id] != T_OPEN)
		return;
	if (is_composite(t)) {
		decide_composite(x, id);
		return;
	}
	x->state[id] = T_BUSY;
	if (depth < EXACT_MAX_DEPTH) {
		struct { struct exact *x; int depth; } c = { x, depth + 1 };

		abtf__for_each_type_id((struct btf_type *)t, resolve_ref, &c);
	}
	if (x->state[id] == T_DONE)	/* mapped by a walk meanwhile */
		return;
	x->state[id] = T_DONE;
	r = mapped_record(x, t, true);
	if (!r)
		return;
	h = record_hash(r);
	for (e = abtf__hmap_first(m, h); e->val; e = abtf__hmap_next(m, e)) {
		const struct btf_type *c;

		if (e->hash != h)
			continue;
		c = node_type(x->n, e->val);
		if (c->info == r->info && !memcmp(c, r, abtf__record_size(r))) {
			x->map[id] = e->val;
			return;
		}
	}
}

static int resolve_ref(uint32_t *id, void *ctx)
{
	struct { struct exact *x; int depth; } *c = ctx;

	if (*id && *id <= c->x->in->nr_types && c->x->map[*id])
		decide(c->x, *id, c->depth);
	return c->x->err;
}

/* ---- what reaches a forward declaration ---- */

static bool is_fwd_like(const struct btf_type *t)
{
	int kind = BTF_INFO_KIND(t->info);

	return kind == BTF_KIND_FWD ||
	       ((kind == BTF_KIND_ENUM || kind == BTF_KIND_ENUM64) &&
		!BTF_INFO_VLEN(t->info));
}

struct reach {
	const uint8_t *types;
	const uint32_t *off;
	uint32_t nr;
	uint32_t *cnt;		/* CSR: referrers of ID i at rev[cnt[i]..] */
	uint32_t *rev;
	uint32_t (*edge)[2];	/* referrer, referred: one pass over the types */
	size_t nr_edges, cap_edges;
	uint32_t from;		/* the referrer being read */
};

static int reach_edge(uint32_t *id, void *ctx)
{
	struct reach *r = ctx;

	if (!*id || *id > r->nr)
		return 0;
	if (abtf_grow(r->edge, r->cap_edges, r->nr_edges + 1))
		return -ENOMEM;
	r->edge[r->nr_edges][0] = r->from;
	r->edge[r->nr_edges++][1] = *id;
	r->cnt[*id]++;
	return 0;
}

/* The referrers of each type, as CSR in r->cnt and r->rev. */
static int reach_edges(struct reach *r)
{
	uint32_t id, total = 0;
	size_t i;
	int err;

	for (id = 1; id <= r->nr; id++) {
		r->from = id;
		err = abtf__for_each_type_id((struct btf_type *)(r->types + r->off[id]),
					     reach_edge, r);
		if (err)
			return err;
	}
	for (id = 1; id <= r->nr + 1; id++) {	/* counts -> ends */
		total += r->cnt[id];
		r->cnt[id] = total;
	}
	r->rev = malloc(((size_t)total + 1) * sizeof(*r->rev));
	if (!r->rev)
		return -ENOMEM;
	for (i = 0; i < r->nr_edges; i++)	/* ends -> starts */
		r->rev[--r->cnt[r->edge[i][1]]] = r->edge[i][0];
	r->cnt[r->nr + 1] = total;
	return 0;
}

/*
 * @fwd[id] = 1 for every type 1..@nr of @types (records at @off[id])
 * that reaches a FWD, or an enum without values, through one reference
 * or more. Such a type means something only once the root has decided
 * what each FWD stands for (libbpf's walks bind a FWD to whichever struct
 * of its name they meet first, in the order of the whole archive): no
 * step below the root may merge it with another (docs/design.md, "one
 * meaning"). The FWDs themselves are not marked: libbpf merges equal
 * FWDs unconditionally.
 */
int exact__fwd_reach(const uint8_t *types, const uint32_t *off, uint32_t nr,
		     uint8_t *fwd)
{
	struct reach r = { .types = types, .off = off, .nr = nr };
	uint32_t id, i, *queue, head = 0, tail = 0;
	int err;

	memset(fwd, 0, (size_t)nr + 1);
	queue = malloc(((size_t)nr + 1) * sizeof(*queue));
	if (!queue)
		return -ENOMEM;
	for (id = 1; id <= nr; id++)
		if (is_fwd_like((const void *)(types + off[id])))
			queue[tail++] = id;
	if (!tail) {
		free(queue);
		return 0;	/* nothing held back */
	}
	r.cnt = calloc((size_t)nr + 2, sizeof(*r.cnt));
	err = r.cnt ? reach_edges(&r) : -ENOMEM;
	free(r.edge);
	while (!err && head < tail) {
		uint32_t t = queue[head++];

		for (i = r.cnt[t]; i < r.cnt[t + 1]; i++) {
			uint32_t from = r.rev[i];

			if (fwd[from])
				continue;
			fwd[from] = 1;
			if (!is_fwd_like((const void *)(types + off[from])))
				queue[tail++] = from;
		}
	}
	free(r.cnt);
	free(r.rev);
	free(queue);
	return err;
}

/*
 * Map the input types @map marks EXACT_NEW to equal node types where
 * there are some; the rest stay EXACT_NEW. @toff: each input type's
 * record offset. @held[id] (room for every input type) is set for the
 * types that reach a FWD (exact__fwd_reach()): they stay new here, and no
 * later input maps to them either (a type of one meaning with them
 * reaches a FWD of that name too, and is held back in its turn), so
 * exact__add() need not index them.
 */
int exact__map(struct node *n, const struct input *in, uint32_t *map,
	       const uint32_t *toff, uint8_t *held)
{
	struct exact x = { .n = n, .in = in, .map = map, .toff = toff,
			   .end_old = n->next_id };
	size_t cnt = (size_t)in->nr_types + 1;
	uint32_t id;

	/* a child's reach is known from its own merges: the same bits */
	if (in->held)
		memcpy(held, in->held, cnt);
	else
		x.err = exact__fwd_reach(in->types, toff, in->nr_types, held);
	if (x.err || !n->ex.map.cnt)
		return x.err;	/* nothing to match: all new */
	x.state = malloc(cnt * sizeof(*x.state));
	x.hyp = calloc(cnt, sizeof(*x.hyp));
	x.walked = malloc(cnt * sizeof(*x.walked));
	x.widx = malloc(cnt * sizeof(*x.widx));
	if (!x.state || !x.hyp || !x.walked || !x.widx) {
		x.err = -ENOMEM;
		goto out;
	}
	/* what reaches a FWD stays new: the root decides */
	for (id = 1; id < cnt; id++)
		x.state[id] = map[id] && can_map(in_type(&x, id)) && !held[id] ?
			      T_OPEN : T_DONE;
	for (id = 1; id < cnt && !x.err; id++)
		decide(&x, id, 0);
out:
	free(x.state);
	free(x.hyp);
	free(x.walked);
	free(x.widx);
	abtf__hmap_free(&x.failed);
	free(x.rec);
	return x.err;
}
