/*
 * refosd log: entries at or under the level are written, in order, and
 * all of them by log_stop().
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

#include "check_run.h"

static char path[64];

static void make_path(void)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/check_refosd_log.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

/* The file's lines, NUL-separated in one buffer; *n is the line count. */
static char *read_lines(size_t *n)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long size;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)size + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	*n = 0;
	for (long i = 0; i < size; i++) {
		if (buf[i] == '\n') {
			buf[i] = '\0';
			(*n)++;
		}
	}
	return buf;
}

static const char *next_line(const char *p)
{
	return p + strlen(p) + 1;
}

START_TEST(only_entries_at_or_under_the_level_are_written)
{
	struct log lg;
	char *buf;
	const char *p;
	size_t n;

	make_path();
	ck_assert_int_eq(log_init(&lg, path, 10, 0), 0);
	ck_assert_int_eq(log_start(&lg), 0);
	ck_assert(log_enabled(&lg, 0));
	ck_assert(log_enabled(&lg, 10));
	ck_assert(!log_enabled(&lg, 11));
	for (int level = 0; level <= 20; level++)
		log_submitf(&lg, level, "osd", "entry at level %d", level);
	ck_assert_int_eq(log_stop(&lg), 0);
	ck_assert_uint_eq(lg.entries_written, 11);
	log_release(&lg);
	buf = read_lines(&n);
	ck_assert_uint_eq(n, 11);
	p = buf;
	for (int level = 0; level <= 10; level++, p = next_line(p)) {
		char want[32];

		snprintf(want, sizeof(want), "entry at level %d", level);
		ck_assert_ptr_nonnull(strstr(p, want));
	}
	free(buf);
	unlink(path);
}
END_TEST

START_TEST(level_zero_writes_only_level_zero)
{
	struct log lg;
	char *buf;
	size_t n;

	make_path();
	ck_assert_int_eq(log_init(&lg, path, 0, 0), 0);
	ck_assert_int_eq(log_start(&lg), 0);
	log_submitf(&lg, 1, "osd", "not written");
	log_submitf(&lg, 0, "osd", "written");
	log_stop(&lg);
	log_release(&lg);
	buf = read_lines(&n);
	ck_assert_uint_eq(n, 1);
	ck_assert_ptr_nonnull(strstr(buf, "written"));
	free(buf);
	unlink(path);
}
END_TEST

START_TEST(lines_carry_timestamp_thread_level_and_subsystem)
{
	struct log lg;
	char *buf, date[11], tid[16];
	int usec = -1, level = -1, consumed = 0;
	size_t n;

	make_path();
	ck_assert_int_eq(log_init(&lg, path, 20, 0), 0);
	ck_assert_int_eq(log_start(&lg), 0);
	log_submitf(&lg, 15, "osd", "do_op %s v %d", "obj", 42);
	log_stop(&lg);
	log_release(&lg);
	buf = read_lines(&n);
	ck_assert_uint_eq(n, 1);
	/* "2024-05-01T12:34:56.123456+0000 4242 15 osd: do_op obj v 42" */
	ck_assert_int_eq(sscanf(buf, "%10sT%*2d:%*2d:%*2d.%6d+0000 %15s %d osd: %n", date, &usec,
				tid, &level, &consumed),
			 4);
	ck_assert_uint_eq(strlen(date), 10);
	ck_assert_int_ge(usec, 0);
	ck_assert_int_eq(atoi(tid), (int)gettid());
	ck_assert_int_eq(level, 15);
	ck_assert_str_eq(buf + consumed, "do_op obj v 42");
	free(buf);
	unlink(path);
}
END_TEST

START_TEST(long_messages_are_cut_but_keep_their_newline)
{
	struct log lg;
	char big[2000], *buf;
	size_t n;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	make_path();
	ck_assert_int_eq(log_init(&lg, path, 5, 0), 0);
	ck_assert_int_eq(log_start(&lg), 0);
	log_submitf(&lg, 5, "osd", "%s", big);
	log_submitf(&lg, 5, "osd", "after");
	log_stop(&lg);
	log_release(&lg);
	buf = read_lines(&n);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_lt(strlen(buf), LOG_LINE_MAX);
	ck_assert_ptr_nonnull(strstr(next_line(buf), "after"));
	free(buf);
	unlink(path);
}
END_TEST

