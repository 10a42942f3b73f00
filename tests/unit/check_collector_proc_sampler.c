/* collector/sources/proc_sampler.c: the rows of threads.tsv from this
 * process's own threads, the descriptors kept between rounds and closed
 * when their thread exits, the threads past the kept ones still read. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sources/proc_sampler.h"
#include "util/proc_stat.h"
#include "util/run_dir.h"

#include "check_run.h"

static char base[256], path[300];
static struct corecap_run_dir rd;
static struct corecap_proc_sampler s;

/* Threads that wait on one barrier until told to go, each telling its tid. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static bool go;
static int started;

static void *waiter(void *arg)
{
	pthread_mutex_lock(&mu);
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	started++;
	pthread_cond_broadcast(&cv);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void start_waiters(pthread_t *th, pid_t *tids, int n)
{
	pthread_attr_t a;

	go = false;
	started = 0;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(pthread_create(&th[i], &a, waiter, &tids[i]), 0);
	pthread_attr_destroy(&a);
	pthread_mutex_lock(&mu);
	while (started < n)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static void stop_waiters(pthread_t *th, int n)
{
	pthread_mutex_lock(&mu);
	go = true;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void setup(void)
{
	snprintf(base, sizeof(base), "/tmp/check_proc_sampler.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(path, sizeof(path), "%s/run", base);
	ck_assert_int_eq(corecap_run_dir_create(&rd, path, false), 0);
	ck_assert_int_eq(corecap_proc_sampler_init(&s, getpid(), &rd), 0);
}

static void teardown(void)
{
	char cmd[600];

	corecap_proc_sampler_release(&s);
	corecap_run_dir_release(&rd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	ck_assert_int_eq(system(cmd), 0);
}

/* The last round's cs of tid in threads.tsv (-2: no row), and its rows counted. */
static long cs_of(pid_t tid, int *rows_of_tid)
{
	char file[400], line[512];
	long cs = -2;
	FILE *f;

	snprintf(file, sizeof(file), "%s/threads.tsv", path);
	f = fopen(file, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	ck_assert_str_eq(line, corecap_threads_tsv_header);
	*rows_of_tid = 0;
	while (fgets(line, sizeof(line), f)) {
		char *cell[12], *p = line;
		int n = 0;

		while (n < 12 && (cell[n] = strsep(&p, "\t")))
			n++;
		ck_assert_int_eq(n, 12);
		if (atoi(cell[1]) == tid) {
			(*rows_of_tid)++;
			ck_assert_str_eq(cell[9], "-1"); /* status not read: schedstat said */
			ck_assert_str_eq(cell[10], "-1");
			cs = strtol(cell[11], NULL, 10);
		}
	}
	fclose(f);
	return cs;
}

static long status_switches(pid_t tid)
{
	char p[64], buf[4096];
	const char *v, *n;

	snprintf(p, sizeof(p), "/proc/self/task/%d/status", (int)tid);
	ck_assert_int_gt(corecap_read_small_file(AT_FDCWD, p, buf, sizeof(buf)), 0);
	v = strstr(buf, "\nvoluntary_ctxt_switches:");
	n = strstr(buf, "\nnonvoluntary_ctxt_switches:");
	ck_assert(v && n);
	return strtol(v + 25, NULL, 10) + strtol(n + 28, NULL, 10);
}

START_TEST(a_waiting_threads_switches_are_its_status_pair)
{
	pthread_t th[3];
	pid_t tids[3];
	int rows;

	ck_assert(s.have_schedstat);
	start_waiters(th, tids, 3);
	ck_assert_int_eq(corecap_proc_sampler_sample(&s), 0);
	ck_assert_int_eq(corecap_proc_sampler_sample(&s), 0);
	ck_assert_uint_eq(s.n_threads, 4);
	ck_assert_uint_eq(s.n_fds, 4);
	/* A thread blocked on the condition: schedstat's count is status's sum. */
	ck_assert_int_eq(cs_of(tids[1], &rows), status_switches(tids[1]));
	ck_assert_int_eq(rows, 2);
	stop_waiters(th, 3);
}
END_TEST

START_TEST(an_exited_threads_files_are_closed)
{
	int before = open_fds(), rows;
	pthread_t th[4];
	pid_t tids[4];

	start_waiters(th, tids, 4);
	ck_assert_int_eq(corecap_proc_sampler_sample(&s), 0);
	ck_assert_uint_eq(s.n_fds, 5);
	/* stat and schedstat of each of five threads kept */
	ck_assert_int_eq(open_fds(), before + 10);
	stop_waiters(th, 4);
	ck_assert_int_eq(corecap_proc_sampler_sample(&s), 0);
	ck_assert_uint_eq(s.n_threads, 1);
	ck_assert_uint_eq(s.n_fds, 1);
	ck_assert_int_eq(open_fds(), before + 2);
	ck_assert_int_ge(cs_of(tids[0], &rows), 0);
	ck_assert_int_eq(rows, 1);
}
END_TEST

START_TEST(threads_past_the_kept_ones_are_read_each_round)
{
	enum { N = CORECAP_PROC_SAMPLER_KEEP + 20 };
	static pthread_t th[N];
	static pid_t tids[N];
	int before = open_fds(), rows;

	start_waiters(th, tids, N);
	for (int r = 0; r < 2; r++) {
		ck_assert_int_eq(corecap_proc_sampler_sample(&s), 0);
		ck_assert_uint_eq(s.n_threads, N + 1);
		ck_assert_uint_eq(s.n_fds, CORECAP_PROC_SAMPLER_KEEP);
		ck_assert_int_eq(open_fds(), before + 2 * CORECAP_PROC_SAMPLER_KEEP);
	}
	/* The highest tids are the ones past the table (filled in tid order). */
	ck_assert_int_eq(cs_of(tids[N - 1], &rows), status_switches(tids[N - 1]));
	ck_assert_int_eq(rows, 2);
	stop_waiters(th, N);
	ck_assert_int_eq(corecap_proc_sampler_sample(&s), 0);
	ck_assert_uint_eq(s.n_fds, 1);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("proc_sampler");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_waiting_threads_switches_are_its_status_pair);
	tcase_add_test(tc, an_exited_threads_files_are_closed);
	tcase_add_test(tc, threads_past_the_kept_ones_are_read_each_round);
	suite_add_tcase(su, tc);
	return corecap_check_run(su);
}
