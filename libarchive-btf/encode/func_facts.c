// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What pahole 1.31 learns about a function from where its parameters are
 * (docs/design.md, "optimized_func and consistent_func", rules 3 and 4),
 * for one DW_TAG_subprogram with code:
 *
 *  - a parameter's register is the first one found: the first location
 *    expression being DW_OP_regN (or, for a parameter larger than a
 *    pointer, the first DW_OP_regN among its pieces), DW_OP_bregN with a
 *    DW_OP_stack_value, or, in any entry of a location list,
 *    DW_OP_entry_value(DW_OP_regN);
 *  - walking the parameters against the argument registers of the
 *    machine: a location without a register is "optimized", another
 *    register than expected "unexpected", no location but a
 *    DW_AT_const_value "optimized"; a parameter larger than a pointer
 *    takes one register per pointer-sized part, unless larger than two
 *    pointers (in memory), when it counts one; past the argument
 *    registers nothing is checked;
 *  - optimized_parms: a parameter optimized or without a location;
 *    unexpected_reg: a parameter unexpected and no parameter a struct
 *    (through const and typedefs); reordered: a parameter whose abstract
 *    origin is not the origin's parameter of the same position; nocall
 *    (pahole's signature_changed, in clang's units only):
 *    DW_AT_calling_convention DW_CC_nocall on the DIE, or on its origin
 *    if it has one; varargs_differ: the DIE and its origin disagree on
 *    DW_TAG_unspecified_parameters (pahole: two instances of the name
 *    with different parameter counts); no_low_pc: the DIE's code is in
 *    DW_AT_ranges alone (GCC split it into hot and .cold parts), where
 *    pahole's dwarf_lowpc() fails and it takes the address as 0.
 *
 * A unit clang made (DW_AT_producer, pahole's producer_clang) is judged
 * by the rules above only when nocall is set. Otherwise ("window" below) a parameter with
 * a register is unexpected unless the register is one of the argument
 * registers its slots cover; a parameter in memory takes none and is not
 * checked; one without a register is neither optimized nor unexpected
 * (no location still makes optimized_parms); past the argument registers
 * nothing is checked. clang drops a parameter it folded or never used
 * without saying so, and the window catches the later ones arriving one
 * register early.
 *
 * clang's DWARF 5 names location lists by index (DW_FORM_loclistx),
 * through the unit's table of offsets at DW_AT_loclists_base (a split
 * unit's: .debug_loclists.dwo's, past its header); GNU's DWARF 4 split
 * DWARF writes .debug_loc.dwo in a format of its own. Location
 * lists are read without their relocations, which only move
 * addresses, never the expressions read here. A list past the end of its
 * section, or of an unknown entry kind, is an error naming the DIE; an
 * expression this file cannot decode names no register. DWARF 4's .debug_loc ends a
 * list with a (0, 0) pair, which an unrelocated entry also reads as: its
 * first entry is always taken as one (GCC writes no empty list), a later
 * unrelocated one ends the walk, so an entry_value register seen only
 * there is missed.
 */
#include <dwarf.h>
#include <errno.h>
#include <string.h>

#include "encode/func_facts.h"
#include "util/internal.h"

#define UNKNOWN_REG	-1
#define MAX_PARAMS	64	/* positions compared for "reordered" */

struct rd {
	const uint8_t *p, *end;
	bool big, bad;
};

static uint64_t rd_n(struct rd *r, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	if (n > 8 || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * (r->big ? n - 1 - i : i));
	r->p += n;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v;

	if (!dw_uleb(&r->p, r->end, &v))
		r->bad = true;
	return v;
}

static void rd_skip(struct rd *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
		return;
	}
	r->p += n;
}

/* One decoded operation: its opcode and first operand. */
struct op {
	uint8_t atom;
	uint64_t num;
	const uint8_t *sub;	/* DW_OP_entry_value: the inner expression */
	uint64_t sub_len;
};

