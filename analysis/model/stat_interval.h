/*
 * stat_interval: what one interval of `corecap stat` (shim mode) did,
 * as figures: the process's lock, condition and I/O time, its hot locks
 * as report's lock table and rows (heap locks first contended at one
 * site are one family row), the lock call sites by wait, and each thread's
 * lock, condition and I/O time with its CPU and run-queue time from /proc.
 * Built from values only: the shim's deltas are fed in by the caller
 * (pass/stat_build.c, from read/shim_stats), the threads come from two
 * copies of the shim's segment (the layout of corecap/stats_layout.h)
 * and the threads' times at each copy (read/stat_snapshot.h takes them).
 */
#ifndef CORECAP_MODEL_STAT_INTERVAL_H
#define CORECAP_MODEL_STAT_INTERVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <corecap/stats_layout.h>

#include "lock_rows.h"
#include "lock_table.h"

/* The threads' sort keys, in the order `s` steps through them. */
enum stat_sort {
	STAT_SORT_LOCK, /* lock wait (the default, and the only order off a terminal) */
	STAT_SORT_CPU,	/* on a CPU (schedstat's run time) */
	STAT_SORT_RUNQ, /* runnable, waiting for a CPU (schedstat's run delay) */
	STAT_SORT_COND, /* condition waits */
	STAT_SORT_IO,	/* I/O calls */
	STAT_SORT_NAME, /* thread name, then tid */
	STAT_SORT__COUNT,
};

/* A thread's CPU and run-queue time so far (/proc), at one copy. */
struct stat_task_time {
	int32_t tid;
	bool ok; /* its times were read */
	bool has_runq;
	uint64_t cpu_ns, runq_ns;
};

/* Every thread's times at one copy, sorted by tid. */
struct stat_tasks {
	struct stat_task_time *v;
	size_t n, cap;
	bool listed; /* /proc/PID/task was listed: a tid not in v had not started */
};

struct stat_site_row {
	uint64_t addr;
	uint32_t kind;
	uint64_t acquisitions, contentions, wait_ns, holds, hold_ns;
};

struct stat_thread_row {
	int32_t tid;
	char name[CORECAP_STATS_NAME_LEN + 1];
	bool live;
	uint64_t contentions, lock_wait_ns, cond_waits, cond_wait_ns, io_calls, io_ns;
	/* From /proc over the interval: has_cpu when both ends were read. */
	bool has_cpu, has_runq;
	uint64_t cpu_ns, runq_ns;
};

struct stat_interval {
	uint64_t interval_ns;
	/* The process's figures (every thread, retired ones too); io_ns of every class. */
	uint64_t contentions, lock_wait_ns, cond_waits, cond_wait_ns, io_calls, io_ns;
	/*
	 * The ops the daemon's annotations ended (corecap/annotate.h): in the
	 * interval and since the shim started. ops_counted: the segment has an
	 * op counter (layout version 3 on; layout_version says which it is);
	 * annotated: the daemon's annotations found it.
	 */
	bool ops_counted, annotated;
	uint32_t layout_version;
	uint64_t ops, ops_total;
	/*
	 * The replies the daemon wrote (a socket write after a read on the
	 * same connection, corecap/stats_layout.h's thread.replies), annotated
	 * or not: in the interval and since the shim started. replies_counted:
	 * the segment has the reply counter (layout version 4 on).
	 */
	bool replies_counted;
	uint64_t replies, replies_total;
	/* The locks as report's lock table and its rows (model/lock_rows.h). */
	struct lock_table lock_table;
	struct lock_rows lock_rows;
	struct stat_site_row *sites;
	size_t n_sites, cap_sites;
	struct stat_thread_row *threads;
	size_t n_threads;
};

void corecap_stat_interval_init(struct stat_interval *iv, uint64_t interval_ns);
void corecap_stat_interval_release(struct stat_interval *iv);

/*
 * A hot lock's figures over the interval, with the one site the shim keeps
 * per lock (where it was first contended; 0 for none). 0 or -ENOMEM.
 */
int corecap_stat_interval_add_lock(struct stat_interval *iv, uint64_t addr, uint32_t kind,
				   uint64_t acquisitions, uint64_t contentions, uint64_t wait_ns,
				   uint64_t holds, uint64_t hold_ns, uint64_t first_site);
/* A call site's figures over the interval. 0 or -ENOMEM. */
int corecap_stat_interval_add_site(struct stat_interval *iv, const struct stat_site_row *row);

/*
 * The threads, slot by slot of two valid copies of the segment (prev and
 * cur) with the threads' times at each. 0 or -ENOMEM.
 */
int corecap_stat_interval_threads(struct stat_interval *iv, const void *prev,
				  const struct stat_tasks *prev_tasks, const void *cur,
				  const struct stat_tasks *cur_tasks);

/*
 * Names the locks (namer as lock_table's), builds the rows by wait, sorts
 * the sites by wait and the threads by key. 0 or -ENOMEM.
 */
int corecap_stat_interval_finish(struct stat_interval *iv, lock_namer_fn namer, void *ctx,
				 enum stat_sort key);
/* The threads again, in another order. */
void corecap_stat_interval_sort_threads(struct stat_interval *iv, enum stat_sort key);

/* The acquisitions of a row's locks (the shim's count: lock_rows has none). */
uint64_t corecap_stat_row_acquisitions(const struct lock_row *r);

#endif
