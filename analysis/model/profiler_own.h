/*
 * profiler_own: what in a run is the profiler's own doing, not the
 * daemon's, so that no table, graph or verdict presents corecap's
 * machinery as a finding. One struct holds what identifies the profiler in
 * one run, and every consumer asks it the same questions:
 *
 *   threads  LTTng-UST's listener threads in the daemon (LTTng-UST 2.12 and
 *            later name them after the process: the first 11 bytes of its
 *            name, then "-ust"), the shim's dump thread ("corecap-dump"),
 *            and any thread of the collector that recorded the run (its
 *            PID from the manifest: a wake-up, a lock holder, a CPU holder);
 *   frames   code of corecap's shim and tracepoint provider
 *            (libcorecap-*), LTTng-UST (liblttng-ust*), gperftools' CPU
 *            profiler (libprofiler*, libtcmalloc_and_profiler*) and
 *            libunwind (libunwind*), which the profiler put in the daemon;
 *   locks    a futex or mutex whose address lies in one of those modules or
 *            in LTTng-UST's shared memory (/dev/shm/lttng-ust-wait-*), or
 *            whose top site lies in one of them, or that only the
 *            profiler's threads waited on.
 *
 * The questions never depend on `keep`: that flag (--keep-profiler) only
 * says whether the consumers cut what they classified. What is cut is
 * counted here, and the profiler's cost (its CPU, the ops' run-queue wait
 * behind its threads) is summed once, for the report's one line.
 */
#ifndef CORECAP_PROFILER_OWN_H
#define CORECAP_PROFILER_OWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "critical_path.h"
#include "lock_table.h"
#include "thread_table.h"

struct ceph_critical;

/* The path (or basename) of the mapping holding addr, or NULL: none known. */
typedef const char *(*profiler_module_fn)(void *ctx, uint64_t addr);

struct profiler_own {
	char daemon_comm[16];		/* the daemon's process name; "" unknown */
	int32_t collector_pid;		/* the recording collector's PID; 0 unknown */
	const struct critical_path *cp; /* names other processes' threads; or NULL */
	/* The OpTracker ops' paths in cp (its whole ops' slots), or NULL. */
	const struct ceph_critical *ceph;
	profiler_module_fn module_of; /* NULL: no address is placed */
	void *module_ctx;
	bool keep; /* --keep-profiler: classified and counted, not cut */

	/* The daemon's threads found to be the profiler's (moved out of the
	 * model's thread table unless keep), and their CPU time. */
	struct thread_table threads;
	uint64_t threads_cpu_ns;
	/* What the consumers left out, for the report's words. */
	size_t locks_cut, holders_cut;
};

void corecap_profiler_own_init(struct profiler_own *p, const char *daemon_comm,
			       int32_t collector_pid);
void corecap_profiler_own_release(struct profiler_own *p);

/* Whether a thread name (or a pool's, named after its threads) is one the
 * profiler gives its threads in the daemon. */
bool corecap_profiler_is_thread_name(const struct profiler_own *p, const char *comm);
/* The same for the critical path's cut_pool: p is a struct profiler_own. */
bool corecap_profiler_cuts_pool(const void *p, const char *pool);
/* Whether tid (named comm, may be NULL) is the profiler's: a thread named
 * as above, or a thread of the collector. */
bool corecap_profiler_is_thread(const struct profiler_own *p, int32_t tid, const char *comm);
/* Whether a module (its path or basename) is the profiler's code or memory. */
bool corecap_profiler_is_module(const char *path);
/* Whether the code address addr lies in the profiler's code. */
bool corecap_profiler_is_frame(const struct profiler_own *p, uint64_t addr);
/* Whether a lock at addr whose top site is site (0: none) is the profiler's. */
bool corecap_profiler_is_lock_site(const struct profiler_own *p, uint64_t addr, uint64_t site);

/*
 * Moves the profiler's threads out of t into p->threads (their CPU summed
 * into threads_cpu_ns); with keep, sums them and leaves them. 0 or -ENOMEM.
 */
int corecap_profiler_own_split_threads(struct profiler_own *p, struct thread_table *t);

/*
 * Classifies the locks of t: a lock of the profiler (above, or waited on
 * by its threads alone) is marked `profiler` (no row), and the profiler's
 * threads leave the holders of the others; with keep, nothing changes.
 * Call after corecap_profiler_own_split_threads (its threads are known).
 */
void corecap_profiler_own_mark_locks(struct profiler_own *p, struct lock_table *t);

/*
 * The run-queue wait on the ops' critical paths behind the profiler's
 * threads (the collector's, LTTng-UST's in the daemon), summed over the op
 * types, with the ops it is over: *ns and *ops (0 when no op has a path).
 */
void corecap_profiler_runq_behind(const struct profiler_own *p, uint64_t *ns, uint64_t *ops);

/*
 * The n largest (thread, category) pairs of t's critical path, as
 * corecap_critical_path_top, less the profiler's threads (with keep, or p
 * NULL, with them): a runqueue credited to the collector is no finding;
 * the report states it once, in its profiler line. Returns how many.
 */
size_t corecap_profiler_path_top(const struct profiler_own *p, const struct cp_type *t,
				 struct cp_top *out, size_t n);

/* The profiler's cost, stated once by the report. */
struct profiler_cost {
	double threads_cores;	/* its threads in the daemon: CPU over the window */
	double collector_cores; /* the collector's CPU over its whole run, per second
				 * of window (an upper bound); < 0: not recorded */
	double cpu_cores;	/* the two summed; < 0: the collector's not recorded */
	double runq_us_per_op;	/* < 0: no op has a critical path */
	size_t n_threads;
};
/* collector_cpu_s < 0: the run does not record it. */
void corecap_profiler_cost(const struct profiler_own *p, uint64_t window_ns, double collector_cpu_s,
			   struct profiler_cost *c);

#endif