/* How an opcode's operands are laid out, for next_op() to read past them. */
enum op_form {
	OPF_UNKNOWN,		/* not an opcode next_op() decodes */
	OPF_NONE,
	OPF_1, OPF_2, OPF_4, OPF_8,	/* a constant of so many bytes */
	OPF_ADDR,		/* an address (u->addr_size) */
	OPF_OFFSET,		/* a section offset (u->offset_size) */
	OPF_ULEB,		/* an LEB128, kept as op.num */
	OPF_SLEB,		/* an SLEB128 (bregN), skipped */
	OPF_ULEB_ULEB,
	OPF_1_ULEB,
	OPF_CONST_TYPE,		/* an LEB128, then a block of a 1-byte length */
	OPF_BLOCK,		/* a block of an LEB128 length */
	OPF_ENTRY,		/* the same, an expression kept as op.sub */
	OPF_IMPLICIT_PTR,	/* a reference (DWARF 2: an address), an SLEB128 */
};

static const uint8_t op_forms[256] = {
	[DW_OP_lit0 ... DW_OP_lit31] = OPF_NONE,
	[DW_OP_reg0 ... DW_OP_reg31] = OPF_NONE,
	[DW_OP_breg0 ... DW_OP_breg31] = OPF_SLEB,
	[DW_OP_addr] = OPF_ADDR,
	[DW_OP_const1u] = OPF_1, [DW_OP_const1s] = OPF_1, [DW_OP_pick] = OPF_1,
	[DW_OP_deref_size] = OPF_1, [DW_OP_xderef_size] = OPF_1,
	[DW_OP_const2u] = OPF_2, [DW_OP_const2s] = OPF_2, [DW_OP_skip] = OPF_2,
	[DW_OP_bra] = OPF_2, [DW_OP_call2] = OPF_2,
	[DW_OP_const4u] = OPF_4, [DW_OP_const4s] = OPF_4, [DW_OP_call4] = OPF_4,
	[DW_OP_GNU_parameter_ref] = OPF_4,
	[DW_OP_const8u] = OPF_8, [DW_OP_const8s] = OPF_8,
	[DW_OP_call_ref] = OPF_OFFSET, [DW_OP_GNU_variable_value] = OPF_OFFSET,
	[DW_OP_constu] = OPF_ULEB, [DW_OP_consts] = OPF_ULEB,
	[DW_OP_plus_uconst] = OPF_ULEB, [DW_OP_regx] = OPF_ULEB,
	[DW_OP_fbreg] = OPF_ULEB, [DW_OP_piece] = OPF_ULEB,
	[DW_OP_addrx] = OPF_ULEB, [DW_OP_constx] = OPF_ULEB,
	[DW_OP_convert] = OPF_ULEB, [DW_OP_reinterpret] = OPF_ULEB,
	[DW_OP_GNU_convert] = OPF_ULEB, [DW_OP_GNU_reinterpret] = OPF_ULEB,
	[DW_OP_GNU_addr_index] = OPF_ULEB, [DW_OP_GNU_const_index] = OPF_ULEB,
	[DW_OP_bregx] = OPF_ULEB_ULEB, [DW_OP_bit_piece] = OPF_ULEB_ULEB,
	[DW_OP_regval_type] = OPF_ULEB_ULEB,
	[DW_OP_GNU_regval_type] = OPF_ULEB_ULEB,
	[DW_OP_deref_type] = OPF_1_ULEB, [DW_OP_GNU_deref_type] = OPF_1_ULEB,
	[DW_OP_const_type] = OPF_CONST_TYPE,
	[DW_OP_GNU_const_type] = OPF_CONST_TYPE,
	[DW_OP_implicit_value] = OPF_BLOCK,
	[DW_OP_entry_value] = OPF_ENTRY, [DW_OP_GNU_entry_value] = OPF_ENTRY,
	[DW_OP_implicit_pointer] = OPF_IMPLICIT_PTR,
	[DW_OP_GNU_implicit_pointer] = OPF_IMPLICIT_PTR,
	[DW_OP_deref] = OPF_NONE, [DW_OP_dup] = OPF_NONE,
	[DW_OP_drop] = OPF_NONE, [DW_OP_over] = OPF_NONE,
	[DW_OP_swap] = OPF_NONE, [DW_OP_rot] = OPF_NONE,
	[DW_OP_xderef] = OPF_NONE, [DW_OP_abs] = OPF_NONE,
	[DW_OP_and] = OPF_NONE, [DW_OP_div] = OPF_NONE,
	[DW_OP_minus] = OPF_NONE, [DW_OP_mod] = OPF_NONE,
	[DW_OP_mul] = OPF_NONE, [DW_OP_neg] = OPF_NONE,
	[DW_OP_not] = OPF_NONE, [DW_OP_or] = OPF_NONE,
	[DW_OP_plus] = OPF_NONE, [DW_OP_shl] = OPF_NONE,
	[DW_OP_shr] = OPF_NONE, [DW_OP_shra] = OPF_NONE,
	[DW_OP_xor] = OPF_NONE, [DW_OP_eq] = OPF_NONE,
	[DW_OP_ge] = OPF_NONE, [DW_OP_gt] = OPF_NONE,
	[DW_OP_le] = OPF_NONE, [DW_OP_lt] = OPF_NONE,
	[DW_OP_ne] = OPF_NONE, [DW_OP_nop] = OPF_NONE,
	[DW_OP_push_object_address] = OPF_NONE,
	[DW_OP_form_tls_address] = OPF_NONE,
	[DW_OP_call_frame_cfa] = OPF_NONE, [DW_OP_stack_value] = OPF_NONE,
	[DW_OP_GNU_push_tls_address] = OPF_NONE,
};

