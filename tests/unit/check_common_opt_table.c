/*
 * common/opt_table.c: a command's option table gives getopt_long its
 * array and short string, and --help its option lines, in the table's order.
 */
#include <check.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/opt_table.h>

#include "check_run.h"

enum { OPT_FORCE = 256, OPT_WALL, OPT_SYNC };

static const struct corecap_opt opts[] = {
	CORECAP_OPT_ARG('p', 'p', "pid", "PID", "the daemon to record"),
	CORECAP_OPT_OPTARG(OPT_WALL, 0, "wallclock", "HZ", "sample stacks\n(default 50 Hz)"),
	CORECAP_OPT_DOC("hosts", required_argument, "FILE", "parsed elsewhere"),
	CORECAP_OPT_FLAG(OPT_FORCE, 0, "force", "replace RUN"),
	CORECAP_OPT_ARG('o', 'o', "output-directory", "RUN", "run directory"),
	CORECAP_OPT_TEXT(""),
	CORECAP_OPT_FLAG('q', 'q', "quiet", "no progress"),
	CORECAP_OPT_HIDDEN(OPT_SYNC, 0, "sync-fds", required_argument),
	CORECAP_OPT_FLAG('h', 'h', "help", "this text"),
};

static const struct corecap_opt_table table = {
	.head = "usage: corecap x [options]\n\n",
	.opts = opts,
	.n = sizeof(opts) / sizeof(opts[0]),
	.tail = "\nSee also x(1).\n",
	.help_col = 24,
	.shorts = CORECAP_SHORTS_ALIGNED,
};

/* What write(out) printed, as a string (freed by the next call). */
#define CAPTURE(buf, call)                                                                         \
	do {                                                                                       \
		size_t size_;                                                                      \
		FILE *out = open_memstream(&(buf), &size_);                                        \
		ck_assert_ptr_nonnull(out);                                                        \
		call;                                                                              \
		ck_assert_int_eq(fclose(out), 0);                                                  \
	} while (0)

START_TEST(the_getopt_array_and_string_come_from_the_table)
{
	struct corecap_getopt g;

	ck_assert_int_eq(corecap_opts_getopt(&g, &table, "+:"), 0);
	ck_assert_str_eq(g.shorts, "+:p:o:qh");
	/* The help-only option and the text line are not getopt's; the hidden one is. */
	ck_assert_str_eq(g.longs[0].name, "pid");
	ck_assert_int_eq(g.longs[0].has_arg, required_argument);
	ck_assert_int_eq(g.longs[0].val, 'p');
	ck_assert_str_eq(g.longs[1].name, "wallclock");
	ck_assert_int_eq(g.longs[1].has_arg, optional_argument);
	ck_assert_int_eq(g.longs[1].val, OPT_WALL);
	ck_assert_str_eq(g.longs[2].name, "force");
	ck_assert_int_eq(g.longs[2].has_arg, no_argument);
	ck_assert_int_eq(g.longs[2].val, OPT_FORCE);
	ck_assert_ptr_null(g.longs[2].flag);
	ck_assert_str_eq(g.longs[3].name, "output-directory");
	ck_assert_str_eq(g.longs[4].name, "quiet");
	ck_assert_str_eq(g.longs[5].name, "sync-fds");
	ck_assert_int_eq(g.longs[5].val, OPT_SYNC);
	ck_assert_str_eq(g.longs[6].name, "help");
	ck_assert_ptr_null(g.longs[7].name);
	ck_assert_int_eq(g.longs[7].val, 0);
	ck_assert_int_eq(corecap_opts_getopt(&g, &table, NULL), 0);
	ck_assert_str_eq(g.shorts, "p:o:qh");
}
END_TEST

