// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The merge tree (the essay atop linker.c, steps 2 and 3): each leaf reads
 * its members one at a time and merges them (merge.c merges one input
 * into a node); the levels above merge up to ABTF_FAN_IN results of the
 * level below, in order, until the root.
 *
 * Calls input.c (reading), pool.c (the threads) and place.c (a member's
 * extension).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "link/linker.h"
#include "link/input.h"
#include "link/plan.h"
#include "link/pool.h"
#include "link/place.h"
#include "link/merge_tree.h"
#include "link/merge.h"
#include "link/filter.h"
#include "link/exact.h"
#include "link/node.h"

static int finish_node(struct abtf_linker *l, struct node *n)
{
	if (!n->root)
		return merge__node_finish(l, n);
	l->btf = merge__root_btf(l, n);
	if (!l->btf)
		return errno ? -errno : -EINVAL;
	l->st.types_merged = n->next_id - n->first_id;
	return 0;
}

/* Read member @i into @buf (grown as needed), validated and described. */
static int read_member(struct abtf_linker *l, struct node *n, size_t i,
		       uint8_t **buf, size_t *cap, struct abtf_member *m)
{
	struct mplan *mp = &l->plan.members[i];
	int err;

	if (abtf_grow(*buf, *cap, mp->size))
		return -ENOMEM;
	err = abtf__read_member(l, i, *buf, &n->pr);
	if (err == -EIO)
		pr_warn(&n->pr, "%s: cannot read .BTF: %s", l->path,
			strerror(-err));
	if (!err)
		err = abtf__check_member(l, i, *buf, &n->pr, m);
	if (err)
		return err;
	if (mp->check_hash && abtf__member_hash(l, i, *buf) != mp->hash) {
		pr_warn(&n->pr, "%s member %zu at byte %zu: its "
			".debug_btf_addr group is for another member",
			l->where, i, mp->off);
		return -EINVAL;
	}
	return 0;
}

/* A leaf reads its members one at a time: memory is one member's size. */
static int merge_leaf(struct abtf_linker *l, struct node *n, void *ctx)
{
	uint8_t *buf = NULL, *xbuf = NULL;
	size_t cap = 0, i;
	int err = 0;

	for (i = n->first; !err && i < n->first + n->nr; i++) {
		const uint8_t *types;
		struct abtf_member m;
		struct input in;
		uint8_t *filtered = NULL;
		void *copy = NULL;

		err = read_member(l, n, i, &buf, &cap, &m);
		if (!err)
			err = place__member_extend(l, &n->pr, i, &m, &xbuf, &m);
		if (err)
			break;
		types = abtf__aligned_types(&m, &copy);
		if (!types) {
			err = -ENOMEM;
			break;
		}
		abtf__member_input(l, &l->plan.members[i], &m, types, &in);
		err = abtf__filter_input(l, &in, &filtered);
		if (err == -E2BIG || err == -ELOOP)
			pr_warn(&n->pr, "%s member %zu at byte %zu: %s",
				l->where, i, l->plan.members[i].off,
				err == -E2BIG ? "--flat_arrays: an array of more "
				"elements than BTF's 32-bit nelems holds" :
				"--flat_arrays: a loop of ARRAYs");
		if (!err)
			err = merge__node_merge(l, n, &in);
		if (err && !n->msg[0])
			pr_warn(&n->pr, "%s member %zu at byte %zu: "
				"cannot merge: %s", l->where, i,
				l->plan.members[i].off, strerror(-err));
		free(filtered);
		free(copy);
		free(xbuf);
		xbuf = NULL;
	}
	free(xbuf);
	free(buf);
	return err ? err : finish_node(l, n);
}

void abtf__child_input(const struct node *c, struct input *in)
{
	const struct btf_header *hdr = c->raw;

	memset(in, 0, sizeof(*in));
	in->kind = IN_CHILD;
	in->types = (const uint8_t *)c->raw + hdr->hdr_len + hdr->type_off;
	in->type_len = hdr->type_len;
	in->strs = (const char *)c->raw + hdr->hdr_len + hdr->str_off;
	in->str_len = hdr->str_len;
	in->vars = c->vars.places;
	in->nr_vars = c->vars.nr;
	/* a node below the root keeps every type it numbered */
	in->nr_types = c->next_id - c->first_id;
}

