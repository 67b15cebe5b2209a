/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* node_dedup.c: a node's deduplication, libbpf's algorithm. */
#ifndef __ABTF_LINK_NODE_DEDUP_H
#define __ABTF_LINK_NODE_DEDUP_H

#include <stddef.h>
#include <stdint.h>

struct btf;

/*
 * node_dedup.c: deduplicate the raw BTF *@raw (header, types, strings;
 * split on @base, whose strings take @base_str_len bytes, if not NULL)
 * as btf__dedup() would, into a new *@raw of *@size bytes. 0; 1 when
 * libbpf must decide (*@raw is then the same BTF, its strings already
 * deduplicated); a negative errno with *@raw as it was. Run at the root
 * of the merge tree only, on the node's BTF as merge.c made it: its
 * strings interned (no two equal, each referenced from its start), so
 * that a table already in libbpf's order can be kept as it is.
 */
int node_dedup__run(void **raw, size_t *size, const struct btf *base,
		    uint32_t base_str_len);

#endif /* __ABTF_LINK_NODE_DEDUP_H */
