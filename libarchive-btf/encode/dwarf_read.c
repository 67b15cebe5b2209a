// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The encoder's own reader of relocated DWARF 2-5.
 *
 * Why not libdw. The encoder reads every DIE of an object once, most of
 * them for two to six attributes, and libdw made that 60 % of its work
 * once libbpf's deduplication was gone (ir_dedup.c): each dwarf_tag()
 * looked the abbreviation up in a locked hash table, each dwarf_attr()
 * and each dwarf_siblingof() decoded the DIE's attributes from the start
 * again, and a member was decoded three times (its tag, its attributes,
 * the way to its sibling). Here a DIE is decoded once, front to back,
 * into the fields the encoder reads (struct dw_die). A unit's
 * abbreviations are an array indexed by code, parsed once per unit
 * layout, in which each run of attributes the encoder does not read whose
 * forms have fixed sizes is one "skip N bytes".
 *
 * What it reads: the unit headers of .debug_info (DWARF 2 to 5, 32- and
 * 64-bit, either byte order), .debug_abbrev, strings from .debug_str,
 * .debug_line_str and .debug_str_offsets, and addresses from .debug_addr
 * (clang's DWARF 5: DW_FORM_strx*, DW_OP_addrx, from the unit's
 * DW_AT_str_offsets_base and DW_AT_addr_base), all from the Elf whose sections
 * were relocated and decompressed by dwarf_reloc.c. Or, for split DWARF
 * (dw_file__open_dwo()), the .debug_*.dwo sections of a .dwo file, its
 * split unit's tables implied (just past the one header of each; GNU's
 * DWARF 4 ones have none), its addresses the skeleton object's
 * .debug_addr from the skeleton's DW_AT_addr_base (dw_unit__skeleton()).
 *
 * What it refuses, with -EOPNOTSUPP: types in type units (GCC's
 * -fdebug-types-section: DW_AT_signature stubs, DW_FORM_ref_sig8), which
 * libdw's way turned into empty anonymous structs without a word, and
 * references into a supplementary file (dwz's DW_FORM_GNU_ref_alt and the
 * DWARF 5 _sup forms). The kernel uses none of them.
 *
 * Every read is bounded by its section and unit: a corrupt object gives
 * -EINVAL and a reason, never a read out of bounds.
 */
#include <dwarf.h>
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode/dwarf_read.h"
#include "util/internal.h"

/* ---- a bounded cursor ---- */

struct cur {
	const uint8_t *p, *end;
	bool bad;
	bool big;		/* big-endian DWARF */
};

static uint64_t get_uleb(struct cur *c)
{
	uint64_t v;

	if (!dw_uleb(&c->p, c->end, &v))
		c->bad = true;
	return v;
}

static int64_t get_sleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (c->p < c->end) {
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return (int64_t)v;
		}
	}
	c->bad = true;
	return 0;
}

/* @n (1..8) bytes in the DWARF's byte order. */
static uint64_t get_n(struct cur *c, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	if (__BYTE_ORDER == __LITTLE_ENDIAN && !c->big) {
		memcpy(&v, c->p, n);
	} else if (c->big) {
		for (i = 0; i < n; i++)
			v = v << 8 | c->p[i];
	} else {
		for (i = 0; i < n; i++)
			v |= (uint64_t)c->p[i] << (8 * i);
	}
	c->p += n;
	return v;
}

/*
 * get_n() of a size known only at run time (a form's, from dw_forms[]):
 * each common size a call with a constant, which the compiler turns into
 * one load where get_n(c, n) would call memcpy() for every value.
 */
static inline __attribute__((always_inline)) uint64_t
get_sized(struct cur *c, unsigned int n)
{
	switch (n) {
	case 1:
		return get_n(c, 1);
	case 2:
		return get_n(c, 2);
	case 4:
		return get_n(c, 4);
	case 8:
		return get_n(c, 8);
	default:
		return get_n(c, n);
	}
}

static void skip(struct cur *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return;
	}
	c->p += n;
}

/* ---- sections and unit headers ---- */

const char *dw_debug_suffix(const char *name)
{
	if (name && !strncmp(name, ".debug_", 7))
		return name + 6;
	if (name && !strncmp(name, ".zdebug_", 8))
		return name + 7;
	return NULL;
}

/*
 * @d as the section .debug@name, if the reader reads it: -EINVAL if one of
 * that name came before with data (libdw takes the first, and the other's
 * DIEs would be lost without a word; type units in COMDAT groups are left
 * out before this).
 */
static int take_section(struct dw_file *f, const char *name, Elf_Data *d)
{
	static const struct {
		const char *name;
		size_t off;
	} secs[] = {
		{ "_info", offsetof(struct dw_file, info) },
		{ "_abbrev", offsetof(struct dw_file, abbrev) },
		{ "_str", offsetof(struct dw_file, str) },
		{ "_line_str", offsetof(struct dw_file, line_str) },
		{ "_str_offsets", offsetof(struct dw_file, str_offsets) },
		{ "_addr", offsetof(struct dw_file, addr) },
		{ "_loc", offsetof(struct dw_file, loc) },
		{ "_loclists", offsetof(struct dw_file, loclists) },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(secs); i++) {
		struct dw_sec *s = (struct dw_sec *)((char *)f + secs[i].off);

		if (strcmp(name, secs[i].name) || !d->d_buf || !d->d_size)
			continue;
		if (s->buf)
			return -EINVAL;
		s->buf = d->d_buf;
		s->size = d->d_size;
	}
	return 0;
}

/*
 * What follows ".debug" in the name of a section of @f's: in a .dwo file,
 * of a ".debug_*.dwo" section, without the ".dwo" (into @buf); NULL for
 * one the reader does not read.
 */
static const char *section_suffix(const struct dw_file *f, const char *name,
				  char *buf, size_t size)
{
	const char *suffix = dw_debug_suffix(name);
	size_t len = suffix ? strlen(suffix) : 0;

	if (!f->dwo || !suffix)
		return suffix;
	if (len < 4 || len - 4 >= size || strcmp(suffix + len - 4, ".dwo"))
		return NULL;
	memcpy(buf, suffix, len - 4);
	buf[len - 4] = '\0';
	return buf;
}

static int find_sections(struct dw_file *f, Elf *elf, const char **why)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr shdr;
	char buf[32];

	if (elf_getshdrstrndx(elf, &shstrndx)) {
		*why = "bad section header string table";
		return -EINVAL;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS ||
		    (shdr.sh_flags & SHF_GROUP))	/* type units' */
			continue;
		name = section_suffix(f, elf_strptr(elf, shstrndx,
						     shdr.sh_name),
				      buf, sizeof(buf));
		if (!name)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && take_section(f, name, d)) {
			*why = "two sections of one DWARF name, both with data";
			return -EINVAL;
		}
	}
	if (!f->info.buf)
		return -ENODATA;
	return 0;
}

/* A string section must end with a NUL for any offset into it to be one. */
static void check_strings(struct dw_sec *s)
{
	if (s->size && s->buf[s->size - 1])
		s->size = 0;	/* every string in it reads as bad */
}

static int read_unit_header(struct dw_file *f, struct cur *c,
			    struct dw_unit *u, const char **why)
{
	uint64_t len, version, type_off = 0;
	bool type_unit = false;

