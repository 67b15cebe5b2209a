// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The BTF verifier: the rules the kernel applies to BTF when it boots
 * (vmlinux) or loads a module (split BTF), checked at build time instead.
 *
 * A BTF the kernel refuses costs a boot without BTF (or a module that
 * does not load) and names nothing useful; refusing it here names the
 * object or the archive member and the type. The rules are those of
 * kernel/bpf/btf.c (6.1 to 6.12), written anew from what it checks:
 *
 *  1. Each record alone ("meta"): the info word's reserved bits are zero
 *     and its kind known; vlen and kind_flag are zero where a kind has no
 *     use for them; fields the kernel wants zero are zero (a FWD's type,
 *     an ARRAY's size); INT encodings (at most 128 bits, within the size,
 *     one encoding bit); ENUM sizes (1, 2, 4 or 8) and FLOAT sizes;
 *     names: identifiers where the kernel wants identifiers (typedef,
 *     FWD, FUNC, VAR, members, enumerators, parameters), none where it
 *     wants none (modifiers, pointers, arrays, prototypes), a printable
 *     name for a DATASEC; struct member offsets in order and inside the
 *     struct, union members at 0; FUNC and VAR linkage; DATASEC entries
 *     sorted, non-overlapping and inside the section.
 *  1b. Chains ("Loop detected"): a chain of pointers, qualifiers and
 *     typedefs (one reference each) ends; one that returns to itself,
 *     which the kernel finds walking from a pointer, is refused (also at
 *     ABTF_VERIFY_READING: libbpf's dedup fails on it, naming nothing).
 *  2. Sizes ("resolve"): every type held by value (modifiers, typedefs,
 *     array elements, members, a VAR's type) is walked, depth first with
 *     an explicit stack (no recursion: a chain of 100 000 typedefs costs
 *     no stack), giving each type its size; reaching a type still on the
 *     stack is a loop (a struct that contains itself).
 *  3. References, with sizes known: a member fits its struct (bitfields:
 *     an INT or ENUM base of enough bits); an array's element has a size
 *     and its index type is an INT; a pointer or modifier leads to a type
 *     with a size, void, a FWD or a FUNC_PROTO; a FUNC's type is a
 *     FUNC_PROTO whose parameters all have names; parameters and return
 *     types have sizes (the last parameter may be the vararg marker);
 *     DATASEC entries are VARs that fit their slot; a DECL_TAG tags a
 *     struct, union, FUNC, VAR or typedef, with a component index inside
 *     it.
 *
 * Types below src->start_id (a split BTF's base) were verified when their
 * BTF was written: they are followed, never reported. The verifier only
 * reads; its cost is linear in the types checked (docs/design.md).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/verify.h"
#include "btf/layout.h"

#define NAME_MAX_LEN	512		/* the kernel's KSYM_NAME_LEN (6.1+) */
#define INFO_RESERVED	0x60ff0000u	/* info bits no kind may use */
#define NOSIZE		UINT32_MAX

enum { NEW, ON_STACK, DONE };

struct vctx {
	const struct abtf_vsrc *src;
	uint32_t total;			/* highest type ID + 1 */
	const struct btf_type **own;	/* a base's types, looked up once */
	uint8_t *state;
	uint32_t *size;			/* resolved size, or NOSIZE */
	struct abtf_vfault *f;
};

static const struct btf_type void_type;

/* inlined: the passes call it for every reference of every type */
static inline __attribute__((always_inline)) const struct btf_type *
type_at(const struct vctx *c, uint32_t id)
{
	const struct abtf_vsrc *s = c->src;

	if (!id || id >= c->total)
		return &void_type;
	if (c->own && id >= s->start_id)
		return c->own[id - s->start_id];
	if (s->btf)
		return btf__type_by_id(s->btf, id);
	return (const void *)(s->types + s->offs[id]);
}

static const char *str_at(const struct abtf_vsrc *s, uint32_t off)
{
	if (s->btf)
		return btf__str_by_offset(s->btf, off);
	return off < s->str_len ? s->strs + off : NULL;
}

static int fault(struct vctx *c, uint32_t id, int32_t comp, const char *what)
{
	c->f->id = id;
	c->f->comp = comp;
	c->f->what = what;
	return -EINVAL;
}

/* ---- names ---- */

/*
 * The kernel's identifier: a letter, '_' or '.', then also digits (the dot
 * for clang's "func.static_var" names; allowed since 6.5 and in the stable
 * kernels from 6.1 on), at most NAME_MAX_LEN bytes.
 */
static bool ident_char(char c, bool first)
{
	/* ASCII whatever the locale, as the kernel's ctype */
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '_' || c == '.' || (!first && c >= '0' && c <= '9');
}

static bool is_ident(const char *s)
{
	size_t i;

	if (!s || !ident_char(s[0], true))
		return false;
	for (i = 1; s[i]; i++)
		if (i >= NAME_MAX_LEN || !ident_char(s[i], false))
			return false;
	return true;
}

static bool is_section_name(const char *s)
{
	size_t i;

	if (!s || !s[0])
		return false;
	for (i = 0; s[i]; i++)
		if (i >= NAME_MAX_LEN || !isprint((unsigned char)s[i]))
			return false;
	return true;
}

/* An identifier, or (when @may_be_anon) no name at all. */
static bool name_ok(const struct vctx *c, uint32_t off, bool may_be_anon)
{
	if (!off)
		return may_be_anon;
	/*
	 * A member's names are checked where they end up, in the final BTF:
	 * nothing in libbpf depends on them, and checking every copy of
	 * every header's names was a quarter of a link's instructions.
	 */
	if (c->src->member)
		return true;
	if (c->src->base && c->src->str_len)	/* the section's, known */
		return off < c->src->str_len;
	if (c->src->base)
		return str_at(c->src, off);
	return is_ident(str_at(c->src, off));
}

/* ---- 1. each record alone ---- */

static int check_int(struct vctx *c, uint32_t id, const struct btf_type *t)
{
	uint32_t data, bits, enc;

	memcpy(&data, t + 1, sizeof(data));
	if (data & ~0x0fff00ffu)
		return fault(c, id, -1, "INT data with reserved bits set");
	bits = BTF_INT_BITS(data) + BTF_INT_OFFSET(data);
	if (bits > 128)
		return fault(c, id, -1, "INT of more than 128 bits");
	if ((bits + 7) / 8 > t->size)
		return fault(c, id, -1, "INT of more bits than its size holds");
	enc = BTF_INT_ENCODING(data);
	if (enc && enc != BTF_INT_SIGNED && enc != BTF_INT_CHAR &&
	    enc != BTF_INT_BOOL)
		return fault(c, id, -1, "INT with more than one encoding bit");
	return 0;
}

static int check_members(struct vctx *c, uint32_t id, const struct btf_type *t)
{
	const struct btf_member *m = (const void *)(t + 1);
	bool kflag = BTF_INFO_KFLAG(t->info);
	bool is_union = BTF_INFO_KIND(t->info) == BTF_KIND_UNION;
	uint32_t i, last = 0;

	for (i = 0; i < BTF_INFO_VLEN(t->info); i++) {
		uint32_t off = kflag ? BTF_MEMBER_BIT_OFFSET(m[i].offset) :
				       m[i].offset;

		if (!name_ok(c, m[i].name_off, true))
			return fault(c, id, i, "a member name that is no C identifier");
		if (!m[i].type || m[i].type >= c->total)
			return fault(c, id, i, "a member of no valid type ID");
		if (is_union && off)
			return fault(c, id, i, "a union member at a non-zero offset");
		if (off < last)
			return fault(c, id, i, "members out of offset order");
		if ((off + 7ull) / 8 > t->size)
			return fault(c, id, i, "a member offset past the struct's size");
		last = off;
	}
	return 0;
}

static int check_enum(struct vctx *c, uint32_t id, const struct btf_type *t)
{
	bool is64 = BTF_INFO_KIND(t->info) == BTF_KIND_ENUM64;
	uint32_t i, vlen = BTF_INFO_VLEN(t->info);
	const uint8_t *e = (const void *)(t + 1);
	size_t step = is64 ? sizeof(struct btf_enum64) : sizeof(struct btf_enum);

	if (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8)
		return fault(c, id, -1, "an enum of size other than 1, 2, 4 or 8");
	if (!name_ok(c, t->name_off, true))
		return fault(c, id, -1, "a name that is no C identifier");
	for (i = 0; i < vlen; i++) {
		uint32_t name;

		memcpy(&name, e + i * step, sizeof(name));
		if (!name_ok(c, name, false))
			return fault(c, id, i, "an enumerator name that is no C identifier");
	}
	return 0;
}

static int check_proto(struct vctx *c, uint32_t id, const struct btf_type *t)
{
	const struct btf_param *p = (const void *)(t + 1);
	uint32_t i, vlen = BTF_INFO_VLEN(t->info);

	if (t->name_off)
		return fault(c, id, -1, "a FUNC_PROTO with a name");
	if (t->type >= c->total)
		return fault(c, id, -1, "a return type past the last type ID");
	for (i = 0; i < vlen; i++) {
		if (!p[i].type) {
			/*
			 * A member's .debug_btf_addr extension may hold
			 * such prototypes (funcs.c); what is written is
			 * checked in full.
			 */
			if (!c->src->member && (i != vlen - 1 || p[i].name_off))
				return fault(c, id, i, "a void parameter that is not the last, unnamed one (varargs)");
			continue;
		}
		if (p[i].type >= c->total)
			return fault(c, id, i, "a parameter type past the last type ID");
		if (!name_ok(c, p[i].name_off, true))
			return fault(c, id, i, "a parameter name that is no C identifier");
	}
	return 0;
}

static int check_datasec(struct vctx *c, uint32_t id, const struct btf_type *t)
{
	const struct btf_var_secinfo *v = (const void *)(t + 1);
	uint32_t i, vlen = BTF_INFO_VLEN(t->info);
	uint64_t end = 0;

	if (!vlen)
		return fault(c, id, -1, "a DATASEC without entries");
	if (!t->size)
		return fault(c, id, -1, "a DATASEC of size 0");
	if (!is_section_name(str_at(c->src, t->name_off)))
		return fault(c, id, -1, "a DATASEC name that is empty or not printable");
	for (i = 0; i < vlen; i++) {
		if (!v[i].type || v[i].type >= c->total)
			return fault(c, id, i, "an entry of no valid type ID");
		if (v[i].offset < end)
			return fault(c, id, i, "entries out of order or overlapping");
		if (!v[i].size || (uint64_t)v[i].offset + v[i].size > t->size)
			return fault(c, id, i, "an entry of size 0 or past the section's size");
		end = (uint64_t)v[i].offset + v[i].size;
	}
	return 0;
}

/* Kinds whose record is the header alone and refers to one type. */
static int check_ref(struct vctx *c, uint32_t id, const struct btf_type *t)
{
	int kind = BTF_INFO_KIND(t->info);
	const char *name = str_at(c->src, t->name_off);

	if (t->type >= c->total)
		return fault(c, id, -1, "a type past the last type ID");
	switch (kind) {
	case BTF_KIND_TYPEDEF:
		return name_ok(c, t->name_off, false) ? 0 :
		       fault(c, id, -1, "a typedef name that is no C identifier");
	case BTF_KIND_TYPE_TAG:
		return name && name[0] ? 0 :
		       fault(c, id, -1, "a TYPE_TAG without a value");
	default:
		return t->name_off ? fault(c, id, -1, "a pointer or qualifier with a name") : 0;
	}
}

/*
 * The info word alone: what the kernel's rules and reading a BTF (both
 * sides of --compare) want alike, one message each. kind_flag is a
 * struct's or union's bitfields, a FWD's union, an enum's sign, a tag's
 * attribute (kernel 6.13+); on any other kind it means nothing to a
 * reader, and two BTFs differing in it alone would compare equal.
 */
static const char *info_fault(const struct btf_type *t)
{
	if (t->info & INFO_RESERVED)
		return "reserved bits of the info word set";
	if (!BTF_INFO_KFLAG(t->info))
		return NULL;
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_FWD:
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64: case BTF_KIND_TYPE_TAG:
	case BTF_KIND_DECL_TAG:
		return NULL;
	}
	return "kind_flag set on a kind that has no use for it";
}

/* check_meta() of one kind: its record's own fields, in range. */
static int meta_fwd(struct vctx *c, uint32_t id, const struct btf_type *t)
{
	if (BTF_INFO_VLEN(t->info) || t->type)
		return fault(c, id, -1, "a FWD with vlen or type set (both must be 0)");
	return name_ok(c, t->name_off, false) ? 0 :
	       fault(c, id, -1, "a FWD name that is no C identifier");
}

static int meta_array(struct vctx *c, uint32_t id, const struct btf_type *t)
{
	const struct btf_array *a = (const void *)(t + 1);

	if (BTF_INFO_VLEN(t->info) || t->name_off || t->size)
		return fault(c, id, -1, "an ARRAY with vlen, name or size set");
	if (!a->type || a->type >= c->total ||
	    !a->index_type || a->index_type >= c->total)
		return fault(c, id, -1, "an ARRAY of no valid element or index type");
	return 0;
}

static int meta_func(struct vctx *c, uint32_t id, const struct btf_type *t)
{
	if (BTF_INFO_VLEN(t->info) > BTF_FUNC_EXTERN)
		return fault(c, id, -1, "a FUNC of unknown linkage");
	if (!name_ok(c, t->name_off, false))
		return fault(c, id, -1, "a FUNC name that is no C identifier");
	if (!t->type || t->type >= c->total)
		return fault(c, id, -1, "a FUNC of no valid type ID");
	return 0;
}

static int meta_var(struct vctx *c, uint32_t id, const struct btf_type *t)
{
	uint32_t linkage;

	memcpy(&linkage, t + 1, sizeof(linkage));
	if (BTF_INFO_VLEN(t->info))
		return fault(c, id, -1, "vlen set on a VAR");
	if (linkage != BTF_VAR_STATIC && linkage != BTF_VAR_GLOBAL_ALLOCATED)
		return fault(c, id, -1, "a VAR of a linkage the kernel does not load");
	if (!c->src->member && !name_ok(c, t->name_off, false))
		return fault(c, id, -1, "a VAR name that is no C identifier");
	if (!t->type || t->type >= c->total)
		return fault(c, id, -1, "a VAR of no valid type ID");
	return 0;
}

static int meta_float(struct vctx *c, uint32_t id, const struct btf_type *t)
{
	if (BTF_INFO_VLEN(t->info))
		return fault(c, id, -1, "vlen set on a FLOAT");
	if (t->size != 2 && t->size != 4 && t->size != 8 &&
	    t->size != 12 && t->size != 16)
		return fault(c, id, -1, "a FLOAT of size other than 2, 4, 8, 12 or 16");
	return 0;
}

static int meta_decl_tag(struct vctx *c, uint32_t id, const struct btf_type *t)
{
	const char *name = str_at(c->src, t->name_off);
	int32_t comp;

	memcpy(&comp, t + 1, sizeof(comp));
	if (BTF_INFO_VLEN(t->info) || !name || !name[0])
		return fault(c, id, -1, "a DECL_TAG with vlen set or no value");
	if (comp < -1)
		return fault(c, id, -1, "a DECL_TAG component_idx below -1");
	if (!t->type || t->type >= c->total)
		return fault(c, id, -1, "a DECL_TAG of no valid type ID");
	return 0;
}

static int check_meta(struct vctx *c, uint32_t id, const struct btf_type *t)
{
	uint32_t vlen = BTF_INFO_VLEN(t->info);
	const char *why = info_fault(t);

	if (why)
		return fault(c, id, -1, why);
	if (!str_at(c->src, t->name_off))
		return fault(c, id, -1, "a name offset past the string section");
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_FWD:	/* kind_flag: a union's */
		return meta_fwd(c, id, t);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		if (!name_ok(c, t->name_off, true))
			return fault(c, id, -1, "a name that is no C identifier");
		return check_members(c, id, t);
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		return check_enum(c, id, t);
	case BTF_KIND_INT:
		if (vlen)
			return fault(c, id, -1, "vlen set on an INT");
		return check_int(c, id, t);
	case BTF_KIND_PTR: case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT: case BTF_KIND_TYPEDEF: case BTF_KIND_TYPE_TAG:
		if (vlen)
			return fault(c, id, -1, "vlen set on a pointer, qualifier or typedef");
		return check_ref(c, id, t);
	case BTF_KIND_ARRAY:
		return meta_array(c, id, t);
	case BTF_KIND_FUNC:
		return meta_func(c, id, t);
	case BTF_KIND_FUNC_PROTO:
		return check_proto(c, id, t);
	case BTF_KIND_VAR:
		return meta_var(c, id, t);
	case BTF_KIND_DATASEC:
		return c->src->member ? 0 : check_datasec(c, id, t);
	case BTF_KIND_FLOAT:
		return meta_float(c, id, t);
	case BTF_KIND_DECL_TAG:
		return meta_decl_tag(c, id, t);
	default:
		return fault(c, id, -1, "an unknown BTF kind");
	}
}

/* ---- 1b. chains of pointers, qualifiers and typedefs end ---- */

static bool chain_kind(const struct btf_type *t)
{
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_PTR: case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT: case BTF_KIND_TYPEDEF: case BTF_KIND_TYPE_TAG:
		return true;
	}
	return false;
}

