#include "pool_table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Utilizations are over the thread's sampled span when it has one (its
 * first to last sample in the window), which is the window for a thread
 * that lived through it and shorter for one that started or ended inside.
 */
static uint64_t span_of(const struct model_thread *th, uint64_t window_ns)
{
	return th->span_ns ? th->span_ns : window_ns;
}

double corecap_thread_cpu_util(const struct model_thread *th, uint64_t window_ns)
{
	uint64_t span = span_of(th, window_ns);

	return th->has_samples && span ? (double)th->cpu_ns / (double)span : 0.0;
}

double corecap_thread_busy_util(const struct model_thread *th, uint64_t window_ns)
{
	uint64_t span = span_of(th, window_ns);

	return th->has_samples && span ? (double)(th->cpu_ns + th->runq_ns) / (double)span : 0.0;
}

uint64_t corecap_io_sum(const uint64_t io_ns[CORECAP_IO_CLASSES])
{
	uint64_t s = 0;

	for (int c = 0; c < CORECAP_IO_CLASSES; c++)
		s += io_ns[c];
	return s;
}

/* x * num / den without overflow for the nanosecond figures of a window. */
static uint64_t scale(uint64_t x, uint64_t num, uint64_t den)
{
	return den ? (uint64_t)((unsigned __int128)x * num / den) : 0;
}

void corecap_thread_waits(const struct model_thread *th, struct thread_waits *w)
{
	uint64_t pair = th->lock_wait_ns + th->cond_wait_ns, io = corecap_io_sum(th->io_ns);

	w->lock_ns = th->lock_wait_ns;
	w->cond_ns = th->cond_wait_ns;
	w->logging_ns = th->logging_ns;
	memcpy(w->io_ns, th->io_ns, sizeof(w->io_ns));
	if (!th->has_kstates)
		return;
	if (pair > th->k_futex_ns) {
		w->lock_ns = scale(th->lock_wait_ns, th->k_futex_ns, pair);
		w->cond_ns = th->k_futex_ns - w->lock_ns;
	}
	if (io > th->k_blocked_ns)
		for (int c = 0; c < CORECAP_IO_CLASSES; c++)
			w->io_ns[c] = scale(th->io_ns[c], th->k_blocked_ns, io);
}

static int cmp_pool(const void *a, const void *b)
{
	const struct model_pool *x = a, *y = b;

	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

int corecap_pool_table_build(struct pool_table *p, const struct thread_table *t, uint64_t window_ns)
{
	*p = (struct pool_table){0};
	p->pools = calloc(t->len ? t->len : 1, sizeof(*p->pools));
	if (!p->pools)
		return -ENOMEM;
	for (size_t i = 0; i < t->len; i++) {
		const struct model_thread *th = t->all[i];
		const char *name = th->pool[0] ? th->pool : "?";
		struct model_pool *pl = NULL;
		struct thread_waits tw;
		double busy;

		for (size_t j = 0; j < p->len && !pl; j++)
			if (strcmp(p->pools[j].name, name) == 0)
				pl = &p->pools[j];
		if (!pl) {
			pl = &p->pools[p->len++];
			snprintf(pl->name, sizeof(pl->name), "%s", name);
		}
		pl->n_threads++;
		corecap_thread_waits(th, &tw);
		pl->lock_wait_ns += tw.lock_ns;
		pl->cond_wait_ns += tw.cond_ns;
		pl->logging_ns += tw.logging_ns;
		for (int c = 0; c < CORECAP_IO_CLASSES; c++)
			pl->io_ns[c] += tw.io_ns[c];
		if (th->has_kstates) {
			pl->n_kstates++;
			pl->k_span_ns += th->span_ns;
			pl->k_futex_ns += th->k_futex_ns;
			pl->k_blocked_ns += th->k_blocked_ns;
		}
		if (!th->has_samples)
			continue;
		pl->n_sampled++;
		pl->span_ns += span_of(th, window_ns);
		pl->cpu_ns += th->cpu_ns;
		pl->runq_ns += th->runq_ns;
		p->cpu_ns += th->cpu_ns;
		p->runq_ns += th->runq_ns;
		p->n_sampled++;
		busy = corecap_thread_busy_util(th, window_ns);
		if (!pl->busiest || busy > pl->busiest_busy) {
			pl->busiest = th;
			pl->busiest_busy = busy;
		}
	}
	for (size_t j = 0; j < p->len; j++) {
		struct model_pool *pl = &p->pools[j];
		double cap = (double)pl->span_ns;

		pl->cpu_util = cap > 0 ? (double)pl->cpu_ns / cap : 0.0;
		pl->busy_util = cap > 0 ? (double)(pl->cpu_ns + pl->runq_ns) / cap : 0.0;
	}
	qsort(p->pools, p->len, sizeof(*p->pools), cmp_pool);
	return 0;
}

void corecap_pool_table_release(struct pool_table *p)
{
	free(p->pools);
	*p = (struct pool_table){0};
}
