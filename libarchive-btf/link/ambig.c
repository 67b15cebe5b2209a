// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The names of an archive that may stand for more than one type
 * (docs/design.md, "one meaning").
 *
 * Below the root, a type that reaches a FWD (or an enum without values)
 * may only be merged when what that FWD stands for is settled: libbpf's
 * dedup, over the whole archive, binds a FWD to a struct of its name, and
 * where the archive has two different structs of the name, which one
 * depends on the order of its walks (issue 19). Where every definition of
 * the name in the whole archive means the same, there is nothing to
 * choose: two copies of a type that reach that FWD mean the same wherever
 * they end up, and merging them below the root is what libbpf does with
 * them at the root. So only the FWDs of ambiguous names taint what
 * reaches them (abtf__fwd_reach()).
 *
 * A name is ambiguous when, anywhere in the archive:
 *  - it has two definitions whose signatures differ: the definition's
 *    own records (kind, size, member names, offsets, values) with the
 *    records of the anonymous types it holds and of the types its members
 *    reach through modifiers, pointers, arrays and prototypes, down to the
 *    first named struct, union, enum or typedef, which counts by name
 *    alone;
 *  - it is a struct in one place and a union or an enum in another (FWDs
 *    count), or an enum without values whose size is not its definition's;
 *  - its signature names an ambiguous name (the closure, below);
 *  - its signature could not be made (a chain too long, a kind or an
 *    offset out of range): unknown counts as ambiguous.
 * Two definitions with the same signature, all of whose names mean one
 * thing, mean the same thing: by induction on the depth of a walk, every
 * pair of types libbpf's walk would compare is equal or a FWD and a struct
 * of one unambiguous name, which libbpf takes for equal. A name not seen
 * at all is ambiguous: the answer is only ever "safe to merge" for a name
 * whose every occurrence was read.
 *
 * When. The answer is needed while the leaves merge, and reading every
 * member for it first cost more than the merge itself (2.6 G instructions
 * on the 6.12 test image, the merge 1.75 G). So each leaf merges first
 * with a recorder: every name is taken for one of one meaning, and every
 * name asked is noted (exact.c's FWD pairs; the FWDs of the leaf's result,
 * which has every FWD of its members). The signatures are then made of
 * the leaves' results, a few percent of the archive: merging copies of
 * one type changes no name's set of signatures, for a merge only ever
 * pairs types whose signatures are equal (a FWD and a struct give the
 * same reference). A leaf that asked of a name that turns out ambiguous
 * is merged again from its members, knowing; one that did not made every
 * decision the knowing merge makes, for its answers were all right. In a
 * kernel, nearly no leaf merges again; in the random programs of
 * tests/dedup/, nearly every one.
 *
 * Each leaf's entries are made in parallel and merged in leaf order, which
 * makes the result independent of the number of threads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/btf.h>

#include "link/linker.h"

/* Anonymous types inside a named one, and steps of a chain, at most. */
#define SIG_MAX_DEPTH	32
#define SIG_MAX_CHAIN	64

enum { NS_TAG = 1, NS_TYPEDEF };

/* what an entry says of its name */
enum { E_DEF = 1, E_FWD_STRUCT, E_FWD_UNION, E_ENUM_FWD, E_UNKNOWN };

/* the kinds a tag name was seen as */
enum { K_STRUCT = 1, K_UNION = 2, K_ENUM = 4 };

struct buf {
	uint8_t *p;
	size_t len, cap;
};

/* One leaf's distinct entries: u32 length, then ns, what, name, sig, refs. */
struct leaf_names {
	struct buf e;
	struct abtf_hmap seen;	/* entry hash -> offset + 1 */
};

struct arec {
	uint32_t name;		/* in abtf_ambig.names */
	uint8_t ns, kinds;
	bool amb;
	uint32_t sig, sig_len;	/* the first definition's, in sigs */
	uint32_t refs, refs_len;	/* its references, in refs */
	uint32_t enum_fwd_size;	/* an enum without values: its size */
};

/* A recorder's names asked (abtf__ambig_recorder()). */
struct asked {
	struct strtab names;
	int err;
};

struct abtf_ambig {
	struct asked *asked;	/* a recorder: every name is settled, noted */
	struct buf names, sigs, refs;
	struct arec *recs;
	size_t nr, cap;
	struct abtf_hmap map;	/* name hash -> rec index + 1 */
};

