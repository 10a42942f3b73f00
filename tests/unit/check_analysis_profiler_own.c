/*
 * analysis/model/profiler_own.c: which threads, modules, locks, wait-for
 * edges and run-queue credits are the profiler's own, over thread names,
 * lock tables and scheduler records built by hand; and that --keep-profiler
 * (keep) classifies and counts without cutting.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model/profiler_own.h"

#include "check_run.h"
#include "path_fixture.h"

enum { A = 10, U = 40, COL = 50, COL_PID = 500, HOG = 99 };

static struct profiler_own p;

static void setup(void)
{
	path_fixture_setup();
	corecap_profiler_own_init(&p, "refosd", COL_PID);
}

static void teardown(void)
{
	corecap_profiler_own_release(&p);
	path_fixture_teardown();
}

START_TEST(threads_by_the_names_the_profiler_gives_them)
{
	struct profiler_own any, longer;

	ck_assert(corecap_profiler_is_thread_name(&p, "refosd-ust"));
	ck_assert(corecap_profiler_is_thread_name(&p, "corecap-dump"));
	ck_assert(!corecap_profiler_is_thread_name(&p, "msgr-worker-0"));
	ck_assert(!corecap_profiler_is_thread_name(&p, "refosd"));
	ck_assert(!corecap_profiler_is_thread_name(&p, "other-ust")); /* not this daemon's */
	ck_assert(!corecap_profiler_is_thread_name(&p, "refo-ust"));
	ck_assert(!corecap_profiler_is_thread_name(&p, "-ust"));
	ck_assert(!corecap_profiler_is_thread_name(&p, ""));
	ck_assert(!corecap_profiler_is_thread_name(&p, NULL));
	/* LTTng-UST keeps 11 bytes of a longer name before its suffix. */
	corecap_profiler_own_init(&longer, "ceph-osd-worker", 0);
	ck_assert(corecap_profiler_is_thread_name(&longer, "ceph-osd-wo-ust"));
	ck_assert(!corecap_profiler_is_thread_name(&longer, "ceph-osd-w-ust"));
	corecap_profiler_own_release(&longer);
	/* The daemon's name unknown: any "-ust" thread. */
	corecap_profiler_own_init(&any, NULL, 0);
	ck_assert(corecap_profiler_is_thread_name(&any, "other-ust"));
	ck_assert(!corecap_profiler_is_thread(&any, COL_PID, NULL));
	corecap_profiler_own_release(&any);
	/* The collector's main thread by its PID alone. */
	ck_assert(corecap_profiler_is_thread(&p, COL_PID, NULL));
	ck_assert(!corecap_profiler_is_thread(&p, A, "tp_osd_tp"));
}
END_TEST

/* Addresses 0x1000.. in liblttng-ust, 0x2000.. in libprofiler, 0x3000..
 * in libunwind, 0x4000.. in LTTng-UST's wait page, 0x5000.. in the daemon. */
static const char *module_of(void *ctx, uint64_t addr)
{
	static const char *const mods[] = {"/usr/lib/x86_64-linux-gnu/liblttng-ust.so.1.0.0",
					   "/usr/lib/libprofiler.so.0.5.5",
					   "/usr/lib/x86_64-linux-gnu/libunwind.so.8",
					   "/dev/shm/lttng-ust-wait-8-0", "/usr/bin/refosd"};

	(void)ctx;
	return addr >= 0x1000 && addr < 0x6000 ? mods[addr / 0x1000 - 1] : NULL;
}

