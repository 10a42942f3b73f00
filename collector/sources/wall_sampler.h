/*
 * struct corecap_wall_sampler: wall-clock stack samples of every thread of
 * a process, by ptrace, into RUN/wall.samples (format: docs/run-directory.md).
 *
 * How: each thread is attached with PTRACE_SEIZE (no stop, no signal). Each
 * tick starts a round that visits the threads in turn, one at a time per
 * 32 threads (corecap_wall_slots()): the thread gets PTRACE_INTERRUPT; when it
 * reports the PTRACE_EVENT_STOP that causes, its stack is unwound with
 * libunwind-ptrace (one address space, global caching) and it is resumed
 * at once with PTRACE_CONT. Stops are served oldest first, whatever order
 * waitpid reports them in. Threads that appear are seized at the next tick;
 * threads that exit are dropped. With name globs, only threads whose name
 * (comm) matches one are seized; a thread that matched none is looked at
 * again a second later, since daemons often name their threads after
 * starting them.
 *
 * Bounds (the constants below): a thread is held at most
 * CORECAP_WALL_STOP_BUDGET_NS per sample (past it, the sample is
 * abandoned and the thread resumed); a round spends at most
 * CORECAP_WALL_ROUND_SHARE_PCT of its period (past it, the threads it has
 * not reached are skipped, and the next round starts with the first of
 * them, so that a late round never shorts the same threads); a thread
 * spends at most CORECAP_WALL_THREAD_STOP_SHARE_PCT of the window in our
 * stops (past it, its turns are skipped until the window catches up).
 * What was due, taken, skipped and abandoned is counted in
 * struct corecap_wall_stats, for the manifest and the report.
 *
 * Guarantees (the collector's safety rules):
 * - only an interrupt stop of ours is ever held, and only while unwinding;
 *   a signal-delivery-stop is resumed with its signal re-injected at once;
 *   a group-stop (someone sent SIGSTOP) is left in force with PTRACE_LISTEN;
 * - corecap_wall_sampler_detach() detaches every thread, delivering a
 *   signal that was being reported; a collector that dies without it
 *   leaves no thread stopped: the kernel detaches seized tracees, and an
 *   interrupt stop ends with the tracer.
 * The caller reaps with waitpid(-1, __WALL) and hands every status whose
 * pid corecap_wall_sampler_owns() to corecap_wall_sampler_handle().
 */
#ifndef CORECAP_COLLECTOR_WALL_SAMPLER_H
#define CORECAP_COLLECTOR_WALL_SAMPLER_H

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/wall_coverage.h"
#include "vdso_unwind.h"

struct corecap_run_dir;
struct corecap_wall_thread;

/*
 * The longest a sample may hold its thread, from its PTRACE_INTERRUPT to
 * its PTRACE_CONT: an unwind still going then is abandoned (no line
 * written) and the thread resumed; a stop first seen after it is resumed
 * at once. A thread that has not stopped by then gives its turn on.
 * Typical samples take 50-300 us (docs/methodology.md).
 */
#define CORECAP_WALL_STOP_BUDGET_NS 10000000ull /* 10 ms */
/*
 * The share of its period a round may spend: past it, the threads it has
 * not reached are skipped (counted), and the next round starts with the
 * first of them. The rest of the period is left to the collector's other
 * work (the /proc sampler waits for a round's end) and to the daemon.
 */
#define CORECAP_WALL_ROUND_SHARE_PCT 75u
/*
 * The share of the window any one thread may spend in our stops, beyond
 * one sample's budget, each stop counted from its report (the thread's
 * way to it is its wait for a CPU, not our hold): a thread past it has
 * its turns skipped (rationed) until the window catches up. It catches what the other bounds let
 * through (many abandoned stops, threads slow to stop), not the cost of
 * the rate asked for: a thread sampled at 200 Hz, 300 us a sample on a
 * busy machine, spends 6% of its time stopped (2% rationed two thirds of
 * such a run); 1000 Hz, the highest rate, of 100 us samples is 10%.
 */