/* ---- byte buffers ---- */

static int buf_put(struct buf *b, const void *p, size_t n)
{
	if (!n)
		return 0;
	if (n > SIZE_MAX - b->len || abtf_grow(b->p, b->cap, b->len + n))
		return -ENOMEM;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

/* ---- one member's signatures ---- */

struct sb {
	const struct input *in;
	const uint32_t *toff;
	struct buf sig, refs;
	bool unknown;
	int err;
};

static void put(struct sb *b, const void *p, size_t n)
{
	if (!b->err)
		b->err = buf_put(&b->sig, p, n);
}

static void put8(struct sb *b, uint8_t v)
{
	put(b, &v, 1);
}

static void put32(struct sb *b, uint32_t v)
{
	put(b, &v, sizeof(v));
}

static const char *str_at(const struct sb *b, uint32_t off)
{
	const char *s = b->in->strs + off;

	if (off >= b->in->str_len ||
	    !memchr(s, 0, b->in->str_len - off))
		return NULL;
	return s;
}

static void put_str(struct sb *b, uint32_t off)
{
	const char *s = str_at(b, off);

	if (!s) {
		b->unknown = true;
		return;
	}
	put(b, s, strlen(s) + 1);
}

/* A reference to a named type: by name alone, listed for the closure. */
static void put_ref(struct sb *b, uint8_t ns, uint8_t kind, uint32_t off)
{
	const char *s = str_at(b, off);

	if (!s || !*s) {
		b->unknown = true;
		return;
	}
	put8(b, 'R');
	put8(b, kind);
	put_str(b, off);
	if (!b->err)
		b->err = buf_put(&b->refs, &ns, 1);
	if (!b->err)
		b->err = buf_put(&b->refs, s, strlen(s) + 1);
}

static const struct btf_type *type_at(const struct sb *b, uint32_t id)
{
	if (!id || id > b->in->nr_types)
		return NULL;
	return (const void *)(b->in->types + b->toff[id]);
}

static void body(struct sb *b, const struct btf_type *t, int depth);

/*
 * Where a chain ends: a named struct, union or enum by its name; an
 * anonymous one, or a prototype, by its whole body.
 */
static void chain_end(struct sb *b, const struct btf_type *t, int depth)
{
	int k = BTF_INFO_KIND(t->info);

	if (t->name_off && k != BTF_KIND_FUNC_PROTO)
		put_ref(b, NS_TAG, k == BTF_KIND_STRUCT ? 'S' :
			k == BTF_KIND_UNION ? 'U' : 'E', t->name_off);
	else if (depth >= SIG_MAX_DEPTH)
		b->unknown = true;
	else
		body(b, t, depth + 1);
}

static void chain(struct sb *b, uint32_t id, int depth)
{
	const struct btf_type *t;
	int steps;

	for (steps = 0; steps < SIG_MAX_CHAIN && !b->unknown; steps++) {
		if (!id) {
			put8(b, 'v');
			return;
		}
		t = type_at(b, id);
		if (!t) {
			b->unknown = true;
			return;
		}
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_INT:
			put8(b, 'i');
			put_str(b, t->name_off);
			put32(b, t->size);
			put32(b, *(const uint32_t *)(t + 1));
			return;
		case BTF_KIND_FLOAT:
			put8(b, 'f');
			put_str(b, t->name_off);
			put32(b, t->size);
			return;
		case BTF_KIND_PTR:
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
			put8(b, BTF_INFO_KIND(t->info));
			break;
		case BTF_KIND_TYPE_TAG:
			put8(b, 'g');
			put_str(b, t->name_off);
			break;
		case BTF_KIND_ARRAY: {
			const struct btf_array *a = (const void *)(t + 1);

			put8(b, 'a');
			put32(b, a->nelems);
			if (depth >= SIG_MAX_DEPTH) {
				b->unknown = true;
				return;
			}
			chain(b, a->index_type, depth + 1);
			id = a->type;
			continue;
		}
		case BTF_KIND_TYPEDEF:
			put_ref(b, NS_TYPEDEF, 'T', t->name_off);
			return;
		case BTF_KIND_FWD:
			put_ref(b, NS_TAG, BTF_INFO_KFLAG(t->info) ? 'U' : 'S',
				t->name_off);
			return;
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
		case BTF_KIND_FUNC_PROTO:
			chain_end(b, t, depth);
			return;
		default:
			b->unknown = true;
			return;
		}
		id = t->type;
	}
	b->unknown = true;
}

