/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * plan.c: the plan (struct link_plan), every member as planned before any
 * merging: the members' boundaries from their headers, the thread count,
 * the leaves of the merge tree. place.c fills in the members' groups and
 * places.
 */
#ifndef __ABTF_LINK_PLAN_H
#define __ABTF_LINK_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/addr.h"

struct abtf_linker;
struct node;
struct place;

/* One archive member, as planned before any merging. */
struct mplan {
	size_t off;		/* in .BTF */
	size_t size;		/* its BTF's bytes (inflated, if compressed) */
	size_t zsize;		/* compressed: its bytes in .BTF; 0 if plain */
	uint32_t nr_types;	/* set by its leaf once validated */
	uint32_t hash;
	uint32_t stored_hash;	/* swapped: its bytes' as in the file */
	bool has_group;		/* paired with a .debug_btf_addr group */
	bool check_hash;	/* paired by size: the leaf checks the hash */
	struct abtf_addr_group grp;	/* has_group: its slots, extension, flags */
	struct place *vars;	/* placed by name: one per VAR, in VAR order */
	size_t nr_vars;
};

/*
 * The plan: every member as planned before any merging, and which symbols
 * VARs claimed. Made while planning, by plan.c (the members) and
 * place.c (their groups and places); frozen after: the merge reads
 * it from every thread. Freed by plan.c's abtf__link_plan_free().
 */
struct link_plan {
	struct mplan *members;
	size_t nr_members;
	unsigned int nr_threads;
	bool *sym_used;		/* by symbol index: claimed by a VAR */
};

int abtf__walk_members(struct abtf_linker *l);
/* l->plan.nr_threads: the option's, or one per CPU. */
void abtf__plan_threads(struct abtf_linker *l);
void abtf__link_plan_free(struct link_plan *p);
struct node *abtf__make_leaves(struct abtf_linker *l, size_t *nr);

#endif /* __ABTF_LINK_PLAN_H */
