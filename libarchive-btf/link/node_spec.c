// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Ordered speculation: chunks of a serial computation tried ahead on
 * other threads, committed in order on the caller's (node_dedup.c's
 * struct phase; docs/design.md, "The root's struct phase in parallel").
 *
 * The caller's work is split into chunks 0 to nr - 1 that must take
 * effect in that order. Each chunk is either speculated, on any thread,
 * against whatever the shared state is at that moment (the caller's
 * speculate(), which writes nothing shared but its own chunk's result),
 * and then committed (commit() with done = true: the caller checks what
 * the speculation read and redoes what no longer holds), or committed
 * without speculation (done = false: the caller does the chunk as the
 * serial computation would). Only the calling thread commits, one chunk
 * after the other, so the shared state goes through exactly the serial
 * computation's states whatever the thread count; the other threads only
 * save the committer work.
 *
 * Chunks are claimed for speculation in order, at most @ahead past the
 * one being committed (a chunk speculated far ahead has read an older
 * state, and fails its checks more often). The committer, finding its
 * next chunk still being speculated, speculates a later one meanwhile,
 * or waits; finding it unclaimed, it takes it itself.
 */
#include <pthread.h>
#include <stdlib.h>

#include "link/linker.h"

enum chunk_state { CH_FREE, CH_BUSY, CH_DONE, CH_OWN };

struct spec_pool {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	const struct spec_ops *ops;
	void *ctx;
	uint8_t *state;		/* enum chunk_state, per chunk */
	uint32_t nr;
	uint32_t next;		/* the next chunk to claim */
	uint32_t at;		/* the chunk being committed */
	uint32_t ahead;
	bool stop;
};

struct spec_worker {
	struct spec_pool *p;
	void *wctx;
};

/* With the lock held: the next chunk to speculate, or nr for none now. */
static uint32_t claim(struct spec_pool *p)
{
	if (p->stop || p->next >= p->nr || p->next > p->at + p->ahead)
		return p->nr;
	p->state[p->next] = CH_BUSY;
	return p->next++;
}

/* With the lock held: speculate chunk @k unlocked, then mark it done. */
static void speculate(struct spec_pool *p, void *wctx, uint32_t k)
{
	pthread_mutex_unlock(&p->lock);
	p->ops->speculate(p->ctx, wctx, k);
	pthread_mutex_lock(&p->lock);
	p->state[k] = CH_DONE;
	pthread_cond_broadcast(&p->cond);
}

static void *worker(void *arg)
{
	struct spec_worker *w = arg;
	struct spec_pool *p = w->p;
	uint32_t k;

	pthread_mutex_lock(&p->lock);
	while (!p->stop && p->next < p->nr) {
		k = claim(p);
		if (k < p->nr)
			speculate(p, w->wctx, k);
		else
			pthread_cond_wait(&p->cond, &p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/*
 * Make chunk @k the committer's: true if it was speculated (and is done),
 * false if the committer takes it unspeculated. Speculates later chunks
 * on @wctx while another thread still has @k.
 */
static bool next_commit(struct spec_pool *p, void *wctx, uint32_t k)
{
	uint32_t other;
	bool done;

	pthread_mutex_lock(&p->lock);
	p->at = k;
	pthread_cond_broadcast(&p->cond);
	for (;;) {
		if (p->state[k] == CH_DONE) {
			done = true;
			break;
		}
		if (p->state[k] == CH_FREE) {	/* then p->next == k */
			p->state[k] = CH_OWN;
			p->next = k + 1;
			done = false;
			break;
		}
		other = claim(p);
		if (other < p->nr)
			speculate(p, wctx, other);
		else
			pthread_cond_wait(&p->cond, &p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return done;
}

static void stop(struct spec_pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

int node_spec__run(uint32_t nr, unsigned int nr_workers, uint32_t ahead,
		   const struct spec_ops *ops, void *ctx, void **wctx)
{
	struct spec_pool p = {
		.ops = ops, .ctx = ctx, .nr = nr, .ahead = ahead,
	};
	struct spec_worker w[NODE_SPEC_MAX_WORKERS];
	pthread_t tids[NODE_SPEC_MAX_WORKERS];
	unsigned int i, nt;
	uint32_t k;
	int err = 0;

	if (nr_workers > NODE_SPEC_MAX_WORKERS)
		nr_workers = NODE_SPEC_MAX_WORKERS;
	p.state = calloc(nr ? nr : 1, sizeof(*p.state));
	if (!p.state)
		return -ENOMEM;
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	for (nt = 0; nt < nr_workers; nt++) {
		w[nt].p = &p;
		w[nt].wctx = wctx[nt + 1];
		if (pthread_create(&tids[nt], NULL, worker, &w[nt]))
			break;	/* fewer threads: the same result */
	}
	for (k = 0; !err && k < nr; k++)
		err = ops->commit(ctx, k, next_commit(&p, wctx[0], k));
	stop(&p);
	for (i = 0; i < nt; i++)
		pthread_join(tids[i], NULL);
	/* what was speculated and never committed (an error) */
	for (; k < nr; k++)
		if (p.state[k] == CH_DONE)
			ops->discard(ctx, k);
	pthread_cond_destroy(&p.cond);
	pthread_mutex_destroy(&p.lock);
	free(p.state);
	return err;
}
