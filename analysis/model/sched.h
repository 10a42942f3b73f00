/*
 * sched: the one replay of the kernel's scheduler records
 * (common/include/corecap/kernel_format.h) that the kernel models read
 * (docs/architecture.md, "The analysis' rooms"): who runs on each CPU by
 * the records, each of the daemon's threads' state (running, runnable,
 * blocked in a futex wait, blocked elsewhere) and since when, its futex
 * call in progress with its class (a wait or a wake, kernel_format.h's
 * lists) and the waker that ended its wait, and the inference of lost
 * records, in one place:
 *
 *   - before its first record a thread was in the state that record
 *     leaves (running before a switch-out or a futex call, runnable
 *     before a switch-in, blocked before a wake-up; on a futex when its
 *     first futex record is the exit of a wait begun before the
 *     recording: "undecided" until then);
 *   - a switch-out lost: another thread was current on the CPU the
 *     thread was running on, by the CPU's own records; it left after the
 *     CPU's last record of it and is asleep from there;
 *   - a switch-in lost: a switch-out (or a system call) of a thread that
 *     was not running by the records; woken, it came on after its CPU's
 *     last record before it;
 *   - other contradictions (a switch-in of a thread not runnable) are
 *     counted and the state taken from the record (resynchronized);
 *   - a thread switched out is runnable when the switch says so ('R',
 *     or the preemption flag), or when it was woken while still on its
 *     CPU (the waking precedes the switch-out that try_to_wake_up waits
 *     for) since its last switch, a futex call's entry notwithstanding
 *     (the eBPF producer stamps a sleeping wait's entry 1 ns before its
 *     switch-out, after the waking that ended that very wait), but not
 *     past a futex call's exit (the wait it ended returned unslept).
 *
 * A consumer is fed the records after sched has taken them (it reads the
 * state sched left) and, through on_stretch, each stretch of one state of
 * a thread once it is known; one that needs a CPU's holder as it was before
 * a switch reads it before it feeds sched that switch, and one that
 * charges a thread's time by its state as it goes (the critical path's
 * replay) is told through on_advance before each change, the inferred
 * ones at their past times included. Memory: threads + CPUs.
 */
#ifndef CORECAP_SCHED_H
#define CORECAP_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <corecap/kernel_format.h>

#include "../util/tid_cache.h"
#include "../util/u64map.h"

enum sched_state { SCHED_RUNNING, SCHED_RUNNABLE, SCHED_FUTEX, SCHED_BLOCKED, SCHED__COUNT };

/* glibc's lowlevellock word when locked with waiters; a robust mutex's bits. */
#define CORECAP_FUTEX_LOCKED_WAITERS 2u
#define CORECAP_FUTEX_WAITERS	     0x80000000u
#define CORECAP_FUTEX_TID_MASK	     0x3fffffffu

/*
 * Whether a futex wait (its op and the value it waited for) is a mutex's:
 * a PI lock, glibc's "locked with waiters", or a robust mutex's owner tid
 * with FUTEX_WAITERS when owner_is_thread (that tid is one of the
 * process's threads: corecap_sched_is_thread).
 */
bool corecap_futex_wait_is_mutex(uint32_t op, uint32_t val, bool owner_is_thread);

/* A thread's futex call: in progress (in_call), or the last one. */
struct sched_futex_call {
	bool in_call;
	bool is_wait; /* its class: a wait (CORECAP_FUTEX_IS_WAIT), else a wake or other */
	bool ended;   /* the last FUTEX_EXIT of the thread closed this call */
	bool mutex;   /* a wait for a mutex's value (corecap_futex_wait_is_mutex, the
		       * owner one of the daemon's threads by corecap_sched_is_thread) */
	uint32_t op, val;
	uint64_t uaddr, enter_ns;
	int32_t waker; /* of a wait: the first waking's waker, not an interrupt; 0: none */
	uint64_t waker_ns;
	bool woken;	/* a sched_waking came during the wait */
	bool irq_woken; /* the first one, from an interrupt */
};

struct sched_thread {
	int32_t tid;
	uint32_t index;		   /* in sched.all, in order of first record */
	char comm[16];		   /* from its track, fork or exit record, if any */
	uint64_t start_ns, end_ns; /* its span, clipped to the window */
	int state;		   /* enum sched_state, or -1 before the first record */
	bool seen;		   /* a record said its state (else it is the one its first
				    * record implies, since the span's start) */
	uint64_t since;		   /* in state since (its time is charged up to here) */
	uint64_t ns[SCHED__COUNT]; /* its time in each state so far: the stretches given */
	bool undecided;		   /* blocked since the start: futex or not is not yet known */
	uint64_t undecided_ns;	   /* blocked time since the start, its stretch not yet given */
	bool exited;		   /* its exit record came */
	/* Woken while still on its CPU: the waking can precede the switch-out
	 * (try_to_wake_up waits for it), which then leaves it runnable. */
	bool woken_running;
	uint32_t cpu; /* running: the CPU of its last switch-in */
	/* Its last switch-out, recorded or inferred (0: none), and the
	 * switch's prev_state_char (0 when inferred). */
	uint64_t off_ns;
	char off_state;
	/* The critical path's thread of it (its replay's, set once), for its
	 * on_advance hook without a lookup; NULL: none yet. */
	void *cp;
	struct sched_futex_call call;
};

