/*
 * analysis/model/ceph_sampled.c: known answers over hand-built OpTracker
 * spans (struct ceph_files as ceph_files_load leaves it: spans by arrival,
 * in the daemon's wall clock) and samples placed inside and around them.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "model/ceph_sampled.h"

#include "check_run.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

enum { WRITE, READ, DELETE };

static struct ceph_op_type types[] = {{.name = "write"}, {.name = "read"}, {.name = "delete"}};

static struct ceph_files files(struct ceph_op_span *spans, size_t n_spans)
{
	return (struct ceph_files){
		.has_optracker = true,
		.types = types,
		.n_types = LEN(types),
		.spans = spans,
		.n_spans = n_spans,
		.n_ops = n_spans,
	};
}

/* Each category's per-op time, with the queue, adds up to the latency. */
static void assert_conserved(const struct ceph_sampled_type *ty)
{
	uint64_t sum = ty->queue_ns;

	ck_assert_uint_eq(ty->cat_ns[STACK_IDLE], 0);
	for (int c = STACK_CPU; c < STACK__COUNT; c++)
		sum += ty->cat_ns[c];
	ck_assert_uint_eq(sum, ty->lat_avg_ns);
}

START_TEST(one_op_in_flight_gets_the_whole_period)
{
	struct ceph_op_span spans[] = {{1000, 2000, WRITE, 0, 0, 0}};
	struct ceph_files c = files(spans, LEN(spans));
	struct ceph_sampled s;

	ck_assert_int_eq(corecap_ceph_sampled_init(&s, &c, 0, 100), 0);
	corecap_ceph_sampled_add(&s, 1500, STACK_CPU);
	ck_assert_double_eq_tol(s.types[WRITE].thread_ns[STACK_CPU], 100, 1e-9);
	ck_assert_double_eq_tol(s.types[WRITE].samples, 1, 1e-9);
	ck_assert_uint_eq(s.samples_in_ops, 1);
	ck_assert_uint_eq(s.samples_outside_ops, 0);
	ck_assert_uint_eq(s.samples_idle, 0);
	corecap_ceph_sampled_release(&s);
}
END_TEST

START_TEST(an_op_is_in_flight_from_its_arrival_to_its_reply_inclusive)
{
	struct ceph_op_span spans[] = {{1000, 2000, WRITE, 0, 0, 0}};
	struct ceph_files c = files(spans, LEN(spans));
	struct ceph_sampled s;

	ck_assert_int_eq(corecap_ceph_sampled_init(&s, &c, 0, 100), 0);
	corecap_ceph_sampled_add(&s, 1000, STACK_CPU);
	corecap_ceph_sampled_add(&s, 2000, STACK_IO);
	corecap_ceph_sampled_add(&s, 999, STACK_CPU);
	corecap_ceph_sampled_add(&s, 2001, STACK_CPU);
	ck_assert_uint_eq(s.samples_in_ops, 2);
	ck_assert_uint_eq(s.samples_outside_ops, 2);
	ck_assert_double_eq_tol(s.types[WRITE].thread_ns[STACK_CPU], 100, 1e-9);
	ck_assert_double_eq_tol(s.types[WRITE].thread_ns[STACK_IO], 100, 1e-9);
	corecap_ceph_sampled_release(&s);
}
END_TEST

