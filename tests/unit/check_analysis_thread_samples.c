/* analysis/read/thread_samples.c: threads.tsv reduced to per-thread figures. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/thread_samples.h"

#include "check_run.h"

static char path[64];
static struct thread_samples s;
static char *err;

static void setup(void)
{
	int fd;

	strcpy(path, "/tmp/check_threads_XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	corecap_thread_samples_init(&s);
	err = NULL;
}

static void teardown(void)
{
	corecap_thread_samples_release(&s);
	free(err);
	unlink(path);
}

static void write_file(const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

#define HEADER                                                                                     \
	"time_ns\ttid\tcomm\tstate\tutime_ns\tstime_ns\tcpu\trun_ns\twait_ns\tvol_cs\tinvol_cs\n"
#define HEADER_CS                                                                                  \
	"time_ns\ttid\tcomm\tstate\tutime_ns\tstime_ns\tcpu\t"                                     \
	"run_ns\twait_ns\tvol_cs\tinvol_cs\tcs\n"

START_TEST(first_and_last_rows_in_the_window_give_cpu_and_runq)
{
	uint64_t cpu, runq, span;
	bool has_runq;

	write_file(HEADER "50\t7\tmsgr-worker-0\tR\t0\t0\t0\t0\t0\t0\t0\n"
			  "100\t7\tmsgr-worker-0\tR\t10000000\t0\t0\t1000\t500\t0\t0\n"
			  "100\t8\tlog\tS\t0\t0\t1\t-1\t-1\t0\t0\n"
			  "200\t7\tmsgr-worker-0\tR\t20000000\t10000000\t1\t61000\t2500\t0\t0\n"
			  "200\t8\tlog\tS\t0\t10000000\t1\t-1\t-1\t0\t0\n"
			  "300\t7\tmsgr-worker-0\tR\t90000000\t0\t1\t99000\t9999\t0\t0\n");
	ck_assert_int_eq(corecap_thread_samples_load(&s, path, 100, 250, &err), 0);
	ck_assert_uint_eq(s.len, 2);
	ck_assert_uint_eq(s.rows_outside_window, 2);
	/* schedstat's run_ns wins over clock ticks when present. */
	corecap_sampled_thread_figures(&s.threads[0], &cpu, &runq, &has_runq, &span);
	ck_assert_str_eq(s.threads[0].comm, "msgr-worker-0");
	ck_assert_uint_eq(cpu, 60000);
	ck_assert(has_runq);
	ck_assert_uint_eq(runq, 2000);
	ck_assert_uint_eq(span, 100);
	/* Without schedstat: utime + stime, and the run-queue wait is unknown. */
	corecap_sampled_thread_figures(&s.threads[1], &cpu, &runq, &has_runq, &span);
	ck_assert_uint_eq(cpu, 10000000);
	ck_assert(!has_runq);
}
END_TEST

START_TEST(context_switches_are_the_window_delta_and_may_be_unknown)
{
	uint64_t cs = 0;

	write_file(HEADER "100\t7\tw\tR\t0\t0\t0\t0\t0\t10\t3\n"
			  "200\t7\tw\tR\t0\t0\t0\t0\t0\t25\t4\n"
			  "100\t8\tl\tS\t0\t0\t0\t0\t0\t-1\t-1\n"
			  "200\t8\tl\tS\t0\t0\t0\t0\t0\t-1\t-1\n");
	ck_assert_int_eq(corecap_thread_samples_load(&s, path, 0, 0, &err), 0);
	ck_assert(corecap_sampled_thread_cs(&s.threads[0], &cs));
	ck_assert_uint_eq(cs, 16);
	ck_assert(!corecap_sampled_thread_cs(&s.threads[1], &cs));
	corecap_thread_samples_release(&s);
	corecap_thread_samples_init(&s);
	/* An older file without the columns still loads; the switches are unknown. */
	write_file("time_ns\ttid\tcomm\tstate\tutime_ns\tstime_ns\tcpu\trun_ns\twait_ns\n"
		   "100\t7\tw\tR\t0\t0\t0\t0\t0\n");
	ck_assert_int_eq(corecap_thread_samples_load(&s, path, 0, 0, &err), 0);
	ck_assert(!corecap_sampled_thread_cs(&s.threads[0], &cs));
}
END_TEST

