#include <errno.h>
#include <string.h>

#include "delay.h"
#include "events.h"
#include "lock_track.h"
#include "settings.h"
#include "site_table.h"
#include "stack_sample.h"
#include "stats_shm.h"
#include "tick_clock.h"
#include "util.h"

int lock_track_extra;

__thread struct lock_track corecap_lock_track __attribute__((tls_model("initial-exec")));

/*
 * How many threads wait on a cond, hashed by its address (collisions
 * only make a wake event more likely): lets signal/broadcast skip the
 * wake event when nobody can be woken, which is the common case of a
 * queue whose consumer is busy.
 */
#define COND_WAITER_BITS 12
static uint32_t cond_waiters[1u << COND_WAITER_BITS];

/*
 * Batching. The holds of hot locks' uncontended acquisitions and the
 * condition waits are frequent (several per op in a daemon) and their
 * shared entries are written by every thread: adding each one with
 * atomics would bounce those cache lines between cores. So a thread sums
 * them in its own lacc[]/sacc[]/wacc[] and publishes a slot when it has gathered
 * BATCH events, when the slot is needed for another key, when
 * FLUSH_AFTER_NS have passed since its last publication (checked at each
 * such event), and at thread and process exit. And a thread about to
 * block (a contended lock wait, a condition wait, a read, a blocking
 * io_getevents: lock_track_block_due) publishes everything if it batched
 * anything and BLOCK_GAP_NS have passed since its last publication:
 * otherwise a worker that goes idle at the end of a benchmark would keep
 * up to BATCH - 1 tracked holds (x CORECAP_HOLD_TIME) per lock and per
 * site unpublished for as long as it sleeps, and a copy of the file taken
 * meanwhile would miss them. The file therefore lags a running thread by
 * at most ~10 ms of its activity, and a blocked one by at most
 * BLOCK_GAP_NS of its activity before it blocked. Contended acquisitions,
 * their holds, and the per-thread counters are published at once.
 */
#define BATCH	       32
#define FLUSH_AFTER_NS 10000000
/*
 * The pre-block publication's rate limit: a thread that blocks often
 * (every op, on a queue's condition) publishes at most once per 1 ms
 * there, so its batches still save most of the shared-line atomics (an
 * op of a Ceph OSD takes tens of us), while what a blocked thread holds
 * back is bounded by 1 ms of its activity.
 */
#define BLOCK_GAP_NS 1000000

/* Unwind at most one stack per thread per STACK_GAP_NS beyond the first
 * wait at each site: 10 unwinds a second of a few us each per thread. */
#define STACK_GAP_NS 100000000

static int hold_find(const struct lock_track *lt, const void *lock)
{
	for (int i = (int)lt->hold_depth - 1; i >= 0; i--)
		if (lt->holds[i].lock == lock)
			return i;
	return -1;
}

/* now: ticks; weight: how many holds this one stands for. */
static struct hold_entry *hold_push(struct lock_track *lt, const void *lock, uint32_t kind,
				    uint64_t now, uint64_t site, uint32_t weight)
{
	int i = hold_find(lt, lock);
	struct hold_entry *e;

	if (i >= 0) {
		lt->holds[i].nest++; /* recursive mutex or repeated read lock */
		return NULL;
	}
	if (lt->hold_depth == LOCK_TRACK_HOLD_DEPTH) {
		if (stats_shm_ready(&g_stats))
			shared_add(&g_stats.hdr->holds_dropped, 1);
		return NULL;
	}
	e = &lt->holds[lt->hold_depth++];
	e->lock = lock;
	e->acquired = now;
	e->site_addr = site;
	e->site = NULL;
	e->hot = NULL;
	e->kind = kind;
	e->nest = 0;
	e->contended = false;
	e->sampled = false;
	e->count_acq = false;
	e->weight = weight;
	return e;
}

