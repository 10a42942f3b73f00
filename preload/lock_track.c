#include <errno.h>
#include <string.h>

#include "delay.h"
#include "events.h"
#include "lock_track.h"
#include "settings.h"
#include "site_table.h"
#include "stack_sample.h"
#include "stats_shm.h"
#include "util.h"

int lock_track_extra;

/*
 * How many threads wait on a cond, hashed by its address (collisions
 * only make a wake event more likely): lets signal/broadcast skip the
 * wake event when nobody can be woken, which is the common case of a
 * queue whose consumer is busy.
 */
#define COND_WAITER_BITS 12
static uint32_t cond_waiters[1u << COND_WAITER_BITS];

static int hold_find(const struct tstate *ts, const void *lock)
{
	for (int i = (int)ts->hold_depth - 1; i >= 0; i--)
		if (ts->holds[i].lock == lock)
			return i;
	return -1;
}

static void hold_push(struct tstate *ts, const void *lock, uint32_t kind, uint64_t now,
		      uint64_t site, struct corecap_stats_site *site_entry,
		      struct corecap_stats_lock *hot, bool emit)
{
	int i = hold_find(ts, lock);
	struct hold_entry *e;

	if (i >= 0) {
		ts->holds[i].nest++; /* recursive mutex or repeated read lock */
		return;
	}
	if (ts->hold_depth == TSTATE_HOLD_DEPTH) {
		if (stats_shm_ready(&g_stats))
			shared_add(&g_stats.hdr->holds_dropped, 1);
		return;
	}
	e = &ts->holds[ts->hold_depth++];
	e->lock = lock;
	e->acquired_ns = now;
	e->site = site_entry;
	e->hot = hot;
	e->site_addr = site;
	e->kind = kind;
	e->nest = 0;
	e->emit = emit;
}

static void hold_account(const struct hold_entry *e, uint64_t hold_ns)
{
	if (e->hot) {
		if (e->kind == CORECAP_KIND_RWLOCK_RD) {
			shared_add(&e->hot->shared_holds, 1);
			shared_add(&e->hot->shared_hold_ns, hold_ns);
		} else {
			shared_add(&e->hot->holds, 1);
			shared_add(&e->hot->hold_ns, hold_ns);
			shared_max(&e->hot->max_hold_ns, hold_ns);
		}
	}
	if (e->site)
		site_table_add_hold(e->site, hold_ns);
	if (e->emit)
		events_lock_hold(e->lock, (int)e->kind, e->site_addr, hold_ns);
}

static bool hold_sample_due(struct tstate *ts)
{
	uint32_t every = g_settings.hold_sample_every;

	if (!every)
		return false;
	if (ts->hold_countdown == 0 || ts->hold_countdown > every)
		ts->hold_countdown = every;
	return --ts->hold_countdown == 0;
}

void lock_track_acquired(struct tstate *ts, const void *lock, uint32_t kind, uint64_t site)
{
	int saved_errno = errno;
	struct corecap_stats_lock *hot = NULL;
	bool sampled;

	ts->guard++;
	if (!stats_shm_ready(&g_stats))
		goto out;
	if (lock_table_maybe_hot(lock))
		hot = lock_table_find(&g_stats, lock);
	sampled = hold_sample_due(ts);
	if (hot || sampled) {
		uint64_t now = now_ns();
		struct corecap_stats_site *se = site_table_get(&g_stats, site, kind);

		if (hot) {
			shared_add(&hot->acquisitions, 1);
			if (se)
				shared_add(&se->acquisitions, 1);
		}
		hold_push(ts, lock, kind, now, site, se, hot, sampled);
	}
out:
	if (unlikely(site == g_delay.site))
		delay_busy(g_delay.ns);
	ts->guard--;
	errno = saved_errno;
}

/* Site entry and, for the sampled waits, the stack; before blocking. */
static void wait_prepare(struct wait_ctx *w)
{
	struct corecap_stats_site *se;

	w->site_entry = NULL;
	w->depth = 0;
	if (tstate_needs_attach(w->ts))
		tstate_attach(w->ts);
	if (!stats_shm_ready(&g_stats))
		return;
	se = site_table_get(&g_stats, w->site, w->kind);
	w->site_entry = se;
	if (!se || !stack_sample_due(__atomic_load_n(&se->contentions, __ATOMIC_RELAXED),
				     g_settings.stack_sample_every))
		return;
	w->depth = stack_sample_capture(w->stack, g_settings.stack_depth, w->site);
	shared_add(&g_stats.hdr->stacks_sampled, 1);
	if (site_table_claim_stack(se))
		site_table_publish_stack(se, w->stack, w->depth);
}

void lock_track_wait_begin(struct wait_ctx *w, struct tstate *ts, const void *lock, uint32_t kind,
			   uint64_t site)
{
	w->saved_errno = errno;
	w->ts = ts;
	w->lock = lock;
	w->mutex = NULL;
	w->kind = kind;
	w->site = site;
	ts->guard++;
	wait_prepare(w);
	ts->guard--;
	w->t0 = now_ns();
}