/* A struct's, union's, enum's or prototype's own records, members' chains. */
static void body(struct sb *b, const struct btf_type *t, int depth)
{
	uint16_t i, vlen = BTF_INFO_VLEN(t->info);
	int kind = BTF_INFO_KIND(t->info);

	switch (kind) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *m = (const void *)(t + 1);

		put8(b, kind == BTF_KIND_STRUCT ? 'S' : 'U');
		put32(b, t->size);
		put32(b, t->info);
		for (i = 0; i < vlen && !b->unknown; i++) {
			put_str(b, m[i].name_off);
			put32(b, m[i].offset);
			chain(b, m[i].type, depth);
		}
		return;
	}
	case BTF_KIND_ENUM: {
		const struct btf_enum *e = (const void *)(t + 1);

		put8(b, 'E');
		put32(b, t->size);
		put32(b, t->info);
		for (i = 0; i < vlen; i++) {
			put_str(b, e[i].name_off);
			put32(b, (uint32_t)e[i].val);
		}
		return;
	}
	case BTF_KIND_ENUM64: {
		const struct btf_enum64 *e = (const void *)(t + 1);

		put8(b, 'e');
		put32(b, t->size);
		put32(b, t->info);
		for (i = 0; i < vlen; i++) {
			put_str(b, e[i].name_off);
			put32(b, e[i].val_lo32);
			put32(b, e[i].val_hi32);
		}
		return;
	}
	default: {		/* FUNC_PROTO */
		const struct btf_param *p = (const void *)(t + 1);

		put8(b, 'P');
		put32(b, vlen);
		chain(b, t->type, depth);
		for (i = 0; i < vlen && !b->unknown; i++) {
			put_str(b, p[i].name_off);
			chain(b, p[i].type, depth);
		}
		return;
	}
	}
}

/* The entry of a named type @t into @b's buffers; 0: none to make. */
static int make_entry(struct sb *b, const struct btf_type *t, uint8_t *ns,
		      uint8_t *what)
{
	int kind = BTF_INFO_KIND(t->info);

	b->sig.len = b->refs.len = 0;
	b->unknown = false;
	*ns = NS_TAG;
	*what = E_DEF;
	switch (kind) {
	case BTF_KIND_FWD:
		*what = BTF_INFO_KFLAG(t->info) ? E_FWD_UNION : E_FWD_STRUCT;
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (!BTF_INFO_VLEN(t->info)) {
			*what = E_ENUM_FWD;
			put32(b, t->size);
			break;
		}
		body(b, t, 0);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		body(b, t, 0);
		break;
	case BTF_KIND_TYPEDEF:
		*ns = NS_TYPEDEF;
		put8(b, 'T');
		chain(b, t->type, 0);
		break;
	default:
		return 0;
	}
	if (b->unknown)
		*what = E_UNKNOWN;
	return b->err ? b->err : 1;
}

/* Add the entry (name @name) to the leaf's, unless it has it already. */
static int leaf_add(struct leaf_names *ln, struct sb *b, uint8_t ns,
		    uint8_t what, const char *name)
{
	size_t nlen = strlen(name) + 1, start = ln->e.len, len;
	uint32_t h, rlen;
	struct abtf_hent *e;
	uint8_t head[2] = { ns, what };
	uint32_t slen = b->sig.len;
	int err;

	if (abtf__hmap_reserve(&ln->seen, 1024))
		return -ENOMEM;
	rlen = 0;
	err = buf_put(&ln->e, &rlen, 4);
	err = err ?: buf_put(&ln->e, head, 2);
	err = err ?: buf_put(&ln->e, name, nlen);
	err = err ?: buf_put(&ln->e, &slen, 4);
	err = err ?: buf_put(&ln->e, b->sig.p, b->sig.len);
	err = err ?: buf_put(&ln->e, b->refs.p, b->refs.len);
	if (err)
		return err;
	len = ln->e.len - start - 4;
	if (len > UINT32_MAX)
		return -E2BIG;
	rlen = len;
	memcpy(ln->e.p + start, &rlen, 4);
	h = abtf__hash32(ln->e.p + start + 4, len);
	for (e = abtf__hmap_first(&ln->seen, h); e->val;
	     e = abtf__hmap_next(&ln->seen, e)) {
		const uint8_t *o = ln->e.p + e->val - 1;

		if (e->hash == h && !memcmp(o, ln->e.p + start, len + 4)) {
			ln->e.len = start;	/* the leaf has it */
			return 0;
		}
	}
	if (start >= UINT32_MAX)
		return -E2BIG;
	abtf__hmap_fill(&ln->seen, e, h, start + 1);
	return 0;
}

