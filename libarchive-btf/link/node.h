/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One node of the merge tree (struct node): its types and strings, and
 * the state each module keeps of it (node_str.c's string map, exact.c's
 * index, merge.c's VARs, funcs.c's FUNCs by name), each made, reset and
 * freed by its owner.
 */
#ifndef __ABTF_LINK_NODE_H
#define __ABTF_LINK_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/internal.h"
#include "link/exact.h"
#include "link/funcs.h"
#include "link/merge.h"
#include "link/node_str.h"

struct input;

/* One node of the merge tree: leaves take members, the others children. */
struct node {
	size_t first, nr;	/* members or child nodes */
	bool leaf, root;
	bool libbpf_dedup;	/* deduplicated by btf__dedup() */
	double t;		/* seconds its thread spent on it */

	struct strtab strs;
	uint8_t *types;
	size_t types_len, types_cap;
	uint32_t first_id, next_id;
	struct abtf_hmap fn_seen;	/* FUNC name offsets + 1 */
	struct node_vars vars;	/* merge.c: the VARs kept */

	struct smap smap;	/* node_str.c: the input's strings to strs */
	struct exact_index ex;	/* exact.c: the node's types by ID and hash */

	struct func_sigs fsigs;	/* funcs.c, before the merge */

	void *raw;		/* result (not root): deduplicated raw BTF */
	uint32_t raw_size;
	size_t types_in, funcs;

	int err;
	char msg[512];		/* the first error, printed in node order */
	struct abtf_printer pr;
};

/* Is string @off of @in the node's string @node_off? */
static inline bool node_str__is(struct node *n, const struct input *in,
				uint32_t off, uint32_t node_off)
{
	if (n->smap.map[off])
		return n->smap.map[off] != SMAP_ABSENT &&
		       n->smap.map[off] - 1 == node_off;
	return node_str__cmp(n, in, off, node_off);
}

#endif /* __ABTF_LINK_NODE_H */
