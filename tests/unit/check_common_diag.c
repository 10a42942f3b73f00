/* common/diag.c: one line per message, the command's prefix, causes outermost first. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <corecap/diag.h>

#include "check_run.h"

static char out[4096];

/* Runs fn with stderr into a temporary file, whose text lands in out. */
static void capture(void (*fn)(void))
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	ck_assert_ptr_nonnull(tmp);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, sizeof(out) - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
}

static void error_with_causes(void)
{
	corecap_diag_begin("record");
	corecap_cause("cannot create LTTng session 's': %s", "No session daemon is available");
	corecap_cause("cannot set up the session");
	corecap_error("cannot trace PID %d with LTTng", 42);
	/* The causes were printed with it: the next error stands alone. */
	corecap_error("interrupted");
}

START_TEST(causes_follow_the_error_outermost_first_then_are_cleared)
{
	capture(error_with_causes);
	ck_assert_str_eq(out, "corecap record: cannot trace PID 42 with LTTng: cannot set up the "
			      "session: cannot create LTTng session 's': No session daemon is "
			      "available\ncorecap record: interrupted\n");
}
END_TEST

static void warnings_counted(void)
{
	corecap_diag_begin("report");
	corecap_warn("no maps file");
	corecap_warn("no threads.tsv");
	corecap_diag_quiet = true;
	corecap_note("silenced");
	corecap_diag_quiet = false;
	corecap_note("said");
	ck_assert_uint_eq(corecap_diag_warnings(), 2);
	ck_assert_int_eq(corecap_diag_end(1), 1);
}

START_TEST(warnings_are_counted_and_the_count_said_at_the_end)
{
	capture(warnings_counted);
	ck_assert_str_eq(out, "corecap report: warning: no maps file\n"
			      "corecap report: warning: no threads.tsv\n"
			      "corecap report: said\n"
			      "corecap report: 2 warnings\n");
}
END_TEST

static void unclaimed_cause(void)
{
	corecap_diag_begin(NULL);
	corecap_cause("cannot stop: %s", "gone");
	corecap_diag_end(0);
}

START_TEST(a_cause_nobody_printed_is_printed_at_the_end)
{
	capture(unclaimed_cause);
	ck_assert_str_eq(out, "corecap: cannot stop: gone\n");
}
END_TEST

START_TEST(error_values_wrap_their_context)
{
	char *err = NULL;

	ck_assert_int_eq(corecap_err(&err, -ENOENT, "cannot open trace '%s': %s", "r/trace",
				     strerror(ENOENT)),
			 -ENOENT);
	ck_assert_int_eq(corecap_err_wrap(&err, -ENOENT, "cannot read run '%s'", "r"), -ENOENT);
	ck_assert_str_eq(err, "cannot read run 'r': cannot open trace 'r/trace': No such file or "
			      "directory");
	free(err);
	/* No message from below: the errno's. */
	err = NULL;
	corecap_err_wrap(&err, -EACCES, "'%s'", "x");
	ck_assert_str_eq(err, "'x': Permission denied");
	free(err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("common_diag");
	TCase *tc = tcase_create("diag");

	tcase_add_test(tc, causes_follow_the_error_outermost_first_then_are_cleared);
	tcase_add_test(tc, warnings_are_counted_and_the_count_said_at_the_end);
	tcase_add_test(tc, a_cause_nobody_printed_is_printed_at_the_end);
	tcase_add_test(tc, error_values_wrap_their_context);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
