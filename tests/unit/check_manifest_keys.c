/*
 * corecap/manifest_keys.h between its writer and its reader: manifests
 * written by the collector's writer (collector/record/manifest.c) with
 * every source on, then read back by the analysis' reader
 * (analysis/read/manifest.c, read/multi_run.c). Every key path written is
 * one of the list's, every key of the list is written by one of the
 * manifests (the hosts[] and relayd keys aside: host_record.c writes
 * them, e2e.hosts_record and e2e.hosts_relayd_reuse check them), a single
 * daemon's keys come in the list's order, and every value the reader takes
 * is the one written: a name spelled apart on one side would leave a key
 * unwritten or a field unread here.
 */
#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <corecap/manifest_keys.h>
#include <corecap/run_format.h>

#include "kernel/kernel_events.h"
#include "record/manifest.h"
#include "sources/cpu_profile.h"
#include "sources/device_window.h"
#include "sources/lttng_session.h"
#include "sources/maps_buildid.h"
#include "sources/proc_sampler.h"
#include "sources/stats_snapshot.h"
#include "sources/target.h"
#include "sources/wall_sampler.h"
#include "record/stop_watchdog.h"
#include "util/run_dir.h"
#include "workload/bench_runner.h"

#include "read/manifest.h"
#include "read/multi_run.h"

#include "check_run.h"

static char base[256];
/* Key paths written by any manifest of the suite (indexed by enum corecap_manifest_key). */
static bool written[CORECAP_MK_COUNT];

static void setup(void)
{
	snprintf(base, sizeof(base), "/tmp/check-manifest-keys.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
}

static void teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	ck_assert_int_eq(system(cmd), 0);
}

/*
 * Every key under o (at path prefix) in the list, or an open object's
 * figure; marks it written. in_order: each object's keys in the list's order.
 */
static void walk(json_object *o, const char *prefix, bool in_order)
{
	enum corecap_manifest_key last = CORECAP_MK_ROOT;
	char path[256];

	if (json_object_is_type(o, json_type_array)) {
		snprintf(path, sizeof(path), "%s[]", prefix);
		for (size_t i = 0; i < json_object_array_length(o); i++)
			walk(json_object_array_get_idx(o, i), path, in_order);
		return;
	}
	if (!json_object_is_type(o, json_type_object))
		return;
	json_object_object_foreach(o, name, v)
	{
		enum corecap_manifest_key k;

		snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", name);
		k = corecap_manifest_key_of_path(path);
		if (k == CORECAP_MK_ROOT) {
			size_t n;

			/* Not listed: only a benchmark's percentile in the open summary. */
			ck_assert_msg(corecap_manifest_key_open_ok(name) &&
					      (corecap_manifest_keys(
						       &n)[corecap_manifest_key_of_path(prefix)]
						       .flags &
					       CORECAP_MK_F_OPEN),
				      "manifest key '%s' is not in corecap/manifest_keys.h", path);
			continue;
		}
		ck_assert_msg(!in_order || k > last,
			      "manifest key '%s' written out of the list's order", path);
		last = k;
		written[k] = true;
		if (v)
			walk(v, path, in_order);
	}
}

/* Writes m into a fresh run BASE/name (its path into dir) and walks its keys. */
static void write_manifest(const struct corecap_manifest *m, const char *name, char *dir,
			   size_t size, bool in_order)
{
	struct corecap_run_dir rd;
	char path[600];
	json_object *root;

	snprintf(dir, size, "%s/%s", base, name);
	ck_assert_int_eq(corecap_run_dir_create(&rd, dir, false), 0);
	ck_assert_int_eq(corecap_manifest_write(m, &rd), 0);
	corecap_run_dir_release(&rd);
	snprintf(path, sizeof(path), "%s/" CORECAP_RUN_MANIFEST, dir);
	root = json_object_from_file(path);
	ck_assert_msg(root != NULL, "cannot parse '%s'", path);
	walk(root, "", in_order);
	json_object_put(root);
}

