/* collector/util/cpu_list.c: CPU lists as taskset(1) writes them, both ways. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "util/cpu_list.h"

#include "check_run.h"

static void parses_to(const char *s, const char *back, int count)
{
	char err[160], buf[64];
	cpu_set_t set;

	ck_assert_msg(corecap_cpu_list_parse(s, &set, err, sizeof(err)) == 0, "%s: %s", s, err);
	ck_assert_int_eq(CPU_COUNT(&set), count);
	corecap_cpu_list_format(&set, buf, sizeof(buf));
	ck_assert_str_eq(buf, back);
}

static void refused(const char *s, const char *why)
{
	char err[160];
	cpu_set_t set;

	ck_assert_int_eq(corecap_cpu_list_parse(s, &set, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, why), "'%s': '%s' lacks '%s'", s, err, why);
}

START_TEST(lists_and_ranges_parse_and_print_back)
{
	parses_to("0", "0", 1);
	parses_to("1", "1", 1);
	parses_to("0,2", "0,2", 2);
	parses_to("1-3,6", "1-3,6", 4);
	parses_to("3,1,2", "1-3", 3);	/* sorted and merged, as a set */
	parses_to("2-2", "2", 1);
	parses_to("0-1,1-2", "0-2", 3); /* overlaps are one set */
	parses_to("1023", "1023", 1);	/* the last CPU_SETSIZE allows */
}
END_TEST

START_TEST(anything_else_is_refused_naming_the_list)
{
	refused("", "empty");
	refused(",", "',' is not a CPU list");
	refused("0,", "'0,' is not a CPU list");
	refused("a", "'a' is not a CPU list");
	refused("-1", "'-1' is not a CPU list");
	refused("3-1", "'3-1' is not a CPU list");
	refused("0 1", "'0 1' is not a CPU list");
	refused("1-", "'1-' is not a CPU list");
	refused("1024", "not below 1024");
	refused("0-99999999999999999999", "not below 1024");
}
END_TEST

START_TEST(an_empty_set_prints_empty_and_a_short_buffer_stays_terminated)
{
	char buf[4] = "xyz";
	char err[160];
	cpu_set_t set;

	CPU_ZERO(&set);
	corecap_cpu_list_format(&set, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(corecap_cpu_list_parse("0,2,4,6,8", &set, err, sizeof(err)), 0);
	corecap_cpu_list_format(&set, buf, sizeof(buf));
	ck_assert_uint_lt(strlen(buf), sizeof(buf));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/cpu_list");
	TCase *tc = tcase_create("cpu_list");

	tcase_add_test(tc, lists_and_ranges_parse_and_print_back);
	tcase_add_test(tc, anything_else_is_refused_naming_the_list);
	tcase_add_test(tc, an_empty_set_prints_empty_and_a_short_buffer_stays_terminated);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
