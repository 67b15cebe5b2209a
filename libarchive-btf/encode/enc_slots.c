// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The object's .debug_btf_addr group (a version 2 group, addr.c writes
 * it): a header naming the .BTF it belongs to (size and hash), then one
 * pointer-sized slot per FUNC and per VAR, in type ID order, each with an
 * absolute relocation against the symbol and addend 1: after any link
 * the slot reads address + 1, or 0 when the linker discarded the symbol's
 * section. Then a slot per clone FUNC of the extension, the extension
 * itself and a flags byte per FUNC and per clone (enc_funcext.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "elf/addr.h"
#include "encode/enc.h"

static size_t slot_size(const struct enc_obj *o)
{
	return abtf__addr_slot_size(o->ehdr.e_ident[EI_CLASS]);
}

static int push_flags(struct enc_slots *sl, uint8_t f)
{
	if (abtf_grow(sl->fflags, sl->cap_fflags, sl->nr_fflags + 1))
		return -ENOMEM;
	sl->fflags[sl->nr_fflags++] = f;
	return 0;
}

static void add_reloc(struct enc_slots *sl, const struct enc_obj *o,
		      const struct enc_sym *sym)
{
	struct abtf_reloc *r = &sl->relocs[sl->nr_relocs];

	r->offset = abtf__addr_slot_offset(o->ehdr.e_ident[EI_CLASS],
					   sl->nr_relocs);
	r->sym = sym->idx;
	r->type = sl->reloc_type;
	r->addend = 1;
	sl->nr_relocs++;
}

/* The flags byte of the FUNC for @sym: its states', and weak or not. */
static uint8_t func_flags(const struct enc_funcext *fx, const char *name,
			  const struct enc_sym *sym)
{
	return enc_funcext__flags(fx, name, sym->name) |
	       (sym->bind == STB_WEAK ? ABTF_FN_WEAK : 0);
}

/*
 * Dedup keeps FUNCs and VARs in their order (VARs are never merged; two
 * FUNCs merge only if name and prototype are equal), so walking the final
 * types against the pre-dedup list by name pairs each with its symbol.
 */
int enc_slots__make(struct enc_slots *sl, const struct enc_obj *o,
		    const struct btf *btf, const struct enc_select *s,
		    const struct enc_funcext *fx, int reloc_type)
{
	uint32_t id, n = btf__type_cnt(btf);
	size_t p = 0;

	sl->reloc_type = reloc_type;
	sl->relocs = calloc(s->nr_placed + fx->nr_extras + 1,
			    sizeof(*sl->relocs));
	if (!sl->relocs)
		return -ENOMEM;
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name;

		if (!btf_is_func(t) && !btf_is_var(t))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		while (p < s->nr_placed &&
		       !enc_sym__is_of(s->placed[p].sym, name))
			p++;
		if (p == s->nr_placed) {
			pr_warn(o->pr, "%s: internal error: no symbol for %s",
				o->path, name);
			return -EINVAL;
		}
		if (btf_is_func(t) &&
		    push_flags(sl, func_flags(fx, name, s->placed[p].sym)))
			return -ENOMEM;
		add_reloc(sl, o, s->placed[p].sym);
		p++;
	}
	for (p = 0; p < fx->nr_extras; p++) {
		const struct enc_extra *x = &fx->extras[p];

		if (push_flags(sl, enc_funcext__flags(fx, x->st->name,
						      x->sym->name)))
			return -ENOMEM;
		add_reloc(sl, o, x->sym);
	}
	return 0;
}

void *enc_slots__section(const struct enc_slots *sl, const struct enc_obj *o,
			 const struct enc_funcext *fx, const void *btf,
			 uint32_t btf_size, struct abtf_section *sec)
{
	struct abtf_addr_group_out g = {
		.ei_class = o->ehdr.e_ident[EI_CLASS],
		.ei_data = o->ehdr.e_ident[EI_DATA],
		.nr_slots = sl->nr_relocs - fx->nr_extras,
		.nr_extra = fx->nr_extras,
		.btf = btf,
		.btf_size = btf_size,
		.ext = fx->ext,
		.ext_type_len = fx->ext_type_len,
		.ext_str_len = fx->ext_str_len,
		.flags = sl->fflags,
		.nr_flags = sl->nr_fflags,
	};
	void *data = abtf__addr_group_make(&g, &sec->size);

	if (!data)
		return NULL;
	sec->name = ABTF_SEC_ADDR;
	sec->type = SHT_PROGBITS;
	sec->align = slot_size(o);
	sec->data = data;
	sec->relocs = sl->relocs;
	sec->nr_relocs = sl->nr_relocs;
	return data;
}

void enc_slots__empty_section(const struct enc_obj *o,
			      struct abtf_section *sec)
{
	static const struct abtf_reloc none;

	sec->name = ABTF_SEC_ADDR;
	sec->type = SHT_PROGBITS;
	sec->align = slot_size(o);
	sec->data = "";
	sec->relocs = &none;
}

void enc_slots__free(struct enc_slots *sl)
{
	free(sl->relocs);
	free(sl->fflags);
	memset(sl, 0, sizeof(*sl));
}