/* Read the operands of @o, of layout @form, at r->p. */
static void read_operands(struct rd *r, const struct dw_unit *u,
			  struct op *o, enum op_form form)
{
	switch (form) {
	case OPF_1: case OPF_2: case OPF_4: case OPF_8:
		rd_n(r, 1u << (form - OPF_1));
		break;
	case OPF_ADDR:
		rd_n(r, u->addr_size);
		break;
	case OPF_OFFSET:
		rd_n(r, u->offset_size);
		break;
	case OPF_ULEB:
		o->num = rd_uleb(r);
		break;
	case OPF_SLEB:
		rd_uleb(r);	/* an SLEB128: same length */
		break;
	case OPF_ULEB_ULEB:
		rd_uleb(r);
		rd_uleb(r);
		break;
	case OPF_1_ULEB:
		rd_n(r, 1);
		rd_uleb(r);
		break;
	case OPF_CONST_TYPE:
		rd_uleb(r);
		rd_skip(r, rd_n(r, 1));
		break;
	case OPF_BLOCK:
		rd_skip(r, rd_uleb(r));
		break;
	case OPF_ENTRY:
		o->sub_len = rd_uleb(r);
		o->sub = r->p;
		rd_skip(r, o->sub_len);
		break;
	case OPF_IMPLICIT_PTR:
		rd_n(r, u->version == 2 ? u->addr_size : u->offset_size);
		rd_uleb(r);
		break;
	case OPF_UNKNOWN: case OPF_NONE:
		break;
	}
}

/*
 * Decode the operation at r->p; false at an unknown opcode or the end.
 * A reader that went bad is never read again (expr() stops at the first
 * false), so an operation without operands is always good.
 */
static bool next_op(struct rd *r, const struct dw_unit *u, struct op *o)
{
	enum op_form form;

	if (r->p >= r->end)
		return false;
	o->atom = *r->p++;
	o->num = 0;
	o->sub = NULL;
	form = op_forms[o->atom];
	if (form == OPF_UNKNOWN)
		return false;
	read_operands(r, u, o, form);
	return !r->bad;
}

/* What one parameter's locations say. */
struct ploc {
	int reg;		/* DWARF register number, or UNKNOWN_REG */
};

static void set_reg(struct ploc *pl, int reg)
{
	if (pl->reg == UNKNOWN_REG)
		pl->reg = reg;
}

