// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Semantic BTF comparison: do two BTFs describe the same C program?
 *
 * Type IDs and type order say nothing about meaning (two encoders, or one
 * encoder before and after dedup, number the same types differently), so
 * the comparison never compares IDs. Instead each BTF is turned into a list
 * of "items", each a (key, description) pair of strings, and the two lists
 * are compared as multisets per key.
 *
 * Rendering. Every type reference is rendered as a C-like type expression,
 * recursively, and memoised per type ID (per side), so each type is
 * rendered once however often it is referenced:
 *
 *  - a named struct, union, enum or fwd by kind and name only ("struct foo";
 *    a fwd renders like the type it declares), a typedef, int or float by
 *    its name: the recursion stops at every name, so cycles through named
 *    types need no care and the work is linear in the size of the BTF;
 *  - an anonymous struct, union or enum inline with its whole layout,
 *    "struct (size 8) {x int @0, y int @32}";
 *  - pointers, arrays, function prototypes and qualifiers structurally, as
 *    C abstract declarators: "int *const", "const volatile int [4]",
 *    "int (*)(int a, char)", "void (*[2])(void)". A rendering is kept as the
 *    two halves of a declarator (left and right of where a name would go),
 *    which is how C composes them;
 *  - the ARRAY index type is ignored;
 *  - a run of CONST/VOLATILE/RESTRICT is a set, rendered in a fixed order
 *    whatever order it was encoded in, and qualifiers on an array are moved
 *    to its element type, as C defines them: GCC emits both orders and
 *    both placements.
 *
 * Items, by key (the description after the colon):
 *
 *   int NAME            size N bits B [offset O] signed|char|bool|unsigned
 *   float NAME          size N
 *   struct/union NAME   size N {NAME TYPE @BITOFF[:BITFIELD], ...}
 *   enum NAME           size N signed|unsigned {NAME = VALUE, ...}
 *   enum (anon: FIRST)  the same, for an anonymous top-level enum, keyed by
 *                       its first enumerator ("enum (anon)" if it has none)
 *   fwd struct NAME     (no description), or fwd union NAME
 *   typedef NAME        TYPE
 *   func NAME           LINKAGE DECLARATION, e.g. "static int f(int a, ...)"
 *   var NAME            LINKAGE DECLARATION
 *   datasec NAME        size N {VAR @OFFSET size SIZE, ...} by offset
 *   decl_tag VALUE      TYPE [#COMPONENT]
 *
 * ENUM and ENUM64 render alike. Other anonymous types are compared only
 * through what refers to them. The INT "__ARRAY_SIZE_TYPE__" that pahole
 * adds as the array index type of a unit without "int" is ignored, and a
 * side that has it may lack "int int" without a difference. For split BTF
 * only the split part's own types make items; references into the base are
 * rendered like any other.
 *
 * Differences. Both lists are sorted by (key, description) and walked
 * together; within a key, descriptions present on both sides cancel one for
 * one. What is left is reported, one line each:
 *
 *   "~ KEY: a: DESC | b: DESC"   one description left on each side;
 *   "~ KEY: array shape: a: DESC | b: DESC"
 *                                the same, where the two differ only in
 *                                the shape of arrays: one side's "[6]"
 *                                the other's "[2][3]" (pahole before 1.32
 *                                or --flat_arrays, against 1.32), always
 *                                the same side flat;
 *   "- KEY: DESC"                otherwise, each left only in a,
 *   "+ KEY: DESC"                then each left only in b.
 *
 * The output is therefore sorted by key, byte for byte the same every run,
 * and the number of lines is the return value. Cost: O(total rendered
 * length + n log n) for n types.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "util/internal.h"

/* Deeper than any real C type; bounds the recursion on hostile input. */
#define MAX_DEPTH	1024

#define Q_CONST		1u
#define Q_VOLATILE	2u
#define Q_RESTRICT	4u

/* ---- per-side state ---- */

/*
 * A type as a C abstract declarator: left + right, a name going between.
 * @postfix: the outermost declarator is an array or a function (a pointer
 * to it needs parentheses); @ptr: it is a pointer (qualifiers go after it).
 */
