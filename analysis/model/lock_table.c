#include "lock_table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/run_format.h>

void corecap_lock_table_init(struct lock_table *t)
{
	*t = (struct lock_table){0};
	corecap_u64map_init(&t->by_addr);
	corecap_u64map_init(&t->site_acqs);
}

void corecap_lock_table_release(struct lock_table *t)
{
	for (size_t i = 0; i < t->len; i++) {
		struct model_lock *l = t->all[i];

		for (size_t j = 0; j < l->n_sites; j++)
			free(l->sites[j].symbol);
		free(l->sites);
		free(l->stacks);
		free(l->waiters);
		free(l->holders);
		free(l->name);
		free(l);
	}
	free(t->all);
	corecap_u64map_release(&t->by_addr);
	corecap_u64map_release(&t->site_acqs);
	*t = (struct lock_table){0};
}

struct model_lock *corecap_lock_table_get(struct lock_table *t, uint64_t addr)
{
	uint64_t *idx = corecap_u64map_find(&t->by_addr, addr);
	struct model_lock *l, **all;

	if (idx)
		return t->all[*idx];
	if (t->len == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 32;

		all = realloc(t->all, cap * sizeof(*all));
		if (!all)
			return NULL;
		t->all = all;
		t->cap = cap;
	}
	l = calloc(1, sizeof(*l));
	idx = l ? corecap_u64map_upsert(&t->by_addr, addr, NULL) : NULL;
	if (!idx) {
		free(l);
		return NULL;
	}
	l->addr = addr;
	l->kind = LOCK_KIND_UNKNOWN;
	l->index = (uint32_t)t->len;
	*idx = t->len;
	t->all[t->len++] = l;
	return l;
}

struct lock_site *corecap_lock_table_site(struct model_lock *lock, uint64_t site, bool *created)
{
	struct lock_site *s;

	if (created)
		*created = false;
	/* Few sites take any one lock; a linear scan beats hashing here. */
	for (size_t i = 0; i < lock->n_sites; i++)
		if (lock->sites[i].site == site)
			return &lock->sites[i];
	if (lock->n_sites == lock->cap_sites) {
		size_t cap = lock->cap_sites ? lock->cap_sites * 2 : 4;

		s = realloc(lock->sites, cap * sizeof(*s));
		if (!s)
			return NULL;
		lock->sites = s;
		lock->cap_sites = cap;
	}
	s = &lock->sites[lock->n_sites++];
	*s = (struct lock_site){.site = site};
	if (created)
		*created = true;
	return s;
}

int corecap_lock_table_add_stack(struct model_lock *lock, const uint64_t *frames, uint32_t depth,
				 uint64_t wait_ns)
{
	struct lock_stack *st;

	if (depth > LOCK_STACK_DEPTH)
		depth = LOCK_STACK_DEPTH;
	for (size_t i = 0; i < lock->n_stacks; i++) {
		st = &lock->stacks[i];
		if (st->depth == depth && !memcmp(st->frames, frames, depth * sizeof(*frames))) {
			st->count++;
			st->wait_ns += wait_ns;
			return 0;
		}
	}
	if (lock->n_stacks == LOCK_STACKS_MAX) {
		lock->stacks_over_cap++;
		return 0;
	}
	if (!lock->stacks) {
		lock->stacks = calloc(LOCK_STACKS_MAX, sizeof(*lock->stacks));
		if (!lock->stacks)
			return -1;
	}
	st = &lock->stacks[lock->n_stacks++];
	st->count = 1;
	st->wait_ns = wait_ns;
	st->depth = depth;
	memcpy(st->frames, frames, depth * sizeof(*frames));
	return 0;
}

static void mark_ambiguous(struct lock_table *t);

void corecap_lock_table_symbolize(struct lock_table *t, lock_namer_fn namer, void *ctx)
{
	for (size_t i = 0; i < t->len; i++) {
		struct model_lock *l = t->all[i];

		free(l->name);
		l->name = namer(ctx, l->addr, false);
		for (size_t j = 0; j < l->n_sites; j++) {
			free(l->sites[j].symbol);
			l->sites[j].symbol = namer(ctx, l->sites[j].site, true);
		}
	}
	mark_ambiguous(t);
}