START_TEST(two_overlapping_ops_share_the_period_equally)
{
	struct ceph_op_span spans[] = {{1000, 3000, WRITE, 0, 0, 0}, {2000, 4000, READ, 0, 0, 0}};
	struct ceph_files c = files(spans, LEN(spans));
	struct ceph_sampled s;

	ck_assert_int_eq(corecap_ceph_sampled_init(&s, &c, 0, 100), 0);
	corecap_ceph_sampled_add(&s, 2500, STACK_IO);
	ck_assert_double_eq_tol(s.types[WRITE].thread_ns[STACK_IO], 50, 1e-9);
	ck_assert_double_eq_tol(s.types[READ].thread_ns[STACK_IO], 50, 1e-9);
	ck_assert_double_eq_tol(s.types[WRITE].samples, 0.5, 1e-9);
	ck_assert_double_eq_tol(s.types[READ].samples, 0.5, 1e-9);
	/* Before the read arrives, and after the write replied, one op has it all. */
	corecap_ceph_sampled_add(&s, 1500, STACK_CPU);
	corecap_ceph_sampled_add(&s, 3500, STACK_CPU);
	ck_assert_double_eq_tol(s.types[WRITE].thread_ns[STACK_CPU], 100, 1e-9);
	ck_assert_double_eq_tol(s.types[READ].thread_ns[STACK_CPU], 100, 1e-9);
	ck_assert_uint_eq(s.samples_in_ops, 3);
	corecap_ceph_sampled_release(&s);
}
END_TEST

START_TEST(two_ops_of_one_type_give_it_the_period_once)
{
	struct ceph_op_span spans[] = {{1000, 3000, WRITE, 0, 0, 0}, {2000, 4000, WRITE, 0, 0, 0}};
	struct ceph_files c = files(spans, LEN(spans));
	struct ceph_sampled s;

	ck_assert_int_eq(corecap_ceph_sampled_init(&s, &c, 0, 100), 0);
	corecap_ceph_sampled_add(&s, 2500, STACK_LOCK_WAIT);
	ck_assert_double_eq_tol(s.types[WRITE].thread_ns[STACK_LOCK_WAIT], 100, 1e-9);
	ck_assert_double_eq_tol(s.types[WRITE].samples, 1, 1e-9);
	corecap_ceph_sampled_release(&s);
}
END_TEST

START_TEST(a_long_op_is_found_behind_later_short_ones)
{
	/* By arrival: the long op first, then short ones that replied before
	 * the sample; only the long one is in flight at 9000. */
	struct ceph_op_span spans[] = {{0, 10000, READ, 0, 0, 0},
				       {2000, 2100, WRITE, 0, 0, 0},
				       {5000, 5100, WRITE, 0, 0, 0},
				       {8000, 8100, WRITE, 0, 0, 0}};
	struct ceph_files c = files(spans, LEN(spans));
	struct ceph_sampled s;

	ck_assert_int_eq(corecap_ceph_sampled_init(&s, &c, 0, 100), 0);
	ck_assert_uint_eq(s.max_span_ns, 10000);
	corecap_ceph_sampled_add(&s, 9000, STACK_CPU);
	ck_assert_uint_eq(s.samples_in_ops, 1);
	ck_assert_double_eq_tol(s.types[READ].thread_ns[STACK_CPU], 100, 1e-9);
	ck_assert_double_eq_tol(s.types[WRITE].samples, 0, 1e-9);
	corecap_ceph_sampled_release(&s);
}
END_TEST

START_TEST(a_sample_outside_every_op_credits_nothing)
{
	struct ceph_op_span spans[] = {{1000, 2000, WRITE, 0, 0, 0}, {5000, 6000, READ, 0, 0, 0}};
	struct ceph_files c = files(spans, LEN(spans));
	struct ceph_sampled s;

	ck_assert_int_eq(corecap_ceph_sampled_init(&s, &c, 0, 100), 0);
	corecap_ceph_sampled_add(&s, 500, STACK_CPU);	   /* before the first */
	corecap_ceph_sampled_add(&s, 3000, STACK_IO);	   /* between */
	corecap_ceph_sampled_add(&s, 9000, STACK_LOGGING); /* after the last */
	ck_assert_uint_eq(s.samples_outside_ops, 3);
	ck_assert_uint_eq(s.samples_in_ops, 0);
	for (size_t t = 0; t < LEN(types); t++) {
		ck_assert_double_eq_tol(s.types[t].samples, 0, 1e-9);
		for (int k = 0; k < STACK__COUNT; k++)
			ck_assert_double_eq_tol(s.types[t].thread_ns[k], 0, 1e-9);
	}
	corecap_ceph_sampled_release(&s);
}
END_TEST