struct rend {
	char *left;
	char *right;
	bool postfix;
	bool ptr;
};

enum { R_NONE, R_BUSY, R_DONE };

struct item {
	char *key;
	char *desc;
};

struct side {
	const struct btf *btf;
	uint32_t nr_types;	/* btf__type_cnt(), base included */
	uint32_t start_id;	/* first type of this BTF (after its base) */
	struct rend *memo;	/* per type ID */
	uint8_t *state;		/* R_* per type ID */
	unsigned int depth;
	struct item *items;
	size_t nr_items, cap_items;
	bool has_array_size_type;
};

struct cmp_ctx {
	struct abtf_compare_opts opts;
	struct side side[2];
	int count;
};

static const char *tname(const struct side *s, uint32_t name_off)
{
	const char *n = btf__name_by_offset(s->btf, name_off);

	return n ? n : "";
}

static int get_type(const struct side *s, uint32_t id,
		    const struct btf_type **t)
{
	if (id >= s->nr_types)
		return -EINVAL;
	*t = id ? btf__type_by_id(s->btf, id) : NULL;
	return id && !*t ? -EINVAL : 0;
}

static bool is_cvr(const struct btf_type *t)
{
	int k = btf_kind(t);

	return k == BTF_KIND_CONST || k == BTF_KIND_VOLATILE ||
	       k == BTF_KIND_RESTRICT;
}

static unsigned int cvr_bit(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_CONST:
		return Q_CONST;
	case BTF_KIND_VOLATILE:
		return Q_VOLATILE;
	default:
		return Q_RESTRICT;
	}
}

/* C needs a space between a word and what follows; not after '*' or '('. */
static bool needs_sep(const char *s)
{
	size_t n = strlen(s);

	return n && s[n - 1] != '*' && s[n - 1] != '(';
}

static void rend_free(struct rend *r)
{
	free(r->left);
	free(r->right);
	r->left = r->right = NULL;
}

/* "left name right", or the abstract declarator without a name. */
static void sb_decl(struct sbuf *sb, const struct rend *r, const char *name)
{
	abtf__sb_add(sb, r->left);
	if (*name || *r->right) {
		if (needs_sep(r->left))
			abtf__sb_add(sb, " ");
		abtf__sb_add(sb, name);
	}
	abtf__sb_add(sb, r->right);
}

static int rend_set(struct rend *out, struct sbuf *l, struct sbuf *r,
		    bool postfix, bool ptr)
{
	int err, err2;

	err = abtf__sb_take(l, &out->left);
	err2 = abtf__sb_take(r, &out->right);
	if (err || err2) {
		rend_free(out);
		return err ? err : err2;
	}
	out->postfix = postfix;
	out->ptr = ptr;
	return 0;
}

static void sb_quals(struct sbuf *sb, unsigned int q)
{
	static const char *const words[] = { "const", "volatile", "restrict" };
	const char *sep = "";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(words); i++) {
		if (!(q & (1u << i)))
			continue;
		abtf__sb_addf(sb, "%s%s", sep, words[i]);
		sep = " ";
	}
}

static int render(struct side *s, uint32_t id, const struct rend **out);
static int build(struct side *s, uint32_t id, unsigned int quals,
		 struct rend *out);

/* ---- layouts: the part of a struct, union or enum after its name ---- */

/* A member's bit offset and bitfield size, whichever way encoded. */
static void member_bits(const struct side *s, const struct btf_type *t,
			uint32_t i, uint32_t *off, uint32_t *bits)
{
	const struct btf_member *m = btf_members(t) + i;
	const struct btf_type *mt;
	uint32_t enc;

	*off = btf_member_bit_offset(t, i);
	*bits = btf_member_bitfield_size(t, i);
	if (btf_kflag(t) || get_type(s, m->type, &mt) || !mt || !btf_is_int(mt))
		return;
	/* Without kflag a bitfield is an INT narrower than its size. */
	enc = *(const uint32_t *)(mt + 1);
	if (BTF_INT_OFFSET(enc) || BTF_INT_BITS(enc) != mt->size * 8) {
		*off += BTF_INT_OFFSET(enc);
		*bits = BTF_INT_BITS(enc);
	}
}

