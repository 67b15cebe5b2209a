// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The encoder's way into an object's DWARF: relocated and decompressed in
 * a private copy-on-write mapping of the object, which dwarf_read.c reads.
 *
 * A relocatable object's .debug_info is unusable before its relocations
 * are applied: with RELA every string offset and address in it reads 0
 * until then. The type walk reads .debug_info, .debug_str_offsets,
 * .debug_types and .debug_addr through relocations, so those four are
 * relocated, and no other: the relocations of .debug_line, .debug_frame,
 * .debug_loclists, ... are a fifth of a kernel object's and the walk
 * reads none of them. What each relocation type does comes from the one
 * table of the library (elf/elf_reloc.c): x86-64, i386, arm64, arm,
 * riscv (its ADD/SUB pairs), s390x, powerpc, either byte order, REL or
 * RELA, 32 or 64 bits. A type the table does not know, in a section that
 * is read, is an error naming the relocation section and the type; so is
 * a relocatable object of a machine it does not know.
 *
 * The value written is the symbol's value plus the addend: for the offsets
 * into other debug sections the symbol is a section symbol of value 0, and
 * an address comes out as the offset in its section. Which section is lost
 * in the bytes, so the address-sized absolute relocations of .debug_info
 * and .debug_addr are kept (by offset) to tell the section of a variable's
 * DW_OP_addr operand or of the .debug_addr entry its DW_OP_addrx names
 * (clang's DWARF 5: every entry is 0 plus a relocation).
 *
 * Compressed debug sections (gcc -gz, SHF_COMPRESSED or GNU's .zdebug_)
 * are inflated in the same private Elf before anything reads them. A
 * linked file (ET_EXEC, ET_DYN) has its DWARF resolved already: nothing
 * to relocate, and an address tells its section by the sections' own
 * addresses.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_reloc.h"
#include "encode/dwarf_read.h"
#include "encode/dwarf_reloc.h"
#include "util/internal.h"
#include "elf/elf_read.h"

/* The sections the type walk reads, by what follows ".debug" in the name. */
static const char *const relocated[] = {
	"_info", "_str_offsets", "_types", "_addr",
};

static bool wanted(const char *suffix)
{
	size_t i;

	for (i = 0; suffix && i < ARRAY_SIZE(relocated); i++)
		if (!strcmp(suffix, relocated[i]))
			return true;
	return false;
}

/* One relocation section being applied. */
struct reloc_ctx {
	struct abtf_dwarf_rel *rel;	/* where the addresses go */
	int sec;			/* ABTF_DW_INFO, ABTF_DW_ADDR or -1 */
	GElf_Half machine;
	bool big, is_rela;
	unsigned int addr_size;
	Elf_Data *target;
	struct abtf_elf_syms syms;
	const char *rname;		/* the relocation section's name */
	struct kind_cache {		/* kind_of()'s answers */
		uint32_t type;
		struct abtf_rel_kind kind;
		bool valid;
	} cache[4];
	char *why;
	size_t why_size;
};

static int fail(struct reloc_ctx *rc, size_t i, int err, const char *what,
		uint32_t type)
{
	snprintf(rc->why, rc->why_size, "%s: relocation %zu: %s %u",
		 rc->rname ?: "?", i, what, type);
	return err;
}

static int keep_addr(struct abtf_dwarf_rel *rel, int sec, uint64_t off,
		     uint32_t shndx)
{
	if (abtf_grow(rel->addrs, rel->cap, rel->nr + 1))
		return -ENOMEM;
	rel->addrs[rel->nr].sec = sec;
	rel->addrs[rel->nr].off = off;
	rel->addrs[rel->nr].shndx = shndx;
	rel->nr++;
	return 0;
}

/* Relocation @i of @d, of any class, REL or RELA. */
static int read_reloc(const struct reloc_ctx *rc, Elf_Data *d, size_t i,
		      GElf_Rela *r)
{
	GElf_Rel rel;

	if (rc->is_rela)
		return gelf_getrela(d, i, r) ? 0 : -EINVAL;
	if (!gelf_getrel(d, i, &rel))
		return -EINVAL;
	r->r_offset = rel.r_offset;
	r->r_info = rel.r_info;
	r->r_addend = 0;
	return 0;
}

/*
 * What relocation type @type does, from a small cache of the table's
 * answers (a debug section mixes two or three types: 4- and 8-byte).
 */
static int kind_of(struct reloc_ctx *rc, uint32_t type,
		   struct abtf_rel_kind *k)
{
	struct kind_cache *c = &rc->cache[type % ARRAY_SIZE(rc->cache)];

	if (c->valid && c->type == type) {
		*k = c->kind;
		return 0;
	}
	if (abtf__reloc_kind(rc->machine, type, k))
		return -ENOENT;
	c->type = type;
	c->kind = *k;
	c->valid = true;
	return 0;
}

/* Relocation @i could not be applied (abtf__reloc_apply()'s @err). */
static int overflow_or_past(struct reloc_ctx *rc, size_t i, int err,
			    uint64_t sa, const struct abtf_rel_kind *k,
			    uint32_t type)
{
	if (err != -EOVERFLOW)
		return fail(rc, i, -EINVAL, "place past its section, type",
			    type);
	snprintf(rc->why, rc->why_size, "%s: relocation %zu: value 0x%llx "
		 "does not fit its %u-byte place, type %u", rc->rname ?: "?",
		 i, (unsigned long long)sa, k->width, type);
	return -EINVAL;
}

static int apply_one(struct reloc_ctx *rc, const GElf_Rela *r, size_t i)
{
	uint32_t type = GELF_R_TYPE(r->r_info);
	struct abtf_rel_kind k;
	unsigned char *place;
	GElf_Sym sym;
	int shndx, err;

	if (kind_of(rc, type, &k)) {
		snprintf(rc->why, rc->why_size, "%s: relocation %zu: type %u, "
			 "unknown to %s", rc->rname ?: "?", i, type,
			 abtf__machine_name(rc->machine));
		return -EINVAL;
	}
	if (k.op == ABTF_REL_NONE)
		return 0;
	if (abtf__elf_sym_fast(&rc->syms, GELF_R_SYM(r->r_info), &sym))
		shndx = sym.st_shndx;
	else if (abtf__elf_sym(&rc->syms, GELF_R_SYM(r->r_info), &sym, &shndx,
			       NULL))
		return fail(rc, i, -EINVAL, "bad symbol of type", type);
	if (r->r_offset >= rc->target->d_size)
		return fail(rc, i, -EINVAL, "offset past its section, type",
			    type);
	place = (unsigned char *)rc->target->d_buf + r->r_offset;
	if (k.op == ABTF_REL_ABS && rc->is_rela &&
	    rc->target->d_size - r->r_offset >= k.width &&
	    (k.width == 8 || abtf__reloc_fits(&k, sym.st_value + r->r_addend)))
		abtf__put_n(place, k.width, rc->big,	/* most of them */
			    sym.st_value + r->r_addend);
	else if ((err = abtf__reloc_apply(&k, place,
					  rc->target->d_size - r->r_offset,
					  rc->big, !rc->is_rela,
					  sym.st_value + r->r_addend)))
		return overflow_or_past(rc, i, err, sym.st_value + r->r_addend,
					&k, type);
	shndx = abtf__sym_section(&sym, shndx);
	if (k.op != ABTF_REL_ABS || k.width != rc->addr_size || rc->sec < 0 ||
	    !shndx)
		return 0;	/* not an address in a section (SHN_ABS, ...) */
	return keep_addr(rc->rel, rc->sec, r->r_offset, shndx);
}

/*
 * A 64-bit RELA table, every kernel object's but 32-bit ARM's and i386's:
 * libelf has converted it to the host's order, so it is read in place
 * (GElf_Rela is Elf64_Rela).
 */
static int apply_rela64(struct reloc_ctx *rc, const GElf_Rela *r, size_t n)
{
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		err = apply_one(rc, &r[i], i);
		if (err)
			return err;
	}
	return 0;
}

static int apply_section(Elf *elf, Elf_Scn *rscn, const GElf_Shdr *rshdr,
			 struct reloc_ctx *rc)
{
	Elf_Data *rel;
	GElf_Rela r;
	size_t i, n;
	int err;

	rc->target = elf_getdata(elf_getscn(elf, rshdr->sh_info), NULL);
	rel = elf_getdata(rscn, NULL);
	if (!rc->target || !rc->target->d_buf || !rel || !rshdr->sh_entsize ||
	    abtf__elf_syms_at(elf, rshdr->sh_link, &rc->syms)) {
		snprintf(rc->why, rc->why_size, "%s: cannot read it, its "
			 "section or its symbols", rc->rname ?: "?");
		return -EINVAL;
	}
	if (rc->sec >= 0)
		rc->rel->data[rc->sec] = rc->target;
	n = rshdr->sh_size / rshdr->sh_entsize;
	if (rc->is_rela && rel->d_type == ELF_T_RELA && rc->addr_size == 8 &&
	    n * sizeof(r) <= rel->d_size)
		return apply_rela64(rc, rel->d_buf, n);
	for (i = 0; i < n; i++) {
		err = read_reloc(rc, rel, i, &r);
		if (err)
			return fail(rc, i, err, "does not read, entry size",
				    rshdr->sh_entsize);
		err = apply_one(rc, &r, i);
		if (err)
			return err;
	}
	return 0;
}

/* The relocations of every section we read, with @rc's common fields. */
static int apply_relocations(Elf *elf, const GElf_Ehdr *ehdr,
			     struct reloc_ctx *base)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn))) {
		struct reloc_ctx rc = *base;
		const char *suffix;
		int err;

		if (!gelf_getshdr(scn, &shdr))
			return -EINVAL;
		if (shdr.sh_type != SHT_RELA && shdr.sh_type != SHT_REL)
			continue;
		suffix = dw_debug_suffix(abtf__elf_scn_name(elf, shdr.sh_info));
		if (!wanted(suffix))
			continue;
		rc.rname = abtf__elf_scn_name(elf, elf_ndxscn(scn));
		if (!abtf__machine_name(ehdr->e_machine)) {
			snprintf(rc.why, rc.why_size, "%s: relocations of "
				 "machine %u, which cc-btf does not know",
				 rc.rname ?: "?", ehdr->e_machine);
			return -EOPNOTSUPP;
		}
		rc.is_rela = shdr.sh_type == SHT_RELA;
		rc.sec = !strcmp(suffix, "_info") ? ABTF_DW_INFO :
			 !strcmp(suffix, "_addr") ? ABTF_DW_ADDR : -1;
		err = apply_section(elf, scn, &shdr, &rc);
		if (err)
			return err;
	}
	return 0;
}

