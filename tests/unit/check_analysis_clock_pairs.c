/*
 * analysis/model/clock_pairs.c: a host's clock refined from hand-made
 * ops whose clocks are known: a host 37.5 s ahead drifting 20 ppm, ops
 * over 10 s with networks of 5 to 80 us each way. The offset and the
 * drift are recovered, the true offset within the bound; a ping interval
 * disjoint from the pairs' is flagged and not used; no pairs, no figure.
 */
#include <check.h>
#include <math.h>

#include "model/clock_pairs.h"

#include "check_run.h"

#define T0     1000000000ll  /* the recording clock's start, ns */
#define THETA0 37500000000ll /* the host's offset at T0 */
#define DRIFT  20e-6	     /* 20 ppm */

/* The host's clock at the recording clock's x. */
static uint64_t host_at(int64_t x)
{
	return (uint64_t)(x + THETA0 + llround(DRIFT * (double)(x - T0)));
}

/* n ops over 10 s; the networks vary with a fixed sequence, some fast. */
static void fill(struct clock_pairs_acc *acc, size_t n)
{
	uint32_t seed = 12345;

	for (size_t k = 0; k < n; k++) {
		int64_t s = T0 + (int64_t)(k * (10000000000ull / n));
		int64_t out, back, y;

		seed = seed * 1103515245u + 12345u;
		out = 5000 + (int64_t)((seed >> 8) % 75000);
		seed = seed * 1103515245u + 12345u;
		back = 5000 + (int64_t)((seed >> 8) % 75000);
		y = s + out + 100000; /* the daemon's 100 us */
		ck_assert_int_eq(corecap_clock_pairs_add(acc, (uint64_t)s, (uint64_t)(y + back),
							 host_at(s + out), host_at(y)),
				 0);
	}
}

START_TEST(a_known_offset_and_drift_are_recovered)
{
	struct clock_pairs_acc acc;
	struct clock_ping ping = {0}; /* no ping: the pairs' own */
	struct clock_refined r;

	corecap_clock_pairs_init(&acc);
	fill(&acc, 2000);
	corecap_clock_pairs_refine(&acc, &ping, &r);
	ck_assert(r.valid && !r.contradiction && r.drift_fitted);
	ck_assert_uint_eq(r.pairs, 2000);
	ck_assert_uint_eq(r.at_ns, T0);
	ck_assert_msg(llabs(r.offset_ns - THETA0) <= (long long)r.bound_ns + 10,
		      "offset %lld, bound %llu", (long long)r.offset_ns,
		      (unsigned long long)r.bound_ns);
	ck_assert_msg(r.bound_ns < 5000, "bound %llu", (unsigned long long)r.bound_ns);
	ck_assert_msg(fabs(r.drift - DRIFT) < 0.5e-6, "drift %g", r.drift);
	ck_assert(fabs(r.drift - DRIFT) <= r.drift_bound + 1e-9);
	corecap_clock_pairs_release(&acc);
}
END_TEST

START_TEST(the_ping_interval_is_narrowed_by_the_pairs)
{
	struct clock_pairs_acc acc;
	/* The ping's: 10 us off the truth, +- 50 us, with the right drift. */
	struct clock_ping ping = {.valid = true,
				  .has_drift = true,
				  .offset_ns = THETA0 + 10000,
				  .at_ns = T0,
				  .bound_ns = 50000,
				  .drift = DRIFT};
	struct clock_refined r;

	corecap_clock_pairs_init(&acc);
	fill(&acc, 500);
	corecap_clock_pairs_refine(&acc, &ping, &r);
	ck_assert(r.valid && !r.contradiction);
	ck_assert_uint_lt(r.bound_ns, ping.bound_ns / 4);
	ck_assert(llabs(r.offset_ns - THETA0) <= (long long)r.bound_ns + 10);
	ck_assert(r.pairs_lo_ns <= THETA0 + 10 && r.pairs_hi_ns >= THETA0 - 10);
	corecap_clock_pairs_release(&acc);
}
END_TEST

START_TEST(a_ping_disjoint_from_the_pairs_is_flagged_not_used)
{
	struct clock_pairs_acc acc;
	/* 1 ms off, +- 50 us: no overlap with the pairs' interval. */
	struct clock_ping ping = {
		.valid = true, .offset_ns = THETA0 + 1000000, .at_ns = T0, .bound_ns = 50000};
	struct clock_refined r;

	corecap_clock_pairs_init(&acc);
	fill(&acc, 500);
	corecap_clock_pairs_refine(&acc, &ping, &r);
	ck_assert(r.contradiction);
	ck_assert(!r.valid);
	ck_assert_int_lt(r.pairs_hi_ns, ping.offset_ns - (int64_t)ping.bound_ns);
	corecap_clock_pairs_release(&acc);
}
END_TEST

