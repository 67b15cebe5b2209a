// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The .debug_btf_addr format, in one place (docs/archive-format.md is its
 * byte-level specification; keep the two in step).
 *
 * cc-btf writes one group per object (encoder.c through
 * abtf__addr_group_make()): a version 2 header ("BTFB"), one zeroed
 * pointer-sized slot per FUNC and VAR of the object's .BTF, each with an
 * absolute relocation to its symbol plus one, the optimized_func extension
 * and the FUNCs' flags. The linker concatenates the groups as it does the
 * .BTF members; btf-link (place.c, merge.c, funcs.c) reads them back
 * here: a group's header checked against the section's bounds, the padding
 * between groups skipped, a slot's value in a final image, or, in a
 * relocatable one, the relocation at the slot's offset.
 */
#include <byteswap.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/addr.h"
#include "elf/elf_reloc.h"
#include "elf/elf_read.h"

size_t abtf__addr_slot_size(unsigned char ei_class)
{
	return ei_class == ELFCLASS64 ? 8 : 4;
}

/* ---- writing ---- */

size_t abtf__addr_slot_offset(unsigned char ei_class, size_t k)
{
	return sizeof(struct abtf_addr_hdr2) + k * abtf__addr_slot_size(ei_class);
}

static uint32_t to_target32(unsigned char ei_data, uint32_t v)
{
	return ei_data == ELFDATA2MSB ? htobe32(v) : htole32(v);
}

void *abtf__addr_group_make(const struct abtf_addr_group_out *g, size_t *size)
{
	size_t ss = abtf__addr_slot_size(g->ei_class);
	size_t slots = ((size_t)g->nr_slots + g->nr_extra) * ss;
	size_t tail = (size_t)g->ext_type_len + g->ext_str_len + g->nr_flags;
	struct abtf_addr_hdr2 *hdr;
	uint8_t *p;

	*size = sizeof(*hdr) + slots + (tail + ss - 1) / ss * ss;
	hdr = calloc(1, *size);
	if (!hdr)
		return NULL;
	memcpy(hdr->magic, ABTF_ADDR_MAGIC2, sizeof(hdr->magic));
	hdr->nr_slots = to_target32(g->ei_data, g->nr_slots);
	hdr->btf_size = to_target32(g->ei_data, g->btf_size);
	hdr->btf_hash = to_target32(g->ei_data,
				    abtf__hash32(g->btf, g->btf_size));
	hdr->nr_extra = to_target32(g->ei_data, g->nr_extra);
	hdr->ext_type_len = to_target32(g->ei_data, g->ext_type_len);
	hdr->ext_str_len = to_target32(g->ei_data, g->ext_str_len);
	hdr->nr_flags = to_target32(g->ei_data, g->nr_flags);
	p = (uint8_t *)(hdr + 1) + slots;
	if (g->ext_type_len) {
		memcpy(p, g->ext, (size_t)g->ext_type_len + g->ext_str_len);
		if (!abtf__host_order(g->ei_data))
			abtf__swap32s(p, g->ext_type_len);
	}
	p += (size_t)g->ext_type_len + g->ext_str_len;
	if (g->nr_flags)
		memcpy(p, g->flags, g->nr_flags);
	return hdr;
}

/* ---- reading ---- */

/* A version 2 header's tail: the extension, flags and padding, checked. */
static bool read_tail(const struct abtf_addr_hdr2 *h, uint64_t ss,
		      uint64_t left, struct abtf_addr_group *g)
{
	uint64_t tail = (uint64_t)h->ext_type_len + h->ext_str_len + h->nr_flags;

	tail = (tail + ss - 1) / ss * ss;
	if (tail > left || h->ext_type_len % 4 ||
	    (h->ext_type_len && !h->ext_str_len) ||
	    (!h->ext_type_len && (h->ext_str_len || h->nr_extra)))
		return false;
	g->nr_extra = h->nr_extra;
	g->ext_off = g->end;
	g->ext_type_len = h->ext_type_len;
	g->ext_str_len = h->ext_str_len;
	g->flags_off = g->end + h->ext_type_len + h->ext_str_len;
	g->nr_flags = h->nr_flags;
	g->end += tail;
	return true;
}

bool abtf__addr_group_read(const struct abtf_addr_sec *s, size_t at,
			   struct abtf_addr_group *g)
{
	uint64_t ss = s->slot_size, avail, need;
	struct abtf_addr_hdr2 h;
	size_t hlen;

	memset(g, 0, sizeof(*g));
	if (s->size < sizeof(struct abtf_addr_hdr) ||
	    at > s->size - sizeof(struct abtf_addr_hdr))
		return false;
	memcpy(&h, s->data + at, sizeof(struct abtf_addr_hdr));
	if (!memcmp(h.magic, ABTF_ADDR_MAGIC, sizeof(h.magic))) {
		hlen = sizeof(struct abtf_addr_hdr);
	} else if (!memcmp(h.magic, ABTF_ADDR_MAGIC2, sizeof(h.magic)) &&
		   s->size - at >= sizeof(h)) {
		memcpy(&h, s->data + at, sizeof(h));
		hlen = sizeof(h);
	} else {
		return false;
	}
	if (s->swapped)		/* the 32-bit fields after the magic */
		abtf__swap32s((uint8_t *)&h + sizeof(h.magic),
			      hlen - sizeof(h.magic));
	avail = s->size - at - hlen;
	need = ((uint64_t)h.nr_slots + (hlen == sizeof(h) ? h.nr_extra : 0)) * ss;
	if (need > avail)
		return false;
	g->btf_size = h.btf_size;
	g->btf_hash = h.btf_hash;
	g->slots_off = at + hlen;
	g->nr_slots = h.nr_slots;
	g->end = g->slots_off + need;
	return hlen != sizeof(h) || read_tail(&h, ss, avail - need, g);
}

