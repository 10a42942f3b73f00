/*
 * analysis/render/stat_view.c and read/stat_snapshot.c: `corecap stat`'s
 * sort keys and keys, the lines it reads from
 * /proc/PID/task/TID/{schedstat,stat}, its elapsed time, and its
 * terminal: on a real pseudo-terminal, non-canonical without echo
 * between enter and restore, a key typed into it read back, and the
 * terminal's modes after restore equal to those before.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "read/stat_snapshot.h"
#include "render/stat_view.h"

#include "check_run.h"

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

START_TEST(sort_cycles)
{
	static const char *const want[] = {"LOCK%", "CPU%", "RUNQ%", "COND%", "IO%", "THREAD"};
	enum stat_sort s = STAT_SORT_LOCK;

	for (int i = 0; i < 2 * STAT_SORT__COUNT; i++) {
		ck_assert_str_eq(corecap_stat_sort_name(s), want[i % STAT_SORT__COUNT]);
		s = corecap_stat_sort_step(s, 1);
	}
	ck_assert_int_eq(s, STAT_SORT_LOCK);
	ck_assert_int_eq(corecap_stat_sort_step(STAT_SORT_LOCK, -1), STAT_SORT_NAME);
	ck_assert_int_eq(corecap_stat_sort_step(STAT_SORT_NAME, 1), STAT_SORT_LOCK);
	ck_assert_int_eq(corecap_stat_sort_step(STAT_SORT_CPU, 0), STAT_SORT_CPU);
	ck_assert_str_eq(corecap_stat_sort_name(STAT_SORT__COUNT), "?");
}
END_TEST

START_TEST(keys)
{
	ck_assert_int_eq(corecap_stat_key_of('q'), STAT_KEY_QUIT);
	ck_assert_int_eq(corecap_stat_key_of('Q'), STAT_KEY_QUIT);
	ck_assert_int_eq(corecap_stat_key_of('s'), STAT_KEY_SORT_NEXT);
	ck_assert_int_eq(corecap_stat_key_of('>'), STAT_KEY_SORT_NEXT);
	ck_assert_int_eq(corecap_stat_key_of('<'), STAT_KEY_SORT_PREV);
	ck_assert_int_eq(corecap_stat_key_of('x'), STAT_KEY_NONE);
	ck_assert_int_eq(corecap_stat_key_of('\n'), STAT_KEY_NONE);
	ck_assert_int_eq(corecap_stat_key_of(0x1b), STAT_KEY_NONE);
}
END_TEST

START_TEST(schedstat_lines)
{
	uint64_t run = 0, delay = 0;

	ck_assert(corecap_stat_parse_schedstat("175270 4907 2\n", &run, &delay));
	ck_assert_uint_eq(run, 175270);
	ck_assert_uint_eq(delay, 4907);
	ck_assert(corecap_stat_parse_schedstat("18446744073709551615 0 0", &run, &delay));
	ck_assert_uint_eq(run, UINT64_MAX);
	ck_assert(!corecap_stat_parse_schedstat("175270 4907\n", &run, &delay));
	ck_assert(!corecap_stat_parse_schedstat("175270 4907 2 9\n", &run, &delay));
	ck_assert(!corecap_stat_parse_schedstat("a b c\n", &run, &delay));
	ck_assert(!corecap_stat_parse_schedstat("", &run, &delay));
}
END_TEST

START_TEST(task_stat_lines)
{
	uint64_t ticks = 0;
	/* A comm with spaces and a ')' of its own: the fields follow the last ')'. */
	const char *line = "4242 (tp osd) x)) S 1 4242 4242 0 -1 4194368 100 0 0 0 "
			   "1234 567 0 0 20 0 16 0 12345 1000000 200 18446744073709551615\n";

	ck_assert(corecap_stat_parse_task_cpu(line, &ticks));
	ck_assert_uint_eq(ticks, 1234 + 567);
	ck_assert(!corecap_stat_parse_task_cpu("4242 tp_osd S 1 2 3", &ticks));
	ck_assert(!corecap_stat_parse_task_cpu("4242 (x) S 1 2", &ticks));
}
END_TEST

START_TEST(task_times_of_self)
{
	uint64_t c0, r0, c1, r1, t0 = mono();
	bool q0, q1;
	volatile uint64_t spin = 0;

	ck_assert_int_eq(corecap_stat_task_times(getpid(), gettid(), &c0, &r0, &q0), 0);
	while (mono() - t0 < 30000000u)
		spin++;
	ck_assert_int_eq(corecap_stat_task_times(getpid(), gettid(), &c1, &r1, &q1), 0);
	ck_assert_int_eq(q0, q1);
	/* 30 ms of spinning shows, at schedstat's ns or the stat's 10 ms ticks. */
	ck_assert_uint_gt(c1, c0);
	ck_assert_uint_ge(r1, r0);
	ck_assert_int_eq(corecap_stat_task_times(getpid(), 0x7ffffff0, &c1, &r1, &q1), -ENOENT);
}
END_TEST

START_TEST(elapsed_text)
{
	char b[32];

	ck_assert_str_eq(corecap_stat_elapsed(0, b, sizeof(b)), "0:00:00");
	ck_assert_str_eq(corecap_stat_elapsed(59999999999ull, b, sizeof(b)), "0:00:59");
	ck_assert_str_eq(corecap_stat_elapsed(3725000000000ull, b, sizeof(b)), "1:02:05");
	ck_assert_str_eq(corecap_stat_elapsed(100ull * 3600 * 1000000000ull, b, sizeof(b)),
			 "100:00:00");
}
END_TEST

