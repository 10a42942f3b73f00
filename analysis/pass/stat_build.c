/*
 * stat_build: the shim's deltas between two live copies into one
 * interval's figures (stat_build.h).
 */
#include "stat_build.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../read/shim_stats.h"

static char *name_of(void *ctx, uint64_t addr, bool code)
{
	return strdup(corecap_symbolizer_name(ctx, addr, code));
}

/*
 * The locks as a lock table, one site each (where the lock was first
 * contended, the only site the shim keeps per lock); the sites and the
 * process's figures as read/shim_stats diffs them.
 */
static int add_deltas(struct stat_interval *iv, const struct shim_stats *d)
{
	iv->contentions = d->contentions;
	iv->lock_wait_ns = d->lock_wait_ns;
	iv->cond_waits = d->cond_waits;
	iv->cond_wait_ns = d->cond_wait_ns;
	iv->io_calls = d->io_calls;
	for (int k = 0; k < CORECAP_IO_CLASSES; k++)
		iv->io_ns += d->io[k].ns;
	for (size_t i = 0; i < d->n_locks; i++) {
		const struct shim_lock_delta *l = &d->locks[i];

		if (corecap_stat_interval_add_lock(iv, l->addr, l->kind, l->acquisitions,
						   l->contentions, l->wait_ns, l->holds, l->hold_ns,
						   l->first_site))
			return -ENOMEM;
	}
	for (size_t i = 0; i < d->n_sites; i++) {
		const struct shim_site_delta *e = &d->sites[i];
		struct stat_site_row r = {.addr = e->addr,
					  .kind = e->kind,
					  .acquisitions = e->acquisitions,
					  .contentions = e->contentions,
					  .wait_ns = e->wait_ns,
					  .holds = e->holds,
					  .hold_ns = e->hold_ns};

		if (corecap_stat_interval_add_site(iv, &r))
			return -ENOMEM;
	}
	return 0;
}

/* The op and reply counters of two copies: totals since the shim started, their differences. */
static void add_ops(struct stat_interval *iv, const void *prev, const void *cur)
{
	const struct corecap_stats_header *h = cur;
	uint64_t before = corecap_stats_ops_total(prev), now = corecap_stats_ops_total(cur);

	iv->layout_version = h->version;
	iv->ops_counted = corecap_stats_has_ops(cur);
	iv->annotated = iv->ops_counted && (h->flags & CORECAP_STATS_F_ANNOTATED);
	iv->ops_total = now;
	/* Totals only grow (a reused slot's ops fold into retired_ops first). */
	iv->ops = now > before ? now - before : 0;
	before = corecap_stats_replies_total(prev);
	now = corecap_stats_replies_total(cur);
	iv->replies_counted = corecap_stats_has_replies(cur);
	iv->replies_total = now;
	iv->replies = now > before ? now - before : 0;
}

int corecap_stat_build(struct stat_interval *iv, const struct stat_snap *p,
		       const struct stat_snap *c, struct symbolizer *sym, enum stat_sort key)
{
	struct shim_stats d;
	int ret;

	corecap_stat_interval_init(iv, c->t_ns - p->t_ns);
	corecap_shim_stats_init(&d);
	ret = corecap_shim_stats_diff(&d, p->buf, c->buf);
	if (!ret)
		ret = add_deltas(iv, &d);
	if (!ret)
		add_ops(iv, p->buf, c->buf);
	corecap_shim_stats_release(&d);
	if (!ret)
		ret = corecap_stat_interval_threads(iv, p->buf, &p->tasks, c->buf, &c->tasks);
	if (!ret)
		ret = corecap_stat_interval_finish(iv, name_of, sym, key);
	if (ret) {
		corecap_stat_interval_release(iv);
		return -ENOMEM;
	}
	return 0;
}
