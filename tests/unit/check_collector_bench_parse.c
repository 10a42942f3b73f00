/* collector/workload/bench_parse.c: the numbers taken from real benchmark outputs. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload/bench_parse.h"

#include "check_run.h"

static char *slurp(const char *name)
{
	char path[512];
	char *buf;
	long len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/bench/%s", CORECAP_TEST_DATA, name);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open fixture %s", path);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

static double get(const struct corecap_bench_summary *s, const char *key)
{
	double v = NAN;

	ck_assert_msg(corecap_bench_summary_get(s, key, &v), "key '%s' missing", key);
	return v;
}

#define ck_near(a, b)                                                                              \
	ck_assert_msg(fabs((double)(a) - (double)(b)) <= 1e-9 * fmax(1, fabs((double)(b))),        \
		      "%.12g != %.12g", (double)(a), (double)(b))

START_TEST(refbench_summary_gives_every_rados_label_and_percentiles)
{
	struct corecap_bench_summary s;
	char *text = slurp("refbench-write.txt");

	ck_assert_int_eq(corecap_bench_parse(text, &s), 0);
	ck_assert_str_eq(s.parser, "rados");
	ck_near(get(&s, "total_time_s"), 2.00013);
	ck_near(get(&s, "ops"), 80149);
	ck_near(get(&s, "op_bytes"), 1);
	ck_near(get(&s, "object_bytes"), 1);
	ck_near(get(&s, "bandwidth_mb_s"), 0.0382155);
	ck_near(get(&s, "iops_avg"), 40071);
	ck_near(get(&s, "iops_stddev"), 7627.56);
	ck_near(get(&s, "iops_max"), 45467);
	ck_near(get(&s, "iops_min"), 34680);
	ck_near(get(&s, "lat_avg_s"), 0.000199634);
	ck_near(get(&s, "lat_stddev_s"), 0.000153597);
	ck_near(get(&s, "lat_max_s"), 0.00376624);
	ck_near(get(&s, "lat_min_s"), 1.8815e-05);
	ck_near(get(&s, "lat_p50_s"), 0.000160768);
	ck_near(get(&s, "lat_p99_s"), 0.000790528);
	ck_near(get(&s, "lat_p999_s"), 0.00179405);
	free(text);
}
END_TEST

START_TEST(old_rados_labels_are_read_and_missing_ones_stay_absent)
{
	struct corecap_bench_summary s;
	char *text = slurp("rados-bench-emperor-rep1.txt");

	ck_assert_int_eq(corecap_bench_parse(text, &s), 0);
	ck_assert_str_eq(s.parser, "rados");
	ck_near(get(&s, "total_time_s"), 20.241290);
	ck_near(get(&s, "ops"), 5646);
	ck_near(get(&s, "op_bytes"), 4194304);
	ck_near(get(&s, "bandwidth_mb_s"), 1115.739);
	ck_near(get(&s, "bandwidth_stddev_mb_s"), 246.027);
	ck_near(get(&s, "bandwidth_max_mb_s"), 1136);
	ck_near(get(&s, "bandwidth_min_mb_s"), 0);
	ck_near(get(&s, "lat_avg_s"), 0.0571572);
	ck_near(get(&s, "lat_stddev_s"), 0.0262513);
	ck_near(get(&s, "lat_max_s"), 0.336378);
	ck_near(get(&s, "lat_min_s"), 0.02248);
	/* This release printed no IOPS lines: nothing is made up. */
	ck_assert(!corecap_bench_summary_get(&s, "iops_avg", NULL));
	ck_assert(!corecap_bench_summary_get(&s, "lat_p50_s", NULL));
	free(text);
}
END_TEST

START_TEST(the_last_of_several_summaries_wins)
{
	struct corecap_bench_summary s;
	char *text = slurp("rados-bench-emperor-rep1-3.txt");

	corecap_bench_summary_init(&s); /* corecap_bench_parse_rados adds to s */
	ck_assert_int_eq(corecap_bench_parse_rados(text, &s), 0);
	ck_near(get(&s, "total_time_s"), 20.755272);
	ck_near(get(&s, "ops"), 2481);
	ck_near(get(&s, "lat_max_s"), 3.32957);
	free(text);
}
END_TEST

START_TEST(fio_json_single_job)
{
	struct corecap_bench_summary s;
	char *text = slurp("fio-3.33-randwrite.json");

	ck_assert_int_eq(corecap_bench_parse(text, &s), 0);
	ck_assert_str_eq(s.parser, "fio");
	ck_near(get(&s, "ops"), 409770);
	ck_near(get(&s, "iops_avg"), 409360.639361);
	ck_near(get(&s, "lat_avg_s"), 1484.216961e-9);
	ck_near(get(&s, "lat_p50_s"), 1048e-9);
	ck_near(get(&s, "total_time_s"), 1.001);
	ck_near(get(&s, "bandwidth_mb_s"), 1676741178 / 1048576.0);
	ck_assert(corecap_bench_summary_get(&s, "lat_stddev_s", NULL));
	ck_assert(corecap_bench_summary_get(&s, "iops_stddev", NULL));
	free(text);
}
END_TEST