	u->off = c->p - f->info.buf;
	len = get_n(c, 4);
	u->offset_size = 4;
	if (len == 0xffffffff) {
		len = get_n(c, 8);
		u->offset_size = 8;
	} else if (len >= 0xfffffff0) {
		len = ~(uint64_t)0;	/* reserved */
	}
	if (c->bad || len > (uint64_t)(c->end - c->p)) {
		*why = "unit length past the end of .debug_info";
		return -EINVAL;
	}
	u->end = (c->p - f->info.buf) + len;
	c->end = c->p + len;
	version = get_n(c, 2);	/* 16 bits: 261 is no version 5 */
	u->version = version;
	if (version < 2 || version > 5) {
		*why = "unknown DWARF version";
		return -EINVAL;
	}
	if (u->version >= 5) {
		u->unit_type = get_n(c, 1);
		u->addr_size = get_n(c, 1);
		u->abbrev_off = get_n(c, u->offset_size);
		if (u->unit_type == DW_UT_type ||
		    u->unit_type == DW_UT_split_type) {
			skip(c, 8);	/* the signature */
			type_off = get_n(c, u->offset_size);
			type_unit = true;
		} else if (u->unit_type == DW_UT_skeleton ||
			 u->unit_type == DW_UT_split_compile) {
			u->dwo_id = get_n(c, 8);
		}
	} else {
		u->unit_type = DW_UT_compile;
		u->abbrev_off = get_n(c, u->offset_size);
		u->addr_size = get_n(c, 1);
	}
	u->die = c->p - f->info.buf;
	/* a type unit's type DIE lies in it, past its header (libdw) */
	if (!c->bad && u->addr_size != f->addr_size) {
		snprintf(f->why, sizeof(f->why), "unit at 0x%llx: address "
			 "size %u, not the machine's %u",
			 (unsigned long long)u->off, u->addr_size,
			 f->addr_size);
		*why = f->why;
		return -EINVAL;
	}
	if (c->bad || (u->addr_size != 4 && u->addr_size != 8) ||
	    u->unit_type < DW_UT_compile || u->unit_type > DW_UT_split_type ||
	    (type_unit && (type_off < u->die - u->off ||
			   type_off >= u->end - u->off))) {
		*why = "bad unit header";
		return -EINVAL;
	}
	return 0;
}

static int read_units(struct dw_file *f, const char **why)
{
	const uint8_t *p = f->info.buf, *end = p + f->info.size;
	size_t cap = 0;

	while (p < end) {
		struct cur c = { .p = p, .end = end, .big = f->big_endian };
		struct dw_unit *u;
		int err;

		if (abtf_grow(f->units, cap, f->nr_units + 1))
			return -ENOMEM;
		u = &f->units[f->nr_units];
		memset(u, 0, sizeof(*u));
		u->dwo = f->dwo;
		err = read_unit_header(f, &c, u, why);
		if (err)
			return err;
		f->nr_units++;
		p = f->info.buf + u->end;
	}
	return 0;
}

static int open_file(struct dw_file *f, Elf *elf, const char **why)
{
	GElf_Ehdr ehdr;
	int err;

	if (!gelf_getehdr(elf, &ehdr)) {
		*why = "bad ELF header";
		return -EINVAL;
	}
	f->big_endian = ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	f->addr_size = ehdr.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	err = find_sections(f, elf, why);
	if (err)
		return err;
	check_strings(&f->str);
	check_strings(&f->line_str);
	return read_units(f, why);
}

int dw_file__open(struct dw_file *f, Elf *elf, const char **why)
{
	memset(f, 0, sizeof(*f));
	return open_file(f, elf, why);
}

int dw_file__open_dwo(struct dw_file *f, Elf *elf, const struct dw_sec *addr,
		      uint64_t addr_base, const char **why)
{
	size_t i;
	int err;

	memset(f, 0, sizeof(*f));
	f->dwo = true;
	err = open_file(f, elf, why);
	if (err)
		return err;
	if (f->addr.buf) {
		*why = "a .debug_addr.dwo section: addresses are the object's";
		return -EINVAL;
	}
	f->addr = *addr;
	for (i = 0; i < f->nr_units; i++)
		f->units[i].addr_base = addr_base;
	return 0;
}

void dw_file__close(struct dw_file *f)
{
	size_t i;

	for (i = 0; i < f->nr_tables; i++) {
		free(f->tables[i].v);
		free(f->tables[i].specs);
	}
	free(f->tables);
	free(f->units);
	memset(f, 0, sizeof(*f));
}

/* ---- abbreviations ---- */

/* Codes above this are refused: compilers number them from 1, densely. */
#define DW_MAX_CODE	(1u << 16)

/*
 * Every form this reader knows, in one table: how its value is laid out in
 * the unit (FL_*), and what the value is (FK_*). form_size(), read_value(),
 * read_string(), dw_die__const_string() and is_ref_form() all read it.
 */
enum form_len {
	FL_FIXED,	/* .size bytes (16: skipped, no value) */
	FL_PRESENT,	/* nothing stored; the value is 1 */
	FL_IMPLICIT,	/* nothing stored; the value is in the abbreviation */
	FL_OFFSET,	/* the unit's offset size: 4, or 8 in 64-bit DWARF */
	FL_ADDR,	/* the unit's address size */
	FL_REF_ADDR,	/* DWARF 2: the address size; later: the offset size */
	FL_ULEB,
	FL_SLEB,
	FL_BLOCK,	/* a length (.size bytes; 0: ULEB128), then the bytes */
	FL_CSTRING,	/* NUL-terminated, in the unit */
	FL_INDIRECT,	/* the form follows as ULEB128 (read_attrs()) */
};

enum form_kind {
	FK_OTHER,	/* flags, section offsets, indices, signatures: v->u */
	FK_UDATA,	/* an unsigned constant */
	FK_SDATA,	/* a signed constant */
	FK_BLOCK,	/* v->block, v->u bytes */
	FK_REF,		/* a reference in the unit: v->u from .debug_info's start */
	FK_REF_ADDR,	/* a reference anywhere in .debug_info */
	FK_ADDR,	/* an address: v->block is where it is, to relocate */
	FK_STRING,	/* inline */
	FK_STRP,	/* an offset into .debug_str */
	FK_LINE_STRP,	/* an offset into .debug_line_str */
	FK_STRX,	/* an index into .debug_str_offsets */
};

#define F(l, n, k)	{ .len = FL_##l, .size = n, .kind = FK_##k, .known = true }