static int merge_children(struct abtf_linker *l, struct node *n, void *ctx)
{
	struct node *below = ctx;
	size_t i;
	int err = 0;

	if (n->root && !l->base && n->nr > 1) {
		err = merge__root_children(l, n, below + n->first);
		return err ? err : finish_node(l, n);
	}
	for (i = 0; !err && i < n->nr; i++) {
		struct node *c = &below[n->first + i];
		struct input in;

		abtf__child_input(c, &in);
		in.held = exact__held(c, in.nr_types);
		err = merge__node_merge(l, n, &in);
		merge__node_free(c);	/* merged: its memory can go */
	}
	return err ? err : finish_node(l, n);
}

/*
 * With -v, each level of the tree: its wall time, and its slowest node's,
 * which is the level's share of the link's critical path, the wall time it
 * would take with a thread per node.
 */
static void level_report(const struct abtf_linker *l, unsigned int depth,
			 const struct node *nodes, size_t nr, double wall)
{
	double slowest = 0, all = 0;
	size_t i;

	for (i = 0; i < nr; i++) {
		all += nodes[i].t;
		if (nodes[i].t > slowest)
			slowest = nodes[i].t;
	}
	pr_debug(&l->pr, "%s: level %u: %zu %s, %.3fs wall; %.3fs in all, "
		 "the slowest %.3fs", l->path, depth, nr,
		 depth ? (nr == 1 ? "node" : "nodes") :
			 (nr == 1 ? "leaf" : "leaves"), wall, all, slowest);
}

/* The stats' count of merge-tree nodes, and of those libbpf deduplicated. */
static void count_nodes(struct abtf_linker *l, const struct node *nodes,
			size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		l->st.nodes++;
		l->st.libbpf_nodes += nodes[i].libbpf_dedup;
	}
}

/* Levels of up to ABTF_FAN_IN children each, until one root. */
static int merge_tree(struct abtf_linker *l, struct node *level, size_t nr)
{
	unsigned int depth = 0;
	struct node *up;
	size_t i, nup;
	int err = 0;

	while (nr > 1 && !err) {
		double t = abtf__now();

		nup = (nr + ABTF_FAN_IN - 1) / ABTF_FAN_IN;
		up = calloc(nup, sizeof(*up));
		if (!up) {
			err = -ENOMEM;
			break;
		}
		for (i = 0; i < nup; i++) {
			up[i].first = i * ABTF_FAN_IN;
			up[i].nr = nr - up[i].first < ABTF_FAN_IN ?
				   nr - up[i].first : ABTF_FAN_IN;
			up[i].root = nup == 1;
		}
		err = abtf__run_level(l, up, nup, merge_children, level);
		count_nodes(l, up, nup);
		if (!err)
			level_report(l, ++depth, up, nup, abtf__now() - t);
		for (i = 0; i < nr; i++)
			merge__node_free(&level[i]);
		free(level);
		level = up;
		nr = nup;
	}
	for (i = 0; i < nr; i++)
		merge__node_free(&level[i]);
	free(level);
	return err;
}

/* The leaves merged, then the tree above them up to the final BTF. */
int abtf__merge_levels(struct abtf_linker *l, struct node *leaves,
		       size_t nr)
{
	double t1 = abtf__now(), t2;
	size_t i;
	int err;

	err = abtf__run_level(l, leaves, nr, merge_leaf, NULL);
	if (!err)
		level_report(l, 0, leaves, nr, abtf__now() - t1);
	t2 = abtf__now();
	l->st.t_merge += t2 - t1;
	count_nodes(l, leaves, nr);
	l->st.types_in = l->st.funcs = 0;
	for (i = 0; i < nr; i++) {
		l->st.types_in += leaves[i].types_in;
		l->st.funcs += leaves[i].funcs;
	}
	if (err) {
		for (i = 0; i < nr; i++)
			merge__node_free(&leaves[i]);
		free(leaves);
		return err;
	}
	err = merge_tree(l, leaves, nr);	/* frees the leaves */
	l->st.t_dedup += abtf__now() - t2;
	return err;
}
