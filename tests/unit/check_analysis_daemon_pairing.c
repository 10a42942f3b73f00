/*
 * analysis/daemon_pairing.c: which daemon of a host in run A is compared
 * with which in run B. Daemons built by hand: the same PID (in any order),
 * an OSD restarted under another PID (its OSD id), the one daemon of a
 * comm left in each run, several of one comm paired in order with the
 * ranks the note names, and what is never paired (other comms, a PID
 * reused by another program, two OSDs of other ids), left in one run only
 * and never dropped.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "daemon_pairing.h"

#include "check_run.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

static struct daemon_pairing p;
static char note[256];

static void teardown(void)
{
	corecap_daemon_pairing_release(&p);
}

/* Pair k of p: A's a, B's b, by by. */
static void pair_is(size_t k, size_t a, size_t b, enum daemon_paired_by by)
{
	ck_assert_uint_gt(p.n_pairs, k);
	ck_assert_uint_eq(p.pairs[k].a, a);
	ck_assert_uint_eq(p.pairs[k].b, b);
	ck_assert_str_eq(corecap_daemon_paired_by_key(p.pairs[k].by),
			 corecap_daemon_paired_by_key(by));
}

START_TEST(the_same_pid_pairs_in_any_order)
{
	const struct daemon_ident a[] = {{10, "refosd", -1}, {20, "refosd", -1}};
	const struct daemon_ident b[] = {{20, "refosd", -1}, {10, "refosd", -1}};

	ck_assert_int_eq(corecap_daemon_pairing_build(&p, a, N(a), b, N(b)), 0);
	ck_assert_uint_eq(p.n_pairs, 2);
	pair_is(0, 0, 1, DAEMON_PAIRED_BY_PID);
	pair_is(1, 1, 0, DAEMON_PAIRED_BY_PID);
	ck_assert_uint_eq(p.n_only[0] + p.n_only[1], 0);
	corecap_daemon_pair_note(&p.pairs[1], &a[1], &b[0], note, sizeof(note));
	ck_assert_str_eq(note, "the same PID, 20");
}
END_TEST

START_TEST(an_osd_restarted_keeps_its_id_not_its_pid)
{
	/* osd.1 kept its PID 11 in B only by chance of another OSD: B's 11 is osd.0. */
	const struct daemon_ident a[] = {{10, "ceph-osd", 0}, {11, "ceph-osd", 1}};
	const struct daemon_ident b[] = {{31, "ceph-osd", 1}, {11, "ceph-osd", 0}};

	ck_assert_int_eq(corecap_daemon_pairing_build(&p, a, N(a), b, N(b)), 0);
	ck_assert_uint_eq(p.n_pairs, 2);
	pair_is(0, 0, 1, DAEMON_PAIRED_BY_CEPH_OSD_ID);
	pair_is(1, 1, 0, DAEMON_PAIRED_BY_CEPH_OSD_ID);
	corecap_daemon_pair_note(&p.pairs[1], &a[1], &b[0], note, sizeof(note));
	ck_assert_str_eq(note, "the same OSD id, osd.1 (PIDs 11 and 31)");
}
END_TEST

START_TEST(the_one_of_a_comm_left_in_each_run)
{
	/* 10 is paired by its PID first; 11 and 41 are the one refosd left of each. */
	const struct daemon_ident a[] = {{10, "refosd", -1}, {11, "refosd", -1}, {12, "fio", -1}};
	const struct daemon_ident b[] = {{40, "fio", -1}, {41, "refosd", -1}, {10, "refosd", -1}};

	ck_assert_int_eq(corecap_daemon_pairing_build(&p, a, N(a), b, N(b)), 0);
	ck_assert_uint_eq(p.n_pairs, 3);
	pair_is(0, 0, 2, DAEMON_PAIRED_BY_PID);
	pair_is(1, 1, 1, DAEMON_PAIRED_BY_COMM);
	pair_is(2, 2, 0, DAEMON_PAIRED_BY_COMM);
	corecap_daemon_pair_note(&p.pairs[1], &a[1], &b[1], note, sizeof(note));
	ck_assert_str_eq(note, "PIDs differ (11 and 41): the one refosd of each run left");
}
END_TEST

