/*
 * analysis/compare_diff.c: compare's headline from two runs' totals built
 * by hand (the IOPS ratio, the latency change per op and the categories
 * that made it, largest first; "not measured" for what one run lacks),
 * the per-op scaling of a differential's column, the ratios' floor, the
 * rows zero in both runs, and the arguments two command lines differ in.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "compare_diff.h"

#include "check_run.h"

static struct compare_totals t[2];
static char buf[512];

static void setup(void)
{
	memset(t, 0, sizeof(t));
	for (int s = 0; s < 2; s++) {
		t[s].has_iops = t[s].has_ops = true;
		for (int c = 0; c < CAT__COUNT; c++)
			t[s].cat_measured[c] = true;
	}
	/* A: 1000 ops of 100 us (cpu 40, queue 50, logging 10). */
	t[0].iops = 2000;
	t[0].ops = 1000;
	t[0].latency_ns = 1000 * 100e3;
	t[0].cat_ns[CAT_CPU] = 1000 * 40e3;
	t[0].cat_ns[CAT_QUEUE] = 1000 * 50e3;
	t[0].cat_ns[CAT_LOGGING] = 1000 * 10e3;
	/* B: 500 ops of 382.7 us (cpu 61.6, queue 231, logging 78.7, io 11.4). */
	t[1].iops = 920;
	t[1].ops = 500;
	t[1].latency_ns = 500 * 382.7e3;
	t[1].cat_ns[CAT_CPU] = 500 * 61.6e3;
	t[1].cat_ns[CAT_QUEUE] = 500 * 231e3;
	t[1].cat_ns[CAT_LOGGING] = 500 * 78.7e3;
	t[1].cat_ns[CAT_IO] = 500 * 11.4e3;
}

START_TEST(the_headline_names_the_change_and_its_parts)
{
	corecap_compare_headline(t, buf, sizeof(buf));
	ck_assert_str_eq(buf, "B: 0.46x IOPS; latency +282.7 us/op, of which queue +181.0, "
			      "logging +68.7, cpu +21.6, io +11.4");
}
END_TEST

START_TEST(a_faster_b_reads_negative)
{
	struct compare_totals x = t[0];

	t[0] = t[1];
	t[1] = x;
	corecap_compare_headline(t, buf, sizeof(buf));
	ck_assert_str_eq(buf, "B: 2.17x IOPS; latency -282.7 us/op, of which queue -181.0, "
			      "logging -68.7, cpu -21.6, io -11.4");
}
END_TEST

START_TEST(a_category_one_run_lacks_is_not_measured)
{
	t[1].cat_measured[CAT_IO] = false;
	t[1].cat_measured[CAT_LOCK_WAIT] = false;
	corecap_compare_headline(t, buf, sizeof(buf));
	ck_assert(strstr(buf, "io +") == NULL);
	ck_assert(strstr(buf, "; lock_wait not measured in B") != NULL);
	ck_assert(strstr(buf, "; io not measured in B") != NULL);
}
END_TEST

START_TEST(no_traced_ops_in_one_run)
{
	t[1].has_ops = false;
	corecap_compare_headline(t, buf, sizeof(buf));
	ck_assert_str_eq(buf, "B: 0.46x IOPS; latency per op not measured in B (no traced ops)");
	t[0].has_iops = false;
	corecap_compare_headline(t, buf, sizeof(buf));
	ck_assert(strncmp(buf, "B: IOPS not measured in A;", 26) == 0);
}
END_TEST

START_TEST(without_the_benchmarks_iops_the_traced_rate_is_compared)
{
	t[0].has_iops = t[1].has_iops = false;
	t[0].ops_per_s = 79;
	t[1].ops_per_s = 39.5;
	corecap_compare_headline(t, buf, sizeof(buf));
	ck_assert_msg(
		strncmp(buf,
			"B: 0.50x traced ops/s (the benchmark's IOPS not measured in A and B);",
			69) == 0,
		"%s", buf);
	t[1].has_iops = true;
	corecap_compare_headline(t, buf, sizeof(buf));
	ck_assert(strstr(buf, "(the benchmark's IOPS not measured in A)") != NULL);
	/* A run without a trace: nothing to fall back on. */
	t[1].ops_per_s = 0;
	corecap_compare_headline(t, buf, sizeof(buf));
	ck_assert(strncmp(buf, "B: IOPS not measured in A;", 26) == 0);
}
END_TEST

START_TEST(small_changes_are_left_out)
{
	t[1].cat_ns[CAT_OTHER] = 500 * 0.01e3; /* +0.01 us: noise */
	corecap_compare_headline(t, buf, sizeof(buf));
	ck_assert(strstr(buf, "other") == NULL);
}
END_TEST

