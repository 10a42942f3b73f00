#include "lock_rows.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const sort_names[] = {
	[LOCK_SORT_WAIT] = "wait", [LOCK_SORT_CONTENDED] = "contended",
	[LOCK_SORT_HOLD] = "hold", [LOCK_SORT_AVG] = "avg",
	[LOCK_SORT_MAX] = "max",
};

bool corecap_lock_sort_parse(const char *s, enum lock_sort *out)
{
	for (size_t i = 0; i < sizeof(sort_names) / sizeof(sort_names[0]); i++)
		if (strcmp(s, sort_names[i]) == 0) {
			*out = (enum lock_sort)i;
			return true;
		}
	return false;
}

const char *corecap_lock_sort_name(enum lock_sort sort)
{
	return sort_names[sort];
}

const char *corecap_lock_sort_title(enum lock_sort sort, bool futex)
{
	static const char *const titles[] = {
		[LOCK_SORT_WAIT] = "total wait", [LOCK_SORT_CONTENDED] = "contentions",
		[LOCK_SORT_HOLD] = "hold time",	 [LOCK_SORT_AVG] = "average wait",
		[LOCK_SORT_MAX] = "max wait",
	};

	return futex && sort == LOCK_SORT_HOLD ? "busy time" : titles[sort];
}

uint64_t corecap_lock_holds(const struct model_lock *lock)
{
	return lock->has_stats && lock->stats_hold_ns ? lock->stats_holds : lock->holds;
}

/* A heap lock: no name of its own, only where it is taken. */
static bool nameless(const struct model_lock *l)
{
	return !l->name || strncmp(l->name, "0x", 2) == 0;
}

