// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The DATASECs of one object: one per input section holding per-CPU VARs
 * (".data..percpu" or one of its subsections), by section index, named
 * after the section and sized as it, its entries the VARs' symbols'
 * offsets and sizes, sorted by offset. pahole on a lone object sees only
 * ".data..percpu" itself; the vmlinux linker script merges the rest.
 */
#include <errno.h>
#include <stdlib.h>

#include <linux/btf.h>

#include "encode/enc.h"

static int datasec_item_cmp(const void *a, const void *b)
{
	const struct ir_item *x = a, *y = b;

	if (x->bit_off != y->bit_off)
		return x->bit_off < y->bit_off ? -1 : 1;
	return x->type < y->type ? -1 : x->type > y->type;
}

static int add_datasec(const struct enc_obj *o, struct ir *ir, uint32_t shndx,
		       struct ir_item *items, uint32_t nr)
{
	struct ir_node n = { .kind = BTF_KIND_DATASEC };
	Elf_Scn *scn = elf_getscn(o->elf, shndx);
	GElf_Shdr shdr;
	int id;

	if (!scn || !gelf_getshdr(scn, &shdr))
		return enc_obj__elf_error(o, "bad section header");
	n.name = enc_obj__section_name(o, shndx);
	n.size = shdr.sh_size;
	qsort(items, nr, sizeof(*items), datasec_item_cmp);
	id = ir__add_node(ir, &n);
	if (id < 0)
		return id;
	return ir__set_items(ir, id, items, nr);
}

int enc_datasec__add(const struct enc_obj *o, const struct enc_select *s,
		     struct ir *ir)
{
	struct ir_item *items;
	uint32_t shndx, next = 0, nr;
	size_t i;
	int err = 0;

	items = calloc(s->nr_placed + 1, sizeof(*items));
	if (!items)
		return -ENOMEM;
	for (shndx = 1; shndx && !err; shndx = next) {
		next = 0;
		nr = 0;
		for (i = 0; i < s->nr_placed; i++) {
			const struct enc_sym *sym = s->placed[i].sym;

			if (sym->type != STT_OBJECT)
				continue;
			if (sym->shndx == shndx) {
				items[nr].type = s->placed[i].id;
				items[nr].bit_off = sym->value;
				items[nr].bit_sz = sym->size;
				nr++;
			} else if (sym->shndx > shndx &&
				   (!next || sym->shndx < next)) {
				next = sym->shndx;
			}
		}
		if (nr)
			err = add_datasec(o, ir, shndx, items, nr);
	}
	free(items);
	return err;
}