/* Every compressed debug section inflated, in place in @elf. */
static int decompress(Elf *elf, char *why, size_t why_size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *name = abtf__elf_scn_name(elf, elf_ndxscn(scn));
		int res = 0;

		if (!name || !gelf_getshdr(scn, &shdr))
			continue;
		if (shdr.sh_flags & SHF_COMPRESSED)
			res = elf_compress(scn, 0, 0);
		else if (!strncmp(name, ".zdebug_", 8))
			res = elf_compress_gnu(scn, 0, 0);
		if (res < 0) {
			snprintf(why, why_size, "%s: cannot decompress: %s",
				 name, elf_errmsg(-1));
			return -EINVAL;
		}
	}
	return 0;
}

static int addr_cmp(const void *a, const void *b)
{
	const struct abtf_dwarf_addr *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static bool addrs_sorted(const struct abtf_dwarf_rel *rel)
{
	size_t i;

	for (i = 1; i < rel->nr; i++)
		if (addr_cmp(&rel->addrs[i - 1], &rel->addrs[i]) > 0)
			return false;
	return true;
}

/* Whether @p is inside @d: the offset in it into *@off. */
static bool inside(const Elf_Data *d, const unsigned char *p, uint64_t *off)
{
	const unsigned char *b = d ? d->d_buf : NULL;

	if (!b || p < b || p >= b + d->d_size)
		return false;
	*off = p - b;
	return true;
}

/* The allocated section of a linked file holding address @addr. */
static int linked_section(Elf *elf, uint64_t addr, uint32_t *shndx)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) &&
		    (sh.sh_type == SHT_PROGBITS || sh.sh_type == SHT_NOBITS) &&
		    addr >= sh.sh_addr && addr - sh.sh_addr < sh.sh_size) {
			*shndx = elf_ndxscn(scn);
			return 0;
		}
	return -ENOENT;
}

