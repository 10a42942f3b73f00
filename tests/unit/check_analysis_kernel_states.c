/*
 * analysis/model/kernel_states.c: thread states from scheduler records
 * built by hand, with known answers, and conservation (the four states sum
 * to each thread's span in the window).
 */
#include <check.h>
#include <stdlib.h>

#include "kernel_records.h"
#include "model/kernel_states.h"

#include "check_run.h"

#define WS 1000
#define WE 1100

static struct kbuf b;
static struct kernel_states ks;

static void setup(void)
{
	b = (struct kbuf){0};
	ck_assert_int_eq(corecap_kernel_states_init(&ks, WS, WE), 0);
}

static void teardown(void)
{
	corecap_kernel_states_release(&ks);
	free(b.p);
}

static void run(void)
{
	const struct corecap_krec *v[256];
	size_t n = kr_index(&b, 0, v, 256);

	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(corecap_kernel_states_consume(&ks, v[i]), 0);
	corecap_kernel_states_finish(&ks);
}

static const struct kstate_thread *thread(int32_t tid)
{
	for (size_t i = 0; i < ks.len; i++)
		if (ks.all[i]->tid == tid)
			return ks.all[i];
	ck_abort_msg("no thread %d", tid);
	return NULL;
}

static void expect(int32_t tid, uint64_t running, uint64_t runnable, uint64_t futex,
		   uint64_t blocked)
{
	const struct kstate_thread *th = thread(tid);

	ck_assert_uint_eq(th->ns[KSTATE_RUNNING], running);
	ck_assert_uint_eq(th->ns[KSTATE_RUNNABLE], runnable);
	ck_assert_uint_eq(th->ns[KSTATE_FUTEX], futex);
	ck_assert_uint_eq(th->ns[KSTATE_BLOCKED], blocked);
	/* Conservation: every nanosecond of the span in exactly one state. */
	ck_assert_uint_eq(running + runnable + futex + blocked, th->end_ns - th->start_ns);
}

/* Two busy threads on one CPU, preempting each other every 10 ns: 50% runnable each. */
START_TEST(two_threads_on_one_cpu_are_half_runnable)
{
	for (uint64_t t = WS; t < WE; t += 20) {
		kr_switch(&b, 0, t, 2, 'R', 1);
		kr_switch(&b, 0, t + 10, 1, 'R', 2);
	}
	run();
	expect(1, 50, 50, 0, 0);
	expect(2, 50, 50, 0, 0);
	ck_assert_uint_eq(ks.s->inconsistent, 0);
}
END_TEST

/* A futex wait: enter, sleep, woken, back on a CPU, exit. */
START_TEST(futex_wait_is_blocked_on_futex_then_runnable)
{
	kr_futex_enter(&b, 0, WS + 10, 1, 128, 0x1000);
	kr_switch(&b, 0, WS + 11, 1, 'S', 0);
	kr_waking(&b, 1, WS + 30, 1, 2);
	kr_switch(&b, 0, WS + 35, 0, 'S', 1);
	kr_futex_exit(&b, 0, WS + 36, 1, 0);
	/* Blocked elsewhere (not in a futex call) from 60 to 80. */
	kr_switch(&b, 0, WS + 60, 1, 'S', 0);
	kr_waking(&b, 1, WS + 80, 1, 0);
	kr_switch(&b, 0, WS + 90, 0, 'S', 1);
	run();
	expect(1, 11 + 25 + 10, 5 + 10, 19, 20);
}
END_TEST

/* Asleep on a futex since before the window: its first record is the waking. */
START_TEST(a_wait_begun_before_the_window_is_futex)
{
	kr_waking(&b, 0, WS + 20, 1, 2);
	kr_switch(&b, 0, WS + 22, 0, 'S', 1);
	kr_futex_exit(&b, 0, WS + 23, 1, 0);
	/* Thread 3 blocked elsewhere since before: it then calls no futex but switches out. */
	kr_waking(&b, 1, WS + 40, 3, 0);
	kr_switch(&b, 1, WS + 41, 0, 'S', 3);
	kr_switch(&b, 1, WS + 50, 3, 'S', 0);
	run();
	expect(1, 78, 2, 20, 0);
	expect(3, 9, 1, 0, 40 + 50);
}
END_TEST

