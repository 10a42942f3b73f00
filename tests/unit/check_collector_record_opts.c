/* collector/record/record_opts.c: `corecap record` options. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "record/record_opts.h"

#include "check_run.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

START_TEST(pid_alone_gives_the_defaults)
{
	char *argv[] = {"record", "-p", "1234", NULL};
	struct corecap_record_opts o;

	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(argv), argv), 0);
	ck_assert_int_eq(o.pid, 1234);
	ck_assert_ptr_null(o.output);
	ck_assert(o.duration_s == 0);
	ck_assert_int_eq(o.wall_hz, 0);
	ck_assert_int_eq(o.threads_hz, 10);
	ck_assert(o.trace);
	ck_assert(!o.quiet && !o.force);
	ck_assert_int_eq(o.n_events, 0);
	ck_assert_ptr_null(o.bench_argv);
	ck_assert_str_eq(o.kernel_via, "auto");
}
END_TEST

START_TEST(kernel_via_takes_its_three_producers)
{
	static const char *const via[] = {"perf", "bpf", "auto"};

	for (size_t i = 0; i < 3; i++) {
		char *argv[] = {"record", "-p", "1", "--kernel-via", (char *)via[i], NULL};
		struct corecap_record_opts o;

		ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(argv), argv), 0);
		ck_assert_str_eq(o.kernel_via, via[i]);
	}
}
END_TEST

START_TEST(collector_cpus_takes_a_cpu_list)
{
	char *argv[] = {"record", "-p", "1", "--collector-cpus", "1,3-4", NULL};
	char *bad[] = {"record", "-p", "1", "--collector-cpus", "1-", NULL};
	struct corecap_record_opts o;

	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(argv), argv), 0);
	ck_assert_str_eq(o.collector_cpus, "1,3-4");
	ck_assert_int_eq(CPU_COUNT(&o.collector_set), 3);
	ck_assert(CPU_ISSET(4, &o.collector_set) && !CPU_ISSET(2, &o.collector_set));
	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(bad), bad), -EINVAL);
	ck_assert_str_eq(o.error, "invalid --collector-cpus: '1-' is not a CPU list (CPU numbers "
				  "and ranges A-B, comma-separated: 0,2-3)");
	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(argv) - 2, argv), 0);
	ck_assert_ptr_null(o.collector_cpus);
}
END_TEST

START_TEST(several_pids_and_ceph_osds)
{
	char *several[] = {"record", "-p", "10,20,30", NULL};
	char *osds[] = {"record", "--ceph-osds=/tmp/c/run", "--", "rados", NULL};
	char *osds_default[] = {"record", "--ceph-osds", NULL};
	char *child[] = {"record", "-p", "5", "--sync-fds", "3,4", NULL};
	struct corecap_record_opts o;

	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(several), several), 0);
	ck_assert_int_eq(o.n_pids, 3);
	ck_assert_int_eq(o.pid, 10);
	ck_assert_int_eq(o.pids[2], 30);
	ck_assert(!o.ceph_osds);
	ck_assert_int_eq(o.sync_rfd, -1);
	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(osds), osds), 0);
	ck_assert(o.ceph_osds);
	ck_assert_str_eq(o.ceph_osds_dir, "/tmp/c/run");
	ck_assert_int_eq(o.pid, 0);
	ck_assert_str_eq(o.bench_argv[0], "rados");
	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(osds_default), osds_default), 0);
	ck_assert(o.ceph_osds);
	ck_assert_ptr_null(o.ceph_osds_dir);
	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(child), child), 0);
	ck_assert_int_eq(o.sync_rfd, 3);
	ck_assert_int_eq(o.sync_wfd, 4);
}
END_TEST

START_TEST(bad_pid_lists_name_the_pid)
{
	static const struct {
		const char *args[6];
		const char *error;
	} cases[] = {
		{{"-p", "7,8,7"}, "PID 7 is given twice in '7,8,7'"},
		{{"-p", "7,,8"}, "invalid PID list '7,,8'"},
		{{"-p", "7,"}, "invalid PID list '7,'"},
		{{"-p", "7,x"}, "invalid PID 'x'"},
		{{"-p", "7", "-p", "8"}, "-p given twice"},
		{{"-p", "7,8", "--ceph-osds"}, "-p and --ceph-osds exclude each other"},
		{{"--ceph-osds", "--ceph-asok", "/a.asok"}, "no --ceph-asok"},
		{{"--ceph-osds", "--no-ceph"}, "--ceph-osds and --no-ceph exclude each other"},
		{{"-p", "7,8", "--ceph-asok", "/a.asok"}, "not with several PIDs"},
		{{"--ceph-osds="}, "empty --ceph-osds directory"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[8] = {"record"};
		int argc = 1;
		struct corecap_record_opts o;

		for (size_t k = 0; k < 6 && cases[i].args[k]; k++)
			argv[argc++] = (char *)cases[i].args[k];
		ck_assert_int_eq(corecap_record_opts_parse(&o, argc, argv), -EINVAL);
		ck_assert_msg(strstr(o.error, cases[i].error), "case %zu: '%s' lacks '%s'", i,
			      o.error, cases[i].error);
	}
}
END_TEST

START_TEST(every_option_and_the_benchmark_after_dashes)
{
	char *argv[] = {"record",
			"--pid=77",
			"-o",
			"out",
			"-d",
			"2.5",
			"--wallclock=200",
			"--no-trace",
			"--event",
			"a:*",
			"--event=b:c",
			"--threads-hz",
			"20",
			"-q",
			"--force",
			"--",
			"refbench",
			"-t",
			"8",
			"--",
			"x",
			NULL};
	struct corecap_record_opts o;

	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(argv), argv), 0);
	ck_assert_int_eq(o.pid, 77);
	ck_assert_str_eq(o.output, "out");
	ck_assert(o.duration_s == 2.5);
	ck_assert_int_eq(o.wall_hz, 200);
	ck_assert(!o.trace);
	ck_assert_int_eq(o.n_events, 2);
	ck_assert_str_eq(o.events[0], "a:*");
	ck_assert_str_eq(o.events[1], "b:c");
	ck_assert_int_eq(o.threads_hz, 20);
	ck_assert(o.quiet && o.force);
	ck_assert_ptr_nonnull(o.bench_argv);
	ck_assert_str_eq(o.bench_argv[0], "refbench");
	/* The benchmark's own options and "--" are its own. */
	ck_assert_str_eq(o.bench_argv[1], "-t");
	ck_assert_str_eq(o.bench_argv[3], "--");
	ck_assert_ptr_null(o.bench_argv[5]);
}
END_TEST

