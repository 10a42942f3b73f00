/*
 * wall_samples and thread_series, the run files behind the wall-clock
 * flame graph and the utilization charts: well-formed lines are read and
 * malformed ones counted, never guessed; a thread's CPU between two rows
 * is spread over the time bins it covers, in proportion, and adds up.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/thread_series.h"
#include "read/wall_samples.h"

#include "check_run.h"

static char path[64];

static void write_file(const char *text)
{
	int fd;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/check_flame_inputs.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

struct seen {
	size_t n;
	int32_t tids[8];
	size_t depths[8];
	uint64_t first_ip[8], last_ip[8];
};

static int on_sample(void *ctx, const struct wall_sample *s)
{
	struct seen *seen = ctx;

	if (seen->n < 8) {
		seen->tids[seen->n] = s->tid;
		seen->depths[seen->n] = s->depth;
		seen->first_ip[seen->n] = s->ips[0];
		seen->last_ip[seen->n] = s->ips[s->depth - 1];
	}
	seen->n++;
	return 0;
}

START_TEST(wall_samples_are_read_and_bad_lines_counted)
{
	struct wall_samples w;
	struct seen seen = {0};
	char *err = NULL;

	write_file("100\t7\t5000\t7f00aa 55bb01 55bb02\n"
		   "garbage line\n"
		   "200\t8\t4000\tdeadbeef\n"
		   "300\t9\t10\t\n"	   /* no stack */
		   "400\tx\t10\t1234\n"	   /* bad tid */
		   "500\t7\t10\t12zz 34\n" /* bad address */
		   "600\t7\t6000\t1 2 3 4\n"
		   "700\t7\t6000\t1 2 3"); /* torn: a killed collector's last line */
	corecap_wall_samples_init(&w);
	ck_assert_int_eq(corecap_wall_samples_read(&w, path, on_sample, &seen, &err), 0);
	ck_assert_uint_eq(w.lines, 7);
	ck_assert_uint_eq(w.samples, 3);
	ck_assert_uint_eq(w.bad_lines, 4);
	ck_assert(w.torn_last_line);
	ck_assert_uint_eq(seen.n, 3);
	ck_assert_int_eq(seen.tids[0], 7);
	ck_assert_uint_eq(seen.depths[0], 3);
	ck_assert_uint_eq(seen.first_ip[0], 0x7f00aa);
	ck_assert_uint_eq(seen.last_ip[0], 0x55bb02);
	ck_assert_uint_eq(seen.first_ip[1], 0xdeadbeef);
	ck_assert_uint_eq(seen.depths[2], 4);
	corecap_wall_samples_release(&w);
	unlink(path);
	ck_assert_int_eq(
		corecap_wall_samples_read(&w, "/nonexistent/wall.samples", on_sample, &seen, &err),
		-ENOENT);
}
END_TEST

static int stop_at_two(void *ctx, const struct wall_sample *s)
{
	size_t *n = ctx;

	(void)s;
	return ++*n == 2 ? -ECANCELED : 0;
}

START_TEST(a_callback_error_stops_the_reading)
{
	struct wall_samples w;
	size_t n = 0;
	char *err = NULL;

	write_file("1\t1\t1\t1\n2\t1\t1\t1\n3\t1\t1\t1\n");
	corecap_wall_samples_init(&w);
	ck_assert_int_eq(corecap_wall_samples_read(&w, path, stop_at_two, &n, &err), -ECANCELED);
	ck_assert_uint_eq(n, 2);
	unlink(path);
}
END_TEST

#define HDR                                                                                        \
	"time_ns\ttid\tcomm\tstate\tutime_ns\tstime_ns\tcpu\trun_ns\twait_ns\tvol_cs\tinvol_cs\n"

START_TEST(cpu_is_spread_over_the_bins_it_covers)
{
	struct thread_series s;
	char *err = NULL;

	/*
	 * Bins of 100 ns from 1000. Thread 1 (pool "worker") uses 150 ns of
	 * CPU over [1050, 1200): 50 in bin 0, 100 in bin 1. Thread 2
	 * ("worker-2", same pool) uses 100 over [1000, 1100). Thread 3
	 * ("log") has one row only: no interval, no CPU.
	 */
	write_file(HDR "1050\t1\tworker-1\tR\t0\t0\t0\t1000\t0\t0\t0\n"
		       "1000\t2\tworker-2\tR\t0\t0\t0\t500\t0\t0\t0\n"
		       "1000\t3\tlog\tS\t0\t0\t0\t0\t0\t0\t0\n"
		       "1200\t1\tworker-1\tR\t0\t0\t0\t1150\t0\t0\t0\n"
		       "1100\t2\tworker-2\tR\t0\t0\t0\t600\t0\t0\t0\n"
		       "bad\trow\n");
	corecap_thread_series_init(&s, 1000, 0, 100);
	ck_assert_int_eq(corecap_thread_series_load(&s, path, &err), 0);
	ck_assert_uint_eq(s.rows, 5);
	ck_assert_uint_eq(s.bad_rows, 1);
	ck_assert_uint_eq(s.n_pools, 2);
	ck_assert_str_eq(s.pools[0].name, "worker");
	ck_assert_uint_eq(s.pools[0].n_threads, 2);
	ck_assert_uint_eq(s.n_bins, 2);
	ck_assert_uint_eq(s.pools[0].cpu_ns[0], 50 + 100);
	ck_assert_uint_eq(s.pools[0].cpu_ns[1], 100);
	ck_assert_uint_eq(s.pools[0].total_cpu_ns, 250);
	ck_assert_double_eq_tol(corecap_thread_series_cores(&s, 0, 0), 1.5, 1e-9);
	ck_assert_uint_eq(s.pools[1].total_cpu_ns, 0);
	corecap_thread_series_release(&s);
	unlink(path);
}
END_TEST