void lock_track_wait_end(struct wait_ctx *w, enum wait_outcome outcome)
{
	uint64_t t1 = now_ns(), wait_ns = t1 - w->t0;
	struct tstate *ts = w->ts;
	struct corecap_stats_counters *c = &ts->slot->c;
	struct corecap_stats_lock *hot = NULL;
	bool acquired = outcome == WAIT_ACQUIRED;

	if (outcome == WAIT_FAILED)
		goto out;
	ts->guard++;
	own_add(&c->contentions, 1);
	own_add(&c->lock_wait_ns, wait_ns);
	if (acquired)
		own_add(&c->acquisitions, 1);
	if (w->site_entry) {
		site_table_add_wait(w->site_entry, wait_ns, outcome == WAIT_TIMED_OUT);
		if (acquired)
			shared_add(&w->site_entry->acquisitions, 1);
	}
	if (stats_shm_ready(&g_stats)) {
		hot = lock_table_mark_hot(&g_stats, w->lock, w->kind, w->site, t1);
		if (hot) {
			shared_add(&hot->contentions, 1);
			shared_add(&hot->wait_ns, wait_ns);
			if (acquired)
				shared_add(&hot->acquisitions, 1);
		}
	}
	if (acquired)
		hold_push(ts, w->lock, w->kind, t1, w->site, w->site_entry, hot, true);
	events_lock_contended(w->lock, (int)w->kind, w->site, wait_ns, acquired, w->stack,
			      w->depth);
	events_poll_names();
	if (acquired && unlikely(w->site == g_delay.site))
		delay_busy(g_delay.ns);
	ts->guard--;
out:
	errno = w->saved_errno;
}

void lock_track_release(struct tstate *ts, const void *lock)
{
	int i = hold_find(ts, lock), saved_errno;
	struct hold_entry *e;

	if (i < 0)
		return;
	e = &ts->holds[i];
	if (e->nest) {
		e->nest--;
		return;
	}
	saved_errno = errno;
	ts->guard++;
	hold_account(e, now_ns() - e->acquired_ns);
	memmove(e, e + 1, (ts->hold_depth - (uint32_t)i - 1) * sizeof(*e));
	ts->hold_depth--;
	ts->guard--;
	errno = saved_errno;
}

void lock_track_cond_begin(struct wait_ctx *w, struct tstate *ts, const void *cond,
			   const void *mutex, uint64_t site)
{
	int i;

	w->saved_errno = errno;
	w->ts = ts;
	w->lock = cond;
	w->mutex = mutex;
	w->kind = CORECAP_KIND_COND;
	w->site = site;
	ts->guard++;
	wait_prepare(w);
	__atomic_fetch_add(&cond_waiters[addr_hash((uint64_t)(uintptr_t)cond, COND_WAITER_BITS)], 1,
			   __ATOMIC_RELAXED);
	i = hold_find(ts, mutex);
	if (i >= 0) {
		/* The wait releases the mutex: its hold ends here. */
		hold_account(&ts->holds[i], now_ns() - ts->holds[i].acquired_ns);
	}
	ts->guard--;
	w->t0 = now_ns();
}

void lock_track_cond_end(struct wait_ctx *w, int result)
{
	uint64_t t1 = now_ns(), wait_ns = t1 - w->t0;
	struct tstate *ts = w->ts;
	struct corecap_stats_counters *c = &ts->slot->c;
	int i;

	ts->guard++;
	__atomic_fetch_sub(&cond_waiters[addr_hash((uint64_t)(uintptr_t)w->lock, COND_WAITER_BITS)],
			   1, __ATOMIC_RELAXED);
	own_add(&c->cond_waits, 1);
	own_add(&c->cond_wait_ns, wait_ns);
	if (w->site_entry)
		site_table_add_wait(w->site_entry, wait_ns, result == ETIMEDOUT);
	/* The wait re-took the mutex (also on timeout): a new hold starts. */
	i = hold_find(ts, w->mutex);
	if (i >= 0) {
		ts->holds[i].acquired_ns = t1;
		ts->holds[i].emit = false;
		if (ts->holds[i].hot)
			shared_add(&ts->holds[i].hot->acquisitions, 1);
	} else if (lock_table_maybe_hot(w->mutex) && stats_shm_ready(&g_stats)) {
		struct corecap_stats_lock *hot = lock_table_find(&g_stats, w->mutex);

		if (hot) {
			shared_add(&hot->acquisitions, 1);
			hold_push(ts, w->mutex, CORECAP_KIND_MUTEX, t1, 0, NULL, hot, false);
		}
	}
	events_cond_wait(w->lock, w->mutex, w->site, wait_ns, result == ETIMEDOUT);
	events_poll_names();
	ts->guard--;
	errno = w->saved_errno;
}

void lock_track_cond_wake(struct tstate *ts, const void *cond, uint64_t site, bool broadcast)
{
	uint32_t h = addr_hash((uint64_t)(uintptr_t)cond, COND_WAITER_BITS);

	if (!events_cond_wake_enabled() || !__atomic_load_n(&cond_waiters[h], __ATOMIC_RELAXED))
		return;
	ts->guard++;
	events_cond_wake(cond, site, broadcast);
	ts->guard--;
}

void lock_track_reset(struct tstate *ts)
{
	ts->hold_depth = 0;
	memset(cond_waiters, 0, sizeof(cond_waiters));
}
