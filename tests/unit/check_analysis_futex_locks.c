/*
 * analysis/model/futex_locks.c: the lock table from futex records built
 * by hand: waits, holders (from the waking, else the last wake), holds
 * after a hand-over, sites from the sampled stacks, what is not a wait,
 * and which waits are contention (a mutex's) and which are idle (a
 * condition's, its re-lock), through the rows a reader sees (lock_rows).
 */
#include <check.h>
#include <stdlib.h>

#include "kernel_records.h"
#include "model/futex_locks.h"
#include "model/lock_rows.h"

#include "check_run.h"

#define WS   1000
#define WE   2000
#define LOCK 0x5000
#define COND 0x6008

/* FUTEX_WAIT|PRIVATE, FUTEX_WAKE|PRIVATE, FUTEX_WAIT_BITSET|PRIVATE */
#define OP_WAIT	       128
#define OP_WAKE	       129
#define OP_WAIT_BITSET 137

/* A mutex's wait: glibc's lowlevellock sleeps on 2, "locked with waiters". */
static void mutex_wait(struct kbuf *kb, uint32_t cpu, uint64_t t, int32_t tid, uint64_t uaddr)
{
	kr_futex_enter(kb, cpu, t, tid, OP_WAIT, uaddr)->val = CORECAP_FUTEX_LOCKED_WAITERS;
}

static struct kbuf b;
static struct lock_table t;
static struct futex_locks f;

/* Stacks by waiter: tid 1 waits at site 0xa1, tid 3 at 0xb1, others have none. */
static uint32_t stack_of(void *ctx, int32_t tid, uint64_t enter_ns, uint64_t *frames, uint32_t max)
{
	(void)ctx;
	(void)enter_ns;
	if (max < 2 || (tid != 1 && tid != 3))
		return 0;
	frames[0] = tid == 1 ? 0xa1 : 0xb1;
	frames[1] = 0xf0;
	return 2;
}

static void setup(void)
{
	b = (struct kbuf){0};
	corecap_lock_table_init(&t);
	corecap_futex_locks_init(&f, &t, WS, WE, stack_of, NULL);
}

static void teardown(void)
{
	corecap_futex_locks_release(&f);
	corecap_lock_table_release(&t);
	free(b.p);
}

static void run(void)
{
	const struct corecap_krec *v[256];
	size_t n = kr_index(&b, 0, v, 256);

	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(corecap_futex_locks_consume(&f, v[i]), 0);
	ck_assert_int_eq(corecap_futex_locks_finish(&f), 0);
}

static const struct model_lock *lock_at(uint64_t addr)
{
	for (size_t i = 0; i < t.len; i++)
		if (t.all[i]->addr == addr)
			return t.all[i];
	ck_abort_msg("no lock at 0x%llx", (unsigned long long)addr);
	return NULL;
}

/* Thread 2 holds the mutex; 1 waits 40 ns; 2's unlock wakes it; 1 holds 20 ns. */
START_TEST(a_hand_over_names_the_holder_and_the_hold)
{
	mutex_wait(&b, 0, WS + 10, 1, LOCK);
	kr_futex_enter(&b, 1, WS + 48, 2, OP_WAKE, LOCK);
	kr_waking(&b, 1, WS + 49, 1, 2);
	kr_futex_exit(&b, 1, WS + 49, 2, 1);
	kr_futex_exit(&b, 0, WS + 50, 1, 0);
	kr_futex_enter(&b, 0, WS + 70, 1, OP_WAKE, LOCK);
	kr_futex_exit(&b, 0, WS + 71, 1, 0);
	run();
	const struct model_lock *l = lock_at(LOCK);

	ck_assert_int_eq(l->source, LOCK_SOURCE_FUTEX);
	ck_assert_int_eq(l->kind, LOCK_KIND_FUTEX_WAIT);
	ck_assert_uint_eq(l->contentions, 1);
	ck_assert_uint_eq(l->wait_ns, 40);
	ck_assert_uint_eq(l->max_wait_ns, 40);
	ck_assert_uint_eq(corecap_lock_waited_ns(l), 40);
	ck_assert_uint_eq(l->n_waiters, 1);
	ck_assert_int_eq(l->waiters[0].tid, 1);
	ck_assert_uint_eq(l->n_holders, 1);
	ck_assert_int_eq(l->holders[0].tid, 2);
	ck_assert_uint_eq(l->holders[0].wait_ns, 40);
	ck_assert_uint_eq(f.q.holder_from_waking, 1);
	ck_assert_uint_eq(l->holds, 1);
	ck_assert_uint_eq(l->hold_ns, 20);
	ck_assert_uint_eq(l->n_sites, 1);
	ck_assert_uint_eq(l->sites[0].site, 0xa1);
	ck_assert_uint_eq(l->sites[0].sampled_waits, 1);
	ck_assert_uint_eq(l->n_stacks, 1);
	ck_assert_uint_eq(l->stacks[0].frames[1], 0xf0);
}
END_TEST

