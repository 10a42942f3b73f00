/*
 * collector/hosts/host_tar.c: a remote host's run comes back as a ustar stream,
 * untrusted. A stream made by tar(1) is written whole; hand-made hostile
 * ones (a symlink, '..', a member outside the top directory, a bad
 * checksum, a GNU long name, a truncated file, one over the size bound)
 * are refused with the reason and touch nothing outside the destination.
 * Also record --hosts' --record-opt filter (host_record.h).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hosts/host_record.h"
#include "hosts/host_tar.h"

#include "check_run.h"

static char scratch[64];

static void setup(void)
{
	snprintf(scratch, sizeof(scratch), "/tmp/check-host-tar.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	ck_assert_int_eq(system(cmd), 0);
}

/* A ustar header for name (type, size), its checksum right. */
static void header(unsigned char h[512], const char *name, char type, size_t size)
{
	unsigned sum = 0;

	memset(h, 0, 512);
	snprintf((char *)h, 100, "%s", name);
	snprintf((char *)h + 100, 8, "%07o", 0600);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011zo", size);
	snprintf((char *)h + 136, 12, "%011o", 0);
	h[156] = (unsigned char)type;
	memcpy(h + 257,
	       "ustar\0"
	       "00",
	       8);
	memset(h + 148, ' ', 8);
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
}

/* Writes the blocks to a file and extracts it into scratch/dest; the result. */
static int extract(const unsigned char *blocks, size_t n_blocks, uint64_t max, char *err,
		   size_t errlen)
{
	char path[128], dest[128];
	struct corecap_host_tar t = {0};
	int fd, dir, ret;

	snprintf(path, sizeof(path), "%s/stream", scratch);
	snprintf(dest, sizeof(dest), "%s/dest", scratch);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, blocks, n_blocks * 512), (ssize_t)(n_blocks * 512));
	lseek(fd, 0, SEEK_SET);
	mkdir(dest, 0700);
	dir = open(dest, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(dir, 0);
	t.in_fd = fd;
	t.dir_fd = dir;
	t.top = "run";
	t.max_bytes = max;
	t.timeout_ms = 1000;
	ret = corecap_host_tar_extract(&t);
	snprintf(err, errlen, "%s", t.error);
	close(dir);
	close(fd);
	return ret;
}

START_TEST(a_stream_made_by_tar_is_written_whole)
{
	char cmd[512], path[128], err[256];
	struct corecap_host_tar t = {0};
	struct stat st;
	int fd, dir;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && mkdir -p run/kernel dest && printf '{\"status\": \"complete\"}\\n' "
		 ">run/manifest.json && head -c 100000 /dev/urandom >run/kernel/events.bin && "
		 ": >run/empty && tar --format=ustar -cf stream run",
		 scratch);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/stream", scratch);
	fd = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "%s/dest", scratch);
	dir = open(path, O_RDONLY | O_DIRECTORY);
	t.in_fd = fd;
	t.dir_fd = dir;
	t.top = "run";
	t.max_bytes = 1 << 20;
	t.timeout_ms = 1000;
	ck_assert_msg(corecap_host_tar_extract(&t) == 0, "%s", t.error);
	ck_assert_uint_eq(t.files, 3);
	ck_assert_uint_eq(t.dirs, 1);
	close(fd);
	close(dir);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && cmp run/kernel/events.bin dest/kernel/events.bin && "
		 "cmp run/manifest.json dest/manifest.json && test -f dest/empty",
		 scratch);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/dest/manifest.json", scratch);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600); /* private, whatever the stream said */
	(void)err;
}
END_TEST

/* Each hostile stream: refused with why, and nothing made outside dest. */
static void refused(const char *name, char type, size_t size, const char *why)
{
	unsigned char b[6 * 512] = {0};
	char err[256], path[128];
	struct stat st;

	header(b, "run/", '5', 0);
	header(b + 512, name, type, size);
	ck_assert_int_lt(extract(b, 6, 1 << 20, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, why), "%s: '%s' lacks '%s'", name, err, why);
	snprintf(path, sizeof(path), "%s/evil", scratch);
	ck_assert_int_eq(lstat(path, &st), -1);
}