/* A memfd holding a header of version v (the rest zeros), for segment_map. */
static int segment_of_version(uint32_t v)
{
	struct corecap_stats_header h = {.magic = CORECAP_STATS_MAGIC,
					 .version = v,
					 .header_bytes = CORECAP_STATS_HEADER_BYTES,
					 .file_bytes = CORECAP_STATS_FILE_BYTES,
					 .pid = (int32_t)getpid()};
	int fd = memfd_create("corecap-test", MFD_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)CORECAP_STATS_FILE_BYTES), 0);
	ck_assert_int_eq(pwrite(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	return fd;
}

/*
 * stat maps a segment of the versions it reads (2: no op counter; 3: no
 * reply counter; 4) and
 * refuses the others with the version found, which it names.
 */
START_TEST(segment_versions)
{
	static const uint32_t refused[] = {1, CORECAP_STATS_VERSION + 1, 77};
	const void *map = NULL;
	int32_t seg_pid = 0;
	uint32_t seg_version = 0;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		ck_assert_int_eq(corecap_stat_segment_map(getpid(), segment_of_version(refused[i]),
							  CORECAP_STATS_FILE_BYTES, &map, &seg_pid,
							  &seg_version),
				 -EPROTONOSUPPORT);
		ck_assert_uint_eq(seg_version, refused[i]);
	}
	for (uint32_t v = CORECAP_STATS_VERSION_OLDEST; v <= CORECAP_STATS_VERSION; v++) {
		ck_assert_int_eq(corecap_stat_segment_map(getpid(), segment_of_version(v),
							  CORECAP_STATS_FILE_BYTES, &map, &seg_pid,
							  &seg_version),
				 0);
		ck_assert_uint_eq(seg_version, v);
		ck_assert_int_eq(corecap_stats_has_ops(map), v >= 3);
		ck_assert_int_eq(corecap_stats_has_replies(map), v >= 4);
		munmap((void *)map, CORECAP_STATS_FILE_BYTES);
	}
}
END_TEST

START_TEST(no_terminal)
{
	struct stat_term t = {.fd = -1};
	volatile sig_atomic_t stop = 0;
	int null = open("/dev/null", O_RDONLY);
	uint64_t t0;

	ck_assert_int_ge(null, 0);
	ck_assert_int_eq(dup2(null, STDIN_FILENO), STDIN_FILENO);
	ck_assert_int_eq(corecap_stat_term_enter(&t), -ENOTTY);
	ck_assert(!t.raw);
	corecap_stat_term_restore(&t); /* nothing to restore: harmless */
	/* Without a raw terminal it only sleeps, to the deadline. */
	t0 = mono();
	ck_assert_int_eq(corecap_stat_wait_key(&t, t0 + 50000000u, &stop), STAT_KEY_NONE);
	ck_assert_uint_ge(mono() - t0, 49000000u);
	stop = 1;
	t0 = mono();
	ck_assert_int_eq(corecap_stat_wait_key(&t, t0 + 5000000000u, &stop), STAT_KEY_NONE);
	ck_assert_uint_lt(mono() - t0, 100000000u);
}
END_TEST

START_TEST(pty_raw_and_restored)
{
	struct stat_term t = {.fd = -1};
	struct termios before, during, after;
	volatile sig_atomic_t stop = 0;
	int master = posix_openpt(O_RDWR | O_NOCTTY), slave;

	ck_assert_int_ge(master, 0);
	ck_assert_int_eq(grantpt(master), 0);
	ck_assert_int_eq(unlockpt(master), 0);
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	ck_assert_int_ge(slave, 0);
	ck_assert_int_eq(dup2(slave, STDIN_FILENO), STDIN_FILENO);
	ck_assert_int_eq(tcgetattr(STDIN_FILENO, &before), 0);
	ck_assert(before.c_lflag & ICANON);

	ck_assert_int_eq(corecap_stat_term_enter(&t), 0);
	ck_assert(t.raw);
	ck_assert_int_eq(tcgetattr(STDIN_FILENO, &during), 0);
	ck_assert(!(during.c_lflag & ICANON));
	ck_assert(!(during.c_lflag & ECHO));
	ck_assert(during.c_lflag & ISIG); /* Ctrl-C still interrupts */

	/* A key that asks nothing is skipped; 's' without Enter is read. */
	ck_assert_int_eq(write(master, "xs", 2), 2);
	ck_assert_int_eq(corecap_stat_wait_key(&t, mono() + 2000000000u, &stop),
			 STAT_KEY_SORT_NEXT);
	ck_assert_int_eq(write(master, "q", 1), 1);
	ck_assert_int_eq(corecap_stat_wait_key(&t, mono() + 2000000000u, &stop), STAT_KEY_QUIT);

	corecap_stat_term_restore(&t);
	ck_assert(!t.raw);
	corecap_stat_term_restore(&t); /* twice: harmless */
	ck_assert_int_eq(tcgetattr(STDIN_FILENO, &after), 0);
	ck_assert_int_eq(after.c_lflag, before.c_lflag);
	ck_assert_int_eq(after.c_iflag, before.c_iflag);
	ck_assert_int_eq(after.c_oflag, before.c_oflag);
	ck_assert_int_eq(memcmp(after.c_cc, before.c_cc, sizeof(after.c_cc)), 0);
	close(slave);
	close(master);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("analysis_stat_view");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, sort_cycles);
	tcase_add_test(tc, keys);
	tcase_add_test(tc, schedstat_lines);
	tcase_add_test(tc, task_stat_lines);
	tcase_add_test(tc, task_times_of_self);
	tcase_add_test(tc, elapsed_text);
	tcase_add_test(tc, no_terminal);
	tcase_add_test(tc, segment_versions);
	tcase_add_test(tc, pty_raw_and_restored);
	suite_add_tcase(su, tc);
	return corecap_check_run(su);
}