/* Without a waking (say, lost), the last FUTEX_WAKE on the word during the wait. */
START_TEST(without_a_waking_the_last_wake_is_the_holder)
{
	mutex_wait(&b, 0, WS + 10, 4, LOCK);
	kr_futex_enter(&b, 1, WS + 20, 5, OP_WAKE, LOCK + 8); /* another word */
	kr_futex_enter(&b, 1, WS + 30, 6, OP_WAKE, LOCK);
	kr_futex_exit(&b, 0, WS + 31, 4, 0);
	run();
	ck_assert_int_eq(lock_at(LOCK)->holders[0].tid, 6);
	ck_assert_uint_eq(f.q.holder_from_wake, 1);
	ck_assert_uint_eq(lock_at(LOCK)->n_sites, 0); /* tid 4 has no stack */
}
END_TEST

/* An interrupt's "waker" is whoever it interrupted: not a holder. */
START_TEST(a_waking_from_an_interrupt_names_nobody)
{
	kr_futex_enter(&b, 0, WS + 10, 4, OP_WAIT_BITSET, COND);
	kr_waking(&b, 1, WS + 20, 4, 9)->flags = CORECAP_KWAKING_HARDIRQ;
	kr_waking(&b, 1, WS + 20, 4, -1); /* perf could not name the waker */
	kr_futex_exit(&b, 0, WS + 21, 4, 0);
	run();
	ck_assert_uint_eq(lock_at(COND)->n_holders, 0);
	ck_assert_uint_eq(lock_at(COND)->holder_unknown, 1);
	ck_assert_int_eq(lock_at(COND)->kind, LOCK_KIND_FUTEX_WAIT_BITSET);
}
END_TEST

/* -EAGAIN did not sleep; a timed-out wait is a wait without a holder. */
START_TEST(what_is_not_a_wait)
{
	mutex_wait(&b, 0, WS + 10, 1, LOCK);
	kr_futex_exit(&b, 0, WS + 11, 1, -11);
	kr_futex_enter(&b, 0, WS + 20, 1, OP_WAIT_BITSET, COND);
	kr_futex_exit(&b, 0, WS + 120, 1, -110);
	kr_futex_exit(&b, 0, WS + 130, 7, 0); /* its enter came before the recording */
	run();
	ck_assert_uint_eq(f.q.waits, 2);
	ck_assert_uint_eq(f.q.waits_no_sleep, 1);
	ck_assert_uint_eq(f.q.waits_timed_out, 1);
	ck_assert_uint_eq(f.q.exits_unpaired, 1);
	ck_assert_uint_eq(t.len, 1);
	ck_assert_uint_eq(lock_at(COND)->wait_ns, 100);
	ck_assert_uint_eq(lock_at(COND)->n_holders, 0);
}
END_TEST

/* The eBPF producer's exits carry no result: a wait whose first waking
 * came from an interrupt timed out (a later waking does not end that
 * sleep); one a thread woke was handed over by it. */
