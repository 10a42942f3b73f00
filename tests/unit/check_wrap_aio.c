/*
 * wrap_aio under the shim, with a real libaio program: O_DIRECT writes to
 * files under /tmp through io_submit, reaped by io_getevents. Each
 * completion counts once, in the reaping thread, under its descriptor's
 * class (data, or journal for a path matching CORECAP_IO_JOURNAL's
 * defaults), with its bytes; the io_submit call counts as one I/O call of
 * the submitting thread. Known answer for the time: a poll iocb on a
 * pipe completes when the test writes to the pipe, 50 ms after its
 * submission, so its aio time lies between 50 ms and the wall time from
 * submission to reap. Return values (libaio's negative errno) and errno
 * are the real calls', and what a failed or partial submission did not
 * submit leaves nothing behind in the in-flight table. Runs with the shim
 * in LD_PRELOAD.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stats_probe.h"

#include "check_run.h"

#define BLK 4096

static char dir[] = "/tmp/corecap-aio-XXXXXX";
static char path[600];
static struct corecap_stats_counters before;

static const char *in_dir(const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void snap(void)
{
	before = probe_self()->c;
}

#define DELTA(field, cls) (probe_self()->c.field[cls] - before.field[cls])

static const struct corecap_stats_header *hdr(void)
{
	return probe_stats();
}

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* n O_DIRECT 4 KiB writes to a new file `name`, submitted at once, reaped here. */
static void write_blocks(io_context_t ctx, const char *name, int n)
{
	struct iocb cb[8], *cbs[8];
	struct io_event ev[8];
	void *buf;
	int fd, got = 0;

	ck_assert_int_le(n, 8);
	fd = open(in_dir(name), O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0600);
	ck_assert_msg(fd >= 0, "open O_DIRECT %s: %s", path, strerror(errno));
	ck_assert_int_eq(posix_memalign(&buf, BLK, BLK), 0);
	memset(buf, 'x', BLK);
	for (int i = 0; i < n; i++) {
		io_prep_pwrite(&cb[i], fd, buf, BLK, (long long)i * BLK);
		cbs[i] = &cb[i];
	}
	ck_assert_int_eq(io_submit(ctx, n, cbs), n);
	while (got < n) {
		int r = io_getevents(ctx, 1, n - got, ev, NULL);

		ck_assert_int_gt(r, 0);
		for (int i = 0; i < r; i++)
			ck_assert_int_eq((long)ev[i].res, BLK);
		got += r;
	}
	free(buf);
	close(fd);
}

START_TEST(shim_is_loaded)
{
	ck_assert_msg(probe_shim_loaded(), "libcorecap-preload.so is not in LD_PRELOAD");
	ck_assert_ptr_nonnull(probe_stats());
}
END_TEST

START_TEST(data_writes_count_once_each_with_their_bytes)
{
	io_context_t ctx = 0;
	uint64_t t0, wall_ns;

	ck_assert_int_eq(io_setup(16, &ctx), 0);
	snap();
	t0 = mono_ns();
	write_blocks(ctx, "object.bin", 8);
	wall_ns = mono_ns() - t0;
	ck_assert_uint_eq(DELTA(aio_done, CORECAP_IO_DATA), 8);
	ck_assert_uint_eq(DELTA(aio_bytes, CORECAP_IO_DATA), 8 * BLK);
	ck_assert_uint_eq(DELTA(io_calls, CORECAP_IO_DATA), 1); /* the io_submit */
	ck_assert_uint_gt(DELTA(aio_ns, CORECAP_IO_DATA), 0);
	ck_assert_uint_le(DELTA(aio_ns, CORECAP_IO_DATA), 8 * wall_ns);
	ck_assert_uint_eq(DELTA(aio_done, CORECAP_IO_JOURNAL), 0);
	ck_assert_uint_eq(DELTA(aio_done, CORECAP_IO_OTHER), 0);
	io_destroy(ctx);
}
END_TEST