START_TEST(the_pairs_come_in_as_order_whatever_step_made_them)
{
	/* 20 pairs by PID (the first step), 10 with 30 after: listed 10's first. */
	const struct daemon_ident a[] = {{10, "refosd", -1}, {20, "refosd", -1}};
	const struct daemon_ident b[] = {{30, "refosd", -1}, {20, "refosd", -1}};

	ck_assert_int_eq(corecap_daemon_pairing_build(&p, a, N(a), b, N(b)), 0);
	ck_assert_uint_eq(p.n_pairs, 2);
	pair_is(0, 0, 0, DAEMON_PAIRED_BY_COMM);
	pair_is(1, 1, 1, DAEMON_PAIRED_BY_PID);
}
END_TEST

START_TEST(several_of_a_comm_pair_in_order_the_rest_in_one_run)
{
	const struct daemon_ident a[] = {
		{12, "refosd", -1}, {10, "refosd", -1}, {11, "refosd", -1}};
	const struct daemon_ident b[] = {{21, "refosd", -1}, {20, "refosd", -1}};

	ck_assert_int_eq(corecap_daemon_pairing_build(&p, a, N(a), b, N(b)), 0);
	ck_assert_uint_eq(p.n_pairs, 2);
	/* The runs' own order, not the PIDs'. */
	pair_is(0, 0, 0, DAEMON_PAIRED_BY_ORDER);
	pair_is(1, 1, 1, DAEMON_PAIRED_BY_ORDER);
	ck_assert_uint_eq(p.n_only[0], 1);
	ck_assert_uint_eq(p.only[0][0], 2);
	ck_assert_uint_eq(p.n_only[1], 0);
	corecap_daemon_pair_note(&p.pairs[1], &a[1], &b[1], note, sizeof(note));
	ck_assert_str_eq(note, "PIDs differ (10 and 20): A's 2nd refosd left with B's 2nd, in the "
			       "order each run recorded them");
}
END_TEST

START_TEST(ranks_count_only_the_daemons_left)
{
	/* A's 30 and B's 30 pair by PID; the others' ranks count from what is left. */
	const struct daemon_ident a[] = {
		{30, "refosd", -1}, {31, "refosd", -1}, {32, "refosd", -1}};
	const struct daemon_ident b[] = {
		{40, "refosd", -1}, {30, "refosd", -1}, {41, "refosd", -1}};

	ck_assert_int_eq(corecap_daemon_pairing_build(&p, a, N(a), b, N(b)), 0);
	ck_assert_uint_eq(p.n_pairs, 3);
	pair_is(0, 0, 1, DAEMON_PAIRED_BY_PID);
	pair_is(1, 1, 0, DAEMON_PAIRED_BY_ORDER);
	pair_is(2, 2, 2, DAEMON_PAIRED_BY_ORDER);
	ck_assert_uint_eq(p.pairs[2].rank_a, 2);
	ck_assert_uint_eq(p.pairs[2].rank_b, 2);
	corecap_daemon_pair_note(&p.pairs[2], &a[2], &b[2], note, sizeof(note));
	ck_assert_str_eq(note, "PIDs differ (32 and 41): A's 2nd refosd left with B's 2nd, in the "
			       "order each run recorded them");
}
END_TEST

START_TEST(in_order_two_known_osd_ids_that_differ_never_pair)
{
	/* A's osd.0 skips B's osd.2 for B's OSD of unknown id; A's osd.1 is left. */
	const struct daemon_ident a[] = {{10, "ceph-osd", 0}, {11, "ceph-osd", 1}};
	const struct daemon_ident b[] = {{20, "ceph-osd", 2}, {21, "ceph-osd", -1}};

	ck_assert_int_eq(corecap_daemon_pairing_build(&p, a, N(a), b, N(b)), 0);
	ck_assert_uint_eq(p.n_pairs, 1);
	pair_is(0, 0, 1, DAEMON_PAIRED_BY_ORDER);
	ck_assert_uint_eq(p.pairs[0].rank_a, 1);
	ck_assert_uint_eq(p.pairs[0].rank_b, 2);
	ck_assert_uint_eq(p.n_only[0], 1);
	ck_assert_uint_eq(p.only[0][0], 1);
	ck_assert_uint_eq(p.n_only[1], 1);
	ck_assert_uint_eq(p.only[1][0], 0);
}
END_TEST