static int sb_members(struct side *s, struct sbuf *sb,
		      const struct btf_type *t)
{
	uint32_t i, off, bits, n = btf_vlen(t);
	const struct rend *r;
	int err;

	abtf__sb_add(sb, "{");
	for (i = 0; i < n; i++) {
		const struct btf_member *m = btf_members(t) + i;
		const char *name = tname(s, m->name_off);

		err = render(s, m->type, &r);
		if (err)
			return err;
		member_bits(s, t, i, &off, &bits);
		abtf__sb_addf(sb, "%s%s%s", i ? ", " : "", name, *name ? " " : "");
		sb_decl(sb, r, "");
		abtf__sb_addf(sb, " @%u", off);
		if (bits)
			abtf__sb_addf(sb, ":%u", bits);
	}
	abtf__sb_add(sb, "}");
	return 0;
}

static void sb_enum_head(struct sbuf *sb, const struct btf_type *t)
{
	abtf__sb_addf(sb, "size %u %s", t->size,
		btf_kflag(t) ? "signed" : "unsigned");
}

/* Enumerator @i of an ENUM or ENUM64: its name and its 64-bit value. */
static uint64_t enum_entry(const struct side *s, const struct btf_type *t,
			   uint32_t i, const char **name)
{
	const struct btf_enum64 *e64 = btf_enum64(t) + i;
	const struct btf_enum *e = btf_enum(t) + i;

	if (!btf_is_enum(t)) {
		*name = tname(s, e64->name_off);
		return btf_enum64_value(e64);
	}
	*name = tname(s, e->name_off);
	if (btf_kflag(t))	/* signed: sign-extend */
		return (uint64_t)(int64_t)e->val;
	return (uint32_t)e->val;
}

static void sb_enum_values(const struct side *s, struct sbuf *sb,
			   const struct btf_type *t)
{
	uint32_t i, n = btf_vlen(t);
	const char *name;
	uint64_t v;

	abtf__sb_add(sb, "{");
	for (i = 0; i < n; i++) {
		v = enum_entry(s, t, i, &name);
		abtf__sb_addf(sb, "%s%s = ", i ? ", " : "", name);
		if (btf_kflag(t))
			abtf__sb_addf(sb, "%" PRId64, (int64_t)v);
		else
			abtf__sb_addf(sb, "%" PRIu64, v);
	}
	abtf__sb_add(sb, "}");
}

/* ---- type expressions ---- */

static int build_word(struct rend *out, const char *word, const char *name)
{
	struct sbuf l = {}, r = {};

	abtf__sb_addf(&l, "%s%s%s", word, *word && *name ? " " : "", name);
	return rend_set(out, &l, &r, false, false);
}

static int build_anon(struct side *s, const struct btf_type *t,
		      struct rend *out)
{
	struct sbuf l = {}, r = {};
	int err = 0;

	if (btf_is_composite(t)) {
		abtf__sb_addf(&l, "%s (size %u) ",
			btf_is_struct(t) ? "struct" : "union", t->size);
		err = sb_members(s, &l, t);
	} else {
		abtf__sb_add(&l, "enum (");
		sb_enum_head(&l, t);
		abtf__sb_add(&l, ") ");
		sb_enum_values(s, &l, t);
	}
	if (err) {
		free(l.buf);
		return err;
	}
	return rend_set(out, &l, &r, false, false);
}

static int build_ptr(struct side *s, const struct btf_type *t,
		     struct rend *out)
{
	struct sbuf l = {}, r = {};
	const struct rend *to;
	int err;

	err = render(s, t->type, &to);
	if (err)
		return err;
	abtf__sb_add(&l, to->left);
	if (needs_sep(to->left))
		abtf__sb_add(&l, " ");
	abtf__sb_add(&l, to->postfix ? "(*" : "*");
	abtf__sb_add(&r, to->postfix ? ")" : "");
	abtf__sb_add(&r, to->right);
	return rend_set(out, &l, &r, false, true);
}

