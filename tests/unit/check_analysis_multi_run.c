/*
 * analysis/read/multi_run.c: a run of several daemons' manifest (version
 * 3), its daemons, and RUN:PID, which names one of them; RUN:HOST and
 * RUN:HOST:PID of a run of several hosts whose host has several daemons.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/multi_run.h"

#include "check_run.h"

static char dir[64];

static void write_manifest(const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void setup(void)
{
	strcpy(dir, "/tmp/check_multi_run_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char two[] =
	"{\"format\": \"corecap-run\", \"version\": 3, \"status\": \"partial\","
	" \"partial_reason\": \"PID 20 (ceph-osd) exited at +1.0 s\","
	" \"window\": {\"start_ns\": 100, \"end_ns\": 2000000100}, \"nproc\": 2,"
	" \"daemons\": [{\"pid\": 10, \"comm\": \"ceph-osd\", \"status\": \"complete\","
	" \"ceph_osd_id\": 0, \"dir\": \"../../elsewhere\"},"
	" {\"pid\": 20, \"comm\": \"ceph-osd\", \"status\": \"partial\","
	" \"partial_reason\": \"PID 20 (ceph-osd) exited at +1.0 s\"}]}";

START_TEST(its_daemons_are_read_by_pid)
{
	struct multi_run m;
	char *err = NULL, want[128];

	write_manifest(two);
	ck_assert(corecap_multi_run_is(dir));
	ck_assert_int_eq(corecap_multi_run_open(&m, dir, &err), 0);
	ck_assert_int_eq(m.n_daemons, 2);
	ck_assert(m.manifest.partial);
	ck_assert(m.manifest.has_window);
	ck_assert_int_eq(m.daemons[0].pid, 10);
	ck_assert_int_eq(m.daemons[0].ceph_osd_id, 0);
	/* The directory comes from the PID, never from the manifest's "dir". */
	snprintf(want, sizeof(want), "%s/daemons/10", dir);
	ck_assert_str_eq(m.daemons[0].dir, want);
	ck_assert_str_eq(m.daemons[1].status, "partial");
	ck_assert_int_eq(m.daemons[1].ceph_osd_id, -1);
	ck_assert_ptr_nonnull(corecap_multi_run_daemon(&m, 20));
	ck_assert_ptr_null(corecap_multi_run_daemon(&m, 30));
	corecap_multi_run_close(&m);
}
END_TEST

START_TEST(run_colon_pid_names_one_daemon)
{
	char arg[128], *err = NULL, *path;

	write_manifest(two);
	snprintf(arg, sizeof(arg), "%s:20", dir);
	path = corecap_multi_run_resolve(arg, &err);
	ck_assert_ptr_null(err);
	ck_assert_ptr_nonnull(path);
	ck_assert_ptr_nonnull(strstr(path, "/daemons/20"));
	free(path);
	snprintf(arg, sizeof(arg), "%s:30", dir);
	ck_assert_ptr_null(corecap_multi_run_resolve(arg, &err));
	ck_assert_ptr_nonnull(err);
	ck_assert_ptr_nonnull(strstr(err, "has no daemon of PID 30"));
	free(err);
	/* A path as it is: no colon, or not a number after it. */
	ck_assert_ptr_null(corecap_multi_run_resolve(dir, &err));
	ck_assert_ptr_null(err);
	snprintf(arg, sizeof(arg), "%s:x", dir);
	ck_assert_ptr_null(corecap_multi_run_resolve(arg, &err));
	ck_assert_ptr_null(err);
}
END_TEST

START_TEST(a_single_daemon_run_is_not_one)
{
	char arg[128], *err = NULL, *got;

	write_manifest("{\"format\": \"corecap-run\", \"version\": 2, \"pid\": 10}");
	ck_assert(!corecap_multi_run_is(dir));
	/* RUN:PID of its one daemon is RUN itself (#47: one spelling for every run). */
	snprintf(arg, sizeof(arg), "%s:10", dir);
	got = corecap_multi_run_resolve(arg, &err);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, dir);
	ck_assert_ptr_null(err);
	free(got);
	/* Another PID is refused, naming the run's. */
	snprintf(arg, sizeof(arg), "%s:11", dir);
	ck_assert_ptr_null(corecap_multi_run_resolve(arg, &err));
	ck_assert_ptr_nonnull(err);
	ck_assert_ptr_nonnull(strstr(err, "is a run of one daemon, PID 10, not 11"));
	free(err);
}
END_TEST

