/* collector/workload/bench_label.c: record's banner names the benchmark, not its wrappers. */
#include <check.h>
#include <stdlib.h>

#include "workload/bench_label.h"

#include "check_run.h"

#define LABEL(...) corecap_bench_label((char *const[]){__VA_ARGS__, NULL})

START_TEST(a_plain_command_is_itself)
{
	ck_assert_str_eq(LABEL("refbench", "-t", "8"), "refbench");
	ck_assert_str_eq(LABEL("/bin/sh", "-c", "true"), "/bin/sh");
}
END_TEST

START_TEST(wrappers_and_their_options_are_skipped)
{
	setenv("PATH", "/usr/bin:/bin", 1);
	ck_assert_str_eq(LABEL("nice", "-n", "5", "sh", "-c", "x"), "sh");
	ck_assert_str_eq(LABEL("taskset", "0x3", "sh"), "sh");
	ck_assert_str_eq(LABEL("taskset", "-c", "0,1", "/bin/sh"), "/bin/sh");
	ck_assert_str_eq(LABEL("chrt", "-f", "10", "sh"), "sh");
	ck_assert_str_eq(LABEL("ionice", "-c", "2", "-n", "7", "sh"), "sh");
	ck_assert_str_eq(LABEL("env", "-u", "HOME", "A=1", "B=2", "sh"), "sh");
	ck_assert_str_eq(LABEL("numactl", "--cpunodebind=0", "-m", "0", "sh"), "sh");
	ck_assert_str_eq(LABEL("stdbuf", "-oL", "sh"), "sh");
	ck_assert_str_eq(LABEL("timeout", "-s", "INT", "30", "sh"), "sh");
	ck_assert_str_eq(LABEL("/usr/bin/nice", "sh"), "sh");
}
END_TEST

START_TEST(wrappers_nest)
{
	setenv("PATH", "/usr/bin:/bin", 1);
	ck_assert_str_eq(LABEL("nice", "-n", "1", "env", "A=1", "taskset", "-c", "0", "sh", "-e"),
			 "sh");
}
END_TEST

START_TEST(a_wrapper_without_a_command_is_itself)
{
	setenv("PATH", "/usr/bin:/bin", 1);
	ck_assert_str_eq(LABEL("nice", "-n", "5"), "nice");
	ck_assert_str_eq(LABEL("env", "A=1"), "env");
	ck_assert_str_eq(LABEL("timeout", "10", "no-such-program-here"), "timeout");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/bench_label");
	TCase *tc = tcase_create("label");

	tcase_add_test(tc, a_plain_command_is_itself);
	tcase_add_test(tc, wrappers_and_their_options_are_skipped);
	tcase_add_test(tc, wrappers_nest);
	tcase_add_test(tc, a_wrapper_without_a_command_is_itself);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