START_TEST(journal_path_is_the_journal_class)
{
	io_context_t ctx = 0;

	ck_assert_int_eq(io_setup(16, &ctx), 0);
	snap();
	write_blocks(ctx, "journal", 4);
	write_blocks(ctx, "block.wal", 2);
	write_blocks(ctx, "block.db", 1);
	ck_assert_uint_eq(DELTA(aio_done, CORECAP_IO_JOURNAL), 7);
	ck_assert_uint_eq(DELTA(aio_bytes, CORECAP_IO_JOURNAL), 7 * BLK);
	ck_assert_uint_eq(DELTA(io_calls, CORECAP_IO_JOURNAL), 3);
	ck_assert_uint_eq(DELTA(aio_done, CORECAP_IO_DATA), 0);
	io_destroy(ctx);
}
END_TEST

/* The known answer: a poll iocb completes when the pipe is written, 50 ms on. */
START_TEST(submission_to_completion_is_timed)
{
	io_context_t ctx = 0;
	struct iocb cb, *cbs[1] = {&cb};
	struct io_event ev;
	struct timespec nap = {0, 50 * 1000000};
	uint64_t t0, wall_ns, aio_ns;
	int pfd[2];

	ck_assert_int_eq(pipe(pfd), 0);
	ck_assert_int_eq(io_setup(4, &ctx), 0);
	snap();
	t0 = mono_ns();
	io_prep_poll(&cb, pfd[0], POLLIN);
	ck_assert_int_eq(io_submit(ctx, 1, cbs), 1);
	nanosleep(&nap, NULL);
	ck_assert_int_eq(write(pfd[1], "!", 1), 1);
	ck_assert_int_eq(io_getevents(ctx, 1, 1, &ev, NULL), 1);
	wall_ns = mono_ns() - t0;
	ck_assert_ptr_eq(ev.obj, &cb);
	aio_ns = DELTA(aio_ns, CORECAP_IO_OTHER);
	ck_assert_uint_eq(DELTA(aio_done, CORECAP_IO_OTHER), 1);
	ck_assert_msg(aio_ns >= 50 * 1000000 && aio_ns <= wall_ns,
		      "aio time %llu ns, expected 50 ms .. %llu ns", (unsigned long long)aio_ns,
		      (unsigned long long)wall_ns);
	io_destroy(ctx);
	close(pfd[0]);
	close(pfd[1]);
}
END_TEST

struct reaper {
	io_context_t ctx;
	int n;
	uint64_t done_data;
};

static void *reap_all(void *p)
{
	struct reaper *r = p;
	struct io_event ev[8];
	struct corecap_stats_counters mine;
	int got = 0;

	probe_self(); /* attach the thread before it counts */
	mine = probe_self() ? probe_self()->c : (struct corecap_stats_counters){0};
	while (got < r->n) {
		int k = io_getevents(r->ctx, 1, r->n - got, ev, NULL);

		if (k <= 0)
			break;
		got += k;
	}
	r->done_data = probe_self()->c.aio_done[CORECAP_IO_DATA] - mine.aio_done[CORECAP_IO_DATA];
	return NULL;
}

