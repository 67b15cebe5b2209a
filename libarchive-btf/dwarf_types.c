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
	free(ir->out);
	free(ir->kept);
	abtf__strtab_free(&ir->strs);
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

/* A type DIE's own name: types have no abstract origin to follow. */
static const char *type_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	return dwarf_attr(die, DW_AT_name, &attr) ? dwarf_formstring(&attr) :
						    NULL;
}

/* Type, member and subrange DIEs of C never have an abstract origin. */
static int attr_udata(Dwarf_Die *die, unsigned int name, Dwarf_Word *val)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr(die, name, &attr))
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

/* What a DW_TAG_member says, from one pass over its attributes. */
struct member_attrs {
	const char *name;
	Dwarf_Attribute type, loc;
	bool has_type, has_loc, has_dbo, has_bit_off, has_byte_size;
	Dwarf_Word bit_size, data_bit_off, bit_off, byte_size;
};

static int member_attr(Dwarf_Attribute *attr, void *arg)
{
	struct member_attrs *ma = arg;

	switch (dwarf_whatattr(attr)) {
	case DW_AT_name:
		ma->name = dwarf_formstring(attr);
		break;
	case DW_AT_type:
		ma->type = *attr;
		ma->has_type = true;
		break;
	case DW_AT_data_member_location:
		ma->loc = *attr;
		ma->has_loc = true;
		break;
	case DW_AT_bit_size:
		dwarf_formudata(attr, &ma->bit_size);
		break;
	case DW_AT_data_bit_offset:
		ma->has_dbo = !dwarf_formudata(attr, &ma->data_bit_off);
		break;
	case DW_AT_bit_offset:
		ma->has_bit_off = !dwarf_formudata(attr, &ma->bit_off);
		break;
	case DW_AT_byte_size:
		ma->has_byte_size = !dwarf_formudata(attr, &ma->byte_size);
		break;
	}
	return DWARF_CB_OK;
}

/* DWARF 4 data_member_location may be an expression: DW_OP_plus_uconst N. */
static int member_byte_offset(struct ir *ir, Dwarf_Die *die,
			      struct member_attrs *ma, Dwarf_Word *off)
{
	Dwarf_Op *expr;
	size_t len;

	*off = 0;
	if (!ma->has_loc)
		return 0;
	if (dwarf_formudata(&ma->loc, off) == 0)
		return 0;
	if (dwarf_getlocation(&ma->loc, &expr, &len) == 0 && len == 1 &&
	    expr[0].atom == DW_OP_plus_uconst) {
		*off = expr[0].number;
		return 0;
	}
	return die_error(ir, die, -EOPNOTSUPP,
			 "member location is not a constant offset");
}

static int member_bits(struct ir *ir, Dwarf_Die *die, struct member_attrs *ma,
		       struct ir_item *it, bool big_endian)
{
	Dwarf_Word byte_off, storage;
	int err;

	it->bit_sz = ma->bit_size;
	if (ma->has_dbo) {
		it->bit_off = ma->data_bit_off;		/* DWARF 5 */
		return 0;
	}
	err = member_byte_offset(ir, die, ma, &byte_off);
	if (err)
		return err;
	it->bit_off = byte_off * 8;
	if (!ma->bit_size || !ma->has_bit_off)
		return 0;
	/* DWARF 4: bit_off counts from the storage unit's most significant bit. */
	storage = ma->byte_size;
	if (!ma->has_byte_size) {
		Dwarf_Die type;
		int sz = -1;

		if (ma->has_type && dwarf_formref_die(&ma->type, &type))
			sz = dwarf_bytesize(&type);
		if (sz <= 0)
			return die_error(ir, die, -EINVAL,
					 "bitfield without a storage size");
		storage = sz;
	}
	if (big_endian)
		it->bit_off += ma->bit_off;
	else
		it->bit_off += storage * 8 - ma->bit_off - ma->bit_size;
	return 0;
}

/* A node's items, gathered before they are stored (recursion may add others'). */
struct item_buf {
	struct ir_item *v;
	uint32_t nr, cap;
};

