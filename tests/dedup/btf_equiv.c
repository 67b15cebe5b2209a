// SPDX-License-Identifier: GPL-2.0-only
/*
 * BTF equivalence by meaning, for the tests of the deduplication
 * (tests/dedup/oracle.c, tests/unit/dedup-table.c).
 *
 * Two types are the same when they are of one kind, name, size, encoding,
 * member names and offsets, values, linkage and component index, and the
 * types they refer to are the same, in order: the largest such relation
 * (a bisimulation), computed by refinement over all the BTFs added. Start
 * from classes of the local facts, then split every class by the classes
 * its references are in, until no class splits. Type IDs, order and
 * string offsets never count. A FWD is its own kind: a pointer to FWD s
 * and a pointer to struct s differ. Each BTF then has a set of classes;
 * two BTFs describe the same types when their sets are equal.
 * Multiplicity (libbpf keeps two copies of a type it could not prove
 * equal, in an order of its hash table) is reported when asked, never
 * counted as a difference.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "btf_equiv.h"


struct tnode {
	int btf;		/* index in struct btf_equiv's btfs */
	uint32_t id;		/* type ID there */
	uint32_t nr_refs;
	uint32_t refs_at;	/* in universe's refs: node indices */
};

struct btf_equiv {
	const struct btf *btfs[BTF_EQUIV_MAX];
	uint32_t first[BTF_EQUIV_MAX];	/* node index of each BTF's type 1 */
	int base_of[BTF_EQUIV_MAX];		/* the BTF's base, or -1 */
	int nr_btfs;
	struct tnode *nodes;		/* node 0: void */
	uint32_t nr_nodes;
	uint32_t *refs;
	size_t nr_refs, cap_refs;
	uint32_t *cls;			/* node -> class */
	uint32_t nr_cls;
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "btf_equiv: out of memory\n");
		exit(2);
	}
	return p;
}

/* ---- a table of word strings: signature -> class ---- */

struct sigtab {
	uint32_t *words;		/* all signatures, each [len, ...] */
	size_t nr_words, cap_words;
	uint32_t *slot_at;		/* slot -> offset in words + 1; 0 empty */
	uint32_t *slot_cls;
	size_t cap;			/* power of two */
	uint32_t nr;
};

