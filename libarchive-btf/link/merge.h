/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * merge.c: one input merged into one node of the merge tree, the VARs it
 * keeps (struct node_vars), a node finished, the root's BTF.
 */
#ifndef __ABTF_LINK_MERGE_H
#define __ABTF_LINK_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct abtf_linker;
struct btf;
struct input;
struct node;
struct place;

/*
 * merge.c's: the VARs a node kept, in order, with their places (->size
 * set, ->dsec_name its own copy) and their IDs in the node's types (freed
 * once the node is deduplicated: VARs stay in order).
 */
struct node_vars {
	struct place *places;
	uint32_t *ids;
	size_t nr, cap, cap_ids;
};

int merge__node_merge(struct abtf_linker *l, struct node *n,
		     const struct input *in);
int merge__node_finish(struct abtf_linker *l, struct node *n);
/* The root's @n->nr children @kids merged, a task per child (no base). */
int merge__root_children(struct abtf_linker *l, struct node *n,
			 struct node *kids);
struct btf *merge__root_btf(struct abtf_linker *l, struct node *n);
void merge__node_free(struct node *n);
/* A VAR's rules. Is @pl in the final .data..percpu? */
bool merge__in_percpu_section(const struct abtf_linker *l,
			      const struct place *pl);
/* May a VAR have the name @p (pahole's btf_name_valid())? */
bool merge__var_name_valid(const char *p);

#endif /* __ABTF_LINK_MERGE_H */