/* One location expression, the @loc_num-th of its parameter. */
static void expr(const struct dw_unit *u, const uint8_t *p, uint64_t len,
		 unsigned int loc_num, uint64_t size, struct ploc *pl)
{
	struct rd r = { .p = p, .end = p + len };
	struct op ops[16];
	size_t n = 0, i;
	bool stack_value = false;

	while (n < ARRAY_SIZE(ops) && next_op(&r, u, &ops[n]))
		n++;
	if (!n || r.p != r.end)
		return;	/* empty, too long or undecodable: no register */
	for (i = 1; i < n; i++)
		stack_value |= ops[i].atom == DW_OP_stack_value;
	if (n == 2 && ops[1].atom == DW_OP_stack_value)
		n = 1;
	if (n == 1 && (ops[0].atom == DW_OP_entry_value ||
		       ops[0].atom == DW_OP_GNU_entry_value)) {
		struct rd sr = { .p = ops[0].sub, .end = ops[0].sub + ops[0].sub_len };
		struct op in;

		if (next_op(&sr, u, &in) && sr.p == sr.end &&
		    in.atom >= DW_OP_reg0 && in.atom <= DW_OP_reg31)
			set_reg(pl, in.atom - DW_OP_reg0);
		return;
	}
	if (ops[0].atom == DW_OP_constu || ops[0].atom == DW_OP_consts ||
	    (ops[0].atom >= DW_OP_lit0 && ops[0].atom <= DW_OP_lit31))
		return;	/* a constant: no register */
	if (n == 1 || size <= u->addr_size) {
		if (loc_num)
			return;
		if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
			set_reg(pl, ops[0].atom - DW_OP_reg0);
		else if (ops[0].atom >= DW_OP_breg0 &&
			 ops[0].atom <= DW_OP_breg31 && stack_value)
			set_reg(pl, ops[0].atom - DW_OP_breg0);
		return;
	}
	for (i = 0; i < n; i++)	/* pieces of a larger parameter */
		if (ops[i].atom >= DW_OP_reg0 && ops[i].atom <= DW_OP_reg31)
			set_reg(pl, ops[i].atom - DW_OP_reg0);
}

#define LIST_PAST_END	"a parameter's location list runs past the end of its section"

/* DWARF 5 .debug_loclists: the expressions of the list at @off. */
static int loclists(const struct dw_file *f, const struct dw_unit *u,
		    uint64_t off, uint64_t size, struct ploc *pl,
		    const char **why)
{
	struct rd r = { .big = f->big_endian };
	unsigned int loc_num = 0, guard;

	if (off >= f->loclists.size)
		goto out_bad;
	r.p = f->loclists.buf + off;
	r.end = f->loclists.buf + f->loclists.size;
	for (guard = 0; guard < 4096 && !r.bad; guard++) {
		uint8_t kind = rd_n(&r, 1);
		uint64_t len;

		if (r.bad)
			break;
		switch (kind) {
		case DW_LLE_end_of_list:
			return 0;
		case DW_LLE_base_addressx:
			rd_uleb(&r);
			continue;
		case DW_LLE_base_address:
			rd_n(&r, u->addr_size);
			continue;
		case DW_LLE_GNU_view_pair:
			rd_uleb(&r);
			rd_uleb(&r);
			continue;
		case DW_LLE_startx_endx:
		case DW_LLE_startx_length:
		case DW_LLE_offset_pair:
			rd_uleb(&r);
			rd_uleb(&r);
			break;
		case DW_LLE_default_location:
			break;
		case DW_LLE_start_end:
			rd_n(&r, u->addr_size);
			rd_n(&r, u->addr_size);
			break;
		case DW_LLE_start_length:
			rd_n(&r, u->addr_size);
			rd_uleb(&r);
			break;
		default:
			*why = "a parameter's location list has an entry of an "
			       "unknown kind";
			return -EINVAL;
		}
		len = rd_uleb(&r);
		if (r.bad || len > (uint64_t)(r.end - r.p))
			break;
		expr(u, r.p, len, loc_num++, size, pl);
		r.p += len;
	}
	if (!r.bad)
		return 0;	/* longer than we care to read */
out_bad:
	*why = LIST_PAST_END;
	return -EINVAL;
}

/* DWARF 2-4 .debug_loc, unrelocated (see the essay). */
static int loc(const struct dw_file *f, const struct dw_unit *u,
	       uint64_t off, uint64_t size, struct ploc *pl, const char **why)
{
	struct rd r = { .big = f->big_endian };
	uint64_t max = u->addr_size == 8 ? UINT64_MAX : UINT32_MAX;
	unsigned int loc_num = 0, guard;

	if (off >= f->loc.size)
		goto out_bad;
	r.p = f->loc.buf + off;
	r.end = f->loc.buf + f->loc.size;
	for (guard = 0; guard < 4096 && !r.bad; guard++) {
		uint64_t lo = rd_n(&r, u->addr_size);
		uint64_t hi = rd_n(&r, u->addr_size);
		uint64_t len;

		if (r.bad)
			break;
		if (!lo && !hi && loc_num)
			return 0;
		if (lo == max)
			continue;	/* base address selection */
		len = rd_n(&r, 2);
		if (r.bad || len > (uint64_t)(r.end - r.p)) {
			r.bad = true;
			break;
		}
		expr(u, r.p, len, loc_num++, size, pl);
		r.p += len;
	}
	if (!r.bad)
		return 0;
out_bad:
	*why = LIST_PAST_END;
	return -EINVAL;
}

