// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The library's one ELF writer. Each entry point writes a whole file into
 * a temporary file next to the destination, then renames it over it:
 *
 *  - abtf__elf_set_sections(): a copy of a relocatable object with some
 *    sections set, replaced or appended, with relocations against them;
 *    libelf lays the copy out anew. The encoder's output, and the
 *    linker's in a module or an `ld -r` output;
 *  - abtf__elf_overwrite_sections(): a copy of a linked file (an image)
 *    with new contents written over some of its sections, at their
 *    offsets, each section shrunk to them: program headers map the file,
 *    so its layout must not move (ELF_F_LAYOUT). The linker's output in
 *    place in an image;
 *  - abtf__elf_new_object(): a new relocatable object of only the given
 *    sections, for the class, byte order and machine of another file's
 *    header. The linker's --object (kbuild's .tmp_vmlinux.btf.o).
 *
 * Invariants of abtf__elf_set_sections(), on which the tools that read
 * the object after us (objtool, recordmcount, ld, readelf) rely:
 *  - every section keeps its index, so symbols' st_shndx, relocation
 *    sections' sh_info, group members and SHT_SYMTAB_SHNDX stay valid; new
 *    sections are only ever appended;
 *  - every section we do not set keeps its header (but sh_offset, which
 *    libelf lays out anew, and an sh_addralign of 0, which it writes as the
 *    equivalent 1) and its bytes: they are copied as raw bytes (ELF_T_BYTE),
 *    never converted, so even sections libelf does not know survive any
 *    byte order;
 *  - the section name string table is the original one with the names of
 *    appended sections added at its end, so every existing sh_name (and,
 *    where it doubles as the symbol string table, every st_name) holds.
 *
 * Failure leaves the destination as it was: nothing is renamed before
 * elf_update() has written the whole file and close() succeeded. Every
 * file is written with ELF_C_WRITE, not ELF_C_WRITE_MMAP: a full disk
 * then shows as an error from elf_update(), with errno's reason
 * (update_file()), not as a SIGBUS.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_reloc.h"
#include "util/internal.h"
#include "elf/elf_write.h"

/* ---- every writer ---- */

/*
 * elf_update() of @elf into its file: 0, or -errno where the write failed
 * (No space left on device, which elf_errmsg() leaves out), else -EIO.
 */
static int update_file(Elf *elf)
{
	errno = 0;
	if (elf_update(elf, ELF_C_WRITE) >= 0)
		return 0;
	return errno ? -errno : -EIO;
}

/*
 * The messages of abtf__elf_overwrite_sections() and
 * abtf__elf_new_object(), which name the destination.
 */
static int cannot_write(const struct abtf_printer *pr, const char *dst_path,
			int err)
{
	pr_warn(pr, "%s: cannot write: %s", dst_path, ABTF_STRERROR(-err));
	return err;
}

/* update_file(), its failure said with libelf's reason too. */
static int update_dst(Elf *elf, const char *dst_path,
		      const struct abtf_printer *pr)
{
	int err = update_file(elf);

	if (err)
		pr_warn(pr, "%s: cannot write: %s (%s)", dst_path,
			ABTF_STRERROR(-err), elf_errmsg(-1));
	return err;
}

/* The one data block of output section @scn, or NULL. */
static Elf_Data *add_data(Elf_Scn *scn, void *buf, size_t size,
			  Elf_Type type, size_t align)
{
	Elf_Data *data = elf_newdata(scn);

	if (!data)
		return NULL;
	data->d_buf = buf;
	data->d_size = size;
	data->d_type = type;
	data->d_align = align ? align : 1;
	data->d_off = 0;
	data->d_version = EV_CURRENT;
	return data;
}

/* ---- abtf__elf_set_sections(): an object laid out anew ---- */

/* A section of the output that we set rather than copy. */
struct set_sec {
	size_t idx;		/* index in the output */
	bool append;		/* a new section, not a replaced one */
	const char *name;
	size_t name_off;	/* in the new section name table */
	GElf_Shdr shdr;		/* all but sh_name, sh_offset and sh_size */
	void *buf;		/* contents, NULL for SHT_NOBITS or empty */
	size_t size;
	Elf_Type type;		/* ELF_T_BYTE, ELF_T_REL or ELF_T_RELA */
	const struct abtf_section *relocs_of;	/* for a relocation section */
	char *name_mem;		/* owned: name, when we built it */
	void *buf_mem;		/* owned: buf, when we built it */
};