START_TEST(what_is_never_paired_stays_in_one_run)
{
	/* Another comm; a PID reused by another program; one OSD each, other ids. */
	const struct daemon_ident a[] = {{10, "refosd", -1}, {11, "ceph-osd", 3}};
	const struct daemon_ident b[] = {{10, "fio", -1}, {12, "ceph-osd", 4}};

	ck_assert_int_eq(corecap_daemon_pairing_build(&p, a, N(a), b, N(b)), 0);
	ck_assert_uint_eq(p.n_pairs, 0);
	ck_assert_uint_eq(p.n_only[0], 2);
	ck_assert_uint_eq(p.n_only[1], 2);
	ck_assert_uint_eq(p.only[0][0], 0);
	ck_assert_uint_eq(p.only[0][1], 1);
	ck_assert_uint_eq(p.only[1][0], 0);
	ck_assert_uint_eq(p.only[1][1], 1);
}
END_TEST

START_TEST(an_unknown_comm_pairs_by_pid_and_with_unknown_ones)
{
	const struct daemon_ident a[] = {{10, "?", -1}, {11, NULL, -1}, {12, "refosd", -1}};
	const struct daemon_ident b[] = {{10, "refosd", -1}, {13, "?", -1}};

	ck_assert_int_eq(corecap_daemon_pairing_build(&p, a, N(a), b, N(b)), 0);
	ck_assert_uint_eq(p.n_pairs, 2);
	pair_is(0, 0, 0, DAEMON_PAIRED_BY_PID);
	pair_is(1, 1, 1, DAEMON_PAIRED_BY_COMM);
	ck_assert_uint_eq(p.n_only[0], 1);
	ck_assert_uint_eq(p.only[0][0], 2);
	corecap_daemon_pair_note(&p.pairs[1], &a[1], &b[1], note, sizeof(note));
	ck_assert_str_eq(
		note, "PIDs differ (11 and 13): the one daemon of unknown name of each run left");
}
END_TEST

START_TEST(an_empty_side_leaves_the_other_whole)
{
	const struct daemon_ident b[] = {{20, "refosd", -1}, {21, "refosd", -1}};

	ck_assert_int_eq(corecap_daemon_pairing_build(&p, NULL, 0, b, N(b)), 0);
	ck_assert_uint_eq(p.n_pairs, 0);
	ck_assert_uint_eq(p.n_only[0], 0);
	ck_assert_uint_eq(p.n_only[1], 2);
	ck_assert_uint_eq(p.only[1][1], 1);
}
END_TEST

START_TEST(ordinals_past_ten)
{
	struct daemon_ident a[13], b[13];

	for (int k = 0; k < 13; k++) {
		a[k] = (struct daemon_ident){100 + k, "refosd", -1};
		b[k] = (struct daemon_ident){200 + k, "refosd", -1};
	}
	ck_assert_int_eq(corecap_daemon_pairing_build(&p, a, 13, b, 13), 0);
	ck_assert_uint_eq(p.n_pairs, 13);
	corecap_daemon_pair_note(&p.pairs[10], &a[10], &b[10], note, sizeof(note));
	ck_assert_ptr_nonnull(strstr(note, "A's 11th refosd left with B's 11th"));
	corecap_daemon_pair_note(&p.pairs[2], &a[2], &b[2], note, sizeof(note));
	ck_assert_ptr_nonnull(strstr(note, "A's 3rd refosd left with B's 3rd"));
	corecap_daemon_pair_note(&p.pairs[0], &a[0], &b[0], note, sizeof(note));
	ck_assert_ptr_nonnull(strstr(note, "A's 1st refosd left with B's 1st"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon_pairing");
	TCase *tc = tcase_create("rule");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, the_same_pid_pairs_in_any_order);
	tcase_add_test(tc, an_osd_restarted_keeps_its_id_not_its_pid);
	tcase_add_test(tc, the_one_of_a_comm_left_in_each_run);
	tcase_add_test(tc, the_pairs_come_in_as_order_whatever_step_made_them);
	tcase_add_test(tc, several_of_a_comm_pair_in_order_the_rest_in_one_run);
	tcase_add_test(tc, ranks_count_only_the_daemons_left);
	tcase_add_test(tc, in_order_two_known_osd_ids_that_differ_never_pair);
	tcase_add_test(tc, what_is_never_paired_stays_in_one_run);
	tcase_add_test(tc, an_unknown_comm_pairs_by_pid_and_with_unknown_ones);
	tcase_add_test(tc, an_empty_side_leaves_the_other_whole);
	tcase_add_test(tc, ordinals_past_ten);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
