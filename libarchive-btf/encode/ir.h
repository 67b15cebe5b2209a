/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The encoder's intermediate representation (ir.c: its containers and
 * its emission as BTF; ir_dedup.c: the object's deduplication), which
 * dwarf_types.c (dwarf_types.h) fills from the type DIEs and the encoder's
 * modules (encoder.c and enc_*.c, enc.h) from the functions and variables.
 *
 * Types are first built as "nodes": one node per BTF type, numbered in
 * creation order, node i becoming BTF type ID i + 1. A node is created and
 * memoised *before* the types it refers to are resolved, so cycles through
 * pointers need no special casing; all nodes are emitted with libbpf at the
 * end, in order, which BTF allows because a reference may point forward.
 */
#ifndef __ABTF_IR_H
#define __ABTF_IR_H

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
 * After ir_dedup__run(): the BTF type ID of the type DIE at @off, which must
 * have been converted already (nothing is added). 0 or -ENOENT.
 */
int ir__btf_id_of_off(const struct ir *ir, uint64_t off, uint32_t *id);

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

#endif /* __ABTF_IR_H */
