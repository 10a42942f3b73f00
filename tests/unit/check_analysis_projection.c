/*
 * analysis/model/projection.c: the throughput at N cores as the smallest
 * saturation throughput, what binds at each N, the relief of each
 * resource, and the two verdicts, from demands built by hand (known
 * answers computed by hand below).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/projection.h"

#include "check_run.h"
#include "model_window.h"

static struct model m;
static struct pool_table pools;
static struct projection p;

static void setup(void)
{
	model_window_init(&m);
}

static void teardown(void)
{
	corecap_pool_table_release(&pools);
	corecap_model_release(&m);
}

static void compute_in(struct projection_inputs in)
{
	in.model = &m;
	in.pools = &pools;
	ck_assert_int_eq(corecap_model_finish(&m), 0);
	ck_assert_int_eq(corecap_pool_table_build(&pools, &m.threads, corecap_model_window_ns(&m)),
			 0);
	corecap_projection_compute(&p, &in);
}

static void compute(int cores, double iops, double busy_s, double bench_s)
{
	compute_in((struct projection_inputs){.cores_available = cores,
					      .bench_iops = iops,
					      .machine_busy_cpu_s = busy_s,
					      .bench_cpu_s = bench_s,
					      .wake_ns = -1});
}

static void near(double a, double b)
{
	ck_assert_msg(fabs(a - b) < 1e-6 * fabs(b) + 1e-9, "%g != %g", a, b);
}

/*
 * 1000 ops/s; a lock held 0.5 s (500 us per op: 2000 ops/s), thread A
 * 0.3 s (3333), thread B 0.4 s (2500); CPU 0.7 s (700 us per op: 1429
 * ops/s per core). At 1 core the cores bind, from 2 the lock; lifting
 * the lock at 2 cores gains up to thread B: +500.
 */
START_TEST(the_smallest_saturation_throughput_binds_at_each_core_count)
{
	model_window_hold(&m, 0xa0, W / 2);
	model_window_thread(&m, 1, "alpha", 0.3, 0);
	model_window_thread(&m, 2, "beta", 0.4, 0);
	compute(2, 1000, 1.5, 0.2);
	ck_assert(p.valid);
	ck_assert_str_eq(p.iops_source, "benchmark");
	near(p.cpu_s_per_op, 700e-6);
	near(p.at[0].iops, 1 / 700e-6);
	ck_assert_str_eq(p.at[0].bound_by, "cores");
	near(p.at[1].iops, 2000);
	ck_assert_ptr_nonnull(strstr(p.at[1].bound_by, "lock"));
	near(p.at[63].iops, 2000);
	ck_assert_int_eq(p.at[63].cores, 64);
	ck_assert(!p.cores_bind_here);
	ck_assert_int_eq(p.res[0].kind, CEIL_LOCK);
	ck_assert_int_eq(p.res[1].kind, CEIL_THREAD);
	ck_assert_ptr_nonnull(strstr(p.res[1].name, "beta"));
	near(p.res[1].iops, 2500);
	ck_assert_ptr_nonnull(strstr(p.relief[0].resource, "lock"));
	near(p.relief[0].iops_gain, 500);
	for (size_t i = 1; i < p.n_relief; i++)
		near(p.relief[i].iops_gain, 0);
	/* The machine: daemon 0.7, benchmark 0.2, others 1.5 - 0.7 - 0.2 = 0.6. */
	near(p.daemon_cores, 0.7);
	near(p.bench_cores, 0.2);
	near(p.other_cores, 0.6);
	ck_assert_ptr_nonnull(strstr(p.machine_verdict, "not the limit"));
	ck_assert_ptr_nonnull(strstr(p.machine_verdict, "benchmark client 0.20"));
	ck_assert_ptr_nonnull(strstr(p.daemon_verdict, "lock"));
	ck_assert_ptr_nonnull(strstr(p.daemon_verdict, "2000 ops/s"));
	/*
	 * With the client on the same cores, 700 + 200 us of CPU per op:
	 * 1111 ops/s at 1 core, and at 2 cores 2222, above the lock's 2000.
	 */
	near(p.client_s_per_op, 200e-6);
	near(p.at[0].iops_with_client, 1 / 900e-6);
	ck_assert_str_eq(p.at[0].bound_with_client, "cores");
	near(p.at[1].iops_with_client, 2000);
	ck_assert_ptr_nonnull(strstr(p.at[1].bound_with_client, "lock"));
}
END_TEST

/*
 * A 10 us cross-core wake-up. 1000 ops/s. Lock 0xa0: 1000 holds of
 * 400 us, longer than a wake-up, so each hand-off adds one: 410 us per op
 * (2439 ops/s). Lock 0xb0: 10000 holds of 2 us, shorter than a wake-up
 * (barging threads take it in the gap): 20 us per op, no hand-off (50000).
 * Without the wake-up figure, holds only: 2500.
 */