static uint64_t sig_hash(const uint32_t *w, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	uint32_t i;

	for (i = 0; i < n; i++) {
		h ^= w[i];
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

static void sigtab_init(struct sigtab *t, size_t hint)
{
	memset(t, 0, sizeof(*t));
	for (t->cap = 64; t->cap < hint * 2; t->cap *= 2)
		;
	t->slot_at = calloc(t->cap, sizeof(*t->slot_at));
	t->slot_cls = calloc(t->cap, sizeof(*t->slot_cls));
	if (!t->slot_at || !t->slot_cls) {
		fprintf(stderr, "btf_equiv: out of memory\n");
		exit(2);
	}
}

static void sigtab_free(struct sigtab *t)
{
	free(t->words);
	free(t->slot_at);
	free(t->slot_cls);
}

/* The class of signature @w (@n words), new ones numbered in order. */
static uint32_t sigtab_class(struct sigtab *t, const uint32_t *w, uint32_t n)
{
	size_t i = sig_hash(w, n) & (t->cap - 1);

	while (t->slot_at[i]) {
		const uint32_t *s = t->words + t->slot_at[i] - 1;

		if (s[0] == n && !memcmp(s + 1, w, n * sizeof(*w)))
			return t->slot_cls[i];
		i = (i + 1) & (t->cap - 1);
	}
	if (t->nr_words + n + 1 > t->cap_words) {
		t->cap_words = (t->nr_words + n + 1) * 2;
		t->words = xrealloc(t->words, t->cap_words * sizeof(*t->words));
	}
	t->slot_at[i] = t->nr_words + 1;
	t->slot_cls[i] = t->nr++;
	t->words[t->nr_words++] = n;
	memcpy(t->words + t->nr_words, w, n * sizeof(*w));
	t->nr_words += n;
	return t->slot_cls[i];
}

/* ---- the nodes: every type of every BTF, with its references ---- */

/* The first type ID of BTF @b's own types: 1, or its base's count. */
static uint32_t start_id(const struct btf_equiv *u, int b)
{
	return u->base_of[b] < 0 ? 1 : btf__type_cnt(u->btfs[u->base_of[b]]);
}

static void add_ref(struct btf_equiv *u, int b, uint32_t id)
{
	uint32_t node, start = start_id(u, b);

	if (!id)
		node = 0;
	else if (id < start)	/* the base's */
		node = u->first[u->base_of[b]] + id - 1;
	else
		node = u->first[b] + id - start;
	if (u->nr_refs == u->cap_refs) {
		u->cap_refs = u->cap_refs ? u->cap_refs * 2 : 1024;
		u->refs = xrealloc(u->refs, u->cap_refs * sizeof(*u->refs));
	}
	u->refs[u->nr_refs++] = node;
}

static void collect_refs(struct btf_equiv *u, int b, const struct btf_type *t)
{
	uint16_t i, vlen = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC:
	case BTF_KIND_VAR: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		add_ref(u, b, t->type);
		break;
	case BTF_KIND_ARRAY:
		add_ref(u, b, btf_array(t)->type);
		add_ref(u, b, btf_array(t)->index_type);
		break;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		for (i = 0; i < vlen; i++)
			add_ref(u, b, btf_members(t)[i].type);
		break;
	case BTF_KIND_FUNC_PROTO:
		add_ref(u, b, t->type);
		for (i = 0; i < vlen; i++)
			add_ref(u, b, btf_params(t)[i].type);
		break;
	case BTF_KIND_DATASEC:
		for (i = 0; i < vlen; i++)
			add_ref(u, b, btf_var_secinfos(t)[i].type);
		break;
	default:
		break;
	}
}

/* The BTF's own types become nodes; a split BTF's base must come first. */
int btf_equiv__add(struct btf_equiv *u, const struct btf *btf, int base)
{
	uint32_t id, end = btf__type_cnt(btf);
	int b;

	if (u->nr_btfs == BTF_EQUIV_MAX || u->cls)
		return -1;
	b = u->nr_btfs++;

	u->btfs[b] = btf;
	u->base_of[b] = base;
	id = start_id(u, b);
	u->first[b] = u->nr_nodes;
	u->nodes = xrealloc(u->nodes, (u->nr_nodes + end - id) *
			    sizeof(*u->nodes));
	for (; id < end; id++) {
		struct tnode *n = &u->nodes[u->nr_nodes++];

		n->btf = b;
		n->id = id;
		n->refs_at = u->nr_refs;
		collect_refs(u, b, btf__type_by_id(btf, id));
		n->nr_refs = u->nr_refs - n->refs_at;
	}
	return b;
}

/* ---- local facts: the first signature of a type ---- */

struct words {
	uint32_t *w;
	uint32_t n, cap;
};

static void put(struct words *s, uint32_t v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->w = xrealloc(s->w, s->cap * sizeof(*s->w));
	}
	s->w[s->n++] = v;
}

/* A string as words: its length, then its bytes four at a time. */
static void put_str(struct words *s, const char *str)
{
	size_t len = strlen(str), i;

	put(s, (uint32_t)len);
	for (i = 0; i < len; i += 4) {
		uint32_t v = 0;

		memcpy(&v, str + i, len - i < 4 ? len - i : 4);
		put(s, v);
	}
}

static void local_facts(struct words *s, const struct btf *btf,
			const struct btf_type *t)
{
	uint16_t i, vlen = btf_vlen(t);
	int kind = btf_kind(t);

	put(s, kind);
	put(s, t->info & ~0xffffu);	/* kind and kflag */
	put(s, vlen);
	put_str(s, btf__name_by_offset(btf, t->name_off));
	switch (kind) {
	case BTF_KIND_INT:
		put(s, t->size);
		put(s, *(const uint32_t *)(t + 1));
		break;
	case BTF_KIND_FLOAT:
		put(s, t->size);
		break;
	case BTF_KIND_ARRAY:
		put(s, btf_array(t)->nelems);
		break;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		put(s, t->size);
		for (i = 0; i < vlen; i++) {
			put_str(s, btf__name_by_offset(btf,
						       btf_members(t)[i].name_off));
			put(s, btf_members(t)[i].offset);
		}
		break;
	case BTF_KIND_ENUM:
		put(s, t->size);
		for (i = 0; i < vlen; i++) {
			put_str(s, btf__name_by_offset(btf,
						       btf_enum(t)[i].name_off));
			put(s, (uint32_t)btf_enum(t)[i].val);
		}
		break;
	case BTF_KIND_ENUM64:
		put(s, t->size);
		for (i = 0; i < vlen; i++) {
			put_str(s, btf__name_by_offset(btf,
						       btf_enum64(t)[i].name_off));
			put(s, btf_enum64(t)[i].val_lo32);
			put(s, btf_enum64(t)[i].val_hi32);
		}
		break;
	case BTF_KIND_FUNC_PROTO:
		for (i = 0; i < vlen; i++)
			put_str(s, btf__name_by_offset(btf,
						       btf_params(t)[i].name_off));
		break;
	case BTF_KIND_VAR:
		put(s, btf_var(t)->linkage);
		break;
	case BTF_KIND_DATASEC:
		put(s, t->size);
		for (i = 0; i < vlen; i++) {
			put(s, btf_var_secinfos(t)[i].offset);
			put(s, btf_var_secinfos(t)[i].size);
		}
		break;
	case BTF_KIND_DECL_TAG:
		put(s, (uint32_t)btf_decl_tag(t)->component_idx);
		break;
	default:
		break;
	}
}

