/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The encoder's own reader of relocated DWARF 2-5 (dwarf_read.c): units,
 * abbreviations and DIEs, each DIE's attributes decoded in one pass into
 * the few fields the encoder reads. See the comment at the top of
 * dwarf_read.c for why it is not libdw.
 */
#ifndef __ABTF_DWARF_READ_H
#define __ABTF_DWARF_READ_H

#include <dwarf.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#ifndef DW_TAG_LLVM_annotation
#define DW_TAG_LLVM_annotation	0x6000	/* clang's btf_*_tag */
#endif

struct dw_sec {
	const uint8_t *buf;
	size_t size;
};

/* What a DWARF form is (dwarf_read.c's dw_forms[]): layout and kind. */
struct dw_form {
	uint8_t len;	/* enum form_len */
	uint8_t size;	/* FL_FIXED: bytes; FL_BLOCK: bytes of the length */
	uint8_t kind;	/* enum form_kind */
	bool known;
};

struct dw_spec {
	uint16_t name;		/* DW_AT_*; 0: skip @size bytes */
	uint16_t form;		/* DW_FORM_* */
	uint32_t size;		/* the value's size if fixed by the form */
	bool want;		/* the encoder reads this attribute */
	bool dup;		/* its name came before in the abbreviation:
				 * read past (libdw takes the first) */
	struct dw_form fd;	/* the form's, looked up once (known: false for
				 * a form the reader does not know) */
	int64_t implicit;	/* DW_FORM_implicit_const's value */
};

struct dw_abbrev {
	uint32_t tag;		/* 0: no such code */
	bool children;
	uint32_t first;		/* index of its first spec in dw_abbrevs.specs */
	uint32_t nr;		/* number of specs */
};

/*
 * One abbreviation table, indexed by code, for units of one offset size,
 * address size and DWARF version 2 or not (the sizes of the forms depend
 * on them): runs of attributes the encoder does not read, of fixed sizes,
 * are merged into one spec that skips them all.
 */
struct dw_abbrevs {
	uint64_t off;		/* in .debug_abbrev */
	uint8_t offset_size, addr_size;
	bool v2;
	struct dw_abbrev *v;
	size_t nr;		/* codes 0..nr-1 */
	struct dw_spec *specs;
	uint32_t nr_specs;
	bool annotations;	/* a code for DW_TAG_LLVM_annotation (clang) */
};

struct dw_unit {
	uint64_t off;		/* of the unit header, in .debug_info */
	uint64_t die;		/* of the unit DIE */
	uint64_t end;		/* one past the unit */
	uint8_t version;
	uint8_t unit_type;	/* DW_UT_*; DWARF 2-4 compile units too */
	uint8_t addr_size;
	uint8_t offset_size;	/* 4: 32-bit DWARF, 8: 64-bit DWARF */
	bool dwo;		/* of a .dwo file (dw_file__open_dwo()) */
	uint64_t dwo_id;	/* DWARF 5 skeleton and split units' header's */
	uint64_t abbrev_off;
	uint64_t str_offsets_base;
	uint64_t addr_base;	/* DW_AT_addr_base: into .debug_addr (a
				 * split unit's: its skeleton's) */
	uint64_t loclists_base;	/* DW_AT_loclists_base: DW_FORM_loclistx */
	bool bases_read;	/* the three above, from the unit DIE */
	bool clang;		/* DW_AT_producer names clang (func_facts.c) */
	const struct dw_abbrevs *abbrevs;	/* NULL until first read */
};

struct dw_file {
	struct dw_sec info, abbrev, str, line_str, str_offsets, addr;
	struct dw_sec loc, loclists;	/* parameter locations (func_facts.c) */
	bool big_endian;
	bool dwo;		/* a .dwo file: its .debug_addr the skeleton's */
	uint8_t addr_size;	/* the machine's: 4 (ELFCLASS32) or 8 */
	struct dw_unit *units;
	size_t nr_units;
	struct dw_abbrevs *tables;
	size_t nr_tables, cap_tables;
	uint64_t bad_off;	/* the DIE the last failed read was at */
	char why[128];		/* a reason with figures, for *why */
};