START_TEST(a_saturated_lock_pays_a_wake_up_per_hand_off_only_if_held_longer)
{
	struct projection_inputs in = {.cores_available = 64,
				       .bench_iops = 1000,
				       .machine_busy_cpu_s = -1,
				       .bench_cpu_s = -1,
				       .wake_ns = 10000};

	for (int i = 0; i < 1000; i++)
		model_window_hold(&m, 0xa0, 400000);
	for (int i = 0; i < 10000; i++)
		model_window_hold(&m, 0xb0, 2000);
	model_window_thread(&m, 1, "alpha", 0.1, 0);
	compute_in(in);
	ck_assert(p.valid);
	near(p.wake_s, 10e-6);
	ck_assert_int_eq(p.res[0].kind, CEIL_LOCK);
	near(p.res[0].demand_s_per_op, 410e-6);
	near(p.res[0].iops, 1 / 410e-6);
	for (size_t i = 1; i < p.n_res; i++)
		if (p.res[i].kind == CEIL_LOCK)
			near(p.res[i].demand_s_per_op, 20e-6);
	ck_assert(p.at[0].iops_with_client < 0); /* no client CPU figure */
	corecap_projection_compute(&p, &(struct projection_inputs){.model = &m,
								   .pools = &pools,
								   .cores_available = 64,
								   .bench_iops = 1000,
								   .machine_busy_cpu_s = -1,
								   .bench_cpu_s = -1,
								   .wake_ns = -1});
	near(p.res[0].demand_s_per_op, 400e-6);
	near(p.wake_s, 0);
}
END_TEST

/*
 * A daemon pinned to 1 CPU of 2 that fills it: the cores bind here, though
 * the machine has an idle CPU.
 */
START_TEST(a_pinned_daemon_that_fills_its_cpus_is_bound_by_the_cores)
{
	model_window_thread(&m, 1, "alpha", 0.98, 0);
	compute_in((struct projection_inputs){.cores_available = 1,
					      .machine_cpus = 2,
					      .bench_iops = 1000,
					      .machine_busy_cpu_s = 1.2,
					      .bench_cpu_s = 0.1,
					      .wake_ns = -1});
	ck_assert(p.valid);
	ck_assert(p.cores_bind_here);
	ck_assert_str_eq(p.relief[0].resource, "cores");
	ck_assert_ptr_nonnull(strstr(p.machine_verdict, "the cores are the limit"));
}
END_TEST

/*
 * The hypervisor's steal is counted apart: of 1.5 s busy in a 1 s window
 * on 2 CPUs, 0.4 s was steal, 0.5 s the daemon's and 0.1 s the client's,
 * so other processes used 0.5 cores, not 0.9, and the verdict says what
 * the hypervisor took.
 */
START_TEST(steal_is_the_hypervisors_not_other_processes)
{
	model_window_thread(&m, 1, "alpha", 0.5, 0);
	compute_in((struct projection_inputs){.cores_available = 2,
					      .bench_iops = 1000,
					      .machine_busy_cpu_s = 1.5,
					      .machine_steal_cpu_s = 0.4,
					      .bench_cpu_s = 0.1,
					      .wake_ns = -1});
	ck_assert(p.valid);
	near(p.stolen_cores, 0.4);
	near(p.other_cores, 0.5);
	ck_assert_ptr_nonnull(
		strstr(p.machine_verdict, "the hypervisor took 0.40 (steal) (idle 0.50)"));
}
END_TEST

/*
 * A pool of 4 threads, 0.45 s of CPU each at 1000 ops/s: 1.8 ms per op
 * over 4 threads (2222 ops/s), each thread alone 2222 too; on 1 core the
 * cores bind (556 ops/s), and relieving them gains up to the pool.
 */
START_TEST(cores_bind_on_a_small_machine_and_their_relief_is_the_next_bound)
{
	for (int i = 0; i < 4; i++)
		model_window_thread(&m, 10 + i, "tp_osd_tp", 0.45, 0);
	compute(1, 1000, -1, -1);
	ck_assert(p.valid);
	ck_assert(p.cores_bind_here);
	near(p.at[0].iops, 1000 / 1.8);
	ck_assert_str_eq(p.at[0].bound_by, "cores");
	near(p.at[3].iops, 4000 / 1.8);
	ck_assert_str_eq(p.relief[0].resource, "cores");
	near(p.relief[0].iops_gain, 4000 / 1.8 - 1000 / 1.8);
	ck_assert(p.bench_cores < 0 && p.other_cores < 0);
	ck_assert_ptr_nonnull(strstr(p.machine_verdict, "the cores are the limit"));
	ck_assert_ptr_nonnull(strstr(p.machine_verdict, "not recorded"));
}
END_TEST

/*
 * A benchmark with one op in flight (1000 IOPS at 1 ms: Little's law, 1.0)
 * on a daemon whose CPU alone allows 3333 ops/s on 1 core: the loop binds
 * at 1000 here. Its ops' paths: 600 us each, 200 us of it run-queue wait:
 * on more cores its latency is 1000 - 200 = 800 us, 1250 ops/s (from 2
 * cores when recorded on 1, from 3 when recorded on 2). With
 * 16 ops in flight each op's path holds the others' work: not modelled.
 */