static const struct dw_form dw_forms[] = {
	[DW_FORM_addr]		= F(ADDR, 0, ADDR),
	[DW_FORM_block2]	= F(BLOCK, 2, BLOCK),
	[DW_FORM_block4]	= F(BLOCK, 4, BLOCK),
	[DW_FORM_data2]		= F(FIXED, 2, UDATA),
	[DW_FORM_data4]		= F(FIXED, 4, UDATA),
	[DW_FORM_data8]		= F(FIXED, 8, UDATA),
	[DW_FORM_string]	= F(CSTRING, 0, STRING),
	[DW_FORM_block]		= F(BLOCK, 0, BLOCK),
	[DW_FORM_block1]	= F(BLOCK, 1, BLOCK),
	[DW_FORM_data1]		= F(FIXED, 1, UDATA),
	[DW_FORM_flag]		= F(FIXED, 1, OTHER),
	[DW_FORM_sdata]		= F(SLEB, 0, SDATA),
	[DW_FORM_strp]		= F(OFFSET, 0, STRP),
	[DW_FORM_udata]		= F(ULEB, 0, UDATA),
	[DW_FORM_ref_addr]	= F(REF_ADDR, 0, REF_ADDR),
	[DW_FORM_ref1]		= F(FIXED, 1, REF),
	[DW_FORM_ref2]		= F(FIXED, 2, REF),
	[DW_FORM_ref4]		= F(FIXED, 4, REF),
	[DW_FORM_ref8]		= F(FIXED, 8, REF),
	[DW_FORM_ref_udata]	= F(ULEB, 0, REF),
	[DW_FORM_indirect]	= F(INDIRECT, 0, OTHER),
	[DW_FORM_sec_offset]	= F(OFFSET, 0, OTHER),
	[DW_FORM_exprloc]	= F(BLOCK, 0, BLOCK),
	[DW_FORM_flag_present]	= F(PRESENT, 0, OTHER),
	[DW_FORM_strx]		= F(ULEB, 0, STRX),
	[DW_FORM_addrx]		= F(ULEB, 0, OTHER),
	[DW_FORM_ref_sup4]	= F(FIXED, 4, OTHER),
	[DW_FORM_strp_sup]	= F(OFFSET, 0, OTHER),
	[DW_FORM_data16]	= F(FIXED, 16, OTHER),
	[DW_FORM_line_strp]	= F(OFFSET, 0, LINE_STRP),
	[DW_FORM_ref_sig8]	= F(FIXED, 8, OTHER),
	[DW_FORM_implicit_const] = F(IMPLICIT, 0, SDATA),
	[DW_FORM_loclistx]	= F(ULEB, 0, OTHER),
	[DW_FORM_rnglistx]	= F(ULEB, 0, OTHER),
	[DW_FORM_ref_sup8]	= F(FIXED, 8, OTHER),
	[DW_FORM_strx1]		= F(FIXED, 1, STRX),
	[DW_FORM_strx2]		= F(FIXED, 2, STRX),
	[DW_FORM_strx3]		= F(FIXED, 3, STRX),
	[DW_FORM_strx4]		= F(FIXED, 4, STRX),
	[DW_FORM_addrx1]	= F(FIXED, 1, OTHER),
	[DW_FORM_addrx2]	= F(FIXED, 2, OTHER),
	[DW_FORM_addrx3]	= F(FIXED, 3, OTHER),
	[DW_FORM_addrx4]	= F(FIXED, 4, OTHER),
};

/* The GNU extensions, numbered far from the others. */
static const struct dw_form gnu_addr_index = F(ULEB, 0, OTHER);
static const struct dw_form gnu_str_index = F(ULEB, 0, STRX);
static const struct dw_form gnu_alt = F(OFFSET, 0, OTHER);	/* dwz */

#undef F

/* What @form is, or NULL for a form this reader does not know. */
static const struct dw_form *form_of(uint64_t form)
{
	switch (form) {
	case DW_FORM_GNU_addr_index:
		return &gnu_addr_index;
	case DW_FORM_GNU_str_index:
		return &gnu_str_index;
	case DW_FORM_GNU_ref_alt:
	case DW_FORM_GNU_strp_alt:
		return &gnu_alt;
	}
	if (form >= ARRAY_SIZE(dw_forms) || !dw_forms[form].known)
		return NULL;
	return &dw_forms[form];
}

/* The bytes a value of form @d takes, if the form fixes them: or -1. */
static int fixed_size(const struct dw_form *d, uint8_t addr_size,
		      uint8_t offset_size, bool v2)
{
	switch (d->len) {
	case FL_FIXED:
		return d->size;
	case FL_PRESENT:
	case FL_IMPLICIT:
		return 0;
	case FL_OFFSET:
		return offset_size;
	case FL_ADDR:
		return addr_size;
	case FL_REF_ADDR:
		return v2 ? addr_size : offset_size;
	default:
		return -1;	/* LEB128, block, string, indirect */
	}
}

/* The size of a value of @form, if the form fixes it: or -1. */
static int form_size(const struct dw_abbrevs *t, uint64_t form)
{
	const struct dw_form *d = form_of(form);

	return d ? fixed_size(d, t->addr_size, t->offset_size, t->v2) : -1;
}

/* The attributes take_attr() reads; every other one is skipped. */
static const uint16_t wanted_attrs[] = {
	DW_AT_name, DW_AT_type, DW_AT_abstract_origin, DW_AT_specification,
	DW_AT_sibling, DW_AT_byte_size, DW_AT_encoding, DW_AT_bit_size,
	DW_AT_data_bit_offset, DW_AT_bit_offset, DW_AT_count,
	DW_AT_lower_bound, DW_AT_upper_bound, DW_AT_language,
	DW_AT_str_offsets_base, DW_AT_addr_base, DW_AT_GNU_addr_base,
	DW_AT_data_member_location, DW_AT_const_value, DW_AT_location,
	DW_AT_declaration, DW_AT_external, DW_AT_GNU_dwo_name,
	DW_AT_GNU_dwo_id, DW_AT_signature, DW_AT_low_pc, DW_AT_ranges,
	DW_AT_calling_convention, DW_AT_loclists_base, DW_AT_producer,
	DW_AT_dwo_name, DW_AT_comp_dir,
};

_Static_assert(ARRAY_SIZE(wanted_attrs) <= 64, "add_spec()'s mask");

/* @name's index in wanted_attrs[], or -1 if the encoder skips it. */
static int attr_index(uint64_t name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wanted_attrs); i++)
		if (wanted_attrs[i] == name)
			return (int)i;
	return -1;
}

static bool attr_wanted(uint64_t name)
{
	return attr_index(name) >= 0;
}

/*
 * Add attribute @name of @form to the abbreviation whose specs start at
 * @first; @seen has bit i set once wanted_attrs[i] is in it. A second one
 * of a name the encoder reads is read past, not taken: libdw takes the
 * first (dwarf_attr()), and GCC 12 writes a base type's DW_AT_name twice.
 */
static int add_spec(struct dw_abbrevs *t, size_t *cap, uint32_t first,
		    uint64_t name, uint64_t form, int64_t implicit,
		    uint64_t *seen)
{
	int idx = attr_index(name);
	bool dup = idx >= 0 && (*seen >> idx & 1);
	int size = form_size(t, form);
	struct dw_spec *last = t->nr_specs > first ?
			       &t->specs[t->nr_specs - 1] : NULL;

	if (!attr_wanted(name) && size >= 0) {
		if (last && !last->name) {	/* extend the run */
			last->size += size;
			return 0;
		}
		name = 0;
		form = 0;
	}
	if (t->nr_specs == UINT32_MAX ||
	    abtf_grow(t->specs, *cap, (size_t)t->nr_specs + 1))
		return -ENOMEM;
	last = &t->specs[t->nr_specs++];
	last->name = name;
	last->form = form;
	last->fd = name && form_of(form) ? *form_of(form) :
					    (struct dw_form){ 0 };
	last->size = size > 0 ? size : 0;
	last->want = name && attr_wanted(name) && !dup;
	last->dup = dup;
	last->implicit = implicit;
	if (idx >= 0)
		*seen |= (uint64_t)1 << idx;
	return 0;
}