/*
 * Each of these kinds refers to one type, so a chain of them either ends
 * (at void, a struct, an INT, ...) or returns to itself: "PTR type_id=2"
 * as type [2], a CONST and a PTR naming each other. The kernel walks such
 * chains from a pointer and refuses the BTF ("Loop detected"); libbpf's
 * deduplication fails on them (ELOOP) without naming a type. One walk per
 * type, each type visited once: @seen[id] is the walk that reached it.
 * Types of the base (below start_id) were checked with it, and a walk
 * stops there. The type named is where the walk closed its loop.
 */
static int check_chains(struct vctx *c)
{
	uint32_t id, cur, end = c->src->start_id + c->src->nr_types;
	uint32_t *seen = calloc(end, sizeof(*seen));

	if (!seen)
		return -ENOMEM;
	for (id = c->src->start_id; id < end; id++) {
		for (cur = id; cur >= c->src->start_id && cur < end && !seen[cur];
		     cur = type_at(c, cur)->type) {
			if (!chain_kind(type_at(c, cur)))
				break;
			seen[cur] = id;
		}
		if (cur >= c->src->start_id && cur < end && seen[cur] == id &&
		    chain_kind(type_at(c, cur))) {
			free(seen);
			return fault(c, cur, -1, "a loop of pointers, qualifiers "
				     "or typedefs that returns to itself (the "
				     "kernel's \"Loop detected\")");
		}
	}
	free(seen);
	return 0;
}

