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
 * thread not runnable: a lost record) are counted. Memory: threads.
 */
#ifndef CORECAP_KERNEL_STATES_H
#define CORECAP_KERNEL_STATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <corecap/kernel_format.h>

#include "futex_locks.h"
#include "../util/tid_cache.h"
#include "../util/u64map.h"

enum kstate { KSTATE_RUNNING, KSTATE_RUNNABLE, KSTATE_FUTEX, KSTATE_BLOCKED, KSTATE__COUNT };

struct kstate_thread {
	int32_t tid;
	char comm[16];		   /* from its track, fork or exit record, if any */
	uint64_t start_ns, end_ns; /* its span, clipped to the window */
	uint64_t ns[KSTATE__COUNT];
	/* The state machine (kernel_states.c). */
	int state;	       /* enum kstate, or -1 before the first record */
	bool undecided;	       /* blocked since the start: futex or not is not yet known */
	uint64_t undecided_ns; /* of ns[KSTATE_BLOCKED], the part still undecided */
	bool in_futex_wait, exited, seen;
	/* Woken while still on its CPU: the waking can precede the switch-out
	 * (try_to_wake_up waits for it), which then leaves it runnable. */
	bool woken_running;
	uint64_t since;
	uint32_t cpu; /* running: the CPU of its last switch-in */
};

/* What the records last said of one CPU (kernel_states.c, observe()). */
struct kstate_cpu {
	bool known;
	int32_t tid;	  /* the thread current there (any process's; 0: idle) */
	uint64_t last_ns; /* the CPU's last record while it was current */
};

/* CPUs followed for the lost switch-outs; records of higher CPUs are not. */
#define KSTATE_MAX_CPUS 4096

struct kernel_states {
	uint64_t ws, we;
	struct u64map by_tid;	 /* tid -> index in all */
	struct tid_cache recent; /* in front of by_tid */
	struct kstate_thread **all;
	size_t len, cap;
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
	struct kstate_cpu *cpus;
	size_t n_cpus;
	/* Optional (export --chrome): each stretch [from_ns, to_ns) of one
	 * state, once known; they tile each thread's span, in no set order. */
	void (*on_slice)(void *ctx, const struct kstate_thread *th, enum kstate s, uint64_t from_ns,
			 uint64_t to_ns);
	void *slice_ctx;
};

/* What a run's kernel records were, for the report's quality section. */
struct kernel_quality {
	uint64_t records, lost, unknown_records, trailing_bytes;
	uint64_t stacks, switches, wakings, futex_calls;
	uint64_t threads, inconsistent, lost_switch_outs, lost_switch_ins;
	uint64_t wakes_daemon, wakes_cross_cpu; /* struct kernel_states' */
	/* Threads whose kernel running time exceeded their own schedstat's
	 * (threads.tsv) past the samplers' edges: their records are
	 * incomplete, so threads.tsv's figures stand for them. */
	uint64_t schedstat_disagree;
	bool has_stacks;
	struct futex_quality futex;
};

int corecap_kernel_states_init(struct kernel_states *k, uint64_t ws, uint64_t we);
void corecap_kernel_states_release(struct kernel_states *k);
/* One record, in time order. */
int corecap_kernel_states_consume(struct kernel_states *k, const struct corecap_krec *r);
/* Ends the stream at the window's end: every thread's states then sum to its span. */
void corecap_kernel_states_finish(struct kernel_states *k);
const char *corecap_kstate_name(enum kstate s);

#endif