/* The state of one copy. */
struct elf_copy {
	Elf *src;
	const char *src_path;
	const char *dst_path;
	const struct abtf_printer *pr;
	GElf_Ehdr ehdr;
	size_t shnum;		/* sections of the input */
	size_t shstrndx;
	size_t symtab;		/* index of .symtab, 0 if none */
	size_t nr_syms;
	size_t nr_out;		/* sections of the output */

	struct set_sec *secs;
	size_t nr_secs;

	char *shstr;		/* the new section name table */
	size_t shstr_size;

	Elf *dst;
	int fd;
	char *tmp;
};

/*
 * Width in bytes of the place of a relocation we write a REL addend for:
 * an absolute one (elf_reloc.c's table), 0 for any other.
 */
static size_t rel_width(GElf_Half e_machine, uint32_t type)
{
	struct abtf_rel_kind k;

	if (abtf__reloc_kind(e_machine, type, &k) || k.op != ABTF_REL_ABS)
		return 0;
	return k.width;
}

static int copy_elf_error(struct elf_copy *c, const char *what)
{
	pr_warn(c->pr, "%s: %s (%s)", c->src_path, what, elf_errmsg(-1));
	return -EINVAL;
}

static int copy_nomem(struct elf_copy *c)
{
	pr_warn(c->pr, "%s: out of memory", c->src_path);
	return -ENOMEM;
}

/* -- the input -- */

static int find_symtab(struct elf_copy *c)
{
	GElf_Shdr shdr;
	size_t i;

	for (i = 1; i < c->shnum; i++) {
		Elf_Scn *scn = elf_getscn(c->src, i);

		if (!scn || !gelf_getshdr(scn, &shdr))
			return copy_elf_error(c, "cannot read section headers");
		if (shdr.sh_type != SHT_SYMTAB)
			continue;
		c->symtab = i;
		c->nr_syms = shdr.sh_size /
			     gelf_fsize(c->src, ELF_T_SYM, 1, EV_CURRENT);
		return 0;
	}
	return 0;
}

static int check_input(struct elf_copy *c)
{
	if (elf_kind(c->src) != ELF_K_ELF) {
		pr_warn(c->pr, "%s: not an ELF object", c->src_path);
		return -EINVAL;
	}
	if (!gelf_getehdr(c->src, &c->ehdr))
		return copy_elf_error(c, "cannot read the ELF header");
	if (c->ehdr.e_type != ET_REL) {
		pr_warn(c->pr, "%s: not a relocatable object (ET_REL)",
			c->src_path);
		return -EINVAL;
	}
	if (c->ehdr.e_phnum) {
		pr_warn(c->pr, "%s: program headers in an ET_REL object: not supported",
			c->src_path);
		return -EINVAL;
	}
	if (elf_getshdrnum(c->src, &c->shnum))
		return copy_elf_error(c, "cannot read the number of sections");
	if (elf_getshdrstrndx(c->src, &c->shstrndx))
		return copy_elf_error(c, "cannot find the section name table");
	if (c->shstrndx == SHN_UNDEF || c->shstrndx >= c->shnum) {
		pr_warn(c->pr, "%s: no section name table", c->src_path);
		return -EINVAL;
	}
	return find_symtab(c);
}

/* The index of the first section named @name, or 0. */
static int find_section(struct elf_copy *c, const char *name, size_t *idx)
{
	GElf_Shdr shdr;
	const char *s;
	size_t i;

	*idx = 0;
	for (i = 1; i < c->shnum; i++) {
		Elf_Scn *scn = elf_getscn(c->src, i);

		if (!scn || !gelf_getshdr(scn, &shdr))
			return copy_elf_error(c, "cannot read section headers");
		s = elf_strptr(c->src, c->shstrndx, shdr.sh_name);
		if (!s)
			return copy_elf_error(c, "bad section name");
		if (!strcmp(s, name)) {
			*idx = i;
			return 0;
		}
	}
	return 0;
}