static int set_code(struct dw_abbrevs *t, uint64_t code, uint32_t tag,
		    bool children, uint32_t first)
{
	size_t old = t->nr;

	/* a second definition of a code: the DIEs that use it mean either */
	if (code < old && t->v[code].tag)
		return -EEXIST;
	if (abtf_grow(t->v, t->nr, code + 1))
		return -ENOMEM;
	memset(t->v + old, 0, (t->nr - old) * sizeof(*t->v));
	t->v[code].tag = tag;
	t->v[code].children = children;
	t->v[code].first = first;
	t->v[code].nr = t->nr_specs - first;
	return 0;
}

static int parse_abbrevs(struct dw_file *f, struct dw_abbrevs *t,
			 const char **why)
{
	struct cur c = {
		.p = f->abbrev.buf, .end = f->abbrev.buf + f->abbrev.size,
		.big = f->big_endian,
	};
	size_t cap = 0;
	int err;

	skip(&c, t->off);
	for (;;) {
		uint64_t code = get_uleb(&c), tag, name, form, children;
		uint32_t first = t->nr_specs;
		uint64_t seen = 0;	/* add_spec()'s */

		if (c.bad || !code)
			break;
		tag = get_uleb(&c);
		children = get_n(&c, 1);
		if (code >= DW_MAX_CODE || !tag || tag > UINT32_MAX)
			goto out_bad;
		/* DW_CHILDREN_no or _yes: libdw takes any other for no */
		if (children > 1) {
			*why = "bad abbreviation table: a children flag that "
			       "is neither DW_CHILDREN_no nor DW_CHILDREN_yes";
			return -EINVAL;
		}
		if (tag == DW_TAG_LLVM_annotation)
			t->annotations = true;
		for (;;) {
			int64_t implicit = 0;

			name = get_uleb(&c);
			form = get_uleb(&c);
			if (c.bad || (!name && !form))
				break;
			if (form == DW_FORM_implicit_const)
				implicit = get_sleb(&c);
			if (!name || name > 0xffff || !form || form > 0xffff)
				goto out_bad;
			err = add_spec(t, &cap, first, name, form, implicit,
				       &seen);
			if (err)
				return err;
		}
		if (c.bad)
			break;
		err = set_code(t, code, tag, children, first);
		if (err == -EEXIST) {
			*why = "bad abbreviation table: an abbreviation code "
			       "defined twice";
			return -EINVAL;
		}
		if (err)
			return err;
	}
	if (!c.bad)
		return 0;
out_bad:
	*why = "bad abbreviation table";
	return -EINVAL;
}

/* The unit's abbreviations, parsed once for all units that share them. */
static int unit_abbrevs(struct dw_file *f, struct dw_unit *u, const char **why)
{
	struct dw_abbrevs *t;
	size_t i;
	int err;

	for (i = 0; i < f->nr_tables; i++) {
		t = &f->tables[i];
		if (t->off == u->abbrev_off &&
		    t->offset_size == u->offset_size &&
		    t->addr_size == u->addr_size && t->v2 == (u->version == 2)) {
			u->abbrevs = t;
			return 0;
		}
	}
	if (u->abbrev_off >= f->abbrev.size) {
		*why = "abbreviation table past the end of .debug_abbrev";
		return -EINVAL;
	}
	if (f->nr_tables == f->cap_tables) {
		uintptr_t old = (uintptr_t)f->tables;

		if (abtf_grow(f->tables, f->cap_tables, f->nr_tables + 1))
			return -ENOMEM;
		/* units point into the old array: repoint them */
		for (i = 0; i < f->nr_units; i++)
			if (f->units[i].abbrevs)
				f->units[i].abbrevs = f->tables +
					((uintptr_t)f->units[i].abbrevs - old) /
					sizeof(*f->tables);
	}
	t = &f->tables[f->nr_tables];
	memset(t, 0, sizeof(*t));
	t->off = u->abbrev_off;
	t->offset_size = u->offset_size;
	t->addr_size = u->addr_size;
	t->v2 = u->version == 2;
	f->nr_tables++;
	err = parse_abbrevs(f, t, why);
	if (err)
		return err;
	u->abbrevs = t;
	return 0;
}

/* ---- attribute values ---- */

static const char *string_at(const struct dw_sec *s, uint64_t off)
{
	return off < s->size ? (const char *)s->buf + off : NULL;
}

/*
 * Entry @idx of an array of @size-byte entries at @base in @s (DW_AT_*_base;
 * 0: none given): its position, or false if it is not wholly inside the
 * section. Without a base only a DWARF 5 split unit (.dwo) has one, just
 * past the section's one header: any other DWARF 5 unit that uses the
 * array must give it (libdw and readelf read from 0 instead, where this
 * reader once read from past the header: another string for each name).
 * GNU's DWARF 4 tables (split DWARF's) have no header: 0 is their base.
 */
static bool table_entry(const struct dw_sec *s, const struct dw_unit *u,
			uint64_t base, uint64_t idx, unsigned int size,
			uint64_t *pos)
{
	if (!base && !dw_unit__split(u) && u->version >= 5)
		return false;
	if (!base && u->version >= 5)
		base = u->offset_size == 8 ? 16 : 8;
	if (base > s->size || idx >= (s->size - base) / size)
		return false;
	*pos = base + idx * size;
	return true;
}

/* The string of index @idx; NULL with *bad set if there is none. */
static const char *strx(const struct dw_file *f, const struct dw_unit *u,
			uint64_t idx, bool *bad)
{
	const char *str;
	uint64_t pos;
	struct cur c;

	if (!u->bases_read)	/* the unit DIE itself, read for its bases */
		return NULL;
	if (!table_entry(&f->str_offsets, u, u->str_offsets_base, idx,
			 u->offset_size, &pos)) {
		*bad = true;
		return NULL;
	}
	c.p = f->str_offsets.buf + pos;
	c.end = f->str_offsets.buf + f->str_offsets.size;
	c.bad = false;
	c.big = f->big_endian;
	pos = get_n(&c, u->offset_size);
	str = c.bad ? NULL : string_at(&f->str, pos);
	*bad = !str;
	return str;
}

int dw_unit__addrx(const struct dw_file *f, const struct dw_unit *u,
		   uint64_t idx, uint64_t *val, const uint8_t **where,
		   const char **why)
{
	struct cur c;
	uint64_t pos;

	if (!f->addr.buf) {
		*why = "DW_OP_addrx without a .debug_addr section";
		return -EINVAL;
	}
	if (!table_entry(&f->addr, u, u->addr_base, idx, u->addr_size, &pos)) {
		*why = "address index past the end of .debug_addr, or in a "
		       "unit without DW_AT_addr_base";
		return -EINVAL;
	}
	c.p = f->addr.buf + pos;
	c.end = f->addr.buf + f->addr.size;
	c.bad = false;
	c.big = f->big_endian;
	*where = c.p;
	*val = get_n(&c, u->addr_size);
	return 0;
}

/* DW_FORM_string: NUL-terminated in the unit. */
static const char *inline_string(struct cur *c)
{
	const uint8_t *nul = memchr(c->p, 0, c->end - c->p);
	const char *s = (const char *)c->p;

	if (!nul) {
		c->bad = true;
		c->p = c->end;
		return NULL;
	}
	c->p = nul + 1;
	return s;
}

/* @str, *@bad set if it is NULL: an offset past the end of its section. */
static inline const char *checked(const char *str, bool *bad)
{
	if (!str)
		*bad = true;
	return str;
}