START_TEST(pairs_contradicting_each_other_are_flagged)
{
	struct clock_pairs_acc acc;
	struct clock_ping ping = {0};
	struct clock_refined r;

	corecap_clock_pairs_init(&acc);
	/* One says theta in [100, 200], the other in [300, 400]. */
	ck_assert_int_eq(corecap_clock_pairs_add(&acc, 1000, 2000, 1200, 1500), 0);
	ck_assert_int_eq(corecap_clock_pairs_add(&acc, 1000, 2000, 1400, 2300), 0);
	corecap_clock_pairs_refine(&acc, &ping, &r);
	ck_assert(r.contradiction && !r.valid);
	corecap_clock_pairs_release(&acc);
}
END_TEST

/*
 * Pairs given as bounds (ops between two other hosts, shifted by the
 * peer's offset): the same as the op pairs they stand for, and a pair
 * widened by the peer's bound stays around the truth.
 */
START_TEST(pairs_given_as_bounds_are_the_op_pairs_they_stand_for)
{
	struct clock_pairs_acc a, b;
	struct clock_ping ping = {0};
	struct clock_refined ra, rb;

	corecap_clock_pairs_init(&a);
	corecap_clock_pairs_init(&b);
	fill(&a, 500);
	for (size_t k = 0; k < a.n; k++)
		ck_assert_int_eq(corecap_clock_pairs_add_bounds(&b, a.v[k].lo_ns - 3000,
								a.v[k].hi_ns + 3000, a.v[k].t_ns),
				 0);
	corecap_clock_pairs_refine(&a, &ping, &ra);
	corecap_clock_pairs_refine(&b, &ping, &rb);
	ck_assert(ra.valid && rb.valid && !rb.contradiction);
	ck_assert_uint_eq(rb.pairs, 500);
	ck_assert_msg(llabs(rb.offset_ns - THETA0) <= (long long)rb.bound_ns + 10,
		      "offset %lld, bound %llu", (long long)rb.offset_ns,
		      (unsigned long long)rb.bound_ns);
	ck_assert_int_le(rb.pairs_lo_ns, ra.pairs_lo_ns);
	ck_assert_int_ge(rb.pairs_hi_ns, ra.pairs_hi_ns);
	/* Asked to keep the ping's drift (the true one here), the pairs fit none. */
	ping = (struct clock_ping){.valid = true,
				   .has_drift = true,
				   .offset_ns = THETA0,
				   .at_ns = T0,
				   .bound_ns = 50000,
				   .drift = DRIFT,
				   .keep_drift = true};
	corecap_clock_pairs_refine(&b, &ping, &rb);
	ck_assert(rb.valid && !rb.drift_fitted);
	ck_assert(rb.drift == DRIFT);
	ck_assert_msg(llabs(rb.offset_ns - THETA0) <= (long long)rb.bound_ns + 10,
		      "offset %lld, bound %llu", (long long)rb.offset_ns,
		      (unsigned long long)rb.bound_ns);
	corecap_clock_pairs_release(&a);
	corecap_clock_pairs_release(&b);
}
END_TEST

START_TEST(no_pairs_give_no_refinement)
{
	struct clock_pairs_acc acc;
	struct clock_ping ping = {.valid = true, .offset_ns = 5, .at_ns = 7, .bound_ns = 9};
	struct clock_refined r;

	corecap_clock_pairs_init(&acc);
	/* An op whose times run backwards bounds nothing. */
	ck_assert_int_eq(corecap_clock_pairs_add(&acc, 2000, 1000, 1200, 1500), 0);
	corecap_clock_pairs_refine(&acc, &ping, &r);
	ck_assert(!r.valid && !r.contradiction);
	ck_assert_uint_eq(r.pairs, 0);
	ck_assert_int_eq(ping.offset_ns, 5); /* the ping's own, untouched */
	corecap_clock_pairs_release(&acc);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_clock_pairs");
	TCase *tc = tcase_create("clock_pairs");

	tcase_add_test(tc, a_known_offset_and_drift_are_recovered);
	tcase_add_test(tc, the_ping_interval_is_narrowed_by_the_pairs);
	tcase_add_test(tc, a_ping_disjoint_from_the_pairs_is_flagged_not_used);
	tcase_add_test(tc, pairs_contradicting_each_other_are_flagged);
	tcase_add_test(tc, no_pairs_give_no_refinement);
	tcase_add_test(tc, pairs_given_as_bounds_are_the_op_pairs_they_stand_for);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