#define CORECAP_WALL_THREAD_STOP_SHARE_PCT 10u
/*
 * At most this many threads interrupted and not yet resumed at once; fewer
 * on a daemon of fewer threads (corecap_wall_slots()).
 */
#define CORECAP_WALL_MAX_IN_FLIGHT 4u
#define CORECAP_WALL_LONG_STOP_NS    100000000ull /* 100 ms: a sample held far too long */

/*
 * struct corecap_wall_round: which threads one round visits. A round of n
 * threads visits indices start, start + 1, ... modulo n, each once, until
 * it has visited all n or is stopped; the next round starts at the first
 * index this one did not visit (corecap_wall_round_cursor). So when rounds
 * run out of time, every thread's turn comes in a rotation: no thread is
 * skipped twice before every other has been skipped once.
 */
struct corecap_wall_round {
	size_t n;	/* threads the round is due to visit */
	size_t start;	/* the index it began at */
	size_t visited; /* threads visited so far (tried or passed over) */
	bool ended;	/* stopped before visiting all n */
};

/* Begins a round of n threads at index cursor (wrapped to n). */
void corecap_wall_round_begin(struct corecap_wall_round *r, size_t n, size_t cursor);
/* The index of the round's next thread, or SIZE_MAX when the round is over. */
size_t corecap_wall_round_next(struct corecap_wall_round *r);
/* Ends the round where it is; returns how many threads it did not visit. */
size_t corecap_wall_round_stop(struct corecap_wall_round *r);
bool corecap_wall_round_done(const struct corecap_wall_round *r);
/* Where the next round begins: the first index this one did not visit. */
size_t corecap_wall_round_cursor(const struct corecap_wall_round *r);
/*
 * Whether a thread that has been held stop_total_ns in total may be
 * stopped again, window_ns into the window (the per-window bound).
 */
bool corecap_wall_stop_allowed(uint64_t stop_total_ns, uint64_t window_ns);
/*
 * How many of n threads may be interrupted at once: one per 32 threads,
 * at most CORECAP_WALL_MAX_IN_FLIGHT. A thread stopped while another is
 * unwound waits in its stop for that unwind: on a daemon of a few threads,
 * one at a time holds each for its own stop only (4 at once quadrupled the
 * median stop of a ceph-osd's 11 op-path threads, 60 to 250 us, and with
 * it the latency of the ops they served). Hundreds of threads need a few
 * at once to get round within a tick: their waits to stop overlap. Not
 * many: 63 at once on 2,000 threads held each 38 ms (median) behind the
 * others' unwinds, past its budget, and not one sample was kept.
 */
size_t corecap_wall_slots(size_t n);

struct corecap_wall_stats {
	uint64_t rounds;
	uint64_t samples;	    /* lines written: one thread, one stack */
	uint64_t due;		    /* samples the rate asked for: each round, one per thread */
	uint64_t skipped;	    /* not tried: its round had run out of time (behind) */
	uint64_t rationed;	    /* not tried: the thread had spent its share of the window */
	uint64_t abandoned;	    /* stopped, but resumed without a stack: over the budget */
	uint64_t skipped_round_max; /* most threads one round skipped */
	uint64_t missed;	    /* a round found the thread still on its way to an older stop */
	uint64_t late_rounds;	    /* rounds that ran out of time before reaching every thread */
	uint64_t lost_rounds;	    /* ticks that never came: the collector was busy elsewhere */
	uint64_t slow_stops;	/* threads that did not stop within the budget (turn passed on) */
	uint64_t unwind_errors; /* stops whose stack could not be unwound at all */
	uint64_t signals;	/* signal-delivery-stops passed on to the daemon */
	uint64_t long_stops; /* samples that held their thread CORECAP_WALL_LONG_STOP_NS or more */
	size_t max_threads;
	/* Per thread, over the threads due CORECAP_WALL_STARVED_MIN_DUE samples or more. */
	struct corecap_wall_coverage coverage;
	uint64_t thread_stop_ns_max; /* the most time one thread spent in our stops */
	/* The longest from a stop's report to its PTRACE_CONT: the part of a
	 * stop the sampler decides (stop_ns_* count from the interrupt, and
	 * include the thread's way to its stop). */
	uint64_t hold_ns_max;
	uint64_t stop_ns_median;
	uint64_t stop_ns_p99;
	uint64_t stop_ns_max;
};

