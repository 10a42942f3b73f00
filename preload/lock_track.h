/*
 * lock_track.h: what happens after the fast path of a lock wrapper, for
 * every kind of lock (mutex, rwlock, spin) and for condition waits:
 *
 *  - a contended acquisition (the wrapper's trylock said EBUSY) is timed
 *    around the real blocking call: wait_begin / wait_end. The wait is
 *    charged to the thread, the site and the lock, which turns hot; the
 *    hold that follows is measured; one corecap_lock:contended event.
 *  - an uncontended acquisition of a hot lock (or a sampled one, or one
 *    at the CORECAP_DELAY site) gets lock_track_acquired(): its hold is
 *    tracked (timed and counted) if it is one of the 1 in
 *    CORECAP_HOLD_TIME drawn at random, and then stands for that many
 *    holds: a Ceph OSD takes 20-30 hot locks per op, and tracking every
 *    one of them was most of the shim's cost there. Sampled holds and the
 *    delayed site's are all tracked, with weight 1.
 *  - a release of a lock on the thread's hold stack ends its hold; the
 *    holds of uncontended acquisitions are summed in the thread and
 *    published to the shared entries in batches (lock_track.c).
 *  - a condition wait pauses the hold of its mutex (the mutex is free
 *    while the thread waits) and resumes it when the wait returns: a shim
 *    that missed the wait would count it as hold time.
 *
 * All of these run with tstate.guard up and keep errno.
 */
#ifndef CORECAP_PRELOAD_LOCK_TRACK_H
#define CORECAP_PRELOAD_LOCK_TRACK_H

#include <corecap/stats_layout.h>
#include <stdbool.h>
#include <stdint.h>

#include "hold_draw.h"
#include "lock_table.h"
#include "tick_clock.h"
#include "tracer_ranges.h"
#include "tstate.h"

#define LOCK_TRACK_HOLD_DEPTH 8
#define LOCK_TRACK_LOCK_ACC   64
#define LOCK_TRACK_SITE_ACC   64
#define LOCK_TRACK_WAIT_ACC   4

struct hold_entry {
	const void *lock;
	uint64_t acquired;  /* ticks (tick_clock.h) */
	uint64_t site_addr; /* 0: none (a hold that resumed after a cond wait) */
	/* Entries of a contended acquisition, which is published at once. */
	struct corecap_stats_site *site;
	struct corecap_stats_lock *hot;
	uint32_t kind;
	uint32_t nest;	 /* recursive re-acquisitions on top of this one */
	bool contended;	 /* publish at once, with a corecap_lock:hold event */
	uint32_t weight; /* how many holds this one stands for (CORECAP_HOLD_TIME) */
	bool sampled;	 /* a CORECAP_HOLD_SAMPLE hold (counts for its site) */
	bool count_acq;	 /* count the acquisition when the hold ends */
};

/*
 * Ended holds not yet published: the holds of hot locks' uncontended
 * acquisitions are summed here, per lock and per site apart (a worker
 * touches many locks from few sites, e.g. one lock per placement group),
 * and published in batches (lock_track.c), so that the common case
 * touches no shared cache line. The entries are resolved when a slot is
 * taken. Counts and times are weighted: a tracked hold stands for
 * `weight` holds of its length (CORECAP_HOLD_TIME); `batched` counts the
 * tracked holds summed since the last publication.
 */
struct lock_acc {
	const void *lock;
	struct corecap_stats_lock *hot; /* NULL: not hot (as far as known) */
	uint32_t acquisitions;
	uint32_t holds;
	uint32_t shared_holds;
	uint32_t batched;
	uint64_t hold_ticks; /* converted when published */
	uint64_t shared_hold_ticks;
	uint64_t max_hold_ticks;
};

struct site_acc {
	uint64_t site_addr;
	struct corecap_stats_site *site;
	uint32_t kind;
	uint32_t acquisitions;
	uint32_t holds;
	uint32_t batched;
	uint64_t hold_ticks;
	uint64_t max_hold_ticks;
};

/* Condition waits not yet published, per site, likewise. */
struct wait_acc {
	uint64_t site_addr;
	struct corecap_stats_site *site;
	uint32_t waits;
	uint32_t timeouts;
	uint64_t wait_ns;
	uint64_t max_wait_ns;
	uint32_t hist[CORECAP_STATS_HIST_BUCKETS];
};