/* Reads dir's manifest back through the analysis' reader, which warns of nothing. */
static void read_back(const char *dir, struct run_manifest *r)
{
	char path[600], *err = NULL;

	snprintf(path, sizeof(path), "%s/" CORECAP_RUN_MANIFEST, dir);
	corecap_manifest_init(r);
	ck_assert_msg(corecap_manifest_load(r, path, &err) == 0, "%s", err ? err : "");
	free(err);
	for (size_t i = 0; i < r->n_warnings; i++)
		ck_abort_msg("the reader warned: %s", r->warnings[i]);
}

/* The sources of a single daemon's run, every one on, each value distinct. */
struct sources {
	struct corecap_target target;
	struct corecap_lttng_session lttng;
	struct corecap_proc_sampler threads;
	struct corecap_wall_sampler wall;
	struct corecap_stats_snapshot stats;
	struct corecap_cpu_profile cpu_prof;
	struct corecap_maps_buildid maps;
	struct corecap_bench_runner bench;
	struct corecap_kernel_events kernel;
	uint64_t lost_per_cpu[2];
	struct corecap_bench_summary summary;
	struct corecap_watchdog_page watchdog;
	struct corecap_device_window devices;
	char cmdline[32];
	char *record_argv[4], *bench_argv[4];
};

static const char *const tp_names[CORECAP_KTP_N] = {
	"sched:sched_switch",	   "sched:sched_waking",       "syscalls:sys_enter_futex",
	"syscalls:sys_exit_futex", "sched:sched_process_fork", "sched:sched_process_exit",
};

