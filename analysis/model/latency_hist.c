#include "latency_hist.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#define SUB (1u << LATENCY_HIST_SUB_BITS)

static unsigned bucket_of(uint64_t ns)
{
	unsigned e, shift;

	if (ns < SUB)
		return (unsigned)ns;
	e = 63 - (unsigned)__builtin_clzll(ns);
	shift = e - LATENCY_HIST_SUB_BITS;
	if (shift + 1 >= LATENCY_HIST_BUCKETS / SUB)
		return LATENCY_HIST_BUCKETS - 1;
	return (shift + 1) * SUB + (unsigned)(ns >> shift) - SUB;
}

/* The middle of the bucket's range (its only value below SUB). */
static uint64_t bucket_value(unsigned idx)
{
	unsigned shift;
	uint64_t lo;

	if (idx < SUB)
		return idx;
	shift = idx / SUB - 1;
	lo = (uint64_t)(idx % SUB + SUB) << shift;
	return lo + (((uint64_t)1 << shift) - 1) / 2;
}

void corecap_latency_hist_init(struct latency_hist *h)
{
	*h = (struct latency_hist){0};
}

void corecap_latency_hist_release(struct latency_hist *h)
{
	free(h->buckets);
	*h = (struct latency_hist){0};
}

int corecap_latency_hist_add(struct latency_hist *h, uint64_t ns)
{
	if (!h->buckets) {
		h->buckets = calloc(LATENCY_HIST_BUCKETS, sizeof(*h->buckets));
		if (!h->buckets)
			return -ENOMEM;
	}
	h->buckets[bucket_of(ns)]++;
	if (!h->count || ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->count++;
	h->sum_ns += ns;
	return 0;
}

uint64_t corecap_latency_hist_quantile(const struct latency_hist *h, double q)
{
	uint64_t rank, seen = 0, v;
	unsigned i;

	if (!h->count)
		return 0;
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank <= 1)
		return h->min_ns;
	if (rank >= h->count)
		return h->max_ns;
	for (i = 0; i < LATENCY_HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	v = bucket_value(i < LATENCY_HIST_BUCKETS ? i : LATENCY_HIST_BUCKETS - 1);
	/* The exact extremes beat a bucket's middle. */
	if (v < h->min_ns)
		v = h->min_ns;
	if (v > h->max_ns)
		v = h->max_ns;
	return v;
}