/* Adds holds to the shared entries (either may be NULL). */
static void hold_publish(struct corecap_stats_lock *hot, struct corecap_stats_site *site,
			 uint32_t kind, uint32_t acquisitions, uint32_t holds, uint64_t hold_ns,
			 uint64_t max_hold_ns)
{
	if (hot) {
		if (acquisitions)
			shared_add(&hot->acquisitions, acquisitions);
		if (kind == CORECAP_KIND_RWLOCK_RD) {
			shared_add(&hot->shared_holds, holds);
			shared_add(&hot->shared_hold_ns, hold_ns);
		} else {
			shared_add(&hot->holds, holds);
			shared_add(&hot->hold_ns, hold_ns);
			shared_max(&hot->max_hold_ns, max_hold_ns);
		}
	}
	if (site) {
		if (acquisitions && hot)
			shared_add(&site->acquisitions, acquisitions);
		shared_add(&site->holds, holds);
		shared_add(&site->hold_ns, hold_ns);
		shared_max(&site->max_hold_ns, max_hold_ns);
	}
}

static void lacc_flush(struct lock_acc *a)
{
	struct corecap_stats_lock *e = a->hot;

	if (e && (a->holds || a->shared_holds)) {
		if (a->acquisitions)
			shared_add(&e->acquisitions, a->acquisitions);
		if (a->holds) {
			shared_add(&e->holds, a->holds);
			shared_add(&e->hold_ns, ticks_to_ns(a->hold_ticks));
			shared_max(&e->max_hold_ns, ticks_to_ns(a->max_hold_ticks));
		}
		if (a->shared_holds) {
			shared_add(&e->shared_holds, a->shared_holds);
			shared_add(&e->shared_hold_ns, ticks_to_ns(a->shared_hold_ticks));
		}
	}
	a->acquisitions = 0;
	a->holds = 0;
	a->shared_holds = 0;
	a->batched = 0;
	a->hold_ticks = 0;
	a->shared_hold_ticks = 0;
	a->max_hold_ticks = 0;
}

static void sacc_flush(struct site_acc *a)
{
	struct corecap_stats_site *e = a->site;

	if (e && a->holds) {
		if (a->acquisitions)
			shared_add(&e->acquisitions, a->acquisitions);
		shared_add(&e->holds, a->holds);
		shared_add(&e->hold_ns, ticks_to_ns(a->hold_ticks));
		shared_max(&e->max_hold_ns, ticks_to_ns(a->max_hold_ticks));
	}
	a->acquisitions = 0;
	a->holds = 0;
	a->batched = 0;
	a->hold_ticks = 0;
	a->max_hold_ticks = 0;
}

static void wacc_flush(struct wait_acc *a)
{
	struct corecap_stats_site *e = a->site;

	if (a->waits && e) {
		shared_add(&e->contentions, a->waits);
		shared_add(&e->wait_ns, a->wait_ns);
		shared_max(&e->max_wait_ns, a->max_wait_ns);
		if (a->timeouts)
			shared_add(&e->timeouts, a->timeouts);
		for (int b = 0; b < CORECAP_STATS_HIST_BUCKETS; b++)
			if (a->hist[b])
				shared_add(&e->wait_hist[b], a->hist[b]);
	}
	a->waits = 0;
	a->timeouts = 0;
	a->wait_ns = 0;
	a->max_wait_ns = 0;
	memset(a->hist, 0, sizeof(a->hist));
}

static void settle_into_batches(struct lock_track *lt);

static uint64_t flush_interval_ticks, stack_gap_ticks, block_gap_ticks;
/* An uncontended hold of a hot lock is tracked when its draw
 * (hold_draw.h) is at most lock_track_hold_below, and then weighs
 * hold_weight. */
uint32_t lock_track_hold_below;
static uint32_t hold_weight;

void lock_track_init(void)
{
	flush_interval_ticks = ticks_from_ns(FLUSH_AFTER_NS);
	stack_gap_ticks = ticks_from_ns(STACK_GAP_NS);
	block_gap_ticks = ticks_from_ns(BLOCK_GAP_NS);
	hold_weight = g_settings.hold_time_every ? g_settings.hold_time_every : 1;
	lock_track_hold_below = hold_draw_threshold(hold_weight);
}

/* now: ticks */
static void flush_all(struct lock_track *lt, uint64_t now)
{
	if (lt->pending)
		settle_into_batches(lt);
	for (int i = 0; i < LOCK_TRACK_LOCK_ACC; i++)
		lacc_flush(&lt->lacc[i]);
	for (int i = 0; i < LOCK_TRACK_SITE_ACC; i++)
		sacc_flush(&lt->sacc[i]);
	for (int i = 0; i < LOCK_TRACK_WAIT_ACC; i++)
		wacc_flush(&lt->wacc[i]);
	lt->acc_deadline = now + flush_interval_ticks;
	lt->block_deadline = UINT64_MAX; /* nothing left to publish */
	lt->block_armed = now + block_gap_ticks;
}

