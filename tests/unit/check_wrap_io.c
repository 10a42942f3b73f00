/*
 * wrap_io and wrap_fd under the shim: every I/O call is charged to its
 * descriptor's class (log by path pattern or stdout/stderr, data for
 * regular files, net for sockets, other for the rest), calls and bytes
 * included, classes follow dup and close, and return values and errno
 * are the real calls'. Runs with the shim in LD_PRELOAD.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "stats_probe.h"

#include "check_run.h"

static char dir[] = "/tmp/corecap-io-XXXXXX";
static char path[600];

static const char *in_dir(const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static struct corecap_stats_counters before;

static void snap(void)
{
	before = probe_self()->c;
}

static uint64_t calls(int cls)
{
	return probe_self()->c.io_calls[cls] - before.io_calls[cls];
}

static uint64_t bytes(int cls)
{
	return probe_self()->c.io_bytes[cls] - before.io_bytes[cls];
}

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

START_TEST(shim_is_loaded)
{
	ck_assert_msg(probe_shim_loaded(), "libcorecap-preload.so is not in LD_PRELOAD");
	ck_assert_ptr_nonnull(probe_stats());
}
END_TEST

START_TEST(log_data_net_other_are_told_apart)
{
	char buf[4096] = {0};
	int log, data, sv[2], pfd[2];

	log = open(in_dir("osd.0.log"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	data = open(in_dir("object.bin"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(log, 0);
	ck_assert_int_ge(data, 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(pipe(pfd), 0);
	snap();
	ck_assert_int_eq(write(log, buf, 100), 100);
	ck_assert_int_eq(pwrite(data, buf, 4096, 0), 4096);
	ck_assert_int_eq(fsync(data), 0);
	ck_assert_int_eq(send(sv[0], buf, 10, 0), 10);
	ck_assert_int_eq(recv(sv[1], buf, 10, 0), 10);
	ck_assert_int_eq(write(pfd[1], buf, 1), 1);
	ck_assert_uint_eq(calls(CORECAP_IO_LOG), 1);
	ck_assert_uint_eq(bytes(CORECAP_IO_LOG), 100);
	ck_assert_uint_eq(calls(CORECAP_IO_DATA), 2);
	ck_assert_uint_eq(bytes(CORECAP_IO_DATA), 4096);
	ck_assert_uint_eq(calls(CORECAP_IO_NET), 2);
	ck_assert_uint_eq(bytes(CORECAP_IO_NET), 20);
	ck_assert_uint_eq(calls(CORECAP_IO_OTHER), 1);
	ck_assert_uint_gt(probe_self()->c.io_ns[CORECAP_IO_DATA], before.io_ns[CORECAP_IO_DATA]);
	/* The fsync among them, with its time (part of the class's io_ns). */
	ck_assert_uint_eq(probe_self()->c.sync_calls[CORECAP_IO_DATA] -
				  before.sync_calls[CORECAP_IO_DATA],
			  1);
	ck_assert_uint_eq(
		probe_self()->c.sync_calls[CORECAP_IO_LOG] - before.sync_calls[CORECAP_IO_LOG], 0);
	ck_assert_uint_gt(probe_self()->c.sync_ns[CORECAP_IO_DATA],
			  before.sync_ns[CORECAP_IO_DATA]);
	ck_assert_uint_le(probe_self()->c.sync_ns[CORECAP_IO_DATA] -
				  before.sync_ns[CORECAP_IO_DATA],
			  probe_self()->c.io_ns[CORECAP_IO_DATA] - before.io_ns[CORECAP_IO_DATA]);
	close(log);
	close(data);
	close(sv[0]);
	close(sv[1]);
	close(pfd[0]);
	close(pfd[1]);
}
END_TEST

