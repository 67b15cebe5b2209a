/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * exact.c: exact pre-dedup, a node's types by ID and by hash (struct
 * exact_index) for mapping each input type of one meaning to the node's.
 */
#ifndef __ABTF_LINK_EXACT_H
#define __ABTF_LINK_EXACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/internal.h"

struct btf_type;
struct input;
struct node;

/* exact.c's: a node's types by ID and by hash, for mapping inputs to them. */
struct exact_index {
	uint32_t *type_off;	/* ID - first_id -> offset in the node's types */
	size_t cap_type_off;
	struct abtf_hmap map;	/* can_map() types by their hash: IDs */
	uint32_t *pending;	/* structs appended, indexed after the input */
	size_t nr_pending, cap_pending;
	/*
	 * 1 + ID - first_id -> held back (exact__fwd_reach()), [0] unused:
	 * a parent takes it as its input's reach instead of working it out
	 * again, where it is known for every type (held_unknown false).
	 * Kept until the node is freed.
	 */
	uint8_t *held;
	size_t nr_held, cap_held;
	bool held_unknown;
};

#define EXACT_NEW	UINT32_MAX	/* a surviving type not mapped (yet) */
int exact__map(struct node *n, const struct input *in, uint32_t *map,
	       const uint32_t *toff, uint8_t *held);
int exact__add(struct node *n, uint32_t id, size_t off,
	       const uint8_t *held);
const uint8_t *exact__held(const struct node *c, uint32_t nr_types);
/*
 * @fwd[id]: type @id of @types (at @off[id]) reaches a FWD, or an enum
 * without values (exact.c).
 */
int exact__fwd_reach(const uint8_t *types, const uint32_t *off, uint32_t nr,
		     uint8_t *fwd);
/*
 * A struct member type's signature, which every type a walk (exact.c's,
 * or libbpf's in node_dedup.c) may find equal to it shares: its records
 * through up to 4 modifiers, pointers, typedefs and arrays but their type
 * IDs, then the name reached. @name_of gives a record's name as a string
 * offset of the table both sides share; @type_of a type by ID (not 0),
 * NULL for none. Not negative, or @name_of's negative errno.
 */
struct abtf_sig_src {
	const void *ctx;
	const struct btf_type *(*type_of)(const void *ctx, uint32_t id);
	int64_t (*name_of)(const void *ctx, uint32_t off);
};
int64_t exact__member_sig(const struct abtf_sig_src *s, uint32_t id);
/* After each input: index the structs and unions it appended. */
int exact__index(struct node *n);
void exact__free_index(struct exact_index *ex);
void exact__free(struct exact_index *ex);

#endif /* __ABTF_LINK_EXACT_H */
