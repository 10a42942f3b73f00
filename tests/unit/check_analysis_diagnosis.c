/*
 * analysis/model/diagnosis.c: the one headline from hand-built runs whose
 * every figure is computed by hand below (a 1 s window, 2 CPUs): a lock
 * held 95%; a thread that ran 20% and waited for a CPU 53% while other
 * processes took the cores (the cores, not the thread); a daemon pinned to
 * one full CPU of two (its CPU, though the other idles); the same held to
 * half a CPU by a cgroup CPU quota (the quota), or given 1.5 (its CPU); a benchmark with
 * one op in flight (its closed loop); nothing saturated; a disk whose
 * cgroup I/O limit is full, or that is busy serving one I/O at a time (but
 * not one serving several); and a run with no
 * CPU figures, no kernel events and no benchmark (nothing shown as
 * measured, the missing evidence listed).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/diagnosis.h"

#include "check_run.h"
#include "model_window.h"

static struct model m;
static struct pool_table pools;
static struct projection p;
static struct diagnosis d;

/* What the namer calls a code address: the locks' site. */
static const char *code_name = "osd_handle_op+0x699";

static void setup(void)
{
	model_window_init(&m);
}

static void teardown(void)
{
	code_name = "osd_handle_op+0x699";
	corecap_diagnosis_release(&d);
	corecap_pool_table_release(&pools);
	corecap_model_release(&m);
}

static char *namer(void *ctx, uint64_t addr, bool code)
{
	(void)ctx;
	(void)addr;
	return strdup(code ? code_name : "0x1000");
}

/* Projection and diagnosis on 2 CPUs, the benchmark's figures in pin. */
static void diagnose(struct projection_inputs pin, struct diagnosis_inputs din)
{
	ck_assert_int_eq(corecap_model_finish(&m), 0);
	corecap_lock_table_symbolize(&m.locks, namer, NULL);
	ck_assert_int_eq(corecap_pool_table_build(&pools, &m.threads, corecap_model_window_ns(&m)),
			 0);
	pin.model = &m;
	pin.pools = &pools;
	if (!pin.cores_available)
		pin.cores_available = 2;
	pin.machine_cpus = 2;
	if (!pin.wake_ns)
		pin.wake_ns = -1;
	corecap_projection_compute(&p, &pin);
	din.model = &m;
	din.pools = &pools;
	din.projection = &p;
	din.nproc = 2;
	ck_assert_int_eq(corecap_diagnosis_compute(&d, &din), 0);
	ck_assert_ptr_nonnull(d.headline);
	ck_assert_ptr_nonnull(d.action);
}

static void near(double a, double b)
{
	ck_assert_msg(fabs(a - b) < 1e-6 * fabs(b) + 1e-9, "%g != %g", a, b);
}

static bool missing_has(const char *what)
{
	for (size_t i = 0; i < d.n_missing; i++)
		if (strstr(d.missing[i], what))
			return true;
	return false;
}

/*
 * 1000 ops/s (16 in flight: 16 ms each); the lock held 0.95 s: 950 us
 * per op, saturated at 1052.6 ops/s, so U 0.95 and headroom 1/0.95. The
 * thread ran 0.5 s (2000 ops/s), the cores 2 / 500 us = 4000: the next
 * limit is the thread at 2000. The verify line names the site as the
 * report prints it, the daemon and the benchmark.
 */
/* Four threads worker-0..3 that each ran ran_s and waited for a CPU waited_s. */
static void four_workers(double ran_s, double waited_s)
{
	for (int t = 0; t < 4; t++) {
		char name[16];

		snprintf(name, sizeof(name), "worker-%d", t);
		model_window_thread(&m, 2 + t, name, ran_s, waited_s);
	}
}

/*
 * Diagnosed with every thread on CPU 0 of 2 (its affinity: 1 CPU), 1000
 * ops/s at 16 ms, the client's 0.18 CPU, the machine busy busy_cpu_s; in
 * cgroup /osd.slice with a quota of `quota` CPUs read from quota_file
 * (quota 0: none).
 */