/*
 * GNU's DWARF 4 split DWARF (.debug_loc.dwo, GCC and clang -gdwarf-4
 * -gsplit-dwarf): entries of a kind byte, addresses as .debug_addr
 * indices, each list read whole (no relocation to miss).
 */
static int loc_split(const struct dw_file *f, const struct dw_unit *u,
		     uint64_t off, uint64_t size, struct ploc *pl,
		     const char **why)
{
	struct rd r = { .big = f->big_endian };
	unsigned int loc_num = 0, guard;

	if (off >= f->loc.size)
		goto out_bad;
	r.p = f->loc.buf + off;
	r.end = f->loc.buf + f->loc.size;
	for (guard = 0; guard < 4096 && !r.bad; guard++) {
		uint64_t len;

		switch (rd_n(&r, 1)) {
		case DW_LLE_GNU_end_of_list_entry:
			if (!r.bad)
				return 0;
			break;
		case DW_LLE_GNU_base_address_selection_entry:
			rd_uleb(&r);
			continue;
		case DW_LLE_GNU_start_end_entry:
			rd_uleb(&r);
			rd_uleb(&r);
			break;
		case DW_LLE_GNU_start_length_entry:
			rd_uleb(&r);
			rd_n(&r, 4);
			break;
		default:
			*why = "a parameter's location list (.debug_loc.dwo) "
			       "has an entry of an unknown kind";
			return -EINVAL;
		}
		len = rd_n(&r, 2);
		if (r.bad || len > (uint64_t)(r.end - r.p))
			break;
		expr(u, r.p, len, loc_num++, size, pl);
		r.p += len;
	}
	if (!r.bad)
		return 0;	/* longer than we care to read */
out_bad:
	*why = LIST_PAST_END;
	return -EINVAL;
}

/*
 * DW_FORM_loclistx @idx (clang's DWARF 5): the .debug_loclists offset of
 * entry @idx of the offsets table at the unit's DW_AT_loclists_base (or
 * just past the section's one header without it), plus that base.
 */
static bool loclistx(const struct dw_file *f, const struct dw_unit *u,
		     uint64_t idx, uint64_t *off)
{
	uint64_t base = u->loclists_base, n = u->offset_size;
	struct rd r = { .big = f->big_endian };

	if (!base && !dw_unit__split(u))
		return false;	/* a unit that uses the table gives its base */
	if (!base)
		base = n == 8 ? 20 : 12;
	if (base > f->loclists.size || idx >= (f->loclists.size - base) / n)
		return false;
	r.p = f->loclists.buf + base + idx * n;
	r.end = r.p + n;
	*off = base + rd_n(&r, n);
	return !r.bad && *off >= base;
}

static int param_loc(const struct dw_file *f, const struct dw_die *p,
		     uint64_t size, struct ploc *pl, const char **why)
{
	const struct dw_value *v = &p->location;

	pl->reg = UNKNOWN_REG;
	if (v->cls == DW_CLASS_BLOCK) {
		expr(p->cu, v->block, v->u, 0, size, pl);
		return 0;
	}
	if (v->form == DW_FORM_loclistx) {
		uint64_t off;

		if (!loclistx(f, p->cu, v->u, &off))
			goto out_bad;
		return loclists(f, p->cu, off, size, pl, why);
	}
	if (v->form == DW_FORM_sec_offset && p->cu->version >= 5)
		return loclists(f, p->cu, v->u, size, pl, why);
	if ((v->form == DW_FORM_sec_offset || v->form == DW_FORM_data4) &&
	    dw_unit__split(p->cu))
		return loc_split(f, p->cu, v->u, size, pl, why);
	if (v->form == DW_FORM_sec_offset || v->form == DW_FORM_data4 ||
	    v->form == DW_FORM_data8)
		return loc(f, p->cu, v->u, size, pl, why);
	return 0;	/* another form: no register */
out_bad:
	*why = "a parameter's DW_FORM_loclistx index is past the end of "
	       ".debug_loclists";
	return -EINVAL;
}