/* What a DIE has; bit i is set when the attribute was there. */
enum dw_have {
	DW_HAVE_NAME		= 1 << 0,
	DW_HAVE_TYPE		= 1 << 1,
	DW_HAVE_BYTE_SIZE	= 1 << 2,
	DW_HAVE_ENCODING	= 1 << 3,
	DW_HAVE_BIT_SIZE	= 1 << 4,
	DW_HAVE_DATA_BIT_OFF	= 1 << 5,
	DW_HAVE_BIT_OFF		= 1 << 6,
	DW_HAVE_MEMBER_LOC	= 1 << 7,
	DW_HAVE_CONST_VALUE	= 1 << 8,
	DW_HAVE_UPPER_BOUND	= 1 << 9,
	DW_HAVE_COUNT		= 1 << 10,
	DW_HAVE_LOWER_BOUND	= 1 << 11,
	DW_HAVE_LOCATION	= 1 << 12,
	DW_HAVE_SIBLING		= 1 << 13,
	DW_HAVE_ORIGIN		= 1 << 14,
	DW_HAVE_DECLARATION	= 1 << 15,
	DW_HAVE_EXTERNAL	= 1 << 16,
	DW_HAVE_LANGUAGE	= 1 << 17,
	DW_HAVE_STR_OFF_BASE	= 1 << 18,
	DW_HAVE_DWO		= 1 << 19,	/* DW_AT_[GNU_]dwo_name */
	DW_HAVE_ADDR_BASE	= 1 << 20,
	DW_HAVE_CODE		= 1 << 21,	/* DW_AT_low_pc or DW_AT_ranges */
	DW_HAVE_CALL_CONV	= 1 << 22,
	DW_HAVE_LOCLISTS_BASE	= 1 << 23,
	DW_HAVE_PRODUCER	= 1 << 24,
	DW_HAVE_LOW_PC		= 1 << 25,	/* DW_AT_low_pc itself */
	DW_HAVE_DWO_ID		= 1 << 26,	/* DW_AT_GNU_dwo_id (DWARF 4) */
	DW_HAVE_COMP_DIR	= 1 << 27,
};

/* A value as its form gives it. */
enum dw_class {
	DW_CLASS_NONE,		/* a form this reader does not decode */
	DW_CLASS_UDATA,		/* data1/2/4/8, udata */
	DW_CLASS_SDATA,		/* sdata, implicit_const */
	DW_CLASS_BLOCK,		/* block*, exprloc */
	DW_CLASS_OTHER,		/* anything else (a reference, data16, ...) */
};

struct dw_value {
	uint8_t cls;		/* enum dw_class */
	uint16_t form;
	uint64_t u;		/* UDATA, SDATA (two's complement); BLOCK: length */
	const uint8_t *block;	/* BLOCK */
};

struct dw_die {
	struct dw_unit *cu;
	uint64_t off;		/* in .debug_info */
	uint64_t end;		/* just past its attributes */
	uint32_t tag;		/* 0: the null entry ending a list of siblings */
	bool children;
	uint32_t have;		/* DW_HAVE_*; only those fields are set */
	const char *name;
	uint64_t type;		/* .debug_info offset of the DIE DW_AT_type names */
	uint64_t origin;	/* DW_AT_abstract_origin or DW_AT_specification */
	uint64_t sibling;
	uint64_t byte_size, encoding, bit_size, data_bit_off, bit_off;
	uint64_t count, lower_bound, language, str_offsets_base, addr_base;
	uint64_t call_conv;	/* DW_AT_calling_convention */
	uint64_t loclists_base;
	uint64_t dwo_id;	/* DW_AT_GNU_dwo_id */
	bool declaration, external;
	struct dw_value member_loc, const_value, upper_bound, location;
	struct dw_value producer, dwo_name, comp_dir;
};

/*
 * What follows ".debug" in a debug section's name ("_info"), GNU's
 * compressed ".zdebug_info" included; NULL for any other section.
 */
const char *dw_debug_suffix(const char *name);

/*
 * Take the sections of the relocated DWARF of @elf and read the unit
 * headers. 0, -ENODATA (no .debug_info), -EINVAL (corrupt: *why says
 * what) or -ENOMEM.
 */
int dw_file__open(struct dw_file *f, Elf *elf, const char **why);
/*
 * The same for the .dwo file @elf of a split object: its sections are
 * the .debug_*.dwo ones, and its units' addresses are entries of the
 * skeleton object's relocated .debug_addr, @addr, from the skeleton's
 * base @addr_base. @addr must outlive @f.
 */
int dw_file__open_dwo(struct dw_file *f, Elf *elf, const struct dw_sec *addr,
		      uint64_t addr_base, const char **why);
void dw_file__close(struct dw_file *f);

/* What a skeleton unit says of its split unit. */
struct dw_skeleton {
	const char *dwo_name;	/* DW_AT_dwo_name, DW_AT_GNU_dwo_name */
	const char *comp_dir;	/* NULL if it has none */
	uint64_t dwo_id;
	uint64_t addr_base;
};

/*
 * Whether @u is a skeleton unit: DWARF 5's DW_UT_skeleton, or a DWARF 4
 * unit with GNU's DW_AT_GNU_dwo_name. 1 with @sk filled in, 0, or < 0
 * (*why says what is wrong with its unit DIE).
 */
int dw_unit__skeleton(struct dw_file *f, struct dw_unit *u,
		      struct dw_skeleton *sk, const char **why);