/*
 * A condition wait's figures (and the hold of its mutex that it ended),
 * kept until the mutex is next released: the wait returns with the mutex
 * held, and bookkeeping done then would lengthen the caller's critical
 * section. Settled by the unlock wrapper after the real unlock.
 */
struct cond_pending {
	uint64_t site;
	uint64_t wait_ns;
	uint64_t hold_ticks; /* the ended hold, if has_hold */
	struct hold_entry hold;
	bool timed_out;
	bool has_hold;
};

/*
 * What lock tracking keeps per thread, in initial-exec TLS beside struct
 * tstate (one %fs-relative load too):
 *  - holds[0 .. hold_depth) are the locks this thread holds whose holds
 *    are being tracked, innermost last (of a hot lock's uncontended
 *    holds, 1 in CORECAP_HOLD_TIME); lacc[], sacc[] and wacc[] the
 *    figures of ended holds and condition waits not yet published to
 *    the stats file; pend a condition wait to settle (pending).
 */
struct lock_track {
	uint32_t hold_depth;
	uint32_t pending;	  /* pend holds a wait to settle */
	uint32_t hold_countdown;  /* CORECAP_HOLD_SAMPLE countdown */
	uint32_t hold_rng;	  /* CORECAP_HOLD_TIME's random draws (xorshift32; 0: unseeded) */
	uint32_t stack_countdown; /* CORECAP_STACK_SAMPLE countdown */
	uint64_t stack_allowed;	  /* no sampled unwind before this (ticks) */
	uint64_t acc_deadline;	  /* publish lacc[], sacc[] and wacc[] at this time (ticks) */
	/* Publish them before blocking from this time on (ticks; UINT64_MAX:
	 * nothing batched since the last publication, else block_armed, the
	 * last publication's time + BLOCK_GAP_NS). */
	uint64_t block_deadline;
	uint64_t block_armed;
	uint64_t stack_site;			/* a cond wait site that still has no stack */
	struct corecap_stats_site *stack_entry; /* ...and its entry */
	struct cond_pending pend;
	struct hold_entry holds[LOCK_TRACK_HOLD_DEPTH];
	struct lock_acc lacc[LOCK_TRACK_LOCK_ACC];
	struct site_acc sacc[LOCK_TRACK_SITE_ACC];
	struct wait_acc wacc[LOCK_TRACK_WAIT_ACC];
};

extern __thread struct lock_track corecap_lock_track __attribute__((tls_model("initial-exec")));

enum wait_outcome {
	WAIT_ACQUIRED,	/* the caller now holds the lock */
	WAIT_TIMED_OUT, /* it waited and gave up (ETIMEDOUT) */
	WAIT_FAILED,	/* no wait happened (EDEADLK, EINVAL, ...): not counted */
};

struct wait_ctx {
	struct tstate *ts;
	const void *lock;  /* the lock, or the cond for a cond wait */
	const void *mutex; /* a cond wait's mutex */
	uint64_t site;
	struct corecap_stats_site *site_entry;
	uint32_t kind;
	uint32_t depth; /* frames in stack[] when this wait was sampled */
	int saved_errno;
	bool counted;	 /* counted in the cond's waiters (wake events on) */
	bool has_paused; /* a cond wait ended this measured hold of its mutex */
	uint64_t paused_ticks;
	struct hold_entry paused;
	uint64_t t0; /* ticks */
	uint64_t stack[CORECAP_STATS_STACK_DEPTH];
};

/* Non-zero when CORECAP_HOLD_SAMPLE or CORECAP_DELAY is set: then every
 * acquisition takes the tracked path. */
extern CORECAP_HIDDEN int lock_track_extra;

/*
 * Must this blocking call pass straight through? The shim's own code and
 * tracer threads (guard), and calls made by the tracer's code
 * (tracer_ranges.h).
 */
static inline bool lock_track_bypass(const struct tstate *ts, uint64_t site)
{
	return ts->guard || tracer_ranges_contain(&g_tracer_ranges, site);
}

/* The draw's threshold for CORECAP_HOLD_TIME (hold_draw.h), set by lock_track_init(). */
extern CORECAP_HIDDEN uint32_t lock_track_hold_below;