static void diagnose_on_one_cpu(double busy_cpu_s, double quota, const char *quota_file)
{
	diagnose((struct projection_inputs){.cores_available = 1,
					    .bench_iops = 1000,
					    .bench_lat_s = 0.016,
					    .machine_busy_cpu_s = busy_cpu_s,
					    .bench_cpu_s = 0.18},
		 (struct diagnosis_inputs){.cpus_allowed = 1,
					   .cpu_quota = quota,
					   .quota_cgroup = quota ? "/osd.slice" : NULL,
					   .quota_file = quota_file,
					   .profiler_cpu_s = 0,
					   .has_bench = true});
}

START_TEST(a_lock_held_95_percent_is_the_headline_with_its_verify_line)
{
	model_window_hold(&m, 0xa0, 95 * W / 100);
	model_window_thread(&m, 2, "alpha", 0.5, 0.01);
	diagnose((struct projection_inputs){.bench_iops = 1000,
					    .bench_lat_s = 0.016,
					    .machine_busy_cpu_s = 0.7,
					    .bench_cpu_s = 0.2},
		 (struct diagnosis_inputs){.cpus_allowed = 2,
					   .profiler_cpu_s = 0.01,
					   .has_bench = true,
					   .pid = 4242,
					   .bench_command = "refbench -t 16 write"});
	ck_assert_int_eq(d.kind, DIAG_LOCK);
	ck_assert_str_eq(d.site, "osd_handle_op+0x699");
	near(d.running, 0.95);
	near(d.headroom, 1 / 0.95);
	/* The projection at this machine's cores says the same, by construction. */
	near(d.headroom * d.iops, p.at[1].iops);
	ck_assert_ptr_nonnull(strstr(p.at[1].bound_by, "lock"));
	ck_assert_int_eq(d.next.kind, DIAG_THREAD);
	ck_assert_str_eq(d.next.name, "alpha (tid 2)");
	near(d.next.iops, 2000);
	ck_assert_str_eq(
		d.verify_command,
		"corecap verify -p 4242 --site 'osd_handle_op+0x699' -- refbench -t 16 write");
	ck_assert(!d.cores_saturated);
	ck_assert_ptr_nonnull(strstr(d.headline, "95%"));
	ck_assert_ptr_nonnull(strstr(d.headline, "1.05x"));
}
END_TEST

/*
 * A C++ site's name runs to hundreds of bytes with its arguments' types (a
 * ceph-osd's MemStore::queue_transactions was cut at 128 bytes in the next
 * limit and the projection, then named no lock verify could find): the
 * headline, the projection, the site and the verify line carry it whole.
 */
START_TEST(a_long_cpp_site_is_named_whole_everywhere)
{
	static const char site[] =
		"MemStore::queue_transactions(boost::intrusive_ptr<ObjectStore::CollectionImpl>&, "
		"std::vector<ceph::os::Transaction, std::allocator<ceph::os::Transaction> >&, "
		"boost::intrusive_ptr<TrackedOp>, ThreadPool::TPHandle*)+0x2f";

	ck_assert_uint_gt(strlen(site), 200);
	code_name = site;
	model_window_hold(&m, 0xa0, 95 * W / 100);
	model_window_thread(&m, 2, "alpha", 0.5, 0.01);
	diagnose((struct projection_inputs){.bench_iops = 1000,
					    .bench_lat_s = 0.016,
					    .machine_busy_cpu_s = 0.7,
					    .bench_cpu_s = 0.2},
		 (struct diagnosis_inputs){.cpus_allowed = 2,
					   .profiler_cpu_s = 0.01,
					   .has_bench = true,
					   .pid = 4242,
					   .bench_command = "rados bench 10 write"});
	ck_assert_int_eq(d.kind, DIAG_LOCK);
	ck_assert_str_eq(d.name, site);
	ck_assert_str_eq(d.site, site);
	ck_assert_str_eq(p.res[0].name, site);
	ck_assert_ptr_nonnull(strstr(p.at[1].bound_by, site));
	ck_assert_ptr_nonnull(strstr(d.headline, site));
	ck_assert_ptr_nonnull(strstr(d.verify_command, site));
}
END_TEST