START_TEST(without_a_result_the_first_waking_decides)
{
	const uint32_t unknown = CORECAP_KFUTEX_RESULT_UNKNOWN;

	kr_futex_enter(&b, 0, WS + 10, 4, OP_WAIT_BITSET, COND);
	kr_waking(&b, 1, WS + 20, 4, 9)->flags = CORECAP_KWAKING_IRQ;
	kr_waking(&b, 1, WS + 21, 4, 5);
	kr_futex_exit(&b, 0, WS + 30, 4, 0)->flags = unknown;
	mutex_wait(&b, 0, WS + 40, 1, LOCK);
	kr_futex_enter(&b, 1, WS + 48, 2, OP_WAKE, LOCK);
	kr_waking(&b, 1, WS + 49, 1, 2);
	kr_futex_exit(&b, 1, WS + 49, 2, 0)->flags = unknown;
	kr_futex_exit(&b, 0, WS + 50, 1, 0)->flags = unknown;
	kr_futex_enter(&b, 0, WS + 70, 1, OP_WAKE, LOCK);
	kr_futex_exit(&b, 0, WS + 71, 1, 0)->flags = unknown;
	run();
	ck_assert_uint_eq(f.q.waits, 2);
	ck_assert_uint_eq(f.q.waits_timed_out, 1);
	ck_assert_uint_eq(lock_at(COND)->wait_ns, 20);
	ck_assert_uint_eq(lock_at(COND)->n_holders, 0);
	ck_assert_uint_eq(lock_at(COND)->holder_unknown, 1);
	ck_assert_uint_eq(lock_at(LOCK)->wait_ns, 10);
	ck_assert_int_eq(lock_at(LOCK)->holders[0].tid, 2);
	ck_assert_uint_eq(lock_at(LOCK)->holds, 1);
	ck_assert_uint_eq(lock_at(LOCK)->hold_ns, 20);
}
END_TEST

/* Waits are clipped to the window; overlapping waits count once in waited time. */
START_TEST(waits_are_clipped_and_their_union_counted_once)
{
	mutex_wait(&b, 0, WS - 100, 1, LOCK);
	mutex_wait(&b, 1, WS + 10, 3, LOCK);
	kr_futex_exit(&b, 0, WS + 50, 1, 0);
	kr_futex_exit(&b, 1, WS + 80, 3, 0);
	mutex_wait(&b, 1, WE - 10, 3, LOCK);
	kr_futex_exit(&b, 1, WE + 90, 3, 0);
	run();
	const struct model_lock *l = lock_at(LOCK);

	ck_assert_uint_eq(l->contentions, 3);
	ck_assert_uint_eq(l->wait_ns, 50 + 70 + 10);
	ck_assert_uint_eq(corecap_lock_waited_ns(l), 80 + 10);
	ck_assert_uint_eq(l->n_waiters, 2);
	/* Two sites share the totals by their sampled waits' time. */
	ck_assert_uint_eq(l->n_sites, 2);
	ck_assert_uint_eq(l->sites[0].wait_ns + l->sites[1].wait_ns, l->wait_ns);
	ck_assert_uint_eq(l->sites[0].contentions + l->sites[1].contentions, l->contentions);
}
END_TEST

/* The rows a reader sees (lock_rows), by total wait. */
static struct lock_rows rows_of(void)
{
	struct lock_rows rows;

	ck_assert_int_eq(corecap_lock_rows_build(&rows, &t, LOCK_SORT_WAIT, false), 0);
	return rows;
}

/* The contention lock of a word (its mutex waits). */
static const struct model_lock *mutex_at(uint64_t addr)
{
	for (size_t i = 0; i < t.len; i++)
		if (t.all[i]->addr == addr && !t.all[i]->idle)
			return t.all[i];
	ck_abort_msg("no mutex waits at 0x%llx", (unsigned long long)addr);
	return NULL;
}