struct labelled {
	char label[160];
	struct model_lock *lock;
};

static int cmp_labelled(const void *a, const void *b)
{
	return strcmp(((const struct labelled *)a)->label, ((const struct labelled *)b)->label);
}

const struct lock_site *corecap_lock_top_site(const struct model_lock *lock)
{
	const struct lock_site *best = NULL;

	for (size_t i = 0; i < lock->n_sites; i++) {
		const struct lock_site *s = &lock->sites[i];

		if (!best || s->wait_ns > best->wait_ns ||
		    (s->wait_ns == best->wait_ns && s->contentions > best->contentions) ||
		    (s->wait_ns == best->wait_ns && s->contentions == best->contentions &&
		     s->hold_ns > best->hold_ns))
			best = s;
	}
	return best;
}

uint64_t corecap_lock_hold_ns(const struct model_lock *lock)
{
	return lock->has_stats && lock->stats_hold_ns ? lock->stats_hold_ns : lock->hold_ns;
}

void corecap_span_union_add(struct span_union *u, uint64_t b, uint64_t e)
{
	uint32_t i, j, n = u->n;

	if (b < u->final_until)
		b = u->final_until;
	if (e <= b)
		return;
	/* Sorted and disjoint, so the ends rise: the first interval ending at
	 * or after b, searched from the latest (where arrivals in end order land). */
	for (i = n; i > 0 && u->v[i - 1].e >= b; i--)
		;
	/* Merge every interval that [b, e) touches into one. */
	for (j = i; j < n && u->v[j].b <= e; j++) {
		if (u->v[j].b < b)
			b = u->v[j].b;
		if (u->v[j].e > e)
			e = u->v[j].e;
	}
	if (j == i && n == LOCK_WAIT_SPANS) {
		/* Full: the oldest becomes final. */
		u->final_ns += u->v[0].e - u->v[0].b;
		u->final_until = u->v[0].e;
		memmove(&u->v[0], &u->v[1], (n - 1) * sizeof(u->v[0]));
		n--;
		i--;
		j--;
		if (b < u->final_until)
			b = u->final_until;
	}
	memmove(&u->v[i + 1], &u->v[j], (n - j) * sizeof(u->v[0]));
	u->v[i].b = b;
	u->v[i].e = e;
	u->n = n - (j - i) + 1;
}

uint64_t corecap_span_union_ns(const struct span_union *u)
{
	uint64_t sum = u->final_ns;

	for (uint32_t i = 0; i < u->n; i++)
		sum += u->v[i].e - u->v[i].b;
	return sum;
}

void corecap_lock_add_waited(struct model_lock *lock, uint64_t b, uint64_t e)
{
	corecap_span_union_add(&lock->waited, b, e);
}

uint64_t corecap_lock_waited_ns(const struct model_lock *lock)
{
	return corecap_span_union_ns(&lock->waited);
}

uint64_t corecap_lock_contentions(const struct model_lock *lock)
{
	return lock->has_stats && lock->stats_contentions > lock->contentions
		       ? lock->stats_contentions
		       : lock->contentions;
}

uint64_t corecap_lock_wait_ns(const struct model_lock *lock)
{
	return lock->has_stats && lock->stats_wait_ns > lock->wait_ns ? lock->stats_wait_ns
								      : lock->wait_ns;
}

uint64_t corecap_lock_busy_ns(const struct model_lock *lock)
{
	uint64_t held = corecap_lock_hold_ns(lock), waited = corecap_lock_waited_ns(lock),
		 busy = corecap_span_union_ns(&lock->busy);

	/* A futex word's union has its waits and holds: a sum of holds that
	 * overlap (a hand-over seen late) would exceed the window. */
	if (lock->source == LOCK_SOURCE_FUTEX)
		return busy;
	if (waited > held)
		held = waited;
	return busy > held ? busy : held;
}

