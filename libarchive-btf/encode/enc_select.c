// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The DWARF walk of one object: every unit's type DIEs into the IR
 * (dwarf_types.c converts them), and which functions and variables get a
 * FUNC or a VAR, each paired with the symbol it stands for (the rules are
 * in the essay atop encoder.c and in docs/design.md):
 *
 *  - a FUNC for a top-level subprogram that is a definition, whose
 *    parameters all have names, and whose name is a defined, unused
 *    STT_FUNC symbol, or is one with ThinLTO's ".llvm.<digits>" (a static
 *    function promoted: btf-link keeps it by pahole 1.25's rule, with
 *    optimized_func); its btf_decl_tags after it;
 *  - a VAR for a variable definition, at any depth, whose address is a
 *    non-empty per-CPU object symbol of its name;
 *  - and, for pahole 1.31's function rules, each function with code and
 *    named parameters as a "state" of its name, with its facts
 *    (func_facts.c), into enc_funcext.c.
 *
 * The DWARF is walked in file order and the nodes are made as the DIEs
 * come, so the IR is a pure function of the object.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/btf.h>

#include "encode/dwarf_types.h"
#include "encode/enc.h"

static int add_placed(struct enc_select *s, uint32_t id, struct enc_sym *sym)
{
	if (abtf_grow(s->placed, s->cap_placed, s->nr_placed + 1))
		return -ENOMEM;
	s->placed[s->nr_placed].id = id;
	s->placed[s->nr_placed].sym = sym;
	s->nr_placed++;
	enc_syms__take(sym);
	return 0;
}

/* A reader error at @die: one message, the errno back. */
static int bad_dwarf(struct enc_select *s, const struct dw_die *die,
		     int err, const char *why)
{
	char buf[256], at[48] = "";

	if (err == -ENOMEM)
		return err;
	/* a DIE read under @die (its child, its sibling) is named too */
	if (s->dw->f.bad_off && s->dw->f.bad_off != die->off)
		snprintf(at, sizeof(at), "the DIE at 0x%llx: ",
			 (unsigned long long)s->dw->f.bad_off);
	snprintf(buf, sizeof(buf), "bad DWARF: %s%s", at, why ? why : "?");
	return dwarf_types__die_error(s->ir, die, err, buf);
}

/* Name, type and DW_AT_external from the DIE's origin where it has none. */
static int integrate(struct enc_select *s, struct dw_die *die)
{
	const char *why = NULL;
	int err = dw_die__integrate(&s->dw->f, die, &why);

	return err ? bad_dwarf(s, die, err, why) : 0;
}

/* pahole skips functions with an unnamed parameter. */
static int all_params_named(struct enc_select *s, const struct dw_die *die)
{
	const char *why = NULL;
	struct dw_die child;
	int res, err;

	for (res = dw_die__child(&s->dw->f, die, &child, &why); !res;
	     res = dw_die__sibling(&s->dw->f, &child, &why)) {
		if (child.tag != DW_TAG_formal_parameter)
			continue;
		err = integrate(s, &child);
		if (err)
			return err;
		if (!(child.have & DW_HAVE_NAME))
			return 0;
	}
	return res < 0 ? bad_dwarf(s, die, res, why) : 1;
}

/*
 * The btf_decl_tags of FUNC @id: each parameter's (component_idx its
 * position), then the function's own, as pahole orders them.
 */
static int func_decl_tags(struct enc_select *s, const struct dw_die *die,
			  uint32_t id)
{
	const char *why = NULL;
	struct dw_die child;
	int res, err, idx = 0;

	if (!dw_unit__annotations(die->cu))
		return 0;	/* GCC's, or no tags in the unit */
	for (res = dw_die__child(&s->dw->f, die, &child, &why); !res;
	     res = dw_die__sibling(&s->dw->f, &child, &why)) {
		if (child.tag != DW_TAG_formal_parameter)
			continue;
		err = dwarf_types__decl_tags(s->ir, &child, id, idx++);
		if (err)
			return err;
	}
	if (res < 0)
		return bad_dwarf(s, die, res, why);
	return dwarf_types__decl_tags(s->ir, die, id, -1);
}