START_TEST(cpu_outside_the_window_is_cut_in_proportion)
{
	struct thread_series s;
	char *err = NULL;

	/* 400 ns of CPU over [0, 400); the window is [100, 300): 200 kept. */
	write_file(HDR "0\t1\tw\tR\t0\t0\t0\t0\t0\t0\t0\n"
		       "400\t1\tw\tR\t0\t0\t0\t400\t0\t0\t0\n");
	corecap_thread_series_init(&s, 100, 300, 100);
	ck_assert_int_eq(corecap_thread_series_load(&s, path, &err), 0);
	ck_assert_uint_eq(s.n_bins, 2);
	ck_assert_uint_eq(s.pools[0].cpu_ns[0], 100);
	ck_assert_uint_eq(s.pools[0].cpu_ns[1], 100);
	ck_assert_uint_eq(s.pools[0].total_cpu_ns, 200);
	corecap_thread_series_release(&s);
	unlink(path);
}
END_TEST

START_TEST(without_schedstat_utime_and_stime_count)
{
	struct thread_series s;
	char *err = NULL;

	write_file(HDR "0\t1\tw\tR\t0\t0\t0\t-1\t-1\t0\t0\n"
		       "100\t1\tw\tR\t30\t20\t0\t-1\t-1\t0\t0\n");
	corecap_thread_series_init(&s, 0, 0, 100);
	ck_assert_int_eq(corecap_thread_series_load(&s, path, &err), 0);
	ck_assert_uint_eq(s.pools[0].total_cpu_ns, 50);
	corecap_thread_series_release(&s);
	unlink(path);
}
END_TEST

START_TEST(a_time_without_rows_longer_than_gap_ns_is_a_gap)
{
	struct thread_series s;
	char *err = NULL;

	/*
	 * Rounds every 100 ns, two threads each, stamped apart; none from 200
	 * to 600 (a gap of 400 > 250), and 300 to 350 is no gap (50). The
	 * rows of one round out of order do not make one.
	 */
	write_file(HDR "100\t1\tw\tR\t0\t0\t0\t0\t0\t0\t0\n"
		       "101\t2\tw\tR\t0\t0\t0\t0\t0\t0\t0\n"
		       "200\t2\tw\tR\t0\t0\t0\t0\t0\t0\t0\n"
		       "199\t1\tw\tR\t0\t0\t0\t0\t0\t0\t0\n"
		       "600\t1\tw\tR\t0\t0\t0\t0\t0\t0\t0\n"
		       "602\t2\tw\tR\t0\t0\t0\t0\t0\t0\t0\n"
		       "700\t1\tw\tR\t0\t0\t0\t0\t0\t0\t0\n");
	corecap_thread_series_init(&s, 0, 0, 100);
	s.gap_ns = 250;
	ck_assert_int_eq(corecap_thread_series_load(&s, path, &err), 0);
	ck_assert_uint_eq(s.n_gaps, 1);
	ck_assert_uint_eq(s.gaps[0].from_ns, 200);
	ck_assert_uint_eq(s.gaps[0].to_ns, 600);
	corecap_thread_series_release(&s);
	/* gap_ns 0: none looked for. */
	corecap_thread_series_init(&s, 0, 0, 100);
	ck_assert_int_eq(corecap_thread_series_load(&s, path, &err), 0);
	ck_assert_uint_eq(s.n_gaps, 0);
	corecap_thread_series_release(&s);
	unlink(path);
}
END_TEST

START_TEST(a_header_without_the_columns_is_an_error_naming_the_line)
{
	struct thread_series s;
	char *err = NULL;

	write_file("time_ns\ttid\n1\t2\n");
	corecap_thread_series_init(&s, 0, 0, 100);
	ck_assert_int_eq(corecap_thread_series_load(&s, path, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "line 1: header lacks column 'comm'"));
	free(err);
	corecap_thread_series_release(&s);
	unlink(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("flame_inputs");
	TCase *tc = tcase_create("inputs");

	tcase_add_test(tc, wall_samples_are_read_and_bad_lines_counted);
	tcase_add_test(tc, a_callback_error_stops_the_reading);
	tcase_add_test(tc, cpu_is_spread_over_the_bins_it_covers);
	tcase_add_test(tc, cpu_outside_the_window_is_cut_in_proportion);
	tcase_add_test(tc, without_schedstat_utime_and_stime_count);
	tcase_add_test(tc, a_time_without_rows_longer_than_gap_ns_is_a_gap);
	tcase_add_test(tc, a_header_without_the_columns_is_an_error_naming_the_line);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