/*
 * The finisher ran 0.20 s and waited for a CPU 0.53 s; two workers ran
 * 0.40 s and waited 0.30 s each. The daemon ran 1.00 CPU and waited
 * 1.13; the machine was busy 2.00 of 2 CPUs, the client 0.36, so others
 * took 2.00 - 1.00 - 0.36 = 0.64. Runnable 2.00 + 1.13 >= 0.95 x 2: the
 * cores bind. Their X at 2 cores: 2 / 1 ms = 2000 ops/s (headroom 2.00);
 * the finisher's 5000 and its running share 20%: not the headline.
 */
START_TEST(a_thread_waiting_for_a_cpu_others_took_names_the_cores)
{
	model_window_thread(&m, 2, "finisher", 0.20, 0.53);
	model_window_thread(&m, 3, "worker-0", 0.40, 0.30);
	model_window_thread(&m, 4, "worker-1", 0.40, 0.30);
	diagnose((struct projection_inputs){.bench_iops = 1000,
					    .bench_lat_s = 0.032,
					    .machine_busy_cpu_s = 2.0,
					    .bench_cpu_s = 0.36},
		 (struct diagnosis_inputs){
			 .cpus_allowed = 2, .profiler_cpu_s = 0.02, .has_bench = true});
	ck_assert_int_eq(d.kind, DIAG_CORES);
	ck_assert(d.cores_saturated);
	near(d.daemon_running, 1.0);
	near(d.daemon_waiting, 1.13);
	near(d.bench_cores, 0.36);
	near(d.other_cores, 0.64);
	near(d.profiler_cores, 0.02);
	near(d.runnable, 3.13);
	near(d.headroom, 2.0);
	near(d.headroom * d.iops, p.at[1].iops);
	ck_assert_str_eq(p.at[1].bound_by, "cores");
	near(d.next.iops, 2500); /* a worker, or the worker pool: 2 / 0.8 ms */
	ck_assert_ptr_null(strstr(d.headline, "finisher"));
	ck_assert_ptr_nonnull(strstr(d.headline, "other processes 0.64"));
	ck_assert_ptr_nonnull(strstr(d.headline, "client took 0.36"));
	ck_assert_ptr_null(d.verify_command);
}
END_TEST

/*
 * Every thread on CPU 0 of 2 (its affinity: 1 CPU): four threads ran
 * 0.1575 s and waited for a CPU 0.525 s each, 0.63 and 2.10 in all; the
 * client took 0.18 and others 0.81 of the machine, which had 0.38 idle
 * (on the other CPU). Runnable on its one CPU: 0.63 + 2.10 = 2.73 >= 0.95:
 * the cores bind. X at 1 CPU: 1 / 0.63 ms = 1587.3 ops/s (headroom
 * 1.5873); each thread's 6349 and the pool's 4 / 0.63 ms come after.
 */
START_TEST(a_daemon_pinned_to_one_full_cpu_is_bound_by_it_though_another_idles)
{
	four_workers(0.1575, 0.525);
	diagnose_on_one_cpu(1.62, 0, NULL);
	ck_assert_int_eq(d.kind, DIAG_CORES);
	ck_assert_int_eq(d.cpus_allowed, 1);
	ck_assert_int_eq(d.machine_cpus, 2);
	ck_assert(!d.cpus_from_nproc);
	near(d.runnable, 2.73);
	near(d.other_cores, 0.81);
	near(d.headroom, 1 / 0.63);
	near(d.headroom * d.iops, p.at[0].iops);
	ck_assert_str_eq(p.at[0].bound_by, "cores");
	near(d.next.iops, 4 / 0.63e-3);
	ck_assert_ptr_nonnull(strstr(d.headline, "may use 1 CPU (its affinity)"));
	ck_assert_ptr_nonnull(strstr(d.action, "affinity"));
}
END_TEST