/* ---- refinement ---- */

void btf_equiv__refine(struct btf_equiv *u)
{
	struct words s = { 0 };
	uint32_t *next = xrealloc(NULL, u->nr_nodes * sizeof(*next));
	struct sigtab tab;
	uint32_t i, r, prev = 0;

	u->cls = xrealloc(NULL, u->nr_nodes * sizeof(*u->cls));
	sigtab_init(&tab, u->nr_nodes);
	u->cls[0] = sigtab_class(&tab, (uint32_t[]){ 0xffffffff }, 1);
	for (i = 1; i < u->nr_nodes; i++) {
		const struct btf *btf = u->btfs[u->nodes[i].btf];

		s.n = 0;
		local_facts(&s, btf, btf__type_by_id(btf, u->nodes[i].id));
		u->cls[i] = sigtab_class(&tab, s.w, s.n);
	}
	u->nr_cls = tab.nr;
	sigtab_free(&tab);
	/* split by the references' classes until no class splits */
	while (u->nr_cls != prev) {
		prev = u->nr_cls;
		sigtab_init(&tab, u->nr_nodes);
		for (i = 0; i < u->nr_nodes; i++) {
			const struct tnode *n = &u->nodes[i];

			s.n = 0;
			put(&s, u->cls[i]);
			for (r = 0; r < n->nr_refs; r++)
				put(&s, u->cls[u->refs[n->refs_at + r]]);
			next[i] = sigtab_class(&tab, s.w, s.n);
		}
		memcpy(u->cls, next, u->nr_nodes * sizeof(*next));
		u->nr_cls = tab.nr;
		sigtab_free(&tab);
	}
	free(next);
	free(s.w);
}

/* ---- comparing two BTFs' sets of classes ---- */

static bool excluded_root(const struct btf *btf, const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_FUNC_PROTO:
		return true;
	case BTF_KIND_DECL_TAG:
		return excluded_root(btf, btf__type_by_id(btf, t->type));
	default:
		return false;
	}
}

/*
 * Count, per class, the nodes of BTF @b (its own types); with
 * @types_only, only what is reachable from a type that is not a function,
 * variable or section (see the essay).
 */
static void count_classes(const struct btf_equiv *u, int b, bool types_only,
			  uint32_t *cnt)
{
	uint32_t first = u->first[b], end = first, i, r, top = 0;
	uint32_t *stack;
	uint8_t *seen;

	while (end < u->nr_nodes && u->nodes[end].btf == b)
		end++;
	if (!types_only) {
		for (i = first; i < end; i++)
			cnt[u->cls[i]]++;
		return;
	}
	stack = xrealloc(NULL, (u->nr_nodes + 1) * sizeof(*stack));
	seen = calloc(u->nr_nodes, 1);
	for (i = first; i < end; i++) {
		const struct btf *btf = u->btfs[b];

		if (excluded_root(btf, btf__type_by_id(btf, u->nodes[i].id)))
			continue;
		seen[i] = 1;
		stack[top++] = i;
	}
	while (top) {
		const struct tnode *n = &u->nodes[stack[--top]];

		for (r = 0; r < n->nr_refs; r++) {
			uint32_t to = u->refs[n->refs_at + r];

			if (to >= first && to < end && !seen[to]) {
				seen[to] = 1;
				stack[top++] = to;
			}
		}
	}
	for (i = first; i < end; i++)
		if (seen[i])
			cnt[u->cls[i]]++;
	free(stack);
	free(seen);
}