/* ---- 2. sizes, without recursion ---- */

/* The @i-th type @t holds by value, or 0 when there is none left. */
static uint32_t held(const struct vctx *c, const struct btf_type *t,
		     uint32_t i)
{
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPEDEF: case BTF_KIND_TYPE_TAG: case BTF_KIND_VAR:
		return i ? 0 : t->type;
	case BTF_KIND_ARRAY:
		return i ? 0 : ((const struct btf_array *)(t + 1))->type;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		if (i >= BTF_INFO_VLEN(t->info))
			return 0;
		return ((const struct btf_member *)(t + 1))[i].type;
	default:
		return 0;
	}
}

/* The size of @id once what it holds has its size. */
static int size_of(struct vctx *c, uint32_t id)
{
	const struct btf_type *t = type_at(c, id);
	uint32_t elem, nelems;

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT: case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
	case BTF_KIND_FLOAT: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
		c->size[id] = t->size;
		return 0;
	case BTF_KIND_PTR:
		c->size[id] = c->src->ptr_size;
		return 0;
	case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPEDEF: case BTF_KIND_TYPE_TAG: case BTF_KIND_VAR:
		c->size[id] = t->type ? c->size[t->type] : NOSIZE;
		return 0;
	case BTF_KIND_ARRAY:
		elem = ((const struct btf_array *)(t + 1))->type;
		nelems = ((const struct btf_array *)(t + 1))->nelems;
		if (c->size[elem] == NOSIZE)
			return fault(c, id, -1, "an ARRAY of elements without a size");
		if (nelems && c->size[elem] > (UINT32_MAX - 1) / nelems)
			return fault(c, id, -1, "an ARRAY of more than 4 GiB");
		c->size[id] = c->size[elem] * nelems;
		return 0;
	default:	/* FWD, FUNC, FUNC_PROTO, DECL_TAG: no size */
		c->size[id] = NOSIZE;
		return 0;
	}
}