START_TEST(getopt_long_parses_with_what_was_generated)
{
	char a0[] = "x", a1[] = "--force", a2[] = "-pp1", a3[] = "--wallclock=7",
	     a4[] = "--sync-fds", a5[] = "3,4", a6[] = "--hosts", a7[] = "bench";
	char *argv[] = {a0, a1, a2, a3, a4, a5, a6, a7, NULL};
	int got[8], n = 0, c;
	struct corecap_getopt g;

	optind = 5; /* as a parser before this one left it: start starts over */
	corecap_opts_start(&g, &table, "+:", NULL);
	opterr = 0;
	while ((c = corecap_opts_next(&g, 8, argv)) != -1 && n < 8) {
		got[n++] = c;
		if (c == 'p')
			ck_assert_str_eq(optarg, "p1");
		if (c == OPT_WALL)
			ck_assert_str_eq(optarg, "7");
		if (c == OPT_SYNC)
			ck_assert_str_eq(optarg, "3,4");
	}
	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(got[0], OPT_FORCE);
	ck_assert_int_eq(got[1], 'p');
	ck_assert_int_eq(got[2], OPT_WALL);
	ck_assert_int_eq(got[3], OPT_SYNC);
	/* --hosts is documented here but parsed elsewhere: unknown to this getopt. */
	ck_assert_int_eq(got[4], '?');
}
END_TEST