static struct ir_item *item_push(struct item_buf *b)
{
	if (b->nr == b->cap) {
		uint32_t ncap = b->cap ? b->cap * 2 : 16;
		struct ir_item *n = realloc(b->v, ncap * sizeof(*n));

		if (!n)
			return NULL;
		b->v = n;
		b->cap = ncap;
	}
	memset(&b->v[b->nr], 0, sizeof(b->v[b->nr]));
	return &b->v[b->nr++];
}

static int store_items(struct ir *ir, Dwarf_Die *die, uint32_t id,
		       struct item_buf *b, const char *what)
{
	if (!b->nr)
		return 0;
	if (b->nr > 0xffff)
		return die_error(ir, die, -E2BIG, what);
	return ir__set_items(ir, id, b->v, b->nr);
}

static int conv_member(struct ir *ir, Dwarf_Die *m, struct ir_item *it)
{
	struct member_attrs ma = { 0 };
	Dwarf_Die type;
	int tid = 0;

	if (dwarf_getattrs(m, member_attr, &ma, 0) != 1)
		return dwarf_error(ir, m, "bad member attributes");
	it->name = ma.name;
	if (ma.has_type)
		tid = dwarf_formref_die(&ma.type, &type) ?
		      ir__type_of_die(ir, &type) :
		      dwarf_error(ir, m, "bad DW_AT_type reference");
	if (tid < 0)
		return tid;
	it->type = tid;
	return member_bits(ir, m, &ma, it, ir->big_endian);
}

static int conv_composite(struct ir *ir, Dwarf_Die *die, uint32_t id)
{
	struct item_buf items = { 0 };
	Dwarf_Die child;
	int err = 0;

	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		struct ir_item *it;

		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		it = item_push(&items);
		err = it ? conv_member(ir, &child, it) : -ENOMEM;
	} while (!err && dwarf_siblingof(&child, &child) == 0);
	if (!err)
		err = store_items(ir, die, id, &items, "too many members for BTF");
	free(items.v);
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
	struct item_buf items = { 0 };
	bool neg = false, any_neg = false;
	Dwarf_Die child;
	int err = 0;

	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		struct ir_item *it;

		if (dwarf_tag(&child) != DW_TAG_enumerator)
			continue;
		it = item_push(&items);
		if (!it) {
			err = -ENOMEM;
			break;
		}
		it->name = type_name(&child);
		err = enumerator_value(ir, &child, &it->val, &neg);
		any_neg |= neg;
	} while (!err && dwarf_siblingof(&child, &child) == 0);
	ir->nodes[id - 1].flag = any_neg;
	if (!err)
		err = store_items(ir, die, id, &items,
				  "too many enumerators for BTF");
	free(items.v);
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

struct param_attrs {
	const char *name;
	Dwarf_Attribute type;
	bool has_type, has_origin;
};

static int param_attr(Dwarf_Attribute *attr, void *arg)
{
	struct param_attrs *pa = arg;

	switch (dwarf_whatattr(attr)) {
	case DW_AT_name:
		pa->name = dwarf_formstring(attr);
		break;
	case DW_AT_type:
		pa->type = *attr;
		pa->has_type = true;
		break;
	case DW_AT_abstract_origin:
	case DW_AT_specification:
		pa->has_origin = true;
		break;
	}
	return DWARF_CB_OK;
}

