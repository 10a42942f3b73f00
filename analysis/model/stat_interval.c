/*
 * stat_interval: one interval of `corecap stat`'s shim view as figures
 * (stat_interval.h).
 */
#include "stat_interval.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"

void corecap_stat_interval_init(struct stat_interval *iv, uint64_t interval_ns)
{
	*iv = (struct stat_interval){.interval_ns = interval_ns};
	corecap_lock_table_init(&iv->lock_table);
}

void corecap_stat_interval_release(struct stat_interval *iv)
{
	corecap_lock_rows_release(&iv->lock_rows);
	corecap_lock_table_release(&iv->lock_table);
	free(iv->sites);
	free(iv->threads);
	*iv = (struct stat_interval){0};
}

static uint64_t delta(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : cur;
}

int corecap_stat_interval_add_lock(struct stat_interval *iv, uint64_t addr, uint32_t kind,
				   uint64_t acquisitions, uint64_t contentions, uint64_t wait_ns,
				   uint64_t holds, uint64_t hold_ns, uint64_t first_site)
{
	struct model_lock *m = corecap_lock_table_get(&iv->lock_table, addr);
	struct lock_site *site;

	if (!m)
		return -ENOMEM;
	m->kind = kind;
	m->has_stats = true;
	m->stats_acquisitions = acquisitions;
	m->stats_contentions = contentions;
	m->stats_wait_ns = wait_ns;
	m->stats_holds = holds;
	m->stats_hold_ns = hold_ns;
	if (!first_site)
		return 0;
	site = corecap_lock_table_site(m, first_site, NULL);
	if (!site)
		return -ENOMEM;
	site->contentions = contentions;
	site->wait_ns = wait_ns;
	return 0;
}

int corecap_stat_interval_add_site(struct stat_interval *iv, const struct stat_site_row *row)
{
	if (corecap_grow((void **)&iv->sites, &iv->cap_sites, iv->n_sites + 1, sizeof(*row)))
		return -ENOMEM;
	iv->sites[iv->n_sites++] = *row;
	return 0;
}