int abtf__dwarf_addr_section(const struct abtf_dwarf_rel *rel,
			     const unsigned char *p, uint64_t addr,
			     uint32_t *shndx)
{
	struct abtf_dwarf_addr key, *a;

	if (rel->linked)
		return linked_section(rel->linked, addr, shndx);
	for (key.sec = 0; key.sec < ABTF_DW_NR; key.sec++)
		if (inside(rel->data[key.sec], p, &key.off))
			break;
	if (key.sec == ABTF_DW_NR || !rel->nr)	/* no relocated address */
		return -ENOENT;
	a = bsearch(&key, rel->addrs, rel->nr, sizeof(key), addr_cmp);
	if (!a)
		return -ENOENT;
	*shndx = a->shndx;
	return 0;
}

void abtf__dwarf_rel_free(struct abtf_dwarf_rel *rel)
{
	free(rel->addrs);
	memset(rel, 0, sizeof(*rel));
}

static int open_elf(Elf *elf, struct abtf_dwarf_rel *rel, char *why,
		    size_t why_size)
{
	struct reloc_ctx rc = { .rel = rel, .why = why, .why_size = why_size };
	GElf_Ehdr ehdr;
	int err;

	if (!gelf_getehdr(elf, &ehdr)) {
		snprintf(why, why_size, "not ELF: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	err = decompress(elf, why, why_size);
	if (err)
		return err;
	if (ehdr.e_type != ET_REL) {
		rel->linked = elf;
		return 0;
	}
	rc.machine = ehdr.e_machine;
	rc.big = ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	rc.addr_size = ehdr.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	err = apply_relocations(elf, &ehdr, &rc);
	if (err)
		return err;
	if (!addrs_sorted(rel))	/* GCC's relocations come in order */
		qsort(rel->addrs, rel->nr, sizeof(*rel->addrs), addr_cmp);
	return 0;
}

Elf *abtf__dwarf_open(int fd, struct abtf_dwarf_rel *rel, char *why,
		      size_t why_size)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	int err;

	memset(rel, 0, sizeof(*rel));
	if (!elf) {
		snprintf(why, why_size, "cannot read ELF: %s", elf_errmsg(-1));
		errno = EINVAL;
		return NULL;
	}
	err = open_elf(elf, rel, why, why_size);
	if (err) {
		abtf__dwarf_rel_free(rel);
		elf_end(elf);
		errno = -err;
		return NULL;
	}
	return elf;
}
