/*
 * analysis/model/futex_locks.c: the lock table from futex records built
 * by hand: waits, holders (from the waking, else the last wake), holds
 * after a hand-over, sites from the sampled stacks, what is not a wait.
 */
#include <check.h>
#include <stdlib.h>

#include "kernel_records.h"
#include "model/futex_locks.h"

#include "check_run.h"

#define WS   1000
#define WE   2000
#define LOCK 0x5000
#define COND 0x6008

/* FUTEX_WAIT|PRIVATE, FUTEX_WAKE|PRIVATE, FUTEX_WAIT_BITSET|PRIVATE */
#define OP_WAIT	       128
#define OP_WAKE	       129
#define OP_WAIT_BITSET 137

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
	kr_futex_enter(&b, 0, WS + 10, 1, OP_WAIT, LOCK);
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
	kr_futex_enter(&b, 0, WS + 10, 4, OP_WAIT, LOCK);
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
	kr_futex_enter(&b, 0, WS + 10, 1, OP_WAIT, LOCK);
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
	kr_futex_enter(&b, 0, WS + 40, 1, OP_WAIT, LOCK);
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
	kr_futex_enter(&b, 0, WS - 100, 1, OP_WAIT, LOCK);
	kr_futex_enter(&b, 1, WS + 10, 3, OP_WAIT, LOCK);
	kr_futex_exit(&b, 0, WS + 50, 1, 0);
	kr_futex_exit(&b, 1, WS + 80, 3, 0);
	kr_futex_enter(&b, 1, WE - 10, 3, OP_WAIT, LOCK);
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
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