START_TEST(the_reaping_thread_counts_the_completion)
{
	struct reaper r = {.n = 4};
	struct iocb cb[4], *cbs[4];
	pthread_t t;
	void *buf;
	int fd;

	ck_assert_int_eq(io_setup(8, &r.ctx), 0);
	fd = open(in_dir("reaped.bin"), O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(posix_memalign(&buf, BLK, BLK), 0);
	memset(buf, 'y', BLK);
	for (int i = 0; i < 4; i++) {
		io_prep_pwrite(&cb[i], fd, buf, BLK, (long long)i * BLK);
		cbs[i] = &cb[i];
	}
	snap();
	ck_assert_int_eq(pthread_create(&t, NULL, reap_all, &r), 0);
	ck_assert_int_eq(io_submit(r.ctx, 4, cbs), 4);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_uint_eq(r.done_data, 4);
	ck_assert_uint_eq(DELTA(aio_done, CORECAP_IO_DATA), 0);
	ck_assert_uint_eq(DELTA(io_calls, CORECAP_IO_DATA), 1);
	free(buf);
	close(fd);
	io_destroy(r.ctx);
}
END_TEST

START_TEST(results_and_errno_are_libaios)
{
	io_context_t ctx = 0, bad = 0;
	struct iocb cb[2], *cbs[2] = {&cb[0], &cb[1]};
	struct io_event ev[2];
	struct timespec zero = {0, 0};
	uint64_t unmatched;
	void *buf;
	int fd;

	/* A bad context: -EINVAL returned, errno untouched. */
	fd = open(in_dir("errno.bin"), O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(posix_memalign(&buf, BLK, BLK), 0);
	io_prep_pwrite(&cb[0], fd, buf, BLK, 0);
	io_prep_pwrite(&cb[1], -1, buf, BLK, 0); /* EBADF at submission */
	errno = 4321;
	ck_assert_int_eq(io_submit(bad, 1, cbs), -EINVAL);
	ck_assert_int_eq(errno, 4321);
	ck_assert_int_eq(io_getevents(bad, 1, 1, ev, &zero), -EINVAL);
	ck_assert_int_eq(errno, 4321);

	/* A partial submission: the first goes, the second fails and is forgotten. */
	ck_assert_int_eq(io_setup(4, &ctx), 0);
	unmatched = hdr()->aio_unmatched;
	snap();
	errno = 4321;
	ck_assert_int_eq(io_submit(ctx, 2, cbs), 1);
	ck_assert_int_eq(errno, 4321);
	ck_assert_int_eq(io_getevents(ctx, 1, 2, ev, NULL), 1);
	ck_assert_int_eq(errno, 4321);
	ck_assert_ptr_eq(ev[0].obj, &cb[0]);
	ck_assert_int_eq(io_submit(ctx, 1, &cbs[1]), -EBADF);
	ck_assert_int_eq(errno, 4321);
	ck_assert_uint_eq(DELTA(aio_done, CORECAP_IO_DATA), 1);
	/* Nothing to reap: 0 at once, the table holds nothing of cb[1]. */
	ck_assert_int_eq(io_getevents(ctx, 0, 2, ev, &zero), 0);
	ck_assert_uint_eq(hdr()->aio_unmatched, unmatched);
	/* A NULL iocb: the kernel's EFAULT, no crash. */
	{
		struct iocb *none[1] = {NULL};

		ck_assert_int_eq(io_submit(ctx, 1, none), -EFAULT);
		ck_assert_int_eq(errno, 4321);
	}
	/* Cancelling a completed iocb fails as the kernel says (no crash, no count). */
	ck_assert_int_lt(io_cancel(ctx, &cb[0], &ev[0]), 0);
	ck_assert_int_eq(errno, 4321);
	ck_assert_int_eq(io_destroy(ctx), 0);
	free(buf);
	close(fd);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("wrap_aio");
	TCase *tc = tcase_create("libaio");

	tcase_set_timeout(tc, 20);
	tcase_add_unchecked_fixture(tc, setup, NULL);
	tcase_add_test(tc, shim_is_loaded);
	tcase_add_test(tc, data_writes_count_once_each_with_their_bytes);
	tcase_add_test(tc, journal_path_is_the_journal_class);
	tcase_add_test(tc, submission_to_completion_is_timed);
	tcase_add_test(tc, the_reaping_thread_counts_the_completion);
	tcase_add_test(tc, results_and_errno_are_libaios);
	suite_add_tcase(s, tc);
	return s;
}

/* O_DIRECT on /tmp (tmpfs before Linux 6.6 has none): else skipped. */
static bool tmp_takes_o_direct(void)
{
	char probe[] = "/tmp/corecap-aio-probe-XXXXXX";
	int fd = mkstemp(probe), dfd = -1;

	if (fd >= 0) {
		dfd = open(probe, O_RDWR | O_DIRECT);
		close(fd);
		unlink(probe);
	}
	if (dfd < 0)
		return false;
	close(dfd);
	return true;
}

int main(void)
{
	int status;
	char cmd[700];

	if (!tmp_takes_o_direct()) {
		printf("skipped: /tmp does not take O_DIRECT\n");
		return 77;
	}
	status = corecap_check_run(suite());
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (strncmp(dir, "/tmp/corecap-aio-", 17) == 0 && system(cmd) != 0)
		return EXIT_FAILURE;
	return status;
}
