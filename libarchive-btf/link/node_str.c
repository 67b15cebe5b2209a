// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A merge node's string map: an input's string offsets to the node's own
 * (n->smap, reset per input from n->smap_used), interned on first use in
 * the node's string table. merge.c and exact.c both map strings through
 * it; it calls nothing of theirs.
 */
#include <errno.h>
#include <string.h>

#include "link/linker.h"

static int smap_used_grow(struct node *n)
{
	size_t need = n->nr_smap_used + 1;

	return abtf_grow(n->smap_used, n->cap_smap_used,
			 need < 4096 ? 4096 : need);
}

/*
 * The node's offset of string @off of input @in, interned on first use: a
 * member names many things with the same string.
 */
int64_t abtf__node_str(struct node *n, const struct input *in, uint32_t off)
{
	int64_t no;

	if (!off)
		return 0;
	if (n->smap[off])
		return n->smap[off] - 1;
	if (n->nr_smap_used == n->cap_smap_used && smap_used_grow(n))
		return -ENOMEM;
	no = abtf__strtab_add(&n->strs, in->strs + off);
	if (no < 0)
		return no;
	n->smap[off] = no + 1;
	n->smap_used[n->nr_smap_used++] = off;
	return no;
}

/*
 * abtf__node_str_is() for a string not mapped yet. A walk compares names
 * of types the node mostly has already: by their bytes, no interning, and
 * a match is what interning would have given (the node's strings are
 * unique), so it is noted.
 */
bool abtf__node_str_cmp(struct node *n, const struct input *in, uint32_t off,
			uint32_t node_off)
{
	if (strcmp(in->strs + off, n->strs.data + node_off))
		return false;
	if (off && (n->nr_smap_used < n->cap_smap_used || !smap_used_grow(n))) {
		n->smap[off] = node_off + 1;
		n->smap_used[n->nr_smap_used++] = off;
	}
	return true;
}