START_TEST(idle_samples_are_counted_and_credit_nothing)
{
	struct ceph_op_span spans[] = {{1000, 2000, WRITE, 0, 0, 0}};
	struct ceph_files c = files(spans, LEN(spans));
	struct ceph_sampled s;

	ck_assert_int_eq(corecap_ceph_sampled_init(&s, &c, 0, 100), 0);
	corecap_ceph_sampled_add(&s, 1500, STACK_IDLE);
	corecap_ceph_sampled_add(&s, 9000, STACK_IDLE);
	ck_assert_uint_eq(s.samples_idle, 2);
	ck_assert_uint_eq(s.samples_in_ops, 0);
	ck_assert_uint_eq(s.samples_outside_ops, 0);
	ck_assert_double_eq_tol(s.types[WRITE].samples, 0, 1e-9);
	ck_assert_double_eq_tol(s.types[WRITE].thread_ns[STACK_IDLE], 0, 1e-9);
	corecap_ceph_sampled_release(&s);
}
END_TEST

START_TEST(a_sample_lands_at_its_time_plus_the_realtime_offset)
{
	/* Spans in the daemon's CLOCK_REALTIME, samples in CLOCK_MONOTONIC. */
	const uint64_t epoch_ns = 1700000000000000000ull;
	const int64_t offset_ns = (int64_t)epoch_ns - 3000000;
	struct ceph_op_span spans[] = {{epoch_ns + 1000, epoch_ns + 2000, WRITE, 0, 0, 0}};
	struct ceph_files c = files(spans, LEN(spans));
	struct ceph_sampled s;

	ck_assert_int_eq(corecap_ceph_sampled_init(&s, &c, offset_ns, 100), 0);
	corecap_ceph_sampled_add(&s, 3001500, STACK_CPU); /* epoch + 1500 */
	ck_assert_uint_eq(s.samples_in_ops, 1);
	ck_assert_double_eq_tol(s.types[WRITE].thread_ns[STACK_CPU], 100, 1e-9);
	/* The same instant without the offset, and one past the reply with it. */
	corecap_ceph_sampled_add(&s, 1500, STACK_CPU);
	corecap_ceph_sampled_add(&s, 3002500, STACK_CPU);
	ck_assert_uint_eq(s.samples_outside_ops, 2);
	corecap_ceph_sampled_release(&s);
}
END_TEST

START_TEST(categories_and_queue_add_up_to_the_mean_latency)
{
	/* Writes of 1000 and 3000 ns (mean 2000); reads of 4000 never sampled. */
	struct ceph_op_span spans[] = {{0, 1000, WRITE, 0, 0, 0},
				       {10000, 13000, WRITE, 0, 0, 0},
				       {20000, 24000, READ, 0, 0, 0}};
	struct ceph_files c = files(spans, LEN(spans));
	struct ceph_sampled s;
	const struct ceph_sampled_type *w, *r, *d;

	ck_assert_int_eq(corecap_ceph_sampled_init(&s, &c, 0, 100), 0);
	corecap_ceph_sampled_add(&s, 500, STACK_CPU);
	corecap_ceph_sampled_add(&s, 10500, STACK_CPU);
	corecap_ceph_sampled_add(&s, 11000, STACK_LOGGING);
	corecap_ceph_sampled_add(&s, 12000, STACK_LOCK_WAIT);
	corecap_ceph_sampled_add(&s, 12500, STACK_IO);
	corecap_ceph_sampled_add(&s, 12600, STACK_IDLE);
	corecap_ceph_sampled_finish(&s);
	ck_assert(s.finished);

	w = &s.types[WRITE];
	ck_assert_uint_eq(w->ops, 2);
	ck_assert_uint_eq(w->lat_avg_ns, 2000);
	/* Thread time per op: 200/2 cpu, 100/2 each of the others. */
	ck_assert_uint_eq(w->cat_ns[STACK_CPU], 100);
	ck_assert_uint_eq(w->cat_ns[STACK_LOGGING], 50);
	ck_assert_uint_eq(w->cat_ns[STACK_LOCK_WAIT], 50);
	ck_assert_uint_eq(w->cat_ns[STACK_IO], 50);
	ck_assert_uint_eq(w->queue_ns, 2000 - 250);
	ck_assert(!w->scaled);
	assert_conserved(w);

	r = &s.types[READ];
	ck_assert_uint_eq(r->lat_avg_ns, 4000);
	ck_assert_uint_eq(r->queue_ns, 4000);
	ck_assert(!r->scaled);
	assert_conserved(r);

	d = &s.types[DELETE];
	ck_assert_uint_eq(d->ops, 0);
	ck_assert_uint_eq(d->lat_avg_ns, 0);
	ck_assert_uint_eq(d->queue_ns, 0);
	corecap_ceph_sampled_release(&s);
}
END_TEST