/*
 * Every named type of @in into @ln; each FWD's name (and each value-less
 * enum's) asked of @rec, the recorder the input's leaf merged with: the
 * leaf held back what reaches a FWD only where its name is ambiguous, and
 * its result has every FWD of its members (none is ever dropped).
 */
static int member_names(struct leaf_names *ln, const struct input *in,
			const struct abtf_ambig *rec)
{
	struct sb b = { .in = in };
	uint32_t *toff, id, off = 0;
	int err = 0;

	toff = malloc(((size_t)in->nr_types + 1) * sizeof(*toff));
	if (!toff)
		return -ENOMEM;
	for (id = 1; id <= in->nr_types; id++) {
		toff[id] = off;
		off += abtf__record_size((const void *)(in->types + off));
	}
	b.toff = toff;
	for (id = 1; !err && id <= in->nr_types; id++) {
		const struct btf_type *t = (const void *)(in->types + toff[id]);
		const char *name = t->name_off ? str_at(&b, t->name_off) : NULL;
		uint8_t ns, what;

		if (!name || !*name)
			continue;
		err = make_entry(&b, t, &ns, &what);
		if (err > 0)
			err = leaf_add(ln, &b, ns, what, name);
		if (!err && (what == E_FWD_STRUCT || what == E_FWD_UNION ||
			     what == E_ENUM_FWD))
			abtf__ambig_fwd(rec, name);
	}
	free(b.sig.p);
	free(b.refs.p);
	free(toff);
	return err;
}

struct pass {
	struct node *leaves;
	struct leaf_names *per_leaf;
};

static int names_leaf(struct abtf_linker *l, struct node *n, void *ctx)
{
	struct pass *p = ctx;
	struct leaf_names *ln = &p->per_leaf[n - p->leaves];
	struct input in;
	int err;

	(void)l;
	abtf__child_input(n, &in);
	err = member_names(ln, &in, n->amb);
	abtf__hmap_free(&ln->seen);
	return err;
}

/* ---- the whole archive ---- */

static uint32_t name_hash(uint8_t ns, const char *name)
{
	return abtf__hash32(name, strlen(name)) * 2654435761u + ns;
}

static struct arec *find_rec(const struct abtf_ambig *a, uint8_t ns,
			     const char *name, struct abtf_hent **slot)
{
	uint32_t h = name_hash(ns, name);
	struct abtf_hent *e;

	for (e = abtf__hmap_first(&a->map, h); e->val;
	     e = abtf__hmap_next(&a->map, e)) {
		struct arec *r = &a->recs[e->val - 1];

		if (e->hash == h && r->ns == ns &&
		    !strcmp((const char *)a->names.p + r->name, name))
			return r;
	}
	if (slot)
		*slot = e;
	return NULL;
}

static struct arec *get_rec(struct abtf_ambig *a, uint8_t ns,
			    const char *name)
{
	struct abtf_hent *slot = NULL;
	struct arec *r;

	if (abtf__hmap_reserve(&a->map, 4096))
		return NULL;
	r = find_rec(a, ns, name, &slot);
	if (r)
		return r;
	if (a->names.len > UINT32_MAX - strlen(name) - 1 ||
	    abtf_grow(a->recs, a->cap, a->nr + 1))
		return NULL;
	r = &a->recs[a->nr];
	memset(r, 0, sizeof(*r));
	r->ns = ns;
	r->name = a->names.len;
	if (buf_put(&a->names, name, strlen(name) + 1))
		return NULL;
	abtf__hmap_fill(&a->map, slot, name_hash(ns, name), ++a->nr);
	return r;
}