static int build_array(struct side *s, const struct btf_type *t,
		       unsigned int quals, struct rend *out)
{
	const struct btf_array *a = btf_array(t);
	struct sbuf l = {}, r = {};
	const struct rend *elem;
	struct rend tmp = {};
	int err;

	if (quals)	/* qualifiers of an array qualify its elements */
		err = build(s, a->type, quals, &tmp);
	else
		err = render(s, a->type, &elem);
	if (err)
		return err;
	if (quals)
		elem = &tmp;
	abtf__sb_add(&l, elem->left);
	abtf__sb_addf(&r, "[%u]%s", a->nelems, elem->right);
	rend_free(&tmp);
	return rend_set(out, &l, &r, true, false);
}

static int sb_params(struct side *s, struct sbuf *sb, const struct btf_type *t)
{
	uint32_t i, n = btf_vlen(t);
	const struct rend *r;
	int err;

	abtf__sb_add(sb, "(");
	if (!n)
		abtf__sb_add(sb, "void");
	for (i = 0; i < n; i++) {
		const struct btf_param *p = btf_params(t) + i;

		if (i)
			abtf__sb_add(sb, ", ");
		if (i == n - 1 && !p->type && !p->name_off) {
			abtf__sb_add(sb, "...");
			break;
		}
		err = render(s, p->type, &r);
		if (err)
			return err;
		sb_decl(sb, r, tname(s, p->name_off));
	}
	abtf__sb_add(sb, ")");
	return 0;
}

static int build_proto(struct side *s, const struct btf_type *t,
		       struct rend *out)
{
	struct sbuf l = {}, r = {};
	const struct rend *ret;
	int err;

	err = render(s, t->type, &ret);
	if (err)
		return err;
	abtf__sb_add(&l, ret->left);
	err = sb_params(s, &r, t);
	abtf__sb_add(&r, ret->right);
	if (err) {
		free(l.buf);
		free(r.buf);
		return err;
	}
	return rend_set(out, &l, &r, true, false);
}

/* Qualifier words on @base: after a pointer's '*', before anything else. */
static int build_qualified(const struct rend *base, unsigned int quals,
			   const char *tag, struct rend *out)
{
	struct sbuf l = {}, r = {};

	if (base->ptr) {
		abtf__sb_add(&l, base->left);
		sb_quals(&l, quals);
		abtf__sb_add(&l, tag);
	} else {
		sb_quals(&l, quals);
		abtf__sb_add(&l, tag);
		abtf__sb_add(&l, " ");
		abtf__sb_add(&l, base->left);
	}
	abtf__sb_add(&r, base->right);
	return rend_set(out, &l, &r, base->postfix, base->ptr);
}

static int build_type_tag(struct side *s, const struct btf_type *t,
			  struct rend *out)
{
	const struct rend *base;
	struct sbuf tag = {};
	char *word;
	int err;

	err = render(s, t->type, &base);
	if (err)
		return err;
	abtf__sb_addf(&tag, "__attribute__((btf_type_tag(\"%s\")))",
		tname(s, t->name_off));
	err = abtf__sb_take(&tag, &word);
	if (err)
		return err;
	err = build_qualified(base, 0, word, out);
	free(word);
	return err;
}

/* A type that is neither a qualifier nor an array, without qualifiers. */
static int build_plain(struct side *s, const struct btf_type *t,
		       struct rend *out)
{
	const char *name = tname(s, t->name_off);

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPEDEF:
		return build_word(out, "", name);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (!*name)
			return build_anon(s, t, out);
		return build_word(out, btf_is_struct(t) ? "struct" :
				  btf_is_union(t) ? "union" : "enum", name);
	case BTF_KIND_FWD:
		return build_word(out, btf_kflag(t) ? "union" : "struct", name);
	case BTF_KIND_PTR:
		return build_ptr(s, t, out);
	case BTF_KIND_FUNC_PROTO:
		return build_proto(s, t, out);
	case BTF_KIND_TYPE_TAG:
		return build_type_tag(s, t, out);
	case BTF_KIND_FUNC:
		return build_word(out, "func", name);
	case BTF_KIND_VAR:
		return build_word(out, "var", name);
	case BTF_KIND_DATASEC:
		return build_word(out, "datasec", name);
	default:
		return -EINVAL;
	}
}

