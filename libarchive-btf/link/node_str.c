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

int abtf__smap_reserve(struct smap *m, uint32_t str_len)
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

void abtf__smap_clear(struct smap *m)
{
	size_t i;

	for (i = 0; i < m->nr_used; i++)
		m->map[m->used[i]] = 0;
	m->nr_used = 0;
}

void abtf__smap_free(struct smap *m)
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
 * member names many things with the same string.
 */
int64_t node_str__get(struct node *n, const struct input *in, uint32_t off)
{
	struct smap *m = &n->smap;
	int64_t no;

	if (!off)
		return 0;
	if (m->map[off])
		return m->map[off] - 1;
	if (m->nr_used == m->cap_used && smap_used_grow(m))
		return -ENOMEM;
	no = abtf__strtab_add(&n->strs, in->strs + off);
	if (no < 0)
		return no;
	smap_set(m, off, no);
	return no;
}

/*
 * abtf__node_str_is() for a string not mapped yet. A walk compares names
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