struct frame {
	uint32_t id, next;
};

/* Depth first from @root over held-by-value edges, an explicit stack. */
static int resolve(struct vctx *c, uint32_t root, struct frame *stack)
{
	size_t top = 0;
	int err;

	stack[top++] = (struct frame){ root, 0 };
	c->state[root] = ON_STACK;
	while (top) {
		struct frame *fr = &stack[top - 1];
		const struct btf_type *t = type_at(c, fr->id);
		int kind = BTF_INFO_KIND(t->info);
		uint32_t next = held(c, t, fr->next);
		bool more = kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION ?
			    fr->next < BTF_INFO_VLEN(t->info) :
			    fr->next == 0 && next;

		if (more) {
			fr->next++;
			if (!next || c->state[next] == DONE)
				continue;
			if (c->state[next] == ON_STACK)
				return fault(c, fr->id >= c->src->start_id ?
					     fr->id : root, -1,
					     "a loop of types held by value "
					     "(a struct that contains itself?)");
			c->state[next] = ON_STACK;
			stack[top++] = (struct frame){ next, 0 };
			continue;
		}
		err = size_of(c, fr->id);
		if (err)
			return err;
		c->state[fr->id] = DONE;
		top--;
	}
	return 0;
}

/* ---- 3. references, sizes known ---- */