START_TEST(a_tracked_thread_without_records_slept_all_window)
{
	kr_track(&b, WS, 5, "idle-thread");
	run();
	expect(5, 0, 0, 0, WE - WS);
	ck_assert_str_eq(thread(5)->comm, "idle-thread");
}
END_TEST

/* A thread created in the window: runnable from its fork until it runs. */
START_TEST(a_new_thread_starts_at_its_fork)
{
	kr_fork(&b, 0, WS + 40, 1, 7, "worker");
	kr_switch(&b, 0, WS + 45, 1, 'R', 7);
	run();
	expect(7, 55, 5, 0, 0);
	ck_assert_uint_eq(thread(7)->start_ns, WS + 40);
	expect(1, 45, 55, 0, 0);
}
END_TEST

/* Records before the window set the state but count only inside it. */
START_TEST(records_outside_the_window_are_clipped)
{
	kr_switch(&b, 0, WS - 50, 0, 'S', 1);
	kr_switch(&b, 0, WS + 50, 1, 'R', 0);
	kr_switch(&b, 0, WE + 20, 0, 'S', 1);
	run();
	expect(1, 50, 50, 0, 0);
}
END_TEST

/* A switch-in of a thread that was not runnable (a lost waking) is counted. */
START_TEST(a_contradiction_is_counted)
{
	kr_switch(&b, 0, WS + 10, 1, 'S', 0);
	kr_switch(&b, 0, WS + 20, 0, 'S', 1);
	run();
	ck_assert_uint_eq(ks.s->inconsistent, 1);
	expect(1, 10 + 80, 0, 0, 10);
}
END_TEST

/* The waker's CPU records the waking before the sleeper's CPU records its switch-out. */
START_TEST(a_waking_before_the_switch_out_leaves_it_runnable)
{
	kr_futex_enter(&b, 0, WS + 10, 1, 128, 0x1000);
	kr_waking(&b, 1, WS + 11, 1, 2);
	kr_switch(&b, 0, WS + 12, 1, 'S', 0);
	kr_switch(&b, 0, WS + 20, 0, 'S', 1);
	kr_futex_exit(&b, 0, WS + 21, 1, 0);
	run();
	expect(1, 12 + 80, 8, 0, 0);
	ck_assert_uint_eq(ks.s->inconsistent, 0);
}
END_TEST

/*
 * Thread 1's switch-out on CPU 0 is lost (perf drops a hit now and then):
 * at 50 CPU 0 switches from the idle task to thread 2, so 1 had left, after
 * CPU 0's last record of it (its futex wait at 20): asleep on the futex
 * from there, not running to the window's end. Thread 4 runs on CPU 1 all
 * along: CPU 0's records say nothing of it.
 */
START_TEST(a_lost_switch_out_is_inferred_from_its_cpu)
{
	kr_switch(&b, 0, WS + 10, 0, 'S', 1);
	kr_futex_enter(&b, 0, WS + 20, 1, 128, 0x1000);
	kr_switch(&b, 1, WS + 25, 0, 'S', 4);
	/* lost: kr_switch(&b, 0, WS + 30, 1, 'S', 0) */
	kr_switch(&b, 0, WS + 50, 0, 'S', 2);
	kr_switch(&b, 0, WS + 60, 2, 'S', 0);
	run();
	ck_assert_uint_eq(ks.s->lost_switch_outs, 1);
	expect(1, 10, 10, 80, 0);
	expect(2, 10, 50, 0, 40);
	expect(4, 75, 25, 0, 0);
}
END_TEST

