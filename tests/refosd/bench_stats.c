/* bench_stats: see bench_stats.h. */
#include "bench_stats.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void bench_stats_init(struct bench_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->min_ns = UINT64_MAX;
}

void bench_stats_release(struct bench_stats *st)
{
	free(st->per_sec);
	st->per_sec = NULL;
	st->nsec = st->cap_sec = 0;
}

/*
 * Values below 64 ns get a bucket each; above, a power of two [2^e, 2^(e+1))
 * is split into 64 equal sub-buckets: bucket = (e - 5) * 64 + the 6 bits
 * after the leading one.
 */
size_t bench_stats_bucket(uint64_t ns)
{
	unsigned e;
	size_t b;

	if (ns < BENCH_HIST_SUB)
		return (size_t)ns;
	e = 63u - (unsigned)__builtin_clzll(ns);
	b = (size_t)(e - 5) * BENCH_HIST_SUB + ((ns >> (e - 6)) & (BENCH_HIST_SUB - 1));
	return b < BENCH_HIST_BUCKETS ? b : BENCH_HIST_BUCKETS - 1;
}

uint64_t bench_stats_bucket_low(size_t bucket)
{
	unsigned e;

	if (bucket < BENCH_HIST_SUB)
		return bucket;
	e = (unsigned)(bucket / BENCH_HIST_SUB) + 5;
	return (1ULL << e) + ((uint64_t)(bucket % BENCH_HIST_SUB) << (e - 6));
}

void bench_stats_add_latency(struct bench_stats *st, uint64_t lat_ns)
{
	double x = (double)lat_ns / 1e9, delta;

	st->count++;
	delta = x - st->mean_s;
	st->mean_s += delta / (double)st->count;
	st->m2 += delta * (x - st->mean_s);
	if (lat_ns < st->min_ns)
		st->min_ns = lat_ns;
	if (lat_ns > st->max_ns)
		st->max_ns = lat_ns;
	st->hist[bench_stats_bucket(lat_ns)]++;
}

/* Chan et al.'s pairwise update of the mean and the sum of squared deviations. */
void bench_stats_merge(struct bench_stats *to, const struct bench_stats *from)
{
	uint64_t n;
	double delta;
	size_t i;

	if (!from->count)
		return;
	n = to->count + from->count;
	delta = from->mean_s - to->mean_s;
	to->m2 += from->m2 + delta * delta * (double)to->count * (double)from->count / (double)n;
	to->mean_s += delta * (double)from->count / (double)n;
	to->count = n;
	if (from->min_ns < to->min_ns)
		to->min_ns = from->min_ns;
	if (from->max_ns > to->max_ns)
		to->max_ns = from->max_ns;
	for (i = 0; i < BENCH_HIST_BUCKETS; i++)
		to->hist[i] += from->hist[i];
}