/* Something was batched: publish it before blocking, once BLOCK_GAP_NS
 * have passed since the last publication. */
static inline void block_arm(struct lock_track *lt)
{
	lt->block_deadline = lt->block_armed;
}

uint64_t lock_track_block_flush(struct tstate *ts)
{
	int saved_errno = errno;

	ts->guard++; /* and a signal fence: see hold_release */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	flush_all(&corecap_lock_track, ticks());
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ts->guard--;
	errno = saved_errno;
	return ticks();
}

void lock_track_flush(struct tstate *ts, uint64_t now)
{
	flush_all(&corecap_lock_track, now);
}

void lock_track_thread_exit(struct tstate *ts)
{
	flush_all(&corecap_lock_track, ticks());
	corecap_lock_track.hold_depth = 0;
}

/* now: ticks. */
static void maybe_flush(struct lock_track *lt, uint64_t now)
{
	if (now >= lt->acc_deadline)
		flush_all(lt, now);
}

static uint32_t slot_of(uint64_t a, uint64_t b, uint32_t n)
{
	uint64_t k = a ^ (b * UINT64_C(0x9E3779B97F4A7C15));

	return (uint32_t)((k >> 4) ^ (k >> 17)) & (n - 1);
}

/*
 * The accumulators are set-associative, ACC_WAYS entries per set, newest
 * first: an op of a Ceph OSD holds 20-30 hot locks at as many sites, which
 * evicted one another from direct-mapped slots, and every eviction
 * publishes with atomic adds on shared lines. A miss publishes the set's
 * oldest entry and shifts the others down.
 */
#define ACC_WAYS 4

static struct lock_acc *lacc_for(struct lock_track *lt, const void *lock)
{
	struct lock_acc *set = &lt->lacc[addr_hash((uint64_t)(uintptr_t)lock, 4) * ACC_WAYS], *a;

	_Static_assert(LOCK_TRACK_LOCK_ACC == 16 * ACC_WAYS, "lacc hash covers the array");
	for (a = set; a < set + ACC_WAYS; a++)
		if (a->lock == lock)
			goto found;
	a = set;
	lacc_flush(&set[ACC_WAYS - 1]);
	memmove(set + 1, set, (ACC_WAYS - 1) * sizeof(*set));
	memset(a, 0, sizeof(*a));
	a->lock = lock;
found:
	/* Resolved once per entry; again while unknown (it may turn hot). */
	if (!a->hot && lock_table_maybe_hot(lock) && stats_shm_ready(&g_stats))
		a->hot = lock_table_find(&g_stats, lock);
	return a;
}

static struct site_acc *sacc_for(struct lock_track *lt, uint64_t site, uint32_t kind)
{
	struct site_acc
		*set = &lt->sacc[slot_of(site, kind, LOCK_TRACK_SITE_ACC / ACC_WAYS) * ACC_WAYS],
		*a;

	for (a = set; a < set + ACC_WAYS; a++)
		if (a->site_addr == site && a->kind == kind)
			goto found;
	a = set;
	sacc_flush(&set[ACC_WAYS - 1]);
	memmove(set + 1, set, (ACC_WAYS - 1) * sizeof(*set));
	memset(a, 0, sizeof(*a));
	a->site_addr = site;
	a->kind = kind;
found:
	if (!a->site && stats_shm_ready(&g_stats))
		a->site = site_table_get(&g_stats, site, kind);
	return a;
}

/*
 * Adds an ended, uncontended hold of dt ticks to its batches, as e->weight
 * holds of that length.
 */