/* Through modifiers and typedefs to what gives a type its shape. */
static uint32_t skip_mods(const struct vctx *c, uint32_t id)
{
	uint32_t n;

	for (n = 0; id && n < c->total; n++) {
		const struct btf_type *t = type_at(c, id);

		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT: case BTF_KIND_TYPEDEF:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			continue;
		default:
			return id;
		}
	}
	return id;
}

static bool has_size(const struct vctx *c, uint32_t id)
{
	int kind = BTF_INFO_KIND(type_at(c, id)->info);

	return id && c->size[id] != NOSIZE && kind != BTF_KIND_VAR &&
	       kind != BTF_KIND_DATASEC;
}

static int check_member_fit(struct vctx *c, uint32_t id,
			    const struct btf_type *t, uint32_t i)
{
	const struct btf_member *m = (const struct btf_member *)(t + 1) + i;
	bool kflag = BTF_INFO_KFLAG(t->info);
	uint32_t off = kflag ? BTF_MEMBER_BIT_OFFSET(m->offset) : m->offset;
	uint32_t bits = kflag ? BTF_MEMBER_BITFIELD_SIZE(m->offset) : 0;
	uint32_t base = skip_mods(c, m->type);
	const struct btf_type *bt = type_at(c, base);
	int kind = BTF_INFO_KIND(bt->info);
	uint64_t end;

	if (!has_size(c, m->type))
		return fault(c, id, i, "a member of a type without a size (void, FWD, function)");
	if (kind == BTF_KIND_INT && !bits) {
		uint32_t data;

		memcpy(&data, bt + 1, sizeof(data));
		bits = BTF_INT_BITS(data);
		off += BTF_INT_OFFSET(data);
		if (kflag && (off % 8))
			return fault(c, id, i, "a member that is no bitfield, not at a byte");
	} else if (bits) {
		if (kind != BTF_KIND_INT && kind != BTF_KIND_ENUM &&
		    kind != BTF_KIND_ENUM64)
			return fault(c, id, i, "a bitfield of a type that is no INT or enum");
		if (bits > c->size[base] * 8)
			return fault(c, id, i, "a bitfield wider than its type");
	} else {
		if (off % 8)
			return fault(c, id, i, "a member that is no bitfield, not at a byte");
		bits = c->size[m->type] * 8;
	}
	end = (uint64_t)off + bits;
	if ((end + 7) / 8 > t->size)
		return fault(c, id, i, "a member that runs past the struct's size");
	return 0;
}

/* What a pointer, modifier or typedef may lead to. */
static bool ref_target_ok(const struct vctx *c, uint32_t to)
{
	uint32_t b = skip_mods(c, to);
	int kind = BTF_INFO_KIND(type_at(c, b)->info);

	if (!b)
		return true;
	if (kind == BTF_KIND_FWD || kind == BTF_KIND_FUNC_PROTO)
		return true;
	return has_size(c, to);
}

static int check_func(struct vctx *c, uint32_t id, const struct btf_type *t)
{
	const struct btf_type *proto = type_at(c, t->type);
	const struct btf_param *p = (const void *)(proto + 1);
	uint32_t i;

	if (BTF_INFO_KIND(proto->info) != BTF_KIND_FUNC_PROTO)
		return fault(c, id, -1, "a FUNC whose type is no FUNC_PROTO");
	for (i = 0; i < BTF_INFO_VLEN(proto->info); i++)
		if (p[i].type && !p[i].name_off)
			return fault(c, id, i, "a FUNC with an unnamed parameter");
	return 0;
}

