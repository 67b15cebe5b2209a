// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The thread pool: runs one level of the merge tree's nodes, a node per
 * task, on up to nr_threads threads; each node's messages are kept and
 * printed in node order, so that the output does not depend on timing.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "link/linker.h"
#include "link/pool.h"
#include "link/node.h"


struct job {
	struct abtf_linker *l;
	struct node *nodes;
	size_t nr;
	int (*fn)(struct abtf_linker *l, struct node *n, void *ctx);
	void *ctx;
	atomic_size_t next;
};

/* A node's messages are kept, and printed in node order after the level. */
static void __abtf_printf(3, 0)
node_print(enum abtf_print_level level, void *ctx, const char *fmt, va_list ap)
{
	struct node *n = ctx;

	if (level == ABTF_WARN && !n->msg[0])
		vsnprintf(n->msg, sizeof(n->msg), fmt, ap);
}

static void *worker(void *arg)
{
	struct job *job = arg;
	size_t i;

	while ((i = atomic_fetch_add(&job->next, 1)) < job->nr) {
		struct node *n = &job->nodes[i];
		double t = abtf__now();

		n->pr.fn = node_print;
		n->pr.ctx = n;
		n->err = job->fn(job->l, n, job->ctx);
		n->t = abtf__now() - t;
	}
	return NULL;
}

/* Run @fn on every node, on up to nr_threads threads; first error wins. */
int abtf__run_level(struct abtf_linker *l, struct node *nodes, size_t nr,
		     int (*fn)(struct abtf_linker *, struct node *, void *),
		     void *ctx)
{
	struct job job = { .l = l, .nodes = nodes, .nr = nr, .fn = fn,
			   .ctx = ctx };
	pthread_t tids[64];
	size_t i, nt = l->plan.nr_threads;

	atomic_init(&job.next, 0);
	if (nt > nr)
		nt = nr;
	if (nt > ARRAY_SIZE(tids))
		nt = ARRAY_SIZE(tids);
	for (i = 1; i < nt; i++)
		if (pthread_create(&tids[i], NULL, worker, &job))
			break;
	nt = i;
	worker(&job);
	for (i = 1; i < nt; i++)
		pthread_join(tids[i], NULL);
	for (i = 0; i < nr; i++) {
		if (!nodes[i].err)
			continue;
		if (nodes[i].msg[0])
			pr_warn(&l->pr, "%s", nodes[i].msg);
		else
			pr_warn(&l->pr, "%s: %s", l->path,
				ABTF_STRERROR(-nodes[i].err));
		return nodes[i].err;
	}
	return 0;
}