static int cmp_task_tid(const void *a, const void *b)
{
	const struct stat_task_time *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static const struct stat_task_time *task_of(const struct stat_tasks *s, int32_t tid)
{
	struct stat_task_time key = {.tid = tid};

	if (!s->n)
		return NULL;
	return bsearch(&key, s->v, s->n, sizeof(*s->v), cmp_task_tid);
}

static uint64_t sum_classes(const uint64_t *v)
{
	uint64_t s = 0;

	for (int i = 0; i < CORECAP_IO_CLASSES; i++)
		s += v[i];
	return s;
}

/*
 * Threads, slot by slot: a slot that holds the same thread (tid and
 * start time) in both copies gives its difference; a slot claimed in the
 * interval counts from zero. Exited threads appear in the interval they
 * exited in.
 */
int corecap_stat_interval_threads(struct stat_interval *iv, const void *p,
				  const struct stat_tasks *sp, const void *c,
				  const struct stat_tasks *sc)
{
	const struct corecap_stats_header *hc = c, *hp = p;

	iv->threads = calloc(hc->max_threads ? hc->max_threads : 1, sizeof(*iv->threads));
	if (!iv->threads)
		return -ENOMEM;
	for (uint32_t i = 0; i < hc->max_threads; i++) {
		const struct corecap_stats_thread *t = corecap_stats_thread_at(c, i), *t0 = NULL;
		const struct stat_task_time *k1, *k0;
		struct stat_thread_row *r;
		struct corecap_stats_counters zero = {0};
		const struct corecap_stats_counters *b;

		if (t->state == CORECAP_THREAD_FREE)
			continue;
		if (i < hp->max_threads) {
			t0 = corecap_stats_thread_at(p, i);
			if (t0->state == CORECAP_THREAD_FREE || t0->tid != t->tid ||
			    t0->start_ns != t->start_ns)
				t0 = NULL;
		}
		if (t0 && t0->state == CORECAP_THREAD_EXITED)
			continue; /* exited before the interval */
		b = t0 ? &t0->c : &zero;
		r = &iv->threads[iv->n_threads++];
		r->tid = t->tid;
		memcpy(r->name, t->name, CORECAP_STATS_NAME_LEN);
		r->name[CORECAP_STATS_NAME_LEN] = '\0';
		r->live = t->state == CORECAP_THREAD_LIVE;
		r->contentions = delta(t->c.contentions, b->contentions);
		r->lock_wait_ns = delta(t->c.lock_wait_ns, b->lock_wait_ns);
		r->cond_waits = delta(t->c.cond_waits, b->cond_waits);
		r->cond_wait_ns = delta(t->c.cond_wait_ns, b->cond_wait_ns);
		r->io_calls = delta(sum_classes(t->c.io_calls), sum_classes(b->io_calls));
		r->io_ns = delta(sum_classes(t->c.io_ns), sum_classes(b->io_ns));
		/* /proc's times at both ends of the interval; a thread that started
		 * in it (not listed at its start) counts from 0. */
		k1 = task_of(sc, t->tid);
		k0 = task_of(sp, t->tid);
		if (k1 && k1->ok && ((k0 && k0->ok) || (!k0 && sp->listed))) {
			r->has_cpu = true;
			r->cpu_ns = delta(k1->cpu_ns, k0 ? k0->cpu_ns : 0);
			r->has_runq = k1->has_runq && (!k0 || k0->has_runq);
			r->runq_ns = r->has_runq ? delta(k1->runq_ns, k0 ? k0->runq_ns : 0) : 0;
		}
	}
	return 0;
}

/* More first: -1 when x > y. */
static int desc(uint64_t x, uint64_t y)
{
	return x == y ? 0 : x < y ? 1 : -1;
}

static int cmp_sites(const void *a, const void *b)
{
	const struct stat_site_row *x = a, *y = b;
	int c = desc(x->wait_ns, y->wait_ns);

	if (!c)
		c = desc(x->contentions, y->contentions);
	if (!c)
		c = desc(x->hold_ns, y->hold_ns);
	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* More first; a row without the figure after every row with it. */
static int cmp_more(bool hx, uint64_t x, bool hy, uint64_t y)
{
	if (hx != hy)
		return hx ? -1 : 1;
	return desc(x, y);
}

/* qsort's comparator has no context: the key of the sort in progress (one thread). */
static enum stat_sort sort_key;

static int cmp_threads(const void *a, const void *b)
{
	const struct stat_thread_row *x = a, *y = b;
	int c = 0;

	switch (sort_key) {
	case STAT_SORT_CPU:
		c = cmp_more(x->has_cpu, x->cpu_ns, y->has_cpu, y->cpu_ns);
		break;
	case STAT_SORT_RUNQ:
		c = cmp_more(x->has_runq, x->runq_ns, y->has_runq, y->runq_ns);
		break;
	case STAT_SORT_COND:
		c = cmp_more(true, x->cond_wait_ns, true, y->cond_wait_ns);
		break;
	case STAT_SORT_IO:
		c = cmp_more(true, x->io_ns, true, y->io_ns);
		break;
	case STAT_SORT_NAME:
		c = strcmp(x->name, y->name);
		if (!c)
			c = (x->tid > y->tid) - (x->tid < y->tid);
		break;
	default:
		break;
	}
	if (!c)
		c = desc(x->lock_wait_ns, y->lock_wait_ns);
	if (!c)
		c = desc(x->io_ns, y->io_ns);
	if (!c)
		c = desc(x->cond_wait_ns, y->cond_wait_ns);
	return c ? c : x->tid - y->tid;
}

void corecap_stat_interval_sort_threads(struct stat_interval *iv, enum stat_sort key)
{
	sort_key = key;
	if (iv->n_threads)
		qsort(iv->threads, iv->n_threads, sizeof(*iv->threads), cmp_threads);
}

int corecap_stat_interval_finish(struct stat_interval *iv, lock_namer_fn namer, void *ctx,
				 enum stat_sort key)
{
	corecap_lock_table_symbolize(&iv->lock_table, namer, ctx);
	if (corecap_lock_rows_build(&iv->lock_rows, &iv->lock_table, LOCK_SORT_WAIT, false))
		return -ENOMEM;
	if (iv->n_sites)
		qsort(iv->sites, iv->n_sites, sizeof(*iv->sites), cmp_sites);
	corecap_stat_interval_sort_threads(iv, key);
	return 0;
}

uint64_t corecap_stat_row_acquisitions(const struct lock_row *r)
{
	uint64_t n = 0;

	for (size_t i = 0; i < r->n_members; i++)
		n += r->members[i]->stats_acquisitions;
	return n;
}
