/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * funcs.c: pahole 1.31's function rules (consistent_func,
 * optimized_func): each leaf's FUNCs by name (struct func_sigs), then the
 * names left without a FUNC and the FUNCs left out (struct func_rules).
 */
#ifndef __ABTF_LINK_FUNCS_H
#define __ABTF_LINK_FUNCS_H

#include <stddef.h>
#include <stdint.h>

#include "util/internal.h"

struct abtf_linker;
struct input;
struct node;

/* A FUNC of a member, for consistent_func (funcs.c): offsets in its strs. */
struct fsig {
	uint32_t name;
	uint32_t sig;		/* its loose signature */
	uint8_t flags;		/* ABTF_FN_* from its group */
	uint32_t member;	/* its member */
	uint32_t ordinal;	/* its place among the member's FUNCs */
};

/* funcs.c's, before the merge: a leaf's FUNCs in the image, by name. */
struct func_sigs {
	struct strtab strs;	/* their names and signatures */
	struct fsig *sigs;
	size_t nr, cap;
};

/* A name funcs.c leaves without a FUNC, and why (ABTF_EXPLAIN_*). */
struct fdrop {
	const char *name;
	uint8_t why;
};

/* A FUNC funcs.c leaves out although its name keeps one, and why. */
struct fskip {
	uint64_t key;		/* member << 32 | its FUNC ordinal */
	uint8_t why;
};

/*
 * funcs.c's function rules (consistent_func, optimized_func), built by
 * funcs__select() while planning and read-only after: the names left
 * without a FUNC and the FUNCs left out although their name keeps one.
 */
struct func_rules {
	struct strtab drop_strs;	/* drop's names */
	struct fdrop *drop;	/* sorted by name */
	size_t nr_drop, cap_drop;
	struct fskip *skip;	/* sorted by key */
	size_t nr_skip, cap_skip;
};

/* Build l->fn_rules from every leaf's members. */
int funcs__select(struct abtf_linker *l, struct node *leaves, size_t nr);
void funcs__sigs_free(struct func_sigs *fs);
void funcs__rules_free(struct func_rules *fr);
/* Why the rules leave @name without a FUNC (ABTF_EXPLAIN_*), 0 if not. */
int funcs__dropped(const struct func_rules *fr, const char *name);
/* Why the rules leave out a member's FUNC, 0 if they do not. */
int funcs__skipped(const struct func_rules *fr, size_t member,
		       uint32_t ordinal);
/*
 * The loose signature funcs.c compares prototypes by (types__match) of
 * the FUNC @id of @in, whose records are at @toff[ID]: malloc()ed, or NULL.
 */
char *funcs__sig(const struct input *in, const uint32_t *toff,
		     uint32_t id);
int funcs__drop_protos(const struct input *in, const uint32_t *toff,
		       uint32_t *map);

#endif /* __ABTF_LINK_FUNCS_H */