/* Sections whose replacement would break the object around them. */
static int check_replaceable(struct elf_copy *c, size_t idx, const char *name)
{
	GElf_Shdr shdr;

	if (!gelf_getshdr(elf_getscn(c->src, idx), &shdr))
		return copy_elf_error(c, "cannot read section headers");
	switch (shdr.sh_type) {
	case SHT_SYMTAB:
	case SHT_DYNSYM:
	case SHT_SYMTAB_SHNDX:
	case SHT_GROUP:
		break;
	default:
		if (idx != c->shstrndx)
			return 0;
	}
	pr_warn(c->pr, "%s: section %zu (%s): refusing to replace it",
		c->src_path, idx, name);
	return -EINVAL;
}

/* -- planning the sections we set -- */

static int place_section(struct elf_copy *c, struct set_sec *o)
{
	size_t i;
	int err;

	for (i = 0; i < c->nr_secs && &c->secs[i] != o; i++) {
		if (!strcmp(c->secs[i].name, o->name)) {
			pr_warn(c->pr, "%s: section %s: set twice",
				c->src_path, o->name);
			return -EINVAL;
		}
	}
	err = find_section(c, o->name, &o->idx);
	if (err)
		return err;
	if (o->idx)
		return check_replaceable(c, o->idx, o->name);
	o->idx = c->nr_out++;
	o->append = true;
	return 0;
}

static int check_data(struct elf_copy *c, const struct abtf_section *s)
{
	const char *why;

	if (!s->name || !*s->name)
		why = "no name";
	else if (s->align & (s->align - 1))
		why = "alignment not a power of two";
	else if (!s->data && s->size && s->type != SHT_NOBITS)
		why = "no contents";
	else
		return 0;
	pr_warn(c->pr, "%s: section %s: %s", c->src_path,
		s->name ? s->name : "(null)", why);
	return -EINVAL;
}

static int plan_data(struct elf_copy *c, const struct abtf_section *s,
		     struct set_sec *o)
{
	uint64_t align = s->align ? s->align : 1;
	int err;

	err = check_data(c, s);
	if (err)
		return err;
	o->name = s->name;
	o->shdr.sh_type = s->type;
	o->shdr.sh_flags = s->flags;
	o->shdr.sh_addralign = align;
	o->size = s->size;
	o->type = ELF_T_BYTE;
	if (s->type != SHT_NOBITS)
		o->buf = (void *)s->data;
	return place_section(c, o);
}

static int check_reloc(struct elf_copy *c, const struct abtf_section *s,
		       const struct abtf_reloc *r, size_t width)
{
	if (r->sym >= c->nr_syms) {
		pr_warn(c->pr, "%s: section %s: relocation against symbol %u of %zu",
			c->src_path, s->name, r->sym, c->nr_syms);
		return -EINVAL;
	}
	if (r->offset >= s->size || width > s->size - r->offset) {
		pr_warn(c->pr, "%s: section %s: relocation at %#llx past its %zu bytes",
			c->src_path, s->name, (unsigned long long)r->offset,
			s->size);
		return -EINVAL;
	}
	return 0;
}

static void put_addend(struct elf_copy *c, void *place, int64_t addend)
{
	uint32_t v = (uint32_t)addend;
	unsigned char *p = place;
	int i;

	for (i = 0; i < 4; i++) {
		int shift = c->ehdr.e_ident[EI_DATA] == ELFDATA2MSB ?
			    8 * (3 - i) : 8 * i;

		p[i] = v >> shift;
	}
}

/*
 * REL machines keep the addend in the place: the data of @o becomes our own
 * copy with every addend written in.
 */
static int write_addends(struct elf_copy *c, const struct abtf_section *s,
			 struct set_sec *o)
{
	size_t i, width;

	if (!s->nr_relocs)
		return 0;
	o->buf_mem = malloc(s->size);
	if (!o->buf_mem)
		return copy_nomem(c);
	memcpy(o->buf_mem, s->data, s->size);
	o->buf = o->buf_mem;
	for (i = 0; i < s->nr_relocs; i++) {
		const struct abtf_reloc *r = &s->relocs[i];

		width = rel_width(c->ehdr.e_machine, r->type);
		if (!width) {
			pr_warn(c->pr, "%s: section %s: relocation type %u: cannot write its addend in place",
				c->src_path, s->name, r->type);
			return -EOPNOTSUPP;
		}
		put_addend(c, (char *)o->buf + r->offset, r->addend);
	}
	return 0;
}

