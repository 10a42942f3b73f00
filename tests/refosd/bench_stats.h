/*
 * bench_stats: refbench's statistics. Latencies go into a log-linear
 * histogram (64 sub-buckets per power of two: any percentile is within
 * 1/64 of the true value, clamped to the exact min and max) plus exact
 * count, mean, stddev (Welford), min and max. Per-second samples (ops
 * finished in each whole second) give rados bench's Stddev/Max/Min
 * bandwidth and IOPS lines. Memory is bounded by the histogram and the
 * number of seconds, not by the number of ops.
 */
#ifndef REFOSD_BENCH_STATS_H
#define REFOSD_BENCH_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_HIST_SUB	   64
#define BENCH_HIST_BUCKETS (BENCH_HIST_SUB * 60)

struct bench_stats {
	uint64_t count;
	double mean_s, m2; /* Welford's running mean and sum of squared deviations */
	uint64_t min_ns, max_ns;
	uint64_t hist[BENCH_HIST_BUCKETS];
	uint64_t *per_sec; /* ops finished in each whole second */
	size_t nsec, cap_sec;
};

void bench_stats_init(struct bench_stats *st);
void bench_stats_release(struct bench_stats *st);

void bench_stats_add_latency(struct bench_stats *st, uint64_t lat_ns);

/*
 * Add the latencies of `from` (count, mean, stddev, min, max, histogram:
 * as if each had been added to `to`); its per-second series is not merged.
 */
void bench_stats_merge(struct bench_stats *to, const struct bench_stats *from);

/* Record the ops finished in one more whole second. Returns 0 or -ENOMEM. */
int bench_stats_add_second(struct bench_stats *st, uint64_t ops);

/* The latency at quantile q (0..1), in seconds; 0 with no samples. */
double bench_stats_percentile(const struct bench_stats *st, double q);

double bench_stats_mean_s(const struct bench_stats *st);
/* Sample standard deviation (n - 1), 0 below two samples, as rados bench. */
double bench_stats_stddev_s(const struct bench_stats *st);
double bench_stats_min_s(const struct bench_stats *st);
double bench_stats_max_s(const struct bench_stats *st);

/* Per-second series, scaled by factor (1 for IOPS, op size in MB for bandwidth). */
double bench_stats_sec_stddev(const struct bench_stats *st, double factor);
double bench_stats_sec_max(const struct bench_stats *st, double factor);
double bench_stats_sec_min(const struct bench_stats *st, double factor);

/*
 * Prints rados bench's summary of a run to out: labels padded to 24
 * columns for writes or 22 otherwise, numbers as %g (how C++ streams
 * print them), then the p50/p99/p99.9 latencies. ops and op_bytes are
 * the run's ops and their size, elapsed_s its length.
 */
void bench_stats_print_summary(FILE *out, const struct bench_stats *st, bool write, uint64_t ops,
			       uint64_t op_bytes, double elapsed_s);

/* Histogram bucket of a latency, and the smallest value in a bucket (exposed for tests). */
size_t bench_stats_bucket(uint64_t ns);
uint64_t bench_stats_bucket_low(size_t bucket);

#endif /* REFOSD_BENCH_STATS_H */
