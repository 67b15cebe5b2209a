/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The encoder's intermediate representation, shared by the encoder's
 * modules (encoder.c and enc_*.c, enc.h: one object's DWARF units, symbols,
 * functions, variables, the .debug_btf_addr slots) and dwarf_types.c (one
 * DWARF type DIE -> BTF types); and the ways to relocated DWARF
 * (dwarf_reloc.c).
 *
 * Types are first built as "nodes": one node per BTF type, numbered in
 * creation order, node i becoming BTF type ID i + 1. A node is created and
 * memoised *before* the types it refers to are resolved, so cycles through
 * pointers need no special casing; all nodes are emitted with libbpf at the
 * end, in order, which BTF allows because a reference may point forward.
 */
#ifndef __ABTF_ENCODER_H
#define __ABTF_ENCODER_H

#include <stdint.h>

#include "encode/dwarf_read.h"
#include "util/internal.h"

struct btf;

/* One member, parameter or enumerator of a node. */
struct ir_item {
	const char *name;	/* NULL: anonymous */
	uint32_t name_off;	/* in ir.strs, set by ir_dedup__run() */
	uint32_t type;		/* member/param/datasec var: BTF type ID */
	uint32_t bit_off;	/* member: bit offset; datasec: byte offset */
	uint32_t bit_sz;	/* member: bitfield size; datasec: size */
	uint64_t val;		/* enumerator value (two's complement) */
};

struct ir_node {
	uint16_t kind;		/* BTF_KIND_* */
	uint16_t flag;		/* INT encoding, FUNC/VAR linkage, FWD kind, enum signedness */
	const char *name;
	uint32_t name_off;	/* in ir.strs, set by ir_dedup__run() */
	uint32_t size;		/* INT/FLOAT/STRUCT/UNION/ENUM/DATASEC size; ARRAY nelems */
	uint32_t ref;		/* referenced type ID (ARRAY: element) */
	uint32_t first;		/* index of the first item in ir.items */
	uint32_t nr;		/* number of items */
};

/* A DECL_TAG waiting to be added after every other node. */
struct ir_decl_tag {
	const char *name;	/* the tag's string */
	uint32_t target;	/* the tagged node's type ID */
	uint32_t comp;		/* component_idx: member or parameter, or -1 */
};

/* A map from a DIE offset to a type ID. */
struct die_ent {
	uint64_t off;
	uint32_t id;
};

struct die_map {
	struct abtf_hmap index;	/* by die_hash(): index in ents + 1 */
	struct die_ent *ents;
	size_t nr, cap;
};

/*
 * A node made at a nesting depth past IR_DEFER_DEPTH: what it refers to is
 * converted later, from depth 0, so that a chain of thousands of pointers
 * or typedefs is walked in bounded stack (as pahole copes with it).
 */
struct ir_pending {
	struct dw_unit *cu;
	uint64_t off;		/* its DIE */
	uint32_t id;		/* its node */
};
#define IR_DEFER_DEPTH	64
/* Past this, what cannot be deferred (function types of function types) fails. */
#define IR_MAX_DEPTH	1024

struct ir {
	struct ir_node *nodes;
	size_t nr_nodes, cap_nodes;
	struct ir_item *items;
	size_t nr_items, cap_items;
	struct die_map map;
	struct dw_file *dw;	/* the DWARF being read */
	struct ir_item *scratch;	/* items being gathered, a stack */
	size_t nr_scratch, cap_scratch;
	struct strtab strs;	/* the BTF's strings, by ir_dedup__run() */
	uint32_t *out;		/* node ID -> BTF type ID, by ir_dedup__run() */
	uint32_t *kept;		/* BTF type ID - 1 -> node ID, by ir_dedup__run() */
	uint32_t nr_out;	/* BTF types after deduplication */
	struct ir_decl_tag *decl_tags;	/* pending, in DWARF order */
	size_t nr_decl_tags, cap_decl_tags;
	struct ir_pending *pending;	/* nodes whose references wait */
	size_t nr_pending, cap_pending;
	uint32_t depth;		/* of dwarf_types__type_of_die() calls */
	uint32_t int_id;	/* the canonical array index type, 0 until needed */
	const char *path;	/* for messages */
	bool big_endian;	/* DWARF 4 bit offsets count from the MSB */
	const struct abtf_printer *pr;
};

/* ir.c: the IR's containers and its emission as BTF */
void ir__init(struct ir *ir, const char *path, const struct abtf_printer *pr);
void ir__fini(struct ir *ir);

/* Append a node; returns its type ID or -ENOMEM. */
/* The node ID of the type DIE at @off, 0 if none yet; set it. */
uint32_t ir__map_get(const struct die_map *m, uint64_t off);
int ir__map_put(struct die_map *m, uint64_t off, uint32_t id);
int ir__add_node(struct ir *ir, const struct ir_node *node);
/* Append @nr items to node @id (which must have none yet). */
int ir__set_items(struct ir *ir, uint32_t id, const struct ir_item *items,
		  uint32_t nr);

/*
 * The type ID of the type DIE @die (0 for void), encoding it and everything
 * it refers to on first use. Returns a negative errno on failure, after one
 * message naming the DIE.
 */