/*
 * Every thread on CPU 0 of 2 (affinity: 1 CPU) in a cgroup whose cpu.max
 * is "50000 100000": 0.5 CPU, below the affinity, so the quota binds. Four
 * threads ran 0.125 s and waited (throttled, or for the CPU) 0.3 s each:
 * 0.5 and 1.2 in all, runnable 1.7 >= 0.95 x 0.5. 1000 ops/s: 0.5 ms of CPU
 * per op, so the quota's cores saturate at 0.5 / 0.5 ms = 1000 ops/s (the
 * measured: U 1). Lifted, the daemon has its 1 CPU: 1 / 0.5 ms = 2000
 * ops/s (headroom 2); each thread's 1 / 0.125 ms = 8000 comes next.
 */
START_TEST(a_cpu_quota_below_the_affinity_binds_and_is_named)
{
	four_workers(0.125, 0.3);
	diagnose_on_one_cpu(1.0, 0.5, "cpu.max");
	ck_assert_int_eq(d.kind, DIAG_CORES);
	ck_assert(d.quota_binds);
	near(d.cpus_usable, 0.5);
	ck_assert_int_eq(d.cpus_allowed, 1);
	near(d.runnable, 1.7);
	ck_assert(d.cores_saturated);
	near(d.running, 1.0);
	near(d.headroom, 2.0);
	near(d.headroom * d.iops, p.at[0].iops);
	near(d.next.iops, 8000);
	ck_assert_int_eq(d.next.kind, DIAG_THREAD);
	ck_assert_ptr_nonnull(strstr(
		d.headline, "its CPU quota of 0.50 CPU (cgroup cpu.max of /osd.slice) is full"));
	ck_assert_ptr_nonnull(strstr(d.headline, "its affinity allows 1"));
	ck_assert_ptr_nonnull(strstr(d.headline, "2000 ops/s (2.00x)"));
	ck_assert_ptr_nonnull(strstr(d.action, "CPU quota of cgroup /osd.slice (cpu.max)"));
}
END_TEST

/*
 * The pinned daemon of a_daemon_pinned_to_one_full_cpu_... (it ran 0.63 of
 * its CPU, others took the rest) with a quota of 0.8 CPU: it ran under
 * 0.9 x 0.8 = 0.72 of it, so the quota was not what was full: its CPU is.
 */
START_TEST(a_cpu_quota_the_daemon_did_not_reach_does_not_bind)
{
	four_workers(0.1575, 0.525);
	diagnose_on_one_cpu(1.62, 0.8, "cpu.max");
	ck_assert_int_eq(d.kind, DIAG_CORES);
	ck_assert(!d.quota_binds);
	near(d.cpus_usable, 1);
	ck_assert_ptr_nonnull(strstr(d.headline, "may use 1 CPU (its affinity)"));
	for (size_t i = 0; i < d.n_evidence; i++)
		if (!strcmp(d.evidence[i].term, "CPU quota"))
			ck_assert_ptr_nonnull(strstr(d.evidence[i].value, "not what was full"));
}
END_TEST

/* The same pinned daemon with a quota of 1.5 CPU: above its 1 CPU, the affinity binds. */
START_TEST(a_cpu_quota_above_the_affinity_does_not_bind)
{
	four_workers(0.1575, 0.525);
	diagnose_on_one_cpu(1.62, 1.5, "cpu.cfs_quota_us");
	ck_assert_int_eq(d.kind, DIAG_CORES);
	ck_assert(!d.quota_binds);
	near(d.cpus_usable, 1);
	near(d.cpu_quota, 1.5);
	ck_assert_str_eq(d.quota_file, "cpu.cfs_quota_us");
	near(d.headroom, 1 / 0.63);
	ck_assert_ptr_nonnull(strstr(d.headline, "may use 1 CPU (its affinity)"));
}
END_TEST