START_TEST(an_option_line_with_and_without_an_argument)
{
	char *s = NULL;

	CAPTURE(s, corecap_opt_help(out, &table, &opts[0]));
	ck_assert_str_eq(s, "  -p, --pid PID         the daemon to record\n");
	free(s);
	CAPTURE(s, corecap_opt_help(out, &table, &opts[3]));
	ck_assert_str_eq(s, "      --force           replace RUN\n");
	free(s);
	/* An optional argument, and help on two lines. */
	CAPTURE(s, corecap_opt_help(out, &table, &opts[1]));
	ck_assert_str_eq(s, "      --wallclock[=HZ]  sample stacks\n"
			    "                        (default 50 Hz)\n");
	free(s);
	/* Names that reach the help's column: the help on the next line. */
	CAPTURE(s, corecap_opt_help(out, &table, &opts[4]));
	ck_assert_str_eq(s, "  -o, --output-directory RUN\n"
			    "                        run directory\n");
	free(s);
	/* Hidden: nothing. */
	CAPTURE(s, corecap_opt_help(out, &table, &opts[7]));
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

START_TEST(a_table_without_short_names_and_an_overflow_gap)
{
	struct corecap_opt_table t = table;
	char *s = NULL;

	t.shorts = CORECAP_SHORTS_HIDDEN;
	t.help_col = 26;
	t.overflow_gap = 2;
	CAPTURE(s, corecap_opt_help(out, &t, &opts[6]));
	ck_assert_str_eq(s, "  --quiet                 no progress\n");
	free(s);
	t.help_col = 14;
	CAPTURE(s, corecap_opt_help(out, &t, &opts[0]));
	ck_assert_str_eq(s, "  --pid PID   the daemon to record\n");
	free(s);
	CAPTURE(s, corecap_opt_help(out, &t, &opts[1]));
	ck_assert_str_eq(s, "  --wallclock[=HZ]  sample stacks\n"
			    "              (default 50 Hz)\n");
	free(s);
}
END_TEST

START_TEST(short_names_inline_and_a_least_gap)
{
	struct corecap_opt_table t = table;
	char *s = NULL;

	t.shorts = CORECAP_SHORTS_INLINE;
	CAPTURE(s, corecap_opt_help(out, &t, &opts[3]));
	ck_assert_str_eq(s, "  --force               replace RUN\n");
	free(s);
	CAPTURE(s, corecap_opt_help(out, &t, &opts[6]));
	ck_assert_str_eq(s, "  -q, --quiet           no progress\n");
	free(s);
	/* One space short of two before the column: the overflow's gap instead. */
	t.help_col = 19;
	t.min_gap = 2;
	t.overflow_gap = 2;
	CAPTURE(s, corecap_opt_help(out, &t, &opts[1]));
	ck_assert_str_eq(s, "  --wallclock[=HZ]  sample stacks\n"
			    "                   (default 50 Hz)\n");
	free(s);
	CAPTURE(s, corecap_opt_help(out, &t, &opts[3]));
	ck_assert_str_eq(s, "  --force          replace RUN\n");
	free(s);
}
END_TEST

START_TEST(the_whole_help_in_the_tables_order)
{
	char *s = NULL;

	CAPTURE(s, corecap_cmd_help(out, &table));
	ck_assert_str_eq(s, "usage: corecap x [options]\n"
			    "\n"
			    "  -p, --pid PID         the daemon to record\n"
			    "      --wallclock[=HZ]  sample stacks\n"
			    "                        (default 50 Hz)\n"
			    "      --hosts FILE      parsed elsewhere\n"
			    "      --force           replace RUN\n"
			    "  -o, --output-directory RUN\n"
			    "                        run directory\n"
			    "\n"
			    "  -q, --quiet           no progress\n"
			    "  -h, --help            this text\n"
			    "\n"
			    "See also x(1).\n");
	free(s);
}
END_TEST

struct stored {
	bool force;
	const char *output;
	int rounds;
};

static const struct corecap_opt stored_opts[] = {
	CORECAP_OPT_SET(OPT_FORCE, 0, "force", struct stored, force, "replace RUN"),
	CORECAP_OPT_STR('o', 'o', "output", "RUN", struct stored, output, "run directory"),
	CORECAP_OPT_ARG('r', 'r', "rounds", "N", "rounds"),
};
static CORECAP_OPT_TABLE(stored_table, "usage: x\n", stored_opts, NULL, .help_col = 24);

START_TEST(options_with_a_store_are_stored_not_returned)
{
	char a0[] = "x", a1[] = "--force", a2[] = "-r", a3[] = "3", a4[] = "--output=run",
	     a5[] = "-o", a6[] = "-q";
	char *argv[] = {a0, a1, a2, a3, a4, a5, a6, NULL};
	struct stored st = {0};
	struct corecap_getopt g;

	corecap_opts_start(&g, &stored_table, ":", &st);
	opterr = 0;
	ck_assert_int_eq(corecap_opts_next(&g, 7, argv), 'r');
	ck_assert_str_eq(optarg, "3");
	ck_assert(st.force);
	ck_assert_ptr_null(st.output);
	/* -o without its value: getopt's ':' comes back, nothing stored. */
	ck_assert_int_eq(corecap_opts_next(&g, 6, argv), ':');
	ck_assert_str_eq(st.output, "run");
	ck_assert_int_eq(corecap_opts_next(&g, 7, argv), '?');
	ck_assert_int_eq(optopt, 'q');
	ck_assert_int_eq(corecap_opts_next(&g, 7, argv), -1);
	/* Without a base every option comes back. */
	corecap_opts_start(&g, &stored_table, ":", NULL);
	ck_assert_int_eq(corecap_opts_next(&g, 2, argv), OPT_FORCE);
}
END_TEST

START_TEST(a_table_past_the_limit_is_refused)
{
	static struct corecap_opt many[CORECAP_OPTS_MAX + 1];
	struct corecap_opt_table t = {.opts = many, .n = CORECAP_OPTS_MAX + 1};
	struct corecap_getopt g;

	for (size_t i = 0; i < t.n; i++)
		many[i] = (struct corecap_opt)CORECAP_OPT_FLAG(256 + (int)i, 'a', "x", "y");
	ck_assert_int_eq(corecap_opts_getopt(&g, &t, "+:"), -E2BIG);
	t.n = CORECAP_OPTS_MAX;
	ck_assert_int_eq(corecap_opts_getopt(&g, &t, "+:"), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("common_opt_table");
	TCase *tc = tcase_create("opt_table");

	tcase_add_test(tc, the_getopt_array_and_string_come_from_the_table);
	tcase_add_test(tc, getopt_long_parses_with_what_was_generated);
	tcase_add_test(tc, an_option_line_with_and_without_an_argument);
	tcase_add_test(tc, a_table_without_short_names_and_an_overflow_gap);
	tcase_add_test(tc, short_names_inline_and_a_least_gap);
	tcase_add_test(tc, the_whole_help_in_the_tables_order);
	tcase_add_test(tc, options_with_a_store_are_stored_not_returned);
	tcase_add_test(tc, a_table_past_the_limit_is_refused);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