static void hold_batch(struct lock_track *lt, const struct hold_entry *e, uint64_t dt)
{
	struct lock_acc *la = lacc_for(lt, e->lock);
	bool hot = la->hot != NULL;
	uint32_t w = e->weight, acq = e->count_acq && hot ? w : 0;
	uint64_t wdt = dt * w;
	struct site_acc *sa;

	if (!hot && !e->sampled)
		return; /* the filter's false positive: not a hot lock after all */
	block_arm(lt);
	if (hot) {
		la->acquisitions += acq;
		if (e->kind == CORECAP_KIND_RWLOCK_RD) {
			la->shared_holds += w;
			la->shared_hold_ticks += wdt;
		} else {
			la->holds += w;
			la->hold_ticks += wdt;
			if (dt > la->max_hold_ticks)
				la->max_hold_ticks = dt;
		}
		if (++la->batched >= BATCH)
			lacc_flush(la);
	}
	if (!e->site_addr)
		return; /* resumed after a condition wait: the lock's only */
	sa = sacc_for(lt, e->site_addr, e->kind);
	sa->acquisitions += acq;
	sa->holds += w;
	sa->hold_ticks += wdt;
	if (dt > sa->max_hold_ticks)
		sa->max_hold_ticks = dt;
	if (++sa->batched >= BATCH)
		sacc_flush(sa);
}

/* A hold ended at `now` (ticks). */
static void hold_end(struct lock_track *lt, const struct hold_entry *e, uint64_t now)
{
	uint64_t dt = now - e->acquired;

	if (unlikely(e->contended || e->sampled)) {
		uint64_t hold_ns = ticks_to_ns(dt);

		events_lock_hold(e->lock, (int)e->kind, e->site_addr, hold_ns);
		if (e->contended) {
			hold_publish(e->hot, e->site, e->kind, 0, 1, hold_ns, hold_ns);
			return;
		}
	}
	hold_batch(lt, e, dt);
	maybe_flush(lt, now);
}

static bool hold_sample_due(struct lock_track *lt)
{
	uint32_t every = g_settings.hold_sample_every;

	if (!every)
		return false;
	if (lt->hold_countdown == 0 || lt->hold_countdown > every)
		lt->hold_countdown = every;
	return --lt->hold_countdown == 0;
}

void lock_track_acquired(struct tstate *ts, const void *lock, uint32_t kind, uint64_t site,
			 enum lock_track_due due)
{
	struct lock_track *lt = &corecap_lock_track;
	bool sampled = due == DUE_EXTRA && hold_sample_due(lt);
	struct hold_entry *e;
	uint32_t weight = hold_weight;

	/*
	 * Possibly hot (the filter said so) or sampled: track the hold; the
	 * shared entries are looked up when it is published. Of a hot lock's
	 * uncontended holds, 1 in CORECAP_HOLD_TIME drawn at random
	 * (lock_track_due) is tracked, standing for that many; a
	 * re-acquisition of a tracked one nests in it. Sampled holds and the
	 * delayed site's (the experiment) are all tracked. Nothing here calls
	 * out or touches errno, so no guard and no errno saving.
	 */
	if (due == DUE_EXTRA) {
		if (!lock_table_maybe_hot(lock) && !sampled)
			goto out;
		if (sampled || site == delay_site(&g_delay))
			weight = 1;
		else if (!hold_draw(&lt->hold_rng, lock_track_hold_below))
			due = DUE_NEST;
	}
	if (due == DUE_NEST && !(lt->hold_depth && hold_find(lt, lock) >= 0))
		goto out;
	e = hold_push(lt, lock, kind, ticks(), site, weight);
	if (e) {
		e->sampled = sampled;
		e->count_acq = true;
	}
out:
	if (unlikely(due == DUE_EXTRA && site == delay_site(&g_delay)))
		delay_hit(&g_delay, site);
}

/*
 * Should this wait unwind a stack? The first wait at a site always
 * (its entry has none yet), then 1 in CORECAP_STACK_SAMPLE of the
 * thread's waits, at most one per STACK_GAP_NS.
 */
static bool stack_wanted(struct lock_track *lt, const struct corecap_stats_site *se)
{
	uint32_t every = g_settings.stack_sample_every;
	uint64_t now;

	if (!se)
		return false;
	if (__atomic_load_n(&se->stack_depth, __ATOMIC_RELAXED) == 0)
		return true;
	if (!every)
		return false;
	if (lt->stack_countdown == 0 || lt->stack_countdown > every)
		lt->stack_countdown = every;
	if (--lt->stack_countdown)
		return false;
	now = ticks();
	if (now < lt->stack_allowed)
		return false;
	lt->stack_allowed = now + stack_gap_ticks;
	return true;
}

