// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * dwarf_reloc.c on real objects (tests/encoder-reloc.bats compiles them,
 * for every machine the relocation table knows): dwarf-addr OBJ... opens
 * each OBJ's DWARF without a message and, in a relocatable object, maps
 * the address of its per-CPU variable "pcpu_counter"
 * (tests/fixtures/reloc-tls.c) back to offset 0 of .data..percpu, by the
 * address's relocation. Silent when every check holds.
 */
#include <dwarf.h>
#include <string.h>

#include "encode/enc.h"
#include "unit.h"

/* The top-level variable DIE called @name of @f's first unit. */
static bool find_var(struct dw_file *f, const char *name, struct dw_die *var)
{
	const char *why = NULL;
	struct dw_die cu;
	int res;

	if (!CHECK(f->nr_units) ||
	    !CHECK(!dw_die__read(f, &f->units[0], f->units[0].die, &cu, &why)))
		return false;
	for (res = dw_die__child(f, &cu, var, &why); !res;
	     res = dw_die__sibling(f, var, &why))
		if (var->tag == DW_TAG_variable &&
		    (var->have & DW_HAVE_NAME) && !strcmp(var->name, name))
			return true;
	return false;
}

/* @var's DW_OP_addr or DW_OP_addrx operand: where it is, and its value. */
static bool var_addr(const struct dw_file *f, const struct dw_die *var,
		     const uint8_t **where, uint64_t *addr)
{
	const struct dw_value *loc = &var->location;
	unsigned int i, size = var->cu->addr_size;
	const uint8_t *p, *end;
	const char *why = NULL;
	uint64_t idx;

	if (!CHECK(var->have & DW_HAVE_LOCATION) ||
	    !CHECK(loc->cls == DW_CLASS_BLOCK && loc->u > 1))
		return false;
	p = loc->block + 1;
	end = loc->block + loc->u;
	if (loc->block[0] == DW_OP_addrx)
		return CHECK(dw_uleb(&p, end, &idx)) &&
		       CHECK(!dw_unit__addrx(f, var->cu, idx, addr, where,
					     &why));
	if (!CHECK(loc->block[0] == DW_OP_addr && loc->u == 1 + size))
		return false;
	*where = p;
	for (*addr = 0, i = 0; i < size; i++)
		*addr |= (uint64_t)p[i] <<
			 (8 * (f->big_endian ? size - 1 - i : i));
	return true;
}

static void check_object(const char *path)
{
	struct enc_obj o = { .fd = -1 };
	struct enc_dwarf d = { 0 };
	const uint8_t *where;
	struct unit_log log;
	struct dw_die var;
	uint32_t shndx = 0;
	uint64_t addr;

	unit_log_init(&log);
	if (!CHECK(!enc_obj__open(&o, path, &log.pr)) ||
	    !CHECK(!enc_dwarf__open(&d, &o)))
		goto out;
	CHECK(log.nr == 0);
	CHECK(d.rel_elf);
	if (o.ehdr.e_type == ET_REL &&	/* an address in a section */
	    CHECK(find_var(&d.f, "pcpu_counter", &var)) &&
	    var_addr(&d.f, &var, &where, &addr) &&
	    CHECK(!enc_dwarf__section_of(&d, where, &addr, &shndx))) {
		CHECK(addr == 0);
		CHECK(!strcmp(enc_obj__section_name(&o, shndx) ?: "",
			      ".data..percpu"));
	}
out:
	enc_dwarf__close(&d);
	enc_dwarf__close(&d);	/* idempotent */
	CHECK(!d.rel_elf);
	enc_obj__close(&o);
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: dwarf-addr OBJ...\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		check_object(argv[i]);
	return unit_status();
}
