/*
 * bench_stats.h: what the C benchmarks share (lock_pair, io_pair): the
 * thread's CPU time, the median, and the order statistics of a
 * distribution-free 95% interval of a median. Header-only: each
 * benchmark is one program.
 */
#ifndef CORECAP_BENCH_STATS_H
#define CORECAP_BENCH_STATS_H

#include <stdlib.h>
#include <time.h>

/* The calling thread's CPU time (user and system), in ns: a preemption by
 * another tenant of the machine is not the measured code's cost. */
static inline double bench_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of v[0..n), which it sorts. */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * k for a 95% interval of the median of n values: the k-th smallest and
 * the k-th largest, k the largest with P(Binomial(n, 1/2) < k) <= 2.5%,
 * so that the interval holds the true median with at least 95%; 1 (all
 * n values, under 95%) when no k qualifies, with fewer than 6.
 */
static inline int bench_median_k(int n)
{
	double tail = 0, p = 1;
	int k = 0;

	for (int i = 0; i < n; i++)
		p *= 0.5; /* P(X = 0) */
	for (int j = 0; j < n / 2; j++) {
		tail += p; /* P(X <= j) */
		if (tail > 0.025)
			break;
		k = j + 1;
		p = p * (double)(n - j) / (double)(j + 1);
	}
	return k ? k : 1;
}

#endif /* CORECAP_BENCH_STATS_H */