static void take_stack(struct wait_ctx *w, struct corecap_stats_site *se)
{
	w->depth = stack_sample_capture(w->stack, g_settings.stack_depth, w->site);
	shared_add(&g_stats.hdr->stacks_sampled, 1);
	if (site_table_claim_stack(se))
		site_table_publish_stack(se, w->stack, w->depth);
}

void lock_track_wait_begin(struct wait_ctx *w, struct tstate *ts, const void *lock, uint32_t kind,
			   uint64_t site)
{
	struct lock_track *lt = &corecap_lock_track;

	w->saved_errno = errno;
	w->ts = ts;
	w->lock = lock;
	w->mutex = NULL;
	w->kind = kind;
	w->site = site;
	w->site_entry = NULL;
	w->depth = 0;
	ts->guard++;
	if (tstate_needs_attach(ts))
		tstate_attach(ts);
	delay_poll(&g_delay); /* the runtime delay control: one load */
	if (stats_shm_ready(&g_stats)) {
		w->site_entry = site_table_get(&g_stats, site, kind);
		/* Before blocking: the unwind overlaps a wait that happens anyway. */
		if (stack_wanted(lt, w->site_entry))
			take_stack(w, w->site_entry);
	}
	ts->guard--;
	w->t0 = ticks();
	/* It blocks on the lock: publish first (lock_track_block_due). The
	 * lock is busy anyway, so this mostly overlaps the wait; the wait is
	 * timed from after it. */
	if (unlikely(lock_track_block_due(w->t0)))
		w->t0 = lock_track_block_flush(ts);
}

void lock_track_wait_end(struct wait_ctx *w, enum wait_outcome outcome)
{
	struct lock_track *lt = &corecap_lock_track;
	uint64_t t1 = ticks(), wait_ns = ticks_to_ns(t1 - w->t0);
	struct tstate *ts = w->ts;
	struct corecap_stats_counters *c = &ts->slot->c;
	struct corecap_stats_lock *hot = NULL;
	bool acquired = outcome == WAIT_ACQUIRED;
	struct hold_entry *e;

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
		hot = lock_table_mark_hot(&g_stats, w->lock, w->kind, w->site, now_ns());
		if (hot) {
			shared_add(&hot->contentions, 1);
			shared_add(&hot->wait_ns, wait_ns);
			if (acquired)
				shared_add(&hot->acquisitions, 1);
		}
	}
	if (acquired) {
		e = hold_push(lt, w->lock, w->kind, t1, w->site, 1);
		if (e) {
			e->contended = true;
			e->hot = hot;
			e->site = w->site_entry;
		}
	}
	events_lock_contended(w->lock, (int)w->kind, w->site, wait_ns, acquired, w->stack,
			      w->depth);
	events_poll_names();
	if (acquired && unlikely(w->site == delay_site(&g_delay)))
		delay_hit(&g_delay, w->site);
	ts->guard--;
out:
	errno = w->saved_errno;
}