START_TEST(a_closed_loop_with_one_op_in_flight_binds_at_its_latency)
{
	struct projection_inputs in = {.cores_available = 1,
				       .bench_iops = 1000,
				       .bench_lat_s = 1e-3,
				       .machine_busy_cpu_s = -1,
				       .bench_cpu_s = -1,
				       .wake_ns = -1,
				       .path_ops = 1000,
				       .path_latency_ns = 1000 * 600000ull,
				       .path_runq_ns = 1000 * 200000ull};

	model_window_thread(&m, 1, "alpha", 0.3, 0);
	compute_in(in);
	ck_assert(p.valid && p.loop.valid);
	near(p.loop.in_flight, 1);
	near(p.loop.lat_more_s, 800e-6);
	near(p.at[0].iops, 1000);
	ck_assert_str_eq(p.at[0].bound_by, PROJECTION_LOOP_BOUND);
	near(p.at[1].iops, 1250);
	ck_assert_str_eq(p.at[7].bound_by, PROJECTION_LOOP_BOUND);
	ck_assert_str_eq(p.relief[0].resource, "the closed loop");
	near(p.relief[0].iops_gain, 1 / 300e-6 - 1000);
	ck_assert_ptr_nonnull(strstr(p.daemon_verdict, "one op in flight binds before it here"));
	teardown();
	setup();
	model_window_thread(&m, 1, "alpha", 0.3, 0);
	in.cores_available = 2;
	compute_in(in);
	ck_assert(p.loop.valid);
	near(p.at[1].iops, 1000);
	near(p.at[2].iops, 1250);
	teardown();
	setup();
	model_window_thread(&m, 1, "alpha", 0.3, 0);
	in.cores_available = 1;
	in.bench_lat_s = 16e-3;
	compute_in(in);
	ck_assert(!p.loop.valid);
	ck_assert_ptr_nonnull(strstr(p.loop.why_not, "more than one op in flight"));
	near(p.at[0].iops, 1 / 300e-6);
	ck_assert_str_eq(p.at[0].bound_by, "cores");
}
END_TEST

START_TEST(no_projection_without_cpu_figures_or_throughput)
{
	model_window_hold(&m, 0xa0, W / 2);
	compute(2, 1000, -1, -1);
	ck_assert(!p.valid);
	ck_assert_ptr_nonnull(strstr(p.why_not, "threads.tsv"));
	teardown();
	setup();
	model_window_thread(&m, 1, "alpha", 0.3, 0);
	compute(2, 0, -1, -1);
	ck_assert(!p.valid);
	ck_assert_ptr_nonnull(strstr(p.why_not, "no throughput"));
}
END_TEST

/*
 * A Ceph OSD of a host whose benchmark ran on another: no trace ops, no
 * benchmark figure, 3000 client ops and sub-ops by its perf counters over
 * the window (W, 1 s): 3000 ops/s, and its 0.3 s of CPU 100 us per op. A
 * benchmark figure, where there is one, comes first.
 */
START_TEST(an_osds_perf_counters_give_the_throughput_without_trace_or_benchmark)
{
	model_window_thread(&m, 1, "alpha", 0.3, 0);
	compute_in((struct projection_inputs){.cores_available = 2,
					      .osd_ops = 3000,
					      .machine_busy_cpu_s = -1,
					      .bench_cpu_s = -1,
					      .wake_ns = -1});
	ck_assert(p.valid);
	ck_assert_str_eq(p.iops_source, "perf counters");
	near(p.iops_measured, 3000 / (W / 1e9));
	near(p.cpu_s_per_op, 0.3 / 3000);
	corecap_projection_compute(&p, &(struct projection_inputs){.model = &m,
								   .pools = &pools,
								   .cores_available = 2,
								   .bench_iops = 1000,
								   .osd_ops = 3000,
								   .machine_busy_cpu_s = -1,
								   .bench_cpu_s = -1,
								   .wake_ns = -1});
	ck_assert_str_eq(p.iops_source, "benchmark");
	near(p.iops_measured, 1000);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("projection");
	TCase *tc = tcase_create("projection");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, the_smallest_saturation_throughput_binds_at_each_core_count);
	tcase_add_test(tc, cores_bind_on_a_small_machine_and_their_relief_is_the_next_bound);
	tcase_add_test(tc, no_projection_without_cpu_figures_or_throughput);
	tcase_add_test(tc, an_osds_perf_counters_give_the_throughput_without_trace_or_benchmark);
	tcase_add_test(tc, a_saturated_lock_pays_a_wake_up_per_hand_off_only_if_held_longer);
	tcase_add_test(tc, a_pinned_daemon_that_fills_its_cpus_is_bound_by_the_cores);
	tcase_add_test(tc, steal_is_the_hypervisors_not_other_processes);
	tcase_add_test(tc, a_closed_loop_with_one_op_in_flight_binds_at_its_latency);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