static int plan_relocs(struct elf_copy *c, const struct abtf_section *s,
		       struct set_sec *target, struct set_sec *o)
{
	Elf_Type type;
	size_t i, width = 1;
	bool is_rela;
	int err;

	if (abtf__reloc_abs(c->ehdr.e_machine, c->ehdr.e_ident[EI_CLASS],
			    &is_rela) < 0) {
		pr_warn(c->pr, "%s: relocations for machine %u: not supported",
			c->src_path, c->ehdr.e_machine);
		return -EOPNOTSUPP;
	}
	if (!c->symtab || s->type == SHT_NOBITS) {
		pr_warn(c->pr, "%s: section %s: relocations but no %s",
			c->src_path, s->name,
			c->symtab ? "contents" : "symbol table");
		return -EINVAL;
	}
	for (i = 0; i < s->nr_relocs; i++) {
		if (!is_rela)
			width = rel_width(c->ehdr.e_machine, s->relocs[i].type);
		err = check_reloc(c, s, &s->relocs[i], width ? width : 1);
		if (err)
			return err;
	}
	if (!is_rela) {
		err = write_addends(c, s, target);
		if (err)
			return err;
	}
	type = is_rela ? ELF_T_RELA : ELF_T_REL;
	if (asprintf(&o->name_mem, "%s%s", is_rela ? ".rela" : ".rel",
		     s->name) < 0) {
		o->name_mem = NULL;
		return copy_nomem(c);
	}
	o->name = o->name_mem;
	o->type = type;
	o->relocs_of = s;
	o->size = s->nr_relocs * gelf_fsize(c->src, type, 1, EV_CURRENT);
	o->shdr.sh_type = is_rela ? SHT_RELA : SHT_REL;
	o->shdr.sh_flags = SHF_INFO_LINK;
	o->shdr.sh_addralign = gelf_fsize(c->src, ELF_T_ADDR, 1, EV_CURRENT);
	o->shdr.sh_entsize = gelf_fsize(c->src, type, 1, EV_CURRENT);
	o->shdr.sh_link = c->symtab;
	o->shdr.sh_info = target->idx;
	if (o->size) {
		/* filled by fill_relocs() once it belongs to a section */
		o->buf = o->buf_mem = calloc(1, o->size);
		if (!o->buf)
			return copy_nomem(c);
	}
	return place_section(c, o);
}

/* The original name table with the names of appended sections added. */
static int build_shstrtab(struct elf_copy *c)
{
	Elf_Data *old;
	size_t i, size;

	old = elf_rawdata(elf_getscn(c->src, c->shstrndx), NULL);
	if (!old)
		return copy_elf_error(c, "cannot read the section name table");
	size = old->d_size;
	for (i = 0; i < c->nr_secs; i++)
		if (c->secs[i].append)
			size += strlen(c->secs[i].name) + 1;
	c->shstr = malloc(size ? size : 1);
	if (!c->shstr)
		return copy_nomem(c);
	if (old->d_size)
		memcpy(c->shstr, old->d_buf, old->d_size);
	c->shstr_size = old->d_size;
	for (i = 0; i < c->nr_secs; i++) {
		struct set_sec *o = &c->secs[i];

		if (!o->append)
			continue;
		o->name_off = c->shstr_size;
		strcpy(c->shstr + c->shstr_size, o->name);
		c->shstr_size += strlen(o->name) + 1;
	}
	return 0;
}

static int plan(struct elf_copy *c, const struct abtf_section *secs,
		size_t nr_secs)
{
	size_t i;
	int err;

	c->secs = calloc(2 * nr_secs + 1, sizeof(*c->secs));
	if (!c->secs)
		return copy_nomem(c);
	c->nr_out = c->shnum;
	for (i = 0; i < nr_secs; i++) {
		struct set_sec *data = &c->secs[c->nr_secs++];

		err = plan_data(c, &secs[i], data);
		if (err)
			return err;
		if (!secs[i].relocs)
			continue;
		err = plan_relocs(c, &secs[i], data, &c->secs[c->nr_secs++]);
		if (err)
			return err;
	}
	return build_shstrtab(c);
}

