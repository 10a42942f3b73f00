/*
 * stat_kernel_interval: what one interval of `corecap stat`'s kernel view
 * did, as figures: each thread's running, runnable, futex and other
 * blocked time (model/kernel_states.h), its pools' sums, the futex words
 * waited on (model/futex_locks.h's lock table) with the mutexes ranked
 * apart from the idle waits, the reader's counts, and the profiler's own
 * threads and locks (model/profiler_own.h) left out or kept. Filled by
 * pass/stat_kernel_build.c from one interval's run directory.
 */
#ifndef CORECAP_MODEL_STAT_KERNEL_INTERVAL_H
#define CORECAP_MODEL_STAT_KERNEL_INTERVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "futex_locks.h"
#include "kernel_states.h"
#include "lock_table.h"
#include "profiler_own.h"

/*
 * The threads' sort keys of the interactive view, in the order `s` steps
 * through them (render/stat_view.h's keys): busiest (the default, and the
 * only order off a terminal), then each state's share, then the name.
 */
enum stat_ksort {
	KSORT_BUSY,
	KSORT_RUN,
	KSORT_RUNQ,
	KSORT_FUTEX,
	KSORT_BLOCK,
	KSORT_NAME,
	KSORT__COUNT
};

struct stat_kthread_row {
	int32_t tid;
	char name[32], pool[32];
	bool exited;
	uint64_t span_ns, ns[KSTATE__COUNT];
};

struct stat_kpool_row {
	char name[32];
	size_t n_threads;
	uint64_t span_ns, ns[KSTATE__COUNT];
};

struct stat_kernel_interval {
	uint64_t ws, we;
	struct lock_table words;
	struct futex_quality fq;
	uint64_t inconsistent;
	/* The reader's: records, records the kernel dropped, stacks copied. */
	uint64_t records, lost, stacks;
	struct stat_kthread_row *threads;
	size_t n_threads, cap_threads;
	struct stat_kpool_row *pools;
	size_t n_pools, cap_pools;
	const struct model_lock **rows; /* words waited on, by wait: mutexes, then idle */
	size_t n_rows, n_mutex_rows;
	uint64_t total_ns[KSTATE__COUNT], futex_waits, futex_wait_ns;
	/*
	 * The profiler's own (model/profiler_own.h): LTTng-UST's and the
	 * shim's threads in the daemon, stat's own threads, their locks and
	 * the locks in its code, out of every table unless --keep-profiler.
	 */
	struct profiler_own prof;
	size_t threads_cut;
};

/* An empty interval [ws, we] of daemon comm, the kernel source's threads in self_pid. */
void corecap_stat_kernel_interval_init(struct stat_kernel_interval *iv, uint64_t ws, uint64_t we,
				       const char *comm, int32_t self_pid, bool keep_profiler);
void corecap_stat_kernel_interval_release(struct stat_kernel_interval *iv);

/*
 * A thread of the interval (name and pool filled, the profiler's already
 * counted in threads_cut by the caller), added to its pool and the
 * process's totals. 0 or -ENOMEM.
 */
int corecap_stat_kernel_add_thread(struct stat_kernel_interval *iv,
				   const struct stat_kthread_row *t);
/* The threads (by key, then busiest) and the pools (busiest) in order. */
void corecap_stat_kernel_sort(struct stat_kernel_interval *iv, enum stat_ksort key);
/*
 * The rows of the words (named and marked as the profiler's before):
 * every word waited on and not the profiler's, mutexes first, by wait;
 * the process's futex waits. 0 or -ENOMEM.
 */
int corecap_stat_kernel_rows(struct stat_kernel_interval *iv);

#endif
