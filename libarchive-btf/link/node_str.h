/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* node_str.c: a node's string map (struct smap) and its strings. */
#ifndef __ABTF_LINK_NODE_STR_H
#define __ABTF_LINK_NODE_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct input;
struct node;

/*
 * node_str.c's: a node's map of one input's string offsets to its own
 * (node offset + 1, 0: not mapped yet, SMAP_ABSENT: the node has no such
 * string, so no type of the node names it), reset per input from @used.
 */
#define SMAP_ABSENT	UINT32_MAX
struct smap {
	uint32_t *map;
	size_t cap;
	uint32_t *used;		/* the offsets set, to reset */
	size_t nr_used, cap_used;
};

/* Room for the offsets of an input of @str_len bytes of strings, all unset. */
int node_str__smap_reserve(struct smap *m, uint32_t str_len);
/* Unset what the last input set. */
void node_str__smap_clear(struct smap *m);
void node_str__smap_free(struct smap *m);
int64_t node_str__get(struct node *n, const struct input *in, uint32_t off);
int64_t node_str__find(struct node *n, const struct input *in, uint32_t off);
bool node_str__cmp(struct node *n, const struct input *in, uint32_t off,
			uint32_t node_off);

#endif /* __ABTF_LINK_NODE_STR_H */
