/*
 * common/diag.c's usage line: a usage text's first synopsis, its option
 * groups folded into one "[options]", its operands kept, on one line.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <corecap/diag.h>

#include "check_run.h"

static const char *shorten(const char *usage)
{
	static char buf[512];

	corecap_usage_short(usage, buf, sizeof(buf));
	return buf;
}

START_TEST(options_fold_into_one_group_and_operands_stay)
{
	ck_assert_str_eq(
		shorten("usage: corecap report [--json] [--top N] [--sort a|b] RUN\n\nText\n"),
		"corecap report [options] RUN");
	ck_assert_str_eq(shorten("usage: corecap report [options] RUN\n"),
			 "corecap report [options] RUN");
	/* Required options stay; "[--]" and "[-- BENCH ARGS...]" are operands. */
	ck_assert_str_eq(
		shorten("usage: corecap run [--cpuprofile] [--no-shim] [--] COMMAND [ARGS...]\n"),
		"corecap run [options] [--] COMMAND [ARGS...]");
	ck_assert_str_eq(shorten("usage: corecap verify -p PID --site SITE [--control SITE]\n"
				 "                      [--rounds N] -- BENCH [ARGS...]\n\n"),
			 "corecap verify -p PID --site SITE [options] -- BENCH [ARGS...]");
}
END_TEST

START_TEST(continuation_lines_join_and_a_second_synopsis_is_left_out)
{
	ck_assert_str_eq(shorten("usage: corecap record -p PID[,PID...] | --ceph-osds[=DIR]\n"
				 "                      [-o RUN] [--event NAME]... [--kernel | "
				 "--no-kernel]\n"
				 "                      [-- BENCHMARK ARGS...]\n"
				 "\n"
				 "Records.\n"),
			 "corecap record -p PID[,PID...] | --ceph-osds[=DIR] [options] "
			 "[-- BENCHMARK ARGS...]");
	ck_assert_str_eq(shorten("usage: corecap flame [--kind K] [--svg] RUN\n"
				 "       corecap flame [--svg] PROFILE\n\n"),
			 "corecap flame [options] RUN");
}
END_TEST

START_TEST(no_usage_gives_an_empty_line_and_a_small_buffer_is_cut)
{
	char small[12];

	ck_assert_str_eq(shorten("no synopsis here\n"), "");
	corecap_usage_short("usage: corecap report [--json] RUN\n", small, sizeof(small));
	ck_assert_str_eq(small, "corecap rep");
}
END_TEST

START_TEST(the_hint_names_the_command_and_its_help_and_returns_2)
{
	FILE *tmp = tmpfile();
	char out[1024];
	int saved = dup(2), ret;
	size_t n;

	ck_assert_ptr_nonnull(tmp);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	corecap_diag_begin("stat");
	ret = corecap_usage_error("usage: corecap stat -p PID [-d S] [--once]\n\nText\n",
				  "-p PID is required");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, sizeof(out) - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	ck_assert_int_eq(ret, 2);
	ck_assert_str_eq(out, "corecap stat: -p PID is required\n"
			      "usage: corecap stat -p PID [options]; see 'corecap stat --help'\n");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("common_usage");
	TCase *tc = tcase_create("usage");

	tcase_add_test(tc, options_fold_into_one_group_and_operands_stay);
	tcase_add_test(tc, continuation_lines_join_and_a_second_synopsis_is_left_out);
	tcase_add_test(tc, no_usage_gives_an_empty_line_and_a_small_buffer_is_cut);
	tcase_add_test(tc, the_hint_names_the_command_and_its_help_and_returns_2);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