static int encode_func(struct enc_select *s, struct dw_die *die)
{
	struct ir_node n = { .kind = BTF_KIND_FUNC, .flag = BTF_FUNC_STATIC };
	struct enc_sym *sym;
	int proto, id, err;

	if (die->have & DW_HAVE_DECLARATION)
		return 0;
	err = integrate(s, die);
	if (err)
		return err;
	if (!(die->have & DW_HAVE_NAME))
		return 0;
	/*
	 * Several units (an LTO link's output, ld -r): a symbol of the name
	 * may be another unit's function, so only a DIE with code takes one
	 * (an abstract instance's FUNC comes from its concrete DIE, which
	 * has the origin's name). In one unit, the abstract instance and
	 * the code are one function: the first DIE takes it, as in pahole.
	 */
	if (s->dw->f.nr_units > 1 && !(die->have & DW_HAVE_CODE))
		return 0;
	sym = enc_syms__find(s->syms, die->name, STT_FUNC);
	if (!sym)	/* an LTO link's output: ThinLTO renamed it */
		sym = enc_syms__find_thinlto(s->syms, die->name);
	if (!sym)
		return 0;
	err = all_params_named(s, die);
	if (err <= 0)
		return err;
	proto = dwarf_types__func_proto(s->ir, die);
	if (proto < 0)
		return proto;
	n.name = die->name;
	n.ref = proto;
	id = ir__add_node(s->ir, &n);
	if (id < 0)
		return id;
	err = func_decl_tags(s, die, id);
	if (err)
		return err;
	return add_placed(s, id, sym);
}

/*
 * A definition with code whose parameters all have names is one of
 * pahole 1.31's "states" of its name (docs/design.md): keep its facts.
 */
static int note_state(struct enc_select *s, struct dw_die *die)
{
	struct abtf_fn_facts ff;
	const char *why = NULL;
	int err;

	if ((die->have & DW_HAVE_DECLARATION) || !(die->have & DW_HAVE_CODE))
		return 0;
	err = integrate(s, die);
	if (err || !(die->have & DW_HAVE_NAME))
		return err;
	err = all_params_named(s, die);
	if (err <= 0)
		return err;
	err = abtf__fn_facts(&s->dw->f, die, s->obj->ehdr.e_machine, &ff, &why);
	if (err)
		return bad_dwarf(s, die, err, why);
	return enc_funcext__add_state(s->fx, die->name, die->off, &ff);
}

/*
 * Where a variable's address is, as pahole reads DW_AT_location: the first
 * operation, DW_OP_addr (its operand, in .debug_info) or DW_OP_addrx
 * (clang's DWARF 5: an entry of .debug_addr), then nothing, one
 * DW_OP_plus_uconst (added, as pahole does) or DW_OP_piece (clang splits
 * a static it optimised into pieces; the first piece is at the variable's
 * address). Anything else (a location list, a register, a computed
 * value) is not a fixed address: 1. A bad DW_OP_addrx: an error.
 */
static int var_operand(struct enc_select *s, const struct dw_die *die,
		       const uint8_t **where, uint64_t *addr, uint64_t *add)
{
	const struct dw_value *loc = &die->location;
	const uint8_t *p, *end;
	unsigned int i, size = die->cu->addr_size;
	const char *why = NULL;
	uint64_t idx;
	int err;

	*add = 0;
	if (!(die->have & DW_HAVE_LOCATION) || loc->cls != DW_CLASS_BLOCK ||
	    !loc->u)
		return 1;
	p = loc->block;
	end = p + loc->u;
	switch (*p++) {
	case DW_OP_addr:
		if ((size_t)(end - p) < size)
			return 1;
		*where = p;
		for (*addr = 0, i = 0; i < size; i++)
			*addr |= (uint64_t)p[i] <<
				 (8 * (s->dw->f.big_endian ? size - 1 - i : i));
		p += size;
		break;
	case DW_OP_addrx:
	case DW_OP_GNU_addr_index:
		if (!dw_uleb(&p, end, &idx))
			return bad_dwarf(s, die, -EINVAL,
					 "DW_OP_addrx: truncated operand");
		err = dw_unit__addrx(&s->dw->f, die->cu, idx, addr, where,
				     &why);
		if (err)
			return bad_dwarf(s, die, err, why);
		break;
	default:
		return 1;
	}
	if (p == end || *p == DW_OP_piece)
		return 0;
	if (*p++ == DW_OP_plus_uconst && dw_uleb(&p, end, add) && p == end)
		return 0;
	return 1;
}