/* Skip a run of CONST/VOLATILE/RESTRICT from *@id, adding it to *@quals. */
static int strip_quals(const struct side *s, uint32_t *id,
		       const struct btf_type **t, unsigned int *quals)
{
	uint32_t steps = 0;
	int err;

	err = get_type(s, *id, t);
	while (!err && *t && is_cvr(*t)) {
		if (++steps > s->nr_types)	/* a qualifier loop */
			return -EINVAL;
		*quals |= cvr_bit(*t);
		*id = (*t)->type;
		err = get_type(s, *id, t);
	}
	return err;
}

/*
 * Render @id with the extra qualifiers @quals, into @out (owned by the
 * caller). A run of qualifiers is folded into one set; the qualifiers of
 * an array go to its elements.
 */
static int build(struct side *s, uint32_t id, unsigned int quals,
		 struct rend *out)
{
	const struct btf_type *t;
	const struct rend *base;
	int err;

	if (s->depth >= MAX_DEPTH)
		return -EINVAL;
	s->depth++;
	err = strip_quals(s, &id, &t, &quals);
	if (err)
		goto out;
	if (t && btf_is_array(t))
		err = build_array(s, t, quals, out);
	else if (!quals)
		err = t ? build_plain(s, t, out) : build_word(out, "", "void");
	else if (!(err = render(s, id, &base)))
		err = build_qualified(base, quals, "", out);
out:
	s->depth--;
	return err;
}

/* The memoised rendering of @id; -EINVAL for a loop without a name. */
static int render(struct side *s, uint32_t id, const struct rend **out)
{
	int err;

	if (id >= s->nr_types)
		return -EINVAL;
	if (s->state[id] == R_DONE) {
		*out = &s->memo[id];
		return 0;
	}
	if (s->state[id] == R_BUSY)
		return -EINVAL;
	s->state[id] = R_BUSY;
	err = build(s, id, 0, &s->memo[id]);
	if (err) {
		s->state[id] = R_NONE;
		return err;
	}
	s->state[id] = R_DONE;
	*out = &s->memo[id];
	return 0;
}

/* ---- items ---- */

static int add_item(struct side *s, struct sbuf *key, struct sbuf *desc)
{
	struct item *it;
	int err, err2;

	if (abtf_grow(s->items, s->cap_items, s->nr_items + 1)) {
		free(key->buf);
		free(desc->buf);
		return -ENOMEM;
	}
	it = &s->items[s->nr_items];
	err = abtf__sb_take(key, &it->key);
	err2 = abtf__sb_take(desc, &it->desc);
	if (err || err2) {
		free(it->key);
		free(it->desc);
		return err ? err : err2;
	}
	s->nr_items++;
	return 0;
}

static void sb_int(struct sbuf *sb, const struct btf_type *t)
{
	uint32_t enc = *(const uint32_t *)(t + 1);
	uint32_t e = BTF_INT_ENCODING(enc);

	abtf__sb_addf(sb, "size %u bits %u", t->size, BTF_INT_BITS(enc));
	if (BTF_INT_OFFSET(enc))
		abtf__sb_addf(sb, " offset %u", BTF_INT_OFFSET(enc));
	if (e & BTF_INT_SIGNED)
		abtf__sb_add(sb, " signed");
	if (e & BTF_INT_CHAR)
		abtf__sb_add(sb, " char");
	if (e & BTF_INT_BOOL)
		abtf__sb_add(sb, " bool");
	if (!e)
		abtf__sb_add(sb, " unsigned");
}

/* "LINKAGE DECLARATION" of a FUNC or VAR. */
static int sb_linked_decl(struct side *s, struct sbuf *sb, uint32_t linkage,
			  uint32_t type, const char *name)
{
	static const char *const words[] = { "static", "global", "extern" };
	const struct rend *r;
	int err;

	err = render(s, type, &r);
	if (err)
		return err;
	if (linkage < ARRAY_SIZE(words))
		abtf__sb_addf(sb, "%s ", words[linkage]);
	else
		abtf__sb_addf(sb, "linkage %u ", linkage);
	sb_decl(sb, r, name);
	return 0;
}

struct secentry {
	uint32_t offset, size;
	const char *name;
};

