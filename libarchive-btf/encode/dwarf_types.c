// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF type DIEs -> BTF type nodes.
 *
 * Canonical form. The final link deduplicates thousands of objects' BTF
 * (exact.c's matching, then btf__dedup() at every node of the merge tree,
 * merge.c), and both only merge types of identical shape. So the same C
 * type must come out of every object with the same shape:
 *
 *  - Array index: always the INT "int" (4 bytes, signed), added to the
 *    object if its DWARF has none. (pahole uses the CU's own "int" or, in a
 *    CU without one, an artificial "__ARRAY_SIZE_TYPE__".)
 *  - Qualifiers: a run of DW_TAG_const/volatile/restrict (and the
 *    transparent DW_TAG_atomic) types becomes CONST -> VOLATILE -> RESTRICT
 *    -> the unqualified type, whatever order GCC emitted them in.
 *  - Multi-dimensional arrays: one ARRAY of all the elements, as pahole
 *    1.24 does (int a[2][3] is ARRAY(int, 6)).
 *  - Vector types (DW_AT_GNU_vector): an ARRAY of the element type, as
 *    pahole does; a vector's size is nelems * element size.
 *  - Bitfields: DW_AT_data_bit_offset (DWARF 5) and DW_AT_bit_offset +
 *    DW_AT_byte_size (DWARF 4) both become the member's bit offset from the
 *    start of the struct plus a bitfield size; libbpf sets kind_flag.
 *  - A declaration-only struct/union is a FWD; a declaration-only enum is
 *    an ENUM of vlen 0 (libbpf's BTF_FWD_ENUM), as pahole does.
 *  - Enums wider than 4 bytes are ENUM64; an enum is signed iff one of its
 *    values is negative (libbpf's and pahole's rule).
 *  - clang's btf_type_tags of a pointer's pointee: PTR -> TYPE_TAG(last)
 *    -> ... -> TYPE_TAG(first) -> pointee, as pahole; btf_decl_tags of
 *    structs, unions, members and typedefs are DECL_TAGs added after
 *    every other node (dwarf_types__add_decl_tags()).
 *
 * What BTF cannot express is an error (-EOPNOTSUPP) naming the DIE, never a
 * silent approximation: complex and other non-integer, non-float base types
 * (pahole 1.24 fails on them too) and C++ / Fortran-only tags. The one
 * approximation is pahole's own: an integer of a size other than 1, 2, 4,
 * 8 or 16 bytes (clang's DW_OP_convert helpers) is a 4-byte INT named
 * __SANITIZED_FAKE_INT__.
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "encode/dwarf_types.h"
#include "btf/verify.h"

#define QUAL_CONST	1
#define QUAL_VOLATILE	2
#define QUAL_RESTRICT	4

/* ---- messages ---- */

static const char *tag_name(int tag)
{
	switch (tag) {
	case DW_TAG_base_type:		return "base type";
	case DW_TAG_structure_type:	return "struct";
	case DW_TAG_union_type:		return "union";
	case DW_TAG_enumeration_type:	return "enum";
	case DW_TAG_typedef:		return "typedef";
	case DW_TAG_array_type:		return "array";
	case DW_TAG_subrange_type:	return "subrange";
	case DW_TAG_member:		return "member";
	case DW_TAG_enumerator:		return "enumerator";
	case DW_TAG_subprogram:		return "function";
	case DW_TAG_subroutine_type:	return "function type";
	case DW_TAG_variable:		return "variable";
	case DW_TAG_formal_parameter:	return "parameter";
	case DW_TAG_class_type:		return "class";
	case DW_TAG_reference_type:	return "reference type";
	case DW_TAG_rvalue_reference_type: return "rvalue reference type";
	case DW_TAG_ptr_to_member_type:	return "pointer-to-member type";
	case DW_TAG_string_type:	return "string type";
	case DW_TAG_set_type:		return "set type";
	case DW_TAG_file_type:		return "file type";
	case DW_TAG_pointer_type:	return "pointer type";
	case DW_TAG_LLVM_annotation:	return "annotation";
	default:			return NULL;
	}
}

int dwarf_types__die_error(struct ir *ir, const struct dw_die *die, int err,
		  const char *what)
{
	const char *tname = tag_name(die->tag);
	char tbuf[32], name[96];

	if (!tname) {
		snprintf(tbuf, sizeof(tbuf), "DW_TAG 0x%x", die->tag);
		tname = tbuf;
	}
	/* a name is the input's bytes: never a control byte to a terminal */
	pr_warn(ir->pr, "%s: DIE 0x%" PRIx64 " (%s %s): %s", ir->path,
		die->off, tname, die->have & DW_HAVE_NAME && die->name ?
		abtf__safe_name(die->name, name, sizeof(name)) : "<anon>",
		what);
	return err;
}


/* A DWARF reader error (-EINVAL corrupt, -EOPNOTSUPP, -ENOMEM) at @die. */
static int read_error(struct ir *ir, const struct dw_die *die, int err,
		      const char *what, const char *why)
{
	char buf[256];

	if (err == -ENOMEM)
		return err;
	snprintf(buf, sizeof(buf), "%s: %s", what, why ? why : "bad DWARF");
	return dwarf_types__die_error(ir, die, err, buf);
}

/* ---- attributes ---- */

static const char *type_name(const struct dw_die *die)
{
	return die->have & DW_HAVE_NAME ? die->name : NULL;
}

static bool is_declaration(const struct dw_die *die)
{
	return (die->have & DW_HAVE_DECLARATION) && die->declaration;
}

static int die_size(struct ir *ir, const struct dw_die *die, uint32_t *size)
{
	if (!(die->have & DW_HAVE_BYTE_SIZE)) {
		*size = 0;
		return 0;
	}
	if (die->byte_size > UINT32_MAX)
		return dwarf_types__die_error(ir, die, -E2BIG, "size does not fit BTF");
	*size = die->byte_size;
	return 0;
}

/* ---- the canonical index type ---- */

static int index_type(struct ir *ir)
{
	struct ir_node n = {
		.kind = BTF_KIND_INT, .name = "int", .size = 4,
		.flag = BTF_INT_SIGNED,
	};
	int id;

	if (ir->int_id)
		return ir->int_id;
	id = ir__add_node(ir, &n);
	if (id > 0)
		ir->int_id = id;
	return id;
}

/* ---- items being gathered ---- */

/*
 * A node's items are gathered on one stack before they are stored, since
 * converting a member's type may gather another node's items meanwhile:
 * those are pushed above and popped again before the member is pushed.
 */
static int scratch_push(struct ir *ir, const struct ir_item *it)
{
	if (abtf_grow(ir->scratch, ir->cap_scratch, ir->nr_scratch + 1))
		return -ENOMEM;
	ir->scratch[ir->nr_scratch++] = *it;
	return 0;
}

/* Store the items pushed since @base as node @id's, and pop them. */
static int scratch_store(struct ir *ir, const struct dw_die *die, uint32_t id,
			 size_t base, const char *what)
{
	size_t nr = ir->nr_scratch - base;
	int err = 0;

	if (nr > 0xffff)
		err = dwarf_types__die_error(ir, die, -E2BIG, what);
	else if (nr)
		err = ir__set_items(ir, id, ir->scratch + base, nr);
	ir->nr_scratch = base;
	return err;
}

/* Iterate over the children of @die: for (c = first; !c; c = next). */
static int first_child(struct ir *ir, const struct dw_die *die,
		       struct dw_die *child)
{
	const char *why = NULL;
	int res = dw_die__child(ir->dw, die, child, &why);

	return res < 0 ? read_error(ir, die, res, "bad children", why) : res;
}

static int next_child(struct ir *ir, const struct dw_die *parent,
		      struct dw_die *child)
{
	const char *why = NULL;
	int res = dw_die__sibling(ir->dw, child, &why);

	return res < 0 ? read_error(ir, parent, res, "bad children", why) : res;
}

/* ---- clang's btf_type_tag and btf_decl_tag annotations ---- */

/*
 * clang (14 and later) writes __attribute__((btf_type_tag("x"))) and
 * btf_decl_tag("x") as DW_TAG_LLVM_annotation children, DW_AT_name
 * "btf_type_tag" or "btf_decl_tag", DW_AT_const_value the string: type tags
 * under the DW_TAG_pointer_type whose pointee they qualify, declaration
 * tags under the struct, union, member, typedef, function, parameter or
 * variable. Annotations of other names are not ours (pahole ignores them
 * too). The string of a tag: NULL if @a is no annotation of kind @kind,
 * an error if it is one without a string.
 */
static int annotation(struct ir *ir, const struct dw_die *a, const char *kind,
		      const char **value)
{
	const char *why = NULL;
	int err;

	*value = NULL;
	if (a->tag != DW_TAG_LLVM_annotation || !(a->have & DW_HAVE_NAME) ||
	    strcmp(a->name, kind))
		return 0;
	err = dw_die__const_string(ir->dw, a, value, &why);
	if (err)
		return read_error(ir, a, err, "bad DW_AT_const_value", why);
	if (!*value)
		return dwarf_types__die_error(ir, a, -EINVAL,
				     "bad DWARF: a tag annotation without a "
				     "string value");
	return 0;
}

static int push_decl_tag(struct ir *ir, const char *name, uint32_t target,
			 int comp)
{
	struct ir_decl_tag *t;

	if (abtf_grow(ir->decl_tags, ir->cap_decl_tags, ir->nr_decl_tags + 1))
		return -ENOMEM;
	t = &ir->decl_tags[ir->nr_decl_tags++];
	t->name = name;
	t->target = target;
	t->comp = comp;
	return 0;
}

/* The btf_decl_tag children of @die only. */
static int own_decl_tags(struct ir *ir, const struct dw_die *die,
			 uint32_t target, int comp)
{
	struct dw_die child;
	const char *value;
	int res, err;

	if (!dw_unit__annotations(die->cu))
		return 0;	/* GCC's, or no tags in the unit */
	for (res = first_child(ir, die, &child); !res;
	     res = next_child(ir, die, &child)) {
		err = annotation(ir, &child, "btf_decl_tag", &value);
		if (!err && value)
			err = push_decl_tag(ir, value, target, comp);
		if (err)
			return err;
	}
	return res < 0 ? res : 0;
}

int dwarf_types__decl_tags(struct ir *ir, const struct dw_die *die, uint32_t target,
		  int comp)
{
	const char *why = NULL;
	struct dw_die o;
	int err;

	err = own_decl_tags(ir, die, target, comp);
	if (err || !(die->have & DW_HAVE_ORIGIN) ||
	    !dw_unit__annotations(die->cu))
		return err;
	/* an out-of-line instance or a definition: its declaration's tags */
	err = dw_die__read(ir->dw, die->cu, die->origin, &o, &why);
	if (err)
		return read_error(ir, die, err, "bad DW_AT_abstract_origin", why);
	return own_decl_tags(ir, &o, target, comp);
}

int dwarf_types__add_decl_tags(struct ir *ir)
{
	size_t i;

	for (i = 0; i < ir->nr_decl_tags; i++) {
		const struct ir_decl_tag *t = &ir->decl_tags[i];
		struct ir_node n = {
			.kind = BTF_KIND_DECL_TAG, .name = t->name,
			.ref = t->target, .size = t->comp,
		};
		int id = ir__add_node(ir, &n);

		if (id < 0)
			return id;
	}
	ir->nr_decl_tags = 0;
	return 0;
}

/*
 * The pointee @ref of pointer @die behind its btf_type_tags: the first
 * tag is nearest the pointee, the last nearest the pointer (PTR -> "rcu"
 * -> "user" -> int for int __user __rcu *), as pahole encodes them; so
 * the same declaration has the same shape in every object.
 */
static int type_tags(struct ir *ir, const struct dw_die *die, int ref)
{
	struct dw_die child;
	const char *value;
	int res, err;

	for (res = first_child(ir, die, &child); !res;
	     res = next_child(ir, die, &child)) {
		struct ir_node n = { .kind = BTF_KIND_TYPE_TAG };

		err = annotation(ir, &child, "btf_type_tag", &value);
		if (err)
			return err;
		if (!value)
			continue;
		n.name = value;
		n.ref = ref;
		ref = ir__add_node(ir, &n);
		if (ref < 0)
			return ref;
	}
	return res < 0 ? res : ref;
}

/* ---- one converter per tag ---- */

static int conv_base(struct ir *ir, const struct dw_die *die, struct ir_node *n)
{
	int err;

	err = die_size(ir, die, &n->size);
	if (err)
		return err;
	if (!(die->have & DW_HAVE_ENCODING))
		return dwarf_types__die_error(ir, die, -EINVAL, "base type without encoding");
	switch (die->encoding) {
	case DW_ATE_boolean:
		n->flag = BTF_INT_BOOL;
		break;
	case DW_ATE_signed:
	case DW_ATE_signed_char:
		n->flag = BTF_INT_SIGNED;
		break;
	case DW_ATE_unsigned:
	case DW_ATE_unsigned_char:
	case DW_ATE_UTF:
		n->flag = 0;
		break;
	case DW_ATE_float:
		n->kind = BTF_KIND_FLOAT;
		return 0;
	default:
		return dwarf_types__die_error(ir, die, -EOPNOTSUPP,
				 "BTF cannot express this base type encoding "
				 "(complex, decimal or fixed point)");
	}
	switch (n->size) {
	case 1: case 2: case 4: case 8: case 16:
		return 0;
	default:
		/*
		 * clang's DWARF 5 has base types of odd sizes (3, 5, 9 bytes:
		 * "DW_ATE_unsigned_24") that only DW_OP_convert in location
		 * lists refers to. pahole encodes every integer of a size
		 * other than these as a 4-byte INT named
		 * __SANITIZED_FAKE_INT__, keeping its encoding; so do we.
		 */
		n->name = ABTF_FAKE_INT;
		n->size = 4;
		return 0;
	}
}

/* DW_OP_plus_uconst N and nothing else: N. */
static bool plus_uconst(const struct dw_value *v, uint64_t *off)
{
	const uint8_t *p = v->block, *end = v->block + v->u;
	uint64_t n = 0;
	unsigned int shift = 0;

	if (v->cls != DW_CLASS_BLOCK || v->u < 2 || *p++ != DW_OP_plus_uconst)
		return false;
	while (p < end) {
		uint8_t b = *p++;

		if (shift < 64)
			n |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			*off = n;
			return p == end;
		}
	}
	return false;
}

/* DWARF 4 data_member_location may be an expression: DW_OP_plus_uconst N. */
static int member_byte_offset(struct ir *ir, const struct dw_die *die,
			      uint64_t *off)
{
	*off = 0;
	if (!(die->have & DW_HAVE_MEMBER_LOC))
		return 0;
	if (dw_value__udata(&die->member_loc, off) == 0 ||
	    plus_uconst(&die->member_loc, off))
		return 0;
	return dwarf_types__die_error(ir, die, -EOPNOTSUPP,
			 "member location is not a constant offset");
}

/* The byte size of the type DIE @die names, as dwarf_bytesize(): or -1. */
static int64_t type_byte_size(struct ir *ir, const struct dw_die *die)
{
	struct dw_die type;
	const char *why;

	if (!(die->have & DW_HAVE_TYPE) ||
	    dw_die__read(ir->dw, die->cu, die->type, &type, &why) ||
	    !(type.have & DW_HAVE_BYTE_SIZE))
		return -1;
	return type.byte_size;
}

static int member_bits(struct ir *ir, const struct dw_die *die,
		       struct ir_item *it, bool big_endian)
{
	uint64_t byte_off, storage;
	uint64_t bit_size = die->have & DW_HAVE_BIT_SIZE ? die->bit_size : 0;
	int err;

	it->bit_sz = bit_size;
	if (die->have & DW_HAVE_DATA_BIT_OFF) {
		it->bit_off = die->data_bit_off;	/* DWARF 5 */
		return 0;
	}
	err = member_byte_offset(ir, die, &byte_off);
	if (err)
		return err;
	it->bit_off = byte_off * 8;
	if (!bit_size || !(die->have & DW_HAVE_BIT_OFF))
		return 0;
	/* DWARF 4: bit_off counts from the storage unit's most significant bit. */
	storage = die->byte_size;
	if (!(die->have & DW_HAVE_BYTE_SIZE)) {
		int64_t sz = type_byte_size(ir, die);

		if (sz <= 0)
			return dwarf_types__die_error(ir, die, -EINVAL,
					 "bitfield without a storage size");
		storage = sz;
	}
	if (big_endian)
		it->bit_off += die->bit_off;
	else
		it->bit_off += storage * 8 - die->bit_off - bit_size;
	return 0;
}

static int conv_member(struct ir *ir, const struct dw_die *m, struct ir_item *it)
{
	int tid = 0;

	it->name = type_name(m);
	if (m->have & DW_HAVE_TYPE)
		tid = dwarf_types__type_of_off(ir, m, m->type);
	if (tid < 0)
		return tid;
	it->type = tid;
	return member_bits(ir, m, it, ir->big_endian);
}

static int conv_composite(struct ir *ir, const struct dw_die *die, uint32_t id)
{
	size_t base = ir->nr_scratch;
	struct dw_die child;
	int res, err = 0;

	for (res = first_child(ir, die, &child); !res;
	     res = next_child(ir, die, &child)) {
		struct ir_item it = { 0 };
		const char *tag;

		if (child.tag == DW_TAG_LLVM_annotation) {
			err = annotation(ir, &child, "btf_decl_tag", &tag);
			if (!err && tag)
				err = push_decl_tag(ir, tag, id, -1);
			if (err)
				break;
			continue;
		}
		if (child.tag != DW_TAG_member)
			continue;
		err = conv_member(ir, &child, &it);
		if (!err && child.children)
			err = own_decl_tags(ir, &child, id,
					    ir->nr_scratch - base);
		if (!err)
			err = scratch_push(ir, &it);
		if (err)
			break;
	}
	if (!err && res < 0)
		err = res;
	if (err) {
		ir->nr_scratch = base;
		return err;
	}
	return scratch_store(ir, die, id, base, "too many members for BTF");
}

/*
 * Enumerator value as two's complement; *neg set if it is negative. GCC
 * writes negative values as DW_FORM_sdata and all others as unsigned data
 * forms (128 in an int enum is data1 0x80), so data forms zero-extend.
 */
static int enumerator_value(struct ir *ir, const struct dw_die *die,
			    uint64_t *val, bool *neg)
{
	const struct dw_value *v = &die->const_value;

	if (!(die->have & DW_HAVE_CONST_VALUE))
		return dwarf_types__die_error(ir, die, -EINVAL, "enumerator without value");
	if (v->cls != DW_CLASS_UDATA && v->cls != DW_CLASS_SDATA)
		return dwarf_types__die_error(ir, die, -EINVAL, "bad enumerator value");
	*val = v->u;
	*neg = v->cls == DW_CLASS_SDATA && (int64_t)v->u < 0;
	return 0;
}

static int conv_enum(struct ir *ir, const struct dw_die *die, uint32_t id)
{
	size_t base = ir->nr_scratch;
	bool neg = false, any_neg = false;
	struct dw_die child;
	int res, err = 0;

	for (res = first_child(ir, die, &child); !res;
	     res = next_child(ir, die, &child)) {
		struct ir_item it = { 0 };

		if (child.tag != DW_TAG_enumerator)
			continue;
		it.name = type_name(&child);
		err = enumerator_value(ir, &child, &it.val, &neg);
		any_neg |= neg;
		if (!err)
			err = scratch_push(ir, &it);
		if (err)
			break;
	}
	if (!err && res < 0)
		err = res;
	ir->nodes[id - 1].flag = any_neg;
	if (err) {
		ir->nr_scratch = base;
		return err;
	}
	return scratch_store(ir, die, id, base, "too many enumerators for BTF");
}

/* A constant bound: sdata is signed, data forms are unsigned (GCC). */
static bool bound_value(const struct dw_value *v, int64_t *val)
{
	switch (v->cls) {
	case DW_CLASS_SDATA:
	case DW_CLASS_UDATA:	/* data8 all ones: old GCC's -1 for [0] */
		*val = v->u;
		return true;
	default:
		return false;	/* a VLA: an expression or a variable */
	}
}

/*
 * nelems of one DW_TAG_subrange_type: 0 for flexible, unknown or [0]; a
 * count past BTF's 32 bits is returned as it is, for conv_array() to
 * refuse (at every depth alike).
 */
static uint64_t subrange_nelems(const struct dw_die *sub)
{
	uint64_t lower = 0;
	int64_t upper;

	if (sub->have & DW_HAVE_COUNT)
		return sub->count;
	if (!(sub->have & DW_HAVE_UPPER_BOUND) ||
	    !bound_value(&sub->upper_bound, &upper))
		return 0;
	if (sub->have & DW_HAVE_LOWER_BOUND)
		lower = sub->lower_bound;
	if (upper < 0 || (uint64_t)upper < lower ||
	    (uint64_t)upper - lower == UINT64_MAX)
		return 0;
	return upper - lower + 1;
}

/*
 * The ARRAY of one dimension after @prev (the DIE's own node for the
 * first): appended, @prev made to refer to it.
 */
static int inner_array(struct ir *ir, int prev, int idx)
{
	struct ir_node n = { .kind = BTF_KIND_ARRAY, .first = idx };
	int id = ir__add_node(ir, &n);

	if (id > 0)
		ir->nodes[prev - 1].ref = id;
	return id;
}

/*
 * An ARRAY per dimension, outermost first, as DWARF's subranges and C
 * have them and pahole 1.32 writes them: int a[2][3] is ARRAY(2) of
 * ARRAY(3) of int. btf-link --flat_arrays gives pahole 1.31's shape, one
 * ARRAY of the product (link/filter.c). A dimension past BTF's 32-bit
 * nelems is refused, and so is a product past it, which the flat shape
 * could not hold (char[0x100000005] once came out as nelems 0).
 */
static int conv_array(struct ir *ir, struct dw_die *die, uint32_t id)
{
	uint64_t total = 1, dim;
	struct dw_die child;
	int prev = id, nr = 0, elem, idx, res;

	idx = index_type(ir);
	if (idx < 0)
		return idx;
	/* an ARRAY keeps its index type in ->first */
	ir->nodes[id - 1].first = idx;
	ir->nodes[id - 1].size = 0;
	for (res = first_child(ir, die, &child); !res;
	     res = next_child(ir, die, &child)) {
		if (child.tag != DW_TAG_subrange_type)
			continue;
		dim = subrange_nelems(&child);
		if (dim > UINT32_MAX ||
		    __builtin_mul_overflow(total, dim, &total) ||
		    total > UINT32_MAX)
			return dwarf_types__die_error(ir, die, -E2BIG,
					 "an array of more elements than "
					 "BTF's 32-bit nelems holds");
		if (nr++)
			prev = inner_array(ir, prev, idx);
		if (prev < 0)
			return prev;
		ir->nodes[prev - 1].size = dim;
	}
	if (res < 0)
		return res;
	elem = dwarf_types__type_of_attr(ir, die);
	if (elem < 0)
		return elem;
	ir->nodes[prev - 1].ref = elem;
	return 0;
}

/* A parameter's name and type ID, from its origin if it has one. */
static int param(struct ir *ir, struct dw_die *die, const char **name)
{
	const char *why = NULL;
	int err;

	if (die->have & DW_HAVE_ORIGIN) {
		err = dw_die__integrate(ir->dw, die, &why);
		if (err)
			return read_error(ir, die, err, "bad DW_AT_abstract_origin",
					  why);
	}
	*name = type_name(die);
	if (!(die->have & DW_HAVE_TYPE))
		return 0;
	return dwarf_types__type_of_off(ir, die, die->type);
}

/* FUNC_PROTO of a DW_TAG_subprogram or DW_TAG_subroutine_type. */
int dwarf_types__func_proto(struct ir *ir, struct dw_die *die)
{
	struct ir_node n = { .kind = BTF_KIND_FUNC_PROTO };
	size_t base = ir->nr_scratch;
	struct dw_die child;
	int id, tid, res, err = 0;
	bool varargs = false;

	id = ir__add_node(ir, &n);
	if (id < 0)
		return id;
	if (die->tag == DW_TAG_subroutine_type &&
	    ir__map_put(&ir->map, die->off, id))
		return -ENOMEM;
	tid = dwarf_types__type_of_attr(ir, die);
	if (tid < 0)
		return tid;
	ir->nodes[id - 1].ref = tid;
	for (res = first_child(ir, die, &child); !res;
	     res = next_child(ir, die, &child)) {
		struct ir_item it = { 0 };

		/*
		 * The vararg marker goes last, as pahole puts it: GCC may
		 * list a clone's parameters after DW_TAG_unspecified_parameters,
		 * and the kernel refuses a void parameter anywhere else.
		 */
		if (child.tag == DW_TAG_unspecified_parameters)
			varargs = true;
		if (child.tag != DW_TAG_formal_parameter)
			continue;
		tid = param(ir, &child, &it.name);
		if (tid < 0) {
			err = tid;
			break;
		}
		it.type = tid;
		err = scratch_push(ir, &it);
		if (err)
			break;
	}
	if (!err && res < 0)
		err = res;
	if (!err && varargs) {
		struct ir_item it = { 0 };

		err = scratch_push(ir, &it);
	}
	if (!err)
		err = scratch_store(ir, die, id, base,
				    "too many parameters for BTF");
	ir->nr_scratch = base;
	return err ? err : id;
}

static bool is_qualifier(int tag)
{
	return tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	       tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type;
}

static int qual_bit(int tag)
{
	switch (tag) {
	case DW_TAG_const_type:		return QUAL_CONST;
	case DW_TAG_volatile_type:	return QUAL_VOLATILE;
	case DW_TAG_restrict_type:	return QUAL_RESTRICT;
	default:			return 0;	/* _Atomic */
	}
}

/*
 * Follow the run of qualifier DIEs starting at @die: their BTF qualifiers
 * into *quals, the first DIE that is not one into @base (tag 0: void).
 */
static int qualifier_run(struct ir *ir, const struct dw_die *die, int *quals,
			 struct dw_die *base)
{
	const char *why = NULL;
	int err, n = 0;

	*quals = 0;
	*base = *die;
	while (is_qualifier(base->tag)) {
		if (++n > 64)	/* GCC emits at most four */
			return dwarf_types__die_error(ir, die, -EINVAL,
					 "bad DWARF: a loop of qualifiers");
		*quals |= qual_bit(base->tag);
		if (!(base->have & DW_HAVE_TYPE)) {
			base->tag = 0;	/* const void */
			return 0;
		}
		err = dw_die__read(ir->dw, base->cu, base->type, base, &why);
		if (err)
			return read_error(ir, die, err, "bad DW_AT_type", why);
	}
	return 0;
}

/*
 * A run of qualifier DIEs: collect the set, find the unqualified type, emit
 * the set in canonical order. @id is the node already reserved for @die and
 * becomes the outermost qualifier.
 */
static int conv_qualifiers(struct ir *ir, const struct dw_die *die,
			   uint32_t id)
{
	static const struct { int bit; int kind; } order[] = {
		{ QUAL_CONST, BTF_KIND_CONST },
		{ QUAL_VOLATILE, BTF_KIND_VOLATILE },
		{ QUAL_RESTRICT, BTF_KIND_RESTRICT },
	};
	struct dw_die cur;
	int quals, base = 0, i, prev = 0, err;

	err = qualifier_run(ir, die, &quals, &cur);
	if (err)
		return err;
	if (cur.tag) {
		base = dwarf_types__type_of_die(ir, &cur);
		if (base < 0)
			return base;
	}
	/* build from the inside out so the outermost is @id */
	for (i = ARRAY_SIZE(order) - 1; i >= 0; i--) {
		struct ir_node n = { .kind = order[i].kind };
		int nid;

		if (!(quals & order[i].bit))
			continue;
		quals &= ~order[i].bit;
		if (!quals) {
			ir->nodes[id - 1].kind = order[i].kind;
			ir->nodes[id - 1].ref = prev ? prev : base;
			return 0;
		}
		n.ref = prev ? prev : base;
		nid = ir__add_node(ir, &n);
		if (nid < 0)
			return nid;
		prev = nid;
	}
	return 0;
}

static int conv_struct(struct ir *ir, const struct dw_die *die,
		       struct ir_node *n)
{
	bool is_union = die->tag == DW_TAG_union_type;

	n->kind = is_union ? BTF_KIND_UNION : BTF_KIND_STRUCT;
	if (is_declaration(die)) {
		n->kind = BTF_KIND_FWD;
		n->flag = is_union;	/* kind_flag: union */
		return 0;
	}
	return die_size(ir, die, &n->size);
}

static int conv_enum_node(struct ir *ir, const struct dw_die *die,
			  struct ir_node *n)
{
	int err;

	if (is_declaration(die)) {
		/* libbpf's BTF_FWD_ENUM: an ENUM of vlen 0, size 4 */
		n->kind = BTF_KIND_ENUM;
		n->size = 4;
		return 0;
	}
	err = die_size(ir, die, &n->size);
	if (err)
		return err;
	n->kind = n->size > 4 ? BTF_KIND_ENUM64 : BTF_KIND_ENUM;
	return 0;
}

/* Fill the node's own fields, before anything is recursed into. */
static int conv_node(struct ir *ir, const struct dw_die *die,
		     struct ir_node *n)
{
	switch (die->tag) {
	case DW_TAG_base_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_typedef:
		n->name = type_name(die);
		break;
	}
	switch (die->tag) {
	case DW_TAG_base_type:
		n->kind = BTF_KIND_INT;
		return conv_base(ir, die, n);
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		return conv_struct(ir, die, n);
	case DW_TAG_enumeration_type:
		return conv_enum_node(ir, die, n);
	case DW_TAG_pointer_type:
		n->kind = BTF_KIND_PTR;
		return 0;
	case DW_TAG_typedef:
		n->kind = BTF_KIND_TYPEDEF;
		return 0;
	case DW_TAG_array_type:
		n->kind = BTF_KIND_ARRAY;
		return 0;
	case DW_TAG_subroutine_type:
		n->kind = BTF_KIND_FUNC_PROTO;
		return 0;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		n->kind = BTF_KIND_CONST;	/* refined by conv_qualifiers */
		return 0;
	default:
		return dwarf_types__die_error(ir, die, -EOPNOTSUPP,
				 "BTF cannot express this DWARF type");
	}
}

/* Resolve what the node refers to, now that it is memoised. */
static int conv_refs(struct ir *ir, struct dw_die *die, uint32_t id)
{
	int ref;

	switch (die->tag) {
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		if (ir->nodes[id - 1].kind == BTF_KIND_FWD)
			return 0;
		return conv_composite(ir, die, id);
	case DW_TAG_enumeration_type:
		return conv_enum(ir, die, id);
	case DW_TAG_array_type:
		return conv_array(ir, die, id);
	case DW_TAG_pointer_type:
	case DW_TAG_typedef:
		ref = dwarf_types__type_of_attr(ir, die);
		if (ref >= 0 && die->children &&
		    die->tag == DW_TAG_pointer_type &&
		    dw_unit__annotations(die->cu))
			ref = type_tags(ir, die, ref);
		if (ref < 0)
			return ref;
		ir->nodes[id - 1].ref = ref;
		if (die->children && die->tag == DW_TAG_typedef)
			return own_decl_tags(ir, die, id, -1);
		return 0;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		return conv_qualifiers(ir, die, id);
	default:
		return 0;
	}
}

bool dwarf_types__is_type_tag(int tag)
{
	switch (tag) {
	case DW_TAG_base_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_pointer_type:
	case DW_TAG_typedef:
	case DW_TAG_array_type:
	case DW_TAG_subroutine_type:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		return true;
	default:
		return false;
	}
}

/* A run of _Atomic only: BTF has no such qualifier, it is transparent. */
static int atomic_type(struct ir *ir, struct dw_die *die)
{
	int id = dwarf_types__type_of_attr(ir, die);

	if (id > 0 && ir__map_put(&ir->map, die->off, id))
		return -ENOMEM;
	return id;
}

/* Convert what node @id refers to later (see struct ir_pending). */
static int defer_refs(struct ir *ir, const struct dw_die *die, uint32_t id)
{
	struct ir_pending *p;
	int err;

	err = abtf_grow(ir->pending, ir->cap_pending, ir->nr_pending + 1);
	if (err)
		return err;
	p = &ir->pending[ir->nr_pending++];
	p->cu = die->cu;
	p->off = die->off;
	p->id = id;
	return 0;
}

/* Back at depth 0: the deferred nodes, in the order they were made. */
static int drain_pending(struct ir *ir)
{
	const char *why = NULL;
	struct dw_die die;
	size_t i;
	int err = 0;

	for (i = 0; i < ir->nr_pending && !err; i++) {
		struct ir_pending p = ir->pending[i];

		err = dw_die__read(ir->dw, p.cu, p.off, &die, &why);
		if (err) {
			pr_warn(ir->pr, "%s: DIE 0x%" PRIx64 ": %s", ir->path,
				p.off, why ? why : "bad DWARF");
			break;
		}
		ir->depth = 1;
		err = conv_refs(ir, &die, p.id);
		ir->depth = 0;
	}
	ir->nr_pending = 0;
	return err;
}

static int type_of_die(struct ir *ir, struct dw_die *die)
{
	struct ir_node n = { 0 };
	int id, err;

	if (die->tag == DW_TAG_unspecified_type)
		return 0;		/* C's void, where GCC names it */
	id = ir__map_get(&ir->map, die->off);
	if (id)
		return id;
	if (die->tag == DW_TAG_atomic_type) {
		struct dw_die base;
		int quals;

		err = qualifier_run(ir, die, &quals, &base);
		if (err)
			return err;
		if (!quals)
			return atomic_type(ir, die);
	}
	err = conv_node(ir, die, &n);
	if (err)
		return err;
	if (die->tag == DW_TAG_subroutine_type)
		return dwarf_types__func_proto(ir, die);
	id = ir__add_node(ir, &n);
	if (id < 0)
		return id;
	if (ir__map_put(&ir->map, die->off, id))
		return -ENOMEM;
	if (ir->depth > IR_DEFER_DEPTH)
		err = defer_refs(ir, die, id);
	else
		err = conv_refs(ir, die, id);
	return err ? err : id;
}

/*
 * Recursive up to IR_DEFER_DEPTH, then iterative: nodes made deeper have
 * their references converted once the outermost call is back at depth 0,
 * so the stack used is bounded whatever the length of a type chain.
 */
int dwarf_types__type_of_die(struct ir *ir, struct dw_die *die)
{
	int id, err;

	if (ir->depth >= IR_MAX_DEPTH)
		return dwarf_types__die_error(ir, die, -E2BIG,
				     "types nested too deeply for BTF "
				     "(function types of function types?)");
	ir->depth++;
	id = type_of_die(ir, die);
	ir->depth--;
	if (ir->depth)
		return id;
	if (id < 0) {
		ir->nr_pending = 0;
		return id;
	}
	err = drain_pending(ir);
	return err ? err : id;
}

int dwarf_types__type_of_off(struct ir *ir, const struct dw_die *from, uint64_t off)
{
	const char *why = NULL;
	struct dw_die die;
	int id, err;

	id = ir__map_get(&ir->map, off);
	if (id)
		return id;
	err = dw_die__read(ir->dw, from->cu, off, &die, &why);
	if (err)
		return read_error(ir, from, err, "bad DW_AT_type reference",
				  why);
	return dwarf_types__type_of_die(ir, &die);
}

int dwarf_types__type_of_attr(struct ir *ir, struct dw_die *die)
{
	const char *why = NULL;
	int err;

	if (!(die->have & DW_HAVE_TYPE) && (die->have & DW_HAVE_ORIGIN)) {
		err = dw_die__integrate(ir->dw, die, &why);
		if (err)
			return read_error(ir, die, err,
					  "bad DW_AT_abstract_origin", why);
	}
	if (!(die->have & DW_HAVE_TYPE))
		return 0;
	return dwarf_types__type_of_off(ir, die, die->type);
}

/* ---- loops BTF cannot express ---- */

/* The kinds of one reference each, which the kernel walks from a pointer. */
static bool chain_node(const struct ir *ir, uint32_t id)
{
	if (!id || id > ir->nr_nodes)
		return false;
	switch (ir->nodes[id - 1].kind) {
	case BTF_KIND_PTR: case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT: case BTF_KIND_TYPEDEF: case BTF_KIND_TYPE_TAG:
		return true;
	}
	return false;
}

/* One message for the loop through node @id, naming a DIE of it. */
static int loop_error(struct ir *ir, uint32_t id)
{
	const char *why = NULL;
	struct dw_die die;
	uint32_t cur = id;
	size_t i;

	do {	/* a qualifier or type tag the encoder added has no DIE */
		for (i = 0; i < ir->map.nr; i++) {
			if (ir->map.ents[i].id != cur ||
			    dw_die__read(ir->dw, NULL, ir->map.ents[i].off,
					 &die, &why))
				continue;
			return dwarf_types__die_error(ir, &die, -EINVAL,
				"bad DWARF: a chain of pointers, qualifiers or "
				"typedefs that returns to this DIE: BTF cannot "
				"express it (the kernel: \"Loop detected\")");
		}
		cur = ir->nodes[cur - 1].ref;
	} while (cur != id);
	pr_warn(ir->pr, "%s: bad DWARF: a loop of pointers, qualifiers or "
		"typedefs (type node %u)", ir->path, id);
	return -EINVAL;
}

/*
 * A pointer whose DW_AT_type is itself, or a const and a pointer naming
 * each other, came out as "PTR type_id=2" of type [2]: a chain of nodes of
 * one reference each that returns to itself, with no struct or union on
 * the way. Each node is walked once (@seen: the walk that reached it).
 */
int dwarf_types__check_loops(struct ir *ir)
{
	uint32_t *seen = calloc(ir->nr_nodes + 1, sizeof(*seen));
	uint32_t id, cur;
	int err = 0;

	if (!seen)
		return -ENOMEM;
	for (id = 1; id <= ir->nr_nodes && !err; id++) {
		for (cur = id; chain_node(ir, cur) && !seen[cur];
		     cur = ir->nodes[cur - 1].ref)
			seen[cur] = id;
		if (chain_node(ir, cur) && seen[cur] == id)
			err = loop_error(ir, cur);
	}
	free(seen);
	return err;
}