static const char *kind_name(int kind)
{
	static const char *const names[] = {
		"void", "int", "ptr", "array", "struct", "union", "enum",
		"fwd", "typedef", "volatile", "const", "restrict", "func",
		"func_proto", "var", "datasec", "float", "decl_tag",
		"type_tag", "enum64",
	};

	return kind >= 0 && kind < (int)(sizeof(names) / sizeof(*names)) ?
	       names[kind] : "?";
}

/* One line describing node @i: its kind, name and what it refers to. */
static void describe(const struct btf_equiv *u, uint32_t i, FILE *f)
{
	const struct tnode *n = &u->nodes[i];
	const struct btf *btf = u->btfs[n->btf];
	const struct btf_type *t = btf__type_by_id(btf, n->id);
	uint32_t r;

	fprintf(f, "%s '%s' (id %u", kind_name(btf_kind(t)),
		btf__name_by_offset(btf, t->name_off), n->id);
	if (btf_kind(t) == BTF_KIND_STRUCT || btf_kind(t) == BTF_KIND_UNION)
		fprintf(f, ", size %u", t->size);
	fputs(")", f);
	for (r = 0; r < n->nr_refs && r < 8; r++) {
		uint32_t to = u->refs[n->refs_at + r];
		const struct tnode *m = &u->nodes[to];
		const struct btf_type *tt;

		if (!to) {
			fputs(r ? ", void" : " -> void", f);
			continue;
		}
		tt = btf__type_by_id(u->btfs[m->btf], m->id);
		fprintf(f, "%s%s '%s'", r ? ", " : " -> ",
			kind_name(btf_kind(tt)),
			btf__name_by_offset(u->btfs[m->btf], tt->name_off));
	}
	if (n->nr_refs > 8)
		fputs(", ...", f);
}

/* A node of BTF @b in class @c, for describing it. */
static uint32_t node_of(const struct btf_equiv *u, int b, uint32_t c)
{
	uint32_t i;

	for (i = 1; i < u->nr_nodes; i++)
		if (u->nodes[i].btf == b && u->cls[i] == c)
			return i;
	return 0;
}

/* Lines for the classes only one of @a and @b has; their number. */
int btf_equiv__diff(const struct btf_equiv *u, int a, int b, bool types_only,
		    bool verbose, const char *what, const char *na,
		    const char *nb)
{
	return btf_equiv__diff_to(u, a, b, types_only, verbose, what, na, nb,
				  stdout);
}

int btf_equiv__diff_to(const struct btf_equiv *u, int a, int b,
		       bool types_only, bool verbose, const char *what,
		       const char *na, const char *nb, FILE *out)
{
	uint32_t *ca = calloc(u->nr_cls, sizeof(*ca));
	uint32_t *cb = calloc(u->nr_cls, sizeof(*cb));
	uint32_t c;
	int diffs = 0;

	if (!ca || !cb) {
		fprintf(stderr, "btf_equiv: out of memory\n");
		exit(2);
	}
	count_classes(u, a, types_only, ca);
	count_classes(u, b, types_only, cb);
	for (c = 0; c < u->nr_cls; c++) {
		if (!ca[c] == !cb[c]) {
			if (verbose && ca[c] != cb[c]) {
				fprintf(out, "%s: %u in %s, %u in %s: ", what, ca[c],
				       na, cb[c], nb);
				describe(u, node_of(u, a, c), out);
				fputc('\n', out);
			}
			continue;
		}
		diffs++;
		fprintf(out, "%s: only in %s: ", what, ca[c] ? na : nb);
		describe(u, node_of(u, ca[c] ? a : b, c), out);
		fputc('\n', out);
	}
	free(ca);
	free(cb);
	return diffs;
}


struct btf_equiv *btf_equiv__new(void)
{
	struct btf_equiv *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->nr_nodes = 1;	/* node 0: void */
	u->nodes = calloc(1, sizeof(*u->nodes));
	if (!u->nodes) {
		free(u);
		return NULL;
	}
	return u;
}

uint32_t btf_equiv__nr_types(const struct btf_equiv *u)
{
	return u->nr_nodes;
}

uint32_t btf_equiv__nr_classes(const struct btf_equiv *u)
{
	return u->nr_cls;
}

void btf_equiv__free(struct btf_equiv *u)
{
	if (!u)
		return;
	free(u->nodes);
	free(u->refs);
	free(u->cls);
	free(u);
}
