#include "thread_table.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void corecap_thread_table_init(struct thread_table *t)
{
	*t = (struct thread_table){0};
	corecap_u64map_init(&t->by_tid);
}

void corecap_thread_table_release(struct thread_table *t)
{
	for (size_t i = 0; i < t->len; i++)
		free(t->all[i]);
	free(t->all);
	corecap_u64map_release(&t->by_tid);
	*t = (struct thread_table){0};
}

struct model_thread *corecap_thread_table_find(const struct thread_table *t, int32_t tid)
{
	uint64_t *idx = corecap_u64map_find(&t->by_tid, (uint64_t)(uint32_t)tid);

	return idx ? t->all[*idx] : NULL;
}

struct model_thread *corecap_thread_table_get(struct thread_table *t, int32_t tid)
{
	struct model_thread *th = corecap_thread_table_find(t, tid), **all;
	uint64_t *idx;

	if (th)
		return th;
	if (t->len == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 32;

		all = realloc(t->all, cap * sizeof(*all));
		if (!all)
			return NULL;
		t->all = all;
		t->cap = cap;
	}
	th = calloc(1, sizeof(*th));
	idx = th ? corecap_u64map_upsert(&t->by_tid, (uint64_t)(uint32_t)tid, NULL) : NULL;
	if (!idx) {
		free(th);
		return NULL;
	}
	th->tid = tid;
	*idx = t->len;
	t->all[t->len++] = th;
	return th;
}

void corecap_thread_pool_name(const char *name, char *out, size_t size)
{
	size_t n = strlen(name);

	while (n > 0 &&
	       (isdigit((unsigned char)name[n - 1]) || name[n - 1] == '-' || name[n - 1] == '_' ||
		name[n - 1] == '.' || name[n - 1] == ':' || name[n - 1] == ' '))
		n--;
	if (n == 0) /* a name of digits only is its own pool */
		n = strlen(name);
	if (n >= size)
		n = size - 1;
	memcpy(out, name, n);
	out[n] = '\0';
}

void corecap_thread_table_name(struct model_thread *th, const char *name,
			       enum thread_name_source src)
{
	if (!name || !*name || src < th->name_source)
		return;
	if (src == th->name_source && strncmp(th->name, name, sizeof(th->name) - 1) == 0)
		return;
	snprintf(th->name, sizeof(th->name), "%s", name);
	th->name_source = src;
	corecap_thread_pool_name(th->name, th->pool, sizeof(th->pool));
}

void corecap_thread_log_span(struct model_thread *th, uint64_t b, uint64_t e)
{
	uint32_t last = (th->log_head + THREAD_LOG_SPANS - 1) % THREAD_LOG_SPANS;

	/* Keep them disjoint: a wait's start is measured, not exact. */
	if (th->n_log_spans && b < th->log_spans[last].e)
		b = th->log_spans[last].e;
	if (e <= b)
		return;
	th->log_spans[th->log_head].b = b;
	th->log_spans[th->log_head].e = e;
	th->log_head = (th->log_head + 1) % THREAD_LOG_SPANS;
	if (th->n_log_spans < THREAD_LOG_SPANS)
		th->n_log_spans++;
}

uint64_t corecap_thread_logging_in(const struct model_thread *th, uint64_t b, uint64_t e)
{
	uint32_t at = th->log_head;
	uint64_t sum = 0;

	/*
	 * Spans are disjoint and in time order (corecap_thread_log_span):
	 * walked newest first, the first one that ends by b ends the walk,
	 * so a recent window costs a span or two, not all of them.
	 */
	for (uint32_t k = 0; k < th->n_log_spans; k++) {
		uint64_t lb, le;

		at = (at + THREAD_LOG_SPANS - 1) % THREAD_LOG_SPANS;
		if (th->log_spans[at].e <= b)
			break;
		lb = th->log_spans[at].b > b ? th->log_spans[at].b : b;
		le = th->log_spans[at].e < e ? th->log_spans[at].e : e;
		if (le > lb)
			sum += le - lb;
	}
	return sum;
}
