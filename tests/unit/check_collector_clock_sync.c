/*
 * collector/hosts/clock_sync.c's arithmetic over crafted exchanges (offset,
 * bound, round-trip filtering, drift), its strict reply parser, its server
 * over real pipes and a session with remotes that lie.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hosts/clock_sync.h"

#include "check_run.h"

#define S 1000000000ull

/* An exchange sent at t, out_ns to the remote and back_ns back, remote = local + off. */
static struct corecap_clock_exchange ex(uint64_t t, uint64_t out_ns, uint64_t back_ns, int64_t off)
{
	return (struct corecap_clock_exchange){
		.send_ns = t,
		.remote_ns = (uint64_t)((int64_t)(t + out_ns) + off),
		.recv_ns = t + out_ns + back_ns,
	};
}

START_TEST(symmetric_delays_give_the_exact_offset_and_half_the_rtt)
{
	struct corecap_clock_exchange x[] = {ex(100 * S, 5000, 5000, 37500000000ll)};
	struct corecap_clock_estimate e;

	ck_assert_int_eq(corecap_clock_estimate(x, 1, &e), 0);
	ck_assert_int_eq(e.offset_ns, 37500000000ll);
	ck_assert_uint_eq(e.bound_ns, 5000);
	ck_assert_uint_eq(e.rtt_min_ns, 10000);
	ck_assert_uint_eq(e.at_ns, 100 * S + 5000);
	ck_assert_uint_eq(e.used, 1);
}
END_TEST

START_TEST(asymmetric_delays_stay_within_the_bound)
{
	/* All the way out, nothing back: the worst case, at exactly the bound. */
	struct corecap_clock_exchange x[] = {ex(50 * S, 8000, 0, -12250000000ll)};
	struct corecap_clock_estimate e;

	ck_assert_int_eq(corecap_clock_estimate(x, 1, &e), 0);
	ck_assert_int_eq(e.offset_ns, -12250000000ll + 4000);
	ck_assert_uint_eq(e.bound_ns, 4000);
	ck_assert_int_le(e.offset_ns - -12250000000ll, (int64_t)e.bound_ns);
}
END_TEST

START_TEST(slow_exchanges_are_filtered_out)
{
	/*
	 * Two fast symmetric exchanges (10 us, 10.5 us) and slow ones delayed
	 * one way (a scheduler's hiccup): only the fast ones count, so the
	 * offset is exact though the slow ones are off by up to 400 us.
	 */
	struct corecap_clock_exchange x[] = {
		ex(1 * S, 400000, 2000, 1000), ex(2 * S, 5000, 5000, 1000),
		ex(3 * S, 3000, 300000, 1000), ex(4 * S, 5250, 5250, 1000),
		ex(5 * S, 100000, 1000, 1000),
	};
	struct corecap_clock_estimate e;

	ck_assert_int_eq(corecap_clock_estimate(x, 5, &e), 0);
	ck_assert_int_eq(e.offset_ns, 1000);
	ck_assert_uint_eq(e.used, 2);
	ck_assert_uint_eq(e.valid, 5);
	ck_assert_uint_eq(e.rtt_min_ns, 10000);
	ck_assert_uint_eq(e.bound_ns, 5250); /* half the largest kept */
	ck_assert_uint_eq(e.at_ns, 2 * S + 5000);
}
END_TEST

START_TEST(malformed_exchanges_are_refused)
{
	/* Received before sent: not an exchange. */
	struct corecap_clock_exchange bad = {.send_ns = 10 * S, .remote_ns = 0, .recv_ns = 9 * S};
	struct corecap_clock_exchange x[] = {bad, ex(20 * S, 700, 700, -5)};
	struct corecap_clock_estimate e;

	ck_assert_int_eq(corecap_clock_estimate(&bad, 1, &e), -EINVAL);
	ck_assert_int_eq(corecap_clock_estimate(x, 0, &e), -EINVAL);
	ck_assert_int_eq(corecap_clock_estimate(x, 2, &e), 0);
	ck_assert_uint_eq(e.valid, 1);
	ck_assert_int_eq(e.offset_ns, -5);
	/* Within 1 us of the least round trip counts, however small it is. */
	ck_assert_uint_eq(e.bound_ns, 700);
}
END_TEST

START_TEST(drift_from_the_two_ends_of_a_window)
{
	/* 10 s apart, the remote gained 50 us: 5 ppm, each end good to 2 us. */
	struct corecap_clock_exchange a[] = {ex(100 * S, 2000, 2000, 7000000)};
	struct corecap_clock_exchange b[] = {ex(110 * S, 2000, 2000, 7050000)};
	struct corecap_clock_estimate s, e;
	double bound, drift;

	ck_assert_int_eq(corecap_clock_estimate(a, 1, &s), 0);
	ck_assert_int_eq(corecap_clock_estimate(b, 1, &e), 0);
	drift = corecap_clock_drift_ppm(&s, &e, &bound);
	ck_assert_double_eq_tol(drift, 5.0, 1e-9);
	ck_assert_double_eq_tol(bound, 0.4, 1e-9);
	/* Not apart in time: no drift, and no bound claimed. */
	ck_assert_double_eq(corecap_clock_drift_ppm(&s, &s, &bound), 0);
	ck_assert_double_eq(bound, 0);
}
END_TEST