START_TEST(samples_beyond_the_latency_are_scaled_down_to_it)
{
	/* 1600 ns of thread time in a 1000 ns op: threads worked in parallel. */
	struct ceph_op_span spans[] = {{0, 1000, WRITE, 0, 0, 0}};
	struct ceph_files c = files(spans, LEN(spans));
	struct ceph_sampled s;
	const struct ceph_sampled_type *w;

	ck_assert_int_eq(corecap_ceph_sampled_init(&s, &c, 0, 400), 0);
	corecap_ceph_sampled_add(&s, 100, STACK_CPU);
	corecap_ceph_sampled_add(&s, 200, STACK_CPU);
	corecap_ceph_sampled_add(&s, 300, STACK_LOGGING);
	corecap_ceph_sampled_add(&s, 400, STACK_IO);
	corecap_ceph_sampled_finish(&s);
	w = &s.types[WRITE];
	ck_assert(w->scaled);
	ck_assert_uint_eq(w->cat_ns[STACK_CPU], 500);
	ck_assert_uint_eq(w->cat_ns[STACK_LOGGING], 250);
	ck_assert_uint_eq(w->cat_ns[STACK_IO], 250);
	ck_assert_uint_eq(w->cat_ns[STACK_LOCK_WAIT], 0);
	ck_assert_uint_eq(w->queue_ns, 0);
	assert_conserved(w);
	corecap_ceph_sampled_release(&s);
}
END_TEST

/* Three thirds of lat_ns, scaled from 350 ns each: each category rounded
 * down, the queue taking what rounding left. */
static void assert_thirds_round_down(uint64_t lat_ns, uint64_t third_ns)
{
	struct ceph_op_span spans[] = {{0, lat_ns, WRITE, 0, 0, 0}};
	struct ceph_files c = files(spans, LEN(spans));
	struct ceph_sampled s;
	const struct ceph_sampled_type *w;
	uint64_t cats = 0;

	ck_assert_int_eq(corecap_ceph_sampled_init(&s, &c, 0, 350), 0);
	corecap_ceph_sampled_add(&s, 100, STACK_CPU);
	corecap_ceph_sampled_add(&s, 200, STACK_LOGGING);
	corecap_ceph_sampled_add(&s, 300, STACK_IO);
	corecap_ceph_sampled_finish(&s);
	w = &s.types[WRITE];
	ck_assert(w->scaled);
	ck_assert_uint_eq(w->cat_ns[STACK_CPU], third_ns);
	ck_assert_uint_eq(w->cat_ns[STACK_LOGGING], third_ns);
	ck_assert_uint_eq(w->cat_ns[STACK_IO], third_ns);
	for (int k = STACK_CPU; k < STACK__COUNT; k++)
		cats += w->cat_ns[k];
	/* Under 1 ns lost per category, never more than the latency. */
	ck_assert_uint_le(cats, lat_ns);
	ck_assert_uint_lt(lat_ns - cats, 3);
	ck_assert_uint_eq(w->queue_ns, lat_ns - cats);
	assert_conserved(w);
	corecap_ceph_sampled_release(&s);
}