/*
 * refbench -t 1: 1000 ops/s at 0.9 ms, 0.9 op in flight. With no critical
 * paths the projection cannot model the loop: saturated as is, headroom
 * 1; the thread (0.3 s: 3333 ops/s) is the next limit.
 */
START_TEST(one_op_in_flight_is_the_closed_loop)
{
	model_window_thread(&m, 2, "alpha", 0.3, 0.0);
	diagnose((struct projection_inputs){.bench_iops = 1000,
					    .bench_lat_s = 0.0009,
					    .machine_busy_cpu_s = 0.5,
					    .bench_cpu_s = 0.2},
		 (struct diagnosis_inputs){
			 .cpus_allowed = 2, .profiler_cpu_s = 0, .has_bench = true});
	ck_assert_int_eq(d.kind, DIAG_LOOP);
	near(d.headroom, 1);
	ck_assert_int_eq(d.next.kind, DIAG_THREAD);
	near(d.next.iops, 1 / 0.3e-3);
	ck_assert_ptr_nonnull(strstr(d.headline, "0.90 op in flight"));
	ck_assert_ptr_nonnull(strstr(d.action, "concurrency"));
}
END_TEST

/*
 * Ten threads at 5% each: 0.5 ms of CPU per op at 1000 ops/s, so the
 * cores (2 / 0.5 ms = 4000 ops/s) saturate first, 25% used, before any
 * thread (20000): "cores" has no name, and the headline none.
 */
START_TEST(nothing_saturated_with_the_cores_first_names_them_alone)
{
	for (int i = 0; i < 10; i++) {
		char name[8];

		snprintf(name, sizeof(name), "t%d", i);
		model_window_thread(&m, 2 + i, name, 0.05, 0.0);
	}
	diagnose((struct projection_inputs){.bench_iops = 1000,
					    .bench_lat_s = 0.016,
					    .machine_busy_cpu_s = 0.7,
					    .bench_cpu_s = 0.1},
		 (struct diagnosis_inputs){
			 .cpus_allowed = 2, .profiler_cpu_s = 0, .has_bench = true});
	ck_assert_int_eq(d.kind, DIAG_NONE);
	ck_assert_msg(
		strstr(d.headline, "the first to saturate, cores, are used 25% of the window"),
		"%s", d.headline);
}
END_TEST

/*
 * 16 ops in flight, the busiest thread at 30% (3333 ops/s), the cores
 * at 2 / 0.3 ms = 6667 and not full: nothing is saturated; the headroom
 * is the busiest's 3.33, the projection's figure at 2 cores.
 */
START_TEST(nothing_saturated_says_so_and_names_the_busiest)
{
	model_window_thread(&m, 2, "alpha", 0.3, 0.0);
	diagnose((struct projection_inputs){.bench_iops = 1000,
					    .bench_lat_s = 0.016,
					    .machine_busy_cpu_s = 0.5,
					    .bench_cpu_s = 0.2},
		 (struct diagnosis_inputs){
			 .cpus_allowed = 2, .profiler_cpu_s = 0, .has_bench = true});
	ck_assert_int_eq(d.kind, DIAG_NONE);
	ck_assert_ptr_nonnull(strstr(d.headline, "nothing measured is saturated"));
	near(d.running, 0.3);
	near(d.headroom, 1 / 0.3);
	near(d.headroom * d.iops, p.at[1].iops);
	ck_assert_int_eq(d.next.kind, DIAG_THREAD);
	ck_assert(!missing_has("the benchmark's summary"));
	ck_assert(missing_has("kernel events")); /* none in a hand-built model */
}
END_TEST