/*
 * The section and offset of a variable's address (var_operand()), as
 * enc_dwarf.c maps it back. 0, 1 (no address), or < 0.
 */
static int var_address(struct enc_select *s, const struct dw_die *die,
		       uint64_t *addr, uint32_t *shndx)
{
	const uint8_t *where;
	uint64_t add;
	int err;

	err = var_operand(s, die, &where, addr, &add);
	if (err)
		return err;
	if (enc_dwarf__section_of(s->dw, where, addr, shndx))
		return 1;
	*addr += add;
	return 0;
}

/*
 * The per-CPU symbol at the variable's address that can be @name's (any,
 * if NULL): 0, 1 (none) or < 0.
 */
static int var_symbol(struct enc_select *s, const struct dw_die *die,
		      const char *name, struct enc_sym **sym)
{
	uint32_t shndx;
	uint64_t addr;
	int err;

	err = var_address(s, die, &addr, &shndx);
	if (err)
		return err;
	*sym = enc_syms__percpu_at(s->syms, shndx, addr, name);
	return *sym ? 0 : 1;
}

/*
 * A VAR for a variable, at any depth, whose address is a non-empty per-CPU
 * object symbol of its name; named after the symbol, as pahole does (a
 * function-local static "hits" is "hits.0"). The name is checked because
 * an address alone may mislead: where an object's sections are laid out
 * one after the other (libdwfl, the encoder's way for riscv64 until
 * issue 20, and any linked file), a variable of no size at the end of its
 * section (mm/vmstat.c's vm_numa_event[0] without NUMA) has the address
 * of the next section's first symbol (vmstat_work, per-CPU). Of several
 * symbols at the address, the variable's is the one of its name (not
 * Linux 7.x's __pi_gdt_page, an alias of gdt_page that sorts first).
 */
static int encode_var(struct enc_select *s, struct dw_die *die)
{
	struct ir_node n = { .kind = BTF_KIND_VAR };
	struct enc_sym *sym;
	int type, id, err;

	if (die->have & DW_HAVE_DECLARATION)
		return 0;
	err = var_symbol(s, die, NULL, &sym);
	if (err)
		return err < 0 ? err : 0;
	/* the name, where a definition has it from its declaration */
	err = integrate(s, die);
	if (err)
		return err;
	if (die->have & DW_HAVE_NAME) {
		err = var_symbol(s, die, die->name, &sym);
		if (err)
			return err < 0 ? err : 0;
	}
	type = dwarf_types__type_of_attr(s->ir, die);
	if (type < 0)
		return type;
	n.name = sym->name;
	n.ref = type;
	n.flag = (die->have & DW_HAVE_EXTERNAL) && die->external ?
		 BTF_VAR_GLOBAL_ALLOCATED : BTF_VAR_STATIC;
	id = ir__add_node(s->ir, &n);
	if (id < 0)
		return id;
	err = dwarf_types__decl_tags(s->ir, die, id, -1);
	if (err)
		return err;
	return add_placed(s, id, sym);
}

/* Deeper nesting is refused: walk_die() recurses once per level. */
#define MAX_DIE_DEPTH	1024

/*
 * @die and its subtree, and where the subtree ends into *@end (past the
 * null entry of its children, or @die's own end if it has none). Each
 * DW_AT_sibling in it must name the end of its DIE's subtree: one that
 * names another place would make libdw (and this reader's other walks,
 * dw_die__sibling()) pass DIEs over unread or read them twice.
 */
