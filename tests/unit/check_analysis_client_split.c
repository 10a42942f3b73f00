/*
 * analysis/model/client_split.c: each op's client latency split into the
 * client's own part, the network out, the daemon and the network back,
 * on hand-made ops whose every part is known; the parts sum to the
 * client's latency exactly, and what breaks the bound is counted.
 */
#include <check.h>
#include <math.h>

#include "model/client_split.h"

#include "check_run.h"

/* An op: issued at 1000, sent at s, daemon start at b and reply at p (recording host's
 * clock), received at r; the daemon's own span p - b, after_reply its tail. */
static struct split_times op(uint64_t s, int64_t b, int64_t p, uint64_t r, int64_t bound)
{
	return (struct split_times){.issue_ns = 1000,
				    .send_ns = s,
				    .recv_ns = r,
				    .begin_rec_ns = b,
				    .reply_rec_ns = p,
				    .daemon_ns = (uint64_t)(p - b),
				    .after_reply_ns = 500,
				    .reply_seen = true,
				    .bound_ns = bound};
}

START_TEST(an_op_splits_into_its_known_parts)
{
	struct client_split_host h;
	struct client_split_acc acc;
	struct split_times t = op(1200, 5200, 9200, 12200, 100);

	corecap_client_split_acc_init(&acc, &h);
	ck_assert_int_eq(corecap_client_split_acc_add(&acc, &t), 0);
	corecap_client_split_acc_finish(&acc);
	ck_assert_uint_eq(h.matched, 1);
	/* client 11.2 us = own 0.2 + out 4 + daemon 4 + back 3 */
	ck_assert(fabs(h.median_us[SPLIT_CLIENT] - 11.2) < 1e-9);
	ck_assert(fabs(h.median_us[SPLIT_CLIENT_OWN] - 0.2) < 1e-9);
	ck_assert(fabs(h.median_us[SPLIT_NET_OUT] - 4.0) < 1e-9);
	ck_assert(fabs(h.median_us[SPLIT_DAEMON] - 4.0) < 1e-9);
	ck_assert(fabs(h.median_us[SPLIT_NET_BACK] - 3.0) < 1e-9);
	ck_assert(fabs(h.after_reply_mean_us - 0.5) < 1e-9);
	ck_assert_uint_eq(h.bound_ns, 100);
	ck_assert_int_eq(h.max_sum_err_ns, 0);
	ck_assert_int_eq(h.max_drift_err_ns, 0);
	ck_assert_uint_eq(h.net_out_negative + h.net_back_negative + h.client_below_daemon, 0);
	corecap_client_split_acc_release(&acc);
}
END_TEST

START_TEST(means_sum_to_the_clients_and_medians_are_each_parts)
{
	struct client_split_host h;
	struct client_split_acc acc;
	struct split_times t[3] = {op(1100, 2100, 4100, 5100, 10), op(1300, 9300, 10300, 20300, 10),
				   op(1200, 3200, 9200, 10200, 10)};
	double sum = 0;

	corecap_client_split_acc_init(&acc, &h);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(corecap_client_split_acc_add(&acc, &t[i]), 0);
	corecap_client_split_acc_finish(&acc);
	for (int p = SPLIT_CLIENT_OWN; p < SPLIT__COUNT; p++)
		sum += h.mean_us[p];
	ck_assert(fabs(sum - h.mean_us[SPLIT_CLIENT]) < 1e-9);
	/* out: 1, 8, 2 us; daemon: 2, 1, 6 us; back: 1, 10, 1 us */
	ck_assert(fabs(h.median_us[SPLIT_NET_OUT] - 2.0) < 1e-9);
	ck_assert(fabs(h.median_us[SPLIT_DAEMON] - 2.0) < 1e-9);
	ck_assert(fabs(h.median_us[SPLIT_NET_BACK] - 1.0) < 1e-9);
	corecap_client_split_acc_release(&acc);
}
END_TEST

START_TEST(parts_negative_beyond_the_bound_are_counted_within_it_not)
{
	struct client_split_host h;
	struct client_split_acc acc;
	/* The daemon starts 50 ns before the send (within the bound of 100): not counted. */
	struct split_times in = op(2000, 1950, 3000, 4000, 100);
	/* The daemon starts 500 ns before the send, and its reply after the receive. */
	struct split_times out = op(2000, 1500, 4500, 4000, 100);

	corecap_client_split_acc_init(&acc, &h);
	ck_assert_int_eq(corecap_client_split_acc_add(&acc, &in), 0);
	ck_assert_int_eq(corecap_client_split_acc_add(&acc, &out), 0);
	corecap_client_split_acc_finish(&acc);
	ck_assert_uint_eq(h.net_out_negative, 1);
	ck_assert_uint_eq(h.net_back_negative, 1);
	/* client 3 us, daemon 3 us: not under it beyond the bound */
	ck_assert_uint_eq(h.client_below_daemon, 0);
	ck_assert_int_eq(h.max_sum_err_ns, 0);
	corecap_client_split_acc_release(&acc);
}
END_TEST

START_TEST(a_drifting_clock_shows_between_back_and_the_aligned_reply)
{
	struct client_split_host h;
	struct client_split_acc acc;
	/* The daemon's own span is 1000 ns, its aligned one 1300: 300 ns of drift, over b. */
	struct split_times t = op(2000, 3000, 4300, 6000, 100);

	t.daemon_ns = 1000;
	corecap_client_split_acc_init(&acc, &h);
	ck_assert_int_eq(corecap_client_split_acc_add(&acc, &t), 0);
	corecap_client_split_acc_finish(&acc);
	ck_assert_int_eq(h.max_drift_err_ns, 300);
	ck_assert_uint_eq(h.drift_over_bound, 1);
	ck_assert_int_eq(h.max_sum_err_ns, 0);
	corecap_client_split_acc_release(&acc);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_client_split");
	TCase *tc = tcase_create("client_split");

	tcase_add_test(tc, an_op_splits_into_its_known_parts);
	tcase_add_test(tc, means_sum_to_the_clients_and_medians_are_each_parts);
	tcase_add_test(tc, parts_negative_beyond_the_bound_are_counted_within_it_not);
	tcase_add_test(tc, a_drifting_clock_shows_between_back_and_the_aligned_reply);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
