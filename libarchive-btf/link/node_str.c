// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A merge node's string map (struct smap, n->smap): an input's string
 * offsets to the node's own, interned on first use in the node's string
 * table, reset per input from the offsets it set. This file owns the map:
 * merge.c reserves and clears it around each input and frees it with the
 * node, and merge.c and exact.c map strings through it; it calls nothing
 * of theirs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "link/linker.h"
#include "link/input.h"
#include "link/node_str.h"
#include "link/node.h"

int node_str__smap_reserve(struct smap *m, uint32_t str_len)
{
	uint32_t *p;

	if (str_len <= m->cap)
		return 0;
	p = calloc(str_len, sizeof(*p));
	if (!p)
		return -ENOMEM;
	free(m->map);
	m->map = p;
	m->cap = str_len;
	return 0;
}

void node_str__smap_clear(struct smap *m)
{
	size_t i;

	for (i = 0; i < m->nr_used; i++)
		m->map[m->used[i]] = 0;
	m->nr_used = 0;
}

void node_str__smap_free(struct smap *m)
{
	free(m->map);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

static int smap_used_grow(struct smap *m)
{
	size_t need = m->nr_used + 1;

	return abtf_grow(m->used, m->cap_used, need < 4096 ? 4096 : need);
}

/* Note that input offset @off is the node's @node_off. */
static void smap_set(struct smap *m, uint32_t off, uint32_t node_off)
{
	m->map[off] = node_off + 1;
	m->used[m->nr_used++] = off;
}

/*
 * The node's offset of string @off of input @in, interned on first use: a
 * member names many things with the same string. merge.c calls it as it
 * appends each type, so that the node's strings come in the order its
 * types first name them (node_dedup.c then keeps the root's table as it
 * is); what only looks, node_str__find().
 */
int64_t node_str__get(struct node *n, const struct input *in, uint32_t off)
{
	struct smap *m = &n->smap;
	bool noted;
	int64_t no;

	if (!off)
		return 0;
	if (m->map[off] && m->map[off] != SMAP_ABSENT)
		return m->map[off] - 1;
	noted = m->map[off];	/* SMAP_ABSENT: in @used already */
	if (!noted && m->nr_used == m->cap_used && smap_used_grow(m))
		return -ENOMEM;
	no = abtf__strtab_add(&n->strs, in->strs + off);
	if (no < 0)
		return no;
	if (noted)
		m->map[off] = no + 1;
	else
		smap_set(m, off, no);
	return no;
}

/*
 * The node's offset of string @off of input @in if the node has that
 * string, else -ENOENT: then no type of the node names it, and none can
 * be the same as a type that does. Nothing is interned.
 */
int64_t node_str__find(struct node *n, const struct input *in, uint32_t off)
{
	struct smap *m = &n->smap;
	int64_t no;

	if (!off)
		return 0;
	if (m->map[off] == SMAP_ABSENT)
		return -ENOENT;
	if (m->map[off])
		return m->map[off] - 1;
	if (m->nr_used == m->cap_used && smap_used_grow(m))
		return -ENOMEM;
	no = abtf__strtab_find(&n->strs, in->strs + off);
	if (no < 0)
		smap_set(m, off, SMAP_ABSENT - 1);	/* stored + 1 */
	else
		smap_set(m, off, (uint32_t)no);
	return no;
}

/*
 * node_str__is() for a string not mapped yet. A walk compares names
 * of types the node mostly has already: by their bytes, no interning, and
 * a match is what interning would have given (the node's strings are
 * unique), so it is noted.
 */
bool node_str__cmp(struct node *n, const struct input *in, uint32_t off,
			uint32_t node_off)
{
	struct smap *m = &n->smap;

	if (strcmp(in->strs + off, n->strs.data + node_off))
		return false;
	if (off && (m->nr_used < m->cap_used || !smap_used_grow(m)))
		smap_set(m, off, node_off);
	return true;
}