static int check_proto_refs(struct vctx *c, uint32_t id,
			    const struct btf_type *t)
{
	const struct btf_param *p = (const void *)(t + 1);
	uint32_t i;

	if (t->type && !has_size(c, t->type))
		return fault(c, id, -1, "a return type without a size");
	for (i = 0; i < BTF_INFO_VLEN(t->info); i++)
		if (p[i].type && !has_size(c, p[i].type))
			return fault(c, id, i, "a parameter of a type without a size");
	return 0;
}

static int check_datasec_refs(struct vctx *c, uint32_t id,
			      const struct btf_type *t)
{
	const struct btf_var_secinfo *v = (const void *)(t + 1);
	uint32_t i;

	for (i = 0; i < BTF_INFO_VLEN(t->info); i++) {
		const struct btf_type *var = type_at(c, v[i].type);

		if (BTF_INFO_KIND(var->info) != BTF_KIND_VAR)
			return fault(c, id, i, "an entry that is no VAR");
		if (c->size[v[i].type] == NOSIZE ||
		    v[i].size < c->size[v[i].type])
			return fault(c, id, i, "an entry smaller than its VAR");
	}
	return 0;
}

static int check_decl_tag(struct vctx *c, uint32_t id, const struct btf_type *t)
{
	const struct btf_type *to = type_at(c, t->type), *proto;
	int32_t comp;

	memcpy(&comp, t + 1, sizeof(comp));
	switch (BTF_INFO_KIND(to->info)) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		if (comp < (int32_t)BTF_INFO_VLEN(to->info))
			return 0;
		return fault(c, id, -1, "a DECL_TAG's component_idx past its struct's members");
	case BTF_KIND_FUNC:
		if (comp == -1)
			return 0;
		proto = type_at(c, to->type);
		if (comp < (int32_t)BTF_INFO_VLEN(proto->info))
			return 0;
		return fault(c, id, -1, "a DECL_TAG's component_idx past its function's parameters");
	case BTF_KIND_VAR: case BTF_KIND_TYPEDEF:
		if (comp == -1)
			return 0;
		return fault(c, id, -1, "a DECL_TAG with a component_idx on a VAR or typedef");
	default:
		return fault(c, id, -1, "a DECL_TAG of a kind that cannot be tagged");
	}
}

/*
 * What costs a walk per member or parameter (structs, prototypes,
 * pointers and modifiers) is left to the final BTF in member mode: the
 * members hold every copy of every header's types, and checking those
 * was a fifth of a link's instructions.
 */
static bool final_only(const struct vctx *c, int kind)
{
	switch (kind) {
	case BTF_KIND_FUNC: case BTF_KIND_ARRAY: case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return false;
	default:
		return c->src->member;
	}
}

static int check_refs(struct vctx *c, uint32_t id, const struct btf_type *t)
{
	const struct btf_array *a = (const void *)(t + 1);
	uint32_t i;
	int err;

	if (final_only(c, BTF_INFO_KIND(t->info)))
		return 0;
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		for (i = 0; i < BTF_INFO_VLEN(t->info); i++)
			if ((err = check_member_fit(c, id, t, i)))
				return err;
		return 0;
	case BTF_KIND_ARRAY:
		if (BTF_INFO_KIND(type_at(c, skip_mods(c, a->index_type))->info) !=
		    BTF_KIND_INT)
			return fault(c, id, -1, "an ARRAY whose index type is no INT");
		return 0;
	case BTF_KIND_PTR: case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT: case BTF_KIND_TYPEDEF: case BTF_KIND_TYPE_TAG:
		if (ref_target_ok(c, t->type))
			return 0;
		return fault(c, id, -1, "a pointer, qualifier or typedef of a FUNC, VAR, DATASEC or DECL_TAG");
	case BTF_KIND_FUNC:
		return check_func(c, id, t);
	case BTF_KIND_FUNC_PROTO:
		return check_proto_refs(c, id, t);
	case BTF_KIND_VAR:
		if (has_size(c, t->type))
			return 0;
		return fault(c, id, -1, "a VAR of a type without a size");
	case BTF_KIND_DATASEC:
		return c->src->member ? 0 : check_datasec_refs(c, id, t);
	case BTF_KIND_DECL_TAG:
		return check_decl_tag(c, id, t);
	default:
		return 0;
	}
}

int abtf__verify(const struct abtf_vsrc *src, struct abtf_vfault *f)
{
	struct vctx c = { .src = src, .f = f };
	struct frame *stack = NULL;
	uint32_t id, end = src->start_id + src->nr_types;
	int err = -ENOMEM;

	c.total = end;
	c.state = calloc(end, 1);
	c.size = calloc(end, sizeof(*c.size));
	stack = malloc(end * sizeof(*stack));
	/* a base's, looked up once: the passes read each type many times */
	if (src->btf && src->base)
		c.own = malloc((src->nr_types + 1) * sizeof(*c.own));
	if (!c.state || !c.size || !stack || (src->btf && src->base && !c.own))
		goto out;
	for (id = src->start_id; c.own && id < end; id++)
		c.own[id - src->start_id] = btf__type_by_id(src->btf, id);
	c.state[0] = DONE;
	c.size[0] = NOSIZE;
	for (id = src->start_id; id < end; id++)
		if ((err = check_meta(&c, id, type_at(&c, id))))
			goto out;
	err = check_chains(&c);
	if (err)
		goto out;
	for (id = src->start_id; id < end; id++)
		if (c.state[id] == NEW && (err = resolve(&c, id, stack)))
			goto out;
	for (id = src->start_id; id < end; id++)
		if ((err = check_refs(&c, id, type_at(&c, id))))
			goto out;
	err = 0;
out:
	free(c.own);
	free(stack);
	free(c.size);
	free(c.state);
	return err;
}

