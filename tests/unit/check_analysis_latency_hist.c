/* analysis/model/latency_hist.c: percentiles in constant memory. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "model/latency_hist.h"

#include "check_run.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

START_TEST(small_values_are_exact)
{
	struct latency_hist h;

	corecap_latency_hist_init(&h);
	for (uint64_t v = 1; v <= 100; v++)
		ck_assert_int_eq(corecap_latency_hist_add(&h, v), 0);
	ck_assert_uint_eq(corecap_latency_hist_quantile(&h, 0.5), 50);
	ck_assert_uint_eq(corecap_latency_hist_quantile(&h, 0.99), 99);
	ck_assert_uint_eq(corecap_latency_hist_quantile(&h, 1.0), 100);
	ck_assert_uint_eq(corecap_latency_hist_quantile(&h, 0.0), 1);
	ck_assert_uint_eq(h.sum_ns, 5050);
	corecap_latency_hist_release(&h);
}
END_TEST

/* Log-normal latencies from 1 us to seconds: every percentile within 0.4%. */
START_TEST(large_values_are_within_half_a_sub_bucket)
{
	enum { N = 100000 };
	static uint64_t v[N];
	static const double qs[] = {0.5, 0.9, 0.99, 0.999};
	struct latency_hist h;

	srandom(3);
	corecap_latency_hist_init(&h);
	for (int i = 0; i < N; i++) {
		double u1 = (random() + 1.0) / 2147483649.0, u2 = random() / 2147483648.0;

		v[i] = (uint64_t)exp(11.5 + 2.0 * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2));
		ck_assert_int_eq(corecap_latency_hist_add(&h, v[i]), 0);
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t exact = v[(size_t)ceil(qs[i] * N) - 1];
		uint64_t got = corecap_latency_hist_quantile(&h, qs[i]);

		ck_assert_msg(fabs((double)got - (double)exact) <= 0.004 * (double)exact + 1,
			      "q%.3f: %llu vs exact %llu", qs[i], (unsigned long long)got,
			      (unsigned long long)exact);
	}
	ck_assert_uint_eq(h.max_ns, v[N - 1]);
	ck_assert_uint_eq(h.min_ns, v[0]);
	corecap_latency_hist_release(&h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_latency_hist");
	TCase *tc = tcase_create("hist");

	tcase_add_test(tc, small_values_are_exact);
	tcase_add_test(tc, large_values_are_within_half_a_sub_bucket);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
