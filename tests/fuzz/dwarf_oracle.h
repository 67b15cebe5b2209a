/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The encoder fuzzer's oracle (issue 36): an object the encoder took with
 * exit 0 must be one that elfutils' libdw reads as the encoder's own DIE
 * reader (encode/dwarf_read.c) does, and nothing libdw finds may be lost:
 *
 * - tree: every unit walked depth first by both readers, DIE by DIE: the
 *   same offsets, tags, children flags and names, and neither reader
 *   failing where the other goes on;
 * - end: libdw's tree takes its whole unit: from the end of the last DIE
 *   libdw walks (its attributes measured here from libdw's values, not by
 *   our reader) to the unit's end, only zero bytes (null entries, padding);
 * - types: every named struct, union, enum and typedef libdw walks has a
 *   BTF type of its name in the encoder's BTF.
 *
 * A Rust unit (DW_AT_language, as both read it) is left out, as the
 * encoder leaves it out unread (pahole's --lang_exclude=rust).
 *
 * The three mutants of issue 36 (a duplicate abbreviation code, a unit DIE
 * whose children flag was cleared, a DIE read with another abbreviation)
 * encoded with exit 0 before the reader was fixed; `end` finds the last
 * two and `tree` the first (tests/badinput.bats runs the oracle on them).
 *
 * Header-only: included by fuzz-encode.c (libFuzzer) and dwarf-oracle.c
 * (a command for the tests), both linked with the library's archive.
 */
#ifndef __ABTF_DWARF_ORACLE_H
#define __ABTF_DWARF_ORACLE_H

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "encode/dwarf_read.h"
#include "encode/dwarf_reloc.h"

#ifndef DW_LANG_Rust
#define DW_LANG_Rust	0x1c
#endif

/* Deeper trees are not walked further (an input of 64 KiB has none). */
#define ORACLE_MAX_DEPTH	512

struct oracle {
	Dwarf *dw;
	struct dw_file f;
	const struct btf *btf;	/* NULL: no type check */
	const uint8_t *info;	/* .debug_info, relocated */
	size_t info_size;
	char *why;
	size_t why_size;
};

static inline __attribute__((format(printf, 2, 3))) int
oracle_fail(struct oracle *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->why, o->why_size, fmt, ap);
	va_end(ap);
	return 1;
}

static inline size_t oracle_uleb_len(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *s = p;

	while (p < end && (*p & 0x80))
		p++;
	return p < end ? (size_t)(p - s) + 1 : (size_t)(end - s);
}

/*
 * The bytes of @a's value, from libdw's reading of it: blocks and strings
 * by libdw's own accessors, the rest by the form's size in this unit.
 * 0 for a form whose value is not in .debug_info (implicit_const,
 * flag_present) or that is not known here.
 */
static inline size_t oracle_value_len(Dwarf_Attribute *a, uint8_t offset_size,
				      uint8_t addr_size, Dwarf_Half version,
				      const uint8_t *end)
{
	const uint8_t *p = a->valp;
	Dwarf_Block b;

	switch (a->form) {
	case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4:
	case DW_FORM_block: case DW_FORM_exprloc:
		if (dwarf_formblock(a, &b))
			return 0;
		return (size_t)(b.data - p) + b.length;
	case DW_FORM_string:
		return strnlen((const char *)p, end - p) + 1;
	case DW_FORM_udata: case DW_FORM_sdata: case DW_FORM_ref_udata:
	case DW_FORM_strx: case DW_FORM_addrx: case DW_FORM_loclistx:
	case DW_FORM_rnglistx: case DW_FORM_GNU_addr_index:
	case DW_FORM_GNU_str_index:
		return oracle_uleb_len(p, end);
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag:
	case DW_FORM_strx1: case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2:
	case DW_FORM_addrx2:
		return 2;
	case DW_FORM_strx3: case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4:
	case DW_FORM_addrx4: case DW_FORM_ref_sup4:
		return 4;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8:
	case DW_FORM_ref_sup8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_addr:
		return addr_size;
	case DW_FORM_ref_addr:
		return version == 2 ? addr_size : offset_size;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset:
	case DW_FORM_strp_sup: case DW_FORM_GNU_ref_alt:
	case DW_FORM_GNU_strp_alt:
		return offset_size;
	default:
		return 0;
	}
}

struct oracle_end {
	const uint8_t *lo, *hi;	/* .debug_info's bytes */
	const uint8_t *end;	/* past the last value seen */
	uint8_t offset_size, addr_size;
	Dwarf_Half version;
};