int dwarf_types__type_of_die(struct ir *ir, struct dw_die *die);
/* The same for the DIE at .debug_info offset @off, named by DIE @from. */
int dwarf_types__type_of_off(struct ir *ir, const struct dw_die *from, uint64_t off);
/* The type ID of @die's DW_AT_type, from its origin if need be (0: void). */
int dwarf_types__type_of_attr(struct ir *ir, struct dw_die *die);
/*
 * After ir_dedup__run(): the BTF type ID of the type DIE at @off, which must
 * have been converted already (nothing is added). 0 or -ENOENT.
 */
int ir__btf_id_of_off(const struct ir *ir, uint64_t off, uint32_t *id);
/* Whether @tag is a DWARF type tag the encoder emits on its own. */
bool dwarf_types__is_type_tag(int tag);

/*
 * The btf_decl_tag annotations among @die's children (clang's
 * DW_TAG_LLVM_annotation), and those of the DIE its DW_AT_abstract_origin
 * or DW_AT_specification names, as pending DECL_TAGs of node @target,
 * component @comp (-1: the node itself). 0 or < 0 after one message.
 */
int dwarf_types__decl_tags(struct ir *ir, const struct dw_die *die, uint32_t target,
		  int comp);
/* The pending DECL_TAGs as nodes, after all the others. 0 or -ENOMEM. */
int dwarf_types__add_decl_tags(struct ir *ir);
/*
 * A loop of pointers, qualifiers and typedefs among the nodes (BTF cannot
 * express it; the kernel refuses it): -EINVAL after one message naming a
 * DIE of it, else 0.
 */
int dwarf_types__check_loops(struct ir *ir);

/* A FUNC_PROTO for the subprogram or subroutine type @die. */
int dwarf_types__func_proto(struct ir *ir, struct dw_die *die);

/* One message naming the object, the DIE and @what; returns @err. */
int dwarf_types__die_error(struct ir *ir, const struct dw_die *die, int err,
		  const char *what);

/*
 * Deduplicate the nodes (ir_dedup.c): intern their strings and map every
 * node to its BTF type ID, equal types to one. 0 or -ENOMEM.
 */
int ir_dedup__run(struct ir *ir);
int ir_dedup__none(struct ir *ir);
/* The kind_flag bit of node @n's BTF type. */
int ir__kflag(const struct ir *ir, const struct ir_node *n);

/* The items of node @n: NULL when it has none (ir->items may be NULL). */
static inline struct ir_item *ir__items(const struct ir *ir,
					const struct ir_node *n)
{
	return n->nr ? ir->items + n->first : NULL;
}

/*
 * The deduplicated nodes as one raw BTF (malloc()ed, *size bytes), or NULL
 * with errno. After ir_dedup__run().
 */
void *ir__emit_raw(struct ir *ir, size_t *size);

/* What pahole 1.31 learns from a function's parameters (func_facts.c). */
struct abtf_fn_facts {
	bool optimized_parms;	/* a parameter optimized out or without a location */
	bool unexpected_reg;	/* one not where the calling convention puts it */
	bool reordered;		/* parameters not in their origin's order */
	bool nocall;		/* DW_CC_nocall: the signature was changed */
	bool varargs_differ;	/* "..." in the copy, not its origin, or back */
	bool no_low_pc;		/* code in DW_AT_ranges alone: pahole reads
				 * its address as 0, at no symbol */
};

/*
 * The facts of the DW_TAG_subprogram @fn (with code), for machine
 * @machine (EM_*). 0 or < 0 with *why saying what is wrong in the DWARF.
 */
int abtf__fn_facts(struct dw_file *f, const struct dw_die *fn, int machine,
		   struct abtf_fn_facts *ff, const char **why);

/* The sections whose addresses are told apart by their relocations. */
enum { ABTF_DW_INFO, ABTF_DW_ADDR, ABTF_DW_NR };

/*
 * Pointer-sized relocations of .debug_info and .debug_addr: which section
 * an address is in.
 */
struct abtf_dwarf_addr {
	int sec;		/* ABTF_DW_INFO or ABTF_DW_ADDR */
	uint64_t off;		/* in that section */
	uint32_t shndx;
};

struct abtf_dwarf_rel {
	Elf_Data *data[ABTF_DW_NR];	/* the relocated sections */
	struct abtf_dwarf_addr *addrs;	/* by section, then offset */
	size_t nr, cap;
	Elf *linked;		/* a linked file: addresses are its own */
};

/*
 * The object open at @fd with its compressed debug sections inflated and,
 * in a relocatable object, the relocations of the sections the type walk
 * reads applied (dwarf_reloc.c), as an Elf to end with elf_end(). NULL
 * with errno set and @why (@why_size bytes) saying what is wrong. @rel
 * tells addresses' sections (abtf__dwarf_addr_section(); free with
 * abtf__dwarf_rel_free()).
 */
Elf *abtf__dwarf_open(int fd, struct abtf_dwarf_rel *rel, char *why,
		      size_t why_size);
/*
 * The section of the address @addr read at @p: an operand in .debug_info
 * or an entry of .debug_addr, told by its relocation (a relocatable
 * object) or by the address (a linked file). 0 or -ENOENT.
 */
int abtf__dwarf_addr_section(const struct abtf_dwarf_rel *rel,
			     const unsigned char *p, uint64_t addr,
			     uint32_t *shndx);
void abtf__dwarf_rel_free(struct abtf_dwarf_rel *rel);

#endif /* __ABTF_ENCODER_H */