/* ---- what reading a BTF takes ---- */

/* The type IDs a record of @t refers to, and the names it holds. */
struct rec_walk {
	const struct btf *btf;
	uint32_t id, total;
	struct abtf_vfault *f;
};

static int rec_fault(const struct rec_walk *w, int32_t comp, const char *what)
{
	w->f->id = w->id;
	w->f->comp = comp;
	w->f->what = what;
	return -EINVAL;
}

static int ref_ok(const struct rec_walk *w, int32_t comp, uint32_t ref,
		  const char *what)
{
	return ref < w->total ? 0 : rec_fault(w, comp, what);
}

static int str_ok(const struct rec_walk *w, int32_t comp, uint32_t off)
{
	return btf__str_by_offset(w->btf, off) ? 0 :
	       rec_fault(w, comp, "a name offset past the string section");
}

/* The components of @t (members, parameters, values, entries). */
static int walk_comps(const struct rec_walk *w, const struct btf_type *t)
{
	const char *ref = "a member of no valid type ID";
	uint32_t i, vlen = BTF_INFO_VLEN(t->info);
	const void *p = t + 1;
	int err = 0;

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (i = 0; i < vlen && !err; i++) {
			const struct btf_member *m = (const struct btf_member *)p + i;

			err = str_ok(w, i, m->name_off) ?:
			      ref_ok(w, i, m->type, ref);
		}
		return err;
	case BTF_KIND_ENUM:
		for (i = 0; i < vlen && !err; i++)
			err = str_ok(w, i, ((const struct btf_enum *)p)[i].name_off);
		return err;
	case BTF_KIND_ENUM64:
		for (i = 0; i < vlen && !err; i++)
			err = str_ok(w, i, ((const struct btf_enum64 *)p)[i].name_off);
		return err;
	case BTF_KIND_FUNC_PROTO:
		for (i = 0; i < vlen && !err; i++) {
			const struct btf_param *q = (const struct btf_param *)p + i;

			err = str_ok(w, i, q->name_off) ?:
			      ref_ok(w, i, q->type, "a parameter of no valid type ID");
		}
		return err;
	case BTF_KIND_DATASEC:
		for (i = 0; i < vlen && !err; i++)
			err = ref_ok(w, i, ((const struct btf_var_secinfo *)p)[i].type,
				     "an entry of no valid type ID");
		return err;
	case BTF_KIND_ARRAY:
		return ref_ok(w, -1, ((const struct btf_array *)p)->type,
			      "an element type of no valid type ID") ?:
		       ref_ok(w, -1, ((const struct btf_array *)p)->index_type,
			      "an index type of no valid type ID");
	}
	return 0;
}

static bool refers(int kind)
{
	switch (kind) {
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC:
	case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG:
		return true;
	}
	return false;
}

/*
 * What reading a BTF takes, the kernel's rules aside: every type ID a
 * record holds names a type (0, void, included), every name offset lies
 * in the string section. libbpf 1.1 parses neither check.
 */
static int verify_reading(const struct btf *btf, struct abtf_vfault *f,
			  uint32_t first)
{
	struct rec_walk w = { .btf = btf, .total = btf__type_cnt(btf), .f = f };
	int err = 0;

	for (w.id = first; w.id < w.total && !err; w.id++) {
		const struct btf_type *t = btf__type_by_id(btf, w.id);
		const char *why = info_fault(t);

		err = why ? rec_fault(&w, -1, why) : str_ok(&w, -1, t->name_off);
		if (!err && refers(BTF_INFO_KIND(t->info)))
			err = ref_ok(&w, -1, t->type, "a reference to no valid type ID");
		if (!err)
			err = walk_comps(&w, t);
	}
	return err;
}

/* ---- messages ---- */

static const char *const kind_names[] = {
	"UNKN", "INT", "PTR", "ARRAY", "STRUCT", "UNION", "ENUM", "FWD",
	"TYPEDEF", "VOLATILE", "CONST", "RESTRICT", "FUNC", "FUNC_PROTO",
	"VAR", "DATASEC", "FLOAT", "DECL_TAG", "TYPE_TAG", "ENUM64",
};

const char *abtf__kind_str(int kind)
{
	if (kind < 0 || kind >= (int)ARRAY_SIZE(kind_names))
		return "UNKN";
	return kind_names[kind];
}

/* The name of component @comp of @t, or NULL. */
static uint32_t comp_name(const struct btf_type *t, int32_t comp)
{
	uint32_t vlen = BTF_INFO_VLEN(t->info);

	if (comp < 0 || (uint32_t)comp >= vlen)
		return 0;
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return ((const struct btf_member *)(t + 1))[comp].name_off;
	case BTF_KIND_ENUM:
		return ((const struct btf_enum *)(t + 1))[comp].name_off;
	case BTF_KIND_ENUM64:
		return ((const struct btf_enum64 *)(t + 1))[comp].name_off;
	case BTF_KIND_FUNC_PROTO:
		return ((const struct btf_param *)(t + 1))[comp].name_off;
	default:
		return 0;
	}
}