static void fill(struct sources *s, struct corecap_manifest *m)
{
	static const char cmdline[] = "refosd\0--port\0000";
	size_t n;
	const struct corecap_manifest_key_def *keys = corecap_manifest_keys(&n);
	struct corecap_window_device *d;

	memset(s, 0, sizeof(*s));
	s->target.pid = getpid(); /* the writer reads its affinity */
	s->target.uid = 1234;
	snprintf(s->target.comm, sizeof(s->target.comm), "refosd");
	snprintf(s->target.exe, sizeof(s->target.exe), "/opt/refosd");
	memcpy(s->cmdline, cmdline, sizeof(cmdline));
	s->target.cmdline = s->cmdline;
	s->target.cmdline_len = sizeof(cmdline) - 1;

	snprintf(s->lttng.name, sizeof(s->lttng.name), "corecap-test");
	s->lttng.counts_known = true;
	s->lttng.target_registered = true;
	s->lttng.target_has_probes = true;
	s->lttng.discarded_events = 7;
	s->lttng.lost_packets = 3;
	s->lttng.n_events = 1;
	s->lttng.events[0] = (char *)"corecap_op:*";

	s->threads.rounds = 51;
	s->threads.rows = 918;
	s->threads.have_schedstat = true;

	s->wall.hz = 50;
	s->wall.names = "tp_osd*";
	s->wall.stats = (struct corecap_wall_stats){.rounds = 250,
						    .samples = 4500,
						    .due = 4600,
						    .skipped = 40,
						    .rationed = 30,
						    .abandoned = 20,
						    .skipped_round_max = 3,
						    .missed = 2,
						    .late_rounds = 5,
						    .lost_rounds = 6,
						    .slow_stops = 1,
						    .unwind_errors = 4,
						    .signals = 8,
						    .long_stops = 9,
						    .max_threads = 18,
						    .coverage = {.threads_counted = 17,
								 .threads_starved = 1,
								 .thread_samples_min = 200,
								 .thread_samples_max = 250,
								 .thread_coverage_min_pm = 800,
								 .thread_coverage_max_pm = 1000},
						    .thread_stop_ns_max = 30000000,
						    .hold_ns_max = 2000000,
						    .stop_ns_median = 60000,
						    .stop_ns_p99 = 900000,
						    .stop_ns_max = 3000000};

	s->stats.present = true;
	snprintf(s->stats.path, sizeof(s->stats.path), "/proc/1/fd/9");
	s->stats.bytes = 2297856;
	s->stats.copies = 2;

	s->cpu_prof.available = true;
	s->cpu_prof.signal = 12;
	snprintf(s->cpu_prof.base, sizeof(s->cpu_prof.base), "/tmp/prof");
	s->cpu_prof.bytes = 19192;

	s->maps = (struct corecap_maps_buildid){.n_files = 10, .n_ids = 8, .vdso_bytes = 8192};

	s->bench.exited = true;
	s->bench.status = 0; /* exited 0 */
	s->bench.bytes = 1077;

	s->kernel.nr_cpus = 2;
	for (int i = 0; i < CORECAP_KTP_N; i++) {
		snprintf(s->kernel.fmt[i].name, sizeof(s->kernel.fmt[i].name), "%s", tp_names[i]);
		s->kernel.stats.records[i] = 100 + (uint64_t)i;
	}
	s->kernel.ring_bytes = 8388608;
	s->kernel.stats.track = 18;
	s->kernel.stats.holders = 6;
	s->kernel.stats.lost_total = 5;
	s->lost_per_cpu[0] = 2;
	s->lost_per_cpu[1] = 3;
	s->kernel.stats.lost_per_cpu = s->lost_per_cpu;
	s->kernel.stats.events_bytes = 9400000;
	s->kernel.stats.stacks_bytes = 310000;
	s->kernel.stats.raw_bytes = 33000000;

	/* Every figure of the benchmark's summary the list names, in its order. */
	corecap_bench_summary_init(&s->summary);
	s->summary.parser = "rados";
	for (size_t k = 1; k < n; k++)
		if (keys[k].parent == CORECAP_MK_BENCHMARK_SUMMARY)
			ck_assert_int_eq(corecap_bench_summary_set(&s->summary, keys[k].name,
								   (double)k / 4, false),
					 0);
	/* And a percentile it does not name (the open summary). */
	ck_assert_int_eq(corecap_bench_summary_set(&s->summary, "lat_p9999_s", 0.5, false), 0);

	s->watchdog.continued = 2;
	s->watchdog.held_ns_max = 1500;

	s->devices.n = 1;
	d = &s->devices.dev[0];
	d->id = (struct corecap_disk_id){.major = 7, .minor = 3, .name = "loop3"};
	d->has_disk[0] = d->has_disk[1] = true;
	d->disk[1] = (struct corecap_disk_counts){
		.ios = {2, 819}, .sectors = {6, 10098}, .io_ticks_ms = 400, .queue_ms = 997};
	d->has_limit[0] = d->has_limit[1] = true;
	d->limit[0].file = "io.max";
	snprintf(d->limit[0].cgroup, sizeof(d->limit[0].cgroup), "/osd.slice");
	d->limit[0].iops[0] = 100;
	d->limit[0].iops[1] = 200;
	d->limit[0].bps[0] = 1000;
	d->limit[0].bps[1] = 2000;
	d->limit[0].has_counts = d->limit[1].has_counts = true;
	d->limit[1].ios[1] = 809;
	d->limit[1].bytes[1] = 3231744;

	s->record_argv[0] = (char *)"record";
	s->record_argv[1] = (char *)"-p";
	s->record_argv[2] = (char *)"1";
	s->bench_argv[0] = (char *)"refbench";
	s->bench_argv[1] = (char *)"write";

	*m = (struct corecap_manifest){
		.complete = true,
		.start_ns = 1000000000,
		.end_ns = 6010000000,
		.start_realtime = {.tv_sec = 1796500000},
		.realtime_offset_ns = 1796500000123456789LL,
		.record_argv = s->record_argv,
		.record_argc = 3,
		.threads_hz = 10,
		.target = &s->target,
		.lttng = &s->lttng,
		.threads = &s->threads,
		.wall = &s->wall,
		.stats = &s->stats,
		.cpu_prof = &s->cpu_prof,
		.maps = &s->maps,
		.bench = &s->bench,
		.kernel = &s->kernel,
		.bench_argv = s->bench_argv,
		.summary = &s->summary,
		.watchdog = &s->watchdog,
		.machine_busy_s = 7.5,
		.machine_steal_s = 0.25,
		.bench_cpu_s = 1.25,
		.wake_ns = 6900.5,
		.devices = &s->devices,
	};
}

