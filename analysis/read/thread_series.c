#include "thread_series.h"

#include "../model/thread_table.h"
#include "threads_tsv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"

/* Bins times pools: a hostile threads.tsv (far-apart times, many names)
 * must not make the page's series take gigabytes (32 MiB at most). */
#define SERIES_MAX_CELLS (1u << 22)

void corecap_thread_series_init(struct thread_series *s, uint64_t start_ns, uint64_t end_ns,
				uint64_t bin_ns)
{
	*s = (struct thread_series){.start_ns = start_ns,
				    .end_ns = end_ns,
				    .bin_ns = bin_ns ? bin_ns : 100000000,
				    .has_start = start_ns != 0};
	corecap_u64map_init(&s->by_tid);
}

void corecap_thread_series_release(struct thread_series *s)
{
	for (size_t i = 0; i < s->n_pools; i++)
		free(s->pools[i].cpu_ns);
	free(s->pools);
	free(s->threads);
	free(s->gaps);
	corecap_u64map_release(&s->by_tid);
	*s = (struct thread_series){0};
}

double corecap_thread_series_cores(const struct thread_series *s, size_t p, size_t b)
{
	if (p >= s->n_pools || b >= s->n_bins)
		return 0;
	return (double)s->pools[p].cpu_ns[b] / (double)s->bin_ns;
}

static int pool_of(struct thread_series *s, const char *comm, size_t *out)
{
	char name[32];

	corecap_thread_pool_name(comm, name, sizeof(name));
	for (size_t i = 0; i < s->n_pools; i++)
		if (strcmp(s->pools[i].name, name) == 0) {
			*out = i;
			return 0;
		}
	if ((s->n_pools + 1) * s->n_bins > SERIES_MAX_CELLS)
		return -E2BIG;
	if (corecap_grow((void **)&s->pools, &s->cap_pools, s->n_pools + 1, sizeof(*s->pools)))
		return -ENOMEM;
	s->pools[s->n_pools] = (struct series_pool){0};
	snprintf(s->pools[s->n_pools].name, sizeof(s->pools[s->n_pools].name), "%s", name);
	if (s->n_bins) {
		s->pools[s->n_pools].cpu_ns = calloc(s->n_bins, sizeof(uint64_t));
		if (!s->pools[s->n_pools].cpu_ns)
			return -ENOMEM;
	}
	*out = s->n_pools++;
	return 0;
}

/* Makes room for bins up to index `bin` in every pool. */
static int ensure_bins(struct thread_series *s, size_t bin)
{
	size_t n = bin + 1;

	if (n <= s->n_bins)
		return 0;
	if (n > (1u << 22) || n * (s->n_pools ? s->n_pools : 1) > SERIES_MAX_CELLS)
		return -E2BIG;
	for (size_t i = 0; i < s->n_pools; i++) {
		uint64_t *grown = realloc(s->pools[i].cpu_ns, n * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		memset(grown + s->n_bins, 0, (n - s->n_bins) * sizeof(*grown));
		s->pools[i].cpu_ns = grown;
	}
	s->n_bins = n;
	return 0;
}

/* Spreads cpu ns used over [from, to) across the bins of pool p. */
static int spread(struct thread_series *s, size_t p, uint64_t from, uint64_t to, uint64_t cpu)
{
	uint64_t lo, hi, left = cpu;
	int ret;

	if (s->end_ns && to > s->end_ns) {
		if (from >= s->end_ns)
			return 0;
		cpu = (uint64_t)((double)cpu * (double)(s->end_ns - from) / (double)(to - from));
		to = s->end_ns;
		left = cpu;
	}
	if (to <= s->start_ns)
		return 0;
	if (from < s->start_ns) {
		cpu = (uint64_t)((double)cpu * (double)(to - s->start_ns) / (double)(to - from));
		from = s->start_ns;
		left = cpu;
	}
	ret = ensure_bins(s, (size_t)((to - 1 - s->start_ns) / s->bin_ns));
	if (ret)
		return ret;
	for (lo = from; lo < to && left; lo = hi) {
		size_t b = (size_t)((lo - s->start_ns) / s->bin_ns);
		uint64_t share;

		hi = s->start_ns + (b + 1) * s->bin_ns;
		if (hi >= to) {
			share = left;
			hi = to;
		} else {
			share = (uint64_t)((double)cpu * (double)(hi - lo) / (double)(to - from));
			if (share > left)
				share = left;
		}
		s->pools[p].cpu_ns[b] += share;
		left -= share;
	}
	s->pools[p].total_cpu_ns += cpu - left;
	return 0;
}

static int add_row(struct thread_series *s, uint64_t t, int32_t tid, const char *comm, uint64_t cpu)
{
	struct series_thread *th;
	uint64_t *idx;
	bool inserted;
	size_t p;
	int ret;

	if (!s->has_start) {
		s->start_ns = t;
		s->has_start = true;
	}
	idx = corecap_u64map_upsert(&s->by_tid, (uint64_t)(uint32_t)tid, &inserted);
	if (!idx)
		return -ENOMEM;
	if (inserted) {
		if (corecap_grow((void **)&s->threads, &s->cap_threads, s->n_threads + 1,
				 sizeof(*s->threads)))
			return -ENOMEM;
		*idx = s->n_threads;
		s->threads[s->n_threads++] = (struct series_thread){.tid = tid};
	}
	th = &s->threads[*idx];
	ret = pool_of(s, comm, &p);
	if (ret)
		return ret;
	if (inserted || strcmp(th->comm, comm) != 0)
		snprintf(th->comm, sizeof(th->comm), "%s", comm);
	if (th->has_last && t > th->last_ns && cpu >= th->last_cpu_ns) {
		ret = spread(s, p, th->last_ns, t, cpu - th->last_cpu_ns);
		if (ret)
			return ret;
	}
	th->has_last = true;
	th->last_ns = t;
	th->last_cpu_ns = cpu;
	return 0;
}

static int on_row(void *ctx, const struct threads_tsv_row *r)
{
	struct thread_series *s = ctx;

	s->rows++;
	/* Rows come a round at a time, rounds in time order: a gap is a time between rows. */
	if (s->gap_ns && s->last_row_ns && r->time_ns > s->last_row_ns + s->gap_ns) {
		if (corecap_grow((void **)&s->gaps, &s->cap_gaps, s->n_gaps + 1, sizeof(*s->gaps)))
			return -ENOMEM;
		s->gaps[s->n_gaps++] =
			(struct series_gap){.from_ns = s->last_row_ns, .to_ns = r->time_ns};
	}
	if (r->time_ns > s->last_row_ns)
		s->last_row_ns = r->time_ns;
	return add_row(s, r->time_ns, r->tid, r->comm,
		       r->run_ns >= 0 ? (uint64_t)r->run_ns : r->cpu_ns);
}

int corecap_thread_series_load(struct thread_series *s, const char *path, char **err)
{
	/* A picture: rows it cannot read are left out, not an error. */
	struct threads_tsv t = {.skip_unreadable = true};
	int ret = corecap_threads_tsv_read(&t, path, on_row, s, err);

	s->bad_rows += t.bad_rows;
	s->torn_last_line = t.torn_last_line;
	/* A pool's threads: those whose last name is in it. */
	for (size_t i = 0; i < s->n_threads && !ret; i++) {
		size_t p;

		ret = pool_of(s, s->threads[i].comm, &p);
		if (!ret)
			s->pools[p].n_threads++;
	}
	return ret;
}
