/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-object encoder's modules, each behind its own type, and what
 * encoder.c (the public API and the pipeline, see the essay atop it)
 * calls of them, in the order it calls them:
 *
 *  enc_obj.c      the object, open read-only: its ELF header, its sections
 *  enc_syms.c     its defined FUNC and OBJECT symbols, by name
 *  enc_dwarf.c    its DWARF, relocated and decompressed (dwarf_reloc.c);
 *                 where an address is
 *  enc_select.c   the DWARF walk: which functions and variables get a FUNC
 *                 or VAR (and their symbol), which functions are states
 *  enc_datasec.c  a DATASEC per section of per-CPU VARs
 *  enc_funcext.c  pahole 1.31's per-function facts: the states, the
 *                 clones of the extension and their FUNCs
 *  enc_slots.c    the .debug_btf_addr group: a slot per FUNC and VAR, the
 *                 FUNCs' flags
 *
 * A module writes only its own struct; what it reads of another's is
 * named in its functions' parameters.
 */
#ifndef __ABTF_ENC_H
#define __ABTF_ENC_H

#include <stdint.h>

#include "encode/dwarf_read.h"
#include "encode/dwarf_reloc.h"
#include "encode/func_facts.h"
#include "encode/ir.h"
#include "elf/elf_write.h"

struct btf;

/* ---- enc_obj.c: the object ---- */

struct enc_obj {
	const char *path;	/* the encoder's */
	const struct abtf_printer *pr;	/* the encoder's */
	int fd;			/* -1: not open */
	Elf *elf;
	GElf_Ehdr ehdr;
	size_t shstrndx;
};

/* Open @path with libelf and check its section headers. 0 or < 0. */
int enc_obj__open(struct enc_obj *o, const char *path,
		  const struct abtf_printer *pr);
void enc_obj__close(struct enc_obj *o);
/* One message naming the object, @what and libelf's error: -EINVAL. */
int enc_obj__elf_error(const struct enc_obj *o, const char *what);
const char *enc_obj__section_name(const struct enc_obj *o, size_t shndx);
/* The first section of @type (SHT_NULL: any) named @name (NULL: any). */
Elf_Scn *enc_obj__find_section(const struct enc_obj *o, uint32_t type,
			       const char *name);

/* ---- enc_syms.c: the symbol table ---- */

struct enc_sym {
	const char *name;
	const char *secname;
	uint64_t value;
	uint64_t size;
	uint32_t idx;		/* in .symtab */
	uint32_t shndx;
	uint8_t type;		/* STT_FUNC or STT_OBJECT */
	uint8_t bind;		/* STB_* */
	bool used;		/* already given to a FUNC or VAR */
};

struct enc_syms {
	struct enc_sym *v;	/* defined FUNC/OBJECT symbols, by name */
	size_t nr;
	bool has_percpu;	/* any non-empty object in a per-CPU section */
};

int enc_syms__load(struct enc_syms *s, const struct enc_obj *o);
void enc_syms__free(struct enc_syms *s);
/* The first unused symbol called @name of @type, or NULL. */
struct enc_sym *enc_syms__find(struct enc_syms *s, const char *name,
			       uint8_t type);
/*
 * The first unused STT_FUNC "@name.llvm.<digits>", clang ThinLTO's name
 * for a static function it promoted, or NULL.
 */
struct enc_sym *enc_syms__find_thinlto(struct enc_syms *s, const char *name);
/* Whether @sym stands for @name: it is @name, or its ThinLTO name. */
bool enc_sym__is_of(const struct enc_sym *sym, const char *name);
/*
 * The unused non-empty per-CPU object symbol at @shndx:@addr, or NULL;
 * of several there (an alias: Linux 7.x's SYM_PIC_ALIAS() gives gdt_page
 * __pi_gdt_page), the first that enc_sym__of_var() says is @name's, or
 * with @name NULL the first by name.
 */
struct enc_sym *enc_syms__percpu_at(struct enc_syms *s, uint32_t shndx,
				    uint64_t addr, const char *name);
/*
 * Whether symbol name @sym can be variable @name's: the name itself, or
 * one of its '.'-separated parts (GCC's function-local static "hits.0",
 * clang's "func.hits").
 */
bool enc_sym__of_var(const char *sym, const char *name);
/* @sym is given to a FUNC or VAR: no other gets it. */
void enc_syms__take(struct enc_sym *sym);

/* ---- enc_dwarf.c: the relocated DWARF ---- */

struct enc_dwarf {
	Elf *rel_elf;		/* our own relocated copy (dwarf_reloc.c) */
	struct abtf_dwarf_rel rel;	/* its address relocations */
	struct dw_file f;	/* the DWARF, read from it, or from the .dwo
				 * of a split object (the addresses its) */
	const char *name;	/* for messages about @f: the object's path,
				 * or "OBJ: DWO" */
	char *split_name;	/* the latter, if it is that */
	char *dwo_path;		/* the .dwo's, from its skeleton unit */
	Elf *dwo_elf;		/* the .dwo, read, its sections decompressed */
	struct abtf_dwarf_rel dwo_rel;	/* empty: a .dwo has no relocations */
};

