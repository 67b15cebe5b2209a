// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF type DIEs -> BTF type nodes.
 *
 * Canonical form. The final link deduplicates thousands of objects' BTF in
 * one btf__dedup() run, which only merges types of identical shape. So the
 * same C type must come out of every object with the same shape:
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
 *
 * What BTF cannot express is an error (-EOPNOTSUPP) naming the DIE, never a
 * silent approximation: complex and other non-integer, non-float base types
 * (pahole 1.24 fails on them too) and C++ / Fortran-only tags.
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "encoder.h"

#define QUAL_CONST	1
#define QUAL_VOLATILE	2
#define QUAL_RESTRICT	4

/* ---- nodes and items ---- */

void ir__init(struct ir *ir, const char *path, const struct abtf_printer *pr)
{
	memset(ir, 0, sizeof(*ir));
	ir->path = path;
	ir->pr = pr;
}

void ir__fini(struct ir *ir)
{
	free(ir->nodes);
	free(ir->items);
	free(ir->map.keys);
	free(ir->map.vals);
	memset(ir, 0, sizeof(*ir));
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *np;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 256;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

int ir__add_node(struct ir *ir, const struct ir_node *node)
{
	if (grow((void **)&ir->nodes, &ir->cap_nodes, ir->nr_nodes + 1,
		 sizeof(*ir->nodes)))
		return -ENOMEM;
	ir->nodes[ir->nr_nodes++] = *node;
	return ir->nr_nodes;
}

int ir__set_items(struct ir *ir, uint32_t id, const struct ir_item *items,
		  uint32_t nr)
{
	struct ir_node *n = &ir->nodes[id - 1];

	if (grow((void **)&ir->items, &ir->cap_items, ir->nr_items + nr,
		 sizeof(*ir->items)))
		return -ENOMEM;
	memcpy(ir->items + ir->nr_items, items, nr * sizeof(*items));
	n->first = ir->nr_items;
	n->nr = nr;
	ir->nr_items += nr;
	return 0;
}

/* ---- DIE offset -> type ID ---- */

static size_t map_slot(const struct die_map *m, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL;

	return (h >> 17) & (m->cap - 1);
}

static int map_grow(struct die_map *m)
{
	struct die_map n = { .cap = m->cap ? m->cap * 2 : 4096 };
	size_t i, j;

	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		for (j = map_slot(&n, m->keys[i]); n.keys[j];
		     j = (j + 1) & (n.cap - 1))
			;
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
	}
	n.cnt = m->cnt;
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

/* Returns the ID, 0 if absent. IDs stored are never 0 (void is not stored). */
static uint32_t map_get(const struct die_map *m, Dwarf_Off off)
{
	uint64_t key = off + 1;
	size_t i;

	if (!m->cap)
		return 0;
	for (i = map_slot(m, key); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return m->vals[i];
	return 0;
}

static int map_put(struct die_map *m, Dwarf_Off off, uint32_t id)
{
	uint64_t key = off + 1;
	size_t i;

	if ((m->cnt + 1) * 2 > m->cap && map_grow(m))
		return -ENOMEM;
	for (i = map_slot(m, key); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			break;
	if (!m->keys[i])
		m->cnt++;
	m->keys[i] = key;
	m->vals[i] = id;
	return 0;
}

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
	default:			return NULL;
	}
}

/* One error naming the object, the DIE and what it is. */
static int die_error(struct ir *ir, Dwarf_Die *die, int err, const char *what)
{
	const char *name = dwarf_diename(die);
	const char *tname = tag_name(dwarf_tag(die));
	char tbuf[32];

	if (!tname) {
		snprintf(tbuf, sizeof(tbuf), "DW_TAG 0x%x", dwarf_tag(die));
		tname = tbuf;
	}
	pr_warn(ir->pr, "%s: DIE 0x%" PRIx64 " (%s %s): %s", ir->path,
		(uint64_t)dwarf_dieoffset(die), tname, name ? name : "<anon>",
		what);
	return err;
}

static int dwarf_error(struct ir *ir, Dwarf_Die *die, const char *what)
{
	char buf[256];

	/* dwarf_errmsg(-1) before anything that could clear the error */
	snprintf(buf, sizeof(buf), "%s: %s", what, dwarf_errmsg(-1));
	return die_error(ir, die, -EINVAL, buf);
}

/* ---- attributes ---- */

static int attr_udata(Dwarf_Die *die, unsigned int name, Dwarf_Word *val)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr_integrate(die, name, &attr))
		return -ENOENT;
	return dwarf_formudata(&attr, val) ? -EINVAL : 0;
}