/*
 * Thread alpha at 30% (nothing of it saturated: it would bind at 3333
 * ops/s), 1000 ops/s at 16 ms on 2 CPUs, and one disk; io_share: the ops'
 * critical paths' share of their latency in io (< 0: no paths).
 */
static void diagnose_with_disk(struct projection_disk *dev, double io_share)
{
	model_window_thread(&m, 2, "alpha", 0.3, 0.0);
	diagnose((struct projection_inputs){.bench_iops = 1000,
					    .bench_lat_s = 0.016,
					    .machine_busy_cpu_s = 0.5,
					    .bench_cpu_s = 0.2,
					    .path_ops = io_share < 0 ? 0 : 1000,
					    .path_latency_ns = io_share < 0 ? 0 : 1000 * 16000000ull,
					    .path_io_ns = io_share < 0 ? 0
								       : (uint64_t)(io_share * 1000 *
										    16000000.0),
					    .disks = dev,
					    .n_disks = 1},
		 (struct diagnosis_inputs){
			 .cpus_allowed = 2, .profiler_cpu_s = 0, .has_bench = true});
}

/* Whether an evidence line of term has what in its value or its meaning. */
static bool evidence_has(const char *term, const char *what)
{
	for (size_t i = 0; i < d.n_evidence; i++)
		if (strcmp(d.evidence[i].term, term) == 0 &&
		    (strstr(d.evidence[i].value, what) || strstr(d.evidence[i].meaning, what)))
			return true;
	return false;
}

/*
 * The same daemon (thread alpha at 30%: nothing of it saturated) on a
 * disk whose cgroup allows 1000 write I/Os per second, of which its cgroup
 * did 980: the limit is 98% used, so the disk binds at 1000 / 0.98 =
 * 1020.4 ops/s, under the thread's 3333: the headroom is the disk's, the
 * thread the next limit.
 */
START_TEST(a_cgroup_io_limit_that_is_full_binds)
{
	struct projection_disk dev = {.name = "loop3", .busy = 0.10, .in_flight = 2.5,
				  .ios_per_s = 990, .limit_use = 0.98,
				  .limit_what = "write_iops 1000", .limit_file = "io.max",
				  .limit_cgroup = "/osd.slice", .limit_rate = 980};

	diagnose_with_disk(&dev, -1);
	ck_assert_int_eq(d.kind, DIAG_DEVICE);
	ck_assert_str_eq(d.name, "loop3");
	near(d.running, 0.98);
	near(d.headroom, 1 / 0.98);
	ck_assert_int_eq(d.next.kind, DIAG_THREAD);
	ck_assert_ptr_nonnull(strstr(d.headline, "write_iops 1000, io.max of cgroup /osd.slice"));
	ck_assert_ptr_nonnull(strstr(d.action, "raise the I/O limit of cgroup /osd.slice"));
	/* The projection knows the disk: its point here is the disk's bound. */
	near(p.at[1].iops, 1000 / 0.98);
	ck_assert_str_eq(p.at[1].bound_by, "device loop3");
}
END_TEST

/*
 * A disk busy 90% of the window: serving one I/O at a time (1.0 in
 * flight) it is full and binds at 1000 / 0.9; serving 4.7 at once its busy
 * time says nothing of its limit: nothing is saturated, the disk is only
 * evidence, and the headroom stays the projection's.
 */
START_TEST(a_busy_disk_binds_only_when_it_serves_one_io_at_a_time)
{
	struct projection_disk dev = {.name = "vda", .busy = 0.90, .in_flight = 1.0,
				  .ios_per_s = 3000, .limit_use = -1};

	diagnose_with_disk(&dev, -1);
	ck_assert_int_eq(d.kind, DIAG_DEVICE);
	near(d.headroom, 1 / 0.9);
	ck_assert_ptr_nonnull(strstr(d.headline, "disk vda is busy 90%"));
	corecap_diagnosis_release(&d);
	corecap_pool_table_release(&pools);
	corecap_model_release(&m);
	model_window_init(&m);
	dev.in_flight = 4.7;
	diagnose_with_disk(&dev, -1);
	ck_assert_int_eq(d.kind, DIAG_NONE);
	near(d.headroom, 1 / 0.3);
	ck_assert_int_eq(d.next.kind, DIAG_THREAD);
	ck_assert_str_eq(p.at[1].bound_by, "thread alpha (tid 2)");
	ck_assert(evidence_has("disk vda", "not full"));
}
END_TEST

