/*
 * analysis/model/pool_table.c: a thread's waits with one source per
 * state (corecap_thread_waits) and the pools built from them.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/pool_table.h"

#include "check_run.h"

#define MS 1000000ull

static struct model_thread shim_thread(void)
{
	struct model_thread th = {.tid = 7, .has_samples = true, .span_ns = 1000 * MS};

	th.cpu_ns = 40 * MS;
	th.runq_ns = 144 * MS;
	th.lock_wait_ns = 100 * MS;
	th.cond_wait_ns = 866 * MS; /* includes the run-queue wait after each wake-up */
	th.logging_ns = 30 * MS;
	th.io_ns[CORECAP_IO_DATA] = 60 * MS;
	th.io_ns[CORECAP_IO_NET] = 20 * MS;
	return th;
}

static void add_kstates(struct model_thread *th, uint64_t futex, uint64_t blocked)
{
	th->has_kstates = true;
	th->k_running_ns = th->cpu_ns;
	th->k_runnable_ns = th->runq_ns;
	th->k_futex_ns = futex;
	th->k_blocked_ns = blocked;
	ck_assert_uint_eq(th->cpu_ns + th->runq_ns + futex + blocked, th->span_ns);
}

START_TEST(without_kernel_states_the_shim_figures_stand)
{
	struct model_thread th = shim_thread();
	struct thread_waits w;

	corecap_thread_waits(&th, &w);
	ck_assert_uint_eq(w.lock_ns, 100 * MS);
	ck_assert_uint_eq(w.cond_ns, 866 * MS);
	ck_assert_uint_eq(w.logging_ns, 30 * MS);
	ck_assert_uint_eq(corecap_io_sum(w.io_ns), 80 * MS);
}
END_TEST

START_TEST(with_kernel_states_lock_and_cond_share_the_futex_time)
{
	struct model_thread th = shim_thread();
	struct thread_waits w;

	add_kstates(&th, 776 * MS, 40 * MS);
	corecap_thread_waits(&th, &w);
	/* 966 ms of shim waits fitted into 776 ms of futex time, 100:866 kept. */
	ck_assert_uint_eq(w.lock_ns + w.cond_ns, 776 * MS);
	ck_assert_uint_eq(w.lock_ns, 100 * MS * 776 / 966);
	/* 80 ms of I/O calls, 40 ms of them blocked: each class halved. */
	ck_assert_uint_eq(w.io_ns[CORECAP_IO_DATA], 30 * MS);
	ck_assert_uint_eq(w.io_ns[CORECAP_IO_NET], 10 * MS);
	ck_assert_uint_le(th.cpu_ns + th.runq_ns + w.lock_ns + w.cond_ns + corecap_io_sum(w.io_ns),
			  th.span_ns);
	ck_assert_uint_eq(w.logging_ns, 30 * MS);
}
END_TEST

START_TEST(waits_within_the_kernels_time_are_kept)
{
	struct model_thread th = shim_thread();
	struct thread_waits w;

	th.cond_wait_ns = 300 * MS;
	add_kstates(&th, 600 * MS, 216 * MS);
	corecap_thread_waits(&th, &w);
	ck_assert_uint_eq(w.lock_ns, 100 * MS);
	ck_assert_uint_eq(w.cond_ns, 300 * MS);
	ck_assert_uint_eq(corecap_io_sum(w.io_ns), 80 * MS);
}
END_TEST

START_TEST(a_pool_of_kernel_threads_never_passes_its_time)
{
	struct thread_table t;
	struct pool_table p;

	corecap_thread_table_init(&t);
	for (int i = 0; i < 3; i++) {
		struct model_thread *th = corecap_thread_table_get(&t, 100 + i);

		ck_assert_ptr_nonnull(th);
		*th = shim_thread();
		th->tid = 100 + i;
		snprintf(th->pool, sizeof(th->pool), "tp_osd_tp");
		add_kstates(th, 776 * MS, 40 * MS);
	}
	ck_assert_int_eq(corecap_pool_table_build(&p, &t, 1000 * MS), 0);
	ck_assert_uint_eq(p.len, 1);
	ck_assert_uint_eq(p.pools[0].n_kstates, 3);
	ck_assert_uint_le(p.pools[0].cpu_ns + p.pools[0].runq_ns + p.pools[0].lock_wait_ns +
				  p.pools[0].cond_wait_ns + corecap_io_sum(p.pools[0].io_ns),
			  p.pools[0].span_ns);
	ck_assert_uint_eq(p.pools[0].lock_wait_ns + p.pools[0].cond_wait_ns, 3 * 776 * MS);
	corecap_pool_table_release(&p);
	corecap_thread_table_release(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_pool_table");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, without_kernel_states_the_shim_figures_stand);
	tcase_add_test(tc, with_kernel_states_lock_and_cond_share_the_futex_time);
	tcase_add_test(tc, waits_within_the_kernels_time_are_kept);
	tcase_add_test(tc, a_pool_of_kernel_threads_never_passes_its_time);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