START_TEST(scaling_rounds_down_and_the_queue_takes_the_remainder)
{
	assert_thirds_round_down(1000, 333); /* 333.33 each, 1 ns to queue */
	assert_thirds_round_down(1001, 333); /* 333.67 each, 2 ns to queue */
}
END_TEST

START_TEST(a_sample_is_credited_to_the_phase_the_op_was_in)
{
	/* One write: initiated at 1000 opens phase 0, started at 1500 phase
	 * 1, done at 2000 opens none. */
	struct ceph_phase phases[] = {{.name = "initiated"}, {.name = "started"}};
	struct ceph_op_type one[] = {
		{.name = "write", .count = 1, .phases = phases, .n_phases = 2}};
	struct ceph_op_event events[] = {{1000, 0}, {1500, 1}, {2000, CEPH_NO_PHASE}};
	struct ceph_op_span spans[] = {{1000, 2000, 0, 0, 3, 0}};
	struct ceph_files c = {.has_optracker = true,
			       .types = one,
			       .n_types = 1,
			       .spans = spans,
			       .n_spans = 1,
			       .events = events,
			       .n_events = 3};
	struct ceph_sampled s;

	ck_assert_int_eq(corecap_ceph_sampled_init(&s, &c, 0, 100), 0);
	corecap_ceph_sampled_add(&s, 1200, STACK_CPU);
	corecap_ceph_sampled_add(&s, 1500, STACK_LOGGING); /* the event's own instant: its phase */
	corecap_ceph_sampled_add(&s, 1900, STACK_LOGGING);
	corecap_ceph_sampled_finish(&s);
	ck_assert_uint_eq(s.types[0].n_phases, 2);
	ck_assert_uint_eq(s.types[0].phase_cat_ns[0 * STACK__COUNT + STACK_CPU], 100);
	ck_assert_uint_eq(s.types[0].phase_cat_ns[0 * STACK__COUNT + STACK_LOGGING], 0);
	ck_assert_uint_eq(s.types[0].phase_cat_ns[1 * STACK__COUNT + STACK_LOGGING], 200);
	ck_assert_uint_eq(s.types[0].phase_cat_ns[1 * STACK__COUNT + STACK_CPU], 0);
	/* The phases' parts add up to the type's categories. */
	ck_assert_uint_eq(s.types[0].cat_ns[STACK_CPU], 100);
	ck_assert_uint_eq(s.types[0].cat_ns[STACK_LOGGING], 200);
	corecap_ceph_sampled_release(&s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ceph_sampled");
	TCase *credit = tcase_create("credit");
	TCase *finish = tcase_create("finish");

	tcase_add_test(credit, one_op_in_flight_gets_the_whole_period);
	tcase_add_test(credit, an_op_is_in_flight_from_its_arrival_to_its_reply_inclusive);
	tcase_add_test(credit, two_overlapping_ops_share_the_period_equally);
	tcase_add_test(credit, two_ops_of_one_type_give_it_the_period_once);
	tcase_add_test(credit, a_long_op_is_found_behind_later_short_ones);
	tcase_add_test(credit, a_sample_outside_every_op_credits_nothing);
	tcase_add_test(credit, idle_samples_are_counted_and_credit_nothing);
	tcase_add_test(credit, a_sample_lands_at_its_time_plus_the_realtime_offset);
	tcase_add_test(credit, a_sample_is_credited_to_the_phase_the_op_was_in);
	tcase_add_test(finish, categories_and_queue_add_up_to_the_mean_latency);
	tcase_add_test(finish, samples_beyond_the_latency_are_scaled_down_to_it);
	tcase_add_test(finish, scaling_rounds_down_and_the_queue_takes_the_remainder);
	suite_add_tcase(s, credit);
	suite_add_tcase(s, finish);
	return corecap_check_run(s);
}
