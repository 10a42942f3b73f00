/*
 * latency_hist: a log-linear histogram of durations in ns (HDR style:
 * 128 sub-buckets per power of two), so percentiles cost constant memory
 * whatever the number of ops. A percentile is exact below 128 ns and
 * within 0.4% (half a sub-bucket) above; min, max and the mean are exact.
 */
#ifndef CORECAP_LATENCY_HIST_H
#define CORECAP_LATENCY_HIST_H

#include <stdint.h>

#define LATENCY_HIST_SUB_BITS 7
#define LATENCY_HIST_BUCKETS  (48 << LATENCY_HIST_SUB_BITS) /* up to 2^47 ns, ~39 h */

struct latency_hist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t min_ns, max_ns;
	uint32_t *buckets; /* allocated at the first value */
};

void corecap_latency_hist_init(struct latency_hist *h);
void corecap_latency_hist_release(struct latency_hist *h);
int corecap_latency_hist_add(struct latency_hist *h, uint64_t ns);
/* The value at quantile q (0..1) by the nearest-rank method; 0 when empty. */
uint64_t corecap_latency_hist_quantile(const struct latency_hist *h, double q);

#endif
