/* collector/util/proc_stat.c: /proc/PID/stat lines, including hostile thread names. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "util/proc_stat.h"

#include "check_run.h"

/* A real line of a kernel thread (kthreadd), 52 fields; utime and stime set to 3 and 7. */
static const char kthreadd[] =
	"2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 3 7 0 0 20 0 1 0 22 0 0 "
	"18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

START_TEST(fields_of_a_real_line)
{
	struct corecap_proc_stat st;

	ck_assert_int_eq(corecap_proc_stat_parse(kthreadd, &st), 0);
	ck_assert_str_eq(st.comm, "kthreadd");
	ck_assert_int_eq(st.state, 'S');
	ck_assert(st.flags & CORECAP_PF_KTHREAD);
	ck_assert_int_eq(st.utime_ticks, 3);
	ck_assert_int_eq(st.stime_ticks, 7);
	ck_assert_int_eq(st.starttime_ticks, 22);
	ck_assert_int_eq(st.processor, 1);
}
END_TEST

START_TEST(a_name_with_blanks_and_parentheses)
{
	static const char line[] = "42 (a) b (c)) R 1 1 1 0 -1 4194560 0 0 0 0 11 22 0 0 20 0 1 0 "
				   "99 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n";
	struct corecap_proc_stat st;

	ck_assert_int_eq(corecap_proc_stat_parse(line, &st), 0);
	ck_assert_str_eq(st.comm, "a) b (c)");
	ck_assert_int_eq(st.state, 'R');
	ck_assert(!(st.flags & CORECAP_PF_KTHREAD));
	ck_assert_int_eq(st.utime_ticks, 11);
	ck_assert_int_eq(st.stime_ticks, 22);
	ck_assert_int_eq(st.starttime_ticks, 99);
}
END_TEST

START_TEST(garbage_is_refused)
{
	struct corecap_proc_stat st;

	ck_assert_int_eq(corecap_proc_stat_parse("", &st), -EINVAL);
	ck_assert_int_eq(corecap_proc_stat_parse("12 no parens S 1", &st), -EINVAL);
	ck_assert_int_eq(corecap_proc_stat_parse("12 (x) S 1 2", &st), -EINVAL);
}
END_TEST

START_TEST(our_own_stat_file)
{
	struct corecap_proc_stat st;

	prctl(PR_SET_NAME, "ck (me) x");
	ck_assert_int_eq(corecap_proc_stat_read(AT_FDCWD, "/proc/thread-self/stat", &st), 0);
	ck_assert_str_eq(st.comm, "ck (me) x");
	ck_assert_int_eq(st.state, 'R');
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/proc_stat");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, fields_of_a_real_line);
	tcase_add_test(tc, a_name_with_blanks_and_parentheses);
	tcase_add_test(tc, garbage_is_refused);
	tcase_add_test(tc, our_own_stat_file);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