/*
 * Read the value of form @d at @c: *val the number (for a block its
 * length, for an implicit constant @implicit), *where the bytes (a block,
 * an inline string, an address to relocate). @size: the value's size when
 * the form fixes it, as the abbreviation's spec has it (form_size() of
 * the unit's table), or -1 to work it out (DW_FORM_indirect).
 */
static inline __attribute__((always_inline)) void
read_form(const struct dw_unit *u, struct cur *c, const struct dw_form *d,
	  int size, int64_t implicit, uint64_t *val, const uint8_t **where)
{
	int n = size;

	*where = c->p;
	*val = 0;
	switch (d->len) {
	case FL_PRESENT:
		*val = 1;
		return;
	case FL_IMPLICIT:
		*val = implicit;
		return;
	case FL_ULEB:
		*val = get_uleb(c);
		return;
	case FL_SLEB:
		*val = get_sleb(c);
		return;
	case FL_BLOCK:
		*val = d->size ? get_sized(c, d->size) : get_uleb(c);
		*where = c->p;
		skip(c, *val);
		return;
	case FL_CSTRING:
		*where = (const uint8_t *)inline_string(c);
		return;
	case FL_INDIRECT:
		return;		/* not a value (read_attrs() reads the form) */
	default:	/* a size the form or the unit fixes */
		if (n < 0)
			n = fixed_size(d, u->addr_size, u->offset_size,
				       u->version == 2);
		if (n > 8)
			skip(c, n);	/* data16: no constant we read */
		else
			*val = get_sized(c, n);
		return;
	}
}

/* The string of a value of kind @kind, or NULL; *bad if it leads nowhere. */
static const char *string_of(const struct dw_file *f, const struct dw_unit *u,
			     uint8_t kind, uint64_t val, const uint8_t *where,
			     bool *bad)
{
	switch (kind) {
	case FK_STRING:
		return (const char *)where;
	case FK_STRP:
		return checked(string_at(&f->str, val), bad);
	case FK_LINE_STRP:
		return checked(string_at(&f->line_str, val), bad);
	case FK_STRX:
		return strx(f, u, val, bad);
	default:
		return NULL;
	}
}

static bool is_string_kind(uint8_t kind)
{
	return kind == FK_STRING || kind == FK_STRP || kind == FK_LINE_STRP ||
	       kind == FK_STRX;
}

/*
 * A string attribute's value; *unsupported set (and nothing read) if its
 * form is not a string's, *bad if its offset or index leads to no string.
 */
static const char *read_string(const struct dw_file *f, const struct dw_unit *u,
			       struct cur *c, const struct dw_form *d, int size,
			       bool *unsupported, bool *bad)
{
	const uint8_t *where;
	uint64_t val;

	if (!d || !is_string_kind(d->kind)) {
		*unsupported = true;
		return NULL;
	}
	read_form(u, c, d, size, 0, &val, &where);
	return string_of(f, u, d->kind, val, where, bad);
}

/*
 * Decode one value of @form: constants into v->u, blocks as pointer and
 * length, references as .debug_info offsets (v->cls DW_CLASS_OTHER,
 * v->u the offset, v->block NULL), strings skipped (read_string() reads
 * them). Returns false for a form it does not know.
 */
static bool read_value(const struct dw_unit *u, struct cur *c, uint16_t form,
		       const struct dw_form *d, int size, int64_t implicit,
		       struct dw_value *v)
{
	const uint8_t *where;

	v->form = form;
	v->cls = DW_CLASS_OTHER;
	v->block = NULL;
	if (!d || d->len == FL_INDIRECT)
		return false;
	read_form(u, c, d, size, implicit, &v->u, &where);
	switch (d->kind) {
	case FK_UDATA:
		v->cls = DW_CLASS_UDATA;
		break;
	case FK_SDATA:
		v->cls = DW_CLASS_SDATA;
		break;
	case FK_BLOCK:
		v->cls = DW_CLASS_BLOCK;
		v->block = where;
		break;
	case FK_REF:
		v->u += u->off;
		break;
	case FK_ADDR:
	case FK_STRING:
		v->block = where;
		break;
	}
	return true;
}

int dw_die__const_string(const struct dw_file *f, const struct dw_die *die,
			 const char **str, const char **why)
{
	const struct dw_value *v = &die->const_value;
	const struct dw_form *d = form_of(v->form);
	bool bad = false;

	*str = NULL;
	if (!(die->have & DW_HAVE_CONST_VALUE) || !d || !is_string_kind(d->kind))
		return 0;	/* not a string */
	*str = string_of(f, die->cu, d->kind, v->u, v->block, &bad);
	if (*str)
		return 0;
	*why = "a string index or offset past the end of its section";
	return -EINVAL;
}

int dw_value__udata(const struct dw_value *v, uint64_t *val)
{
	if (v->cls != DW_CLASS_UDATA && v->cls != DW_CLASS_SDATA)
		return -EINVAL;
	*val = v->u;
	return 0;
}

static bool is_ref_form(uint16_t form)
{
	const struct dw_form *d = form_of(form);

	return d && (d->kind == FK_REF || d->kind == FK_REF_ADDR);
}

/* ---- DIEs ---- */

#define TYPE_UNITS	"a type in a type unit: -fdebug-types-section is not " \
			"supported"

/* A constant the encoder reads: set its field and bit if it is one. */
static void set_udata(struct dw_die *die, const struct dw_value *v,
		      uint64_t *field, uint32_t bit)
{
	if (dw_value__udata(v, field) == 0)
		die->have |= bit;
}

static int set_ref(struct dw_die *die, const struct dw_value *v,
		   uint64_t *field, uint32_t bit, const char **why)
{
	if (!is_ref_form(v->form)) {
		*why = v->form == DW_FORM_ref_sig8 ? TYPE_UNITS :
		       "a reference this encoder cannot follow (DWARF "
		       "supplementary file?)";
		return -EOPNOTSUPP;
	}
	*field = v->u;
	die->have |= bit;
	return 0;
}

/* What dwarf_formflag() says: only the flag forms are flags. */
static bool is_flag_set(const struct dw_value *v)
{
	return (v->form == DW_FORM_flag || v->form == DW_FORM_flag_present) &&
	       v->u;
}

/* take_attr() of an attribute of a unit DIE. */
static void take_unit_attr(struct dw_die *die, uint16_t name,
			   const struct dw_value *v)
{
	switch (name) {
	case DW_AT_language:
		set_udata(die, v, &die->language, DW_HAVE_LANGUAGE);
		break;
	case DW_AT_str_offsets_base:
		die->str_offsets_base = v->u;
		die->have |= DW_HAVE_STR_OFF_BASE;
		break;
	case DW_AT_addr_base:
	case DW_AT_GNU_addr_base:
		die->addr_base = v->u;
		die->have |= DW_HAVE_ADDR_BASE;
		break;
	case DW_AT_loclists_base:
		die->loclists_base = v->u;
		die->have |= DW_HAVE_LOCLISTS_BASE;
		break;
	case DW_AT_producer:
		die->producer = *v;
		die->have |= DW_HAVE_PRODUCER;
		break;
	case DW_AT_GNU_dwo_name:
	case DW_AT_dwo_name:
		die->dwo_name = *v;
		die->have |= DW_HAVE_DWO;
		break;
	case DW_AT_GNU_dwo_id:
		set_udata(die, v, &die->dwo_id, DW_HAVE_DWO_ID);
		break;
	case DW_AT_comp_dir:
		die->comp_dir = *v;
		die->have |= DW_HAVE_COMP_DIR;
		break;
	}
}

