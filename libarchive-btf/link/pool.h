/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* pool.c: the threads that run one level of the merge tree's nodes. */
#ifndef __ABTF_LINK_POOL_H
#define __ABTF_LINK_POOL_H

#include <stddef.h>

struct abtf_linker;
struct node;

/* Run @fn on every node, on up to nr_threads threads; first error wins. */
int abtf__run_level(struct abtf_linker *l, struct node *nodes, size_t nr,
		    int (*fn)(struct abtf_linker *, struct node *, void *),
		    void *ctx);

#endif /* __ABTF_LINK_POOL_H */