/*
 * The dwo_id of the split unit @u of a .dwo (DWARF 5's header, GNU's
 * DW_AT_GNU_dwo_id): 0 with *@id, 1 if it has none, or < 0 (*why).
 */
int dw_unit__dwo_id(struct dw_file *f, struct dw_unit *u, uint64_t *id,
		    const char **why);

/*
 * Read the DIE at .debug_info offset @off into @die, in unit @cu if it is
 * there (else the unit holding @off). 0, -EINVAL (*why says what),
 * -EOPNOTSUPP (a form this reader cannot decode: *why) or -ENOMEM.
 */
int dw_die__read(struct dw_file *f, struct dw_unit *cu, uint64_t off,
		 struct dw_die *die, const char **why);
/* The first child of @die into @child: 0, 1 if it has none, or < 0. */
int dw_die__child(struct dw_file *f, const struct dw_die *die,
		  struct dw_die *child, const char **why);
/* The next sibling of @die, in place: 0, 1 after the last, or < 0. */
int dw_die__sibling(struct dw_file *f, struct dw_die *die, const char **why);
/*
 * Where @die's subtree ends (past the null entry of its list of children,
 * or @die's own end if it has none) into *@end, read DIE by DIE without
 * following DW_AT_sibling; every DW_AT_sibling met on the way (@die's too)
 * must name the end of its own DIE's subtree, or a DIE would be passed over
 * unread by whoever follows it (libdw does). 0, -EINVAL (*why) or -ENOMEM.
 */
int dw_die__subtree_end(struct dw_file *f, const struct dw_die *die,
			uint64_t *end, const char **why);
/*
 * The next sibling of @die, in place, for a walker that read @die's subtree
 * and knows where it ends, @end: 0, 1 after the last, or < 0 (-EINVAL when
 * @die's DW_AT_sibling names another place than @end).
 */
int dw_die__next_at(struct dw_file *f, struct dw_die *die, uint64_t end,
		    const char **why);
/*
 * Whether the unit DIE @cu's tree, read to @end (past the null entry of
 * its list of children, or past @cu if it has none), takes its whole
 * unit: only zero padding may follow. A tree that ends early (a DIE read
 * with another abbreviation than written) would lose every DIE after it
 * without a word. 0, or -EINVAL with *@why.
 */
int dw_unit__check_end(const struct dw_file *f, const struct dw_die *cu,
		       uint64_t end, const char **why);
/*
 * Fill @die's missing name, type and external flag from the DIEs its
 * DW_AT_abstract_origin / DW_AT_specification chain names (what libdw's
 * dwarf_attr_integrate() does for those). 0 or < 0.
 */
int dw_die__integrate(struct dw_file *f, struct dw_die *die,
		      const char **why);

/*
 * Entry @idx of unit @u's addresses in .debug_addr (DW_OP_addrx,
 * DW_FORM_addrx*): its value into *@val and, into *@where, where its
 * relocated bytes are (for abtf__dwarf_addr_section()). 0 or -EINVAL
 * (*why says what: no .debug_addr, an index past its end).
 */
int dw_unit__addrx(const struct dw_file *f, const struct dw_unit *u,
		   uint64_t idx, uint64_t *val, const uint8_t **where,
		   const char **why);

/*
 * @die's DW_AT_const_value as a string (clang's DW_TAG_LLVM_annotation):
 * 0 with *@str NULL if it has none in a string form, 0 with the string,
 * or -EINVAL (*why says what) if its index or offset leads nowhere.
 */
int dw_die__const_string(const struct dw_file *f, const struct dw_die *die,
			 const char **str, const char **why);

/*
 * Whether DIEs of @u may have DW_TAG_LLVM_annotation children (clang's
 * btf_type_tag and btf_decl_tag): its abbreviations have that tag. Once
 * a DIE of @u has been read.
 */
static inline bool dw_unit__annotations(const struct dw_unit *u)
{
	return u->abbrevs && u->abbrevs->annotations;
}

/*
 * A split unit (of a .dwo): its tables' bases are implied, not given
 * (just past the section's one header; GNU's DWARF 4 tables have none).
 */
static inline bool dw_unit__split(const struct dw_unit *u)
{
	return u->dwo || u->unit_type == DW_UT_split_compile ||
	       u->unit_type == DW_UT_split_type;
}

/* @v as an unsigned constant, as dwarf_formudata() reads it: 0 or -EINVAL. */
int dw_value__udata(const struct dw_value *v, uint64_t *val);

/*
 * The ULEB128 at *@p, before @end: true with *@p past it, false (*@p at
 * @end, *@v 0) if it does not end there. Bits past 64 are dropped. The
 * one reader of the form for the DIE reader, location expressions and
 * location lists.
 */
static inline bool dw_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return true;
	}
	*v = 0;
	return false;
}

#endif /* __ABTF_DWARF_READ_H */