/* One attribute into the DIE's fields; @v is its decoded value. */
static int take_attr(struct dw_die *die, uint16_t name,
		     const struct dw_value *v, const char **why)
{
	switch (name) {
	case DW_AT_type:
		return set_ref(die, v, &die->type, DW_HAVE_TYPE, why);
	case DW_AT_abstract_origin:
	case DW_AT_specification:
		return set_ref(die, v, &die->origin, DW_HAVE_ORIGIN, why);
	case DW_AT_sibling:
		/* within the unit: libdw follows no other (dwarf_formref()) */
		if (v->form == DW_FORM_ref_addr) {
			*why = "DW_AT_sibling of form DW_FORM_ref_addr";
			return -EINVAL;
		}
		return set_ref(die, v, &die->sibling, DW_HAVE_SIBLING, why);
	case DW_AT_byte_size:
		set_udata(die, v, &die->byte_size, DW_HAVE_BYTE_SIZE);
		break;
	case DW_AT_encoding:
		set_udata(die, v, &die->encoding, DW_HAVE_ENCODING);
		break;
	case DW_AT_bit_size:
		set_udata(die, v, &die->bit_size, DW_HAVE_BIT_SIZE);
		break;
	case DW_AT_data_bit_offset:
		set_udata(die, v, &die->data_bit_off, DW_HAVE_DATA_BIT_OFF);
		break;
	case DW_AT_bit_offset:
		set_udata(die, v, &die->bit_off, DW_HAVE_BIT_OFF);
		break;
	case DW_AT_count:
		set_udata(die, v, &die->count, DW_HAVE_COUNT);
		break;
	case DW_AT_lower_bound:
		set_udata(die, v, &die->lower_bound, DW_HAVE_LOWER_BOUND);
		break;
	case DW_AT_data_member_location:
		die->member_loc = *v;
		die->have |= DW_HAVE_MEMBER_LOC;
		break;
	case DW_AT_const_value:
		die->const_value = *v;
		die->have |= DW_HAVE_CONST_VALUE;
		break;
	case DW_AT_upper_bound:
		die->upper_bound = *v;
		die->have |= DW_HAVE_UPPER_BOUND;
		break;
	case DW_AT_location:
		die->location = *v;
		die->have |= DW_HAVE_LOCATION;
		break;
	case DW_AT_declaration:
		die->declaration = is_flag_set(v);
		die->have |= DW_HAVE_DECLARATION;
		break;
	case DW_AT_external:
		die->external = is_flag_set(v);
		die->have |= DW_HAVE_EXTERNAL;
		break;
	case DW_AT_signature:	/* a stub for a type in a type unit */
		*why = TYPE_UNITS;
		return -EOPNOTSUPP;
	case DW_AT_low_pc:
		die->have |= DW_HAVE_CODE | DW_HAVE_LOW_PC;
		break;
	case DW_AT_ranges:
		die->have |= DW_HAVE_CODE;
		break;
	case DW_AT_calling_convention:
		set_udata(die, v, &die->call_conv, DW_HAVE_CALL_CONV);
		break;
	default:
		take_unit_attr(die, name, v);
		break;
	}
	return 0;
}

static struct dw_unit *unit_of(struct dw_file *f, uint64_t off)
{
	size_t lo = 0, hi = f->nr_units;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (off < f->units[mid].die)
			hi = mid;
		else if (off >= f->units[mid].end)
			lo = mid + 1;
		else
			return &f->units[mid];
	}
	return NULL;
}

/*
 * DW_AT_low_pc is an address, or the index of one that .debug_addr holds:
 * anything else is a DIE read out of step with its abbreviation (a form
 * changed in .debug_abbrev), whose DIEs past it would be misread or lost.
 * The unit DIE's own index is not checked: its DW_AT_addr_base may
 * follow it.
 */
static int check_low_pc(const struct dw_file *f, const struct dw_die *die,
			const struct dw_value *v, const char **why)
{
	const struct dw_unit *u = die->cu;
	uint64_t pos;

	switch (v->form) {
	case DW_FORM_addr:
		return 0;
	case DW_FORM_addrx: case DW_FORM_addrx1: case DW_FORM_addrx2:
	case DW_FORM_addrx3: case DW_FORM_addrx4: case DW_FORM_GNU_addr_index:
		if (!u->bases_read || (f->addr.buf &&
		    table_entry(&f->addr, u, u->addr_base, v->u, u->addr_size,
				&pos)))
			return 0;
		*why = "DW_AT_low_pc: address index past the end of "
		       ".debug_addr";
		return -EINVAL;
	default:
		*why = "DW_AT_low_pc of a form that is no address";
		return -EINVAL;
	}
}

static int read_attrs(struct dw_file *f, struct dw_die *die, struct cur *c,
		      const struct dw_abbrevs *t, const struct dw_abbrev *a,
		      const char **why)
{
	/* an abbreviation without attributes: t->specs may be NULL */
	const struct dw_spec *s = a->nr ? t->specs + a->first : NULL;
	uint32_t i;
	int err;

	for (i = 0; i < a->nr; i++, s++) {
		uint16_t form = s->form;
		int size = s->size;	/* if the form fixes it */
		const struct dw_form *d = s->fd.known ? &s->fd : NULL;
		struct dw_value v;

		if (!s->name) {		/* a run we do not read */
			skip(c, s->size);
			continue;
		}
		if (form == DW_FORM_indirect) {
			form = get_uleb(c);
			d = form_of(form);
			size = -1;
		}
		if (s->name == DW_AT_name && !s->dup) {
			bool unsupported = false, bad = false;

			die->name = read_string(f, die->cu, c, d, size,
						&unsupported, &bad);
			if (bad)
				goto out_strx;
			/*
			 * The flag follows the pointer: a second DW_AT_name
			 * that cannot be read leaves the DIE without a name
			 * rather than with the flag of the first and no string.
			 */
			if (die->name)
				die->have |= DW_HAVE_NAME;
			else
				die->have &= ~DW_HAVE_NAME;
			if (!unsupported)
				continue;
		}
		if (!read_value(die->cu, c, form, d, size, s->implicit, &v))
			goto out_form;
		if (!s->want)
			continue;
		err = s->name == DW_AT_low_pc ? check_low_pc(f, die, &v, why) : 0;
		if (!err)
			err = take_attr(die, s->name, &v, why);
		if (err)
			return err;
	}
	if (c->bad) {
		*why = "attributes past the end of the unit";
		return -EINVAL;
	}
	return 0;
out_form:
	*why = "unknown attribute form";
	return -EINVAL;
out_strx:
	*why = "a string offset or index past the end of its section "
	       "(.debug_str, .debug_line_str or .debug_str_offsets), or a "
	       "string index in a unit without DW_AT_str_offsets_base";
	return -EINVAL;
}

/* A string attribute's value @v, in unit @u: NULL if it is no string. */
static const char *value_string(const struct dw_file *f,
				const struct dw_unit *u,
				const struct dw_value *v)
{
	const struct dw_form *d = form_of(v->form);
	bool bad = false;

	if (!d || !is_string_kind(d->kind))
		return NULL;
	return string_of(f, u, d->kind, v->u, v->block, &bad);
}