static int secentry_cmp(const void *a, const void *b)
{
	const struct secentry *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int sb_datasec(struct side *s, struct sbuf *sb, const struct btf_type *t)
{
	const struct btf_var_secinfo *vs = btf_var_secinfos(t);
	uint32_t i, n = btf_vlen(t);
	struct secentry *e;
	const struct btf_type *vt;
	const struct rend *r;
	int err = 0;

	e = calloc(n ? n : 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		e[i].offset = vs[i].offset;
		e[i].size = vs[i].size;
		err = get_type(s, vs[i].type, &vt);
		if (!err && vt && btf_is_var(vt))
			e[i].name = tname(s, vt->name_off);
		else if (!err && !(err = render(s, vs[i].type, &r)))
			e[i].name = r->left;	/* a name, "func f", ... */
	}
	if (!err) {
		qsort(e, n, sizeof(*e), secentry_cmp);
		abtf__sb_addf(sb, "size %u {", t->size);
		for (i = 0; i < n; i++)
			abtf__sb_addf(sb, "%s%s @%u size %u", i ? ", " : "",
				e[i].name, e[i].offset, e[i].size);
		abtf__sb_add(sb, "}");
	}
	free(e);
	return err;
}

static int sb_decl_tag(struct side *s, struct sbuf *sb,
		       const struct btf_type *t)
{
	const struct btf_decl_tag *tag = (const void *)(t + 1);
	const struct rend *r;
	int err;

	err = render(s, t->type, &r);
	if (err)
		return err;
	sb_decl(sb, r, "");
	if (tag->component_idx >= 0)
		abtf__sb_addf(sb, " #%d", tag->component_idx);
	return 0;
}

static void sb_enum_key(const struct side *s, struct sbuf *key,
			const struct btf_type *t, const char *name)
{
	if (*name) {
		abtf__sb_addf(key, "enum %s", name);
	} else if (btf_vlen(t)) {
		/* An anonymous enum is known by its first enumerator. */
		enum_entry(s, t, 0, &name);
		abtf__sb_addf(key, "enum (anon: %s)", name);
	} else {
		abtf__sb_add(key, "enum (anon)");
	}
}

/* The key and description of type @t, or nothing for a type without one. */
static int describe(struct side *s, const struct btf_type *t,
		    bool no_vars, struct sbuf *key, struct sbuf *desc)
{
	const char *name = tname(s, t->name_off);
	const struct rend *r;
	int err;

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		if (!strcmp(name, "__ARRAY_SIZE_TYPE__")) {
			s->has_array_size_type = true;
			return 0;
		}
		abtf__sb_addf(key, "int %s", name);
		sb_int(desc, t);
		return 0;
	case BTF_KIND_FLOAT:
		abtf__sb_addf(key, "float %s", name);
		abtf__sb_addf(desc, "size %u", t->size);
		return 0;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (!*name)
			return 0;
		abtf__sb_addf(key, "%s %s", btf_is_struct(t) ? "struct" : "union",
			name);
		abtf__sb_addf(desc, "size %u ", t->size);
		return sb_members(s, desc, t);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		sb_enum_key(s, key, t, name);
		sb_enum_head(desc, t);
		abtf__sb_add(desc, " ");
		sb_enum_values(s, desc, t);
		return 0;
	case BTF_KIND_FWD:
		abtf__sb_addf(key, "fwd %s %s", btf_kflag(t) ? "union" : "struct",
			name);
		return 0;
	case BTF_KIND_TYPEDEF:
		abtf__sb_addf(key, "typedef %s", name);
		err = render(s, t->type, &r);
		if (!err)
			sb_decl(desc, r, "");
		return err;
	case BTF_KIND_FUNC:
		abtf__sb_addf(key, "func %s", name);
		return sb_linked_decl(s, desc, btf_vlen(t), t->type, name);
	case BTF_KIND_VAR:
		if (no_vars)
			return 0;
		abtf__sb_addf(key, "var %s", name);
		return sb_linked_decl(s, desc, btf_var(t)->linkage, t->type,
				      name);
	case BTF_KIND_DATASEC:
		if (no_vars)
			return 0;
		abtf__sb_addf(key, "datasec %s", name);
		return sb_datasec(s, desc, t);
	case BTF_KIND_DECL_TAG:
		abtf__sb_addf(key, "decl_tag %s", name);
		return sb_decl_tag(s, desc, t);
	default:
		return 0;	/* compared through what refers to them */
	}
}

