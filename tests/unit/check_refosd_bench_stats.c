/*
 * refbench stats: percentiles within the histogram's precision, exact
 * moments, rados-bench per-second figures.
 */
#include <check.h>
#include <math.h>

#include "bench_stats.h"

#include "check_run.h"

START_TEST(buckets_are_monotonic_and_cover_their_values)
{
	size_t prev = 0;

	for (uint64_t v = 1; v < (1ULL << 40); v = v * 3 / 2 + 1) {
		size_t b = bench_stats_bucket(v);

		ck_assert_uint_ge(b, prev);
		ck_assert_uint_le(bench_stats_bucket_low(b), v);
		if (b + 1 < BENCH_HIST_BUCKETS)
			ck_assert_uint_gt(bench_stats_bucket_low(b + 1), v);
		prev = b;
	}
}
END_TEST

START_TEST(percentiles_of_a_uniform_spread_are_within_two_percent)
{
	struct bench_stats st;

	bench_stats_init(&st);
	/* 1..100000 us */
	for (uint64_t us = 1; us <= 100000; us++)
		bench_stats_add_latency(&st, us * 1000);
	ck_assert_double_eq_tol(bench_stats_percentile(&st, 0.5), 0.050, 0.050 * 0.02);
	ck_assert_double_eq_tol(bench_stats_percentile(&st, 0.99), 0.099, 0.099 * 0.02);
	ck_assert_double_eq_tol(bench_stats_percentile(&st, 0.999), 0.0999, 0.0999 * 0.02);
	ck_assert_double_eq(bench_stats_percentile(&st, 1.0), 0.1);
	ck_assert_double_eq(bench_stats_percentile(&st, 0.0), 1e-6);
	bench_stats_release(&st);
}
END_TEST

START_TEST(one_outlier_shows_in_the_tail_only)
{
	struct bench_stats st;

	bench_stats_init(&st);
	for (int i = 0; i < 999; i++)
		bench_stats_add_latency(&st, 100000); /* 100 us */
	bench_stats_add_latency(&st, 50000000);	      /* 50 ms */
	ck_assert_double_eq_tol(bench_stats_percentile(&st, 0.5), 100e-6, 2e-6);
	ck_assert_double_eq_tol(bench_stats_percentile(&st, 0.99), 100e-6, 2e-6);
	ck_assert_double_eq_tol(bench_stats_percentile(&st, 0.9995), 0.05, 0.05 * 0.02);
	ck_assert_double_eq(bench_stats_max_s(&st), 0.05);
	ck_assert_double_eq(bench_stats_min_s(&st), 100e-6);
	bench_stats_release(&st);
}
END_TEST

START_TEST(mean_and_stddev_are_exact)
{
	struct bench_stats st;

	bench_stats_init(&st);
	bench_stats_add_latency(&st, 1000000);
	bench_stats_add_latency(&st, 2000000);
	bench_stats_add_latency(&st, 3000000);
	ck_assert_double_eq_tol(bench_stats_mean_s(&st), 0.002, 1e-12);
	ck_assert_double_eq_tol(bench_stats_stddev_s(&st), 0.001, 1e-12); /* sample stddev */
	bench_stats_release(&st);
}
END_TEST

START_TEST(merged_stats_equal_stats_of_all_samples)
{
	struct bench_stats all, a, b;
	uint64_t v;

	bench_stats_init(&all);
	bench_stats_init(&a);
	bench_stats_init(&b);
	for (v = 1; v <= 300; v++) {
		uint64_t ns = v * v * 1000;

		bench_stats_add_latency(&all, ns);
		bench_stats_add_latency(v % 3 ? &a : &b, ns);
	}
	bench_stats_merge(&a, &b);
	ck_assert_uint_eq(a.count, all.count);
	ck_assert_double_eq_tol(bench_stats_mean_s(&a), bench_stats_mean_s(&all), 1e-12);
	ck_assert_double_eq_tol(bench_stats_stddev_s(&a), bench_stats_stddev_s(&all), 1e-12);
	ck_assert_double_eq(bench_stats_min_s(&a), bench_stats_min_s(&all));
	ck_assert_double_eq(bench_stats_max_s(&a), bench_stats_max_s(&all));
	ck_assert_double_eq(bench_stats_percentile(&a, 0.99), bench_stats_percentile(&all, 0.99));
	bench_stats_release(&all);
	bench_stats_release(&a);
	bench_stats_release(&b);
}
END_TEST

START_TEST(no_samples_give_zeros)
{
	struct bench_stats st;

	bench_stats_init(&st);
	ck_assert_double_eq(bench_stats_percentile(&st, 0.5), 0);
	ck_assert_double_eq(bench_stats_mean_s(&st), 0);
	ck_assert_double_eq(bench_stats_stddev_s(&st), 0);
	ck_assert_double_eq(bench_stats_min_s(&st), 0);
	ck_assert_double_eq(bench_stats_sec_min(&st, 1), 0);
	ck_assert_double_eq(bench_stats_sec_stddev(&st, 1), 0);
	bench_stats_release(&st);
}
END_TEST

START_TEST(per_second_figures_match_rados_bench)
{
	struct bench_stats st;
	uint64_t secs[] = {100, 200, 300, 400};

	bench_stats_init(&st);
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(bench_stats_add_second(&st, secs[i]), 0);
	for (int i = 0; i < 200; i++) /* more than the initial capacity */
		ck_assert_int_eq(bench_stats_add_second(&st, 250), 0);
	ck_assert_uint_eq(st.nsec, 204);
	ck_assert_double_eq(bench_stats_sec_max(&st, 1), 400);
	ck_assert_double_eq(bench_stats_sec_min(&st, 1), 100);
	/* Bandwidth scales by the op size in MB. */
	ck_assert_double_eq(bench_stats_sec_max(&st, 0.5), 200);
	bench_stats_release(&st);

	bench_stats_init(&st);
	for (size_t i = 0; i < 4; i++)
		bench_stats_add_second(&st, secs[i]);
	/* Sample stddev of 100, 200, 300, 400. */
	ck_assert_double_eq_tol(bench_stats_sec_stddev(&st, 1), sqrt(50000.0 / 3), 1e-9);
	bench_stats_release(&st);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("refosd_bench_stats");
	TCase *tc = tcase_create("stats");

	tcase_add_test(tc, buckets_are_monotonic_and_cover_their_values);
	tcase_add_test(tc, percentiles_of_a_uniform_spread_are_within_two_percent);
	tcase_add_test(tc, one_outlier_shows_in_the_tail_only);
	tcase_add_test(tc, mean_and_stddev_are_exact);
	tcase_add_test(tc, merged_stats_equal_stats_of_all_samples);
	tcase_add_test(tc, no_samples_give_zeros);
	tcase_add_test(tc, per_second_figures_match_rados_bench);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
