// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The encoder's fast way into a relocatable object's DWARF.
 *
 * An object's .debug_info is unusable before its relocations are applied:
 * x86-64 and arm64 use RELA, so every string offset and address in it reads
 * 0 until then. libdwfl applies the relocations of *every* debug section
 * (.debug_line, .debug_loclists, .debug_rnglists, .debug_frame, ...), which
 * in a kernel object is a fifth of the encoder's work, and the encoder reads
 * none of them. So for the machines whose DWARF relocations we know, we
 * apply those of the sections the type walk reads (.debug_info,
 * .debug_str_offsets, .debug_types, .debug_addr) in a private copy-on-write mapping of
 * the object, which dwarf_read.c reads.
 *
 * The value written is the symbol's value plus the addend: for the offsets
 * into other debug sections the symbol is a section symbol of value 0, and
 * an address comes out as the offset in its section. Which section is lost
 * in the bytes, so the pointer-sized relocations of .debug_info and
 * .debug_addr are kept (by offset) to tell the section of a variable's
 * DW_OP_addr operand or of the .debug_addr entry its DW_OP_addrx names
 * (clang's DWARF 5: every entry is 0 plus a relocation).
 * Anything unusual takes libdwfl's path: another machine or class, the
 * other byte order, compressed debug sections, a relocation type we do not
 * know. -EOPNOTSUPP says "use libdwfl"; nothing is printed for it.
 */
#include <dwarf.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "encode/encoder.h"

static const char *const relocated[] = {
	".debug_info", ".debug_str_offsets", ".debug_types", ".debug_addr",
};

/* The width of an absolute data relocation, or 0 if we do not know it. */
static int reloc_width(GElf_Half machine, uint32_t type)
{
	switch (machine) {
	case EM_X86_64:
		switch (type) {
		case R_X86_64_64:	return 8;
		case R_X86_64_32:
		case R_X86_64_32S:	return 4;
		}
		return 0;
	case EM_AARCH64:
		switch (type) {
		case R_AARCH64_ABS64:	return 8;
		case R_AARCH64_ABS32:	return 4;
		}
		return 0;
	default:
		return 0;
	}
}

static bool wanted(const char *name)
{
	size_t i;

	for (i = 0; name && i < ARRAY_SIZE(relocated); i++)
		if (!strcmp(name, relocated[i]))
			return true;
	return false;
}

struct reloc_ctx {
	struct abtf_dwarf_rel *rel;	/* where the addresses go */
	int sec;			/* ABTF_DW_INFO, ABTF_DW_ADDR or -1 */
	const uint32_t *xndx;		/* SHT_SYMTAB_SHNDX words, or NULL */
	size_t nr_xndx;
};

/*
 * The section of symbol @i: past SHN_LORESERVE sections (extended
 * numbering), st_shndx is SHN_XINDEX and the index is in SHT_SYMTAB_SHNDX.
 * 0 for undefined and reserved indices.
 */
static uint32_t sym_section(const struct reloc_ctx *rc, const Elf64_Sym *sym,
			    size_t i)
{
	if (sym->st_shndx == SHN_XINDEX)
		return i < rc->nr_xndx ? rc->xndx[i] : 0;
	return sym->st_shndx < SHN_LORESERVE ? sym->st_shndx : 0;
}

/* The SHT_SYMTAB_SHNDX data of symbol table @symtab, or NULL. */
static Elf_Data *xndx_of(Elf *elf, size_t symtab)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB_SHNDX &&
		    sh.sh_link == symtab)
			return elf_getdata(scn, NULL);
	return NULL;
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

/*
 * The fast way is for 64-bit objects on a little-endian host only, so the
 * relocations and symbols are read in place as Elf64_Rela and Elf64_Sym
 * (libelf has converted them to the host's order, which is theirs).
 */
static int apply_one(Elf_Data *target, const Elf64_Sym *syms, size_t nr_syms,
		     GElf_Half machine, const Elf64_Rela *r,
		     struct reloc_ctx *rc)
{
	int width = reloc_width(machine, ELF64_R_TYPE(r->r_info));
	const Elf64_Sym *sym;
	uint64_t v64;
	uint32_t v32, shndx;

	if (!width || ELF64_R_SYM(r->r_info) >= nr_syms ||
	    r->r_offset > target->d_size ||
	    target->d_size - r->r_offset < (size_t)width)
		return -EOPNOTSUPP;
	sym = &syms[ELF64_R_SYM(r->r_info)];
	v64 = sym->st_value + r->r_addend;
	if (width == 8) {
		memcpy((char *)target->d_buf + r->r_offset, &v64, 8);
		shndx = sym_section(rc, sym, ELF64_R_SYM(r->r_info));
		if (rc->sec >= 0 && shndx &&
		    keep_addr(rc->rel, rc->sec, r->r_offset, shndx))
			return -ENOMEM;
	} else {
		v32 = v64;
		memcpy((char *)target->d_buf + r->r_offset, &v32, 4);
	}
	return 0;
}