/*
 * The same disk busy 90% serving one I/O at a time, but the ops' critical
 * paths spent 5% of their latency in io (a log written behind them): the
 * disk does not cap them; nothing is saturated, the disk is evidence.
 */
START_TEST(a_full_disk_the_ops_do_not_wait_on_does_not_bind)
{
	struct projection_disk dev = {.name = "vda", .busy = 0.90, .in_flight = 1.0,
				      .ios_per_s = 3000, .limit_use = -1};

	diagnose_with_disk(&dev, 0.05);
	ck_assert_int_eq(d.kind, DIAG_NONE);
	near(p.path_io_share, 0.05);
	ck_assert_str_eq(p.at[1].bound_by, "thread alpha (tid 2)");
	ck_assert(evidence_has("disk vda", "(not waiting on a disk)"));
}
END_TEST

/*
 * No thread CPU figures, no kernel events, no benchmark, a partial run:
 * no projection, so no headroom and no utilization; each missing source
 * is listed with what would provide it.
 */
START_TEST(missing_sources_are_listed_and_nothing_is_guessed)
{
	model_window_hold(&m, 0xa0, W / 2);
	diagnose((struct projection_inputs){.machine_busy_cpu_s = -1, .bench_cpu_s = -1},
		 (struct diagnosis_inputs){.profiler_cpu_s = -1, .partial = true});
	ck_assert_int_eq(d.kind, DIAG_NONE);
	ck_assert(!p.valid);
	near(d.headroom, 0);
	ck_assert(d.running < 0);
	ck_assert_ptr_null(d.verify_command);
	ck_assert(missing_has("kernel events"));
	ck_assert(missing_has("record as root"));
	ck_assert(missing_has("the threads' CPU"));
	ck_assert(missing_has("the benchmark's summary"));
	ck_assert(missing_has("partial"));
	ck_assert(missing_has("its affinity"));
	ck_assert_ptr_nonnull(strstr(d.headline, "no resource could be weighed"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("diagnosis");
	TCase *tc = tcase_create("diagnosis");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_lock_held_95_percent_is_the_headline_with_its_verify_line);
	tcase_add_test(tc, a_long_cpp_site_is_named_whole_everywhere);
	tcase_add_test(tc, a_thread_waiting_for_a_cpu_others_took_names_the_cores);
	tcase_add_test(tc, a_daemon_pinned_to_one_full_cpu_is_bound_by_it_though_another_idles);
	tcase_add_test(tc, a_cpu_quota_below_the_affinity_binds_and_is_named);
	tcase_add_test(tc, a_cpu_quota_above_the_affinity_does_not_bind);
	tcase_add_test(tc, a_cpu_quota_the_daemon_did_not_reach_does_not_bind);
	tcase_add_test(tc, one_op_in_flight_is_the_closed_loop);
	tcase_add_test(tc, nothing_saturated_says_so_and_names_the_busiest);
	tcase_add_test(tc, nothing_saturated_with_the_cores_first_names_them_alone);
	tcase_add_test(tc, missing_sources_are_listed_and_nothing_is_guessed);
	tcase_add_test(tc, a_cgroup_io_limit_that_is_full_binds);
	tcase_add_test(tc, a_busy_disk_binds_only_when_it_serves_one_io_at_a_time);
	tcase_add_test(tc, a_full_disk_the_ops_do_not_wait_on_does_not_bind);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