/* A parameter's name and type ID: one pass, unless it has an origin. */
static int param(struct ir *ir, Dwarf_Die *die, const char **name)
{
	struct param_attrs pa = { 0 };
	Dwarf_Die type;

	if (dwarf_getattrs(die, param_attr, &pa, 0) != 1)
		return dwarf_error(ir, die, "bad parameter attributes");
	if (pa.has_origin) {
		*name = dwarf_diename(die);
		return ir__type_of_attr(ir, die);
	}
	*name = pa.name;
	if (!pa.has_type)
		return 0;
	if (!dwarf_formref_die(&pa.type, &type))
		return dwarf_error(ir, die, "bad DW_AT_type reference");
	return ir__type_of_die(ir, &type);
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
			tid = param(ir, &child, &items[nr].name);
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
	switch (tag) {
	case DW_TAG_base_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_typedef:
		n->name = type_name(die);
		break;
	}
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

/*
 * The surviving nodes are written straight into a raw BTF buffer, with the
 * strings ir__dedup() interned: libbpf's btf__add_*() would intern every
 * string in a hash set one at a time.
 */
struct emit {
	struct ir *ir;
	uint8_t *buf;
	size_t len, cap;
};

static int emit_grow(struct emit *e, size_t more)
{
	size_t ncap;
	uint8_t *p;

	if (e->len + more <= e->cap)
		return 0;
	ncap = e->cap ? e->cap * 2 : 1 << 16;
	while (ncap < e->len + more)
		ncap *= 2;
	p = realloc(e->buf, ncap);
	if (!p)
		return -ENOMEM;
	e->buf = p;
	e->cap = ncap;
	return 0;
}

/* Room for @nr more words; then emit_u32() cannot fail. */
static int emit_room(struct emit *e, size_t nr)
{
	return emit_grow(e, nr * 4);
}

static void emit_u32(struct emit *e, uint32_t v)
{
	memcpy(e->buf + e->len, &v, 4);
	e->len += 4;
}

/* The BTF type ID of node @id (0: void). */
static uint32_t out_id(const struct emit *e, uint32_t id)
{
	return e->ir->out[id];
}

static int emit_head(struct emit *e, const struct ir_node *n, uint32_t vlen,
		     uint32_t size_or_type, size_t words)
{
	if (vlen > 0xffff)
		return -E2BIG;
	if (emit_room(e, 3 + words))
		return -ENOMEM;
	emit_u32(e, n->name_off);
	emit_u32(e, (uint32_t)ir__kflag(e->ir, n) << 31 |
		    (uint32_t)n->kind << 24 | vlen);
	emit_u32(e, size_or_type);
	return 0;
}

static bool has_bitfield(const struct ir *ir, const struct ir_node *n)
{
	uint32_t i;

	for (i = 0; i < n->nr; i++)
		if (ir->items[n->first + i].bit_sz)
			return true;
	return false;
}

static bool has_negative(const struct ir *ir, const struct ir_node *n)
{
	uint32_t i;

	for (i = 0; i < n->nr; i++)
		if ((int64_t)ir->items[n->first + i].val < 0)
			return true;
	return false;
}

int ir__kflag(const struct ir *ir, const struct ir_node *n)
{
	switch (n->kind) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return has_bitfield(ir, n);
	case BTF_KIND_ENUM:
		return has_negative(ir, n);
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
		return n->flag;
	default:
		return 0;
	}
}

static int emit_members(struct emit *e, const struct ir_node *n)
{
	const struct ir_item *it = e->ir->items + n->first;
	uint32_t i;
	int err = emit_head(e, n, n->nr, n->size, 3 * (size_t)n->nr);

	for (i = 0; i < n->nr && !err; i++, it++) {
		if (it->bit_sz > 255 || (it->bit_sz && it->bit_off > 0xffffff))
			return -E2BIG;
		emit_u32(e, it->name_off);
		emit_u32(e, out_id(e, it->type));
		emit_u32(e, it->bit_off | it->bit_sz << 24);
	}
	return err;
}

static int emit_enum(struct emit *e, const struct ir_node *n)
{
	const struct ir_item *it = e->ir->items + n->first;
	size_t words = n->kind == BTF_KIND_ENUM64 ? 3 : 2;
	uint32_t i;
	int err;

	for (i = 0; i < n->nr; i++) {
		int64_t v = it[i].val;

		if (n->kind == BTF_KIND_ENUM && (v < INT32_MIN || v > UINT32_MAX))
			return -E2BIG;
	}
	err = emit_head(e, n, n->nr, n->size, words * n->nr);
	for (i = 0; i < n->nr && !err; i++, it++) {
		emit_u32(e, it->name_off);
		emit_u32(e, it->val);
		if (n->kind == BTF_KIND_ENUM64)
			emit_u32(e, it->val >> 32);
	}
	return err;
}