START_TEST(replies_parse_strictly)
{
	uint32_t seq;
	uint64_t ns;

	ck_assert_int_eq(corecap_clock_parse_reply("t 7 123456789", &seq, &ns), 0);
	ck_assert_uint_eq(seq, 7);
	ck_assert_uint_eq(ns, 123456789);
	ck_assert_int_eq(corecap_clock_parse_reply("t 4294967295 0", &seq, &ns), 0);
	ck_assert_uint_eq(seq, 4294967295u);
	static const char *const bad[] = {"",
					  "t",
					  "t ",
					  "t 1",
					  "t 1 ",
					  "t  1 2",
					  "t 1  2",
					  "t -1 2",
					  "t 1 -2",
					  "t +1 2",
					  "t 01 2",
					  "t 1 02",
					  "t 1 2 ",
					  "t 1 2x",
					  "T 1 2",
					  "p 1 2",
					  "t 4294967296 1",
					  "t 1 9223372036854775808",
					  "t 1 99999999999999999999999",
					  "t 1\t2",
					  "t 1 2 3"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(corecap_clock_parse_reply(bad[i], &seq, &ns) == -EPROTO,
			      "'%s' parsed", bad[i]);
}
END_TEST

/* Runs the server over pipes with the requests given; its output and status. */
static int serve(const char *requests, char *out, size_t size)
{
	int in[2], res[2], ret;
	ssize_t n;

	ck_assert_int_eq(pipe(in), 0);
	ck_assert_int_eq(pipe(res), 0);
	ck_assert_int_eq(write(in[1], requests, strlen(requests)), (ssize_t)strlen(requests));
	close(in[1]);
	ret = corecap_clock_serve(in[0], res[1]);
	close(in[0]);
	close(res[1]);
	n = read(res[0], out, size - 1);
	out[n > 0 ? n : 0] = '\0';
	close(res[0]);
	return ret;
}

START_TEST(the_server_answers_pings_and_refuses_the_rest)
{
	char out[512];
	uint32_t seq;
	uint64_t ns1, ns2;
	char *l2;

	ck_assert_int_eq(serve("p 1\np 2\n", out, sizeof(out)), 0);
	ck_assert_msg(strncmp(out, CORECAP_CLOCK_HELLO "\nt 1 ", 18) == 0, "%s", out);
	l2 = strchr(out + sizeof(CORECAP_CLOCK_HELLO), '\n');
	ck_assert_ptr_nonnull(l2);
	*l2 = '\0';
	ck_assert_int_eq(corecap_clock_parse_reply(out + sizeof(CORECAP_CLOCK_HELLO), &seq, &ns1),
			 0);
	*strchr(l2 + 1, '\n') = '\0';
	ck_assert_int_eq(corecap_clock_parse_reply(l2 + 1, &seq, &ns2), 0);
	ck_assert_uint_eq(seq, 2);
	ck_assert_uint_ge(ns2, ns1);
	ck_assert_int_eq(serve("p x\n", out, sizeof(out)), -EPROTO);
	ck_assert_int_eq(serve("p 1", out, sizeof(out)), -EPROTO); /* torn at EOF */
	/* A line longer than the protocol's: refused, not buffered without end. */
	char longline[200];
	memset(longline, '1', sizeof(longline));
	longline[0] = 'p';
	longline[1] = ' ';
	longline[sizeof(longline) - 1] = '\0';
	ck_assert_int_eq(serve(longline, out, sizeof(out)), -EPROTO);
}
END_TEST

START_TEST(a_session_with_a_remote_that_lies_ends_with_eproto)
{
	/* A "remote" that says hello, then answers the wrong sequence number. */
	char *const argv[] = {
		"sh", "-c", "echo '" CORECAP_CLOCK_HELLO "'; read l; echo 't 99 5'; cat >/dev/null",
		NULL};
	char *const junk[] = {"sh", "-c", "printf 'Welcome to \\033[31mhost\\n'; cat >/dev/null",
			      NULL};
	struct corecap_clock_sync cs;
	struct corecap_clock_estimate e;

	ck_assert_int_eq(corecap_clock_sync_open(&cs, argv, -1), 0);
	ck_assert_int_eq(corecap_clock_sync_burst(&cs, 3, &e), -EPROTO);
	ck_assert_msg(strstr(cs.error, "'t 99 5'"), "%s", cs.error);
	corecap_clock_sync_release(&cs);
	ck_assert_int_eq(corecap_clock_sync_open(&cs, junk, -1), -EPROTO);
	/* The remote's escape shown as '?', never sent to the terminal. */
	ck_assert_msg(strstr(cs.error, "'Welcome to ?[31mhost'"), "%s", cs.error);
	corecap_clock_sync_release(&cs);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("clock_sync");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, symmetric_delays_give_the_exact_offset_and_half_the_rtt);
	tcase_add_test(tc, asymmetric_delays_stay_within_the_bound);
	tcase_add_test(tc, slow_exchanges_are_filtered_out);
	tcase_add_test(tc, malformed_exchanges_are_refused);
	tcase_add_test(tc, drift_from_the_two_ends_of_a_window);
	tcase_add_test(tc, replies_parse_strictly);
	tcase_add_test(tc, the_server_answers_pings_and_refuses_the_rest);
	tcase_add_test(tc, a_session_with_a_remote_that_lies_ends_with_eproto);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return corecap_check_run(suite());
}