size_t abtf__addr_skip_pad(const struct abtf_addr_sec *s, size_t at)
{
	while (at < s->size && at % s->slot_size && !s->data[at])
		at++;
	return at;
}

uint64_t abtf__addr_slot_value(const struct abtf_addr_sec *s, size_t at)
{
	const uint8_t *p = s->data + at;
	uint64_t v64;
	uint32_t v32;

	if (s->slot_size == 8) {
		memcpy(&v64, p, 8);
		return s->swapped ? bswap_64(v64) : v64;
	}
	memcpy(&v32, p, 4);
	return s->swapped ? bswap_32(v32) : v32;
}

/* ---- relocations ---- */

/* The one order of a relocation table: by offset in .debug_btf_addr. */
static int off_cmp(const void *a, const void *b)
{
	const struct abtf_addr_rela *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* ... and in the section's order at one offset, for messages */
static int rela_cmp(const void *a, const void *b)
{
	const struct abtf_addr_rela *x = a, *y = b;

	return off_cmp(a, b) ?: (x->idx < y->idx ? -1 : x->idx > y->idx);
}

static int read_rela(Elf_Data *d, int type, size_t i, struct abtf_addr_rela *r,
		     uint32_t *rtype)
{
	GElf_Rela ra;
	GElf_Rel rel;

	if (type == SHT_RELA) {
		if (!gelf_getrela(d, i, &ra))
			return -EINVAL;
		r->offset = ra.r_offset;
		r->sym = GELF_R_SYM(ra.r_info);
		r->addend = ra.r_addend;
		*rtype = GELF_R_TYPE(ra.r_info);
		return 0;
	}
	if (!gelf_getrel(d, i, &rel))
		return -EINVAL;
	r->offset = rel.r_offset;
	r->sym = GELF_R_SYM(rel.r_info);
	r->addend = 0;
	*rtype = GELF_R_TYPE(rel.r_info);
	return 0;
}

static int relocs_fail(const char *path, const struct abtf_printer *pr,
		       const char *what)
{
	pr_warn(pr, "%s: %s: %s", path, what, elf_errmsg(-1));
	return -EINVAL;
}

/*
 * A slot's relocation is absolute and of the slot's width (what cc-btf
 * writes, elf_reloc.c's abtf__reloc_abs(), and what ld -r keeps): any
 * other type would be read as one silently.
 */
static int check_type(const GElf_Ehdr *eh, const char *path,
		      const struct abtf_printer *pr, size_t i, uint32_t type)
{
	struct abtf_rel_kind k;

	if (!abtf__reloc_kind(eh->e_machine, type, &k) &&
	    k.op == ABTF_REL_ABS &&
	    k.width == abtf__addr_slot_size(eh->e_ident[EI_CLASS]))
		return 0;
	pr_warn(pr, "%s: .debug_btf_addr: relocation %zu: type %u is not "
		"an address slot's (machine %u)", path, i, type, eh->e_machine);
	return -EINVAL;
}

int abtf__addr_relocs_load(Elf *elf, size_t addr_shndx, const char *path,
			   const struct abtf_printer *pr,
			   struct abtf_addr_relocs *t)
{
	GElf_Shdr shdr;
	size_t i, n, rel = abtf__elf_relocs_of(elf, addr_shndx, &shdr);
	GElf_Ehdr eh;
	Elf_Data *d;

	if (!rel)
		return 0;
	if (!gelf_getehdr(elf, &eh))
		return relocs_fail(path, pr, "cannot read the ELF header");
	d = elf_getdata(elf_getscn(elf, rel), NULL);
	if (!d && shdr.sh_size)
		return relocs_fail(path, pr, "cannot read "
				   ".debug_btf_addr relocations");
	n = shdr.sh_entsize ? shdr.sh_size / shdr.sh_entsize : 0;
	t->r = calloc(n + 1, sizeof(*t->r));
	if (!t->r)
		return -ENOMEM;
	t->inplace = shdr.sh_type == SHT_REL;
	for (i = 0; i < n; i++) {
		uint32_t type;

		if (read_rela(d, shdr.sh_type, i, &t->r[i], &type))
			return relocs_fail(path, pr, "bad "
					   ".debug_btf_addr relocation");
		t->r[i].idx = i;
		if (check_type(&eh, path, pr, i, type))
			return -EINVAL;
	}
	t->nr = n;
	qsort(t->r, n, sizeof(*t->r), rela_cmp);
	return 0;
}

const struct abtf_addr_rela *
abtf__addr_reloc_at(const struct abtf_addr_relocs *t, uint64_t offset)
{
	struct abtf_addr_rela key = { .offset = offset };

	if (!t->nr)	/* t->r may be NULL: not for bsearch() */
		return NULL;
	return bsearch(&key, t->r, t->nr, sizeof(key), off_cmp);
}

void abtf__addr_relocs_free(struct abtf_addr_relocs *t)
{
	free(t->r);
	memset(t, 0, sizeof(*t));
}