static uint8_t def_kind(const uint8_t *sig, uint32_t len)
{
	if (!len)
		return 0;
	return sig[0] == 'S' ? K_STRUCT : sig[0] == 'U' ? K_UNION :
	       sig[0] == 'E' || sig[0] == 'e' ? K_ENUM : 0;
}

/* One entry of a leaf (@p, @len bytes after its length) into @a. */
static int add_entry(struct abtf_ambig *a, const uint8_t *p, uint32_t len)
{
	uint8_t ns = p[0], what = p[1];
	const char *name = (const char *)p + 2;
	size_t nlen = strlen(name) + 1;
	const uint8_t *sig = p + 2 + nlen + 4;
	uint32_t slen, size;
	struct arec *r = get_rec(a, ns, name);

	if (!r)
		return -ENOMEM;
	memcpy(&slen, p + 2 + nlen, 4);
	switch (what) {
	case E_FWD_STRUCT:
		r->kinds |= K_STRUCT;
		break;
	case E_FWD_UNION:
		r->kinds |= K_UNION;
		break;
	case E_ENUM_FWD:
		r->kinds |= K_ENUM;
		memcpy(&size, sig, 4);
		if (r->enum_fwd_size && r->enum_fwd_size != size)
			r->amb = true;
		r->enum_fwd_size = size;
		break;
	case E_DEF:
		r->kinds |= def_kind(sig, slen);
		if (r->sig_len) {
			if (r->sig_len != slen ||
			    memcmp(a->sigs.p + r->sig, sig, slen))
				r->amb = true;
			break;
		}
		if (a->sigs.len > UINT32_MAX - slen ||
		    a->refs.len > UINT32_MAX - len)
			return -E2BIG;
		r->sig = a->sigs.len;
		r->sig_len = slen;
		r->refs = a->refs.len;
		r->refs_len = len - (2 + nlen + 4 + slen);
		if (buf_put(&a->sigs, sig, slen) ||
		    buf_put(&a->refs, sig + slen, r->refs_len))
			return -ENOMEM;
		break;
	default:
		r->amb = true;
		break;
	}
	return 0;
}

/* A rec's own contradictions, once every entry is in. */
static bool self_ambiguous(const struct abtf_ambig *a, const struct arec *r)
{
	uint32_t size;

	if (r->amb || (r->kinds & (r->kinds - 1)))
		return true;
	if (r->enum_fwd_size && r->sig_len >= 5 &&
	    def_kind(a->sigs.p + r->sig, 1) == K_ENUM) {
		memcpy(&size, a->sigs.p + r->sig + 1, 4);
		return size != r->enum_fwd_size;
	}
	return false;
}

/*
 * The closure: a name whose signature names an ambiguous name is
 * ambiguous. Reverse edges in CSR form, then a breadth-first walk.
 */
static int close_over_refs(struct abtf_ambig *a)
{
	uint32_t *cnt, *rev, *queue, head = 0, tail = 0, total = 0;
	size_t i, pass;
	int err = -ENOMEM;

	cnt = calloc(a->nr + 2, sizeof(*cnt));
	queue = malloc((a->nr + 1) * sizeof(*queue));
	rev = NULL;
	if (!cnt || !queue)
		goto out;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < a->nr; i++) {
			const struct arec *r = &a->recs[i];
			const uint8_t *p = a->refs.p + r->refs;
			const uint8_t *end = p + r->refs_len;

			while (p < end) {
				const struct arec *q =
					find_rec(a, p[0], (const char *)p + 1, NULL);
				size_t qi = q ? (size_t)(q - a->recs) : a->nr;

				if (pass)
					rev[--cnt[qi + 1]] = i;
				else
					cnt[qi + 1]++;
				p += 2 + strlen((const char *)p + 1);
			}
		}
		if (pass)
			break;
		for (i = 1; i <= a->nr + 1; i++) {
			total += cnt[i];
			cnt[i] = total;
		}
		rev = malloc(((size_t)total + 1) * sizeof(*rev));
		if (!rev)
			goto out;
	}
	/* cnt[qi + 1]: the start of qi's referrers; cnt[qi + 2] its end */
	for (i = 0; i < a->nr; i++) {
		a->recs[i].amb = self_ambiguous(a, &a->recs[i]);
		if (a->recs[i].amb)
			queue[tail++] = i;
	}
	/* a name referred to but never seen (index a->nr): unknown */
	for (i = cnt[a->nr + 1]; i < total; i++) {
		if (!a->recs[rev[i]].amb) {
			a->recs[rev[i]].amb = true;
			queue[tail++] = rev[i];
		}
	}
	while (head < tail) {
		uint32_t q = queue[head++];

		for (i = cnt[q + 1]; i < cnt[q + 2]; i++) {
			if (a->recs[rev[i]].amb)
				continue;
			a->recs[rev[i]].amb = true;
			queue[tail++] = rev[i];
		}
	}
	err = 0;