/* What the records last said of one CPU. */
struct sched_cpu {
	bool known;
	int32_t tid;	  /* the thread current there by any record (any process's; 0: idle) */
	uint64_t last_ns; /* the CPU's last record while it was current */
	int32_t holder;	  /* the last switch's next (any process's; 0: idle); -1: none yet */
};

/* CPUs followed for the lost switch-outs; records of higher CPUs are not. */
#define SCHED_MAX_CPUS 4096
/* CPUs whose holder is followed: every CPU a run's records can name
 * (kernel_reader's bound on the header's nr_cpus). */
#define SCHED_MAX_HOLDER_CPUS 65536

struct sched {
	uint64_t ws, we;
	struct u64map by_tid;	 /* tid -> index in all */
	struct tid_cache recent; /* in front of by_tid */
	struct sched_thread **all;
	size_t len, cap;
	struct sched_cpu *cpus;
	size_t n_cpus;
	uint64_t inconsistent; /* transitions the state did not allow */
	/* Switch-outs of the target's threads inferred: another thread was
	 * current on the CPU it was running on, by the CPU's own records. */
	uint64_t lost_switch_outs;
	/* Switch-ins inferred: a switch-out of a thread not running by the
	 * records; it came on after its CPU's last record before it. */
	uint64_t lost_switch_ins;
	/* Wakings in the window of a target thread by another target thread
	 * (not from an interrupt), and of them those onto another CPU than
	 * the waker's: the daemon's own hand-offs, and those that cross cores
	 * (a coherency cost the scale fit's kappa stands for). A waker is
	 * known as the target's once it has had a record of its own. */
	uint64_t wakes_daemon, wakes_cross_cpu;
	uint64_t futex_enters_unpaired; /* an enter while a call was in progress */
	/* Each stretch [from_ns, to_ns) of one state, once known, inside the
	 * thread's span; they tile each thread's span, in no set order. */
	void (*on_stretch)(void *ctx, const struct sched_thread *th, enum sched_state s,
			   uint64_t from_ns, uint64_t to_ns);
	void *stretch_ctx;
	/* Before th's time in its state (th->state, unchanged yet) is taken
	 * up to now, at every change of state and at its exit: a reader that
	 * charges time by the state as the records go (the critical path)
	 * charges it there. now may be before the record's time (an inferred
	 * switch). */
	void (*on_advance)(void *ctx, const struct sched_thread *th, uint64_t now);
	void *advance_ctx;
};

void corecap_sched_init(struct sched *s, uint64_t ws, uint64_t we);
void corecap_sched_release(struct sched *s);
/* CPUs 0 to n - 1 followed from the start (their holders unknown, -1), so
 * that a reader may index s->cpus below n; 0, -EINVAL past
 * SCHED_MAX_HOLDER_CPUS, or -ENOMEM. */
int corecap_sched_follow_cpus(struct sched *s, uint32_t n);
/* The window, given before any thread was met (spans and counts depend on
 * it); -EBUSY after. */
int corecap_sched_set_window(struct sched *s, uint64_t ws, uint64_t we);
/* One record, in time order; before the models that read sched are fed it. */
int corecap_sched_consume(struct sched *s, const struct corecap_krec *r);
/* Ends the stream at the window's end: every thread's stretches then tile its span. */
void corecap_sched_finish(struct sched *s);
/* Inside a futex wait (its exit not yet seen). */
static inline bool corecap_sched_in_futex_wait(const struct sched_thread *th)
{
	return th->call.in_call && th->call.is_wait;
}

/* tid's thread, or NULL when no record named it. */
struct sched_thread *corecap_sched_find(struct sched *s, int32_t tid);
/*
 * Whether tid is one of the daemon's threads, for a lock word's owner:
 * a record named it as the target's (its tracking, a fork, a switch, a
 * waking) before now. The one rule the futex table and the critical
 * path's wait-for graph share (sched_futex_call.mutex).
 */
static inline bool corecap_sched_is_thread(struct sched *s, int32_t tid)
{
	return tid > 0 && corecap_sched_find(s, tid) != NULL;
}

#endif