static int apply_section(Elf *elf, Elf_Scn *rscn, const GElf_Shdr *rshdr,
			 GElf_Half machine, struct reloc_ctx *rc)
{
	Elf_Scn *tscn = elf_getscn(elf, rshdr->sh_info);
	Elf_Scn *sscn = elf_getscn(elf, rshdr->sh_link);
	Elf_Data *rel, *target, *syms, *xndx;
	const Elf64_Rela *r;
	GElf_Shdr tshdr;
	size_t i, n;

	if (!tscn || !sscn || !gelf_getshdr(tscn, &tshdr) ||
	    (tshdr.sh_flags & SHF_COMPRESSED) || tshdr.sh_type == SHT_NOBITS)
		return -EOPNOTSUPP;	/* NOBITS: no bytes to relocate */
	rel = elf_getdata(rscn, NULL);
	target = elf_getdata(tscn, NULL);
	syms = elf_getdata(sscn, NULL);
	if (!rel || !target || !target->d_buf || !syms ||
	    target->d_type != ELF_T_BYTE ||
	    rel->d_type != ELF_T_RELA || syms->d_type != ELF_T_SYM)
		return -EOPNOTSUPP;
	if (rc->sec >= 0)
		rc->rel->data[rc->sec] = target;
	xndx = xndx_of(elf, rshdr->sh_link);
	if (xndx) {
		rc->xndx = xndx->d_buf;
		rc->nr_xndx = xndx->d_size / sizeof(uint32_t);
	}
	r = rel->d_buf;
	n = rel->d_size / sizeof(*r);
	for (i = 0; i < n; i++)
		if (apply_one(target, syms->d_buf,
			      syms->d_size / sizeof(Elf64_Sym), machine, &r[i],
			      rc))
			return -EOPNOTSUPP;
	return 0;
}

/* Every section we read relocated, every one we do not left alone. */
static int apply_relocations(Elf *elf, const GElf_Ehdr *ehdr,
			     struct abtf_dwarf_rel *rel)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -EOPNOTSUPP;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr tshdr;
		Elf_Scn *tscn;

		if (!gelf_getshdr(scn, &shdr))
			return -EOPNOTSUPP;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (name && !strncmp(name, ".debug", 6) &&
		    (shdr.sh_flags & SHF_COMPRESSED))
			return -EOPNOTSUPP;
		if (shdr.sh_type == SHT_REL && shdr.sh_info)
			return -EOPNOTSUPP;
		if (shdr.sh_type != SHT_RELA)
			continue;
		tscn = elf_getscn(elf, shdr.sh_info);
		if (!tscn || !gelf_getshdr(tscn, &tshdr))
			return -EOPNOTSUPP;
		struct reloc_ctx rc = { .rel = rel, .sec = -1 };
		const char *tname = elf_strptr(elf, shstrndx, tshdr.sh_name);

		if (!wanted(tname))
			continue;
		if (!strcmp(tname, ".debug_info"))
			rc.sec = ABTF_DW_INFO;
		else if (!strcmp(tname, ".debug_addr"))
			rc.sec = ABTF_DW_ADDR;
		if (apply_section(elf, scn, &shdr, ehdr->e_machine, &rc))
			return -EOPNOTSUPP;
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

/*
 * The section a relocated address at @p (inside .debug_info or
 * .debug_addr) points into.
 */
int abtf__dwarf_addr_section(const struct abtf_dwarf_rel *rel,
			     const unsigned char *p, uint32_t *shndx)
{
	struct abtf_dwarf_addr key, *a;

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

Elf *abtf__dwarf_open_rel(int fd, struct abtf_dwarf_rel *rel)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	GElf_Ehdr ehdr;

	memset(rel, 0, sizeof(*rel));
	if (!elf)
		goto out_unsupported;
	if (__BYTE_ORDER != __LITTLE_ENDIAN ||
	    !gelf_getehdr(elf, &ehdr) || ehdr.e_type != ET_REL ||
	    ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_ident[EI_DATA] != ELFDATA2LSB ||
	    !reloc_width(ehdr.e_machine, ehdr.e_machine == EM_X86_64 ?
			 R_X86_64_64 : R_AARCH64_ABS64) ||
	    apply_relocations(elf, &ehdr, rel))
		goto out_unsupported;
	if (!addrs_sorted(rel))	/* GCC's relocations come in order */
		qsort(rel->addrs, rel->nr, sizeof(*rel->addrs), addr_cmp);
	return elf;
out_unsupported:
	abtf__dwarf_rel_free(rel);
	if (elf)
		elf_end(elf);
	errno = EOPNOTSUPP;
	return NULL;
}