START_TEST(daemons_without_a_pid_are_refused)
{
	struct multi_run m;
	char *err = NULL;

	write_manifest(
		"{\"format\": \"corecap-run\", \"version\": 3, \"daemons\": [{\"comm\": \"x\"}]}");
	ck_assert_int_eq(corecap_multi_run_open(&m, dir, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "daemons[0] has no pid"));
	free(err);
	corecap_multi_run_close(&m);
	write_manifest("{\"format\": \"corecap-run\", \"version\": 3}");
	ck_assert_int_eq(corecap_multi_run_open(&m, dir, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "without 'daemons'"));
	free(err);
	corecap_multi_run_close(&m);
}
END_TEST

/* Writes text as dir's file rel (its directories made). */
static void write_at(const char *rel, const char *text)
{
	char path[256], cmd[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	ck_assert_int_eq(system(cmd), 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* A run of several hosts: b has two daemons (10, 20), c one (30). */
static void write_hosts_run(void)
{
	write_at("manifest.json",
		 "{\"format\": \"corecap-run\", \"version\": 4, \"status\": \"complete\","
		 " \"hosts\": [{\"name\": \"b\", \"pids\": [10, 20], \"status\": \"complete\","
		 " \"dir\": \"hosts/b\"}, {\"name\": \"c\", \"pid\": 30, \"status\": "
		 "\"complete\", \"dir\": \"hosts/c\"}]}");
	write_at("hosts/b/manifest.json", two);
	write_at("hosts/c/manifest.json",
		 "{\"format\": \"corecap-run\", \"version\": 2, \"pid\": 30}");
}

/* Resolves arg: the path it names under dir (NULL: none), or the error holding why. */
static void resolves(const char *arg_tail, const char *path_tail, const char *why)
{
	char arg[160], want[200], *err = NULL, *got;

	snprintf(arg, sizeof(arg), "%s%s", dir, arg_tail);
	got = corecap_multi_run_resolve(arg, &err);
	if (path_tail) {
		snprintf(want, sizeof(want), "%s%s", dir, path_tail);
		ck_assert_msg(got && strcmp(got, want) == 0, "'%s': '%s', not '%s'", arg,
			      got ? got : "(null)", want);
		ck_assert_ptr_null(err);
	} else {
		ck_assert_msg(!got, "'%s' resolved to '%s'", arg, got);
		ck_assert_msg(err && strstr(err, why), "'%s': '%s' does not say '%s'", arg,
			      err ? err : "(null)", why);
	}
	free(got);
	free(err);
}

START_TEST(run_colon_host_colon_pid_names_a_hosts_daemon)
{
	struct multi_run m;
	char arg[128], want[160], *err = NULL;

	write_hosts_run();
	/* RUN:HOST of a host of several daemons is their run. */
	snprintf(arg, sizeof(arg), "%s:b", dir);
	ck_assert(corecap_multi_run_is(arg));
	ck_assert_int_eq(corecap_multi_run_open(&m, arg, &err), 0);
	ck_assert_int_eq(m.n_daemons, 2);
	snprintf(want, sizeof(want), "%s/hosts/b/daemons/20", dir);
	ck_assert_str_eq(m.daemons[1].dir, want);
	corecap_multi_run_close(&m);
	snprintf(arg, sizeof(arg), "%s:c", dir);
	ck_assert(!corecap_multi_run_is(arg));
	resolves(":b:20", "/hosts/b/daemons/20", NULL);
	resolves(":b:10", "/hosts/b/daemons/10", NULL);
	/* A host of one daemon: its PID names its run. */
	resolves(":c:30", "/hosts/c", NULL);
	resolves(":c:31", NULL, ":c' is a run of one daemon, PID 30, not 31");
	resolves(":b:30", NULL, ":b' has no daemon of PID 30");
	resolves(":z:20", NULL, "has no host 'z'");
	/* After a host, a PID and nothing else: digits, no sign, blank or leading zero. */
	static const char *const bad[] = {":b:+20", ":b:020",  ":b: 20", ":b:20 ",
					  ":b:-1",  ":b:0x14", ":b:..",	 ":b:99999999999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		resolves(bad[i], NULL, "takes a PID (decimal digits, at most 10)");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_multi_run");
	TCase *tc = tcase_create("multi_run");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, its_daemons_are_read_by_pid);
	tcase_add_test(tc, run_colon_pid_names_one_daemon);
	tcase_add_test(tc, a_single_daemon_run_is_not_one);
	tcase_add_test(tc, daemons_without_a_pid_are_refused);
	tcase_add_test(tc, run_colon_host_colon_pid_names_a_hosts_daemon);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
