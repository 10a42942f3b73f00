/*
 * analysis/read/hosts_run.c: a run of several hosts' manifest (version
 * 4): its hosts, their clocks, and the directories that come from the
 * names alone, with names that would leave RUN/hosts/ refused.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/hosts_run.h"

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
	strcpy(dir, "/tmp/check_hosts_run_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

#define HEAD                                                                                       \
	"{\"format\": \"corecap-run\", \"version\": 4, \"status\": \"complete\", "                 \
	"\"window\": {\"start_ns\": 100, \"end_ns\": 3000000100}, "

START_TEST(its_hosts_and_clocks_are_read)
{
	struct hosts_run m;
	char *err = NULL, want[128];

	write_manifest(HEAD "\"hosts\": [{\"name\": \"b\", \"reach\": \"osd-b\", \"pid\": 42,"
			    " \"status\": \"complete\", \"dir\": \"../../etc\", \"clock\": {"
			    "\"start\": {\"offset_ns\": 37499999517, \"bound_ns\": 3415},"
			    " \"end\": {\"offset_ns\": -5, \"bound_ns\": 9},"
			    " \"drift_ppm\": 0.5, \"drift_bound_ppm\": 2.2}},"
			    " {\"name\": \"gone\", \"reach\": \"x\", \"comm\": \"refosd\","
			    " \"status\": \"failed\", \"partial_reason\": \"unreachable\"}]}");
	ck_assert(corecap_hosts_run_is(dir));
	ck_assert_int_eq(corecap_hosts_run_open(&m, dir, &err), 0);
	ck_assert_int_eq(m.n_hosts, 2);
	ck_assert_str_eq(m.hosts[0].name, "b");
	ck_assert_int_eq(m.hosts[0].pid, 42);
	ck_assert(m.hosts[0].start.valid);
	ck_assert_int_eq(m.hosts[0].start.offset_ns, 37499999517);
	ck_assert_int_eq(m.hosts[0].start.bound_ns, 3415);
	ck_assert_int_eq(m.hosts[0].end.offset_ns, -5);
	ck_assert(m.hosts[0].has_drift);
	/* The directory comes from the name, never from the manifest's "dir". */
	snprintf(want, sizeof(want), "%s/hosts/b", dir);
	ck_assert_str_eq(m.hosts[0].dir, want);
	/* A host that sent no run has none. */
	ck_assert_ptr_null(m.hosts[1].dir);
	ck_assert_str_eq(m.hosts[1].comm, "refosd");
	ck_assert_str_eq(m.hosts[1].partial_reason, "unreachable");
	ck_assert(!m.hosts[1].start.valid);
	corecap_hosts_run_close(&m);
}
END_TEST

/* Names that would make a path out of RUN/hosts/, or two sections of one host. */
START_TEST(names_that_leave_the_run_are_refused)
{
	static const char *const bad[] = {
		"\"..\"",
		"\".\"",
		"\"a/b\"",
		"\"\"",
		"\"x\\u0000y\"",
		"\"../x\"",
		"7",
		"\"abcdefghijabcdefghijabcdefghijabc\"", /* 33 bytes */
	};
	struct hosts_run m;
	char *err = NULL, text[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text),
			 HEAD
			 "\"hosts\": [{\"name\": %s, \"status\": \"complete\", \"dir\": \"x\"}]}",
			 bad[i]);
		write_manifest(text);
		ck_assert_msg(corecap_hosts_run_open(&m, dir, &err) == -EINVAL, "name %s", bad[i]);
		ck_assert_ptr_nonnull(strstr(err, "hosts[0] has no name"));
		free(err);
		err = NULL;
		corecap_hosts_run_close(&m);
	}
	write_manifest(HEAD "\"hosts\": [{\"name\": \"b\"}, {\"name\": \"b\"}]}");
	ck_assert_int_eq(corecap_hosts_run_open(&m, dir, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "host 'b' twice"));
	free(err);
	corecap_hosts_run_close(&m);
}
END_TEST