struct corecap_wall_sampler {
	pid_t pid;
	unsigned hz;
	const char *names; /* the comma-separated name globs, or NULL: all threads */
	pid_t *passed;	   /* threads whose names matched no glob, until passed_until_ns */
	size_t n_passed, cap_passed;
	uint64_t passed_until_ns;
	void *as;			 /* unw_addr_space_t */
	struct corecap_vdso_unwind vdso; /* its unwind table, for libunwind */
	DIR *tasks;
	FILE *out;
	struct corecap_wall_thread *threads;
	size_t n_threads, cap_threads;
	struct corecap_wall_round round;
	uint64_t round_end_ns; /* when the round runs out of time */
	uint64_t start_ns;     /* the window's start, for the per-window bound */
	uint64_t tick_ns;      /* the last tick */
	bool summed;	       /* the per-thread figures are in the stats */
	size_t n_slow;	       /* interrupted threads whose turn passed on (not stopped yet) */
	uint64_t slow_ns;      /* the latest of their interrupts */
	size_t in_flight;      /* interrupts whose stop we wait for, oldest first: */
	size_t flight[CORECAP_WALL_MAX_IN_FLIGHT]; /* their indices in threads */
	uint64_t *stop_ns;			   /* one per sample, for the median and maximum */
	size_t n_stop_ns, cap_stop_ns;
	struct corecap_wall_stats stats;
	int write_errno; /* the first failed write's errno; 0: none */
};

/* Creates RUN/wall.samples and seizes every thread (whose name matches one
 * of names' globs, when names is not NULL); an error names the PID. */
int corecap_wall_sampler_init(struct corecap_wall_sampler *ws, pid_t pid, unsigned hz,
			      const char *names, struct corecap_run_dir *rd);
/* Starts a round: seizes new threads and interrupts the first few, from
 * where the last round stopped. */
int corecap_wall_sampler_tick(struct corecap_wall_sampler *ws);
/* Whether a round is under way, or a thread is on its way to a stop of
 * ours (other slow work had better wait: the thread would wait for it). */
bool corecap_wall_sampler_busy(const struct corecap_wall_sampler *ws);
/* When the thread whose stop we wait for should be given up on (UINT64_MAX: none). */
uint64_t corecap_wall_sampler_deadline(const struct corecap_wall_sampler *ws);
/* Passes the turn of a thread that is too slow to stop on to the next one. */
void corecap_wall_sampler_timeout(struct corecap_wall_sampler *ws);
bool corecap_wall_sampler_owns(const struct corecap_wall_sampler *ws, pid_t tid);
/* Acts on one waitpid() status of a thread we trace. */
void corecap_wall_sampler_handle(struct corecap_wall_sampler *ws, pid_t tid, int status);
/*
 * Detaches every thread, waiting at most timeout_ms for running ones to
 * stop; a few at a time, so that none waits in its stop for the others.
 * Computes the per-thread figures of the stats and warns when the sampler
 * fell behind (took under 90% of the samples due).
 */
int corecap_wall_sampler_detach(struct corecap_wall_sampler *ws, unsigned timeout_ms);
/* Detaches if needed, computes the stats, closes the file. */
int corecap_wall_sampler_release(struct corecap_wall_sampler *ws);

#endif
