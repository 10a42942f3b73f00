/*
 * struct corecap_wall_sampler: wall-clock stack samples of every thread of
 * a process, by ptrace, into RUN/wall.samples (format: docs/run-directory.md).
 *
 * How: each thread is attached with PTRACE_SEIZE (no stop, no signal). Each
 * tick starts a round that visits the threads one at a time: the thread
 * gets PTRACE_INTERRUPT; when it reports the PTRACE_EVENT_STOP that causes,
 * its stack is unwound with libunwind-ptrace (one address space, global
 * caching), it is resumed at once with PTRACE_CONT, and the next thread is
 * interrupted. So at most one thread is held by us at any time (one per
 * 32 threads in larger daemons), and only for its own unwind. Threads
 * that appear are seized at the next tick; threads that exit are dropped.
 * With name globs, only threads whose name (comm) matches one are seized;
 * a thread that matched none is looked at again a second later, since
 * daemons often name their threads after starting them.
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

#include "vdso_unwind.h"

struct corecap_run_dir;
struct corecap_wall_thread;

#define CORECAP_WALL_LONG_STOP_NS 100000000ull /* 100 ms: a sample held far too long */

struct corecap_wall_stats {
	uint64_t rounds;
	uint64_t samples;	/* lines written: one thread, one stack */
	uint64_t missed;	/* a round found the thread still on its way to an older stop */
	uint64_t late_rounds;	/* a tick came before the last round had reached every thread */
	uint64_t slow_stops;	/* threads that took over 20 ms to stop (their turn passed on) */
	uint64_t unwind_errors; /* stops whose stack could not be unwound at all */
	uint64_t signals;	/* signal-delivery-stops passed on to the daemon */
	uint64_t long_stops; /* samples that held their thread CORECAP_WALL_LONG_STOP_NS or more */
	size_t max_threads;
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
	size_t round_next; /* index of the next thread to interrupt in this round */
	size_t in_flight;  /* interrupts whose stop we wait for before the next one */
	uint64_t *stop_ns; /* one per sample, for the median and maximum */
	size_t n_stop_ns, cap_stop_ns;
	struct corecap_wall_stats stats;
	int write_errno; /* the first failed write's errno; 0: none */
};

/* Creates RUN/wall.samples and seizes every thread (whose name matches one
 * of names' globs, when names is not NULL); an error names the PID. */
int corecap_wall_sampler_init(struct corecap_wall_sampler *ws, pid_t pid, unsigned hz,
			      const char *names, struct corecap_run_dir *rd);
/* Starts a round: seizes new threads and interrupts the first running one. */
int corecap_wall_sampler_tick(struct corecap_wall_sampler *ws);
/* Whether a round is under way (other slow work had better wait for its end). */
bool corecap_wall_sampler_busy(const struct corecap_wall_sampler *ws);
/* When the thread whose stop we wait for should be given up on (UINT64_MAX: none). */
uint64_t corecap_wall_sampler_deadline(const struct corecap_wall_sampler *ws);
/* Passes the turn of a thread that is too slow to stop on to the next one. */
void corecap_wall_sampler_timeout(struct corecap_wall_sampler *ws);
bool corecap_wall_sampler_owns(const struct corecap_wall_sampler *ws, pid_t tid);
/* Acts on one waitpid() status of a thread we trace. */
void corecap_wall_sampler_handle(struct corecap_wall_sampler *ws, pid_t tid, int status);
/* Detaches every thread, waiting at most timeout_ms for running ones to stop. */
int corecap_wall_sampler_detach(struct corecap_wall_sampler *ws, unsigned timeout_ms);
/* Detaches if needed, computes the stats, closes the file. */
int corecap_wall_sampler_release(struct corecap_wall_sampler *ws);

#endif