START_TEST(wallclock_without_rate_is_50_hz)
{
	char *argv[] = {"record", "--wallclock", "-p", "5", NULL};
	struct corecap_record_opts o;

	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(argv), argv), 0);
	ck_assert_int_eq(o.wall_hz, 50);
	ck_assert_int_eq(o.pid, 5);
}
END_TEST

START_TEST(wallclock_threads_keeps_its_globs_and_implies_50_hz)
{
	char *argv[] = {"record", "-p", "5", "--wallclock-threads", "tp_osd_tp,msgr-worker-*",
			NULL};
	struct corecap_record_opts o;

	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(argv), argv), 0);
	ck_assert_str_eq(o.wall_threads, "tp_osd_tp,msgr-worker-*");
	ck_assert_int_eq(o.wall_hz, 50);
}
END_TEST

START_TEST(wallclock_threads_keeps_an_explicit_rate_in_either_order)
{
	char *a[] = {"record", "-p", "5", "--wallclock=200", "--wallclock-threads=tp_*", NULL};
	char *b[] = {"record", "-p", "5", "--wallclock-threads=tp_*", "--wallclock=200", NULL};
	struct corecap_record_opts o;

	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(a), a), 0);
	ck_assert_int_eq(o.wall_hz, 200);
	ck_assert_str_eq(o.wall_threads, "tp_*");
	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(b), b), 0);
	ck_assert_int_eq(o.wall_hz, 200);
	ck_assert_str_eq(o.wall_threads, "tp_*");
}
END_TEST

START_TEST(without_wallclock_threads_every_thread_is_sampled)
{
	char *argv[] = {"record", "-p", "5", "--wallclock", NULL};
	struct corecap_record_opts o;

	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(argv), argv), 0);
	ck_assert_ptr_null(o.wall_threads);
}
END_TEST

static void expect_usage_error(char **argv, int argc, const char *needle)
{
	struct corecap_record_opts o;

	ck_assert_int_eq(corecap_record_opts_parse(&o, argc, argv), -EINVAL);
	ck_assert_msg(strstr(o.error, needle), "error '%s' lacks '%s'", o.error, needle);
}