static void free_plan(struct elf_copy *c)
{
	size_t i;

	for (i = 0; i < c->nr_secs; i++) {
		free(c->secs[i].name_mem);
		free(c->secs[i].buf_mem);
	}
	free(c->secs);
	free(c->shstr);
}

/* -- the output -- */

static struct set_sec *set_sec_at(struct elf_copy *c, size_t idx)
{
	size_t i;

	for (i = 0; i < c->nr_secs; i++)
		if (c->secs[i].idx == idx)
			return &c->secs[i];
	return NULL;
}

/* libelf encodes r_info by class: @data must belong to the section. */
static int fill_relocs(struct elf_copy *c, const struct abtf_section *s,
		       Elf_Data *data)
{
	size_t i;
	int ok;

	for (i = 0; i < s->nr_relocs; i++) {
		const struct abtf_reloc *r = &s->relocs[i];
		GElf_Rela rela = {
			.r_offset = r->offset,
			.r_info = GELF_R_INFO(r->sym, r->type),
			.r_addend = r->addend,
		};
		GElf_Rel rel = {
			.r_offset = r->offset,
			.r_info = rela.r_info,
		};

		if (data->d_type == ELF_T_RELA)
			ok = gelf_update_rela(data, i, &rela);
		else
			ok = gelf_update_rel(data, i, &rel);
		if (!ok)
			return copy_elf_error(c, "cannot encode a relocation");
	}
	return 0;
}

/* Copy input section @idx: its header and its bytes, as they are. */
static int copy_section(struct elf_copy *c, size_t idx, Elf_Scn *scn)
{
	Elf_Scn *old = elf_getscn(c->src, idx);
	Elf_Data *raw;
	GElf_Shdr shdr;

	if (!old || !gelf_getshdr(old, &shdr))
		return copy_elf_error(c, "cannot read section headers");
	raw = elf_rawdata(old, NULL);
	if (!raw)
		return copy_elf_error(c, "cannot read section data");
	if (!gelf_update_shdr(scn, &shdr))
		return copy_elf_error(c, "cannot set a section header");
	if (idx == c->shstrndx && !add_data(scn, c->shstr, c->shstr_size,
					    ELF_T_BYTE, 1))
		return copy_elf_error(c, "cannot add section data");
	if (idx != c->shstrndx && !add_data(scn, raw->d_buf, raw->d_size,
					    ELF_T_BYTE, 1))
		return copy_elf_error(c, "cannot add section data");
	return 0;
}

static int set_section(struct elf_copy *c, struct set_sec *o, Elf_Scn *scn)
{
	GElf_Shdr shdr = o->shdr;
	Elf_Data *data;

	if (o->append) {
		shdr.sh_name = o->name_off;
	} else {
		GElf_Shdr old;

		if (!gelf_getshdr(elf_getscn(c->src, o->idx), &old))
			return copy_elf_error(c, "cannot read section headers");
		shdr.sh_name = old.sh_name;
	}
	if (!gelf_update_shdr(scn, &shdr))
		return copy_elf_error(c, "cannot set a section header");
	data = add_data(scn, o->buf, o->size, o->type, shdr.sh_addralign);
	if (!data)
		return copy_elf_error(c, "cannot add section data");
	return o->relocs_of ? fill_relocs(c, o->relocs_of, data) : 0;
}