START_TEST(vectored_and_64_bit_variants_are_counted)
{
	char a[8] = "abcdefg", b[8];
	struct iovec iov[2] = {{a, 4}, {a + 4, 4}}, riov[1] = {{b, 8}};
	int fd = open(in_dir("v.bin"), O_RDWR | O_CREAT | O_TRUNC, 0600);

	snap();
	ck_assert_int_eq(writev(fd, iov, 2), 8);
	ck_assert_int_eq(pwritev(fd, iov, 2, 8), 8);
	ck_assert_int_eq(preadv(fd, riov, 1, 0), 8);
	ck_assert_int_eq(pread64(fd, b, 8, 8), 8);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(readv(fd, riov, 1), 8);
	ck_assert_int_eq(fdatasync(fd), 0);
	ck_assert_int_eq(sync_file_range(fd, 0, 16, SYNC_FILE_RANGE_WRITE), 0);
	ck_assert_uint_eq(calls(CORECAP_IO_DATA), 7);
	ck_assert_uint_eq(bytes(CORECAP_IO_DATA), 40);
	close(fd);
}
END_TEST

START_TEST(classes_follow_dup_and_close)
{
	int log = open(in_dir("x.log"), O_WRONLY | O_CREAT, 0600), copy, data;

	copy = dup(log);
	snap();
	ck_assert_int_eq(write(copy, "x", 1), 1);
	ck_assert_uint_eq(calls(CORECAP_IO_LOG), 1);
	close(copy);
	/* The lowest free number is reused by a data file. */
	data = open(in_dir("y.bin"), O_WRONLY | O_CREAT, 0600);
	ck_assert_int_eq(data, copy);
	snap();
	ck_assert_int_eq(write(data, "y", 1), 1);
	ck_assert_uint_eq(calls(CORECAP_IO_DATA), 1);
	ck_assert_uint_eq(calls(CORECAP_IO_LOG), 0);
	ck_assert_int_eq(dup2(log, data), data);
	snap();
	ck_assert_int_eq(write(data, "z", 1), 1);
	ck_assert_uint_eq(calls(CORECAP_IO_LOG), 1);
	close(data);
	close(log);
}
END_TEST

START_TEST(relative_paths_and_stderr_are_log)
{
	int fd;

	ck_assert_int_eq(chdir(dir), 0);
	fd = open("relative.log", O_WRONLY | O_CREAT, 0600);
	snap();
	ck_assert_int_eq(write(fd, "r", 1), 1);
	ck_assert_int_eq(write(2, "", 0), 0);
	ck_assert_uint_eq(calls(CORECAP_IO_LOG), 2);
	close(fd);
}
END_TEST

START_TEST(results_and_errno_are_the_real_calls)
{
	struct stat st;
	char c;
	int fd;

	errno = 0;
	ck_assert_int_eq(read(-1, &c, 1), -1);
	ck_assert_int_eq(errno, EBADF);
	errno = 0;
	ck_assert_int_eq(write(12345, &c, 1), -1);
	ck_assert_int_eq(errno, EBADF);
	errno = 0;
	ck_assert_int_eq(open(in_dir("missing/file"), O_RDONLY), -1);
	ck_assert_int_eq(errno, ENOENT);
	fd = openat(AT_FDCWD, in_dir("mode.bin"), O_WRONLY | O_CREAT | O_EXCL, 0640);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0640 & ~(unsigned)umask(022));
	errno = 777;
	ck_assert_int_eq(write(fd, "m", 1), 1);
	ck_assert_int_eq(errno, 777);
	ck_assert_int_eq(close(fd), 0);
	ck_assert_int_eq(close(fd), -1);
	ck_assert_int_eq(errno, EBADF);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("wrap_io");
	TCase *tc = tcase_create("classes");

	tcase_set_timeout(tc, 20);
	tcase_add_unchecked_fixture(tc, setup, NULL);
	tcase_add_test(tc, shim_is_loaded);
	tcase_add_test(tc, log_data_net_other_are_told_apart);
	tcase_add_test(tc, vectored_and_64_bit_variants_are_counted);
	tcase_add_test(tc, classes_follow_dup_and_close);
	tcase_add_test(tc, relative_paths_and_stderr_are_log);
	tcase_add_test(tc, results_and_errno_are_the_real_calls);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int status;
	char cmd[700];

	status = corecap_check_run(suite());
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (strncmp(dir, "/tmp/corecap-io-", 16) == 0 && system(cmd) != 0)
		return EXIT_FAILURE;
	return status;
}