/*
 * Open the DWARF of @o: of a split object (-gsplit-dwarf, one skeleton
 * unit), its .dwo's, which must be there and be the skeleton's. 0,
 * -ENODATA (no .debug_info), -EOPNOTSUPP (a GCC LTO object) or < 0 after
 * one message.
 */
int enc_dwarf__open(struct enc_dwarf *d, const struct enc_obj *o);
/* Idempotent. */
void enc_dwarf__close(struct enc_dwarf *d);
/*
 * The section of the relocated address *@addr read at @where (in
 * .debug_info or .debug_addr); in a relocatable object *@addr is the
 * offset in it. 0, or 1: not an address in a section.
 */
int enc_dwarf__section_of(const struct enc_dwarf *d, const uint8_t *where,
			  uint64_t *addr, uint32_t *shndx);

/* ---- enc_select.c: what gets a FUNC or VAR ---- */

struct enc_funcext;

/* A FUNC or VAR node and the symbol it stands for, in node order. */
struct enc_placed {
	uint32_t id;		/* node (pre-dedup type ID) */
	struct enc_sym *sym;
};

struct enc_select {
	/* what the walk reads and adds to, owned by encoder.c */
	const struct enc_obj *obj;
	struct enc_syms *syms;
	struct enc_dwarf *dw;
	struct ir *ir;
	struct enc_funcext *fx;	/* the states found */

	struct enc_placed *placed;	/* FUNCs and VARs, in node order */
	size_t nr_placed, cap_placed;
	uint32_t nr_units;	/* compile units with types */
};

/*
 * Walk every unit of @s->dw: its types into @s->ir, a FUNC or VAR node
 * for each function or variable selected, the states into @s->fx.
 * 0 or < 0 after one message.
 */
int enc_select__walk(struct enc_select *s);
void enc_select__free(struct enc_select *s);

/* ---- enc_datasec.c ---- */

/* One DATASEC node per input section holding the VARs of @s. */
int enc_datasec__add(const struct enc_obj *o, const struct enc_select *s,
		     struct ir *ir);

/* ---- enc_funcext.c: pahole 1.31's per-function facts, the extension ---- */

/* A function DIE with code and named parameters: one pahole "state". */
struct enc_fstate {
	const char *name;
	uint64_t off;
	struct abtf_fn_facts ff;
};

/* A clone (foo.isra.0) whose object has no FUNC foo: an extension FUNC. */
struct enc_extra {
	const struct enc_fstate *st;
	struct enc_sym *sym;
};

struct enc_funcext {
	struct enc_fstate *states;	/* in DIE order, then by name */
	size_t nr_states, cap_states;
	struct enc_extra *extras;	/* clone FUNCs of the extension */
	size_t nr_extras;
	uint8_t *ext;		/* the extension: types, then strings */
	uint32_t ext_type_len, ext_str_len;
};

int enc_funcext__add_state(struct enc_funcext *fx, const char *name,
			   uint64_t off, const struct abtf_fn_facts *ff);
/* Sort the states; find the clones among @syms that @s left without FUNC. */
int enc_funcext__find_extras(struct enc_funcext *fx,
			     const struct enc_syms *syms,
			     const struct enc_select *s);
/*
 * The extension's types, numbered after those of @btf, for the clones
 * whose types @ir converted; none for objects of several units.
 */
int enc_funcext__build(struct enc_funcext *fx, const struct enc_obj *o,
		       struct dw_file *f, const struct ir *ir,
		       const struct btf *btf, uint32_t nr_units);
/* The ABTF_FN_* flags of a FUNC named @name standing for symbol @sym. */
uint8_t enc_funcext__flags(const struct enc_funcext *fx, const char *name,
			   const char *sym);
void enc_funcext__free(struct enc_funcext *fx);

/* ---- enc_slots.c: the .debug_btf_addr group ---- */

struct enc_slots {
	struct abtf_reloc *relocs;	/* NULL: no group */
	size_t nr_relocs;
	int reloc_type;
	uint8_t *fflags;	/* a flags byte per FUNC, then per extra */
	size_t nr_fflags, cap_fflags;
};

/*
 * A slot, with its relocation of type @reloc_type, per FUNC and VAR of
 * @btf (in type ID order, each paired with its symbol in @s) and per
 * clone of @fx; a flags byte per FUNC and per clone.
 */
int enc_slots__make(struct enc_slots *sl, const struct enc_obj *o,
		    const struct btf *btf, const struct enc_select *s,
		    const struct enc_funcext *fx, int reloc_type);
/*
 * The .debug_btf_addr section of the .BTF @btf (@btf_size bytes, in the
 * object's order) into @sec, which is otherwise zeroed: the group, its
 * relocations. Returns the group, for the caller to free, or NULL.
 */
void *enc_slots__section(const struct enc_slots *sl, const struct enc_obj *o,
			 const struct enc_funcext *fx, const void *btf,
			 uint32_t btf_size, struct abtf_section *sec);
/* An empty .debug_btf_addr section, replacing a stale one. */
void enc_slots__empty_section(const struct enc_obj *o,
			      struct abtf_section *sec);
void enc_slots__free(struct enc_slots *sl);

#endif /* __ABTF_ENC_H */