/* Same family: nameless, same source, kind and top site. */
static int cmp_family(const void *a, const void *b)
{
	const struct model_lock *x = *(const struct model_lock *const *)a;
	const struct model_lock *y = *(const struct model_lock *const *)b;
	const struct lock_site *sx = corecap_lock_top_site(x), *sy = corecap_lock_top_site(y);
	uint64_t fx = nameless(x) && sx ? sx->site : 0, fy = nameless(y) && sy ? sy->site : 0;
	uint64_t wx = corecap_lock_wait_ns(x), wy = corecap_lock_wait_ns(y);

	if (x->idle != y->idle)
		return x->idle ? 1 : -1;
	if (fx != fy)
		return fx < fy ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (wx != wy)
		return wx > wy ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static bool same_family(const struct model_lock *x, const struct model_lock *y)
{
	const struct lock_site *sx = corecap_lock_top_site(x), *sy = corecap_lock_top_site(y);

	return nameless(x) && nameless(y) && sx && sy && sx->site == sy->site &&
	       x->kind == y->kind && x->idle == y->idle;
}

static void add_member(struct lock_row *row, const struct model_lock *l, bool trace)
{
	bool events = trace || l->source == LOCK_SOURCE_FUTEX;

	row->contentions += corecap_lock_contentions(l);
	row->wait_ns += corecap_lock_wait_ns(l);
	if (events) {
		row->has_max_wait = true;
		if (l->max_wait_ns > row->max_wait_ns)
			row->max_wait_ns = l->max_wait_ns;
	}
	row->holds += corecap_lock_holds(l);
	row->hold_ns += corecap_lock_hold_ns(l);
	/* Distinct locks: the family is as busy as its busiest member. */
	if (corecap_lock_busy_ns(l) > row->busy_ns)
		row->busy_ns = corecap_lock_busy_ns(l);
}

uint64_t corecap_lock_row_avg_wait_ns(const struct lock_row *row)
{
	return row->contentions ? row->wait_ns / row->contentions : 0;
}

static uint64_t key(const struct lock_row *r, enum lock_sort sort)
{
	switch (sort) {
	case LOCK_SORT_CONTENDED:
		return r->contentions;
	case LOCK_SORT_HOLD:
		return r->source == LOCK_SOURCE_FUTEX ? r->busy_ns : r->hold_ns;
	case LOCK_SORT_AVG:
		return corecap_lock_row_avg_wait_ns(r);
	case LOCK_SORT_MAX:
		return r->max_wait_ns;
	case LOCK_SORT_WAIT:
		break;
	}
	return r->wait_ns;
}

static int cmp_row(const void *a, const void *b, void *arg)
{
	const struct lock_row *x = a, *y = b;
	enum lock_sort sort = *(const enum lock_sort *)arg;
	uint64_t kx = key(x, sort), ky = key(y, sort);

	if (x->idle != y->idle)
		return x->idle ? 1 : -1;
	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (x->wait_ns != y->wait_ns)
		return x->wait_ns > y->wait_ns ? -1 : 1;
	if (x->contentions != y->contentions)
		return x->contentions > y->contentions ? -1 : 1;
	return x->members[0]->addr < y->members[0]->addr
		       ? -1
		       : x->members[0]->addr > y->members[0]->addr;
}

int corecap_lock_rows_build(struct lock_rows *rows, const struct lock_table *t, enum lock_sort sort,
			    bool trace)
{
	size_t n = 0, len = 0;

	*rows = (struct lock_rows){0};
	rows->members = malloc((t->len ? t->len : 1) * sizeof(*rows->members));
	rows->v = calloc(t->len ? t->len : 1, sizeof(*rows->v));
	if (!rows->members || !rows->v) {
		corecap_lock_rows_release(rows);
		return -ENOMEM;
	}
	/* The profiler's own locks (profiler_own.h) are no row. */
	for (size_t i = 0; i < t->len; i++)
		if (!t->all[i]->profiler)
			rows->members[len++] = t->all[i];
	/* A futex word all of whose waits were re-locks (futex_locks.h) has
	 * its row among the idle ones only. */
	for (size_t i = 0, k = len; i < k; i++)
		if (rows->members[i]->source == LOCK_SOURCE_FUTEX && !rows->members[i]->contentions)
			len--;
		else
			rows->members[i - (k - len)] = rows->members[i];
	if (len) /* (qsort takes no NULL, even for 0 bytes) */
		qsort(rows->members, len, sizeof(*rows->members), cmp_family);
	for (size_t i = 0; i < len;) {
		struct lock_row *row = &rows->v[n++];
		size_t j = i + 1;

		while (j < len && same_family(rows->members[i], rows->members[j]))
			j++;
		row->members = &rows->members[i];
		row->n_members = j - i;
		row->family = j - i > 1;
		row->site = corecap_lock_top_site(rows->members[i]);
		row->kind = rows->members[i]->kind;
		row->source = rows->members[i]->source;
		row->idle = rows->members[i]->idle;
		for (size_t k = i; k < j; k++)
			add_member(row, rows->members[k], trace);
		i = j;
	}
	rows->n = n;
	qsort_r(rows->v, n, sizeof(*rows->v), cmp_row, &sort);
	return 0;
}

size_t corecap_lock_rows_contended(const struct lock_rows *rows)
{
	size_t i = 0;

	while (i < rows->n && !rows->v[i].idle)
		i++;
	return i;
}

void corecap_lock_rows_release(struct lock_rows *rows)
{
	free(rows->v);
	free(rows->members);
	*rows = (struct lock_rows){0};
}

bool corecap_lock_row_nameless(const struct lock_row *row)
{
	return row->family || nameless(row->members[0]);
}

void corecap_lock_row_label(const struct lock_row *row, char *out, size_t size)
{
	/* A family is named by its site; its count is the tables' detail, never the name. */
	if (row->family && row->site && row->site->symbol)
		snprintf(out, size, "%s", row->site->symbol);
	else if (row->family && row->site)
		snprintf(out, size, "0x%llx", (unsigned long long)row->site->site);
	else
		corecap_lock_label(row->members[0], out, size);
}