static int collect(struct side *s, bool no_vars)
{
	const struct btf_type *t;
	uint32_t id;
	int err;

	for (id = s->start_id; id < s->nr_types; id++) {
		struct sbuf key = {}, desc = {};

		err = get_type(s, id, &t);
		if (!err)
			err = describe(s, t, no_vars, &key, &desc);
		if (!err && (key.buf || key.err))
			err = add_item(s, &key, &desc);
		else {
			free(key.buf);
			free(desc.buf);
		}
		if (err)
			return err;
	}
	return 0;
}

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : strcmp(x->desc, y->desc);
}

/* Drop the items of key @key from @s. */
static void drop_key(struct side *s, const char *key)
{
	size_t i, j = 0;

	for (i = 0; i < s->nr_items; i++) {
		if (strcmp(s->items[i].key, key)) {
			s->items[j++] = s->items[i];
			continue;
		}
		free(s->items[i].key);
		free(s->items[i].desc);
	}
	s->nr_items = j;
}

static bool has_key(const struct side *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->nr_items; i++)
		if (!strcmp(s->items[i].key, key))
			return true;
	return false;
}

/* pahole's __ARRAY_SIZE_TYPE__ stands in for an "int" the unit lacks. */
static void forgive_array_size_type(struct cmp_ctx *c)
{
	struct side *a = &c->side[0], *b = &c->side[1];

	if (a->has_array_size_type && !has_key(a, "int int"))
		drop_key(b, "int int");
	else if (b->has_array_size_type && !has_key(b, "int int"))
		drop_key(a, "int int");
}

/* ---- differences ---- */

/*
 * A run of array counts at *@p ("[2][3]", C's declarator order): how many
 * and their product, *@p moved past it. 0 counts where none starts there.
 */
static unsigned int count_run(const char **p, uint64_t *product)
{
	unsigned int n = 0;
	const char *q = *p;

	*product = 1;
	while (q[0] == '[' && q[1] >= '0' && q[1] <= '9') {
		char *end;
		uint64_t v = strtoull(q + 1, &end, 10);

		if (*end != ']')
			break;
		if (__builtin_mul_overflow(*product, v, product))
			*product = UINT64_MAX;
		q = end + 1;
		n++;
	}
	if (n)
		*p = q;
	return n;
}

/*
 * Do @da and @db differ only in the shape of arrays: the same text but
 * where one side has one count ("[6]", pahole before 1.32, --flat_arrays)
 * the other has several of that product ("[2][3]", pahole 1.32), always
 * the same side flat? Nothing else: [3][2] against [2][3] is a difference.
 */
static bool array_shape_only(const char *da, const char *db)
{
	int flat = 0;	/* 1: a is the flat side, 2: b */

	while (*da || *db) {
		const char *ra = da, *rb = db;
		unsigned int na, nb;
		uint64_t pa, pb;

		na = count_run(&da, &pa);
		nb = count_run(&db, &pb);
		if (!na && !nb) {
			if (*da != *db)
				return false;
			da++, db++;
			continue;
		}
		if (na == nb && da - ra == db - rb && !memcmp(ra, rb, da - ra))
			continue;	/* the same counts */
		if (!na || !nb || pa != pb || (na > 1 && nb > 1) ||
		    flat == (na == 1 ? 2 : 1))
			return false;
		flat = na == 1 ? 1 : 2;
	}
	return flat;
}

static int emit(struct cmp_ctx *c, char op, const char *key,
		const char *da, const char *db)
{
	struct sbuf line = {};
	char *s;
	int err;

	abtf__sb_addf(&line, "%c %s", op, key);
	if (db && array_shape_only(da, db))
		abtf__sb_addf(&line, ": array shape: a: %s | b: %s", da, db);
	else if (db)
		abtf__sb_addf(&line, ": a: %s | b: %s", da, db);
	else if (*da)
		abtf__sb_addf(&line, ": %s", da);
	err = abtf__sb_take(&line, &s);
	if (err)
		return err;
	if (c->opts.diff)
		c->opts.diff(c->opts.diff_ctx, s);
	free(s);
	c->count++;
	return 0;
}