static bool is_declaration(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	bool flag = false;

	if (!dwarf_attr(die, DW_AT_declaration, &attr))
		return false;
	return dwarf_formflag(&attr, &flag) == 0 && flag;
}

static int die_size(struct ir *ir, Dwarf_Die *die, uint32_t *size)
{
	Dwarf_Word sz;

	if (attr_udata(die, DW_AT_byte_size, &sz)) {
		*size = 0;
		return 0;
	}
	if (sz > UINT32_MAX)
		return die_error(ir, die, -E2BIG, "size does not fit BTF");
	*size = sz;
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

/* ---- one converter per tag ---- */

static int conv_base(struct ir *ir, Dwarf_Die *die, struct ir_node *n)
{
	Dwarf_Word enc;
	int err;

	err = die_size(ir, die, &n->size);
	if (err)
		return err;
	if (attr_udata(die, DW_AT_encoding, &enc))
		return die_error(ir, die, -EINVAL, "base type without encoding");
	switch (enc) {
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
		return die_error(ir, die, -EOPNOTSUPP,
				 "BTF cannot express this base type encoding "
				 "(complex, decimal or fixed point)");
	}
	switch (n->size) {
	case 1: case 2: case 4: case 8: case 16:
		return 0;
	default:
		return die_error(ir, die, -EOPNOTSUPP,
				 "integer size BTF cannot express");
	}
}

/* DWARF 4 data_member_location may be an expression: DW_OP_plus_uconst N. */
static int member_byte_offset(struct ir *ir, Dwarf_Die *die, Dwarf_Word *off)
{
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t len;

	*off = 0;
	if (!dwarf_attr(die, DW_AT_data_member_location, &attr))
		return 0;
	if (dwarf_formudata(&attr, off) == 0)
		return 0;
	if (dwarf_getlocation(&attr, &expr, &len) == 0 && len == 1 &&
	    expr[0].atom == DW_OP_plus_uconst) {
		*off = expr[0].number;
		return 0;
	}
	return die_error(ir, die, -EOPNOTSUPP,
			 "member location is not a constant offset");
}

static int member_bits(struct ir *ir, Dwarf_Die *die, struct ir_item *it,
		       bool big_endian)
{
	Dwarf_Word bit_sz = 0, data_bit_off, byte_off, bit_off, storage;
	int err;

	if (attr_udata(die, DW_AT_bit_size, &bit_sz))
		bit_sz = 0;
	if (attr_udata(die, DW_AT_data_bit_offset, &data_bit_off) == 0) {
		it->bit_off = data_bit_off;		/* DWARF 5 */
		it->bit_sz = bit_sz;
		return 0;
	}
	err = member_byte_offset(ir, die, &byte_off);
	if (err)
		return err;
	it->bit_off = byte_off * 8;
	it->bit_sz = bit_sz;
	if (!bit_sz || attr_udata(die, DW_AT_bit_offset, &bit_off))
		return 0;
	/* DWARF 4: bit_off counts from the storage unit's most significant bit. */
	if (attr_udata(die, DW_AT_byte_size, &storage)) {
		Dwarf_Attribute attr;
		Dwarf_Die type;
		int sz = -1;

		if (dwarf_attr_integrate(die, DW_AT_type, &attr) &&
		    dwarf_formref_die(&attr, &type))
			sz = dwarf_bytesize(&type);
		if (sz <= 0)
			return die_error(ir, die, -EINVAL,
					 "bitfield without a storage size");
		storage = sz;
	}
	if (big_endian)
		it->bit_off += bit_off;
	else
		it->bit_off += storage * 8 - bit_off - bit_sz;
	return 0;
}

static int count_children(Dwarf_Die *die, int tag)
{
	Dwarf_Die child;
	int n = 0;

	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		if (dwarf_tag(&child) == tag)
			n++;
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

static int conv_composite(struct ir *ir, Dwarf_Die *die, uint32_t id)
{
	struct ir_item *items;
	Dwarf_Die child;
	int nr, i = 0, err = 0, tid;

	nr = count_children(die, DW_TAG_member);
	if (!nr)
		return 0;
	if (nr > 0xffff)
		return die_error(ir, die, -E2BIG, "too many members for BTF");
	items = calloc(nr, sizeof(*items));
	if (!items)
		return -ENOMEM;
	dwarf_child(die, &child);
	do {
		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		items[i].name = dwarf_diename(&child);
		tid = ir__type_of_attr(ir, &child);
		if (tid < 0) {
			err = tid;
			goto out_free_items;
		}
		items[i].type = tid;
		err = member_bits(ir, &child, &items[i], ir->big_endian);
		if (err)
			goto out_free_items;
		i++;
	} while (dwarf_siblingof(&child, &child) == 0);
	err = ir__set_items(ir, id, items, nr);
out_free_items:
	free(items);
	return err;
}

/*
 * Enumerator value as two's complement; *neg set if it is negative. GCC
 * writes negative values as DW_FORM_sdata and all others as unsigned data
 * forms (128 in an int enum is data1 0x80), so data forms zero-extend.
 */
static int enumerator_value(struct ir *ir, Dwarf_Die *die, uint64_t *val,
			    bool *neg)
{
	Dwarf_Attribute attr;
	Dwarf_Sword s;
	Dwarf_Word u;

	if (!dwarf_attr(die, DW_AT_const_value, &attr))
		return die_error(ir, die, -EINVAL, "enumerator without value");
	switch (dwarf_whatform(&attr)) {
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		if (dwarf_formsdata(&attr, &s))
			return dwarf_error(ir, die, "bad enumerator value");
		*val = s;
		*neg = s < 0;
		return 0;
	default:
		if (dwarf_formudata(&attr, &u))
			return dwarf_error(ir, die, "bad enumerator value");
		*val = u;
		*neg = false;
		return 0;
	}
}

static int conv_enum(struct ir *ir, Dwarf_Die *die, uint32_t id)
{
	bool neg = false, any_neg = false;
	struct ir_node *n;
	struct ir_item *items;
	Dwarf_Die child;
	int nr, i = 0, err = 0;

	nr = count_children(die, DW_TAG_enumerator);
	if (!nr)
		return 0;
	if (nr > 0xffff)
		return die_error(ir, die, -E2BIG, "too many enumerators for BTF");
	items = calloc(nr, sizeof(*items));
	if (!items)
		return -ENOMEM;
	dwarf_child(die, &child);
	do {
		if (dwarf_tag(&child) != DW_TAG_enumerator)
			continue;
		items[i].name = dwarf_diename(&child);
		err = enumerator_value(ir, &child, &items[i].val, &neg);
		if (err)
			goto out_free_items;
		any_neg |= neg;
		i++;
	} while (dwarf_siblingof(&child, &child) == 0);
	n = &ir->nodes[id - 1];
	n->flag = any_neg;
	err = ir__set_items(ir, id, items, nr);
out_free_items:
	free(items);
	return err;
}

/* A constant bound: sdata is signed, data forms are unsigned (GCC). */
static bool bound_value(Dwarf_Attribute *attr, int64_t *val)
{
	Dwarf_Sword s;
	Dwarf_Word u;
	int form = dwarf_whatform(attr);

	switch (form) {
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		if (dwarf_formsdata(attr, &s))
			return false;
		*val = s;
		return true;
	case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4:
	case DW_FORM_data8: case DW_FORM_udata:
		if (dwarf_formudata(attr, &u))
			return false;
		*val = u;	/* data8 all ones: old GCC's -1 for [0] */
		return true;
	default:
		return false;	/* a VLA: an expression or a variable */
	}
}

/* nelems of one DW_TAG_subrange_type: 0 for flexible, unknown or [0]. */
static uint32_t subrange_nelems(Dwarf_Die *sub)
{
	Dwarf_Attribute attr;
	Dwarf_Word count, lower = 0;
	int64_t upper;

	if (attr_udata(sub, DW_AT_count, &count) == 0)
		return count > UINT32_MAX ? 0 : count;
	if (!dwarf_attr(sub, DW_AT_upper_bound, &attr) ||
	    !bound_value(&attr, &upper))
		return 0;
	attr_udata(sub, DW_AT_lower_bound, &lower);
	if (upper < 0 || (uint64_t)upper < lower ||
	    (uint64_t)upper - lower + 1 > UINT32_MAX)
		return 0;
	return upper - lower + 1;
}

/*
 * One ARRAY whose nelems is the product of all dimensions: pahole 1.24
 * flattens multi-dimensional arrays (int a[2][3] is ARRAY(int, 6)), and the
 * kernel's BTF has always looked like that.
 */
static int conv_array(struct ir *ir, Dwarf_Die *die, uint32_t id)
{
	uint64_t nelems = 1;
	Dwarf_Die child;
	int nr = 0, elem, idx;

	if (dwarf_child(die, &child) == 0) {
		do {
			if (dwarf_tag(&child) != DW_TAG_subrange_type)
				continue;
			nelems *= subrange_nelems(&child);
			if (nelems > UINT32_MAX)
				return die_error(ir, die, -E2BIG,
						 "array too large for BTF");
			nr++;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	elem = ir__type_of_attr(ir, die);
	if (elem < 0)
		return elem;
	idx = index_type(ir);
	if (idx < 0)
		return idx;
	/* an ARRAY keeps its index type in ->first */
	ir->nodes[id - 1].size = nr ? nelems : 0;
	ir->nodes[id - 1].first = idx;
	ir->nodes[id - 1].ref = elem;
	return 0;
}

/* FUNC_PROTO of a DW_TAG_subprogram or DW_TAG_subroutine_type. */
int ir__func_proto(struct ir *ir, Dwarf_Die *die)
{
	struct ir_node n = { .kind = BTF_KIND_FUNC_PROTO };
	struct ir_item *items = NULL;
	Dwarf_Die child;
	int nr = 0, cap = 0, id, tid, err = 0;

	id = ir__add_node(ir, &n);
	if (id < 0)
		return id;
	if (dwarf_tag(die) == DW_TAG_subroutine_type &&
	    map_put(&ir->map, dwarf_dieoffset(die), id))
		return -ENOMEM;
	tid = ir__type_of_attr(ir, die);
	if (tid < 0)
		return tid;
	ir->nodes[id - 1].ref = tid;
	if (dwarf_child(die, &child) != 0)
		return id;
	do {
		int tag = dwarf_tag(&child);

		if (tag != DW_TAG_formal_parameter &&
		    tag != DW_TAG_unspecified_parameters)
			continue;
		if (nr == cap) {
			struct ir_item *ni;

			cap = cap ? cap * 2 : 8;
			ni = realloc(items, cap * sizeof(*items));
			if (!ni) {
				err = -ENOMEM;
				goto out_free_items;
			}
			items = ni;
		}
		memset(&items[nr], 0, sizeof(items[nr]));
		if (tag == DW_TAG_formal_parameter) {
			items[nr].name = dwarf_diename(&child);
			tid = ir__type_of_attr(ir, &child);
			if (tid < 0) {
				err = tid;
				goto out_free_items;
			}
			items[nr].type = tid;
		}
		nr++;
	} while (dwarf_siblingof(&child, &child) == 0);
	if (nr > 0xffff)
		err = die_error(ir, die, -E2BIG, "too many parameters for BTF");
	else if (nr)
		err = ir__set_items(ir, id, items, nr);
out_free_items:
	free(items);
	return err ? err : id;
}

static bool is_qualifier(int tag)
{
	return tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	       tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type;
}

/* The BTF qualifiers of the run of qualifier DIEs starting at @die. */
static int qualifier_set(Dwarf_Die *die)
{
	Dwarf_Die cur = *die;
	Dwarf_Attribute attr;
	int quals = 0, tag;

	while (is_qualifier(tag = dwarf_tag(&cur))) {
		if (tag == DW_TAG_const_type)
			quals |= QUAL_CONST;
		else if (tag == DW_TAG_volatile_type)
			quals |= QUAL_VOLATILE;
		else if (tag == DW_TAG_restrict_type)
			quals |= QUAL_RESTRICT;
		if (!dwarf_attr_integrate(&cur, DW_AT_type, &attr) ||
		    !dwarf_formref_die(&attr, &cur))
			break;
	}
	return quals;
}

/*
 * A run of qualifier DIEs: collect the set, find the unqualified type, emit
 * the set in canonical order. @id is the node already reserved for @die and
 * becomes the outermost qualifier.
 */
static int conv_qualifiers(struct ir *ir, Dwarf_Die *die, uint32_t id)
{
	static const struct { int bit; int kind; } order[] = {
		{ QUAL_CONST, BTF_KIND_CONST },
		{ QUAL_VOLATILE, BTF_KIND_VOLATILE },
		{ QUAL_RESTRICT, BTF_KIND_RESTRICT },
	};
	Dwarf_Die cur = *die;
	Dwarf_Attribute attr;
	int quals = 0, base = 0, i, prev = 0;

	for (;;) {
		int tag = dwarf_tag(&cur);

		if (!is_qualifier(tag))
			break;
		if (tag == DW_TAG_const_type)
			quals |= QUAL_CONST;
		else if (tag == DW_TAG_volatile_type)
			quals |= QUAL_VOLATILE;
		else if (tag == DW_TAG_restrict_type)
			quals |= QUAL_RESTRICT;
		if (!dwarf_attr_integrate(&cur, DW_AT_type, &attr))
			goto have_base;	/* const void */
		if (!dwarf_formref_die(&attr, &cur))
			return dwarf_error(ir, die, "bad DW_AT_type");
	}
	base = ir__type_of_die(ir, &cur);
	if (base < 0)
		return base;
have_base:
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

static int conv_struct(struct ir *ir, Dwarf_Die *die, struct ir_node *n,
		       int tag)
{
	n->kind = tag == DW_TAG_union_type ? BTF_KIND_UNION : BTF_KIND_STRUCT;
	if (is_declaration(die)) {
		n->kind = BTF_KIND_FWD;
		n->flag = tag == DW_TAG_union_type;	/* kind_flag: union */
		return 0;
	}
	return die_size(ir, die, &n->size);
}

static int conv_enum_node(struct ir *ir, Dwarf_Die *die, struct ir_node *n)
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
static int conv_node(struct ir *ir, Dwarf_Die *die, int tag, struct ir_node *n)
{
	n->name = dwarf_diename(die);
	switch (tag) {
	case DW_TAG_base_type:
		n->kind = BTF_KIND_INT;
		return conv_base(ir, die, n);
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		return conv_struct(ir, die, n, tag);
	case DW_TAG_enumeration_type:
		return conv_enum_node(ir, die, n);
	case DW_TAG_pointer_type:
		n->kind = BTF_KIND_PTR;
		n->name = NULL;
		return 0;
	case DW_TAG_typedef:
		n->kind = BTF_KIND_TYPEDEF;
		return 0;
	case DW_TAG_array_type:
		n->kind = BTF_KIND_ARRAY;
		n->name = NULL;
		return 0;
	case DW_TAG_subroutine_type:
		n->kind = BTF_KIND_FUNC_PROTO;
		n->name = NULL;
		return 0;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		n->kind = BTF_KIND_CONST;	/* refined by conv_qualifiers */
		n->name = NULL;
		return 0;
	default:
		return die_error(ir, die, -EOPNOTSUPP,
				 "BTF cannot express this DWARF type");
	}
}

/* Resolve what the node refers to, now that it is memoised. */
static int conv_refs(struct ir *ir, Dwarf_Die *die, int tag, uint32_t id)
{
	int ref;

	switch (tag) {
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
		ref = ir__type_of_attr(ir, die);
		if (ref < 0)
			return ref;
		ir->nodes[id - 1].ref = ref;
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

bool ir__is_type_tag(int tag)
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

int ir__type_of_die(struct ir *ir, Dwarf_Die *die)
{
	struct ir_node n = { 0 };
	int tag = dwarf_tag(die), id, err;

	if (tag == DW_TAG_unspecified_type)
		return 0;		/* C's void, where GCC names it */
	id = map_get(&ir->map, dwarf_dieoffset(die));
	if (id)
		return id;
	if (is_qualifier(tag) && !qualifier_set(die)) {
		/* only _Atomic: BTF has no such qualifier, it is transparent */
		id = ir__type_of_attr(ir, die);
		if (id > 0 && map_put(&ir->map, dwarf_dieoffset(die), id))
			return -ENOMEM;
		return id;
	}
	err = conv_node(ir, die, tag, &n);
	if (err)
		return err;
	if (tag == DW_TAG_subroutine_type)
		return ir__func_proto(ir, die);
	id = ir__add_node(ir, &n);
	if (id < 0)
		return id;
	if (map_put(&ir->map, dwarf_dieoffset(die), id))
		return -ENOMEM;
	err = conv_refs(ir, die, tag, id);
	return err ? err : id;
}

int ir__type_of_attr(struct ir *ir, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die type;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr))
		return 0;
	if (!dwarf_formref_die(&attr, &type))
		return dwarf_error(ir, die, "bad DW_AT_type reference");
	return ir__type_of_die(ir, &type);
}

/* ---- emission ---- */

static int emit_items(struct ir *ir, struct btf *btf, const struct ir_node *n)
{
	const struct ir_item *it = ir->items + n->first;
	uint32_t i;
	int err = 0;

	for (i = 0; i < n->nr && !err; i++, it++) {
		switch (n->kind) {
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			err = btf__add_field(btf, it->name, it->type,
					     it->bit_off, it->bit_sz);
			break;
		case BTF_KIND_ENUM:
			err = btf__add_enum_value(btf, it->name,
						  (int64_t)it->val);
			break;
		case BTF_KIND_ENUM64:
			err = btf__add_enum64_value(btf, it->name, it->val);
			break;
		case BTF_KIND_FUNC_PROTO:
			err = btf__add_func_param(btf, it->name ? it->name : "",
						  it->type);
			break;
		case BTF_KIND_DATASEC:
			err = btf__add_datasec_var_info(btf, it->type,
							it->bit_off, it->bit_sz);
			break;
		}
	}
	return err < 0 ? err : 0;
}

static const char *kind_str(int kind)
{
	static const char *const names[] = {
		[BTF_KIND_INT] = "INT", [BTF_KIND_PTR] = "PTR",
		[BTF_KIND_ARRAY] = "ARRAY", [BTF_KIND_STRUCT] = "STRUCT",
		[BTF_KIND_UNION] = "UNION", [BTF_KIND_ENUM] = "ENUM",
		[BTF_KIND_FWD] = "FWD", [BTF_KIND_TYPEDEF] = "TYPEDEF",
		[BTF_KIND_VOLATILE] = "VOLATILE", [BTF_KIND_CONST] = "CONST",
		[BTF_KIND_RESTRICT] = "RESTRICT", [BTF_KIND_FUNC] = "FUNC",
		[BTF_KIND_FUNC_PROTO] = "FUNC_PROTO", [BTF_KIND_VAR] = "VAR",
		[BTF_KIND_DATASEC] = "DATASEC", [BTF_KIND_FLOAT] = "FLOAT",
		[BTF_KIND_DECL_TAG] = "DECL_TAG", [BTF_KIND_TYPE_TAG] = "TYPE_TAG",
		[BTF_KIND_ENUM64] = "ENUM64",
	};

	if (kind < 0 || kind >= (int)ARRAY_SIZE(names) || !names[kind])
		return "UNKNOWN";
	return names[kind];
}

static int emit_node(struct btf *btf, const struct ir_node *n)
{
	switch (n->kind) {
	case BTF_KIND_INT:
		return btf__add_int(btf, n->name, n->size, n->flag);
	case BTF_KIND_FLOAT:
		return btf__add_float(btf, n->name, n->size);
	case BTF_KIND_PTR:
		return btf__add_ptr(btf, n->ref);
	case BTF_KIND_ARRAY:
		return btf__add_array(btf, n->first, n->ref, n->size);
	case BTF_KIND_STRUCT:
		return btf__add_struct(btf, n->name, n->size);
	case BTF_KIND_UNION:
		return btf__add_union(btf, n->name, n->size);
	case BTF_KIND_ENUM:
		return btf__add_enum(btf, n->name, n->size);
	case BTF_KIND_ENUM64:
		return btf__add_enum64(btf, n->name, n->size, n->flag);
	case BTF_KIND_FWD:
		return btf__add_fwd(btf, n->name,
				    n->flag ? BTF_FWD_UNION : BTF_FWD_STRUCT);
	case BTF_KIND_TYPEDEF:
		return btf__add_typedef(btf, n->name, n->ref);
	case BTF_KIND_CONST:
		return btf__add_const(btf, n->ref);
	case BTF_KIND_VOLATILE:
		return btf__add_volatile(btf, n->ref);
	case BTF_KIND_RESTRICT:
		return btf__add_restrict(btf, n->ref);
	case BTF_KIND_FUNC_PROTO:
		return btf__add_func_proto(btf, n->ref);
	case BTF_KIND_FUNC:
		return btf__add_func(btf, n->name, n->flag, n->ref);
	case BTF_KIND_VAR:
		return btf__add_var(btf, n->name, n->flag, n->ref);
	case BTF_KIND_DATASEC:
		return btf__add_datasec(btf, n->name, n->size);
	default:
		return -EINVAL;
	}
}

int ir__emit(struct ir *ir, struct btf *btf)
{
	size_t i;
	int id, err;

	for (i = 0; i < ir->nr_nodes; i++) {
		const struct ir_node *n = &ir->nodes[i];

		id = emit_node(btf, n);
		if (id < 0 || (size_t)id != i + 1) {
			pr_warn(ir->pr, "%s: cannot add BTF %s type '%s': %s",
				ir->path, kind_str(n->kind),
				n->name ? n->name : "", strerror(id < 0 ? -id : EINVAL));
			return id < 0 ? id : -EINVAL;
		}
		err = emit_items(ir, btf, n);
		if (err) {
			pr_warn(ir->pr, "%s: cannot add to BTF %s '%s': %s",
				ir->path, kind_str(n->kind),
				n->name ? n->name : "", strerror(-err));
			return err;
		}
	}
	return 0;
}