START_TEST(scaling_a_column_keeps_totals_consistent)
{
	struct folded f;
	const char *ab[] = {"a", "b"}, *ac[] = {"a", "c"}, *d[] = {"d"};

	ck_assert_int_eq(corecap_folded_init(&f), 0);
	ck_assert_int_eq(corecap_folded_add(&f, ab, 2, 100, 1), 0);
	ck_assert_int_eq(corecap_folded_add(&f, ac, 2, 50, 1), 0);
	ck_assert_int_eq(corecap_folded_add(&f, d, 1, 7, 1), 0);
	ck_assert_int_eq(corecap_folded_add(&f, d, 1, 9, 0), 0);
	corecap_compare_scale_column(&f, 1, 2.0);
	ck_assert_uint_eq(f.nodes[FOLDED_ROOT].total[1], 314);
	ck_assert_uint_eq(f.nodes[FOLDED_ROOT].total[0], 9); /* the other column untouched */
	for (size_t i = 1; i < f.n_nodes; i++)
		if (strcmp(corecap_folded_name(&f, &f.nodes[i]), "a") == 0)
			ck_assert_uint_eq(f.nodes[i].total[1], 300);
	corecap_folded_release(&f);
}
END_TEST

START_TEST(ratios_only_above_the_floor)
{
	struct compare_row r = {.has = {true, true}, .decimals = 1};
	double x;

	/* logging % 0.0 against 8.2: no 699.88x. */
	r.v[0] = 0.0117;
	r.v[1] = 8.2;
	ck_assert(!corecap_compare_ratio(&r, &x));
	/* Both at least 10 units of the last decimal (1.0 at one decimal). */
	r.v[0] = 1.0;
	r.v[1] = 2.5;
	ck_assert(corecap_compare_ratio(&r, &x));
	ck_assert_double_eq_tol(x, 2.5, 1e-9);
	/* Counts: 3 threads against 3 say nothing as a ratio; 94 IOPS against 110 do. */
	r = (struct compare_row){.has = {true, true}, .v = {3, 3}};
	ck_assert(!corecap_compare_ratio(&r, &x));
	r.v[0] = 94;
	r.v[1] = 110;
	ck_assert(corecap_compare_ratio(&r, &x));
	/* One side not measured: no ratio, whatever the values. */
	r.has[1] = false;
	ck_assert(!corecap_compare_ratio(&r, &x));
}
END_TEST

START_TEST(rows_zero_in_both_runs)
{
	struct compare_row r = {.has = {true, true}, .decimals = 1, .v = {0.04, -0.02}};

	ck_assert(corecap_compare_row_zero(&r));
	r.v[1] = 0.05; /* prints 0.1 */
	ck_assert(!corecap_compare_row_zero(&r));
	r.v[1] = 0;
	r.has[1] = false; /* "not measured" stays */
	ck_assert(!corecap_compare_row_zero(&r));
}
END_TEST

/* corecap_compare_args on two argument vectors: "A|B". */
static void args(const char *const *a, size_t na, const char *const *b, size_t nb, char *out,
		 size_t len)
{
	char *x, *y;

	ck_assert_int_eq(corecap_compare_args(a, na, b, nb, &x, &y), 0);
	snprintf(out, len, "%s|%s", x, y);
	free(x);
	free(y);
}

START_TEST(command_lines_differ_in_their_arguments)
{
	const char *a[] = {"refosd", "--port", "0", "--debug", "1"};
	const char *b[] = {"refosd", "--port", "0", "--debug", "20"};
	const char *c[] = {"refosd", "--port", "0", "--big-lock", "--debug", "1"};

	args(a, 5, b, 5, buf, sizeof(buf));
	ck_assert_str_eq(buf, "--debug 1|--debug 20");
	args(a, 5, a, 5, buf, sizeof(buf));
	ck_assert_str_eq(buf, "|");
	/* An option only B has, the rest the same. */
	args(a, 5, c, 6, buf, sizeof(buf));
	ck_assert_str_eq(buf, "|--big-lock");
	/* Nothing at all on one side. */
	args(a, 0, b, 2, buf, sizeof(buf));
	ck_assert_str_eq(buf, "|refosd --port");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("compare_diff");
	TCase *tc = tcase_create("headline");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, the_headline_names_the_change_and_its_parts);
	tcase_add_test(tc, ratios_only_above_the_floor);
	tcase_add_test(tc, rows_zero_in_both_runs);
	tcase_add_test(tc, command_lines_differ_in_their_arguments);
	tcase_add_test(tc, a_faster_b_reads_negative);
	tcase_add_test(tc, a_category_one_run_lacks_is_not_measured);
	tcase_add_test(tc, no_traced_ops_in_one_run);
	tcase_add_test(tc, without_the_benchmarks_iops_the_traced_rate_is_compared);
	tcase_add_test(tc, small_changes_are_left_out);
	tcase_add_test(tc, scaling_a_column_keeps_totals_consistent);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
