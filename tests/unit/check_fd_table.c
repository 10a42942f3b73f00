/*
 * fd_table: log patterns match as globs; descriptors are classified at
 * open, copied by dup, forgotten by close, and anything unknown is
 * classified from the descriptor itself on first use.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <corecap/stats_layout.h>

#include "fd_table.h"

#include "check_run.h"

struct settings g_settings;
static struct fd_table t;
static struct settings s;

static void setup(void)
{
	settings_init(&s);
	s.pattern[0] = "*.log";
	s.pattern[1] = "/var/log/*";
	s.n_patterns = 2;
	s.journal_pattern[0] = "*block.wal";
	s.journal_pattern[1] = "*/journal";
	s.n_journal_patterns = 2;
	fd_table_init(&t, &s);
}

START_TEST(globs_match_like_the_shell_but_across_slashes)
{
	ck_assert(glob_match("*.log", "/var/lib/ceph/osd.0.log"));
	ck_assert(glob_match("*.log", "x.log"));
	ck_assert(!glob_match("*.log", "x.log.1"));
	ck_assert(glob_match("/var/log/*", "/var/log/ceph/ceph-osd.0.log"));
	ck_assert(!glob_match("/var/log/*", "/var/lib/x"));
	ck_assert(glob_match("osd.?.log", "osd.3.log"));
	ck_assert(!glob_match("osd.?.log", "osd.12.log"));
	ck_assert(glob_match("*", ""));
	ck_assert(glob_match("a*b*c", "axxbyyc"));
	ck_assert(!glob_match("a*b*c", "axxbyy"));
}
END_TEST

START_TEST(paths_decide_at_open)
{
	fd_table_opened(&t, 50, "/tmp/osd.log");
	ck_assert_int_eq(fd_table_class(&t, 50), CORECAP_IO_LOG);
	fd_table_forget(&t, 50);
	fd_table_set(&t, 51, CORECAP_IO_NET);
	fd_table_copy(&t, 51, 52);
	ck_assert_int_eq(fd_table_class(&t, 52), CORECAP_IO_NET);
	/* Unknown again after close; a closed number is classified "other". */
	fd_table_forget(&t, 52);
	ck_assert_int_eq(fd_table_class(&t, 9999), CORECAP_IO_OTHER);
	/* Journal patterns: BlueStore's WAL, FileStore's journal; log wins. */
	fd_table_opened(&t, 53, "/var/lib/ceph/osd/ceph-0/block.wal");
	ck_assert_int_eq(fd_table_class(&t, 53), CORECAP_IO_JOURNAL);
	fd_table_opened(&t, 54, "/srv/osd.1/journal");
	ck_assert_int_eq(fd_table_class(&t, 54), CORECAP_IO_JOURNAL);
	fd_table_opened(&t, 55, "/srv/journal.log");
	ck_assert_int_eq(fd_table_class(&t, 55), CORECAP_IO_LOG);
	ck_assert_int_eq(fd_table_path_class(&t, "/srv/osd.1/journal.bak"), -1);
	for (int fd = 53; fd <= 55; fd++)
		fd_table_forget(&t, fd);
}
END_TEST

START_TEST(unknown_descriptors_are_classified_from_what_they_are)
{
	char dir[] = "/tmp/corecap-fd-XXXXXX", path[128];
	int sv[2], pfd[2], data, log;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/data.bin", dir);
	data = open(path, O_RDWR | O_CREAT, 0600);
	unlink(path);
	snprintf(path, sizeof(path), "%s/late.log", dir);
	log = open(path, O_RDWR | O_CREAT, 0600);
	unlink(path);
	rmdir(dir);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(pipe(pfd), 0);
	ck_assert_int_eq(fd_table_class(&t, sv[0]), CORECAP_IO_NET);
	ck_assert_int_eq(fd_table_class(&t, pfd[0]), CORECAP_IO_OTHER);
	ck_assert_int_eq(fd_table_class(&t, data), CORECAP_IO_DATA);
	/* Deleted files read back as "... (deleted)": still not a log. */
	ck_assert_int_eq(fd_table_class(&t, log), CORECAP_IO_DATA);
	close(sv[0]);
	close(sv[1]);
	close(pfd[0]);
	close(pfd[1]);
	close(data);
	close(log);
}
END_TEST

/*
 * Descriptors 1 and 2 are log whatever they are, unless sockets: the same
 * pipe is "other" at its own number and log as 2; a socket as 1 is net;
 * a closed 1 is "other". The classes are read with 1 and 2 replaced, and
 * checked once they are back.
 */
START_TEST(descriptors_1_and_2_are_log_unless_sockets)
{
	int saved1 = dup(1), saved2 = dup(2), pfd[2], sv[2], pipe_cls, as2, as1, closed1;

	ck_assert_int_ge(saved1, 0);
	ck_assert_int_ge(saved2, 0);
	ck_assert_int_eq(pipe(pfd), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pipe_cls = fd_table_class(&t, pfd[1]);
	fflush(stdout);
	fflush(stderr);
	dup2(pfd[1], 2);
	fd_table_forget(&t, 2);
	as2 = fd_table_class(&t, 2);
	dup2(sv[0], 1);
	fd_table_forget(&t, 1);
	as1 = fd_table_class(&t, 1);
	close(1);
	fd_table_forget(&t, 1);
	closed1 = fd_table_class(&t, 1);
	dup2(saved1, 1);
	dup2(saved2, 2);
	close(saved1);
	close(saved2);
	close(pfd[0]);
	close(pfd[1]);
	close(sv[0]);
	close(sv[1]);
	ck_assert_int_eq(pipe_cls, CORECAP_IO_OTHER);
	ck_assert_int_eq(as2, CORECAP_IO_LOG);
	ck_assert_int_eq(as1, CORECAP_IO_NET);
	ck_assert_int_eq(closed1, CORECAP_IO_OTHER);
}
END_TEST

START_TEST(a_log_file_opened_elsewhere_is_found_by_its_path)
{
	char path[] = "/tmp/corecap-fd-XXXXXX.log";
	int fd = mkstemps(path, 4);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fd_table_class(&t, fd), CORECAP_IO_LOG);
	close(fd);
	unlink(path);
}
END_TEST

static Suite *suite(void)
{
	Suite *st = suite_create("fd_table");
	TCase *tc = tcase_create("classes");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, globs_match_like_the_shell_but_across_slashes);
	tcase_add_test(tc, paths_decide_at_open);
	tcase_add_test(tc, unknown_descriptors_are_classified_from_what_they_are);
	tcase_add_test(tc, descriptors_1_and_2_are_log_unless_sockets);
	tcase_add_test(tc, a_log_file_opened_elsewhere_is_found_by_its_path);
	suite_add_tcase(st, tc);
	return st;
}

int main(void)
{
	return corecap_check_run(suite());
}