static inline int oracle_attr_end(Dwarf_Attribute *a, void *arg)
{
	struct oracle_end *e = arg;
	const uint8_t *p = a->valp;

	if (p < e->lo || p >= e->hi)	/* implicit_const: in .debug_abbrev */
		return DWARF_CB_OK;
	p += oracle_value_len(a, e->offset_size, e->addr_size, e->version,
			      e->hi);
	if (p > e->end)
		e->end = p;
	return DWARF_CB_OK;
}

/* Where libdw's @die ends, as an offset in .debug_info. */
static inline uint64_t oracle_die_end(struct oracle *o, Dwarf_Die *die)
{
	Dwarf_Half version = 0;
	uint8_t addr_size = 8, offset_size = 4;
	struct oracle_end e = {
		.lo = o->info,
		.hi = o->info + o->info_size,
	};
	const uint8_t *code = die->addr;

	dwarf_cu_info(die->cu, &version, NULL, NULL, NULL, NULL, &addr_size,
		      &offset_size);
	e.version = version;
	e.addr_size = addr_size;
	e.offset_size = offset_size;
	e.end = code + oracle_uleb_len(code, e.hi);
	dwarf_getattrs(die, oracle_attr_end, &e, 0);
	return e.end - o->info;
}

static inline bool oracle_is_type(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_enumeration_type || tag == DW_TAG_typedef;
}

/* One DIE read by both: the same DIE, and its type kept if named. */
static inline int oracle_same(struct oracle *o, Dwarf_Die *a,
			      const struct dw_die *b, bool rust)
{
	uint64_t off = dwarf_dieoffset(a);
	Dwarf_Attribute at;
	/* its own name: dwarf_diename() follows DW_AT_abstract_origin */
	const char *name = dwarf_formstring(dwarf_attr(a, DW_AT_name, &at));
	const char *ours = (b->have & DW_HAVE_NAME) ? b->name : NULL;

	if (off != b->off)
		return oracle_fail(o, "libdw reads a DIE at 0x%" PRIx64
				   ", the encoder at 0x%" PRIx64, off, b->off);
	if ((uint32_t)dwarf_tag(a) != b->tag)
		return oracle_fail(o, "DIE 0x%" PRIx64 ": tag 0x%x for libdw, "
				   "0x%x for the encoder", off, dwarf_tag(a),
				   b->tag);
	if ((dwarf_haschildren(a) > 0) != b->children)
		return oracle_fail(o, "DIE 0x%" PRIx64 ": children %s for "
				   "libdw only", off, b->children ? "absent" :
				   "present");
	if (!name != !ours || (name && strcmp(name, ours)))
		return oracle_fail(o, "DIE 0x%" PRIx64 ": named '%s' by "
				   "libdw, '%s' by the encoder", off,
				   name ?: "", ours ?: "");
	if (o->btf && name && !rust && oracle_is_type(b->tag) &&
	    btf__find_by_name(o->btf, name) < 0)
		return oracle_fail(o, "DIE 0x%" PRIx64 ": type '%s' is not "
				   "in the BTF", off, name);
	return 0;
}

/*
 * After the last DIE of a unit (@last, NULL: the unit DIE alone), only
 * zero bytes may follow to the unit's end @end.
 */
static inline int oracle_check_end(struct oracle *o, Dwarf_Die *last,
				   uint64_t end)
{
	uint64_t p = oracle_die_end(o, last);

	if (end > o->info_size)
		end = o->info_size;
	for (; p < end; p++)
		if (o->info[p])
			return oracle_fail(o, "the tree libdw walks ends at "
					   "0x%" PRIx64 ", before its unit "
					   "(to 0x%" PRIx64 ")", p, end);
	return 0;
}

/* Walk one unit's tree depth first with both readers, side by side. */
static inline int oracle_unit(struct oracle *o, Dwarf_Die *cudie,
			      struct dw_unit *u, uint64_t end)
{
	Dwarf_Die stack_a[ORACLE_MAX_DEPTH], last;
	struct dw_die stack_b[ORACLE_MAX_DEPTH];
	Dwarf_Word lang = 0;
	Dwarf_Attribute at;
	const char *why = "";
	int depth = 0, ra, rb;
	bool rust;