/* The idle lock of a word (its condition or re-lock waits). */
static const struct model_lock *idle_at(uint64_t addr)
{
	for (size_t i = 0; i < t.len; i++)
		if (t.all[i]->addr == addr && t.all[i]->idle)
			return t.all[i];
	ck_abort_msg("no idle waits at 0x%llx", (unsigned long long)addr);
	return NULL;
}

/*
 * Ten workers wait for work on their shard's condition (FUTEX_WAIT_BITSET
 * for 0, glibc's __g_signals) most of the window, each woken by thread
 * 20; two threads contend for a mutex 100 ns each. The mutex's row comes
 * first and alone among the contention rows; the conditions' ten words
 * (one site: a family) are idle rows after it, with no busy time, though
 * their wait is 40 times the mutex's.
 */
START_TEST(condition_waits_of_ten_workers_do_not_lead)
{
	struct lock_rows rows;

	for (int32_t w = 0; w < 10; w++) {
		kr_futex_enter(&b, 0, WS + 100, 30 + w, OP_WAIT_BITSET, COND + 0x40 * (uint64_t)w);
		kr_waking(&b, 1, WS + 500, 30 + w, 20);
		kr_futex_exit(&b, 0, WS + 500, 30 + w, 0);
	}
	mutex_wait(&b, 0, WS + 600, 1, LOCK);
	mutex_wait(&b, 1, WS + 600, 3, LOCK);
	kr_futex_enter(&b, 0, WS + 700, 2, OP_WAKE, LOCK);
	kr_waking(&b, 1, WS + 700, 1, 2);
	kr_waking(&b, 1, WS + 700, 3, 2);
	kr_futex_exit(&b, 0, WS + 700, 1, 0);
	kr_futex_exit(&b, 1, WS + 700, 3, 0);
	run();
	ck_assert_uint_eq(mutex_at(LOCK)->contentions, 2);
	ck_assert(idle_at(COND)->idle);
	ck_assert_uint_eq(f.q.waits_idle, 10);
	ck_assert_uint_eq(f.q.waits_relock, 0);
	rows = rows_of();
	ck_assert_uint_eq(corecap_lock_rows_contended(&rows), 1);
	ck_assert_uint_eq(rows.v[0].members[0]->addr, LOCK);
	ck_assert(!rows.v[0].idle);
	ck_assert_uint_eq(rows.v[0].wait_ns, 200);
	ck_assert_uint_eq(rows.n, 1 + 10); /* no stack: each condition word its own row */
	for (size_t i = 1; i < rows.n; i++) {
		ck_assert(rows.v[i].idle);
		ck_assert_uint_eq(rows.v[i].wait_ns, 400);
	}
	corecap_lock_rows_release(&rows);
}
END_TEST

/*
 * Twenty threads wait on one mutex over the whole window, and twenty
 * heap mutexes taken at one site (a family) are each wanted the whole
 * window: no utilization exceeds the window (the waits' union, not their
 * sum; the family's busiest member, not the sum of its members').
 */
START_TEST(no_utilization_exceeds_the_window)
{
	struct lock_rows rows;

	for (int32_t w = 0; w < 20; w++) {
		mutex_wait(&b, 0, WS - 50, 40 + w, LOCK);
		kr_futex_exit(&b, 0, WE + 50, 40 + w, 0);
	}
	for (int32_t w = 0; w < 20; w++) {
		mutex_wait(&b, 1, WS, 1, LOCK + 0x100 + 0x40 * (uint64_t)w);
		kr_futex_exit(&b, 1, WE, 1, 0);
	}
	run();
	ck_assert_uint_eq(lock_at(LOCK)->wait_ns, 20 * (WE - WS));
	ck_assert_uint_eq(corecap_lock_busy_ns(lock_at(LOCK)), WE - WS);
	rows = rows_of();
	ck_assert_uint_eq(rows.n, 2);
	for (size_t i = 0; i < rows.n; i++) {
		ck_assert(!rows.v[i].idle);
		ck_assert_uint_le(rows.v[i].busy_ns, WE - WS);
	}
	ck_assert(rows.v[1].family);
	ck_assert_uint_eq(rows.v[1].n_members, 20);
	ck_assert_uint_eq(rows.v[1].busy_ns, WE - WS);
	corecap_lock_rows_release(&rows);
}
END_TEST