int bench_stats_add_second(struct bench_stats *st, uint64_t ops)
{
	if (st->nsec == st->cap_sec) {
		size_t cap = st->cap_sec ? st->cap_sec * 2 : 64;
		uint64_t *p = realloc(st->per_sec, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		st->per_sec = p;
		st->cap_sec = cap;
	}
	st->per_sec[st->nsec++] = ops;
	return 0;
}

double bench_stats_percentile(const struct bench_stats *st, double q)
{
	uint64_t rank, seen = 0;
	double v;
	size_t b;

	if (!st->count)
		return 0;
	if (q <= 0)
		return (double)st->min_ns / 1e9;
	if (q >= 1)
		return (double)st->max_ns / 1e9;
	/* The smallest value with at least q * count samples at or below it. */
	rank = (uint64_t)ceil(q * (double)st->count);
	if (rank < 1)
		rank = 1;
	for (b = 0; b < BENCH_HIST_BUCKETS; b++) {
		seen += st->hist[b];
		if (seen >= rank)
			break;
	}
	/* The middle of the bucket, within the exact extremes. */
	v = (double)bench_stats_bucket_low(b);
	if (b + 1 < BENCH_HIST_BUCKETS && b >= BENCH_HIST_SUB)
		v = (v + (double)bench_stats_bucket_low(b + 1)) / 2;
	if (v < (double)st->min_ns)
		v = (double)st->min_ns;
	if (v > (double)st->max_ns)
		v = (double)st->max_ns;
	return v / 1e9;
}

double bench_stats_mean_s(const struct bench_stats *st)
{
	return st->count ? st->mean_s : 0;
}

double bench_stats_stddev_s(const struct bench_stats *st)
{
	return st->count > 1 ? sqrt(st->m2 / (double)(st->count - 1)) : 0;
}

double bench_stats_min_s(const struct bench_stats *st)
{
	return st->count ? (double)st->min_ns / 1e9 : 0;
}

double bench_stats_max_s(const struct bench_stats *st)
{
	return (double)st->max_ns / 1e9;
}

double bench_stats_sec_stddev(const struct bench_stats *st, double factor)
{
	double mean = 0, m2 = 0;

	if (st->nsec < 2)
		return 0;
	for (size_t i = 0; i < st->nsec; i++)
		mean += (double)st->per_sec[i] * factor;
	mean /= (double)st->nsec;
	for (size_t i = 0; i < st->nsec; i++) {
		double d = (double)st->per_sec[i] * factor - mean;

		m2 += d * d;
	}
	return sqrt(m2 / (double)(st->nsec - 1));
}

double bench_stats_sec_max(const struct bench_stats *st, double factor)
{
	uint64_t m = 0;

	for (size_t i = 0; i < st->nsec; i++)
		if (st->per_sec[i] > m)
			m = st->per_sec[i];
	return (double)m * factor;
}

double bench_stats_sec_min(const struct bench_stats *st, double factor)
{
	uint64_t m = UINT64_MAX;

	for (size_t i = 0; i < st->nsec; i++)
		if (st->per_sec[i] < m)
			m = st->per_sec[i];
	return st->nsec ? (double)m * factor : 0;
}

static void summary_line(FILE *out, int width, const char *label, const char *value)
{
	int len = (int)strlen(label);

	fprintf(out, "%s%*s%s\n", label, len < width ? width - len : 1, "", value);
}

static void summary_g(FILE *out, int width, const char *label, double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%g", v);
	summary_line(out, width, label, buf);
}

static void summary_u(FILE *out, int width, const char *label, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	summary_line(out, width, label, buf);
}

void bench_stats_print_summary(FILE *out, const struct bench_stats *st, bool write, uint64_t ops,
			       uint64_t op_bytes, double elapsed_s)
{
	int width = write ? 24 : 22;
	double mb = (double)op_bytes / (1024.0 * 1024.0);

	summary_g(out, width, "Total time run:", elapsed_s);
	summary_u(out, width, write ? "Total writes made:" : "Total reads made:", ops);
	summary_u(out, width, write ? "Write size:" : "Read size:", op_bytes);
	summary_u(out, width, "Object size:", op_bytes);
	summary_g(out, width,
		  "Bandwidth (MB/sec):", elapsed_s > 0 ? (double)ops * mb / elapsed_s : 0);
	summary_g(out, width, "Stddev Bandwidth:", bench_stats_sec_stddev(st, mb));
	summary_g(out, width, "Max bandwidth (MB/sec):", bench_stats_sec_max(st, mb));
	summary_g(out, width, "Min bandwidth (MB/sec):", bench_stats_sec_min(st, mb));
	summary_u(out, width,
		  "Average IOPS:", elapsed_s > 0 ? (uint64_t)((double)ops / elapsed_s) : 0);
	summary_g(out, width, "Stddev IOPS:", bench_stats_sec_stddev(st, 1));
	summary_g(out, width, "Max IOPS:", bench_stats_sec_max(st, 1));
	summary_g(out, width, "Min IOPS:", bench_stats_sec_min(st, 1));
	summary_g(out, width, "Average Latency(s):", bench_stats_mean_s(st));
	summary_g(out, width, "Stddev Latency(s):", bench_stats_stddev_s(st));
	summary_g(out, width, "Max latency(s):", bench_stats_max_s(st));
	summary_g(out, width, "Min latency(s):", bench_stats_min_s(st));
	summary_g(out, width, "p50 latency(s):", bench_stats_percentile(st, 0.50));
	summary_g(out, width, "p99 latency(s):", bench_stats_percentile(st, 0.99));
	summary_g(out, width, "p99.9 latency(s):", bench_stats_percentile(st, 0.999));
	fflush(out);
}