	rust = dwarf_formudata(dwarf_attr(cudie, DW_AT_language, &at),
			       &lang) == 0 && lang == DW_LANG_Rust;
	/* the encoder leaves Rust units out unread, as pahole does */
	if (rust && dw_die__read(&o->f, u, u->die, &stack_b[0], &why) == 0 &&
	    (stack_b[0].have & DW_HAVE_LANGUAGE) &&
	    stack_b[0].language == DW_LANG_Rust)
		return 0;
	stack_a[0] = *cudie;
	if (dw_die__read(&o->f, u, u->die, &stack_b[0], &why))
		return oracle_fail(o, "unit DIE 0x%" PRIx64 ": the encoder's "
				   "reader fails (%s), libdw's does not",
				   u->die, why);
	last = *cudie;
	for (;;) {
		Dwarf_Die *a = &stack_a[depth];
		struct dw_die *b = &stack_b[depth];

		if (oracle_same(o, a, b, rust))
			return 1;
		last = *a;
		/* down */
		if (depth + 1 < ORACLE_MAX_DEPTH) {
			ra = dwarf_child(a, &stack_a[depth + 1]);
			rb = dw_die__child(&o->f, b, &stack_b[depth + 1], &why);
			if (ra < 0 || rb < 0 || ra != rb)
				goto differ;
			if (ra == 0) {
				depth++;
				continue;
			}
		}
		/* across, or up and across */
		for (;;) {
			if (depth == 0)
				return oracle_check_end(o, &last, end);
			ra = dwarf_siblingof(&stack_a[depth], &stack_a[depth]);
			rb = dw_die__sibling(&o->f, &stack_b[depth], &why);
			if (ra < 0 || rb < 0 || ra != rb)
				goto differ;
			if (ra == 0)
				break;
			depth--;
		}
	}
differ:
	return oracle_fail(o, "after DIE 0x%" PRIx64 ": libdw %s, the "
			   "encoder's reader %s%s", dwarf_dieoffset(&last),
			   ra < 0 ? "fails" : ra ? "ends the list" : "goes on",
			   rb < 0 ? "fails: " : rb ? "ends the list" :
			   "goes on", rb < 0 ? why : "");
}

static inline int oracle_units(struct oracle *o)
{
	Dwarf_Off off = 0, next;
	size_t hsize, i = 0;

	while (dwarf_next_unit(o->dw, off, &next, &hsize, NULL, NULL, NULL,
			       NULL, NULL, NULL) == 0) {
		Dwarf_Die cudie;

		if (i == o->f.nr_units || o->f.units[i].off != off)
			return oracle_fail(o, "libdw reads a unit at 0x%" PRIx64
					   " the encoder does not", off);
		if (!dwarf_offdie(o->dw, off + hsize, &cudie))
			return oracle_fail(o, "unit at 0x%" PRIx64 ": libdw "
					   "cannot read its DIE: %s", off,
					   dwarf_errmsg(-1));
		if (oracle_unit(o, &cudie, &o->f.units[i], next))
			return 1;
		off = next;
		i++;
	}
	if (i != o->f.nr_units)
		return oracle_fail(o, "the encoder reads %zu units, libdw %zu",
				   o->f.nr_units, i);
	return 0;
}

static inline const uint8_t *oracle_info(Elf *elf, size_t *size)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		/* the section libdw and the encoder read: the first with data */
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & SHF_GROUP) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".debug_info"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || !d->d_size)
			continue;
		*size = d->d_size;
		return d->d_buf;
	}
	return NULL;
}

/*
 * Check the object @path that the encoder took, and its BTF @btf (NULL:
 * the DIE trees alone): 0 when libdw agrees, 1 with @why (@size bytes)
 * saying where it does not, -1 when the object cannot be opened at all.
 */
static inline int dwarf_oracle(const char *path, const struct btf *btf,
			       char *why, size_t size)
{
	struct oracle o = { .btf = btf, .why = why, .why_size = size };
	struct abtf_dwarf_rel rel;
	const char *fwhy = "";
	Elf *elf;
	int fd, ret;

	snprintf(why, size, "agree");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf = abtf__dwarf_open(fd, &rel, why, size);
	if (!elf) {
		close(fd);
		return 1;
	}
	o.info = oracle_info(elf, &o.info_size);
	o.dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!o.info || !o.dw)
		ret = oracle_fail(&o, "libdw cannot read the DWARF: %s",
				  dwarf_errmsg(-1));
	else if (dw_file__open(&o.f, elf, &fwhy))
		ret = oracle_fail(&o, "the encoder's reader fails: %s", fwhy);
	else
		ret = oracle_units(&o);
	dw_file__close(&o.f);
	if (o.dw)
		dwarf_end(o.dw);
	elf_end(elf);
	abtf__dwarf_rel_free(&rel);
	close(fd);
	return ret;
}

#endif /* __ABTF_DWARF_ORACLE_H */