static int walk_die(struct enc_select *s, struct dw_die *die, int depth,
		    uint64_t *end)
{
	const char *why = NULL;
	struct dw_die child;
	uint64_t sub = 0;
	int err = 0, res;

	if (depth >= MAX_DIE_DEPTH)
		return bad_dwarf(s, die, -EINVAL, "DIEs nested more than "
				 "1024 levels deep");
	if (dwarf_types__is_type_tag(die->tag))
		err = dwarf_types__type_of_die(s->ir, die);
	else if (depth == 1 && die->tag == DW_TAG_subprogram)
		err = encode_func(s, die) ?: note_state(s, die);
	else if (die->tag == DW_TAG_variable && s->syms->has_percpu)
		err = encode_var(s, die);
	if (err < 0)
		return err;
	/*
	 * Every subtree is walked, inlined copies and call sites too (GCC
	 * defines a function's local types in its abstract instance, not
	 * there): jumping over them through DW_AT_sibling saved 4 % of the
	 * encoder's instructions, and left a damaged DIE inside them unread,
	 * the tree libdw walks unchecked (issue 36) and a type a compiler put
	 * there lost.
	 */
	res = dw_die__child(&s->dw->f, die, &child, &why);
	if (res < 0)
		return bad_dwarf(s, die, res, why);
	while (!res) {
		/*
		 * Under a type, its members, enumerators, subranges and
		 * parameters were converted with it: only read for where
		 * they end. A type among them (clang's anonymous unions in
		 * a struct) is walked as any other: converted if nothing
		 * referred to it, not lost.
		 */
		if (dwarf_types__is_type_tag(die->tag) &&
		    !dwarf_types__is_type_tag(child.tag)) {
			err = dw_die__subtree_end(&s->dw->f, &child, &sub,
						  &why);
			if (err)
				return bad_dwarf(s, &child, err, why);
		} else {
			err = walk_die(s, &child, depth + 1, &sub);
		}
		if (err)
			return err;
		/*
		 * A DW_AT_sibling that is wrong names the child; a DIE after
		 * it that cannot be read is named under @die (bad_off).
		 */
		res = dw_die__next_at(&s->dw->f, &child, sub, &why);
		if (res < 0)
			return bad_dwarf(s, s->dw->f.bad_off ? die : &child,
					 res, why);
	}
	/* the null entry read last, or no list at all */
	*end = die->children ? child.end : die->end;
	return 0;
}

/*
 * The unit's DIEs were read to its end (the walk's tree ended at @end):
 * nothing lost after a bad one.
 */
static int check_end(struct enc_select *s, struct dw_unit *u,
		     const struct dw_die *cu, uint64_t end)
{
	const char *why = NULL;
	int err = dw_unit__check_end(&s->dw->f, cu, end, &why);

	if (err)
		pr_warn(s->obj->pr, "%s: .debug_info: unit at 0x%llx: 0x%llx: "
			"%s", s->dw->name, (unsigned long long)u->off,
			(unsigned long long)end, why);
	return err;
}

/*
 * Whether a unit's DIEs describe C: not Rust's (--lang_exclude=rust), and
 * not an assembler's (gas's DWARF 5 gives each .type @function symbol a
 * subprogram returning DW_TAG_unspecified_type, no prototype at all:
 * arch/x86/kernel/irqflags.S's native_save_fl, which returns unsigned
 * long, would be a FUNC "void native_save_fl(void)").
 */
static bool unit_has_c_types(const struct dw_die *cu)
{
	if (!(cu->have & DW_HAVE_LANGUAGE))
		return true;
	return cu->language != DW_LANG_Rust &&
	       cu->language != DW_LANG_Mips_Assembler;
}

static int walk_unit(struct enc_select *s, struct dw_unit *u)
{
	const char *why = NULL;
	struct dw_die cu;
	uint64_t end = 0;
	int err;

	/*
	 * Compile and partial units, and a .dwo's split compile unit: a
	 * skeleton unit's object is read through its .dwo (enc_dwarf.c).
	 */
	if (u->unit_type == DW_UT_type || u->unit_type == DW_UT_split_type)
		return 0;	/* pulled in through references */
	err = dw_die__read(&s->dw->f, u, u->die, &cu, &why);
	if (err && err != -ENOMEM)
		pr_warn(s->obj->pr, "%s: .debug_info: unit at 0x%llx: DIE "
			"0x%llx: %s", s->dw->name, (unsigned long long)u->off,
			(unsigned long long)u->die, why);
	if (err)
		return err;
	if (!unit_has_c_types(&cu))
		return 0;
	s->nr_units++;
	/* the walk names what it trips on; the check, what it would lose */
	return walk_die(s, &cu, 0, &end) ?: check_end(s, u, &cu, end);
}

int enc_select__walk(struct enc_select *s)
{
	size_t i;
	int err;

	for (i = 0; i < s->dw->f.nr_units; i++) {
		err = walk_unit(s, &s->dw->f.units[i]);
		if (err)
			return err;
	}
	return 0;
}

void enc_select__free(struct enc_select *s)
{
	free(s->placed);
	s->placed = NULL;
	s->nr_placed = s->cap_placed = 0;
}
