/*
 * stat_kernel_interval: one interval of `corecap stat`'s kernel view as
 * figures (stat_kernel_interval.h).
 */
#include "stat_kernel_interval.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"

void corecap_stat_kernel_interval_init(struct stat_kernel_interval *iv, uint64_t ws, uint64_t we,
				       const char *comm, int32_t self_pid, bool keep_profiler)
{
	memset(iv, 0, sizeof(*iv));
	iv->ws = ws;
	iv->we = we;
	corecap_profiler_own_init(&iv->prof, comm, self_pid);
	iv->prof.keep = keep_profiler;
	corecap_lock_table_init(&iv->words);
}

void corecap_stat_kernel_interval_release(struct stat_kernel_interval *iv)
{
	corecap_lock_table_release(&iv->words);
	corecap_profiler_own_release(&iv->prof);
	free(iv->threads);
	free(iv->pools);
	free(iv->rows);
}

static uint64_t busy_of(const struct stat_kthread_row *t)
{
	return t->ns[KSTATE_RUNNING] + t->ns[KSTATE_RUNNABLE];
}

/* qsort's comparator has no context: the key of the sort in progress (one thread). */
static enum stat_ksort sort_key;

static int cmp_more(uint64_t x, uint64_t y)
{
	return x == y ? 0 : x < y ? 1 : -1;
}

/* Busiest first: on a CPU or wanting one, then futex wait, then tid (or the key's order first). */
static int cmp_threads(const void *a, const void *b)
{
	const struct stat_kthread_row *x = a, *y = b;
	int c = 0;

	switch (sort_key) {
	case KSORT_RUN:
		c = cmp_more(x->ns[KSTATE_RUNNING], y->ns[KSTATE_RUNNING]);
		break;
	case KSORT_RUNQ:
		c = cmp_more(x->ns[KSTATE_RUNNABLE], y->ns[KSTATE_RUNNABLE]);
		break;
	case KSORT_FUTEX:
		c = cmp_more(x->ns[KSTATE_FUTEX], y->ns[KSTATE_FUTEX]);
		break;
	case KSORT_BLOCK:
		c = cmp_more(x->ns[KSTATE_BLOCKED], y->ns[KSTATE_BLOCKED]);
		break;
	case KSORT_NAME:
		c = strcmp(x->name, y->name);
		break;
	default:
		break;
	}
	if (!c)
		c = cmp_more(busy_of(x), busy_of(y));
	if (!c)
		c = cmp_more(x->ns[KSTATE_FUTEX], y->ns[KSTATE_FUTEX]);
	return c ? c : x->tid - y->tid;
}

static int cmp_pools(const void *a, const void *b)
{
	const struct stat_kpool_row *x = a, *y = b;
	uint64_t bx = x->ns[KSTATE_RUNNING] + x->ns[KSTATE_RUNNABLE],
		 by = y->ns[KSTATE_RUNNING] + y->ns[KSTATE_RUNNABLE];

	if (bx != by)
		return bx < by ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int cmp_words(const void *a, const void *b)
{
	const struct model_lock *x = *(const struct model_lock *const *)a,
				*y = *(const struct model_lock *const *)b;

	/* Mutexes (contention) first, the idle waits after them. */
	if (x->idle != y->idle)
		return x->idle ? 1 : -1;
	if (x->wait_ns != y->wait_ns)
		return x->wait_ns < y->wait_ns ? 1 : -1;
	if (x->contentions != y->contentions)
		return x->contentions < y->contentions ? 1 : -1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int add_pool(struct stat_kernel_interval *iv, const struct stat_kthread_row *t)
{
	struct stat_kpool_row *p = NULL;

	for (size_t i = 0; i < iv->n_pools && !p; i++)
		if (strcmp(iv->pools[i].name, t->pool) == 0)
			p = &iv->pools[i];
	if (!p) {
		if (corecap_grow((void **)&iv->pools, &iv->cap_pools, iv->n_pools + 1,
				 sizeof(*iv->pools)))
			return -ENOMEM;
		p = &iv->pools[iv->n_pools++];
		*p = (struct stat_kpool_row){0};
		snprintf(p->name, sizeof(p->name), "%s", t->pool);
	}
	p->n_threads++;
	p->span_ns += t->span_ns;
	for (int s = 0; s < KSTATE__COUNT; s++)
		p->ns[s] += t->ns[s];
	return 0;
}

int corecap_stat_kernel_add_thread(struct stat_kernel_interval *iv,
				   const struct stat_kthread_row *t)
{
	if (corecap_grow((void **)&iv->threads, &iv->cap_threads, iv->n_threads + 1,
			 sizeof(*iv->threads)))
		return -ENOMEM;
	iv->threads[iv->n_threads++] = *t;
	for (int s = 0; s < KSTATE__COUNT; s++)
		iv->total_ns[s] += t->ns[s];
	return add_pool(iv, t);
}

void corecap_stat_kernel_sort(struct stat_kernel_interval *iv, enum stat_ksort key)
{
	sort_key = key;
	if (iv->n_threads)
		qsort(iv->threads, iv->n_threads, sizeof(*iv->threads), cmp_threads);
	if (iv->n_pools)
		qsort(iv->pools, iv->n_pools, sizeof(*iv->pools), cmp_pools);
}

int corecap_stat_kernel_rows(struct stat_kernel_interval *iv)
{
	iv->rows = calloc(iv->words.len ? iv->words.len : 1, sizeof(*iv->rows));
	if (!iv->rows)
		return -ENOMEM;
	for (size_t i = 0; i < iv->words.len; i++) {
		const struct model_lock *l = iv->words.all[i];

		if (!l->contentions || l->profiler)
			continue;
		iv->rows[iv->n_rows++] = l;
		iv->futex_waits += l->contentions;
		iv->futex_wait_ns += l->wait_ns;
	}
	qsort(iv->rows, iv->n_rows, sizeof(*iv->rows), cmp_words);
	while (iv->n_mutex_rows < iv->n_rows && !iv->rows[iv->n_mutex_rows]->idle)
		iv->n_mutex_rows++;
	return 0;
}