START_TEST(modules_frames_and_lock_sites)
{
	ck_assert(corecap_profiler_is_module("/opt/corecap/lib/libcorecap-preload.so"));
	ck_assert(corecap_profiler_is_module("libcorecap-tp.so"));
	ck_assert(corecap_profiler_is_module("liblttng-ust-common.so.1.0.0"));
	ck_assert(corecap_profiler_is_module("libtcmalloc_and_profiler.so.4"));
	ck_assert(!corecap_profiler_is_module("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	ck_assert(!corecap_profiler_is_module("/usr/lib/libtcmalloc.so.4"));
	ck_assert(!corecap_profiler_is_module(NULL));
	/* No module placed: nothing is the profiler's by address. */
	ck_assert(!corecap_profiler_is_frame(&p, 0x1010));
	p.module_of = module_of;
	for (uint64_t a = 0x1010; a < 0x5000; a += 0x1000)
		ck_assert(corecap_profiler_is_frame(&p, a));
	ck_assert(!corecap_profiler_is_frame(&p, 0x5010));
	ck_assert(!corecap_profiler_is_frame(&p, 0x9000));
	ck_assert(!corecap_profiler_is_frame(&p, 0));
	ck_assert(corecap_profiler_is_lock_site(&p, 0x4000, 0x1010)); /* the listener's wait */
	ck_assert(corecap_profiler_is_lock_site(&p, 0x9000, 0x3010)); /* libunwind's lock */
	ck_assert(!corecap_profiler_is_lock_site(&p, 0x9000, 0x5010));
}
END_TEST

static void thread(struct thread_table *t, int32_t tid, const char *name, uint64_t cpu_ns)
{
	struct model_thread *th = corecap_thread_table_get(t, tid);

	ck_assert_ptr_nonnull(th);
	corecap_thread_table_name(th, name, TNAME_PROCNAME);
	th->has_kstates = true;
	th->k_running_ns = cpu_ns;
}

START_TEST(threads_move_out_of_the_table_unless_kept)
{
	struct thread_table t;
	struct model_thread *kept;

	for (int keep = 0; keep < 2; keep++) {
		corecap_thread_table_init(&t);
		thread(&t, 1, "refosd", 100);
		thread(&t, 2, "refosd-ust", 3000);
		thread(&t, 3, "msgr-worker-0", 5000);
		thread(&t, 4, "corecap-dump", 700);
		thread(&t, 5, "refosd-ust", 300);
		kept = corecap_thread_table_find(&t, 3);
		p.keep = keep;
		ck_assert_int_eq(corecap_profiler_own_split_threads(&p, &t), 0);
		ck_assert_uint_eq(p.threads.len, 3);
		ck_assert_uint_eq(p.threads_cpu_ns, 4000);
		ck_assert_uint_eq(t.len, keep ? 5 : 2);
		ck_assert_ptr_eq(corecap_thread_table_find(&t, 3), kept); /* the same thread */
		ck_assert(!corecap_thread_table_find(&t, 2) == !keep);
		ck_assert(!corecap_thread_table_find(&t, 4) == !keep);
		ck_assert_ptr_nonnull(corecap_thread_table_find(&t, 1));
		ck_assert_str_eq(corecap_thread_table_find(&p.threads, 5)->name, "refosd-ust");
		corecap_thread_table_release(&t);
		corecap_profiler_own_release(&p);
		corecap_profiler_own_init(&p, "refosd", COL_PID);
	}
}
END_TEST

static struct model_lock *lock(struct lock_table *t, uint64_t addr, uint64_t site, int32_t waiter)
{
	struct model_lock *l = corecap_lock_table_get(t, addr);
	struct lock_site *s;
	bool created;

	ck_assert_ptr_nonnull(l);
	s = corecap_lock_table_site(l, site, &created);
	ck_assert_ptr_nonnull(s);
	s->wait_ns = 1000;
	ck_assert_int_eq(corecap_lock_tid_add(&l->waiters, &l->n_waiters, waiter, 1000), 0);
	return l;
}

START_TEST(locks_of_the_profiler_are_marked_and_its_holders_dropped)
{
	struct thread_table t;
	struct lock_table lt;
	struct model_lock *wait_page, *unwind, *own_only, *daemon;

	for (int keep = 0; keep < 2; keep++) {
		corecap_thread_table_init(&t);
		corecap_lock_table_init(&lt);
		thread(&t, A, "tp_osd_tp", 0);
		thread(&t, U, "refosd-ust", 0);
		p.module_of = module_of;
		p.keep = keep;
		ck_assert_int_eq(corecap_profiler_own_split_threads(&p, &t), 0);
		wait_page = lock(&lt, 0x4000, 0x1010, U);
		unwind = lock(&lt, 0x9000, 0x3010, A);
		own_only = lock(&lt, 0x9100, 0x5010, U);
		daemon = lock(&lt, 0x9200, 0x5020, A);
		ck_assert_int_eq(corecap_lock_tid_add(&daemon->holders, &daemon->n_holders, A, 10),
				 0);
		ck_assert_int_eq(
			corecap_lock_tid_add(&daemon->holders, &daemon->n_holders, COL_PID, 1), 0);
		ck_assert_int_eq(corecap_lock_tid_add(&daemon->holders, &daemon->n_holders, U, 1),
				 0);
		corecap_profiler_own_mark_locks(&p, &lt);
		ck_assert(wait_page->profiler == !keep);
		ck_assert(unwind->profiler == !keep);
		ck_assert(own_only->profiler == !keep);
		ck_assert(!daemon->profiler);
		ck_assert_uint_eq(daemon->n_holders, keep ? 3 : 1);
		ck_assert_int_eq(daemon->holders[0].tid, A);
		ck_assert_uint_eq(p.locks_cut, keep ? 0 : 3);
		ck_assert_uint_eq(p.holders_cut, keep ? 0 : 2);
		corecap_lock_table_release(&lt);
		corecap_thread_table_release(&t);
		corecap_profiler_own_release(&p);
		corecap_profiler_own_init(&p, "refosd", COL_PID);
	}
}
END_TEST

/*
 * A (op 1 from 100) is preempted on CPU 0 at 110 by HOG (another
 * process), COL (the collector's thread) holds the CPU from 120, U (an
 * LTTng-UST thread of the daemon) from 130; U sleeps at 150 and A runs at
 * 160 (the CPU idle), ending the op at 180. Its runqueue of 50: 10 behind
 * another process, 10 behind the collector, 20 behind U, 10 an idle CPU:
 * 30 ns behind the profiler.
 */
START_TEST(runqueue_behind_the_profiler_and_its_cost)
{
	struct profiler_cost c;
	uint64_t ns, ops;

	kr_track(&b, 1, U, "refosd-ust");
	kr_switch(&b, 0, 1, 0, 'S', A);
	kr_switch(&b, 0, 110, A, 'R', HOG)->flags = CORECAP_KSWITCH_PREV_TARGET;
	kr_switch(&b, 0, 120, HOG, 'R', COL)->flags = 0;
	kr_switch(&b, 0, 130, COL, 'R', U)->flags = CORECAP_KSWITCH_NEXT_TARGET;
	kr_switch(&b, 0, 150, U, 'S', 0);
	kr_switch(&b, 0, 160, 0, 'S', A);
	kr_holder(&b, 200, HOG, HOG, "hog");
	kr_holder(&b, 200, COL, COL_PID, "corecap");
	cp.collector_pid = COL_PID;
	corecap_critical_path_set_records(&cp, recs, kr_index(&b, 0, recs, 4096));
	feed(MEV_OP_BEGIN, 100, A, 1);
	feed(MEV_OP_END, 180, A, 1);
	ck_assert_int_eq(corecap_critical_path_finish(&cp), 0);
	ck_assert_uint_eq(corecap_critical_path_type(&cp, 0)->ns[CP_RUNQUEUE], 50);
	/* Without the critical path, nothing is measured. */
	corecap_profiler_runq_behind(&p, &ns, &ops);
	ck_assert_uint_eq(ops, 0);
	corecap_profiler_cost(&p, 0, -1, &c);
	ck_assert(c.runq_us_per_op < 0 && c.collector_cores < 0);
	p.cp = &cp;
	ck_assert(corecap_profiler_is_thread(&p, COL, NULL));
	ck_assert(corecap_profiler_is_thread(&p, U, NULL));
	ck_assert(!corecap_profiler_is_thread(&p, HOG, NULL));
	corecap_profiler_runq_behind(&p, &ns, &ops);
	ck_assert_uint_eq(ns, 30);
	ck_assert_uint_eq(ops, 1);
	/* The path's top pairs leave the profiler's threads out, unless kept. */
	{
		const struct cp_type *t = corecap_critical_path_type(&cp, 0);
		struct cp_top v[8];
		size_t n = corecap_profiler_path_top(&p, t, v, 8), all;
		uint64_t profs = 0;

		for (size_t i = 0; i < n; i++)
			ck_assert(v[i].tid != COL && v[i].tid != U);
		ck_assert_uint_ge(n, 1);
		p.keep = true;
		all = corecap_profiler_path_top(&p, t, v, 8);
		p.keep = false;
		for (size_t i = 0; i < all; i++)
			if (v[i].cat == CP_RUNQUEUE && (v[i].tid == COL || v[i].tid == U))
				profs += v[i].ns;
		ck_assert_uint_eq(profs, 30);
		ck_assert_uint_gt(all, n);
		ck_assert_uint_eq(corecap_profiler_path_top(NULL, t, v, 8), all);
	}
	p.threads_cpu_ns = 200000000; /* 0.2 s of its threads in a 2 s window */
	corecap_profiler_cost(&p, 2000000000, 0.5, &c);
	ck_assert_double_eq_tol(c.threads_cores, 0.1, 1e-9);
	ck_assert_double_eq_tol(c.collector_cores, 0.25, 1e-9);
	ck_assert_double_eq_tol(c.cpu_cores, 0.35, 1e-9);
	ck_assert_double_eq_tol(c.runq_us_per_op, 0.03, 1e-9);
	/* The collector's CPU not recorded: the threads' alone, the sum unknown. */
	corecap_profiler_cost(&p, 2000000000, -1, &c);
	ck_assert(c.collector_cores < 0 && c.cpu_cores < 0);
	ck_assert_double_eq_tol(c.threads_cores, 0.1, 1e-9);
}
END_TEST

static struct cp_edge *edges(size_t *n)
{
	struct cp_edge *e;

	ck_assert_int_eq(corecap_critical_path_waitfor(&cp, &e, n), 0);
	return e;
}

static const struct cp_edge *edge_to(const struct cp_edge *e, size_t n, const char *from,
				     const char *to)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(e[i].from, from) && !strcmp(e[i].to, to))
			return &e[i];
	return NULL;
}