static int emit_params(struct emit *e, const struct ir_node *n)
{
	const struct ir_item *it = e->ir->items + n->first;
	uint32_t i;
	int err = emit_head(e, n, n->nr, out_id(e, n->ref), 2 * (size_t)n->nr);

	for (i = 0; i < n->nr && !err; i++, it++) {
		emit_u32(e, it->name_off);
		emit_u32(e, out_id(e, it->type));
	}
	return err;
}

static int emit_datasec(struct emit *e, const struct ir_node *n)
{
	const struct ir_item *it = e->ir->items + n->first;
	uint32_t i;
	int err = emit_head(e, n, n->nr, n->size, 3 * (size_t)n->nr);

	for (i = 0; i < n->nr && !err; i++, it++) {
		emit_u32(e, out_id(e, it->type));
		emit_u32(e, it->bit_off);
		emit_u32(e, it->bit_sz);
	}
	return err;
}

static int emit_node(struct emit *e, const struct ir_node *n)
{
	int err;

	switch (n->kind) {
	case BTF_KIND_INT:
		err = emit_head(e, n, 0, n->size, 1);
		if (!err)
			emit_u32(e, (uint32_t)n->flag << 24 | n->size * 8);
		return err;
	case BTF_KIND_FLOAT:
	case BTF_KIND_FWD:
		return emit_head(e, n, 0, n->kind == BTF_KIND_FWD ? 0 : n->size,
				 0);
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
		return emit_head(e, n, 0, out_id(e, n->ref), 0);
	case BTF_KIND_ARRAY:
		err = emit_head(e, n, 0, 0, 3);
		if (!err) {
			emit_u32(e, out_id(e, n->ref));
			emit_u32(e, out_id(e, n->first));	/* index type */
			emit_u32(e, n->size);
		}
		return err;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return emit_members(e, n);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return emit_enum(e, n);
	case BTF_KIND_FUNC_PROTO:
		return emit_params(e, n);
	case BTF_KIND_FUNC:	/* vlen: linkage */
		return emit_head(e, n, n->flag, out_id(e, n->ref), 0);
	case BTF_KIND_VAR:
		err = emit_head(e, n, 0, out_id(e, n->ref), 1);
		if (!err)
			emit_u32(e, n->flag);
		return err;
	case BTF_KIND_DATASEC:
		return emit_datasec(e, n);
	default:
		return -EINVAL;
	}
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
		[BTF_KIND_ENUM64] = "ENUM64",
	};

	if (kind < 0 || kind >= (int)ARRAY_SIZE(names) || !names[kind])
		return "UNKNOWN";
	return names[kind];
}

void *ir__emit_raw(struct ir *ir, size_t *size)
{
	struct btf_header hdr = {
		.magic = BTF_MAGIC, .version = BTF_VERSION,
		.hdr_len = sizeof(hdr),
	};
	struct emit e = { .ir = ir };
	uint8_t *raw = NULL;
	size_t i;
	int err = 0;

	for (i = 0; i < ir->nr_out && !err; i++) {
		const struct ir_node *n = &ir->nodes[ir->kept[i] - 1];

		err = emit_node(&e, n);
		if (err)
			pr_warn(ir->pr, "%s: cannot encode BTF %s '%s': %s",
				ir->path, kind_str(n->kind),
				n->name ? n->name : "", strerror(-err));
	}
	if (!err) {
		hdr.type_len = e.len;
		hdr.str_off = e.len;
		hdr.str_len = ir->strs.len;
		*size = sizeof(hdr) + e.len + ir->strs.len;
		raw = malloc(*size);
	}
	if (raw) {
		memcpy(raw, &hdr, sizeof(hdr));
		memcpy(raw + sizeof(hdr), e.buf, e.len);
		memcpy(raw + sizeof(hdr) + e.len, ir->strs.data, ir->strs.len);
	} else {
		errno = err ? -err : ENOMEM;
	}
	free(e.buf);
	return raw;
}
