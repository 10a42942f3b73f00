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

#include "lock_table.h"
#include "tick_clock.h"
#include "tracer_ranges.h"
#include "tstate.h"

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
extern int lock_track_extra;

/*
 * Must this blocking call pass straight through? The shim's own code and
 * tracer threads (guard), and calls made by the tracer's code
 * (tracer_ranges.h).
 */
static inline bool lock_track_bypass(const struct tstate *ts, uint64_t site)
{
	return ts->guard || tracer_ranges_contain(&g_tracer_ranges, site);
}

/* The fast path's only test after a successful acquisition. */
static inline bool lock_track_wanted(const void *lock)
{
	return lock_table_maybe_hot(lock) || lock_track_extra;
}

void lock_track_acquired(struct tstate *ts, const void *lock, uint32_t kind, uint64_t site);

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
	return (ts->hold_depth | ts->pending) && !ts->guard;
}

/* The `now` for lock_track_unlocked(), read before the real unlock: only
 * a tracked hold needs it. */
static inline uint64_t lock_track_unlock_time(const struct tstate *ts)
{
	return ts->hold_depth ? ticks() : 0;
}

void lock_track_cond_begin(struct wait_ctx *w, struct tstate *ts, const void *cond,
			   const void *mutex, uint64_t site);
void lock_track_cond_end(struct wait_ctx *w, int result);

/* Signal/broadcast: a wake event when tracing and someone may be waiting. */
void lock_track_cond_wake(struct tstate *ts, const void *cond, uint64_t site, bool broadcast);

/* Converts the intervals to ticks and reads CORECAP_HOLD_TIME; once, after
 * tick_clock_init() and settings_load(). */
void lock_track_init(void);

/* Publishes the thread's batched figures (thread exit, process exit); now in ticks. */
void lock_track_flush(struct tstate *ts, uint64_t now);

/* Forget all hold measurements of this thread (fork child). */
void lock_track_reset(struct tstate *ts);

#endif /* CORECAP_PRELOAD_LOCK_TRACK_H */