/* pahole's producer_clang: the unit's DW_AT_producer contains "clang". */
static bool producer_clang(const struct dw_file *f, const struct dw_unit *u,
			   const struct dw_value *v)
{
	const char *s = value_string(f, u, v);

	return s && strstr(s, "clang");
}

/*
 * The unit DIE @cu's DW_AT_str_offsets_base, DW_AT_addr_base and
 * DW_AT_loclists_base into @u. Each names the start of the unit's array in
 * its section, just past a header (a section holds one per unit): a base
 * inside the first header would read that header's own bytes as string
 * offsets or addresses (libdw does; a base of 0 was taken here for "none
 * given"), so it is refused.
 */
/*
 * The address size of the .debug_addr header before @base (its last two
 * bytes: address_size, segment_selector_size) is the unit's: one of 4 in
 * a unit of 8 read every address as half of one (three per-CPU variables
 * lost without a word). A base past the section is table_entry()'s to
 * refuse.
 */
static int addr_header_size(struct dw_file *f, const struct dw_unit *u,
			    uint64_t base, const char **why)
{
	if (!f->addr.buf || base > f->addr.size || f->addr.buf[base - 2] ==
	    u->addr_size)
		return 0;
	snprintf(f->why, sizeof(f->why), ".debug_addr's header at 0x%llx: "
		 "address size %u, not the unit's %u",
		 (unsigned long long)base - 2, f->addr.buf[base - 2],
		 u->addr_size);
	*why = f->why;
	return -EINVAL;
}

static int unit_bases(struct dw_file *f, struct dw_unit *u,
		      const struct dw_die *cu, const char **why)
{
	const bool wide = u->offset_size == 8, v5 = u->version >= 5;

	if ((cu->have & DW_HAVE_STR_OFF_BASE) &&
	    cu->str_offsets_base < (wide ? 16 : 8))
		*why = "DW_AT_str_offsets_base inside .debug_str_offsets' "
		       "first header";
	else if ((cu->have & DW_HAVE_ADDR_BASE) && v5 &&
		 cu->addr_base < (wide ? 16 : 8))
		*why = "DW_AT_addr_base inside .debug_addr's first header";
	else if ((cu->have & DW_HAVE_LOCLISTS_BASE) &&
		 cu->loclists_base < (wide ? 20 : 12))
		*why = "DW_AT_loclists_base inside .debug_loclists' first "
		       "header";
	else
		*why = NULL;
	if (*why)
		return -EINVAL;
	if (cu->have & DW_HAVE_STR_OFF_BASE)
		u->str_offsets_base = cu->str_offsets_base;
	/* GNU's DWARF 4 .debug_addr (DW_AT_GNU_addr_base) has no header */
	if ((cu->have & DW_HAVE_ADDR_BASE) && v5 &&
	    addr_header_size(f, u, cu->addr_base, why))
		return -EINVAL;
	if (cu->have & DW_HAVE_ADDR_BASE)
		u->addr_base = cu->addr_base;
	if (cu->have & DW_HAVE_LOCLISTS_BASE)
		u->loclists_base = cu->loclists_base;
	return 0;
}

/*
 * A unit's abbreviations, and its DW_AT_str_offsets_base, which DW_FORM_strx
 * in any of its DIEs needs: read from the unit DIE before any other.
 */
static int open_unit(struct dw_file *f, struct dw_unit *u, const char **why)
{
	struct dw_die cu;
	int err;

	err = unit_abbrevs(f, u, why);
	if (err)
		return err;
	err = dw_die__read(f, u, u->die, &cu, why);
	if (err)
		return err;
	err = unit_bases(f, u, &cu, why);
	if (err)
		return err;
	u->bases_read = true;
	u->clang = (cu.have & DW_HAVE_PRODUCER) &&
		   producer_clang(f, u, &cu.producer);
	return 0;
}

static int read_die(struct dw_file *f, struct dw_unit *cu, uint64_t off,
		    struct dw_die *die, const char **why)
{
	struct dw_unit *u = cu;
	const struct dw_abbrev *a;
	struct cur c;
	uint64_t code;
	int err;

	if (!u || off < u->die || off >= u->end)
		u = (struct dw_unit *)unit_of(f, off);
	if (!u) {
		*why = "a DIE reference outside any unit";
		return -EINVAL;
	}
	if (!u->abbrevs) {
		err = open_unit(f, u, why);
		if (err)
			return err;
	}
	c.p = f->info.buf + off;
	c.end = f->info.buf + u->end;
	c.bad = false;
	c.big = f->big_endian;
	die->cu = u;
	die->off = off;
	die->have = 0;
	die->name = NULL;
	code = get_uleb(&c);
	if (c.bad) {
		*why = "truncated DIE";
		return -EINVAL;
	}
	if (!code) {		/* the end of a list of siblings */
		die->tag = 0;
		die->children = false;
		die->end = c.p - f->info.buf;
		return 0;
	}
	if (code >= u->abbrevs->nr || !u->abbrevs->v[code].tag) {
		*why = "unknown abbreviation code";
		return -EINVAL;
	}
	a = &u->abbrevs->v[code];
	die->tag = a->tag;
	die->children = a->children;
	err = read_attrs(f, die, &c, u->abbrevs, a, why);
	die->end = c.p - f->info.buf;
	return err;
}

int dw_die__read(struct dw_file *f, struct dw_unit *cu, uint64_t off,
		 struct dw_die *die, const char **why)
{
	int err = read_die(f, cu, off, die, why);

	f->bad_off = err ? off : 0;
	return err;
}

int dw_unit__skeleton(struct dw_file *f, struct dw_unit *u,
		      struct dw_skeleton *sk, const char **why)
{
	struct dw_die cu;
	int err;

	/* DWARF 5 names its skeletons; GNU's DWARF 4 ones have a dwo name */
	if (u->version >= 5 && u->unit_type != DW_UT_skeleton)
		return 0;
	err = dw_die__read(f, u, u->die, &cu, why);
	if (err)
		return err;
	if (!(cu.have & DW_HAVE_DWO))
		goto out_no_dwo;
	sk->dwo_name = value_string(f, u, &cu.dwo_name);
	if (!sk->dwo_name || !*sk->dwo_name)
		goto out_no_dwo;
	sk->comp_dir = cu.have & DW_HAVE_COMP_DIR ?
		       value_string(f, u, &cu.comp_dir) : NULL;
	sk->dwo_id = u->dwo_id;
	sk->addr_base = u->addr_base;
	if (u->version >= 5)
		return 1;
	if (cu.have & DW_HAVE_DWO_ID) {
		sk->dwo_id = cu.dwo_id;
		return 1;
	}
	*why = "a skeleton unit without DW_AT_GNU_dwo_id";
	return -EINVAL;
out_no_dwo:
	if (u->version < 5)
		return 0;
	*why = "a skeleton unit without a DW_AT_dwo_name string";
	return -EINVAL;
}

int dw_unit__dwo_id(struct dw_file *f, struct dw_unit *u, uint64_t *id,
		    const char **why)
{
	struct dw_die cu;
	int err;

	if (u->version >= 5) {
		*id = u->dwo_id;
		return u->unit_type == DW_UT_split_compile ? 0 : 1;
	}
	err = dw_die__read(f, u, u->die, &cu, why);
	if (err)
		return err;
	*id = cu.dwo_id;
	return cu.have & DW_HAVE_DWO_ID ? 0 : 1;
}