START_TEST(other_versions_and_no_hosts_are_refused)
{
	struct hosts_run m;
	char *err = NULL;

	write_manifest(HEAD "\"hosts\": []}");
	ck_assert_int_eq(corecap_hosts_run_open(&m, dir, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "without 'hosts'"));
	free(err);
	corecap_hosts_run_close(&m);
	write_manifest(
		"{\"format\": \"corecap-run\", \"version\": 3, \"daemons\": [{\"pid\": 1}]}");
	ck_assert(!corecap_hosts_run_is(dir));
	ck_assert_int_eq(corecap_hosts_run_open(&m, dir, &err), -EPROTONOSUPPORT);
	free(err);
	corecap_hosts_run_close(&m);
	/* Clocks out of range are not clocks. */
	write_manifest(HEAD "\"hosts\": [{\"name\": \"b\", \"clock\": {\"start\":"
			    " {\"offset_ns\": 1e300, \"bound_ns\": 1}, \"end\":"
			    " {\"offset_ns\": 1, \"bound_ns\": -1}}}]}");
	ck_assert_int_eq(corecap_hosts_run_open(&m, dir, &err), 0);
	ck_assert(!m.hosts[0].start.valid);
	ck_assert(!m.hosts[0].end.valid);
	ck_assert_str_eq(m.hosts[0].status, "failed");
	corecap_hosts_run_close(&m);
}
END_TEST

/*
 * A host's clock as a map (corecap_hosts_align): 37.5 s ahead at 1 s,
 * 300 ns more at 4 s (0.1 ppm); each aligned time within the larger
 * bound between the estimates, the drift's bound (7000 ns over 3 s)
 * beyond; a drift no clock has, and an estimate alone, give none.
 */
START_TEST(a_hosts_clock_maps_its_times)
{
	struct hosts_run m;
	struct hosts_align a;
	char *err = NULL;

	write_manifest(
		HEAD "\"hosts\": [{\"name\": \"b\", \"status\": \"complete\", \"clock\": {"
		     "\"start\": {\"offset_ns\": 37500000000, \"bound_ns\": 3000, \"at_ns\": "
		     "1000000000},"
		     " \"end\": {\"offset_ns\": 37500000300, \"bound_ns\": 4000, \"at_ns\": "
		     "4000000000}}},"
		     " {\"name\": \"c\", \"status\": \"complete\", \"clock\": {"
		     "\"start\": {\"offset_ns\": -5, \"bound_ns\": 9, \"at_ns\": 1000000000},"
		     " \"end\": {\"offset_ns\": 3000000, \"bound_ns\": 9, \"at_ns\": 1000000001}}},"
		     " {\"name\": \"d\", \"status\": \"complete\", \"clock\": {"
		     "\"start\": {\"offset_ns\": -12250000000, \"bound_ns\": 50}}},"
		     " {\"name\": \"e\", \"status\": \"failed\"}]}");
	ck_assert_int_eq(corecap_hosts_run_open(&m, dir, &err), 0);
	ck_assert_uint_eq(m.n_hosts, 4);
	corecap_hosts_align_init(&a, &m.hosts[0]);
	ck_assert(a.valid && a.has_drift);
	ck_assert_double_eq_tol(a.drift * 1e6, 0.1, 1e-9);
	/* At 2.5 s the offset is 37.5 s + 150 ns: both ways, to the ns. */
	ck_assert_int_eq(corecap_hosts_align_to_rec(&a, 40000000150ull), 2500000000);
	ck_assert_int_eq(corecap_hosts_align_to_host(&a, 2500000000), 40000000150);
	ck_assert_int_eq(corecap_hosts_align_to_rec(&a, 38500000000ull), 1000000000);
	ck_assert_uint_eq(corecap_hosts_align_bound(&a, 2500000000), 4000);
	/* 1 s past either estimate: 1 s of the drift's bound more. */
	ck_assert_uint_eq(corecap_hosts_align_bound(&a, 5000000000), 4000 + 2334);
	ck_assert_uint_eq(corecap_hosts_align_bound(&a, 0), 4000 + 2334);
	/* 3 ms in 1 ns: a damaged manifest's, no drift. */
	corecap_hosts_align_init(&a, &m.hosts[1]);
	ck_assert(a.valid && !a.has_drift);
	ck_assert_int_eq(corecap_hosts_align_to_rec(&a, 1000000000 - 5), 1000000000);
	ck_assert_uint_eq(corecap_hosts_align_bound(&a, 0), 9);
	corecap_hosts_align_init(&a, &m.hosts[2]);
	ck_assert(a.valid && !a.has_drift && a.drift == 0);
	ck_assert_int_eq(corecap_hosts_align_to_rec(&a, 7750000000ull), 20000000000);
	ck_assert_int_eq(corecap_hosts_align_to_host(&a, 20000000000), 7750000000);
	corecap_hosts_align_init(&a, &m.hosts[3]);
	ck_assert(!a.valid);
	corecap_hosts_run_close(&m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_hosts_run");
	TCase *tc = tcase_create("hosts_run");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, its_hosts_and_clocks_are_read);
	tcase_add_test(tc, names_that_leave_the_run_are_refused);
	tcase_add_test(tc, other_versions_and_no_hosts_are_refused);
	tcase_add_test(tc, a_hosts_clock_maps_its_times);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