START_TEST(a_single_daemon_manifest_reads_back)
{
	struct sources *s = calloc(1, sizeof(*s));
	struct corecap_manifest m;
	struct run_manifest r;
	char dir[512], host[256] = "";
	const struct run_device *dev;

	ck_assert_ptr_nonnull(s);
	fill(s, &m);
	write_manifest(&m, "one", dir, sizeof(dir), true);
	read_back(dir, &r);
	ck_assert_int_eq(r.version, CORECAP_RUN_VERSION);
	ck_assert_str_eq(r.tool_version, CORECAP_VERSION);
	ck_assert(!r.partial);
	ck_assert_ptr_null(r.partial_reason);
	ck_assert_int_eq(r.pid, getpid());
	ck_assert_str_eq(r.comm, "refosd");
	ck_assert_str_eq(r.exe, "/opt/refosd");
	gethostname(host, sizeof(host) - 1);
	ck_assert_str_eq(r.host, host);
	ck_assert_ptr_nonnull(r.kernel);
	ck_assert_int_eq(r.nproc, (int)sysconf(_SC_NPROCESSORS_ONLN));
	ck_assert_int_eq(r.clk_tck, sysconf(_SC_CLK_TCK));
	ck_assert(r.has_window);
	ck_assert_uint_eq(r.window_start_ns, 1000000000);
	ck_assert_uint_eq(r.window_end_ns, 6010000000);
	ck_assert(r.has_realtime_offset);
	ck_assert_int_eq(r.realtime_offset_ns, 1796500000123456789LL);
	ck_assert_int_eq(r.collector_pid, getpid());
	ck_assert(r.has_collector_cpu && r.collector_cpu_s >= 0);
	ck_assert(r.has_machine_busy && r.machine_busy_cpu_s == 7.5);
	ck_assert(r.has_machine_steal && r.machine_steal_cpu_s == 0.25);
	ck_assert(r.has_bench_cpu && r.bench_cpu_s == 1.25);
	ck_assert(r.has_wake && r.wake_ns == 6900.5);
	ck_assert_int_ge(r.daemon_cpus, 1);
	/* devices[]: the counters' differences and the cgroup's limits there. */
	ck_assert(r.has_devices);
	ck_assert_uint_eq(r.n_devices, 1);
	dev = &r.devices[0];
	ck_assert_str_eq(dev->name, "loop3");
	ck_assert(dev->has_counts);
	ck_assert_uint_eq(dev->ios[0], 2);
	ck_assert_uint_eq(dev->ios[1], 819);
	ck_assert_uint_eq(dev->bytes[0], 6 * 512);
	ck_assert_uint_eq(dev->bytes[1], 10098 * 512);
	ck_assert_uint_eq(dev->busy_ms, 400);
	ck_assert_uint_eq(dev->queue_ms, 997);
	ck_assert_str_eq(dev->limit_file, "io.max");
	ck_assert_str_eq(dev->limit_cgroup, "/osd.slice");
	ck_assert_uint_eq(dev->limit_iops[0], 100);
	ck_assert_uint_eq(dev->limit_iops[1], 200);
	ck_assert_uint_eq(dev->limit_bps[0], 1000);
	ck_assert_uint_eq(dev->limit_bps[1], 2000);
	ck_assert(dev->has_cgroup_counts);
	ck_assert_uint_eq(dev->cgroup_ios[0], 0);
	ck_assert_uint_eq(dev->cgroup_ios[1], 809);
	ck_assert_uint_eq(dev->cgroup_bytes[1], 3231744);
	/* wallclock: the ptrace sampler's figures. */
	ck_assert(r.wall_hz == 50);
	ck_assert_str_eq(r.wall_sampler, CORECAP_WALL_SAMPLER_PTRACE);
	ck_assert(!r.wall_oncpu_only);
	ck_assert_uint_eq(r.wall_rounds, 250);
	ck_assert(r.has_wall_due);
	ck_assert_uint_eq(r.wall_samples, 4500);
	ck_assert_uint_eq(r.wall_due, 4600);
	ck_assert_uint_eq(r.wall_skipped, 40);
	ck_assert_uint_eq(r.wall_abandoned, 20);
	ck_assert_uint_eq(r.wall_rationed, 30);
	ck_assert_uint_eq(r.wall_late_rounds, 5);
	ck_assert_uint_eq(r.wall_lost_rounds, 6);
	ck_assert(r.has_wall_starved);
	ck_assert_uint_eq(r.wall_threads_starved, 1);
	ck_assert_uint_eq(r.wall_threads_counted, 17);
	ck_assert_uint_eq(r.wall_stop_budget_ns, CORECAP_WALL_STOP_BUDGET_NS);
	ck_assert(r.has_wall_coverage);
	ck_assert_uint_eq(r.wall_coverage_min_pm, 800);
	ck_assert_uint_eq(r.wall_coverage_max_pm, 1000);
	/* sources, kernel_events, lttng. */
	ck_assert(r.src_trace && r.src_threads && r.src_stats && r.src_maps && r.src_kernel);
	ck_assert(r.has_kernel_lost);
	ck_assert_uint_eq(r.kernel_lost, 5);
	ck_assert(r.has_kernel_bytes);
	ck_assert_uint_eq(r.kernel_events_bytes, 9400000);
	ck_assert_uint_eq(r.kernel_stacks_bytes, 310000);
	/* Every records.* count: the six tracepoints' and the TRACK and HOLDER records. */
	ck_assert_uint_eq(r.kernel_records, 100 + 101 + 102 + 103 + 104 + 105 + 18 + 6);
	ck_assert(r.has_target_registered && r.target_registered);
	ck_assert(r.has_lttng_loss);
	ck_assert_uint_eq(r.lttng_discarded_events, 7);
	ck_assert_uint_eq(r.lttng_lost_packets, 3);
	/* benchmark: its command, exit status and the figures the reader takes. */
	ck_assert_ptr_nonnull(r.bench_command);
	ck_assert_uint_eq(json_object_array_length(r.bench_command), 2);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(r.bench_command, 1)),
			 "write");
	ck_assert_int_eq(r.bench_exit_status, 0);
	ck_assert_ptr_nonnull(r.summary);
	ck_assert(r.bench.has_iops &&
		  r.bench.iops_avg == CORECAP_MK_BENCHMARK_SUMMARY_IOPS_AVG / 4.0);
	ck_assert(r.bench.has_lat &&
		  r.bench.lat_avg_s == CORECAP_MK_BENCHMARK_SUMMARY_LAT_AVG_S / 4.0);
	ck_assert(r.bench.has_ops && r.bench.ops == CORECAP_MK_BENCHMARK_SUMMARY_OPS / 4.0);
	ck_assert(r.bench.has_time &&
		  r.bench.total_time_s == CORECAP_MK_BENCHMARK_SUMMARY_TOTAL_TIME_S / 4.0);
	ck_assert(r.bench.has_p99 &&
		  r.bench.lat_p99_s == CORECAP_MK_BENCHMARK_SUMMARY_LAT_P99_S / 4.0);
	corecap_manifest_release(&r);
	free(s);
}
END_TEST

