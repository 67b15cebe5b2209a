// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The library's hash table: hashmap.h says how it works. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"

const struct abtf_hent abtf__hmap_none;

/* Smallest table abtf__hmap_reset() makes. */
#define HMAP_MIN_SLOTS	16

/* Insert every entry of @old (@nr slots), in slot order, into @m. */
static void rehash(struct abtf_hmap *m, const struct abtf_hent *old,
		   size_t nr)
{
	size_t i, j;

	for (i = 0; i < nr; i++) {
		if (!old[i].val)
			continue;
		for (j = old[i].hash & m->mask; m->slots[j].val;
		     j = (j + 1) & m->mask)
			;
		m->slots[j] = old[i];
	}
}

/* abtf__hmap_reserve()'s slow path: the first table, or twice the slots. */
int abtf__hmap_grow(struct abtf_hmap *m, size_t first)
{
	size_t nr = m->slots ? m->mask + 1 : 0, n = nr ? nr : first;
	struct abtf_hent *old = m->slots, *slots;

	/* a power of two of which the entries, one more included, fill half */
	if (!n || (n & (n - 1)))
		return -EINVAL;
	while (m->cnt >= n / 2) {
		if (n > SIZE_MAX / 2 / sizeof(*slots))
			return -ENOMEM;
		n *= 2;
	}
	if (n == nr)
		return 0;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	m->slots = slots;
	m->mask = n - 1;
	m->cap = n;
	rehash(m, old, nr);
	free(old);
	return 0;
}

int abtf__hmap_add(struct abtf_hmap *m, size_t first, uint32_t hash,
		   uint32_t val)
{
	struct abtf_hent *e;
	int err = abtf__hmap_reserve(m, first);

	if (err)
		return err;
	for (e = abtf__hmap_first(m, hash); e->val; e = abtf__hmap_next(m, e))
		;
	abtf__hmap_fill(m, e, hash, val);
	return 0;
}

int abtf__hmap_reset(struct abtf_hmap *m, size_t nr)
{
	size_t n = HMAP_MIN_SLOTS;

	while (n / 2 < nr) {
		if (n > SIZE_MAX / 2 / sizeof(*m->slots))
			return -ENOMEM;
		n *= 2;
	}
	if (n > m->cap) {
		abtf__hmap_free(m);
		m->slots = calloc(n, sizeof(*m->slots));
		if (!m->slots)
			return -ENOMEM;
		m->cap = n;
	} else {
		memset(m->slots, 0, n * sizeof(*m->slots));
	}
	m->mask = n - 1;
	m->cnt = 0;
	return 0;
}

void abtf__hmap_free(struct abtf_hmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
