/*
 * futex_locks: a lock table from kernel futex events, for a daemon the
 * shim does not see (docs/methodology.md, "Locks from futex events").
 *
 * Input: the kernel records (common/include/corecap/kernel_format.h) in
 * time order. Each futex wait of a thread (FUTEX_WAIT, WAIT_BITSET, the PI
 * locks) that slept is one contention of the futex word at its `uaddr`:
 * a pthread mutex's word is the mutex itself, so the row's address is the
 * mutex's, as in the shim's table. Per word: waits, total and max wait
 * (the time inside the system call, clipped to the window), the time with
 * at least one waiter, the waiting threads, and the holders: the thread
 * whose wake ended each wait, from the sched_waking of the waiter while it
 * was inside the wait (its waker_tid, when not from an interrupt), else
 * the last FUTEX_WAKE on the same word by another thread during the wait.
 * A waiter of a FUTEX_WAIT word that was woken then holds the word until
 * its own next FUTEX_WAKE on it (a contended hand-over: an unlock that had
 * waiters), which gives the holds the kernel can see.
 *
 * Each wait is contention or not (docs/methodology.md, "Idle waits"). A
 * mutex wait is contention: a PI lock, or a wait for a value that says
 * "locked": glibc's lowlevellock word (2: locked with waiters, what every
 * pthread_mutex_lock that sleeps waits for), or a robust mutex's owner
 * tid (FUTEX_WAITERS set, the tid one of the process's threads). Every
 * other wait is idle or hand-off time: a condition variable's waiters
 * wait for 0 on its __g_signals word, its signaller for an odd __g_refs
 * value, a semaphore for 0. And the mutex re-taken by pthread_cond_wait
 * as it returns is the condition's hand-off, not contention: known by its
 * call site, the same first frame outside the C library as the condition
 * waits' (the call of pthread_cond_wait), the share of a word's waits
 * that such a site stands for moves to the idle side at the end. (Its
 * timing is no evidence: a worker's first lock after its condition wait
 * returns, a big lock taken as it starts an op, comes as soon.) A word's
 * idle waits are a lock of their own (idle set, same addr, keyed at
 * CORECAP_FUTEX_IDLE_KEY(addr)), so that the mutex rows hold contention
 * only; a hand-over hold is counted only on a word that has mutex waits.
 *
 * Call sites and stacks come from the sampled user stacks: the caller
 * gives, for a wait, the frames from its call site outward (the first
 * frame outside the C library), or none. A word's sites share its totals
 * in proportion to the wait of their sampled waits; `sampled_waits` says
 * how many waits each stood on. Rows go into a struct lock_table whose
 * locks all have source LOCK_SOURCE_FUTEX.
 *
 * Each thread's call in progress, its class and the waker that ended a
 * wait are the scheduler model's (sched.h), which this one reads; it keeps
 * the holds and the words' wakes. Memory: threads + words.
 */
#ifndef CORECAP_FUTEX_LOCKS_H
#define CORECAP_FUTEX_LOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <corecap/kernel_format.h>

#include "lock_table.h"
#include "sched.h"
#include "../util/u64map.h"

/*
 * The frames of the wait that tid began at enter_ns, from its call site
 * outward, into frames (at most max); returns how many (0: no stack).
 */
typedef uint32_t (*futex_stack_fn)(void *ctx, int32_t tid, uint64_t enter_ns, uint64_t *frames,
				   uint32_t max);

/* The lock table's key of a word's idle waits (user addresses are below 2^63). */
#define CORECAP_FUTEX_IDLE_KEY(uaddr) ((uaddr) | (UINT64_C(1) << 63))

/* (corecap_futex_wait_is_mutex, the class of a wait: sched.h.) */

/* The word a thread holds after a wait that handed it over. */
struct futex_hold {
	bool holding;
	uint64_t uaddr, since;
};

/* A word's latest FUTEX_WAKE: who, when. */
struct futex_wake {
	int32_t tid;
	uint64_t ns;
};

/* What the stream held beyond the waits; each appears in the report. */
struct futex_quality {
	uint64_t calls, waits, wakes;
	uint64_t waits_no_sleep;  /* returned -EAGAIN: the word had changed */
	uint64_t waits_timed_out; /* -ETIMEDOUT */
	uint64_t waits_with_stack;
	uint64_t waits_idle;   /* slept, not contention (condition and other waits) */
	uint64_t waits_relock; /* of them: a mutex re-taken as a condition wait returned */
	uint64_t holder_from_waking, holder_from_wake, holder_unknown;
	uint64_t exits_unpaired;  /* an exit whose enter came before the recording */
	uint64_t enters_unpaired; /* still inside at the end, or a lost exit */
};

struct futex_locks {
	struct lock_table *out;
	uint64_t ws, we;
	futex_stack_fn stack_of;
	void *stack_ctx;
	struct sched *s; /* read; fed by the caller, or by consume (own) */
	struct sched own;
	bool feeds;		  /* consume feeds s (init, not init_on) */
	struct futex_hold *holds; /* by the thread's index in sched */
	size_t cap_holds;
	struct u64map last_wake;  /* uaddr -> 1 + its place in wakes */
	struct futex_wake *wakes; /* each word's latest FUTEX_WAKE */
	size_t n_wakes, cap_wakes;
	struct futex_quality q;
	/* Optional (export --chrome): each wait whose holder is named, as the
	 * holder's wake at wake_ns and the waiter's return at end_ns. */
	void (*on_wake)(void *ctx, int32_t waiter, int32_t holder, uint64_t wake_ns,
			uint64_t end_ns);
	void *wake_ctx;
};

/* Rows go into out (initialized by the caller); stack_of may be NULL. With
 * a sched of its own, which consume feeds. */
void corecap_futex_locks_init(struct futex_locks *f, struct lock_table *out, uint64_t ws,
			      uint64_t we, futex_stack_fn stack_of, void *stack_ctx);
/* The same, reading s, which the caller feeds each record before consume. */
void corecap_futex_locks_init_on(struct futex_locks *f, struct sched *s, struct lock_table *out,
				 uint64_t ws, uint64_t we, futex_stack_fn stack_of,
				 void *stack_ctx);
void corecap_futex_locks_release(struct futex_locks *f);
/* A futex call's record, after sched took it (corecap_futex_locks_consume's). */
int corecap_futex_locks_call(struct futex_locks *f, const struct corecap_krec *r);
/* One record, in time order (this model reads only the futex calls' from
 * it; sched has the rest). */
static inline int corecap_futex_locks_consume(struct futex_locks *f, const struct corecap_krec *r)
{
	int ret = f->feeds ? corecap_sched_consume(f->s, r) : 0;

	if (ret || (r->type != CORECAP_KREC_FUTEX_ENTER && r->type != CORECAP_KREC_FUTEX_EXIT))
		return ret;
	return corecap_futex_locks_call(f, r);
}
/* Ends the stream: counts what is left open, spreads the totals over the sites. */
int corecap_futex_locks_finish(struct futex_locks *f);

#endif