static void hold_release(struct tstate *ts, const void *lock, uint64_t now)
{
	struct lock_track *lt = &corecap_lock_track;
	int i = hold_find(lt, lock), saved_errno;
	struct hold_entry *e;
	uint32_t after;

	if (i < 0)
		return;
	e = &lt->holds[i];
	if (e->nest) {
		e->nest--;
		return;
	}
	/*
	 * Guard up, as a signal fence: a signal handler's read
	 * (async-signal-safe, and a point that publishes the batches before
	 * blocking) must pass through while hold_end changes the batches.
	 */
	ts->guard++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (unlikely(e->contended || e->sampled)) {
		/* Emits an event: errno kept. */
		saved_errno = errno;
		hold_end(lt, e, now);
		errno = saved_errno;
	} else {
		hold_end(lt, e, now);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ts->guard--;
	after = lt->hold_depth - (uint32_t)i - 1;
	if (after) /* released out of order */
		memmove(e, e + 1, after * sizeof(*e));
	lt->hold_depth--;
}

static void settle(struct tstate *ts);

void lock_track_unlocked(struct tstate *ts, const void *lock, uint64_t now)
{
	struct lock_track *lt = &corecap_lock_track;

	if (lt->hold_depth)
		hold_release(ts, lock, now);
	if (lt->pending)
		settle(ts);
}

static struct wait_acc *wacc_for(struct lock_track *lt, uint64_t site);

/* The condition wait that returned last, into this thread's batches. */
static void settle_into_batches(struct lock_track *lt)
{
	struct cond_pending *p = &lt->pend;
	struct wait_acc *a;

	lt->pending = 0;
	block_arm(lt);
	a = wacc_for(lt, p->site);
	a->waits++;
	a->timeouts += p->timed_out;
	a->wait_ns += p->wait_ns;
	if (p->wait_ns > a->max_wait_ns)
		a->max_wait_ns = p->wait_ns;
	a->hist[corecap_stats_hist_bucket(p->wait_ns)]++;
	if (a->waits >= BATCH)
		wacc_flush(a);
	if (p->has_hold)
		hold_batch(lt, &p->hold, p->hold_ticks);
	if (a->site && !__atomic_load_n(&a->site->stack_depth, __ATOMIC_RELAXED)) {
		lt->stack_site = p->site;
		lt->stack_entry = a->site;
	}
}

/* ... and published if it is time, now that its mutex is free. */
static void settle(struct tstate *ts)
{
	struct lock_track *lt = &corecap_lock_track;

	ts->guard++;
	settle_into_batches(lt);
	maybe_flush(lt, ticks());
	ts->guard--;
}

static struct wait_acc *wacc_for(struct lock_track *lt, uint64_t site)
{
	struct wait_acc *a = &lt->wacc[slot_of(site, 0, LOCK_TRACK_WAIT_ACC)];

	if (a->site_addr != site) {
		wacc_flush(a);
		a->site_addr = site;
		a->site = NULL;
	}
	if (!a->site && stats_shm_ready(&g_stats))
		a->site = site_table_get(&g_stats, site, CORECAP_KIND_COND);
	return a;
}

void lock_track_cond_begin(struct wait_ctx *w, struct tstate *ts, const void *cond,
			   const void *mutex, uint64_t site)
{
	struct lock_track *lt = &corecap_lock_track;
	int i;

	w->saved_errno = errno;
	w->ts = ts;
	w->lock = cond;
	w->mutex = mutex;
	w->kind = CORECAP_KIND_COND;
	w->site = site;
	w->site_entry = NULL;
	w->depth = 0;
	w->has_paused = false;
	ts->guard++;
	if (tstate_needs_attach(ts))
		tstate_attach(ts);
	if (lt->pending) /* waits again before releasing the mutex */
		settle_into_batches(lt);
	delay_poll(&g_delay); /* the runtime delay control: one load */
	/*
	 * Inside the caller's critical section: only what cannot wait. The
	 * site's first stack is unwound at its next wait, once settle() has
	 * seen it has none (cond_wait events carry no stack, so that one
	 * representative stack per site is all a cond wait needs).
	 */
	if (unlikely(lt->stack_site == site)) {
		lt->stack_site = 0;
		take_stack(w, lt->stack_entry);
	}
	/* Only while a session wants wake events: it is a shared line. */
	w->counted = g_settings.wake_events && events_cond_wake_enabled();
	if (w->counted)
		__atomic_fetch_add(
			&cond_waiters[addr_hash((uint64_t)(uintptr_t)cond, COND_WAITER_BITS)], 1,
			__ATOMIC_RELAXED);
	w->t0 = ticks();
	i = hold_find(lt, mutex);
	if (i >= 0) {
		/* The wait releases the mutex: its hold ends here. A traced
		 * hold is published now (its event is timed); the others are
		 * batched once the mutex is free again (cond_end, settle). */
		struct hold_entry *e = &lt->holds[i];

		if (e->contended || e->sampled) {
			hold_end(lt, e, w->t0);
		} else {
			w->has_paused = true;
			w->paused = *e;
			w->paused_ticks = w->t0 - e->acquired;
		}
	}
	/*
	 * The thread may sleep here for as long as it is idle: publish its
	 * batches first (lock_track_block_due), the ended hold of the mutex
	 * with them. This runs inside the caller's critical section, as the
	 * real wait releases the mutex only when it blocks: there is no later
	 * point before the sleep. It is fine: it happens at most once per
	 * BLOCK_GAP_NS per thread and only if the thread batched something
	 * since; it is a scan of the thread's own accumulators and the atomic
	 * adds of the non-empty ones, which the batches would have made
	 * anyway at their next publication; and the mutex's measured hold
	 * ended at t0 before it while the wait starts after it, so neither
	 * the daemon's hold nor its wait figures include it.
	 */
	if (unlikely(lock_track_block_due(w->t0))) {
		if (w->has_paused) {
			hold_batch(lt, &w->paused, w->paused_ticks);
			w->has_paused = false;
		}
		flush_all(lt, w->t0);
		w->t0 = ticks();
	}
	ts->guard--;
}

void lock_track_cond_end(struct wait_ctx *w, int result)
{
	struct lock_track *lt = &corecap_lock_track;
	uint64_t t1 = ticks(), wait_ns = ticks_to_ns(t1 - w->t0);
	struct tstate *ts = w->ts;
	struct corecap_stats_counters *c = &ts->slot->c;
	int i;

	ts->guard++;
	if (w->counted)
		__atomic_fetch_sub(
			&cond_waiters[addr_hash((uint64_t)(uintptr_t)w->lock, COND_WAITER_BITS)], 1,
			__ATOMIC_RELAXED);
	own_add(&c->cond_waits, 1);
	own_add(&c->cond_wait_ns, wait_ns);
	delay_poll(&g_delay); /* a thread woken by new work sees a new control */
	/* The rest waits until the mutex is released (settle). */
	if (lt->pending)
		settle_into_batches(lt);
	lt->pend.site = w->site;
	lt->pend.wait_ns = wait_ns;
	lt->pend.timed_out = result == ETIMEDOUT;
	lt->pend.has_hold = w->has_paused;
	if (w->has_paused) {
		lt->pend.hold = w->paused;
		lt->pend.hold_ticks = w->paused_ticks;
	}
	lt->pending = 1;
	block_arm(lt); /* a block before the mutex's release publishes it too */
	/*
	 * The wait re-took the mutex (also on timeout): a new hold starts,
	 * tracked whatever CORECAP_HOLD_TIME (each such hold stands for
	 * itself). That re-acquisition is the lock's, not a call site's, so
	 * the hold counts for the lock only.
	 */
	i = hold_find(lt, w->mutex);
	if (i >= 0) {
		struct hold_entry *e = &lt->holds[i];

		e->acquired = t1;
		e->contended = false;
		e->site_addr = 0;
		e->count_acq = true;
		e->weight = 1;
	} else if (lock_table_maybe_hot(w->mutex)) {
		struct hold_entry *e = hold_push(lt, w->mutex, CORECAP_KIND_MUTEX, t1, 0, 1);

		if (e)
			e->count_acq = true;
	}
	events_cond_wait(w->lock, w->mutex, w->site, wait_ns, result == ETIMEDOUT);
	events_poll_names();
	ts->guard--;
	errno = w->saved_errno;
}

void lock_track_cond_wake(struct tstate *ts, const void *cond, uint64_t site, bool broadcast)
{
	uint32_t h = addr_hash((uint64_t)(uintptr_t)cond, COND_WAITER_BITS);

	if (!g_settings.wake_events || !events_cond_wake_enabled() ||
	    !__atomic_load_n(&cond_waiters[h], __ATOMIC_RELAXED))
		return;
	ts->guard++;
	events_cond_wake(cond, site, broadcast);
	ts->guard--;
}

void lock_track_reset(struct tstate *ts)
{
	struct lock_track *lt = &corecap_lock_track;

	lt->hold_depth = 0;
	lt->pending = 0;
	lt->stack_site = 0;
	/* Pending figures belong to the parent's file: drop them. */
	memset(lt->lacc, 0, sizeof(lt->lacc));
	memset(lt->sacc, 0, sizeof(lt->sacc));
	memset(lt->wacc, 0, sizeof(lt->wacc));
	lt->acc_deadline = 0;
	lt->block_deadline = UINT64_MAX;
	lt->block_armed = 0;
	memset(cond_waiters, 0, sizeof(cond_waiters));
}
