/*
 * kernel_states: each of the daemon's threads' time in four states, exact
 * from the kernel's scheduler records (docs/methodology.md, "Thread states
 * from the kernel"):
 *
 *   running   on a CPU: from its switch-in to its switch-out;
 *   runnable  waiting for a CPU: switched out still runnable (prev_state
 *             R: preempted or yielding), or woken and not yet switched in;
 *   futex     blocked inside a futex wait (a lock or a condition);
 *   blocked   blocked anywhere else (I/O, poll, sleep...).
 *
 * A thread's time is its span inside the window: from the window's start
 * (or its creation) to the window's end (or its exit). Every nanosecond of
 * it is in exactly one state, so the four sum to the span: before its
 * first record a thread was in the state that record leaves (running
 * before a switch-out or a futex call, runnable before a switch-in,
 * blocked before a wake-up: on a futex when its first futex record is the
 * exit of a wait begun before the recording). A tracked thread with no
 * record at all slept the whole window (blocked; on what, the records
 * cannot say). Transitions that contradict the state (a switch-in of a
 * thread not runnable: a lost record) are counted.
 *
 * The states, their inference, the lost records and each thread's time in
 * each state are the scheduler model's (sched.h), which this one reads at
 * the end (and, for on_slice, is handed sched's stretches). Memory: threads.
 */
#ifndef CORECAP_KERNEL_STATES_H
#define CORECAP_KERNEL_STATES_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <corecap/kernel_format.h>

#include "futex_locks.h"
#include "sched.h"

enum kstate {
	KSTATE_RUNNING = SCHED_RUNNING,
	KSTATE_RUNNABLE = SCHED_RUNNABLE,
	KSTATE_FUTEX = SCHED_FUTEX,
	KSTATE_BLOCKED = SCHED_BLOCKED,
	KSTATE__COUNT = SCHED__COUNT
};

/* One thread's figures (sched's, at the end); its index in sched is its index in all. */
struct kstate_thread {
	int32_t tid;
	char comm[16];
	uint64_t start_ns, end_ns; /* its span, clipped to the window */
	uint64_t ns[KSTATE__COUNT];
	bool exited;
};

struct kernel_states {
	struct sched *s; /* read; fed by the caller, or by consume (own) */
	struct sched own;
	bool feeds; /* consume feeds s (init, not init_on) */
	struct kstate_thread **all;
	size_t len, cap;
	/* Optional (export --chrome; corecap_kernel_states_on_slice): each
	 * stretch [from_ns, to_ns) of one state, once known; they tile each
	 * thread's span, in no set order. */
	void (*on_slice)(void *ctx, const struct kstate_thread *th, enum kstate s, uint64_t from_ns,
			 uint64_t to_ns);
	void *slice_ctx;
	bool oom; /* a slice's thread could not be kept */
};

/* What a run's kernel records were, for the report's quality section. */
struct kernel_quality {
	uint64_t records, lost, unknown_records, trailing_bytes;
	uint64_t stacks, switches, wakings, futex_calls;
	uint64_t threads, inconsistent, lost_switch_outs, lost_switch_ins;
	uint64_t wakes_daemon, wakes_cross_cpu; /* struct sched's */
	/* Threads whose kernel running time exceeded their own schedstat's
	 * (threads.tsv) past the samplers' edges: their records are
	 * incomplete, so threads.tsv's figures stand for them. */
	uint64_t schedstat_disagree;
	bool has_stacks;
	struct futex_quality futex;
};

/* With a sched of its own, which consume feeds. */
int corecap_kernel_states_init(struct kernel_states *k, uint64_t ws, uint64_t we);
/* Reading s, which the caller feeds each record before consume. */
void corecap_kernel_states_init_on(struct kernel_states *k, struct sched *s);
/* Each stretch to fn as sched gives it (s's on_stretch is then this model's). */
void corecap_kernel_states_on_slice(struct kernel_states *k,
				    void (*fn)(void *ctx, const struct kstate_thread *th,
					       enum kstate s, uint64_t from_ns, uint64_t to_ns),
				    void *ctx);
void corecap_kernel_states_release(struct kernel_states *k);
/* One record, in time order (sched has it all: this feeds s when it is
 * the model's own). */
static inline int corecap_kernel_states_consume(struct kernel_states *k,
						const struct corecap_krec *r)
{
	int ret = k->feeds ? corecap_sched_consume(k->s, r) : 0;

	return ret ? ret : k->oom ? -ENOMEM : 0;
}
/* Ends the stream at the window's end (finishes s): every thread's states
 * then sum to its span. */
int corecap_kernel_states_finish(struct kernel_states *k);
const char *corecap_kstate_name(enum kstate s);

#endif