/* What lock_track_acquired() is called for (lock_track_due()). */
enum lock_track_due {
	DUE_NONE,  /* nothing to do */
	DUE_DRAWN, /* a hot lock's hold drawn for tracking */
	DUE_NEST,  /* not drawn, but it may re-acquire a tracked lock */
	DUE_EXTRA, /* CORECAP_HOLD_SAMPLE or CORECAP_DELAY: decide there */
};

/*
 * The fast path's only test after a successful acquisition: the filter
 * bit, and for a hot lock the draw, inline; only the 1 in
 * CORECAP_HOLD_TIME drawn (or a thread that has a tracked hold on its
 * stack, or a mode that tracks more) calls lock_track_acquired().
 */
static inline enum lock_track_due lock_track_due(const void *lock)
{
	struct lock_track *lt = &corecap_lock_track;

	if (__builtin_expect(lock_track_extra, 0))
		return DUE_EXTRA;
	if (__builtin_expect(!lock_table_maybe_hot(lock), 1))
		return DUE_NONE;
	if (hold_draw(&lt->hold_rng, lock_track_hold_below))
		return DUE_DRAWN;
	return lt->hold_depth ? DUE_NEST : DUE_NONE;
}

/* due: lock_track_due()'s answer, not DUE_NONE. */
void lock_track_acquired(struct tstate *ts, const void *lock, uint32_t kind, uint64_t site,
			 enum lock_track_due due);

void lock_track_wait_begin(struct wait_ctx *w, struct tstate *ts, const void *lock, uint32_t kind,
			   uint64_t site);
void lock_track_wait_end(struct wait_ctx *w, enum wait_outcome outcome);

/*
 * The lock was released (successfully) at `now` (ticks, read before the
 * real unlock): ends its hold and settles a condition wait that returned
 * with it. Called after the real unlock, so that this bookkeeping does
 * not lengthen the critical section.
 */
void lock_track_unlocked(struct tstate *ts, const void *lock, uint64_t now);

/* Does an unlock by this thread have anything to do for the shim? */
static inline bool lock_track_unlock_wanted(const struct tstate *ts)
{
	return (corecap_lock_track.hold_depth | corecap_lock_track.pending) && !ts->guard;
}

/* The `now` for lock_track_unlocked(), read before the real unlock: only
 * the release of a tracked hold needs it (while a tracked hold is on the
 * stack, most unlocks are of other locks: no clock read for those). */
static inline uint64_t lock_track_unlock_time(const struct tstate *ts, const void *lock)
{
	const struct lock_track *lt = &corecap_lock_track;

	(void)ts;
	for (uint32_t i = lt->hold_depth; i-- > 0;)
		if (lt->holds[i].lock == lock)
			return ticks();
	return 0;
}

/*
 * The thread is about to block (a contended lock wait, a condition wait,
 * a read): must it publish its batches first, so that they do not stay
 * unpublished while it sleeps? now: ticks. One compare, no shared line.
 */
static inline bool lock_track_block_due(uint64_t now)
{
	return now >= corecap_lock_track.block_deadline;
}

/* ... then this publishes them (guard up, errno kept) and returns the
 * time after it (ticks): the caller's new start of the blocking call. */
uint64_t lock_track_block_flush(struct tstate *ts);

void lock_track_cond_begin(struct wait_ctx *w, struct tstate *ts, const void *cond,
			   const void *mutex, uint64_t site);
void lock_track_cond_end(struct wait_ctx *w, int result);

/* Signal/broadcast: a wake event when tracing and someone may be waiting. */
void lock_track_cond_wake(struct tstate *ts, const void *cond, uint64_t site, bool broadcast);

/* Converts the intervals to ticks and reads CORECAP_HOLD_TIME; once, after
 * tick_clock_init() and settings_load(). */
void lock_track_init(void);

/* Publishes the thread's batched figures (process exit); now in ticks. */
void lock_track_flush(struct tstate *ts, uint64_t now);

/* The thread exits: publishes its figures and forgets its holds
 * (tstate_setup's at_exit). */
void lock_track_thread_exit(struct tstate *ts);

/* Forget all hold measurements of this thread and every cond's waiters (fork child). */
void lock_track_reset(struct tstate *ts);

#endif /* CORECAP_PRELOAD_LOCK_TRACK_H */
