// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reading ELF inputs: the checks every reader of an object or an image
 * makes once, before it trusts a section header (the counterpart of
 * elf_write.c, used by the encoder and the linker).
 *
 * What abtf__elf_check() guarantees when it returns 0:
 *  - the section count and the section name table's index are known, with
 *    extended numbering (e_shnum 0 and the count in section 0's sh_size,
 *    e_shstrndx SHN_XINDEX and the index in section 0's sh_link), and the
 *    section header table lies inside the file;
 *  - every section header reads; every section with bytes in the file
 *    (all but SHT_NOBITS) lies inside it;
 *  - every sh_addralign is 0 or a power of two of at most ABTF_MAX_ALIGN:
 *    elf_write.c copies sections with their alignment, and libelf pads
 *    the output to it, so one bogus value would make a 3 KB object a file
 *    of gigabytes;
 *  - the sh_link of symbol, relocation, group and SHT_SYMTAB_SHNDX
 *    sections, and the sh_info of relocation sections, are section
 *    indices of the file; symbol and relocation tables have the entry
 *    size of their class, and an SHT_SYMTAB_SHNDX table has a word per
 *    symbol of its table;
 *  - every symbol of .symtab is in a section of the file (through
 *    SHT_SYMTAB_SHNDX for SHN_XINDEX) or a reserved one; every relocation
 *    names a symbol of its table (with @relocs_of, only those of the
 *    relocation sections that apply to the section of that name: a
 *    reader that reads no others need not page in a kernel image's
 *    hundreds of MB of .rela.debug_*).
 * Symbols' section indices then go through abtf__sym_shndx(), which reads
 * SHN_XINDEX through the SHT_SYMTAB_SHNDX table.
 *
 * Below the checks, the one way every file of the library finds a section
 * (abtf__elf_find(), abtf__elf_scn_name(), abtf__elf_section_data()), a
 * symbol table's extended indices (abtf__elf_xndx()) and a symbol with its
 * section and name (abtf__elf_syms_open(), abtf__elf_sym()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/internal.h"
#include "elf/elf_read.h"

struct rd {
	Elf *elf;
	const char *path;
	const struct abtf_printer *pr;
	size_t fsize, nr, shstrndx;
	const char *relocs_of;	/* NULL: every relocation section */
};

static int bad(const struct rd *r, size_t idx, const char *what,
	       unsigned long long v)
{
	pr_warn(r->pr, "%s: section %zu: %s (%llu)", r->path, idx, what, v);
	return -EINVAL;
}

static int check_table(const struct rd *r, const GElf_Ehdr *eh)
{
	if (eh->e_shnum && eh->e_shnum > r->nr) {
		pr_warn(r->pr, "%s: ELF header: %u sections, of which libelf "
			"reads %zu: truncated", r->path, eh->e_shnum, r->nr);
		return -EINVAL;
	}
	if (eh->e_shoff > r->fsize ||
	    (uint64_t)r->nr * eh->e_shentsize > r->fsize - eh->e_shoff) {
		pr_warn(r->pr, "%s: section header table at offset %llu is "
			"past the end of the file (%zu bytes): truncated",
			r->path, (unsigned long long)eh->e_shoff, r->fsize);
		return -EINVAL;
	}
	return 0;
}

static bool is_pow2(uint64_t v)
{
	return !(v & (v - 1));
}

/* sh_link, sh_info and sh_entsize, by type. */
/* The type of section @i, SHT_NULL if it cannot be read. */
static uint32_t type_of(const struct rd *r, size_t i)
{
	GElf_Shdr sh;

	if (!gelf_getshdr(elf_getscn(r->elf, i), &sh))
		return SHT_NULL;
	return sh.sh_type;
}

static int check_links(const struct rd *r, size_t i, const GElf_Shdr *sh)
{
	size_t sym_sz = gelf_fsize(r->elf, ELF_T_SYM, 1, EV_CURRENT);
	size_t rel_sz = gelf_fsize(r->elf, sh->sh_type == SHT_RELA ?
				   ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);

	switch (sh->sh_type) {
	case SHT_SYMTAB: case SHT_DYNSYM:
		if (sh->sh_entsize != sym_sz)
			return bad(r, i, "a symbol table of a bad entry size",
				   sh->sh_entsize);
		break;
	case SHT_REL: case SHT_RELA:
		if (sh->sh_entsize != rel_sz)
			return bad(r, i, "a relocation table of a bad entry size",
				   sh->sh_entsize);
		if (sh->sh_info >= r->nr)
			return bad(r, i, "relocations for a section past the last",
				   sh->sh_info);
		break;
	case SHT_SYMTAB_SHNDX: case SHT_GROUP:
		break;
	default:
		return 0;
	}
	if (sh->sh_link >= r->nr ||
	    (!sh->sh_link && (sh->sh_type == SHT_SYMTAB_SHNDX ||
			      sh->sh_type == SHT_GROUP)))
		return bad(r, i, "sh_link is not a section index", sh->sh_link);
	/* symbols are found by name: their names must read as strings */
	if ((sh->sh_type == SHT_SYMTAB || sh->sh_type == SHT_DYNSYM) &&
	    type_of(r, sh->sh_link) != SHT_STRTAB)
		return bad(r, i, "a symbol table whose sh_link is no string "
			   "table", sh->sh_link);
	return 0;
}

/* An SHT_SYMTAB_SHNDX table holds a word per symbol of its table. */
static int check_shndx(const struct rd *r, size_t i, const GElf_Shdr *sh)
{
	Elf_Scn *scn = elf_getscn(r->elf, sh->sh_link);
	GElf_Shdr sym;

	if (!scn || !gelf_getshdr(scn, &sym) || sym.sh_type != SHT_SYMTAB ||
	    !sym.sh_entsize)
		return bad(r, i, "an SHT_SYMTAB_SHNDX table not linked to "
			   "the symbol table", sh->sh_link);
	if (sh->sh_size / 4 < sym.sh_size / sym.sh_entsize)
		return bad(r, i, "an SHT_SYMTAB_SHNDX table shorter than its "
			   "symbol table, in words", sh->sh_size / 4);
	return 0;
}

/* Every symbol of table @i in a section of the file (or a reserved one). */
static int check_symbols(const struct rd *r, size_t i, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(elf_getscn(r->elf, i), NULL), *x = NULL;
	size_t k, n = sh->sh_size / sh->sh_entsize;
	bool have_x = false;

	/* st_shndx, read in place (libelf converted the table to memory
	 * order): at byte 14 of an Elf32_Sym, 6 of an Elf64_Sym */
	size_t at = gelf_getclass(r->elf) == ELFCLASS64 ? 6 : 14;

	if ((!d && n) || (d && d->d_size < n * sh->sh_entsize))
		return bad(r, i, "the symbol table cannot be read", n);
	for (k = 1; k < n; k++) {
		GElf_Sym sym;
		int shndx;

		memcpy(&sym.st_shndx, (const char *)d->d_buf +
		       k * sh->sh_entsize + at, sizeof(sym.st_shndx));
		if (sym.st_shndx < SHN_LORESERVE && sym.st_shndx < r->nr)
			continue;	/* the common case */
		if (sym.st_shndx == SHN_XINDEX && !have_x) {
			x = abtf__elf_xndx(r->elf, i);
			have_x = true;
		}
		shndx = abtf__sym_shndx(&sym, x, k);
		if (shndx < 0 || (sym.st_shndx == SHN_XINDEX &&
				  (size_t)shndx >= r->nr) ||
		    (sym.st_shndx < SHN_LORESERVE && sym.st_shndx >= r->nr)) {
			pr_warn(r->pr, "%s: section %zu: symbol %zu: its section "
				"index is past the last section (%zu)", r->path, i,
				k, r->nr - 1);
			return -EINVAL;
		}
	}
	return 0;
}

/* Every relocation of table @i names a symbol of its table. */
static int check_relocs(const struct rd *r, size_t i, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(elf_getscn(r->elf, i), NULL);
	size_t k, n = sh->sh_size / sh->sh_entsize, nr_syms;
	GElf_Shdr symtab;

	if (!sh->sh_link)
		return 0;	/* dynamic relocations of an image */
	if (!gelf_getshdr(elf_getscn(r->elf, sh->sh_link), &symtab) ||
	    (symtab.sh_type != SHT_SYMTAB && symtab.sh_type != SHT_DYNSYM) ||
	    !symtab.sh_entsize)
		return bad(r, i, "relocations linked to no symbol table",
			   sh->sh_link);
	nr_syms = symtab.sh_size / symtab.sh_entsize;
	if (!d && n)
		return bad(r, i, "the relocations cannot be read", n);
	if (d && d->d_size < n * sh->sh_entsize)
		return bad(r, i, "the relocations cannot be read", n);
	for (k = 0; k < n; k++) {
		const char *at = (const char *)d->d_buf + k * sh->sh_entsize;
		uint64_t info, sym;

		/* in memory order (libelf converted them); r_info follows
		 * r_offset in REL and RELA alike */
		if (gelf_getclass(r->elf) == ELFCLASS64) {
			memcpy(&info, at + 8, sizeof(info));
			sym = ELF64_R_SYM(info);
		} else {
			uint32_t info32;

			memcpy(&info32, at + 4, sizeof(info32));
			sym = ELF32_R_SYM(info32);
		}
		if (sym >= nr_syms) {
			pr_warn(r->pr, "%s: section %zu: relocation %zu: symbol "
				"%llu is past the last of its table (%zu)",
				r->path, i, k, (unsigned long long)sym, nr_syms);
			return -EINVAL;
		}
	}
	return 0;
}

/* Whether relocation section @sh is one the reader wants checked. */
static bool applies_to(const struct rd *r, const GElf_Shdr *sh)
{
	GElf_Shdr target;
	const char *name;

	if (!r->relocs_of)
		return true;
	if (!gelf_getshdr(elf_getscn(r->elf, sh->sh_info), &target))
		return true;	/* check_links() said why */
	name = elf_strptr(r->elf, r->shstrndx, target.sh_name);
	return name && !strcmp(name, r->relocs_of);
}

static int check_section(const struct rd *r, size_t i)
{
	Elf_Scn *scn = elf_getscn(r->elf, i);
	const char *name;
	GElf_Shdr sh;
	int err;

	if (!scn || !gelf_getshdr(scn, &sh)) {
		pr_warn(r->pr, "%s: section header %zu: truncated or corrupt: "
			"%s", r->path, i, elf_errmsg(-1));
		return -EINVAL;
	}
	if (sh.sh_type != SHT_NOBITS &&
	    (sh.sh_offset > r->fsize || sh.sh_size > r->fsize - sh.sh_offset)) {
		pr_warn(r->pr, "%s: section %zu runs past the end of the "
			"file: bytes %llu..%llu of %zu: truncated", r->path, i,
			(unsigned long long)sh.sh_offset,
			(unsigned long long)(sh.sh_offset + sh.sh_size),
			r->fsize);
		return -EINVAL;
	}
	if (!is_pow2(sh.sh_addralign) || sh.sh_addralign > ABTF_MAX_ALIGN)
		return bad(r, i, "sh_addralign is not a power of two of at "
			   "most 2 MiB", sh.sh_addralign);
	/* sections are found by name: one without a name hides from that */
	name = elf_strptr(r->elf, r->shstrndx, sh.sh_name);
	if (!name)
		return bad(r, i, "sh_name is not a string of the section name "
			   "table", sh.sh_name);
	/* libdw refuses a file whose DWARF it cannot read as bytes */
	if ((!strncmp(name, ".debug_", 7) || !strncmp(name, ".zdebug_", 8)) &&
	    sh.sh_type != SHT_PROGBITS && sh.sh_type != SHT_NOBITS &&
	    sh.sh_type != SHT_MIPS_DWARF)
		return bad(r, i, "a DWARF section whose type is neither "
			   "SHT_PROGBITS nor SHT_NOBITS", sh.sh_type);
	err = check_links(r, i, &sh);
	if (err)
		return err;
	switch (sh.sh_type) {
	case SHT_SYMTAB_SHNDX:
		return check_shndx(r, i, &sh);
	case SHT_SYMTAB:
		return check_symbols(r, i, &sh);
	case SHT_REL: case SHT_RELA:
		return applies_to(r, &sh) ? check_relocs(r, i, &sh) : 0;
	default:
		return 0;
	}
}

int abtf__elf_check(Elf *elf, size_t fsize, const char *path,
		    const char *relocs_of, const struct abtf_printer *pr)
{
	struct rd r = { .elf = elf, .path = path, .pr = pr, .fsize = fsize,
			.relocs_of = relocs_of };
	GElf_Ehdr eh;
	size_t i, shstrndx;
	int err;

	if (!gelf_getehdr(elf, &eh)) {
		pr_warn(pr, "%s: bad ELF header: %s", path, elf_errmsg(-1));
		return -EINVAL;
	}
	if (elf_getshdrnum(elf, &r.nr) || elf_getshdrstrndx(elf, &shstrndx)) {
		pr_warn(pr, "%s: bad section header table: %s", path,
			elf_errmsg(-1));
		return -EINVAL;
	}
	err = check_table(&r, &eh);
	if (err)
		return err;
	r.shstrndx = shstrndx;
	if (r.nr && shstrndx >= r.nr) {
		pr_warn(pr, "%s: ELF header: the section name table %zu is "
			"past the last section (%zu)", path, shstrndx, r.nr - 1);
		return -EINVAL;
	}
	for (i = 1; i < r.nr; i++) {
		err = check_section(&r, i);
		if (err)
			return err;
	}
	return 0;
}

Elf_Data *abtf__elf_xndx(Elf *elf, size_t symtab)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB_SHNDX &&
		    sh.sh_link == symtab)
			return elf_getdata(scn, NULL);
	return NULL;
}