static int write_sections(struct elf_copy *c)
{
	struct set_sec *o;
	Elf_Scn *scn;
	size_t idx;
	int err;

	for (idx = 1; idx < c->nr_out; idx++) {
		scn = elf_newscn(c->dst);
		if (!scn)
			return copy_elf_error(c, "cannot add a section");
		if (elf_ndxscn(scn) != idx) {
			pr_warn(c->pr, "%s: internal error: section %zu became %zu",
				c->src_path, idx, elf_ndxscn(scn));
			return -EINVAL;
		}
		o = set_sec_at(c, idx);
		err = o ? set_section(c, o, scn) : copy_section(c, idx, scn);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The ELF header is the input's; libelf sets e_shnum (and section 0's
 * sh_size past SHN_LORESERVE sections), e_shoff and the sizes.
 */
static int write_headers(struct elf_copy *c)
{
	GElf_Ehdr ehdr = c->ehdr;
	GElf_Shdr shdr0;
	Elf_Scn *scn0;

	scn0 = elf_getscn(c->dst, 0);
	if (!scn0 || !gelf_getshdr(scn0, &shdr0))
		return copy_elf_error(c, "cannot read section 0");
	if (c->shstrndx < SHN_LORESERVE) {
		ehdr.e_shstrndx = c->shstrndx;
		shdr0.sh_link = 0;
	} else {
		ehdr.e_shstrndx = SHN_XINDEX;
		shdr0.sh_link = c->shstrndx;
	}
	if (!gelf_update_shdr(scn0, &shdr0))
		return copy_elf_error(c, "cannot set section 0");
	if (!gelf_update_ehdr(c->dst, &ehdr))
		return copy_elf_error(c, "cannot set the ELF header");
	return 0;
}

static int write_elf(struct elf_copy *c)
{
	int err;

	c->dst = elf_begin(c->fd, ELF_C_WRITE, NULL);
	if (!c->dst)
		return copy_elf_error(c, "cannot create the output ELF");
	/*
	 * We copy sections we need not understand: do not let libelf judge
	 * them (sh_entsize against sh_size) more strictly than whoever
	 * wrote them.
	 */
	if (!elf_flagelf(c->dst, ELF_C_SET, ELF_F_PERMISSIVE)) {
		err = copy_elf_error(c, "cannot set up the output ELF");
		goto out_end_elf;
	}
	/* the class first: elf_newscn() needs it */
	if (!gelf_newehdr(c->dst, gelf_getclass(c->src))) {
		err = copy_elf_error(c, "cannot create the ELF header");
		goto out_end_elf;
	}
	/* the first elf_newscn() also creates section 0 */
	err = write_sections(c);
	if (err)
		goto out_end_elf;
	err = write_headers(c);
	if (err)
		goto out_end_elf;
	err = update_file(c->dst);
	if (err)
		pr_warn(c->pr, "%s: cannot write %s: %s (%s)", c->src_path,
			c->dst_path, strerror(-err), elf_errmsg(-1));
out_end_elf:
	elf_end(c->dst);
	c->dst = NULL;
	return err;
}

static int write_tmpfile(struct elf_copy *c)
{
	int err;

	c->fd = abtf__tmpfile_for(c->dst_path, &c->tmp);
	if (c->fd < 0) {
		pr_warn(c->pr, "%s: cannot create a temporary file next to %s: %s",
			c->src_path, c->dst_path, strerror(-c->fd));
		return c->fd;
	}
	err = write_elf(c);
	if (close(c->fd) && !err) {
		err = -errno;
		pr_warn(c->pr, "%s: cannot write %s: %s", c->src_path,
			c->dst_path, strerror(-err));
	}
	if (err)
		goto out_abort_tmp;
	err = abtf__tmpfile_commit(c->tmp, c->dst_path);
	c->tmp = NULL;
	if (err)
		pr_warn(c->pr, "%s: cannot replace %s: %s", c->src_path,
			c->dst_path, strerror(-err));
	return err;

out_abort_tmp:
	abtf__tmpfile_abort(c->tmp);
	c->tmp = NULL;
	return err;
}

int abtf__elf_set_sections(Elf *elf, const char *src_path,
			   const char *dst_path,
			   const struct abtf_section *secs, size_t nr_secs,
			   const struct abtf_printer *pr)
{
	struct elf_copy c = {
		.src = elf,
		.src_path = src_path,
		.dst_path = dst_path,
		.pr = pr,
		.fd = -1,
	};
	int err;

	err = check_input(&c);
	if (err)
		return err;
	err = plan(&c, secs, nr_secs);
	if (err)
		goto out_free_plan;
	err = write_tmpfile(&c);

out_free_plan:
	free_plan(&c);
	return err;
}

/* ---- abtf__elf_overwrite_sections(): a linked file, layout kept ---- */

static int copy_file(int from, int to)
{
	char buf[1 << 16];
	off_t off = 0;
	ssize_t n;

	while ((n = pread(from, buf, sizeof(buf), off)) > 0) {
		char *p = buf;
		ssize_t left = n;

		while (left > 0) {
			ssize_t w = write(to, p, left);

			if (w < 0)
				return -errno;
			p += w;
			left -= w;
		}
		off += n;
	}
	return n < 0 ? -errno : 0;
}

/* @b's bytes over its section of @elf, which shrinks; -EFBIG: no room. */
static int overwrite_section(Elf *elf, const struct abtf_scn_bytes *b)
{
	Elf_Scn *scn = elf_getscn(elf, b->shndx);
	GElf_Shdr shdr;
	Elf_Data *d;

	if (!scn || !gelf_getshdr(scn, &shdr) || !(d = elf_getdata(scn, NULL)))
		return -EINVAL;
	if (b->size > shdr.sh_size)
		return -EFBIG;
	d->d_buf = (void *)b->data;
	d->d_size = b->size;
	d->d_type = ELF_T_BYTE;
	/*
	 * Plain bytes: a compressed section's data came with its header's
	 * alignment (8), which elfutils 0.192 holds against sh_addralign
	 * (ld gives the compressed .debug_btf_addr 1) in a fixed layout.
	 */
	d->d_align = 1;
	shdr.sh_size = b->size;
	shdr.sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;	/* the bytes are plain */
	if (!gelf_update_shdr(scn, &shdr))
		return -EINVAL;
	elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
	return 0;
}

/* The copy open as @fd, @secs written over, its layout kept. */
static int overwrite_copy(int fd, const char *dst_path,
			  const struct abtf_scn_bytes *secs, size_t nr_secs,
			  const struct abtf_printer *pr)
{
	Elf *elf = elf_begin(fd, ELF_C_RDWR, NULL);
	size_t i;
	int err = 0;

	if (!elf)
		return cannot_write(pr, dst_path, -EINVAL);
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	for (i = 0; i < nr_secs && !err; i++)
		err = overwrite_section(elf, &secs[i]);
	if (!err)
		err = update_dst(elf, dst_path, pr);
	else if (err != -EFBIG)
		cannot_write(pr, dst_path, err);
	elf_end(elf);
	return err;
}

int abtf__elf_overwrite_sections(int src_fd, const char *dst_path,
				 const struct abtf_scn_bytes *secs,
				 size_t nr_secs, const struct abtf_printer *pr)
{
	char *tmp;
	int fd, err;

	fd = abtf__tmpfile_for(dst_path, &tmp);
	if (fd < 0)
		return fd;
	err = copy_file(src_fd, fd);
	if (err)
		cannot_write(pr, dst_path, err);
	else
		err = overwrite_copy(fd, dst_path, secs, nr_secs, pr);
	if (close(fd) && !err)
		err = cannot_write(pr, dst_path, -errno);
	if (err) {
		abtf__tmpfile_abort(tmp);
		return err;
	}
	return abtf__tmpfile_commit(tmp, dst_path);
}

/* ---- abtf__elf_new_object(): a new relocatable object ---- */

struct new_object {
	const GElf_Ehdr *like;
	const char *dst_path;
	const struct abtf_section *secs;
	size_t nr_secs;
	size_t shstrndx;	/* the section named ABTF_SEC_SHSTRTAB */
	char *shstr;		/* its contents: every section's name */
	size_t shstr_size;
	const struct abtf_printer *pr;
};

static int object_error(const struct new_object *o, const char *why)
{
	pr_warn(o->pr, "%s: cannot make the BTF object: %s", o->dst_path, why);
	return -EINVAL;
}

/* What a new object's sections may be; which one is the name table. */
static int check_object(struct new_object *o)
{
	size_t i;

	if (o->nr_secs >= SHN_LORESERVE)
		return object_error(o, "too many sections");
	for (i = 0; i < o->nr_secs; i++) {
		const struct abtf_section *s = &o->secs[i];

		if (!s->name)
			return object_error(o, "a section without a name");
		if (s->relocs)
			return object_error(o, "relocations: not supported");
		if (!o->shstrndx && !strcmp(s->name, ABTF_SEC_SHSTRTAB))
			o->shstrndx = i + 1;
	}
	if (!o->shstrndx)
		return object_error(o, "no " ABTF_SEC_SHSTRTAB " section");
	return 0;
}

/* The section name table: a NUL, then every section's name, in order. */
static int object_names(struct new_object *o)
{
	struct sbuf sb = {};
	size_t i;
	int err;

	abtf__sb_addn(&sb, "", 1);
	for (i = 0; i < o->nr_secs; i++)
		abtf__sb_addn(&sb, o->secs[i].name,
			      strlen(o->secs[i].name) + 1);
	o->shstr_size = sb.len;
	err = abtf__sb_take(&sb, &o->shstr);
	if (err)
		pr_warn(o->pr, "%s: out of memory", o->dst_path);
	return err;
}

/* The header of @like's class, byte order, machine and flags. */
static int object_header(Elf *elf, const struct new_object *o)
{
	GElf_Ehdr ehdr;

	if (!gelf_newehdr(elf, o->like->e_ident[EI_CLASS]) ||
	    !gelf_getehdr(elf, &ehdr))
		return -EINVAL;
	memcpy(ehdr.e_ident, o->like->e_ident, EI_NIDENT);
	ehdr.e_type = ET_REL;
	ehdr.e_machine = o->like->e_machine;
	ehdr.e_version = EV_CURRENT;
	ehdr.e_flags = o->like->e_flags;
	ehdr.e_shstrndx = o->shstrndx;
	return gelf_update_ehdr(elf, &ehdr) ? 0 : -EINVAL;
}

static int object_section(Elf *elf, const struct abtf_section *s,
			  size_t name, const void *data, size_t size)
{
	uint64_t align = s->align ? s->align : 1;
	Elf_Scn *scn = elf_newscn(elf);
	GElf_Shdr shdr;

	if (!scn || !add_data(scn, (void *)data, size, ELF_T_BYTE, align) ||
	    !gelf_getshdr(scn, &shdr))
		return -EINVAL;
	shdr.sh_name = name;
	shdr.sh_type = s->type;
	shdr.sh_flags = s->flags;
	shdr.sh_addralign = align;
	shdr.sh_size = size;
	return gelf_update_shdr(scn, &shdr) ? 0 : -EINVAL;
}

/* Sections 1 on, each named at its offset in o->shstr. */
static int object_sections(Elf *elf, const struct new_object *o)
{
	size_t i, name = 1;
	int err = 0;

	for (i = 0; i < o->nr_secs && !err; i++) {
		const struct abtf_section *s = &o->secs[i];

		if (i + 1 == o->shstrndx)
			err = object_section(elf, s, name, o->shstr,
					     o->shstr_size);
		else
			err = object_section(elf, s, name, s->data, s->size);
		name += strlen(s->name) + 1;
	}
	return err;
}

static int write_object(int fd, const struct new_object *o)
{
	Elf *elf = elf_begin(fd, ELF_C_WRITE, NULL);
	int err;

	if (!elf || object_header(elf, o) || object_sections(elf, o))
		err = object_error(o, elf_errmsg(-1));
	else
		err = update_dst(elf, o->dst_path, o->pr);
	elf_end(elf);
	return err;
}

int abtf__elf_new_object(const GElf_Ehdr *like, const char *dst_path,
			 const struct abtf_section *secs, size_t nr_secs,
			 const struct abtf_printer *pr)
{
	struct new_object o = {
		.like = like,
		.dst_path = dst_path,
		.secs = secs,
		.nr_secs = nr_secs,
		.pr = pr,
	};
	char *tmp;
	int fd, err;

	err = check_object(&o);
	if (!err)
		err = object_names(&o);
	if (err)
		goto out_free_names;
	fd = abtf__tmpfile_for(dst_path, &tmp);
	if (fd < 0) {
		err = cannot_write(pr, dst_path, fd);
		goto out_free_names;
	}
	err = write_object(fd, &o);
	if (close(fd) && !err)
		err = -errno;
	if (err)
		abtf__tmpfile_abort(tmp);
	else
		err = abtf__tmpfile_commit(tmp, dst_path);
out_free_names:
	free(o.shstr);
	return err;
}