/*
 * Thread 2 waits on a condition, then at once (2 ns later) for a mutex
 * called where no condition wait was: a worker taking a big lock as it
 * starts the op it was woken for. That is contention, however soon: only
 * the call site tells a re-lock (below).
 */
START_TEST(a_mutex_wait_right_after_a_condition_wait_is_contention)
{
	kr_futex_enter(&b, 0, WS + 10, 2, OP_WAIT_BITSET, COND);
	kr_futex_exit(&b, 0, WS + 50, 2, 0);
	mutex_wait(&b, 0, WS + 52, 2, LOCK);
	kr_futex_exit(&b, 0, WS + 80, 2, 0);
	run();
	ck_assert_uint_eq(mutex_at(LOCK)->contentions, 1);
	ck_assert_uint_eq(mutex_at(LOCK)->wait_ns, 28);
	ck_assert_uint_eq(idle_at(COND)->contentions, 1);
	ck_assert_uint_eq(f.q.waits_relock, 0);
	ck_assert_uint_eq(f.q.waits_idle, 1);
	ck_assert_uint_eq(t.len, 2);
}
END_TEST

/*
 * A mutex wait called where condition waits were called (the same first
 * frame outside the C library: the call of pthread_cond_wait) is its
 * re-lock, a hand-off: idle; one called elsewhere stays contention.
 * Thread 1's stacks are at 0xa1, thread 3's at 0xb1.
 */
START_TEST(a_mutex_wait_at_a_condition_s_call_site_is_a_relock)
{
	struct lock_rows rows;

	kr_futex_enter(&b, 0, WS + 10, 1, OP_WAIT_BITSET, COND);
	kr_futex_exit(&b, 0, WS + 50, 1, 0);
	kr_futex_enter(&b, 0, WS + 60, 1, OP_WAKE, LOCK + 0x800);
	kr_futex_exit(&b, 0, WS + 61, 1, 0);
	mutex_wait(&b, 0, WS + 100, 1, LOCK); /* at 0xa1, the condition's site */
	kr_futex_exit(&b, 0, WS + 130, 1, 0);
	mutex_wait(&b, 1, WS + 200, 3, LOCK); /* at 0xb1 */
	kr_futex_exit(&b, 1, WS + 230, 3, 0);
	run();
	ck_assert_uint_eq(idle_at(LOCK)->contentions, 1);
	ck_assert_uint_eq(idle_at(LOCK)->wait_ns, 30);
	ck_assert_uint_eq(idle_at(LOCK)->relock_waits, 1);
	ck_assert_uint_eq(idle_at(LOCK)->n_sites, 1);
	ck_assert_uint_eq(idle_at(LOCK)->sites[0].site, 0xa1);
	ck_assert_uint_eq(idle_at(LOCK)->n_stacks, 1);
	ck_assert_uint_eq(mutex_at(LOCK)->contentions, 1);
	ck_assert_uint_eq(mutex_at(LOCK)->wait_ns, 30);
	ck_assert_uint_eq(mutex_at(LOCK)->n_sites, 1);
	ck_assert_uint_eq(mutex_at(LOCK)->sites[0].site, 0xb1);
	ck_assert_uint_eq(mutex_at(LOCK)->n_stacks, 1);
	ck_assert_uint_eq(f.q.waits_relock, 1);
	rows = rows_of();
	ck_assert_uint_eq(corecap_lock_rows_contended(&rows), 1);
	ck_assert_uint_eq(rows.v[0].wait_ns, 30);
	corecap_lock_rows_release(&rows);
}
END_TEST

