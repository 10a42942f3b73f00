/*
 * thread_samples: threads.tsv, the collector's per-thread /proc samples
 * (docs/run-directory.md). Read streaming, keeping per thread only its
 * first and last sample inside the window, so memory is per thread, not
 * per sample. A thread's CPU time is the difference between the two:
 * schedstat's run_ns when present (ns-precise), else utime+stime (clock
 * ticks); its run-queue delay is schedstat's wait_ns difference.
 */
#ifndef CORECAP_THREAD_SAMPLES_H
#define CORECAP_THREAD_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/u64map.h"

struct thread_sample_row {
	uint64_t time_ns;
	uint64_t cpu_ns;	 /* utime + stime */
	int64_t run_ns, wait_ns; /* -1: no schedstat */
	int64_t cs;		 /* voluntary + involuntary context switches; -1: unknown */
};

struct sampled_thread {
	int32_t tid;
	char comm[32];
	uint64_t samples;
	struct thread_sample_row first, last;
};

struct thread_samples {
	struct u64map by_tid; /* tid -> index in threads */
	struct sampled_thread *threads;
	size_t len, cap;
	uint64_t rows, rows_outside_window, bad_rows;
	uint64_t first_ns, last_ns; /* of the rows kept */
	bool torn_last_line;	    /* the file ends mid-line; that line is dropped */
};

void corecap_thread_samples_init(struct thread_samples *s);
void corecap_thread_samples_release(struct thread_samples *s);
/*
 * Reads path, keeping rows with start_ns <= time_ns <= end_ns (all rows
 * when end_ns is 0). A last line without its newline (the collector was
 * killed while writing it) is dropped and torn_last_line set. 0, -ENOENT when the file does not
 * exist, or another negative errno with *err (malloc'd, naming the file and line).
 */
int corecap_thread_samples_load(struct thread_samples *s, const char *path, uint64_t start_ns,
				uint64_t end_ns, char **err);
/* The thread's CPU time, run-queue delay and covered span over its samples. */
/* Context switches over the thread's span; false when not known. */
bool corecap_sampled_thread_cs(const struct sampled_thread *t, uint64_t *cs);
void corecap_sampled_thread_figures(const struct sampled_thread *t, uint64_t *cpu_ns,
				    uint64_t *runq_ns, bool *has_runq, uint64_t *span_ns);

#endif