int dw_die__child(struct dw_file *f, const struct dw_die *die,
		  struct dw_die *child, const char **why)
{
	int err;

	if (!die->children)
		return 1;
	if (die->end >= die->cu->end) {	/* not even the null entry */
		*why = "the unit ends before the DIE's children";
		return -EINVAL;
	}
	err = dw_die__read(f, die->cu, die->end, child, why);
	if (err)
		return err;
	return child->tag ? 0 : 1;
}

/* Past @die and all its descendants: the offset of what follows. */
static int skip_tree(struct dw_file *f, const struct dw_die *die,
		     uint64_t *next, const char **why)
{
	struct dw_die d = *die;
	uint64_t depth = 0;
	int err;

	for (;;) {
		uint64_t off;

		if (d.tag && (d.have & DW_HAVE_SIBLING)) {
			off = d.sibling;
		} else if (d.tag && d.children) {
			off = d.end;
			depth++;
		} else {
			off = d.end;
			if (!d.tag && depth-- == 0) {
				*why = "DIE list ends early";
				return -EINVAL;
			}
		}
		if (!depth) {
			*next = off;
			return 0;
		}
		if (off >= d.cu->end) {
			*why = "a list of DIEs runs past the end of its unit";
			return -EINVAL;
		}
		if (off <= d.off) {
			*why = "DW_AT_sibling points backwards";
			return -EINVAL;
		}
		err = dw_die__read(f, d.cu, off, &d, why);
		if (err)
			return err;
	}
}

/* Whether the bytes of .debug_info from @from to @to are all zero. */
static bool zeros(const struct dw_file *f, uint64_t from, uint64_t to)
{
	for (; from < to; from++)
		if (f->info.buf[from])
			return false;
	return true;
}

int dw_unit__check_end(const struct dw_file *f, const struct dw_die *cu,
		       uint64_t end, const char **why)
{
	const struct dw_unit *u = cu->cu;

	/* what follows the tree may be padding, nothing else */
	if (end > u->end || !zeros(f, end, u->end)) {
		*why = cu->children ?
		       "the DIE tree ends before its unit does, with more "
		       "DIEs after it" :
		       "the unit DIE has no children, but DIEs follow it";
		return -EINVAL;
	}
	return 0;
}

/* The DW_AT_sibling of @die, if it has one, names @end: where its subtree ends. */
static int check_sibling(const struct dw_die *die, uint64_t end,
			 const char **why)
{
	if ((die->have & DW_HAVE_SIBLING) && die->sibling != end) {
		*why = "DW_AT_sibling does not point past the DIE's subtree";
		return -EINVAL;
	}
	return 0;
}

int dw_die__subtree_end(struct dw_file *f, const struct dw_die *die,
			uint64_t *end, const char **why)
{
	uint64_t *want = NULL, off = die->end;
	size_t cap = 0, depth = 0;
	struct dw_die d = *die;
	int err = 0;

	/* per open level, where its DIE's DW_AT_sibling points (or ~0) */
	if (die->children) {
		if (abtf_grow(want, cap, 1))
			return -ENOMEM;
		want[depth++] = (die->have & DW_HAVE_SIBLING) ? die->sibling :
				~(uint64_t)0;
	} else {
		err = check_sibling(die, off, why);
	}
	while (!err && depth) {
		if (off >= die->cu->end) {
			*why = "a list of DIEs runs past the end of its unit";
			err = -EINVAL;
			break;
		}
		err = dw_die__read(f, die->cu, off, &d, why);
		if (err)
			break;
		off = d.end;
		if (!d.tag) {		/* the list of want[depth - 1] ends */
			if (want[--depth] != ~(uint64_t)0 &&
			    want[depth] != off) {
				*why = "DW_AT_sibling does not point past the "
				       "DIE's subtree";
				err = -EINVAL;
			}
		} else if (d.children) {
			if (abtf_grow(want, cap, depth + 1)) {
				err = -ENOMEM;
				break;
			}
			want[depth++] = (d.have & DW_HAVE_SIBLING) ?
					d.sibling : ~(uint64_t)0;
		} else {
			err = check_sibling(&d, off, why);
		}
	}
	free(want);
	if (!err)
		*end = off;
	return err;
}

int dw_die__next_at(struct dw_file *f, struct dw_die *die, uint64_t end,
		    const char **why)
{
	struct dw_unit *u = die->cu;
	int err = check_sibling(die, end, why);
	struct dw_die next;

	if (err)
		return err;
	if (die->off == u->die)	/* no siblings: its tree ends the unit */
		return 1;
	if (end >= u->end) {
		*why = "the unit ends before its list of DIEs does";
		return -EINVAL;
	}
	err = dw_die__read(f, u, end, &next, why);
	if (err)
		return err;	/* @die stays, f->bad_off names the DIE */
	*die = next;
	return die->tag ? 0 : 1;
}

int dw_die__sibling(struct dw_file *f, struct dw_die *die, const char **why)
{
	struct dw_unit *u = die->cu;
	uint64_t next;
	int err;

	if (die->off == u->die)	/* no siblings: its tree ends the unit */
		return 1;
	if (die->have & DW_HAVE_SIBLING) {
		next = die->sibling;
		if (next <= die->off) {
			*why = "DW_AT_sibling points backwards";
			return -EINVAL;
		}
	} else if (die->children) {
		err = skip_tree(f, die, &next, why);
		if (err)
			return err;
	} else {
		next = die->end;
	}
	/*
	 * Any list of DIEs but the unit DIE's (checked above) ends with a
	 * null entry inside the unit; a unit that ends first is cut short
	 * (DIEs would be lost without a word).
	 */
	if (next >= u->end) {
		*why = "the unit ends before its list of DIEs does";
		return -EINVAL;
	}
	err = dw_die__read(f, u, next, die, why);
	if (err)
		return err;
	return die->tag ? 0 : 1;
}

int dw_die__integrate(struct dw_file *f, struct dw_die *die,
		      const char **why)
{
	const uint32_t want = DW_HAVE_NAME | DW_HAVE_TYPE | DW_HAVE_EXTERNAL;
	struct dw_die o;
	uint64_t off;
	int i, err;

	if (!(die->have & DW_HAVE_ORIGIN))
		return 0;
	off = die->origin;
	for (i = 0; i < 16 && (die->have & want) != want; i++) {
		err = dw_die__read(f, die->cu, off, &o, why);
		if (err)
			return err;
		if (!(die->have & DW_HAVE_NAME) && (o.have & DW_HAVE_NAME)) {
			die->name = o.name;
			die->have |= DW_HAVE_NAME;
		}
		if (!(die->have & DW_HAVE_TYPE) && (o.have & DW_HAVE_TYPE)) {
			die->type = o.type;
			die->have |= DW_HAVE_TYPE;
		}
		if (!(die->have & DW_HAVE_EXTERNAL) &&
		    (o.have & DW_HAVE_EXTERNAL)) {
			die->external = o.external;
			die->have |= DW_HAVE_EXTERNAL;
		}
		if (!(o.have & DW_HAVE_ORIGIN))
			break;
		off = o.origin;
	}
	return 0;
}