START_TEST(bad_values_are_usage_errors_that_name_the_value)
{
	char *a1[] = {"record", NULL};
	char *a2[] = {"record", "-p", "12x", NULL};
	char *a3[] = {"record", "-p", "0", NULL};
	char *a4[] = {"record", "-p", "-5", NULL};
	char *a5[] = {"record", "-p", "1", "-d", "0", NULL};
	char *a6[] = {"record", "-p", "1", "-d", "abc", NULL};
	char *a7[] = {"record", "-p", "1", "--wallclock=0", NULL};
	char *a8[] = {"record", "-p", "1", "--wallclock=5000", NULL};
	char *a9[] = {"record", "-p", "1", "--bogus", NULL};
	char *a10[] = {"record", "-p", "1", "refbench", NULL};
	char *a11[] = {"record", "-p", "1", "--", NULL};
	char *a12[] = {"record", "-p", NULL};
	char *a13[] = {"record", "-p", "99999999999", NULL};
	char *a14[] = {"record", "-p", "1", "--wallclock-threads", "", NULL};
	char *a15[] = {"record", "-p", "1", "--wallclock-threads=,,", NULL};
	char *a16[] = {"record", "-p", "1", "--wallclock-threads", NULL};
	char *a17[] = {"record", "-p", "1", "-d", "0.005", NULL};
	char *a18[] = {"record", "-p", "1", "--kernel-via", "ebpf", NULL};

	expect_usage_error(a1, ARGC(a1), "missing -p PID");
	expect_usage_error(a2, ARGC(a2), "'12x'");
	expect_usage_error(a3, ARGC(a3), "'0'");
	expect_usage_error(a4, ARGC(a4), "'-5'");
	expect_usage_error(a5, ARGC(a5), "duration '0'");
	expect_usage_error(a6, ARGC(a6), "'abc'");
	expect_usage_error(a7, ARGC(a7), "'0'");
	expect_usage_error(a8, ARGC(a8), "'5000'");
	expect_usage_error(a9, ARGC(a9), "--bogus");
	expect_usage_error(a10, ARGC(a10), "after '--'");
	expect_usage_error(a11, ARGC(a11), "no benchmark");
	expect_usage_error(a12, ARGC(a12), "needs an argument");
	expect_usage_error(a13, ARGC(a13), "99999999999");
	expect_usage_error(a14, ARGC(a14), "--wallclock-threads ''");
	expect_usage_error(a15, ARGC(a15), "--wallclock-threads ',,'");
	expect_usage_error(a16, ARGC(a16), "needs an argument");
	/* Below the bound a profiled daemon's two toggles would come too close. */
	expect_usage_error(a17, ARGC(a17), "duration '0.005' (seconds, at least 0.1");
	expect_usage_error(a18, ARGC(a18), "--kernel-via takes perf, bpf or auto, not 'ebpf'");
}
END_TEST

START_TEST(help_is_not_an_error)
{
	char *argv[] = {"record", "--help", NULL};
	struct corecap_record_opts o;

	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(argv), argv), 1);
}
END_TEST

START_TEST(parsing_twice_starts_afresh)
{
	char *a[] = {"record", "-p", "3", "-q", NULL};
	char *b[] = {"record", "-p", "4", NULL};
	struct corecap_record_opts o;

	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(a), a), 0);
	ck_assert_int_eq(corecap_record_opts_parse(&o, ARGC(b), b), 0);
	ck_assert_int_eq(o.pid, 4);
	ck_assert(!o.quiet);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/record_opts");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, pid_alone_gives_the_defaults);
	tcase_add_test(tc, every_option_and_the_benchmark_after_dashes);
	tcase_add_test(tc, wallclock_without_rate_is_50_hz);
	tcase_add_test(tc, wallclock_threads_keeps_its_globs_and_implies_50_hz);
	tcase_add_test(tc, wallclock_threads_keeps_an_explicit_rate_in_either_order);
	tcase_add_test(tc, without_wallclock_threads_every_thread_is_sampled);
	tcase_add_test(tc, bad_values_are_usage_errors_that_name_the_value);
	tcase_add_test(tc, help_is_not_an_error);
	tcase_add_test(tc, parsing_twice_starts_afresh);
	tcase_add_test(tc, several_pids_and_ceph_osds);
	tcase_add_test(tc, kernel_via_takes_its_three_producers);
	tcase_add_test(tc, collector_cpus_takes_a_cpu_list);
	tcase_add_test(tc, bad_pid_lists_name_the_pid);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
