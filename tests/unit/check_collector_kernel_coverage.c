/*
 * collector/kernel/kernel_coverage.c: the kernel wall-clock sampler's
 * samples due and taken per thread, from hand-made visits and samples
 * whose figures can be checked by hand: a 4 s window at 100 Hz (400
 * samples due to a thread alive throughout).
 */
#include <check.h>
#include <stdint.h>

#include "kernel/kernel_coverage.h"

#include "check_run.h"

#define S	  1000000000ull
#define START	  (10 * S)
#define END	  (14 * S)
#define PERIOD_NS (S / 100)

/* tid visited every period from `from` to `to` (as the rounds would),
 * with `taken` samples in the window. */
static void thread(struct kernel_coverage *c, int32_t tid, uint64_t from, uint64_t to,
		   uint64_t taken)
{
	for (uint64_t t = from; t <= to; t += PERIOD_NS)
		kernel_coverage_visit(c, tid, t);
	for (uint64_t i = 0; i < taken; i++)
		kernel_coverage_taken(c, tid);
}

START_TEST(a_thread_short_of_its_due_is_the_minimum)
{
	struct kernel_coverage c;
	struct corecap_wall_coverage w = {0};

	kernel_coverage_init(&c);
	/* Alive before and after the window: 400 due each. */
	thread(&c, 101, START - S, END + S, 400);
	thread(&c, 102, START - S, END + S, 300);
	thread(&c, 103, START - S, END + S, 412);
	ck_assert(kernel_coverage_sum(&c, 100, START, END, &w));
	ck_assert_uint_eq(w.threads_counted, 3);
	ck_assert_uint_eq(w.threads_starved, 0);
	ck_assert_uint_eq(w.thread_samples_min, 300);
	ck_assert_uint_eq(w.thread_samples_max, 412);
	ck_assert_uint_eq(w.thread_coverage_min_pm, 750);
	ck_assert_uint_eq(w.thread_coverage_max_pm, 1030);
	kernel_coverage_release(&c);
}
END_TEST

START_TEST(a_thread_is_due_its_time_in_the_window)
{
	struct kernel_coverage c;
	struct corecap_wall_coverage w = {0};

	kernel_coverage_init(&c);
	/* Born 3 s into the window: 1 s, 100 due; it got 100. */
	thread(&c, 201, START + 3 * S, END + S, 100);
	/* Its last visit 1 s into the window: 1 s and the period after it,
	 * 101 due; it got 50. */
	thread(&c, 202, START - S, START + S, 50);
	ck_assert(kernel_coverage_sum(&c, 100, START, END, &w));
	ck_assert_uint_eq(w.threads_counted, 2);
	ck_assert_uint_eq(w.thread_coverage_max_pm, 1000);
	ck_assert_uint_eq(w.thread_coverage_min_pm, 50 * 1000 / 101);
	kernel_coverage_release(&c);
}
END_TEST

START_TEST(starved_short_and_unvisited_threads)
{
	struct kernel_coverage c;
	struct corecap_wall_coverage w = {0};

	kernel_coverage_init(&c);
	thread(&c, 301, START - S, END + S, 400);
	thread(&c, 302, START - S, END + S, 0); /* visited throughout, no sample */
	/* Alive 30 ms of the window: 3 due (under CORECAP_WALL_STARVED_MIN_DUE), not counted. */
	thread(&c, 303, END - 3 * PERIOD_NS, END + S, 0);
	/* Sampled on a CPU, never visited: its time is unknown, not counted. */
	thread(&c, 304, 1, 0, 7);
	/* Gone before the window. */
	thread(&c, 305, START - 2 * S, START - S, 0);
	ck_assert(kernel_coverage_sum(&c, 100, START, END, &w));
	ck_assert_uint_eq(w.threads_counted, 2);
	ck_assert_uint_eq(w.threads_starved, 1);
	ck_assert_uint_eq(w.thread_samples_min, 0);
	ck_assert_uint_eq(w.thread_coverage_min_pm, 0);
	ck_assert_uint_eq(w.thread_coverage_max_pm, 1000);
	kernel_coverage_release(&c);
}
END_TEST

START_TEST(many_threads_are_kept)
{
	struct kernel_coverage c;
	struct corecap_wall_coverage w = {0};

	kernel_coverage_init(&c);
	for (int32_t tid = 1000; tid < 3000; tid++) {
		kernel_coverage_visit(&c, tid, START - S);
		kernel_coverage_visit(&c, tid, END + S);
		for (int i = 0; i < 400 - (tid == 2999 ? 100 : 0); i++)
			kernel_coverage_taken(&c, tid);
	}
	ck_assert(kernel_coverage_sum(&c, 100, START, END, &w));
	ck_assert(!c.failed);
	ck_assert_uint_eq(c.n, 2000);
	ck_assert_uint_eq(w.threads_counted, 2000);
	ck_assert_uint_eq(w.thread_coverage_min_pm, 750);
	ck_assert_uint_eq(w.thread_coverage_max_pm, 1000);
	kernel_coverage_release(&c);
}
END_TEST

START_TEST(no_figure_without_a_window)
{
	struct kernel_coverage c;
	struct corecap_wall_coverage w = {.threads_counted = 9};

	kernel_coverage_init(&c);
	thread(&c, 401, START - S, END + S, 400);
	ck_assert(!kernel_coverage_sum(&c, 100, 0, END, &w));
	ck_assert(!kernel_coverage_sum(&c, 100, START, 0, &w));
	ck_assert(!kernel_coverage_sum(&c, 0, START, END, &w));
	ck_assert_uint_eq(w.threads_counted, 9); /* untouched */
	kernel_coverage_release(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/kernel_coverage");
	TCase *tc = tcase_create("coverage");

	tcase_add_test(tc, a_thread_short_of_its_due_is_the_minimum);
	tcase_add_test(tc, a_thread_is_due_its_time_in_the_window);
	tcase_add_test(tc, starved_short_and_unvisited_threads);
	tcase_add_test(tc, many_threads_are_kept);
	tcase_add_test(tc, no_figure_without_a_window);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