START_TEST(entries_are_written_in_submission_order)
{
	struct log lg;
	char *buf;
	const char *p;
	size_t n;

	make_path();
	ck_assert_int_eq(log_init(&lg, path, 20, 0), 0);
	ck_assert_int_eq(log_start(&lg), 0);
	for (int i = 0; i < 20000; i++)
		log_submitf(&lg, 20, "osd", "seq %d", i);
	log_stop(&lg);
	log_release(&lg);
	buf = read_lines(&n);
	ck_assert_uint_eq(n, 20000);
	p = buf;
	for (int i = 0; i < 20000; i++, p = next_line(p)) {
		const char *s = strstr(p, "seq ");

		ck_assert_ptr_nonnull(s);
		ck_assert_int_eq(atoi(s + 4), i);
	}
	free(buf);
	unlink(path);
}
END_TEST

struct submitter {
	struct log *lg;
	int id;
};

static void *submitter_main(void *arg)
{
	struct submitter *s = arg;

	for (int i = 0; i < 5000; i++)
		log_submitf(s->lg, 10, "osd", "thread %d seq %d", s->id, i);
	return NULL;
}

START_TEST(a_full_queue_makes_loggers_wait_and_loses_nothing)
{
	struct log lg;
	struct submitter sub[4];
	pthread_t th[4];
	int last[4] = {-1, -1, -1, -1};
	char *buf;
	const char *p;
	size_t n;

	make_path();
	/* A queue of 4 entries: submitters constantly find it full. */
	ck_assert_int_eq(log_init(&lg, path, 10, 4), 0);
	ck_assert_int_eq(log_start(&lg), 0);
	for (int i = 0; i < 4; i++) {
		sub[i] = (struct submitter){.lg = &lg, .id = i};
		ck_assert_int_eq(pthread_create(&th[i], NULL, submitter_main, &sub[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	ck_assert_int_eq(log_stop(&lg), 0);
	log_release(&lg);
	buf = read_lines(&n);
	ck_assert_uint_eq(n, 20000);
	/* Each thread's entries appear in its own order. */
	for (p = buf; n--; p = next_line(p)) {
		int t, seq;

		ck_assert_int_eq(sscanf(strstr(p, "thread "), "thread %d seq %d", &t, &seq), 2);
		ck_assert_int_eq(seq, last[t] + 1);
		last[t] = seq;
	}
	free(buf);
	unlink(path);
}
END_TEST

START_TEST(stop_flushes_entries_still_queued)
{
	struct log lg;
	char *buf;
	size_t n;

	make_path();
	ck_assert_int_eq(log_init(&lg, path, 20, 100000), 0);
	ck_assert_int_eq(log_start(&lg), 0);
	for (int i = 0; i < 50000; i++)
		log_submitf(&lg, 20, "osd", "burst %d", i);
	/* No waiting: log_stop() itself must write everything out. */
	ck_assert_int_eq(log_stop(&lg), 0);
	ck_assert_uint_eq(lg.entries_written, 50000);
	log_release(&lg);
	buf = read_lines(&n);
	ck_assert_uint_eq(n, 50000);
	free(buf);
	unlink(path);
}
END_TEST

START_TEST(unopenable_file_is_an_error)
{
	struct log lg;

	ck_assert_int_lt(log_init(&lg, "/nonexistent/dir/refosd.log", 1, 0), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("refosd_log");
	TCase *tc = tcase_create("queue");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, only_entries_at_or_under_the_level_are_written);
	tcase_add_test(tc, level_zero_writes_only_level_zero);
	tcase_add_test(tc, lines_carry_timestamp_thread_level_and_subsystem);
	tcase_add_test(tc, long_messages_are_cut_but_keep_their_newline);
	tcase_add_test(tc, entries_are_written_in_submission_order);
	tcase_add_test(tc, a_full_queue_makes_loggers_wait_and_loses_nothing);
	tcase_add_test(tc, stop_flushes_entries_still_queued);
	tcase_add_test(tc, unopenable_file_is_an_error);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
