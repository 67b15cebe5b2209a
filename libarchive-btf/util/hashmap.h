/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The library's hash table (hashmap.c): an index from 32-bit hashes to
 * 32-bit values, for tables whose keys live with their owner: a string's
 * offset in a string table, a type's ID, an index into an array of keys.
 * Each table keeps its own hash function and its own comparison; the map
 * stores, probes and grows.
 *
 * Open addressing with linear probing over a power-of-two number of
 * slots, at most half of them used. A hash starts probing at slot
 * hash & mask, so hashes must be mixed into their low bits. A value of 0
 * marks an empty slot: store IDs (from 1), or offsets and indices + 1.
 * There is no removal. Entries may share a hash, or even a key: a lookup
 * visits them in probe order, which depends only on the order of the
 * insertions and on the sizes the table went through (a table grows by
 * moving the old slots in order), so what a lookup finds first is as
 * deterministic as the insertions.
 *
 * A lookup of key k with hash h:
 *
 *	for (e = abtf__hmap_first(m, h); e->val; e = abtf__hmap_next(m, e))
 *		if (e->hash == h && equal(k, e->val))
 *			return e->val;
 *
 * ends, when k is absent, at the empty slot where k belongs: if
 * abtf__hmap_reserve() made room before the lookup, abtf__hmap_fill()
 * puts k there.
 */
#ifndef __ABTF_HASHMAP_H
#define __ABTF_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct abtf_hent {
	uint32_t hash;
	uint32_t val;		/* 0: an empty slot */
};

/* All zero: an empty map, with no memory yet. */
struct abtf_hmap {
	struct abtf_hent *slots;
	size_t mask;		/* slots in use - 1; 0 without slots */
	size_t cnt;		/* entries */
	size_t cap;		/* slots allocated, >= mask + 1 */
};

/* The probe of a map without slots: one empty slot, never written. */
extern const struct abtf_hent abtf__hmap_none;

int abtf__hmap_grow(struct abtf_hmap *m, size_t first);

/*
 * Room for one more entry, so that the lookup that follows ends at a
 * slot abtf__hmap_fill() may fill: an empty map gets @first slots (a
 * power of two), a map that would be more than half full twice its slots
 * (every entry moves: call it before the lookup, not between the lookup
 * and the fill). Returns 0, or -ENOMEM with the map unchanged.
 */
static inline int abtf__hmap_reserve(struct abtf_hmap *m, size_t first)
{
	if (m->slots && m->cnt < (m->mask + 1) / 2)
		return 0;
	return abtf__hmap_grow(m, first);
}

/* The first slot of @hash's probe sequence. */
static inline struct abtf_hent *abtf__hmap_first(const struct abtf_hmap *m,
						 uint32_t hash)
{
	if (!m->slots)
		return (struct abtf_hent *)&abtf__hmap_none;
	return &m->slots[hash & m->mask];
}

/* The slot after @e (which is not empty) in the probe sequence. */
static inline struct abtf_hent *abtf__hmap_next(const struct abtf_hmap *m,
						const struct abtf_hent *e)
{
	return &m->slots[(size_t)(e - m->slots + 1) & m->mask];
}

/* Put @hash and @val (not 0) into the empty slot @e a lookup ended at. */
static inline void abtf__hmap_fill(struct abtf_hmap *m, struct abtf_hent *e,
				   uint32_t hash, uint32_t val)
{
	e->hash = hash;
	e->val = val;
	m->cnt++;
}

/*
 * Add an entry without looking for an equal one, at the end of its
 * probe sequence. @first as for abtf__hmap_reserve(). Returns 0 or
 * -ENOMEM.
 */
int abtf__hmap_add(struct abtf_hmap *m, size_t first, uint32_t hash,
		   uint32_t val);

/*
 * Empty the map and size it for @nr entries: the fewest slots, 16 at
 * least, of which @nr fill at most half, so that @nr entries go in
 * without abtf__hmap_reserve(). Keeps its memory when that is enough,
 * and then cannot fail. Returns 0 or -ENOMEM (the map left empty).
 */
int abtf__hmap_reset(struct abtf_hmap *m, size_t nr);

void abtf__hmap_free(struct abtf_hmap *m);

#endif /* __ABTF_HASHMAP_H */