int abtf__sym_shndx(const GElf_Sym *s, Elf_Data *xndx, size_t idx)
{
	uint32_t x;

	if (s->st_shndx != SHN_XINDEX)
		return s->st_shndx;
	if (!xndx || (idx + 1) * sizeof(x) > xndx->d_size)
		return -EINVAL;
	memcpy(&x, (const char *)xndx->d_buf + idx * sizeof(x), sizeof(x));
	return x;
}

int abtf__sym_section(const GElf_Sym *s, int shndx)
{
	if (s->st_shndx != SHN_XINDEX && s->st_shndx >= SHN_LORESERVE)
		return SHN_UNDEF;
	return shndx;
}

const char *abtf__elf_scn_name(Elf *elf, size_t shndx)
{
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx) ||
	    !gelf_getshdr(elf_getscn(elf, shndx), &sh))
		return NULL;
	return elf_strptr(elf, shstrndx, sh.sh_name);
}

size_t abtf__elf_find(Elf *elf, uint32_t type, const char *name,
		      GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh) ||
		    (type != SHT_NULL && sh.sh_type != type))
			continue;
		n = name ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (!name || (n && !strcmp(n, name))) {
			if (shdr)
				*shdr = sh;
			return elf_ndxscn(scn);
		}
	}
	return 0;
}