/* The kernel's on-CPU stacks as the wall-clock samples (no ptrace sampler). */
START_TEST(the_kernel_oncpu_sampler_reads_back)
{
	struct sources *s = calloc(1, sizeof(*s));
	struct corecap_manifest m;
	struct run_manifest r;
	char dir[512];

	ck_assert_ptr_nonnull(s);
	fill(s, &m);
	m.wall = NULL;
	s->kernel.oncpu_hz = 199;
	s->kernel.stats.oncpu_written = 900;
	s->kernel.stats.oncpu_taken = 1000;
	s->kernel.stats.oncpu_lost = 60;
	s->kernel.stats.oncpu_failed = 40;
	write_manifest(&m, "oncpu", dir, sizeof(dir), false);
	read_back(dir, &r);
	ck_assert(r.wall_hz == 199);
	ck_assert_str_eq(r.wall_sampler, CORECAP_WALL_SAMPLER_KERNEL_ONCPU);
	ck_assert(r.wall_oncpu_only);
	/* No due count: the reader takes its samples with due only (unknown, not zero). */
	ck_assert(!r.has_wall_due);
	ck_assert_uint_eq(r.wall_oncpu_taken, 1000);
	ck_assert_uint_eq(r.wall_oncpu_lost, 60);
	ck_assert_uint_eq(r.wall_oncpu_failed, 40);
	corecap_manifest_release(&r);
	/* --wallclock through the kernel: every state sampled, not on-CPU only. */
	s->kernel.wall_offcpu = true;
	s->kernel.offcpu_stats.rounds = 77;
	write_manifest(&m, "offcpu", dir, sizeof(dir), false);
	read_back(dir, &r);
	ck_assert_str_eq(r.wall_sampler, CORECAP_WALL_SAMPLER_KERNEL_OFFCPU);
	ck_assert(!r.wall_oncpu_only);
	/* No `rounds`: the OpTracker categories take a sample for 1/hz s. */
	ck_assert_uint_eq(r.wall_rounds, 0);
	/* No coverage per thread unless it was counted (unknown, not zero). */
	ck_assert(!r.has_wall_coverage);
	corecap_manifest_release(&r);
	/* Counted: the same keys as the ptrace sampler's, for the same warning. */
	s->kernel.wall_coverage_known = true;
	s->kernel.wall_coverage = (struct corecap_wall_coverage){.threads_counted = 5,
								 .threads_starved = 0,
								 .thread_samples_min = 310,
								 .thread_samples_max = 402,
								 .thread_coverage_min_pm = 770,
								 .thread_coverage_max_pm = 1002};
	write_manifest(&m, "offcpu-coverage", dir, sizeof(dir), false);
	read_back(dir, &r);
	ck_assert(r.has_wall_coverage);
	ck_assert_uint_eq(r.wall_coverage_min_pm, 770);
	ck_assert_uint_eq(r.wall_coverage_max_pm, 1002);
	ck_assert(r.has_wall_starved);
	ck_assert_uint_eq(r.wall_threads_counted, 5);
	ck_assert(!r.has_wall_due); /* the report's fell-behind warning reads the ptrace sampler's */
	corecap_manifest_release(&r);
	free(s);
}
END_TEST

