/*
 * analysis/read/client_ops.c: a run's client-ops.tsv, as refbench writes
 * it (comments, lines of several processes), with lines that do not
 * parse or go back in time counted and never kept.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/client_ops.h"

#include "check_run.h"

static char path[64];

static void write_file(const char *text)
{
	FILE *f;

	strcpy(path, "/tmp/check_client_ops_XXXXXX");
	f = fdopen(mkstemp(path), "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(ops_are_read_and_bad_lines_counted)
{
	struct client_ops c;
	char *err = NULL;

	write_file("# client_op\ttype\tissue_ns\tsend_ns\trecv_ns\n"
		   "18446744073709551615\twrite\t10\t20\t30\n"
		   "# client_op\ttype\tissue_ns\tsend_ns\trecv_ns\n"
		   "7\tread\t100\t100\t250\n"
		   "8\twrite\t100\t90\t250\n" /* sent before issued */
		   "9\twrite\t100\t200\n"     /* a field short */
		   "x\twrite\t1\t2\t3\n"
		   "10\t\t1\t2\t3\n" /* no type */
		   "11\twrite\t1\t2\t3\textra\n");
	ck_assert_int_eq(corecap_client_ops_read(&c, path, &err), 0);
	ck_assert_uint_eq(c.n, 2);
	ck_assert_uint_eq(c.ops[0].op_id, UINT64_MAX);
	ck_assert_uint_eq(c.ops[0].recv_ns, 30);
	ck_assert_uint_eq(c.ops[1].op_id, 7);
	ck_assert_uint_eq(c.ops[1].issue_ns, 100);
	ck_assert_uint_eq(c.ops[1].send_ns, 100);
	ck_assert_uint_eq(c.bad, 5);
	corecap_client_ops_release(&c);
	unlink(path);
}
END_TEST

START_TEST(an_absent_file_is_enoent_and_a_long_line_an_error)
{
	struct client_ops c;
	char *err = NULL, line[300];

	ck_assert_int_eq(corecap_client_ops_read(&c, "/nonexistent/client-ops.tsv", &err), -ENOENT);
	corecap_client_ops_release(&c);
	memset(line, '1', sizeof(line) - 2);
	line[sizeof(line) - 2] = '\n';
	line[sizeof(line) - 1] = '\0';
	write_file(line);
	ck_assert_int_lt(corecap_client_ops_read(&c, path, &err), 0);
	ck_assert_ptr_nonnull(err);
	ck_assert_ptr_nonnull(strstr(err, path));
	free(err);
	corecap_client_ops_release(&c);
	unlink(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_client_ops");
	TCase *tc = tcase_create("client_ops");

	tcase_add_test(tc, ops_are_read_and_bad_lines_counted);
	tcase_add_test(tc, an_absent_file_is_enoent_and_a_long_line_an_error);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
