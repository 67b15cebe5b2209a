/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* merge_tree.c: the merge tree, its leaves and levels up to the root. */
#ifndef __ABTF_LINK_MERGE_TREE_H
#define __ABTF_LINK_MERGE_TREE_H

#include <stddef.h>

struct abtf_linker;
struct input;
struct node;

int abtf__merge_levels(struct abtf_linker *l, struct node *leaves, size_t nr);
/* A finished non-root node's BTF (its raw result) as an input. */
void abtf__child_input(const struct node *c, struct input *in);

#endif /* __ABTF_LINK_MERGE_TREE_H */