/*
 * A (tp_osd_tp) sleeps 10..40 until HOG (another process) wakes it, then
 * 50..70 until COL (the collector: its sampler's interrupt) does; U
 * (refosd-ust) sleeps 1..90 until A wakes it. The collector's wake is the
 * profiler's edge, not another process's; with the profiler cut, its edge
 * and U's are gone and the others stay whole.
 */
START_TEST(waitfor_the_samplers_wakes_are_the_profilers)
{
	struct cp_edge *e;
	const struct cp_edge *x;
	size_t n;

	kr_track(&b, 1, A, "tp_osd_tp");
	kr_track(&b, 1, U, "refosd-ust");
	kr_switch(&b, 0, 1, 0, 'S', A);
	kr_switch(&b, 1, 1, 0, 'S', U);
	kr_switch(&b, 1, 1, U, 'S', 0);
	kr_switch(&b, 0, 10, A, 'S', 0);
	kr_waking(&b, 0, 40, A, HOG);
	kr_switch(&b, 0, 41, 0, 'S', A);
	kr_switch(&b, 0, 50, A, 'S', 0);
	kr_waking(&b, 1, 70, A, COL);
	kr_switch(&b, 0, 71, 0, 'S', A);
	kr_waking(&b, 0, 90, U, A);
	kr_switch(&b, 1, 91, 0, 'S', U);
	/* The collector's HOLDER record comes after its wake, as the collector writes it. */
	kr_holder(&b, 100, COL, COL_PID, "corecap");
	kr_holder(&b, 100, HOG, HOG, "hog");
	cp.collector_pid = COL_PID;
	corecap_critical_path_set_records(&cp, recs, kr_index(&b, 0, recs, 4096));
	cp.ws = 1;
	cp.we = 1000;
	ck_assert_int_eq(corecap_critical_path_finish(&cp), 0);
	e = edges(&n);
	ck_assert_ptr_nonnull(x = edge_to(e, n, "tp_osd_tp", CP_POOL_OTHER_PROCESS));
	ck_assert_uint_eq(x->ns, 30);
	ck_assert_uint_eq(x->wakes, 1);
	ck_assert_ptr_nonnull(x = edge_to(e, n, "tp_osd_tp", CP_POOL_PROFILER));
	ck_assert_uint_eq(x->ns, 20);
	ck_assert_uint_eq(x->wakes, 1);
	ck_assert_ptr_nonnull(x = edge_to(e, n, "refosd-ust", "tp_osd_tp"));
	ck_assert_uint_eq(x->ns, 89);
	free(e);
	cp.cut_pool = corecap_profiler_cuts_pool;
	cp.cut_ctx = &p;
	e = edges(&n);
	ck_assert_ptr_nonnull(x = edge_to(e, n, "tp_osd_tp", CP_POOL_OTHER_PROCESS));
	ck_assert_uint_eq(x->ns, 30);
	ck_assert_ptr_null(edge_to(e, n, "tp_osd_tp", CP_POOL_PROFILER));
	for (size_t i = 0; i < n; i++)
		ck_assert(strcmp(e[i].from, "refosd-ust") && strcmp(e[i].to, "refosd-ust"));
	free(e);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("profiler_own");
	TCase *tc = tcase_create("profiler_own");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, threads_by_the_names_the_profiler_gives_them);
	tcase_add_test(tc, modules_frames_and_lock_sites);
	tcase_add_test(tc, threads_move_out_of_the_table_unless_kept);
	tcase_add_test(tc, locks_of_the_profiler_are_marked_and_its_holders_dropped);
	tcase_add_test(tc, runqueue_behind_the_profiler_and_its_cost);
	tcase_add_test(tc, waitfor_the_samplers_wakes_are_the_profilers);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