void abtf__vfault_str(const struct abtf_vsrc *src, const struct abtf_vfault *f,
		      char *buf, size_t size)
{
	struct vctx c = { .src = src, .total = src->start_id + src->nr_types };
	const struct btf_type *t = type_at(&c, f->id);
	int kind = BTF_INFO_KIND(t->info);
	char name[80], cname[80], where[128] = "";
	const char *n = str_at(src, t->name_off);

	abtf__safe_name(n && *n ? n : "(anon)", name, sizeof(name));
	if (f->comp >= 0) {
		const char *cn = str_at(src, comp_name(t, f->comp));

		snprintf(where, sizeof(where), " %s %d '%s'",
			 kind == BTF_KIND_FUNC_PROTO || kind == BTF_KIND_FUNC ?
			 "parameter" : kind == BTF_KIND_DATASEC ? "entry" :
			 "member", f->comp,
			 kind == BTF_KIND_DATASEC || kind == BTF_KIND_FUNC ? "" :
			 abtf__safe_name(cn ? cn : "", cname, sizeof(cname)));
	}
	snprintf(buf, size, "type [%u] %s '%s'%s: %s", f->id,
		 abtf__kind_str(kind), name, where, f->what);
}

/* @btf's own types (split BTF: not its base's), checked into @msg. */
static int verify_own(const struct btf *btf, bool member, bool is_base,
		      char *msg, size_t size)
{
	const struct btf *base = btf__base_btf(btf);
	struct abtf_vsrc src = { .btf = btf, .member = member, .base = is_base };
	struct abtf_vfault f;
	int err;

	src.start_id = base ? btf__type_cnt(base) : 1;
	src.nr_types = btf__type_cnt(btf) - src.start_id;
	src.ptr_size = btf__pointer_size(btf) == 4 ? 4 : 8;
	if (is_base && !base)	/* a name's offset, against the section's */
		src.str_len = abtf__btf_str_len(btf);
	err = abtf__verify(&src, &f);
	if (err == -EINVAL && size)
		abtf__vfault_str(&src, &f, msg, size);
	return err;
}

/* check_chains() of @src alone, for a BTF read rather than loaded. */
static int chains_of(const struct abtf_vsrc *src, struct abtf_vfault *f)
{
	struct vctx c = { .src = src, .f = f };

	c.total = src->start_id + src->nr_types;
	return check_chains(&c);
}

/*
 * The header of @btf as read (libbpf keeps the bytes it was given) held
 * to the rules the archive reader applies to a base or a member
 * (abtf__btf_header_fault(), one message per rule): libbpf 1.1 reads a
 * version 0, flags 1, or a layout table past the strings, all of which
 * the kernel refuses.
 */
static int header_said(const struct btf *btf, char *msg, size_t size)
{
	uint32_t raw_size;
	const void *raw = btf__raw_data(btf, &raw_size);
	const char *why;
	size_t at;

	if (!raw)
		return -ENOMEM;
	why = abtf__btf_header_fault(raw, raw_size, &at);
	if (!why)
		return 0;
	if (size)
		snprintf(msg, size, "BTF header byte %zu: %s", at, why);
	return -EINVAL;
}

ABTF_API int abtf_btf__verify(const struct btf *btf, enum abtf_verify level,
				char *msg, size_t size)
{
	const struct btf *base;
	struct abtf_vsrc src = { .btf = btf };
	struct abtf_vfault f;
	int err;

	if (!btf || (size && !msg))
		return -EINVAL;
	if (level == ABTF_VERIFY_KERNEL)
		return verify_own(btf, false, false, msg, size);
	if (level != ABTF_VERIFY_READING)
		return -EINVAL;
	base = btf__base_btf(btf);
	src.start_id = base ? btf__type_cnt(base) : 1;
	src.nr_types = btf__type_cnt(btf) - src.start_id;
	err = header_said(btf, msg, size);
	if (err)
		return err;
	err = verify_reading(btf, &f, src.start_id);
	if (!err)
		err = chains_of(&src, &f);
	if (err == -EINVAL && size)
		abtf__vfault_str(&src, &f, msg, size);
	return err;
}

/* verify_own(), and one message naming @path and @what on a fault. */
static int verify_said(const struct btf *btf, bool member, bool is_base,
		       const char *path, const char *what,
		       const struct abtf_printer *pr)
{
	char msg[512];
	int err = verify_own(btf, member, is_base, msg, sizeof(msg));

	if (err == -EINVAL)
		pr_warn(pr, "%s: %s breaks the kernel's BTF rules: %s", path,
			what, msg);
	return err;
}

int abtf__verify_btf(const struct btf *btf, bool member, const char *path,
		     const char *what, const struct abtf_printer *pr)
{
	return verify_said(btf, member, false, path, what, pr);
}

int abtf__verify_base(const struct btf *btf, const char *path,
		      const struct abtf_printer *pr)
{
	return verify_said(btf, false, true, path, "the base BTF", pr);
}