/* A run of several daemons: daemons[] read back by read/multi_run. */
START_TEST(a_several_daemon_manifest_reads_back)
{
	struct sources *s = calloc(1, sizeof(*s));
	struct corecap_manifest_daemon daemons[2] = {
		{.pid = 101,
		 .comm = "osd.0",
		 .dir = "daemons/101",
		 .ceph_asok = "/run/ceph/o0.asok",
		 .ceph_osd_id = 0,
		 .status = "complete",
		 .exit_status = 0},
		{.pid = 102,
		 .comm = "osd.1",
		 .dir = "daemons/102",
		 .status = "partial",
		 .partial_reason = "daemon exited at +1.0 s",
		 .ceph_osd_id = -1,
		 .exit_status = 1},
	};
	struct corecap_manifest m;
	struct multi_run mr;
	char dir[512], *err = NULL;

	ck_assert_ptr_nonnull(s);
	fill(s, &m);
	m.target = NULL;
	m.daemons = daemons;
	m.n_daemons = 2;
	/* Its daemons[] comes before benchmark, which the list has before daemons[]: no
	 * order asked. */
	write_manifest(&m, "multi", dir, sizeof(dir), false);

	ck_assert(corecap_multi_run_is(dir));
	ck_assert_msg(corecap_multi_run_open(&mr, dir, &err) == 0, "%s", err ? err : "");
	ck_assert_int_eq(mr.manifest.version, CORECAP_RUN_VERSION_MULTI);
	ck_assert_uint_eq(mr.manifest.n_warnings, 0);
	ck_assert(mr.manifest.has_window);
	ck_assert(mr.manifest.has_machine_busy && mr.manifest.machine_busy_cpu_s == 7.5);
	ck_assert_int_eq(mr.manifest.bench_exit_status, 0);
	ck_assert_uint_eq(mr.n_daemons, 2);
	ck_assert_int_eq(mr.daemons[0].pid, 101);
	ck_assert_str_eq(mr.daemons[0].comm, "osd.0");
	ck_assert_str_eq(mr.daemons[0].status, "complete");
	ck_assert_ptr_null(mr.daemons[0].partial_reason);
	ck_assert_int_eq(mr.daemons[0].ceph_osd_id, 0);
	ck_assert_int_eq(mr.daemons[1].pid, 102);
	ck_assert_str_eq(mr.daemons[1].status, "partial");
	ck_assert_str_eq(mr.daemons[1].partial_reason, "daemon exited at +1.0 s");
	ck_assert_int_eq(mr.daemons[1].ceph_osd_id, -1);
	corecap_multi_run_close(&mr);
	free(err);
	free(s);
}
END_TEST

