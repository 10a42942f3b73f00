/*
 * pool_table: the daemon's threads grouped into pools by name, trailing
 * digits and separators stripped (msgr-worker-0..2 -> msgr-worker,
 * tp_osd_tp -> tp_osd_tp), with each pool's totals over the window and
 * its utilizations. A view over the thread table, rebuilt on demand;
 * pools are sorted by CPU time, heaviest first.
 */
#ifndef CORECAP_POOL_TABLE_H
#define CORECAP_POOL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "thread_table.h"

struct model_pool {
	char name[32];
	size_t n_threads, n_sampled;
	uint64_t span_ns; /* sum of the sampled threads' spans: the pool's capacity */
	uint64_t cpu_ns, runq_ns, lock_wait_ns, cond_wait_ns, logging_ns, io_ns[CORECAP_IO_CLASSES];
	/* Threads with kernel states, their span and their futex and other blocked time. */
	size_t n_kstates;
	uint64_t k_span_ns, k_futex_ns, k_blocked_ns;
	double cpu_util;  /* cpu / capacity */
	double busy_util; /* (cpu + run-queue wait) / capacity */
	const struct model_thread *busiest;
	double busiest_busy;
};

struct pool_table {
	struct model_pool *pools;
	size_t len;
	uint64_t cpu_ns, runq_ns; /* the daemon's, over sampled threads */
	size_t n_sampled;
};

/*
 * A thread's waits with one source per state. Without kernel states they
 * are the shim's (wall time in each kind of call: an I/O call's time
 * includes its CPU, a cond wait's the run-queue wait after its wake-up).
 * With them the kernel's four states partition the thread's span and the
 * shim only labels them: lock and cond share the futex time (scaled down
 * in their own proportion when the shim's sum exceeds it), and I/O is the
 * blocked (not futex) time under an I/O call (the shim's I/O time, capped
 * at it, each class scaled alike). cpu + runq + lock + cond + io then never
 * exceeds the span. Logging overlaps the others either way (it is a cause,
 * not a state).
 */
struct thread_waits {
	uint64_t lock_ns, cond_ns, logging_ns, io_ns[CORECAP_IO_CLASSES];
};
void corecap_thread_waits(const struct model_thread *th, struct thread_waits *w);
uint64_t corecap_io_sum(const uint64_t io_ns[CORECAP_IO_CLASSES]);

/* A thread's busy fraction: (cpu + run-queue wait) over its sampled span. */
double corecap_thread_busy_util(const struct model_thread *th, uint64_t window_ns);
double corecap_thread_cpu_util(const struct model_thread *th, uint64_t window_ns);
int corecap_pool_table_build(struct pool_table *p, const struct thread_table *t,
			     uint64_t window_ns);
void corecap_pool_table_release(struct pool_table *p);

#endif
