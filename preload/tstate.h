/*
 * tstate.h: what the shim keeps per thread, in initial-exec TLS so that
 * the fast path reaches it with one %fs-relative load and no call.
 *
 * Invariants:
 *  - slot is never NULL: until a thread is attached it points to a
 *    shared scratch slot whose contents nobody reads, so the fast path
 *    bumps a counter without testing anything.
 *  - guard > 0 means "pass straight through": set while the shim itself
 *    runs code that may call wrapped functions (tracepoints, unwinding,
 *    dladdr, setup), for the LTTng-UST threads and the dump thread for
 *    their whole life, and across fork().
 *  - holds[0 .. hold_depth) are the locks this thread holds whose holds
 *    are being tracked, innermost last (of a hot lock's uncontended
 *    holds, 1 in CORECAP_HOLD_TIME); lacc[], sacc[] and wacc[] the
 *    figures of ended holds and condition waits not yet published to
 *    the stats file.
 */
#ifndef CORECAP_PRELOAD_TSTATE_H
#define CORECAP_PRELOAD_TSTATE_H

#include <corecap/stats_layout.h>
#include <stdbool.h>
#include <stdint.h>

#define TSTATE_HOLD_DEPTH 8
#define TSTATE_LOCK_ACC	  64
#define TSTATE_SITE_ACC	  64
#define TSTATE_WAIT_ACC	  4

enum tstate_flags {
	TS_ATTACHED = 0x1, /* owns a slot in the thread table */
	TS_DETACHED = 0x2, /* has exited: never attach again */
	TS_TRACER = 0x4,   /* a tracer thread (LTTng-UST, the dump thread): guard forever */
};

struct hold_entry {
	const void *lock;
	uint64_t acquired;  /* ticks (tick_clock.h) */
	uint64_t site_addr; /* 0: none (a hold that resumed after a cond wait) */
	/* Entries of a contended acquisition, which is published at once. */
	struct corecap_stats_site *site;
	struct corecap_stats_lock *hot;
	uint32_t kind;
	uint32_t nest;	/* recursive re-acquisitions on top of this one */
	bool contended; /* publish at once, with a corecap_lock:hold event */
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

struct tstate {
	int guard;
	uint32_t flags;
	struct corecap_stats_thread *slot;
	uint32_t hold_depth;
	uint32_t hold_countdown; /* CORECAP_HOLD_SAMPLE countdown */
	uint32_t hold_rng;	 /* CORECAP_HOLD_TIME's random draws (xorshift32; 0: unseeded) */
	int tid;
	int resolving;		  /* inside load_functions() */
	uint32_t stack_countdown; /* CORECAP_STACK_SAMPLE countdown */
	uint64_t stack_allowed;	  /* no sampled unwind before this (ticks) */
	uint64_t acc_deadline;	  /* publish lacc[], sacc[] and wacc[] at this time (ticks) */
	uint32_t pending;	  /* pend holds a wait to settle */
	uint64_t stack_site;	  /* a cond wait site that still has no stack */
	struct corecap_stats_site *stack_entry; /* ...and its entry */
	struct cond_pending pend;
	struct hold_entry holds[TSTATE_HOLD_DEPTH];
	struct lock_acc lacc[TSTATE_LOCK_ACC];
	struct site_acc sacc[TSTATE_SITE_ACC];
	struct wait_acc wacc[TSTATE_WAIT_ACC];
};

extern __thread struct tstate corecap_tstate __attribute__((tls_model("initial-exec")));

/* Where unattached threads count. */
extern struct corecap_stats_thread tstate_scratch_slot;

/* Creates the thread-exit key; called once by the constructor. */
int tstate_setup(void);

/*
 * Gives the calling thread a slot (if it has none and may have one) and
 * remembers its tid; the caller holds guard. Cheap when already done.
 */
void tstate_attach(struct tstate *ts);

/* Forget everything inherited from the parent (fork child). */
void tstate_reset_after_fork(struct tstate *ts);

static inline bool tstate_needs_attach(const struct tstate *ts)
{
	return !(ts->flags & (TS_ATTACHED | TS_DETACHED | TS_TRACER));
}

#endif /* CORECAP_PRELOAD_TSTATE_H */
