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
 *
 * What lock tracking keeps per thread is its own (struct lock_track,
 * lock_track.h), which depends on this and not the other way round.
 */
#ifndef CORECAP_PRELOAD_TSTATE_H
#define CORECAP_PRELOAD_TSTATE_H

#include <corecap/stats_layout.h>
#include <stdbool.h>
#include <stdint.h>

enum tstate_flags {
	TS_ATTACHED = 0x1, /* owns a slot in the thread table */
	TS_DETACHED = 0x2, /* has exited: never attach again */
	TS_TRACER = 0x4,   /* a tracer thread (LTTng-UST, the dump thread): guard forever */
};

struct tstate {
	int guard;
	uint32_t flags;
	struct corecap_stats_thread *slot;
	int tid;
	int resolving; /* inside load_functions() */
};

extern __thread struct tstate corecap_tstate __attribute__((tls_model("initial-exec")));

/* Where unattached threads count. */
extern struct corecap_stats_thread tstate_scratch_slot;

/*
 * Creates the thread-exit key; called once by the constructor. When an
 * attached thread exits, at_exit(ts) runs first (with guard up), before
 * the thread's exit event and the release of its slot.
 */
int tstate_setup(void (*at_exit)(struct tstate *ts));

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
