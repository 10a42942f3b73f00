/*
 * thread_series: threads.tsv read as a time series: the CPU each pool of
 * threads used in each bin of time (for utilization charts and trace
 * counters), where thread_samples keeps only a thread's first and last
 * row. A thread's CPU between two of its rows (schedstat's run_ns when
 * present, else utime + stime) is spread over the bins the interval
 * covers, in proportion to the overlap; a thread belongs to the pool of
 * its name at each row (names can change after start). Memory: threads +
 * pools x bins, whatever the number of rows.
 */
#ifndef CORECAP_THREAD_SERIES_H
#define CORECAP_THREAD_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/u64map.h"

struct series_thread {
	int32_t tid;
	char comm[32];
	bool has_last;
	uint64_t last_ns, last_cpu_ns;
};

struct series_pool {
	char name[32];
	size_t n_threads;
	uint64_t *cpu_ns; /* per bin */
	uint64_t total_cpu_ns;
};

/* A time no row was written in: the sampler was stopped or starved. */
struct series_gap {
	uint64_t from_ns, to_ns; /* the rows before and after it */
};

struct thread_series {
	uint64_t start_ns, end_ns, bin_ns; /* end_ns 0: as far as rows go */
	/* Set before loading: a time longer than this without any row is a
	 * gap (gaps[]); 0: gaps are not looked for. */
	uint64_t gap_ns;
	struct series_gap *gaps;
	size_t n_gaps, cap_gaps;
	uint64_t last_row_ns; /* the latest row's time so far (0: none) */
	bool has_start;			   /* else start_ns is the first row's */
	size_t n_bins;
	struct u64map by_tid; /* tid -> index in threads */
	struct series_thread *threads;
	size_t n_threads, cap_threads;
	struct series_pool *pools;
	size_t n_pools, cap_pools;
	uint64_t rows, bad_rows;
	bool torn_last_line; /* the file ends mid-line; that line is dropped */
};

/* start_ns = 0: the first row's time. bin_ns must be > 0. */
void corecap_thread_series_init(struct thread_series *s, uint64_t start_ns, uint64_t end_ns,
				uint64_t bin_ns);
void corecap_thread_series_release(struct thread_series *s);
/*
 * Reads path. A last line without its newline (the collector was killed
 * while writing it) is dropped and torn_last_line set. 0; -ENOENT when it
 * does not exist; another negative errno
 * with *err (malloc'd, naming the file and line).
 */
int corecap_thread_series_load(struct thread_series *s, const char *path, char **err);
/* Cores used by pool p in bin b (CPU ns / bin ns). */
double corecap_thread_series_cores(const struct thread_series *s, size_t p, size_t b);

#endif
