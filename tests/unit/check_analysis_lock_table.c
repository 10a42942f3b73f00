/*
 * analysis/model/lock_table.c: the span union behind a lock's waited and
 * busy time. Against a brute-force union (a bitmap of ticks) for random
 * intervals in any order while every merged interval stays open; in end
 * order beyond the open slots (the oldest become final, nothing lost);
 * an interval reaching back past the final ones clipped at them, never
 * counted twice.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/lock_table.h"

#include "check_run.h"

#define TICKS 1000

static void assert_sorted_disjoint(const struct span_union *u)
{
	for (uint32_t i = 0; i < u->n; i++) {
		ck_assert_uint_lt(u->v[i].b, u->v[i].e);
		if (i)
			ck_assert_uint_lt(u->v[i - 1].e, u->v[i].b);
	}
}

START_TEST(random_intervals_in_any_order_match_a_brute_force_union)
{
	unsigned seed = 19;

	for (int round = 0; round < 5000; round++) {
		struct span_union u = {0};
		bool tick[TICKS] = {false};
		/* Fewer intervals than open slots: none becomes final. */
		int n = 1 + rand_r(&seed) % (LOCK_WAIT_SPANS - 1);
		uint64_t want = 0;

		for (int k = 0; k < n; k++) {
			uint64_t b = (uint64_t)(rand_r(&seed) % TICKS);
			uint64_t e = b + (uint64_t)(rand_r(&seed) % 80);

			if (e > TICKS)
				e = TICKS;
			corecap_span_union_add(&u, b, e);
			for (uint64_t t = b; t < e; t++)
				tick[t] = true;
			assert_sorted_disjoint(&u);
		}
		for (int t = 0; t < TICKS; t++)
			want += tick[t];
		ck_assert_uint_eq(u.final_ns, 0);
		ck_assert_uint_eq(corecap_span_union_ns(&u), want);
	}
}
END_TEST

START_TEST(end_order_beyond_the_open_slots_loses_nothing)
{
	struct span_union u = {0};

	/* 1000 waits of 10 ns, 100 ns apart. */
	for (uint64_t i = 0; i < 1000; i++) {
		corecap_span_union_add(&u, 100 * i, 100 * i + 10);
		assert_sorted_disjoint(&u);
	}
	ck_assert_uint_eq(u.n, LOCK_WAIT_SPANS);
	ck_assert_uint_eq(corecap_span_union_ns(&u), 10000);
	/* Overlapping the latest two: one interval from the first's start. */
	corecap_span_union_add(&u, 99805, 100000);
	ck_assert_uint_eq(corecap_span_union_ns(&u), 10000 - 20 + 200);
	assert_sorted_disjoint(&u);
}
END_TEST

START_TEST(reaching_back_past_the_final_ones_is_clipped)
{
	struct span_union u = {0};

	/* 20 disjoint waits of 10: the first 4 become final (until 310). */
	for (uint64_t i = 0; i < 20; i++)
		corecap_span_union_add(&u, 100 * i, 100 * i + 10);
	ck_assert_uint_eq(u.final_ns, 40);
	ck_assert_uint_eq(u.final_until, 310);
	/* [0, 2000) covers all: the part before 310 is not counted again. */
	corecap_span_union_add(&u, 0, 2000);
	ck_assert_uint_eq(u.n, 1);
	ck_assert_uint_eq(corecap_span_union_ns(&u), 40 + 2000 - 310);
	/* Wholly before the final edge: nothing. */
	corecap_span_union_add(&u, 5, 300);
	ck_assert_uint_eq(corecap_span_union_ns(&u), 40 + 2000 - 310);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lock_table");
	TCase *tc = tcase_create("span_union");

	tcase_add_test(tc, random_intervals_in_any_order_match_a_brute_force_union);
	tcase_add_test(tc, end_order_beyond_the_open_slots_loses_nothing);
	tcase_add_test(tc, reaching_back_past_the_final_ones_is_clipped);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