START_TEST(fio_json_jobs_and_directions_are_aggregated)
{
	struct corecap_bench_summary s;
	char *text = slurp("fio-3.33-randrw-2jobs.json");

	ck_assert_int_eq(corecap_bench_parse(text, &s), 0);
	ck_near(get(&s, "ops"), 53910);
	ck_near(get(&s, "iops_avg"), 53856.143857);
	ck_near(get(&s, "lat_avg_s"), 3.042488998343513e-05);
	ck_near(get(&s, "bandwidth_mb_s"), 210.37555980682373);
	ck_near(get(&s, "lat_p99_s"), 1.248e-05);
	/* Spreads of several jobs cannot be merged: absent rather than wrong. */
	ck_assert(!corecap_bench_summary_get(&s, "lat_stddev_s", NULL));
	free(text);
}
END_TEST

START_TEST(fio_json_after_warnings_is_found)
{
	struct corecap_bench_summary s;
	char *json = slurp("fio-3.33-randwrite.json");
	size_t len = strlen(json) + 200;
	char *text = malloc(len);

	snprintf(text, len, "fio: note: both iodepth >= 1 and synchronous I/O engine\n%s", json);
	ck_assert_int_eq(corecap_bench_parse(text, &s), 0);
	ck_assert_str_eq(s.parser, "fio");
	ck_near(get(&s, "ops"), 409770);
	free(text);
	free(json);
}
END_TEST

START_TEST(fio2_text_headline_latency_and_percentiles)
{
	struct corecap_bench_summary s;
	char *text = slurp("fio-2.1.4-rbd-randwrite.txt");

	ck_assert_int_eq(corecap_bench_parse(text, &s), 0);
	ck_assert_str_eq(s.parser, "fio");
	ck_near(get(&s, "iops_avg"), 4295);
	ck_near(get(&s, "total_time_s"), 200.004);
	ck_near(get(&s, "bandwidth_mb_s"), 17183 / 1024.0);
	ck_near(get(&s, "lat_avg_s"), 12.89e-3);
	ck_near(get(&s, "lat_min_s"), 1e-3);
	ck_near(get(&s, "lat_max_s"), 4397e-3);
	ck_near(get(&s, "lat_stddev_s"), 79.34e-3);
	ck_near(get(&s, "lat_p50_s"), 6880e-6);
	ck_near(get(&s, "lat_p95_s"), 14016e-6);
	ck_near(get(&s, "lat_p99_s"), 27520e-6);
	ck_near(get(&s, "lat_p999_s"), 1204224e-6);
	free(text);
}
END_TEST

START_TEST(fio3_text_with_k_suffixes)
{
	struct corecap_bench_summary s;
	char *text = slurp("fio-3.33-randwrite.txt");

	ck_assert_int_eq(corecap_bench_parse(text, &s), 0);
	ck_near(get(&s, "iops_avg"), 489e3);
	ck_near(get(&s, "total_time_s"), 1.001);
	ck_near(get(&s, "bandwidth_mb_s"), 1909);
	ck_near(get(&s, "lat_max_s"), 4365.2e3 * 1e-9);
	ck_near(get(&s, "lat_avg_s"), 1298.23e-9);
	ck_near(get(&s, "lat_p999_s"), 99840e-9);
	free(text);
}
END_TEST

START_TEST(unknown_output_is_not_a_summary)
{
	struct corecap_bench_summary s;

	ck_assert_int_eq(corecap_bench_parse("hello\nworld 42\n", &s), -ENOENT);
	ck_assert_ptr_null(s.parser);
	ck_assert_int_eq(s.n_items, 0);
	ck_assert_int_eq(corecap_bench_parse("", &s), -ENOENT);
	/* A label without a number is no value. */
	ck_assert_int_eq(corecap_bench_parse("Average IOPS: n/a\n", &s), -ENOENT);
}
END_TEST

START_TEST(labels_tolerate_blanks_crlf_and_case)
{
	struct corecap_bench_summary s;

	ck_assert_int_eq(
		corecap_bench_parse("  average iops:   123\r\nMax latency(s):\t0.5\r\n", &s), 0);
	ck_near(get(&s, "iops_avg"), 123);
	ck_near(get(&s, "lat_max_s"), 0.5);
}
END_TEST

START_TEST(summary_set_replaces_and_reports_full)
{
	struct corecap_bench_summary s;
	char key[32];

	corecap_bench_summary_init(&s);
	ck_assert_int_eq(corecap_bench_summary_set(&s, "a", 1, false), 0);
	ck_assert_int_eq(corecap_bench_summary_set(&s, "a", 2, false), 0);
	ck_assert_int_eq(s.n_items, 1);
	ck_near(get(&s, "a"), 2);
	for (int i = 1; i < CORECAP_BENCH_MAX_ITEMS; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		ck_assert_int_eq(corecap_bench_summary_set(&s, key, i, true), 0);
	}
	ck_assert_int_eq(corecap_bench_summary_set(&s, "one_too_many", 1, false), -ENOSPC);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/bench_parse");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, refbench_summary_gives_every_rados_label_and_percentiles);
	tcase_add_test(tc, old_rados_labels_are_read_and_missing_ones_stay_absent);
	tcase_add_test(tc, the_last_of_several_summaries_wins);
	tcase_add_test(tc, fio_json_single_job);
	tcase_add_test(tc, fio_json_jobs_and_directions_are_aggregated);
	tcase_add_test(tc, fio_json_after_warnings_is_found);
	tcase_add_test(tc, fio2_text_headline_latency_and_percentiles);
	tcase_add_test(tc, fio3_text_with_k_suffixes);
	tcase_add_test(tc, unknown_output_is_not_a_summary);
	tcase_add_test(tc, labels_tolerate_blanks_crlf_and_case);
	tcase_add_test(tc, summary_set_replaces_and_reports_full);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