/* A robust mutex's word holds its owner's tid with FUTEX_WAITERS: a
 * mutex when the tid is one of the process's threads; pthread_join's
 * wait for a thread's tid (no FUTEX_WAITERS) is not. */
START_TEST(a_robust_mutex_is_known_by_its_owner_tid)
{
	ck_assert(corecap_futex_wait_is_mutex(OP_WAIT, CORECAP_FUTEX_WAITERS | 7, true));
	ck_assert(!corecap_futex_wait_is_mutex(OP_WAIT, CORECAP_FUTEX_WAITERS | 7, false));
	ck_assert(!corecap_futex_wait_is_mutex(OP_WAIT, 7, true));
	ck_assert(corecap_futex_wait_is_mutex(OP_WAIT_BITSET, 2, false)); /* a timed lock */
	ck_assert(!corecap_futex_wait_is_mutex(OP_WAIT_BITSET, 0, false));
	ck_assert(!corecap_futex_wait_is_mutex(OP_WAIT, 3, false));  /* a condition's __g_refs */
	ck_assert(corecap_futex_wait_is_mutex(128 | 6, 0, false));   /* FUTEX_LOCK_PI */
	ck_assert(!corecap_futex_wait_is_mutex(128 | 11, 0, false)); /* WAIT_REQUEUE_PI */
	kr_futex_enter(&b, 0, WS + 5, 7, OP_WAKE, LOCK + 0x800);     /* thread 7 exists */
	kr_futex_exit(&b, 0, WS + 6, 7, 0);
	kr_futex_enter(&b, 0, WS + 10, 1, OP_WAIT, LOCK)->val = CORECAP_FUTEX_WAITERS | 7;
	kr_futex_exit(&b, 0, WS + 20, 1, 0);
	run();
	ck_assert_uint_eq(mutex_at(LOCK)->contentions, 1);
	ck_assert_uint_eq(f.q.waits_idle, 0);
}
END_TEST

/* The owner need not have made a futex call: a record naming it as one of
 * the daemon's threads (here its switch-in) is enough (corecap_sched_is_thread);
 * a tid no record named stays a value, not an owner. */
START_TEST(a_robust_mutex_s_owner_is_any_thread_of_the_daemon)
{
	kr_switch(&b, 1, WS + 5, 0, 'S', 7); /* thread 7: never a futex call */
	kr_futex_enter(&b, 0, WS + 10, 1, OP_WAIT, LOCK)->val = CORECAP_FUTEX_WAITERS | 7;
	kr_futex_exit(&b, 0, WS + 20, 1, 0);
	run();
	ck_assert_uint_eq(mutex_at(LOCK)->contentions, 1);
	ck_assert_uint_eq(f.q.waits_idle, 0);
	ck_assert(corecap_sched_is_thread(f.s, 7));
	ck_assert(!corecap_sched_is_thread(f.s, 8)); /* no record named it */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("futex_locks");
	TCase *tc = tcase_create("locks");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_hand_over_names_the_holder_and_the_hold);
	tcase_add_test(tc, without_a_waking_the_last_wake_is_the_holder);
	tcase_add_test(tc, a_waking_from_an_interrupt_names_nobody);
	tcase_add_test(tc, what_is_not_a_wait);
	tcase_add_test(tc, without_a_result_the_first_waking_decides);
	tcase_add_test(tc, waits_are_clipped_and_their_union_counted_once);
	tcase_add_test(tc, condition_waits_of_ten_workers_do_not_lead);
	tcase_add_test(tc, no_utilization_exceeds_the_window);
	tcase_add_test(tc, a_mutex_wait_right_after_a_condition_wait_is_contention);
	tcase_add_test(tc, a_mutex_wait_at_a_condition_s_call_site_is_a_relock);
	tcase_add_test(tc, a_robust_mutex_is_known_by_its_owner_tid);
	tcase_add_test(tc, a_robust_mutex_s_owner_is_any_thread_of_the_daemon);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