out:
	free(cnt);
	free(rev);
	free(queue);
	return err;
}

static int merge_leaves(struct abtf_ambig *a, const struct leaf_names *ls,
			size_t nr)
{
	size_t i, off;
	uint32_t len;
	int err = 0;

	for (i = 0; !err && i < nr; i++) {
		for (off = 0; !err && off < ls[i].e.len; off += 4 + len) {
			memcpy(&len, ls[i].e.p + off, 4);
			err = add_entry(a, ls[i].e.p + off + 4, len);
		}
	}
	return err ? err : close_over_refs(a);
}

void abtf__ambig_free(struct abtf_ambig *a)
{
	if (!a)
		return;
	if (a->asked) {
		abtf__strtab_free(&a->asked->names);
		free(a->asked);
	}
	free(a->names.p);
	free(a->sigs.p);
	free(a->refs.p);
	free(a->recs);
	abtf__hmap_free(&a->map);
	free(a);
}

int abtf__ambig_build(struct abtf_linker *l, struct node *leaves, size_t nr,
		      struct abtf_ambig **out)
{
	struct pass p = { .leaves = leaves };
	struct abtf_ambig *a;
	size_t i;
	int err;

	*out = NULL;
	a = calloc(1, sizeof(*a));
	p.per_leaf = calloc(nr ? nr : 1, sizeof(*p.per_leaf));
	err = a && p.per_leaf ? 0 : -ENOMEM;
	if (!err)
		err = abtf__run_level(l, leaves, nr, names_leaf, &p);
	if (!err)
		err = merge_leaves(a, p.per_leaf, nr);
	for (i = 0; p.per_leaf && i < nr; i++) {
		free(p.per_leaf[i].e.p);
		abtf__hmap_free(&p.per_leaf[i].seen);
	}
	free(p.per_leaf);
	if (err) {
		abtf__ambig_free(a);
		return err;
	}
	*out = a;
	return 0;
}

struct abtf_ambig *abtf__ambig_recorder(void)
{
	struct abtf_ambig *a = calloc(1, sizeof(*a));

	if (a)
		a->asked = calloc(1, sizeof(*a->asked));
	if (a && !a->asked) {
		free(a);
		a = NULL;
	}
	return a;
}

bool abtf__ambig_records(const struct abtf_ambig *a)
{
	return a && a->asked;
}

int abtf__ambig_asked(const struct abtf_ambig *rec,
		      const struct abtf_ambig *known)
{
	const struct strtab *st = &rec->asked->names;
	size_t off;

	if (rec->asked->err)
		return rec->asked->err;
	for (off = 0; off < st->len; off += strlen(st->data + off) + 1)
		if (st->data[off] && abtf__ambig_fwd(known, st->data + off))
			return 1;
	return 0;
}

bool abtf__ambig_fwd(const struct abtf_ambig *a, const char *name)
{
	const struct arec *r;
	int64_t ret;

	if (!a || !name || !*name)
		return true;
	if (a->asked) {
		ret = abtf__strtab_add(&a->asked->names, name);
		if (ret < 0 && !a->asked->err)
			a->asked->err = (int)ret;
		return false;
	}
	r = find_rec(a, NS_TAG, name, NULL);
	return !r || r->amb;
}

size_t abtf__ambig_count(const struct abtf_ambig *a, size_t *names)
{
	size_t i, n = 0;

	for (i = 0; a && i < a->nr; i++)
		n += a->recs[i].amb;
	if (names)
		*names = a ? a->nr : 0;
	return n;
}