START_TEST(schedstat_switches_win_over_the_status_pair)
{
	uint64_t cs = 0;

	/* cs (schedstat) known: taken, whatever vol_cs and invol_cs say;
	 * unknown: their sum, as in runs recorded before the column. */
	write_file(HEADER_CS "100\t7\tw\tR\t0\t0\t0\t0\t0\t-1\t-1\t40\n"
			     "200\t7\tw\tR\t0\t0\t0\t0\t0\t-1\t-1\t47\n"
			     "100\t8\tl\tS\t0\t0\t0\t0\t0\t10\t3\t-1\n"
			     "200\t8\tl\tS\t0\t0\t0\t0\t0\t25\t4\t-1\n"
			     "100\t9\tm\tS\t0\t0\t0\t0\t0\t1\t1\t5\n"
			     "200\t9\tm\tS\t0\t0\t0\t0\t0\t100\t100\t9\n");
	ck_assert_int_eq(corecap_thread_samples_load(&s, path, 0, 0, &err), 0);
	ck_assert_uint_eq(s.len, 3);
	ck_assert(corecap_sampled_thread_cs(&s.threads[0], &cs));
	ck_assert_uint_eq(cs, 7);
	ck_assert(corecap_sampled_thread_cs(&s.threads[1], &cs));
	ck_assert_uint_eq(cs, 16);
	ck_assert(corecap_sampled_thread_cs(&s.threads[2], &cs));
	ck_assert_uint_eq(cs, 4);
}
END_TEST

START_TEST(a_header_without_a_needed_column_is_refused_naming_file_and_line)
{
	write_file("time_ns\ttid\tcomm\n1\t2\tx\n");
	ck_assert_int_eq(corecap_thread_samples_load(&s, path, 0, 0, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, path));
	ck_assert_ptr_nonnull(strstr(err, "line 1"));
	ck_assert_ptr_nonnull(strstr(err, "utime_ns"));
}
END_TEST

START_TEST(a_garbled_row_is_refused_naming_the_line)
{
	write_file(HEADER "100\t7\tx\tR\t0\t0\t0\t0\t0\t0\t0\n"
			  "1x0\t7\tx\tR\t0\t0\t0\t0\t0\t0\t0\n");
	ck_assert_int_eq(corecap_thread_samples_load(&s, path, 0, 0, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "line 3"));
}
END_TEST

START_TEST(a_torn_last_line_is_dropped_and_flagged)
{
	/* A collector killed mid-write: the last row stops inside a number. */
	write_file(HEADER "100\t7\tmsgr-worker-0\tR\t10000000\t0\t0\t1000\t500\t0\t0\n"
			  "200\t7\tmsgr-worker-0\tR\t20000000\t0\t0\t2000\t600\t0\t0\n"
			  "300\t7\tmsgr-worker-0\tR\t9");
	ck_assert_int_eq(corecap_thread_samples_load(&s, path, 0, 0, &err), 0);
	ck_assert(s.torn_last_line);
	ck_assert_uint_eq(s.rows, 2);
	ck_assert_uint_eq(s.threads[0].last.time_ns, 200);
}
END_TEST

START_TEST(a_whole_file_is_not_flagged_torn)
{
	write_file(HEADER "100\t7\tlog\tS\t0\t0\t0\t0\t0\t0\t0\n");
	ck_assert_int_eq(corecap_thread_samples_load(&s, path, 0, 0, &err), 0);
	ck_assert(!s.torn_last_line);
	ck_assert_uint_eq(s.rows, 1);
}
END_TEST

START_TEST(a_missing_file_is_enoent)
{
	unlink(path);
	ck_assert_int_eq(corecap_thread_samples_load(&s, path, 0, 0, &err), -ENOENT);
	ck_assert_ptr_null(err);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("analysis_thread_samples");
	TCase *tc = tcase_create("threads.tsv");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, first_and_last_rows_in_the_window_give_cpu_and_runq);
	tcase_add_test(tc, context_switches_are_the_window_delta_and_may_be_unknown);
	tcase_add_test(tc, schedstat_switches_win_over_the_status_pair);
	tcase_add_test(tc, a_header_without_a_needed_column_is_refused_naming_file_and_line);
	tcase_add_test(tc, a_garbled_row_is_refused_naming_the_line);
	tcase_add_test(tc, a_missing_file_is_enoent);
	tcase_add_test(tc, a_torn_last_line_is_dropped_and_flagged);
	tcase_add_test(tc, a_whole_file_is_not_flagged_torn);
	suite_add_tcase(su, tc);
	return corecap_check_run(su);
}