const char *corecap_lock_kind_name(uint8_t kind)
{
	/* From LOCK_KIND_FUTEX_WAIT on: the model's futex kinds (lock_table.h). */
	static const char *const futex_names[] = {"futex_wait", "futex_wait_bitset", "futex_pi"};

	if (kind < LOCK_KIND_FUTEX_WAIT)
		return corecap_lock_kind_label(kind);
	kind -= LOCK_KIND_FUTEX_WAIT;
	return kind < sizeof(futex_names) / sizeof(futex_names[0]) ? futex_names[kind] : "unknown";
}

void corecap_lock_label(const struct model_lock *lock, char *out, size_t size)
{
	const struct lock_site *s = corecap_lock_top_site(lock);

	/*
	 * No "lock at", no address, no count: the sentences and the column
	 * titles around a name say it is a lock, and a site is the text verify
	 * takes. Locks that share a site share its name (lock_rows.h makes
	 * them one row); their addresses are in the table's detail and JSON.
	 */
	if (lock->name && strncmp(lock->name, "0x", 2) != 0)
		snprintf(out, size, "%s", lock->name);
	else if (s && s->symbol)
		snprintf(out, size, "%s", s->symbol);
	else
		snprintf(out, size, "0x%llx", (unsigned long long)lock->addr);
}

/* Many locks of one kind (per-PG locks) share a site: tell them apart. */
static void mark_ambiguous(struct lock_table *t)
{
	struct labelled *v = calloc(t->len ? t->len : 1, sizeof(*v));

	if (!v)
		return; /* labels stay ambiguous; nothing is wrong but the names */
	for (size_t i = 0; i < t->len; i++) {
		t->all[i]->ambiguous = false;
		v[i].lock = t->all[i];
		corecap_lock_label(t->all[i], v[i].label, sizeof(v[i].label));
	}
	qsort(v, t->len, sizeof(*v), cmp_labelled);
	for (size_t i = 1; i < t->len; i++)
		if (strcmp(v[i - 1].label, v[i].label) == 0)
			v[i - 1].lock->ambiguous = v[i].lock->ambiguous = true;
	free(v);
}

static int cmp_stack(const void *a, const void *b)
{
	const struct lock_stack *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->wait_ns != y->wait_ns)
		return x->wait_ns > y->wait_ns ? -1 : 1;
	return memcmp(x->frames, y->frames, sizeof(x->frames));
}

void corecap_lock_table_sort_stacks(struct lock_table *t)
{
	for (size_t i = 0; i < t->len; i++)
		if (t->all[i]->n_stacks > 1)
			qsort(t->all[i]->stacks, t->all[i]->n_stacks, sizeof(struct lock_stack),
			      cmp_stack);
}

int corecap_lock_table_set_site_acquisitions(struct lock_table *t, uint64_t site, uint64_t acqs)
{
	uint64_t *v = corecap_u64map_upsert(&t->site_acqs, site, NULL);

	if (!v)
		return -1;
	*v = acqs;
	return 0;
}

bool corecap_lock_table_site_acquisitions(const struct lock_table *t, uint64_t site, uint64_t *acqs)
{
	const uint64_t *v = corecap_u64map_find(&t->site_acqs, site);

	if (v)
		*acqs = *v;
	return v != NULL;
}

int corecap_lock_tid_add(struct lock_tid **v, size_t *n, int32_t tid, uint64_t wait_ns)
{
	struct lock_tid *grown;

	/* As many entries as threads: a linear scan is enough. */
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].tid == tid) {
			(*v)[i].waits++;
			(*v)[i].wait_ns += wait_ns;
			return 0;
		}
	/* Capacity: 4, then doubled whenever n reaches a power of two. */
	if (!*n || (*n >= 4 && !(*n & (*n - 1)))) {
		grown = realloc(*v, (*n ? *n * 2 : 4) * sizeof(**v));
		if (!grown)
			return -ENOMEM;
		*v = grown;
	}
	(*v)[(*n)++] = (struct lock_tid){.tid = tid, .waits = 1, .wait_ns = wait_ns};
	return 0;
}
