/*
 * analysis/read/manifest.c: manifest.json of run format version 1, and the
 * errors that name the file.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/manifest.h"

#include "check_run.h"

static char path[64];
static struct run_manifest mf;
static char *err;

static void setup(void)
{
	int fd;

	strcpy(path, "/tmp/check_manifest_XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	corecap_manifest_init(&mf);
	err = NULL;
}

static void teardown(void)
{
	corecap_manifest_release(&mf);
	free(err);
	unlink(path);
}

static int load(const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	/* A test may load twice: the first load's manifest and error go. */
	corecap_manifest_release(&mf);
	corecap_manifest_init(&mf);
	free(err);
	err = NULL;
	return corecap_manifest_load(&mf, path, &err);
}

START_TEST(a_complete_manifest_gives_every_field)
{
	ck_assert_int_eq(
		load("{\"format\": \"corecap-run\", \"version\": 1, \"status\": \"complete\","
		     " \"pid\": 1234, \"comm\": \"refosd\", \"nproc\": 2, \"some_new_key\": [1],"
		     " \"collector\": {\"pid\": 4321, \"cpu_user_s\": 0.5},"
		     " \"window\": {\"start_ns\": 1000, \"end_ns\": 5000},"
		     " \"sources\": {\"trace\": true, \"threads\": true, \"stats\": false},"
		     " \"lttng\": {\"discarded_events\": 3, \"lost_packets\": 0},"
		     " \"benchmark\": {\"command\": [\"refbench\", \"-t\", \"16\"], "
		     "\"exit_status\": 0,"
		     " \"summary\": {\"iops_avg\": 2000, \"lat_avg_s\": 0.008}}}"),
		0);
	ck_assert_int_eq(mf.pid, 1234);
	ck_assert_int_eq(mf.collector_pid, 4321);
	ck_assert_str_eq(mf.comm, "refosd");
	ck_assert_int_eq(mf.nproc, 2);
	ck_assert(!mf.partial);
	ck_assert(mf.has_window);
	ck_assert_uint_eq(mf.window_start_ns, 1000);
	ck_assert_uint_eq(mf.window_end_ns, 5000);
	ck_assert(mf.src_trace && mf.src_threads && !mf.src_stats);
	ck_assert_uint_eq(mf.lttng_discarded_events, 3);
	ck_assert(mf.bench.has_iops && mf.bench.iops_avg == 2000);
	ck_assert(mf.bench.has_lat && mf.bench.lat_avg_s == 0.008);
	ck_assert(!mf.bench.has_p99);
	ck_assert_int_eq(mf.bench_exit_status, 0);
}
END_TEST

START_TEST(a_partial_run_says_why)
{
	ck_assert_int_eq(load("{\"version\": 1, \"status\": \"partial\","
			      " \"partial_reason\": \"daemon exited at +3.2 s\"}"),
			 0);
	ck_assert(mf.partial);
	ck_assert_str_eq(mf.partial_reason, "daemon exited at +3.2 s");
	ck_assert(!mf.has_window);
	ck_assert_int_eq(mf.pid, -1);
}
END_TEST

START_TEST(another_version_is_refused_naming_the_file)
{
	ck_assert_int_eq(load("{\"format\": \"corecap-run\", \"version\": 5}"), -EPROTONOSUPPORT);
	ck_assert_ptr_nonnull(strstr(err, path));
	ck_assert_ptr_nonnull(strstr(err, "unsupported run format version 5"));
	/* Version 4 is a run of several hosts: refused, naming the way to one. */
	ck_assert_int_eq(
		load("{\"format\": \"corecap-run\", \"version\": 4, \"hosts\": [{}, {}]}"),
		-EPROTONOSUPPORT);
	ck_assert_ptr_nonnull(strstr(err, "a run of 2 hosts (format version 4): name one host's "
					  "run, RUN/hosts/NAME"));
	/* Version 3 is a run of several daemons: refused, naming the way to one. */
	ck_assert_int_eq(
		load("{\"format\": \"corecap-run\", \"version\": 3, \"daemons\": [{}, {}]}"),
		-EPROTONOSUPPORT);
	ck_assert_ptr_nonnull(
		strstr(err, "a run of 2 daemons (format version 3): name one as RUN:PID"));
	ck_assert_int_eq(load("{\"format\": \"corecap-run\", \"version\": 1.5}"), -EPROTONOSUPPORT);
	/* Beyond int's range (fuzz.manifest: UBSan flagged the cast). */
	ck_assert_int_eq(load("{\"format\": \"corecap-run\", \"version\": 7777777771}"),
			 -EPROTONOSUPPORT);
}
END_TEST

START_TEST(an_empty_window_is_refused)
{
	ck_assert_int_eq(load("{\"version\": 1, \"window\": {\"start_ns\": 5, \"end_ns\": 5}}"),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "empty measurement window"));
}
END_TEST

START_TEST(text_that_is_not_json_is_refused)
{
	ck_assert_int_eq(load("{\"version\": 1, \"window\": {"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, path));
	ck_assert_ptr_nonnull(strstr(err, "cannot parse"));
}
END_TEST

START_TEST(a_missing_file_is_enoent_without_error_text)
{
	unlink(path);
	ck_assert_int_eq(corecap_manifest_load(&mf, path, &err), -ENOENT);
	ck_assert_ptr_null(err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_manifest");
	TCase *tc = tcase_create("manifest");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_complete_manifest_gives_every_field);
	tcase_add_test(tc, a_partial_run_says_why);
	tcase_add_test(tc, another_version_is_refused_naming_the_file);
	tcase_add_test(tc, an_empty_window_is_refused);
	tcase_add_test(tc, text_that_is_not_json_is_refused);
	tcase_add_test(tc, a_missing_file_is_enoent_without_error_text);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