/* ---- types ---- */

/* Follow @off through typedefs and qualifiers: *size and whether a struct. */
static int param_type(struct dw_file *f, struct dw_unit *cu, uint64_t off,
		      uint64_t *size, bool *is_struct)
{
	const char *why = NULL;
	bool struct_path = true;
	struct dw_die t;
	int i, err;

	*size = 0;
	*is_struct = false;
	for (i = 0; i < 32; i++) {
		err = dw_die__read(f, cu, off, &t, &why);
		if (err)
			return err;
		if (!*size && (t.have & DW_HAVE_BYTE_SIZE))
			*size = t.byte_size;
		if (t.tag == DW_TAG_structure_type && struct_path)
			*is_struct = true;
		if (t.tag != DW_TAG_const_type && t.tag != DW_TAG_typedef)
			struct_path = false;
		if (*size && !struct_path)
			return 0;
		switch (t.tag) {
		case DW_TAG_typedef: case DW_TAG_const_type:
		case DW_TAG_volatile_type: case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			break;
		default:
			return 0;
		}
		if (!(t.have & DW_HAVE_TYPE))
			return 0;
		off = t.type;
	}
	return 0;
}

/* ---- the machine ---- */

struct abi {
	int nr;			/* argument registers pahole knows */
	int regs[8];		/* their DWARF numbers, -1: not checked */
	bool two_regs;		/* aggregates take up to two registers */
};

static void machine_abi(int machine, struct abi *a)
{
	int i;

	a->two_regs = machine != EM_S390;
	for (i = 0; i < 8; i++)
		a->regs[i] = -1;
	switch (machine) {
	case EM_S390:
		a->nr = 5;
		for (i = 0; i < 5; i++)
			a->regs[i] = 2 + i;
		return;
	case EM_X86_64: {
		static const int x86[6] = { 5, 4, 1, 2, 8, 9 };

		a->nr = 6;
		memcpy(a->regs, x86, sizeof(x86));
		return;
	}
	case EM_SPARC: case EM_SPARCV9:
		a->nr = 6;
		return;
	case EM_AARCH64: case EM_ARM:
		a->nr = 8;
		for (i = 0; i < 8; i++)
			a->regs[i] = i;
		return;
	case EM_ARC: case EM_MIPS: case EM_PPC: case EM_PPC64: case EM_RISCV:
		a->nr = 8;
		return;
	default:
		a->nr = 0;
	}
}

/* ---- one function ---- */

/* What a concrete function's abstract origin says of its parameters. */
struct origin {
	uint64_t offs[MAX_PARAMS];	/* .debug_info offsets of the first */
	int nr;
	uint64_t call_conv;
	bool varargs;			/* DW_TAG_unspecified_parameters */
};

/* The origin, subprogram @off, of a concrete function. */
static int origin_params(struct dw_file *f, struct dw_unit *cu, uint64_t off,
			 struct origin *o)
{
	const char *why = NULL;
	struct dw_die fn, c;
	int res, err;

	err = dw_die__read(f, cu, off, &fn, &why);
	if (err)
		return err;
	if (fn.have & DW_HAVE_CALL_CONV)
		o->call_conv = fn.call_conv;
	for (res = dw_die__child(f, &fn, &c, &why); !res;
	     res = dw_die__sibling(f, &c, &why)) {
		if (c.tag == DW_TAG_formal_parameter && o->nr < MAX_PARAMS)
			o->offs[o->nr++] = c.off;
		if (c.tag == DW_TAG_unspecified_parameters)
			o->varargs = true;
	}
	return res < 0 ? res : 0;
}

struct walk {
	struct abi abi;
	int reg_idx;
	bool window;		/* clang's rule (see the essay) */
	bool unexpected, any_struct;
};