/*
 * Items [ia, na) of a and [ib, nb) of b all have one key and are sorted:
 * cancel equal descriptions, report the rest.
 */
static int diff_key(struct cmp_ctx *c, const struct item *ia, size_t na,
		    const struct item *ib, size_t nb)
{
	const struct item **la, **lb;
	size_t i = 0, j = 0, ra = 0, rb = 0;
	int err = 0;

	la = calloc(na + nb + 1, sizeof(*la));
	if (!la)
		return -ENOMEM;
	lb = la + na;
	while (i < na || j < nb) {
		int cmp = i == na ? 1 : j == nb ? -1 :
			  strcmp(ia[i].desc, ib[j].desc);

		if (cmp < 0)
			la[ra++] = &ia[i++];
		else if (cmp > 0)
			lb[rb++] = &ib[j++];
		else
			i++, j++;
	}
	if (ra == 1 && rb == 1) {
		err = emit(c, '~', la[0]->key, la[0]->desc, lb[0]->desc);
	} else {
		for (i = 0; !err && i < ra; i++)
			err = emit(c, '-', la[i]->key, la[i]->desc, NULL);
		for (i = 0; !err && i < rb; i++)
			err = emit(c, '+', lb[i]->key, lb[i]->desc, NULL);
	}
	free(la);
	return err;
}

static size_t key_run(const struct side *s, size_t i)
{
	size_t j = i;

	while (j < s->nr_items && !strcmp(s->items[j].key, s->items[i].key))
		j++;
	return j - i;
}

static int diff_all(struct cmp_ctx *c)
{
	const struct side *a = &c->side[0], *b = &c->side[1];
	size_t i = 0, j = 0;
	int err = 0;

	while (!err && (i < a->nr_items || j < b->nr_items)) {
		int cmp = i == a->nr_items ? 1 : j == b->nr_items ? -1 :
			  strcmp(a->items[i].key, b->items[j].key);
		size_t na = cmp <= 0 ? key_run(a, i) : 0;
		size_t nb = cmp >= 0 ? key_run(b, j) : 0;

		err = diff_key(c, a->items + i, na, b->items + j, nb);
		i += na;
		j += nb;
	}
	return err;
}

/* ---- setup ---- */

static int side_init(struct side *s, const struct btf *btf)
{
	const struct btf *base = btf__base_btf(btf);

	s->btf = btf;
	s->nr_types = btf__type_cnt(btf);
	s->start_id = base ? btf__type_cnt(base) : 1;
	s->memo = calloc(s->nr_types, sizeof(*s->memo));
	s->state = calloc(s->nr_types, 1);
	return s->memo && s->state ? 0 : -ENOMEM;
}

static void side_fini(struct side *s)
{
	size_t i;

	if (s->memo)
		for (i = 0; i < s->nr_types; i++)
			rend_free(&s->memo[i]);
	for (i = 0; i < s->nr_items; i++) {
		free(s->items[i].key);
		free(s->items[i].desc);
	}
	free(s->items);
	free(s->memo);
	free(s->state);
}

static int compare(struct cmp_ctx *c, const struct btf *a, const struct btf *b)
{
	int i, err;

	for (i = 0; i < 2; i++) {
		struct side *s = &c->side[i];

		err = side_init(s, i ? b : a);
		if (!err)
			err = collect(s, c->opts.no_vars);
		if (err)
			return err;
		qsort(s->items, s->nr_items, sizeof(*s->items), item_cmp);
	}
	forgive_array_size_type(c);
	err = diff_all(c);
	return err ? err : c->count;
}

ABTF_API int abtf_btf__compare(const struct btf *a, const struct btf *b,
			       const struct abtf_compare_opts *opts)
{
	struct cmp_ctx *c;
	int err;

	if (!a || !b)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = abtf__copy_opts(&c->opts, sizeof(c->opts), opts);
	if (!err)
		err = compare(c, a, b);
	side_fini(&c->side[0]);
	side_fini(&c->side[1]);
	free(c);
	return err;
}
