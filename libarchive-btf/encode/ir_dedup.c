// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Deduplication of one object's type nodes, before they are written.
 *
 * Why not btf__dedup(). libbpf's deduplication of one object cost a third
 * of the encoder's instructions, and almost none of it went into finding
 * duplicates: one compile unit's DWARF defines each type once, so a kernel
 * object's nodes are ~98 % distinct already. The cost was libbpf's string
 * handling: a hash set built from the string section, a second one built
 * from every string reference, one malloc() per entry, all freed again. We
 * intern our strings once, so we can deduplicate on the nodes themselves.
 *
 * The algorithm: partition refinement (Moore's). Two nodes are equal when
 * their BTF types are the same shape all the way down, cycles through
 * structs included: the coarsest partition of the nodes in which equal
 * nodes agree on everything but their referenced types ("label": kind,
 * kind_flag, name, size, member names and offsets, enumerators, linkage)
 * and refer, position by position, to equal nodes. (A DECL_TAG's
 * component_idx is its size, so part of its label.)
 *
 *  1. Intern every string, node by node in ID order, each node's name
 *     before its members' (the order libbpf's deduplication visits them, so
 *     the string section comes out as libbpf's would).
 *  2. Initial classes: nodes with the same label. A VAR or DATASEC is a
 *     class of its own (libbpf never merges them). An enum declaration
 *     (ENUM, no values) joins the class of the first enum of the same
 *     name, size and signedness that has values (libbpf resolves enum
 *     forwards the same way).
 *  3. Rounds: every node of a class of more than one node gets a
 *     signature: its class and the classes of the nodes it refers to, in
 *     order. Nodes of one class with different signatures are split: the
 *     first one (in ID order) keeps the class number, each other signature
 *     gets a new one. Stop after a round that splits nothing. A node of a
 *     singleton class cannot split, so it is never looked at again; on a
 *     kernel object a few rounds over a few hundred nodes suffice.
 *  4. One node per class survives, the one libbpf's deduplication would
 *     keep: for base types, enums, forwards, structs and unions the first
 *     in ID order (for enums the first with values); for the reference
 *     kinds (pointer, typedef, qualifiers, array, function prototype,
 *     function, type and declaration tags) the first to finish in a depth-first walk of the nodes in
 *     ID order that visits the referenced nodes first, as libbpf's
 *     btf_dedup_ref_types() does.
 *  5. Survivors keep their order and get consecutive type IDs; every other
 *     node takes its survivor's ID.
 *
 * Deterministic: every step runs in node ID order; hash values only speed
 * up lookups. The result is byte for byte what btf__dedup() makes of the
 * same nodes (abtf_encode_testing.libbpf_dedup makes those;
 * tests/dedup-diff.bats and tests/kernel-objects.bats compare the two on
 * fixtures and kernel objects).
 * The one thing libbpf 1.1 does that this does not: merge two structs
 * that are equal except that one refers to a struct's forward declaration
 * where the other refers to its definition. That needs two compile units
 * in one object (an `ld -r` output, never a compiler's), so encoder.c runs
 * btf__dedup() over the result for such objects.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/btf.h>

#include "encode/ir.h"

struct dedup {
	struct ir *ir;
	uint32_t nr;		/* nodes; IDs 1..nr, 0 is void */
	uint32_t *cls;		/* node ID -> class, class 0 is void */
	uint32_t *ncls;		/* classes being made by a round */
	uint32_t *size;		/* class -> number of nodes */
	uint32_t *seen;		/* class -> last round it was seen in */
	uint32_t *rep;		/* class -> surviving node */
	uint32_t *work;		/* nodes of a round */
	struct abtf_hmap table;	/* node IDs by hash of label or signature */
	uint32_t nr_cls;
};

static uint32_t mix(uint32_t h, uint32_t v)
{
	h ^= v;
	h *= 0x9e3779b1u;
	return h ^ h >> 15;
}

/* ---- strings ---- */

static int intern(struct ir *ir, const char *s, uint32_t *off)
{
	int64_t o;

	if (!s || !*s) {
		*off = 0;
		return 0;
	}
	o = abtf__strtab_add(&ir->strs, s);
	if (o < 0)
		return o;
	*off = o;
	return 0;
}

static bool has_named_items(int kind)
{
	switch (kind) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FUNC_PROTO:
		return true;
	default:
		return false;
	}
}

static int intern_all(struct ir *ir)
{
	size_t i;
	uint32_t k;
	int err;

	if (abtf__strtab_add(&ir->strs, "") < 0)
		return -ENOMEM;
	for (i = 0; i < ir->nr_nodes; i++) {
		struct ir_node *n = &ir->nodes[i];
		struct ir_item *it = ir__items(ir, n);

		err = intern(ir, n->name, &n->name_off);
		if (err)
			return err;
		if (!has_named_items(n->kind))
			continue;
		for (k = 0; k < n->nr; k++) {
			err = intern(ir, it[k].name, &it[k].name_off);
			if (err)
				return err;
		}
	}
	return 0;
}

/* ---- what a node refers to ---- */

static uint32_t nr_refs(const struct ir_node *n)
{
	switch (n->kind) {
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_DECL_TAG:
		return 1;
	case BTF_KIND_ARRAY:
		return 2;
	case BTF_KIND_FUNC_PROTO:
		return 1 + n->nr;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
		return n->nr;
	default:
		return 0;
	}
}

/* The @k-th node @n refers to, in libbpf's order; 0 is void. */
static uint32_t ref_at(const struct ir *ir, const struct ir_node *n,
		       uint32_t k)
{
	switch (n->kind) {
	case BTF_KIND_ARRAY:
		return k ? n->first : n->ref;	/* element, then index */
	case BTF_KIND_FUNC_PROTO:
		return k ? ir->items[n->first + k - 1].type : n->ref;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
		return ir->items[n->first + k].type;
	default:
		return n->ref;
	}
}

/* ---- labels: everything but the referenced types ---- */

static bool is_enum_fwd(const struct ir_node *n)
{
	return n->kind == BTF_KIND_ENUM && !n->nr;
}

static uint32_t label_hash(const struct ir *ir, const struct ir_node *n)
{
	const struct ir_item *it = ir__items(ir, n);
	uint32_t h = mix(n->kind, ir__kflag(ir, n)), k;

	h = mix(h, n->name_off);
	h = mix(h, n->size);
	h = mix(h, n->flag);
	if (!has_named_items(n->kind))
		return h;
	h = mix(h, n->nr);
	for (k = 0; k < n->nr; k++) {
		h = mix(h, it[k].name_off);
		h = mix(h, it[k].bit_off);
		h = mix(h, it[k].bit_sz);
		h = mix(h, (uint32_t)it[k].val);
		h = mix(h, (uint32_t)(it[k].val >> 32));
	}
	return h;
}

static bool label_equal(const struct ir *ir, const struct ir_node *a,
			const struct ir_node *b)
{
	const struct ir_item *x = ir__items(ir, a);
	const struct ir_item *y = ir__items(ir, b);
	uint32_t k;

	if (a->kind != b->kind || a->name_off != b->name_off ||
	    a->size != b->size || a->flag != b->flag ||
	    ir__kflag(ir, a) != ir__kflag(ir, b))
		return false;
	if (!has_named_items(a->kind))
		return true;
	if (a->nr != b->nr)
		return false;
	for (k = 0; k < a->nr; k++)
		if (x[k].name_off != y[k].name_off ||
		    x[k].bit_off != y[k].bit_off ||
		    x[k].bit_sz != y[k].bit_sz || x[k].val != y[k].val)
			return false;
	return true;
}

/* ---- the lookup table, over node IDs ---- */

/* Empty, for @nr nodes: dedup_alloc() sized it for all, so it cannot fail. */
static void table_clear(struct dedup *d, uint32_t nr)
{
	abtf__hmap_reset(&d->table, nr);
}

typedef bool (*equal_fn)(const struct dedup *d, uint32_t a, uint32_t b);

/*
 * The first node equal to @id (of hash @h) in the table, or 0; with @add,
 * add @id then.
 */
static uint32_t table_find(struct dedup *d, uint32_t id, uint32_t h,
			   equal_fn eq, bool add)
{
	struct abtf_hent *e;

	for (e = abtf__hmap_first(&d->table, h); e->val;
	     e = abtf__hmap_next(&d->table, e))
		if (e->hash == h && eq(d, id, e->val))
			return e->val;
	if (add)
		abtf__hmap_fill(&d->table, e, h, id);
	return 0;
}

static const struct ir_node *node(const struct dedup *d, uint32_t id)
{
	return &d->ir->nodes[id - 1];
}

static bool node_label_equal(const struct dedup *d, uint32_t a, uint32_t b)
{
	return label_equal(d->ir, node(d, a), node(d, b));
}

/* Name, size and signedness: what libbpf matches an enum declaration by. */
static uint32_t enum_key_hash(const struct ir *ir, const struct ir_node *n)
{
	return mix(mix(mix(0, n->name_off), n->size), ir__kflag(ir, n));
}

static bool enum_key_equal(const struct dedup *d, uint32_t a, uint32_t b)
{
	const struct ir_node *x = node(d, a), *y = node(d, b);

	return x->name_off == y->name_off && x->size == y->size &&
	       ir__kflag(d->ir, x) == ir__kflag(d->ir, y);
}

/* Step 2: classes by label. */
static void label_classes(struct dedup *d)
{
	uint32_t id, o;

	table_clear(d, d->nr);
	for (id = 1; id <= d->nr; id++) {
		const struct ir_node *n = node(d, id);

		if (n->kind == BTF_KIND_VAR || n->kind == BTF_KIND_DATASEC) {
			d->cls[id] = ++d->nr_cls;
			continue;
		}
		o = table_find(d, id, label_hash(d->ir, n), node_label_equal,
			       true);
		d->cls[id] = o ? d->cls[o] : ++d->nr_cls;
	}
}

/* Step 2, enum declarations: into the first compatible enum's class. */
static void resolve_enum_fwds(struct dedup *d)
{
	uint32_t id, o;

	table_clear(d, d->nr);
	for (id = 1; id <= d->nr; id++) {
		const struct ir_node *n = node(d, id);

		if (n->kind != BTF_KIND_ENUM || !n->nr)
			continue;
		table_find(d, id, enum_key_hash(d->ir, n), enum_key_equal,
			   true);
	}
	for (id = 1; id <= d->nr; id++) {
		if (!is_enum_fwd(node(d, id)))
			continue;
		o = table_find(d, id, enum_key_hash(d->ir, node(d, id)),
			       enum_key_equal, false);
		if (o)
			d->cls[id] = d->cls[o];
	}
}

/* ---- step 3: rounds ---- */

static uint32_t sig_hash(const struct dedup *d, uint32_t id)
{
	const struct ir_node *n = node(d, id);
	uint32_t h = d->cls[id], k, nr = nr_refs(n);

	for (k = 0; k < nr; k++)
		h = mix(h, d->cls[ref_at(d->ir, n, k)]);
	return h;
}

static bool sig_equal(const struct dedup *d, uint32_t a, uint32_t b)
{
	const struct ir_node *x = node(d, a), *y = node(d, b);
	uint32_t k, nr = nr_refs(x);

	if (d->cls[a] != d->cls[b])
		return false;
	for (k = 0; k < nr; k++)
		if (d->cls[ref_at(d->ir, x, k)] != d->cls[ref_at(d->ir, y, k)])
			return false;
	return true;
}

/* The nodes of classes of more than one node, in ID order. */
static uint32_t gather_work(struct dedup *d)
{
	uint32_t id, nr = 0;

	memset(d->size, 0, (d->nr_cls + 1) * sizeof(*d->size));
	for (id = 1; id <= d->nr; id++)
		d->size[d->cls[id]]++;
	for (id = 1; id <= d->nr; id++)
		if (d->size[d->cls[id]] > 1)
			d->work[nr++] = id;
	return nr;
}

/* One round; returns whether a class was split. */
static bool split_round(struct dedup *d, uint32_t nr_work, uint32_t round)
{
	uint32_t i, o;
	bool split = false;

	table_clear(d, nr_work);
	for (i = 0; i < nr_work; i++) {
		uint32_t id = d->work[i], c = d->cls[id];

		o = table_find(d, id, sig_hash(d, id), sig_equal, true);
		if (o) {
			d->ncls[id] = d->ncls[o];
		} else if (d->seen[c] != round) {
			d->seen[c] = round;	/* the first keeps the class */
			d->ncls[id] = c;
		} else {
			d->ncls[id] = ++d->nr_cls;
			split = true;
		}
	}
	for (i = 0; i < nr_work; i++)
		d->cls[d->work[i]] = d->ncls[d->work[i]];
	return split;
}

static void refine(struct dedup *d)
{
	uint32_t round = 0, nr_work;

	do {
		nr_work = gather_work(d);
	} while (nr_work && split_round(d, nr_work, ++round));
}

/* ---- steps 4 and 5: the survivors ---- */

static bool is_ref_kind(int kind)
{
	switch (kind) {
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_ARRAY:
	case BTF_KIND_FUNC_PROTO:
	case BTF_KIND_FUNC:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_DECL_TAG:
		return true;
	default:
		return false;
	}
}

/* libbpf's btf_dedup_ref_type() order: what a node refers to, first. */
static void pick_ref(struct dedup *d, uint32_t id)
{
	const struct ir_node *n;
	uint32_t k;

	if (!id || d->ncls[id])
		return;
	n = node(d, id);
	if (!is_ref_kind(n->kind))
		return;
	d->ncls[id] = 1;	/* visited */
	for (k = 0; k < nr_refs(n); k++)
		pick_ref(d, ref_at(d->ir, n, k));
	if (!d->rep[d->cls[id]])
		d->rep[d->cls[id]] = id;
}

static void pick_survivors(struct dedup *d)
{
	uint32_t id;

	for (id = 1; id <= d->nr; id++) {
		const struct ir_node *n = node(d, id);

		if (!is_ref_kind(n->kind) && !is_enum_fwd(n) &&
		    !d->rep[d->cls[id]])
			d->rep[d->cls[id]] = id;
	}
	for (id = 1; id <= d->nr; id++)
		if (is_enum_fwd(node(d, id)) && !d->rep[d->cls[id]])
			d->rep[d->cls[id]] = id;
	memset(d->ncls, 0, (d->nr + 1) * sizeof(*d->ncls));
	for (id = 1; id <= d->nr; id++)
		pick_ref(d, id);
}

static void number_survivors(struct dedup *d)
{
	struct ir *ir = d->ir;
	uint32_t id;

	ir->nr_out = 0;
	ir->out[0] = 0;
	for (id = 1; id <= d->nr; id++) {
		if (d->rep[d->cls[id]] != id)
			continue;
		ir->kept[ir->nr_out] = id;
		ir->out[id] = ++ir->nr_out;
	}
	for (id = 1; id <= d->nr; id++)
		ir->out[id] = ir->out[d->rep[d->cls[id]]];
}

static void dedup_free(struct dedup *d)
{
	free(d->cls);
	free(d->ncls);
	free(d->size);
	free(d->seen);
	free(d->rep);
	free(d->work);
	abtf__hmap_free(&d->table);
}

static int dedup_alloc(struct dedup *d)
{
	/* class numbers: at most one per node, plus one per split */
	size_t nr_cls = 2 * (size_t)d->nr + 2;

	d->cls = calloc(d->nr + 1, sizeof(*d->cls));
	d->ncls = calloc(d->nr + 1, sizeof(*d->ncls));
	d->work = calloc(d->nr + 1, sizeof(*d->work));
	d->size = calloc(nr_cls, sizeof(*d->size));
	d->seen = calloc(nr_cls, sizeof(*d->seen));
	d->rep = calloc(nr_cls, sizeof(*d->rep));
	d->ir->out = calloc(d->nr + 1, sizeof(*d->ir->out));
	d->ir->kept = calloc(d->nr + 1, sizeof(*d->ir->kept));
	if (!d->cls || !d->ncls || !d->work || !d->size || !d->seen ||
	    !d->rep || !d->ir->out || !d->ir->kept ||
	    abtf__hmap_reset(&d->table, d->nr))
		return -ENOMEM;
	return 0;
}

/* Every node its own class: the survivors are all the nodes, in order. */
static void keep_all(struct dedup *d)
{
	uint32_t id;

	for (id = 1; id <= d->nr; id++) {
		d->ir->kept[id - 1] = id;
		d->ir->out[id] = id;
	}
	d->ir->nr_out = d->nr;
}

static int dedup_run(struct ir *ir, bool none)
{
	struct dedup d = { .ir = ir, .nr = ir->nr_nodes };
	int err;

	if (ir->nr_nodes >= UINT32_MAX / 4)
		return -E2BIG;
	err = intern_all(ir);
	if (!err)
		err = dedup_alloc(&d);
	if (!err && none) {
		keep_all(&d);
	} else if (!err) {
		label_classes(&d);
		resolve_enum_fwds(&d);
		refine(&d);
		pick_survivors(&d);
		number_survivors(&d);
	}
	dedup_free(&d);
	return err;
}

int ir_dedup__run(struct ir *ir)
{
	return dedup_run(ir, false);
}

/*
 * No deduplication: every node survives, in order (abtf_encode_testing's
 * libbpf_dedup, for the tests that hold ir_dedup__run() to btf__dedup()).
 */
int ir_dedup__none(struct ir *ir)
{
	return dedup_run(ir, true);
}