/* Is @reg one of the @slots argument registers from w->reg_idx on? */
static bool in_window(const struct walk *w, int reg, int slots)
{
	int i;

	for (i = w->reg_idx; i < w->reg_idx + slots && i < w->abi.nr; i++)
		if (w->abi.regs[i] == reg)
			return true;
	return false;
}

static void check_param(struct walk *w, const struct dw_die *p,
			const struct ploc *pl, uint64_t size, unsigned int addr,
			struct abtf_fn_facts *ff)
{
	bool has_loc = p->have & DW_HAVE_LOCATION;
	bool avail = w->reg_idx < w->abi.nr;
	int slots = 1, expected = avail ? w->abi.regs[w->reg_idx] : -1;
	bool in_memory = size > (w->abi.two_regs ? 2ull * addr : addr);

	if (w->abi.two_regs && size > addr)
		slots = (size + addr - 1) / addr;
	if (w->window) {
		if (!has_loc)
			ff->optimized_parms = true;
		if (in_memory || !avail)
			return;	/* consumes no register, checks nothing */
		if (pl->reg != UNKNOWN_REG && !in_window(w, pl->reg, slots))
			w->unexpected = true;
		w->reg_idx += slots;
		return;
	}
	if (has_loc) {
		if (!avail)
			return;	/* consumes no register */
		if (pl->reg == UNKNOWN_REG)
			ff->optimized_parms = true;
		else if (expected >= 0 && expected != pl->reg)
			w->unexpected = true;
	} else {
		ff->optimized_parms = true;	/* optimized or no location */
	}
	w->reg_idx += in_memory ? 1 : slots;
}

int abtf__fn_facts(struct dw_file *f, const struct dw_die *fn, int machine,
		   struct abtf_fn_facts *ff, const char **why)
{
	struct origin o = { .nr = 0 };
	uint64_t call_conv = 0;
	struct walk w = { 0 };
	bool varargs = false;
	struct dw_die p;
	int res, err, idx = 0;

	memset(ff, 0, sizeof(*ff));
	machine_abi(machine, &w.abi);
	if (fn->have & DW_HAVE_CALL_CONV)
		call_conv = fn->call_conv;
	if (fn->have & DW_HAVE_ORIGIN) {
		/* pahole reads the origin's alone */
		err = origin_params(f, fn->cu, fn->origin, &o);
		if (err)
			return err;
		call_conv = o.call_conv;
	}
	/* pahole's signature_changed: clang's units only */
	ff->nocall = fn->cu->clang && call_conv == DW_CC_nocall;
	ff->no_low_pc = !(fn->have & DW_HAVE_LOW_PC);
	w.window = fn->cu->clang && !ff->nocall;
	for (res = dw_die__child(f, fn, &p, why); !res;
	     res = dw_die__sibling(f, &p, why)) {
		uint64_t size = 0, own_origin;
		struct ploc pl = { UNKNOWN_REG };
		bool is_struct = false;

		if (p.tag == DW_TAG_unspecified_parameters)
			varargs = true;
		if (p.tag != DW_TAG_formal_parameter)
			continue;
		own_origin = p.have & DW_HAVE_ORIGIN ? p.origin : 0;
		if (own_origin && !(p.have & DW_HAVE_TYPE) &&
		    (idx >= o.nr || o.offs[idx] != own_origin))
			ff->reordered = true;
		err = dw_die__integrate(f, &p, why);
		if (err)
			return err;
		if (p.have & DW_HAVE_TYPE) {
			err = param_type(f, p.cu, p.type, &size, &is_struct);
			if (err)
				return err;
		}
		w.any_struct |= is_struct;
		if (p.have & DW_HAVE_LOCATION) {
			err = param_loc(f, &p, size, &pl, why);
			if (err)
				return err;
		}
		check_param(&w, &p, &pl, size, p.cu->addr_size, ff);
		idx++;
	}
	if (res < 0)
		return res;
	ff->unexpected_reg = w.unexpected && !w.any_struct;
	/*
	 * pahole counts "..." as a parameter of each instance: clang writes
	 * DW_TAG_unspecified_parameters in the out-of-line copy of an
	 * inlined variadic function and not in its abstract origin, two
	 * prototypes of the name
	 */
	ff->varargs_differ = (fn->have & DW_HAVE_ORIGIN) && varargs != o.varargs;
	return 0;
}