START_TEST(hostile_members_are_refused)
{
	refused("run/link", '2', 0, "not a file or a directory");
	refused("run/hard", '1', 0, "not a file or a directory");
	refused("run/dev", '3', 0, "not a file or a directory");
	refused("././@LongLink", 'L', 0, "not a file or a directory");
	refused("run/../evil", '0', 0, "'..'");
	refused("run/./x", '0', 0, "'.'");
	refused("run//x", '0', 0, "empty");
	refused("/tmp/evil", '0', 0, "outside 'run/'");
	refused("runx/evil", '0', 0, "outside 'run/'");
	refused("run/a\x1b[2Jb", '0', 0, "control character");
	refused("run/nodir/x", '0', 0, "not a directory sent before");
	refused("run", '0', 0, "sent as a file");
}
END_TEST

START_TEST(broken_streams_are_refused)
{
	unsigned char b[8 * 512] = {0};
	char err[256];

	/* A bad checksum. */
	header(b, "run/", '5', 0);
	b[10] ^= 1;
	ck_assert_int_eq(extract(b, 4, 1 << 20, err, sizeof(err)), -EPROTO);
	ck_assert_msg(strstr(err, "checksum"), "%s", err);
	/* Not ustar (an old v7 header). */
	header(b, "run/", '5', 0);
	memset(b + 257, 0, 8);
	ck_assert_int_eq(extract(b, 4, 1 << 20, err, sizeof(err)), -EPROTO);
	ck_assert_msg(strstr(err, "ustar"), "%s", err);
	/* A file longer than the stream: it ends early. */
	header(b, "run/", '5', 0);
	header(b + 512, "run/f", '0', 4096);
	ck_assert_int_eq(extract(b, 3, 1 << 20, err, sizeof(err)), -EPIPE);
	ck_assert_msg(strstr(err, "ended early"), "%s", err);
	/* Over the bound: refused before it is read. */
	memset(b, 0, sizeof(b));
	header(b, "run/", '5', 0);
	header(b + 512, "run/big", '0', 4 * 512);
	ck_assert_int_eq(extract(b, 8, 3 * 512, err, sizeof(err)), -EFBIG);
	/* A file written twice: the second would replace the first; refused (O_EXCL). */
	memset(b, 0, sizeof(b));
	header(b, "run/", '5', 0);
	header(b + 512, "run/f", '0', 0);
	header(b + 1024, "run/f", '0', 0);
	ck_assert_int_eq(extract(b, 6, 1 << 20, err, sizeof(err)), -EPROTO);
	ck_assert_msg(strstr(err, "cannot create 'f'"), "%s", err);
}
END_TEST

START_TEST(a_symlink_planted_in_dest_is_not_followed)
{
	unsigned char b[6 * 512] = {0};
	char err[256], link[128], target[128];
	struct stat st;

	/* Something already in the destination (not ours to follow) points outside. */
	snprintf(link, sizeof(link), "%s/dest", scratch);
	mkdir(link, 0700);
	snprintf(link, sizeof(link), "%s/dest/sub", scratch);
	snprintf(target, sizeof(target), "%s/evil", scratch);
	mkdir(target, 0700);
	ck_assert_int_eq(symlink(target, link), 0);
	header(b, "run/", '5', 0);
	header(b + 512, "run/sub/x", '0', 0);
	ck_assert_int_eq(extract(b, 6, 1 << 20, err, sizeof(err)), -EPROTO);
	snprintf(target, sizeof(target), "%s/evil/x", scratch);
	ck_assert_int_eq(lstat(target, &st), -1);
}
END_TEST

START_TEST(record_opts_that_name_the_daemon_output_or_window_are_refused)
{
	static const char *const ok[] = {"--no-kernel", "--wallclock", "--kernel-via=perf",
					 "--no-trace", "-q"};
	static const char *const bad[] = {
		"-p",	  "-p1",     "--pid=3",	       "-o",	      "-o/tmp/x", "--output", "-d",
		"-d5",	  "--force", "--sync-fds=0,1", "--ceph-osds", "--hosts",  "--rsh=x",  "x",
		"--help", "-qp5"};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		ck_assert_msg(corecap_host_record_opt_ok(ok[i]), "%s refused", ok[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!corecap_host_record_opt_ok(bad[i]), "%s accepted", bad[i]);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("host_tar");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_stream_made_by_tar_is_written_whole);
	tcase_add_test(tc, hostile_members_are_refused);
	tcase_add_test(tc, broken_streams_are_refused);
	tcase_add_test(tc, a_symlink_planted_in_dest_is_not_followed);
	tcase_add_test(tc, record_opts_that_name_the_daemon_output_or_window_are_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return corecap_check_run(suite());
}