/*
 * Thread 1 is switched out at 60 on CPU 0 without a switch-in: the
 * kernel's stream lacks some of the idle task's switches to a thread a
 * timer woke. It came on after CPU 0's last record (its waking by the
 * idle task at 40): running 40..60, not runnable.
 */
START_TEST(a_switch_out_without_a_switch_in_ran_from_the_cpus_last_record)
{
	kr_switch(&b, 0, WS + 10, 1, 'S', 0);
	kr_waking(&b, 0, WS + 40, 1, 0);
	/* not in the stream: kr_switch(&b, 0, WS + 45, 0, 'S', 1) */
	kr_switch(&b, 0, WS + 60, 1, 'S', 0);
	run();
	ck_assert_uint_eq(ks.s->lost_switch_ins, 1);
	expect(1, 10 + 20, 0, 0, 30 + 40);
}
END_TEST

/*
 * The eBPF producer writes a sleeping futex wait's entry 1 ns before its
 * switch-out, so a waking that ended the wait before the thread left its
 * CPU comes before the entry: it still leaves the thread runnable at the
 * switch-out (its switch-in at 20 follows no other waking).
 */
START_TEST(a_waking_before_the_entry_of_its_wait_leaves_it_runnable)
{
	kr_switch(&b, 0, WS + 5, 0, 'S', 1);
	kr_waking(&b, 1, WS + 10, 1, 2);
	kr_futex_enter(&b, 0, WS + 11, 1, 128, 0x1000);
	kr_switch(&b, 0, WS + 12, 1, 'S', 0);
	kr_switch(&b, 0, WS + 20, 0, 'S', 1);
	kr_futex_exit(&b, 0, WS + 21, 1, 0);
	run();
	expect(1, 7 + 80, 5 + 8, 0, 0);
	ck_assert_uint_eq(ks.s->inconsistent, 0);
}
END_TEST

/*
 * perf's records: a wait's entry, a waking that ended it before it slept,
 * its exit; the thread then sleeps elsewhere ('S' at 30, no futex call):
 * the waking is spent at the exit, the thread blocked until its next
 * waking at 50.
 */
START_TEST(a_waking_spent_by_its_wait_s_exit_leaves_no_runnable)
{
	kr_switch(&b, 0, WS + 5, 0, 'S', 1);
	kr_futex_enter(&b, 0, WS + 10, 1, 128, 0x1000);
	kr_waking(&b, 1, WS + 12, 1, 2);
	kr_futex_exit(&b, 0, WS + 14, 1, 0);
	kr_switch(&b, 0, WS + 30, 1, 'S', 0);
	kr_waking(&b, 1, WS + 50, 1, 2);
	kr_switch(&b, 0, WS + 60, 0, 'S', 1);
	run();
	expect(1, 25 + 40, 5 + 10, 0, 20);
	ck_assert_uint_eq(ks.s->inconsistent, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kernel_states");
	TCase *tc = tcase_create("states");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, two_threads_on_one_cpu_are_half_runnable);
	tcase_add_test(tc, futex_wait_is_blocked_on_futex_then_runnable);
	tcase_add_test(tc, a_wait_begun_before_the_window_is_futex);
	tcase_add_test(tc, a_tracked_thread_without_records_slept_all_window);
	tcase_add_test(tc, a_new_thread_starts_at_its_fork);
	tcase_add_test(tc, records_outside_the_window_are_clipped);
	tcase_add_test(tc, a_contradiction_is_counted);
	tcase_add_test(tc, a_waking_before_the_switch_out_leaves_it_runnable);
	tcase_add_test(tc, a_waking_before_the_entry_of_its_wait_leaves_it_runnable);
	tcase_add_test(tc, a_waking_spent_by_its_wait_s_exit_leaves_no_runnable);
	tcase_add_test(tc, a_lost_switch_out_is_inferred_from_its_cpu);
	tcase_add_test(tc, a_switch_out_without_a_switch_in_ran_from_the_cpus_last_record);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
