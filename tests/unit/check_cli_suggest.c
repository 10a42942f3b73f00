/* cli/suggest.c: "did you mean" for a mistyped command. */
#include <check.h>

#include "suggest.h"

#include "check_run.h"

static const char *const cmds[] = {"run",    "record", "verify",  "report", "flame",
				   "export", "html",   "compare", "stat"};
#define N (sizeof(cmds) / sizeof(cmds[0]))

START_TEST(typos_find_their_command)
{
	ck_assert_str_eq(corecap_suggest("reprot", cmds, N), "report");	 /* swap */
	ck_assert_str_eq(corecap_suggest("flmae", cmds, N), "flame");	 /* swap */
	ck_assert_str_eq(corecap_suggest("compre", cmds, N), "compare"); /* deletion */
	ck_assert_str_eq(corecap_suggest("recordd", cmds, N), "record"); /* insertion */
	ck_assert_str_eq(corecap_suggest("verfiy", cmds, N), "verify");
	ck_assert_str_eq(corecap_suggest("stats", cmds, N), "stat");
}
END_TEST

START_TEST(a_prefix_finds_its_command)
{
	ck_assert_str_eq(corecap_suggest("rec", cmds, N), "record");
	ck_assert_str_eq(corecap_suggest("exp", cmds, N), "export");
}
END_TEST

START_TEST(nothing_near_suggests_nothing)
{
	ck_assert_ptr_null(corecap_suggest("xyzzy", cmds, N));
	ck_assert_ptr_null(corecap_suggest("perf", cmds, N));
	ck_assert_ptr_null(
		corecap_suggest("a-very-long-name-that-is-no-command-at-all-really", cmds, N));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli/suggest");
	TCase *tc = tcase_create("suggest");

	tcase_add_test(tc, typos_find_their_command);
	tcase_add_test(tc, a_prefix_finds_its_command);
	tcase_add_test(tc, nothing_near_suggests_nothing);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
