/*
 * collector/sources/wall_sampler.c: which threads a round visits when it runs out
 * of time (the rotation), and the per-window bound on a thread's stops.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "sources/wall_sampler.h"

#include "check_run.h"

START_TEST(a_full_round_visits_every_thread_once_from_its_cursor)
{
	static const size_t want[] = {3, 4, 5, 6, 0, 1, 2};
	struct corecap_wall_round r;

	corecap_wall_round_begin(&r, 7, 3);
	for (size_t i = 0; i < 7; i++) {
		ck_assert(!corecap_wall_round_done(&r));
		ck_assert_uint_eq(corecap_wall_round_next(&r), want[i]);
	}
	ck_assert(corecap_wall_round_done(&r));
	ck_assert_uint_eq(corecap_wall_round_next(&r), SIZE_MAX);
	ck_assert_uint_eq(corecap_wall_round_stop(&r), 0); /* nothing skipped */
	ck_assert_uint_eq(corecap_wall_round_cursor(&r), 3);
}
END_TEST

START_TEST(a_late_round_skips_the_rest_and_the_next_begins_with_them)
{
	struct corecap_wall_round r;

	corecap_wall_round_begin(&r, 10, 0);
	for (size_t i = 0; i < 4; i++)
		ck_assert_uint_eq(corecap_wall_round_next(&r), i);
	ck_assert_uint_eq(corecap_wall_round_stop(&r), 6);
	ck_assert_uint_eq(corecap_wall_round_stop(&r), 0); /* counted once */
	ck_assert(corecap_wall_round_done(&r));
	ck_assert_uint_eq(corecap_wall_round_next(&r), SIZE_MAX);
	ck_assert_uint_eq(corecap_wall_round_cursor(&r), 4);
	corecap_wall_round_begin(&r, 10, corecap_wall_round_cursor(&r));
	ck_assert_uint_eq(corecap_wall_round_next(&r), 4);
}
END_TEST

START_TEST(a_cursor_past_the_threads_wraps_and_no_threads_is_no_round)
{
	struct corecap_wall_round r;

	corecap_wall_round_begin(&r, 5, 12); /* threads exited since: 12 % 5 */
	ck_assert_uint_eq(corecap_wall_round_next(&r), 2);
	corecap_wall_round_begin(&r, 0, 7);
	ck_assert(corecap_wall_round_done(&r));
	ck_assert_uint_eq(corecap_wall_round_next(&r), SIZE_MAX);
	ck_assert_uint_eq(corecap_wall_round_stop(&r), 0);
	ck_assert_uint_eq(corecap_wall_round_cursor(&r), 0);
}
END_TEST

/*
 * 2,000 threads, time for 150 per round, 100 rounds (#43's 50 Hz refosd
 * run had 40 to 149 samples per thread along the visiting order): every
 * thread gets 7 or 8 turns, and visits plus skips add up to what was due.
 * The same rounds begun at index 0 each time leave most threads at 0: the
 * check below would see that bias.
 */
static void rounds(size_t *turns, bool rotate, uint64_t *skipped)
{
	struct corecap_wall_round r = {0};

	*skipped = 0;
	for (int round = 0; round < 100; round++) {
		corecap_wall_round_begin(&r, 2000, rotate ? corecap_wall_round_cursor(&r) : 0);
		for (int k = 0; k < 150; k++)
			turns[corecap_wall_round_next(&r)]++;
		*skipped += corecap_wall_round_stop(&r);
	}
}

START_TEST(late_rounds_share_the_skips_evenly)
{
	size_t *turns = calloc(2000, sizeof(*turns));
	size_t lo = SIZE_MAX, hi = 0, sum = 0;
	uint64_t skipped;

	ck_assert_ptr_nonnull(turns);
	rounds(turns, true, &skipped);
	for (size_t i = 0; i < 2000; i++) {
		lo = turns[i] < lo ? turns[i] : lo;
		hi = turns[i] > hi ? turns[i] : hi;
		sum += turns[i];
	}
	ck_assert_uint_eq(sum, 15000);
	ck_assert_uint_eq(sum + skipped, 100 * 2000);
	ck_assert_uint_eq(lo, 7);
	ck_assert_uint_eq(hi, 8);

	/* Without the rotation: the first 150 threads get every turn. */
	for (size_t i = 0; i < 2000; i++)
		turns[i] = 0;
	rounds(turns, false, &skipped);
	ck_assert_uint_eq(turns[0], 100);
	ck_assert_uint_eq(turns[1999], 0);
	free(turns);
}
END_TEST

START_TEST(a_thread_is_held_at_most_its_share_of_the_window)
{
	const uint64_t ms = 1000000, budget = CORECAP_WALL_STOP_BUDGET_NS;
	const uint64_t share_1s = 1000 * ms / 100 * CORECAP_WALL_THREAD_STOP_SHARE_PCT;

	/* At the window's start, one sample's budget. */
	ck_assert(corecap_wall_stop_allowed(0, 0));
	ck_assert(corecap_wall_stop_allowed(budget - 1, 0));
	ck_assert(!corecap_wall_stop_allowed(budget, 0));
	/* A second in: its share of that second more. */
	ck_assert(corecap_wall_stop_allowed(share_1s + budget - 1, 1000 * ms));
	ck_assert(!corecap_wall_stop_allowed(share_1s + budget, 1000 * ms));
	/* A thread held 4.75 s in a 2 s window (#42) would have been passed over. */
	ck_assert(!corecap_wall_stop_allowed(4750 * ms, 2000 * ms));
}
END_TEST

START_TEST(a_few_threads_are_stopped_one_at_a_time)
{
	/* A ceph-osd's 11 op-path threads: one held at a time (#42's regression). */
	ck_assert_uint_eq(corecap_wall_slots(0), 1);
	ck_assert_uint_eq(corecap_wall_slots(11), 1);
	ck_assert_uint_eq(corecap_wall_slots(31), 1);
	ck_assert_uint_eq(corecap_wall_slots(32), 2);
	ck_assert_uint_eq(corecap_wall_slots(64), 3);
	ck_assert_uint_eq(corecap_wall_slots(2000), CORECAP_WALL_MAX_IN_FLIGHT);
	ck_assert_uint_eq(corecap_wall_slots(100000), CORECAP_WALL_MAX_IN_FLIGHT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/wall_sampler");
	TCase *tc = tcase_create("bounds");

	tcase_add_test(tc, a_full_round_visits_every_thread_once_from_its_cursor);
	tcase_add_test(tc, a_late_round_skips_the_rest_and_the_next_begins_with_them);
	tcase_add_test(tc, a_cursor_past_the_threads_wraps_and_no_threads_is_no_round);
	tcase_add_test(tc, late_rounds_share_the_skips_evenly);
	tcase_add_test(tc, a_thread_is_held_at_most_its_share_of_the_window);
	tcase_add_test(tc, a_few_threads_are_stopped_one_at_a_time);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
