/*
 * collector/hosts/host_spec.c: the hosts file of record --hosts (its fields
 * checked, each bad line named), read with a bound from a regular file
 * only, and the remote shell's words.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hosts/host_spec.h"

#include "check_run.h"

START_TEST(hosts_files_parse_and_bad_ones_name_their_line)
{
	struct corecap_host_spec spec;

	ck_assert_int_eq(corecap_host_spec_parse(&spec,
						 "# name reach daemons\n"
						 "b 10.0.0.2 pid=1234\n"
						 "\n"
						 "c  root@osd-c\tcomm=ceph-osd  # the OSD\n"),
			 0);
	ck_assert_uint_eq(spec.n, 2);
	ck_assert_str_eq(spec.hosts[0].name, "b");
	ck_assert_str_eq(spec.hosts[0].reach, "10.0.0.2");
	ck_assert_uint_eq(spec.hosts[0].n_pids, 1);
	ck_assert_int_eq(spec.hosts[0].pids[0], 1234);
	ck_assert_str_eq(spec.hosts[1].reach, "root@osd-c");
	ck_assert_str_eq(spec.hosts[1].comm, "ceph-osd");
	/* Several daemons on a host: its PIDs, or its Ceph OSDs found there. */
	ck_assert_int_eq(corecap_host_spec_parse(&spec, "b x pid=12,34,5\n"
							"c y ceph-osds\n"
							"d z ceph-osds=/var/run/ceph-1.x\n"),
			 0);
	ck_assert_uint_eq(spec.hosts[0].n_pids, 3);
	ck_assert_int_eq(spec.hosts[0].pids[2], 5);
	{
		char buf[32];

		ck_assert_int_eq(corecap_host_pids_arg(&spec.hosts[0], buf, sizeof(buf)), 0);
		ck_assert_str_eq(buf, "12,34,5");
		ck_assert_int_eq(corecap_host_pids_arg(&spec.hosts[0], buf, 6), -ENOSPC);
	}
	ck_assert(spec.hosts[1].ceph_osds);
	ck_assert_str_eq(spec.hosts[1].ceph_osds_dir, "");
	ck_assert_uint_eq(spec.hosts[1].n_pids, 0);
	ck_assert(spec.hosts[2].ceph_osds);
	ck_assert_str_eq(spec.hosts[2].ceph_osds_dir, "/var/run/ceph-1.x");
	static const struct {
		const char *text, *why;
	} bad[] = {
		{"", "no host"},
		{"b x\n", "line 1: expected NAME REACH DAEMONS"},
		{"b x pid=1\nb y pid=2\n", "line 2: host named twice"},
		{"../b x pid=1\n", "bad host name"},
		{".b x pid=1\n", "bad host name"},
		{"b -oProxyCommand=x pid=1\n", "bad destination"},
		{"b x pid=0\n", "expected pid=N"},
		{"b x pid=1x\n", "expected pid=N"},
		{"b x pid=1,\n", "expected pid=N"},
		{"b x pid=1,2,1\n", "a PID named twice"},
		{"b x pid=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17\n", "more than 16 daemons"},
		{"b x comm=a/b\n", "expected pid=N[,N...], comm=NAME or ceph-osds[=DIR]"},
		{"b x ceph-osds=rel/dir\n", "ceph-osds=DIR: an absolute path"},
		{"b x ceph-osds=/a/../b\n", "ceph-osds=DIR"},
		{"b x ceph-osds=/a;rm\n", "ceph-osds=DIR"},
		{"b x ceph-osds=\n", "ceph-osds=DIR"},
		{"b x ceph-osdsX\n", "expected pid=N"},
		{"b x comm=0123456789abcdef\n", "expected pid=N"},
		{"b x pid=1 extra\n", "more than NAME REACH DAEMONS"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(corecap_host_spec_parse(&spec, bad[i].text), -EINVAL);
		ck_assert_msg(strstr(spec.error, bad[i].why), "'%s': '%s'", bad[i].text,
			      spec.error);
	}
}
END_TEST

START_TEST(rsh_words_then_the_destination_then_the_command)
{
	const char *const cmd[] = {"corecap", "clock-serve", NULL};
	char *words[8], *copy = NULL;

	ck_assert_int_eq(corecap_rsh_argv("ssh  -p 2222", "host", cmd, &copy, words, 8), 0);
	ck_assert_str_eq(words[0], "ssh");
	ck_assert_str_eq(words[1], "-p");
	ck_assert_str_eq(words[2], "2222");
	ck_assert_str_eq(words[3], "host");
	ck_assert_str_eq(words[4], "corecap");
	ck_assert_str_eq(words[5], "clock-serve");
	ck_assert_ptr_null(words[6]);
	free(copy);
	ck_assert_int_eq(corecap_rsh_argv(" ", "host", cmd, &copy, words, 8), -EINVAL);
	free(copy);
	ck_assert_int_eq(corecap_rsh_argv("a b c d e f", "host", cmd, &copy, words, 8), -EINVAL);
	free(copy);
}
END_TEST

START_TEST(the_file_is_read_with_a_bound_and_only_if_regular)
{
	char dir[] = "/tmp/check-host-spec.XXXXXX", path[64], fifo[64];
	struct corecap_host_spec spec;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/hosts", dir);
	f = fopen(path, "w");
	fprintf(f, "b osd-b pid=42\n");
	fclose(f);
	ck_assert_int_eq(corecap_host_spec_load(&spec, path), 0);
	ck_assert_str_eq(spec.hosts[0].reach, "osd-b");
	/* Over 64 KiB (comments count): refused before it is parsed. */
	f = fopen(path, "a");
	for (int i = 0; i < 70 * 1024 / 16; i++)
		fprintf(f, "# padding......\n");
	fclose(f);
	ck_assert_int_eq(corecap_host_spec_load(&spec, path), -EFBIG);
	ck_assert_str_eq(spec.error, "over 64 KiB");
	/* A NUL byte: not a text file. */
	f = fopen(path, "w");
	fwrite("b x pid=1\n\0c y pid=2\n", 1, 21, f);
	fclose(f);
	ck_assert_int_eq(corecap_host_spec_load(&spec, path), -EINVAL);
	ck_assert_msg(strstr(spec.error, "NUL"), "%s", spec.error);
	/* A FIFO: refused at once, never waited on. */
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(corecap_host_spec_load(&spec, fifo), -EINVAL);
	ck_assert_str_eq(spec.error, "not a regular file");
	ck_assert_int_eq(corecap_host_spec_load(&spec, dir), -EINVAL);
	snprintf(path, sizeof(path), "%s/none", dir);
	ck_assert_int_eq(corecap_host_spec_load(&spec, path), -ENOENT);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("host_spec");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, hosts_files_parse_and_bad_ones_name_their_line);
	tcase_add_test(tc, rsh_words_then_the_destination_then_the_command);
	tcase_add_test(tc, the_file_is_read_with_a_bound_and_only_if_regular);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return corecap_check_run(suite());
}