/* The three manifests above together name every key (each test may run in its own
 * process: this one writes them again). */
START_TEST(every_key_of_the_list_is_written)
{
	size_t n;
	const struct corecap_manifest_key_def *keys = corecap_manifest_keys(&n);
	char buf[256];

	memset(written, 0, sizeof(written));
	{
		struct sources *s = calloc(1, sizeof(*s));
		struct corecap_manifest_daemon d = {.pid = 101,
						    .comm = "osd.0",
						    .dir = "daemons/101",
						    .ceph_asok = "/run/ceph/o0.asok",
						    .status = "partial",
						    .partial_reason = "cut",
						    .exit_status = 0};
		struct corecap_manifest m;
		char dir[512];

		ck_assert_ptr_nonnull(s);
		fill(s, &m);
		m.complete = false;
		snprintf(m.partial_reason, sizeof(m.partial_reason), "interrupted at +1.0 s");
		write_manifest(&m, "all-ptrace", dir, sizeof(dir), true);

		m.wall = NULL;
		s->kernel.stats.oncpu_written = 1;
		write_manifest(&m, "all-oncpu", dir, sizeof(dir), false);
		s->kernel.wall_offcpu = true; /* --wallclock through the kernel */
		write_manifest(&m, "all-offcpu", dir, sizeof(dir), false);
		s->kernel.wall_offcpu = false;

		m.target = NULL;
		m.daemons = &d;
		m.n_daemons = 1;
		write_manifest(&m, "all-multi", dir, sizeof(dir), false);
		free(s);
	}
	for (size_t k = 1; k < n; k++) {
		enum corecap_manifest_key up = (enum corecap_manifest_key)k;

		while (up != CORECAP_MK_ROOT && up != CORECAP_MK_HOSTS && up != CORECAP_MK_RELAYD)
			up = keys[up].parent;
		/* collector/hosts/host_record.c's */
		if (up == CORECAP_MK_HOSTS || up == CORECAP_MK_RELAYD)
			continue;
		ck_assert_msg(
			written[k], "manifest key '%s' of the list is never written",
			corecap_manifest_key_path((enum corecap_manifest_key)k, buf, sizeof(buf)));
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("manifest_keys");
	TCase *tc = tcase_create("manifest_keys");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_single_daemon_manifest_reads_back);
	tcase_add_test(tc, the_kernel_oncpu_sampler_reads_back);
	tcase_add_test(tc, a_several_daemon_manifest_reads_back);
	tcase_add_test(tc, every_key_of_the_list_is_written);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