size_t abtf__elf_relocs_of(Elf *elf, size_t target, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_info == target &&
		    (sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL)) {
			if (shdr)
				*shdr = sh;
			return elf_ndxscn(scn);
		}
	return 0;
}

int abtf__elf_syms_at(Elf *elf, size_t shndx, struct abtf_elf_syms *t)
{
	Elf_Scn *scn = elf_getscn(elf, shndx);
	GElf_Shdr sh;

	memset(t, 0, sizeof(*t));
	if (!scn || !gelf_getshdr(scn, &sh) ||
	    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
		return -EINVAL;
	t->elf = elf;
	t->shndx = shndx;
	t->strndx = sh.sh_link;
	t->data = elf_getdata(scn, NULL);
	if (!t->data || !sh.sh_entsize)
		return -EINVAL;
	t->nr = t->data->d_size / sh.sh_entsize;
	t->xndx = abtf__elf_xndx(elf, shndx);
	t->in_place = t->data->d_type == ELF_T_SYM &&
		      gelf_getclass(elf) == ELFCLASS64 &&
		      sh.sh_entsize == sizeof(GElf_Sym);
	return 0;
}

int abtf__elf_syms_open(Elf *elf, uint32_t type, struct abtf_elf_syms *t)
{
	size_t shndx = abtf__elf_find(elf, type, NULL, NULL);

	memset(t, 0, sizeof(*t));
	return shndx ? abtf__elf_syms_at(elf, shndx, t) : -ENOENT;
}

int abtf__elf_sym(const struct abtf_elf_syms *t, size_t i, GElf_Sym *s,
		  int *shndx, const char **name)
{
	if (i >= t->nr)
		return -EINVAL;
	if (t->in_place)
		*s = ((const GElf_Sym *)t->data->d_buf)[i];	/* host order */
	else if (!gelf_getsym(t->data, i, s))
		return -EINVAL;
	if (shndx) {
		*shndx = s->st_shndx == SHN_XINDEX ?
			 abtf__sym_shndx(s, t->xndx, i) : s->st_shndx;
		if (*shndx < 0)
			return -EINVAL;
	}
	if (name)
		*name = elf_strptr(t->elf, t->strndx, s->st_name);
	return 0;
}

Elf_Data *abtf__elf_section_data(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return elf_getdata(scn, NULL);
	}
	return NULL;
}
