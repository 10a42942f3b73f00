/*
 * analysis/model/critical_path.c: critical paths of ops over scheduler
 * records and trace events built by hand, fed as `corecap report` feeds
 * them (each event after the records up to its time, then to the model,
 * whose op's end closes the path's op), with answers computed by hand; and
 * conservation (an op's categories sum to its latency) on random
 * interleavings.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "path_fixture.h"

enum { A = 10, B = 20, L = 30, HOG = 99 };

static void feed_io(uint64_t t, int32_t tid, uint64_t dur)
{
	struct model_event ev = {.kind = MEV_IO, .ts_ns = t, .tid = tid, .pid = -1};

	ev.io.io_class = CORECAP_IO_DATA;
	ev.io.dur_ns = dur;
	ck_assert_int_eq(corecap_critical_path_event(&cp, &ev), 0);
	ck_assert_int_eq(corecap_model_consume(&m, &ev), 0);
}

static const struct cp_type *type(void)
{
	const struct cp_type *t;

	ck_assert_int_eq(corecap_critical_path_finish(&cp), 0);
	t = corecap_critical_path_type(&cp, 0);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(cp.violations, 0);
	return t;
}

/* Op 1 on A from begin to end, over the records written: its type's figures. */
static const struct cp_type *one_op(uint64_t begin, uint64_t end)
{
	start();
	feed(MEV_OP_BEGIN, begin, A, 1);
	feed(MEV_OP_END, end, A, 1);
	return type();
}

static uint64_t credit(const struct cp_type *t, int32_t tid, uint32_t cat)
{
	uint64_t *v = corecap_u64map_find(&t->credit, CP_CREDIT_KEY(tid, cat));

	return v ? *v : 0;
}

/* The wait-for graph, which must have n edges (free it). */
static struct cp_edge *edges(size_t n)
{
	struct cp_edge *e;
	size_t got;

	ck_assert_int_eq(corecap_critical_path_waitfor(&cp, &e, &got), 0);
	ck_assert_uint_eq(got, n);
	return e;
}

static void expect(const struct cp_type *t, uint64_t cpu, uint64_t logging, uint64_t io,
		   uint64_t queue, uint64_t runqueue)
{
	uint64_t sum = 0;

	ck_assert_uint_eq(t->ns[CAT_CPU], cpu);
	ck_assert_uint_eq(t->ns[CAT_LOGGING], logging);
	ck_assert_uint_eq(t->ns[CAT_IO], io);
	ck_assert_uint_eq(t->ns[CAT_QUEUE], queue);
	ck_assert_uint_eq(t->ns[CP_RUNQUEUE], runqueue);
	for (int c = 0; c < CP__COUNT; c++)
		sum += t->ns[c];
	ck_assert_uint_eq(sum, t->latency_ns);
}

/*
 * A begins op 1 at 100 and sleeps at 120; B, running all along on CPU 1
 * (logging 150..170), wakes A at 200; A waits for CPU 0 (idle) until 210
 * and ends the op at 250. The walk back: A 210..250 cpu, 200..210
 * runqueue (the idle CPU: a wake-up latency), then B from 200 back to the
 * begin: cpu 100..150 and 170..200, logging 150..170.
 */
START_TEST(blocked_then_woken_follows_the_waker)
{
	kr_switch(&b, 0, 1, 0, 'S', A);
	kr_switch(&b, 1, 1, 0, 'S', B);
	kr_switch(&b, 0, 120, A, 'S', 0);
	kr_waking(&b, 1, 200, A, B)->target_cpu = 0;
	kr_switch(&b, 0, 210, 0, 'S', A);
	start();
	feed(MEV_OP_BEGIN, 100, A, 1);
	feed(MEV_LOG_ENTER, 150, B, 0);
	feed(MEV_LOG_EXIT, 170, B, 0);
	feed(MEV_OP_END, 250, A, 1);
	const struct cp_type *t = type();
	expect(t, 40 + 50 + 30, 20, 0, 0, 10);
	ck_assert_uint_eq(credit(t, A, CAT_CPU), 40);
	ck_assert_uint_eq(credit(t, B, CAT_CPU), 80);
	ck_assert_uint_eq(credit(t, B, CAT_LOGGING), 20);
	ck_assert_uint_eq(credit(t, 0, CP_RUNQUEUE), 10);
	/* A's own 100..120 is not on the path: B's work was. */
	ck_assert_uint_eq(cp.checked, 1);
	/* The wait-for graph: A slept 120..200 until B woke it. */
	struct cp_edge *e = edges(1);
	ck_assert_str_eq(e[0].from, "tid 10");
	ck_assert_str_eq(e[0].to, "tid 20");
	ck_assert_int_eq(e[0].kind, CPW_WAKE);
	ck_assert_uint_eq(e[0].ns, 80);
	ck_assert_uint_eq(e[0].wakes, 1);
	free(e);
}
END_TEST

/*
 * An op begun in the past (net_ops' op whose request read is known only
 * when the reply shows it): A runs all along; its I/O event at 300 has
 * charged it up to 300 when op 1's begin at 200 arrives. The stretch
 * 200..300, charged before the op existed, is nobody's on its walk
 * (queue), so that the path still sums to the latency: 100 queue + 100 cpu.
 */
START_TEST(an_op_begun_in_the_past_keeps_its_latency)
{
	kr_switch(&b, 0, 1, 0, 'S', A);
	start();
	feed_io(300, A, 10);
	feed(MEV_OP_BEGIN, 200, A, 1);
	feed(MEV_OP_END, 400, A, 1);
	const struct cp_type *t = type();
	ck_assert_uint_eq(t->latency_ns, 200);
	expect(t, 100, 0, 0, 100, 0);
	ck_assert_uint_eq(credit(t, CP_NOBODY, CAT_QUEUE), 100);
}
END_TEST

/*
 * A runs op 1 from 100; a thread of another process (HOG) preempts it at
 * 120 until 180, then the log thread L until 190: runqueue 60 credited to
 * HOG, then 10 of logging credited to L (a log thread's CPU is logging).
 */
START_TEST(runnable_is_credited_to_the_cpu_holder)
{
	kr_track(&b, 1, L, "log");
	kr_switch(&b, 0, 1, 0, 'S', A);
	kr_switch(&b, 0, 120, A, 'R', HOG)->flags = CORECAP_KSWITCH_PREV_TARGET;
	kr_switch(&b, 0, 180, HOG, 'R', L)->flags = CORECAP_KSWITCH_NEXT_TARGET;
	kr_switch(&b, 0, 190, L, 'S', A);
	const struct cp_type *t = one_op(100, 220);
	expect(t, 20 + 30, 10, 0, 0, 60);
	ck_assert_uint_eq(credit(t, HOG, CP_RUNQUEUE), 60);
	ck_assert_uint_eq(credit(t, L, CAT_LOGGING), 10);
	/* Of its logging, the wait behind L outside a log call of A's. */
	ck_assert_uint_eq(t->runq_logging_ns, 10);
	ck_assert_uint_eq(t->runq_in_log_ns, 0);
	struct cp_top top[5];
	ck_assert_uint_eq(corecap_critical_path_top(t, top, 5), 3);
	ck_assert_int_eq(top[0].tid, HOG);
	ck_assert_uint_eq(top[0].cat, CP_RUNQUEUE);
}
END_TEST

/*
 * A (op 1 from 100) is preempted on CPU 0 at 110 by HOG, a thread of
 * another process (its switches carry no target flag), then COL, a thread
 * of the collector (process 500, the manifest's collector.pid), holds the
 * CPU from 120, C, a daemon thread, from 130; C sleeps at 150 and the CPU
 * idles until A runs at 160; A ends the op at 180. Its runqueue (50)
 * waited behind another process 110..120, the collector 120..130, the
 * daemon 130..150 and an idle CPU 150..160. The names and processes come
 * from the collector's HOLDER records.
 */
START_TEST(runqueue_behind_the_daemon_other_processes_or_idle)
{
	const int32_t C = 40, COL = 50;
	uint64_t v[CPB__COUNT];

	kr_switch(&b, 0, 1, 0, 'S', A);
	kr_switch(&b, 0, 110, A, 'R', HOG)->flags = CORECAP_KSWITCH_PREV_TARGET;
	kr_switch(&b, 0, 120, HOG, 'R', COL)->flags = 0;
	kr_switch(&b, 0, 130, COL, 'R', C)->flags = CORECAP_KSWITCH_NEXT_TARGET;
	kr_switch(&b, 0, 150, C, 'S', 0);
	kr_switch(&b, 0, 160, 0, 'S', A);
	/* HOG named by the collector, twice (it exec'd): the last name holds. */
	kr_holder(&b, 190, HOG, HOG, "sh");
	kr_holder(&b, 200, HOG, HOG, "hog");
	kr_holder(&b, 200, COL, 500, "corecap");
	cp.collector_pid = 500;
	const struct cp_type *t = one_op(100, 180);
	expect(t, 30, 0, 0, 0, 50);
	ck_assert_str_eq(corecap_critical_path_thread_name(&cp, HOG), "hog");
	ck_assert_ptr_null(corecap_critical_path_thread_name(&cp, C));
	ck_assert_ptr_null(corecap_critical_path_thread_name(&cp, 77));
	corecap_critical_path_runq_behind(&cp, t, v);
	ck_assert_uint_eq(v[CPB_DAEMON], 20);
	ck_assert_uint_eq(v[CPB_COLLECTOR], 10);
	ck_assert_uint_eq(v[CPB_OTHER], 10);
	ck_assert_uint_eq(v[CPB_IDLE], 10);
	ck_assert_uint_eq(v[CPB_UNKNOWN], 0);
	ck_assert_str_eq(corecap_cp_behind_name(CPB_OTHER), "other_processes");
	ck_assert_str_eq(corecap_critical_path_thread_name(&cp, COL), "corecap");
}
END_TEST

/*
 * Three threads wait for CPU 0 and leave its queue in another order than
 * they joined it (the list of runnable threads removes from its middle): B
 * and C are woken at 105 and 106, A (op 1 from 100) is preempted for B at
 * 110, C runs 130..150, A again from 150 to its end at 170. A's runqueue
 * time is credited to each holder in turn: B 110..130, C 130..150.
 */
START_TEST(runnable_threads_leave_the_queue_in_any_order)
{
	const int32_t C = 40;

	kr_switch(&b, 0, 1, 0, 'S', A);
	kr_waking(&b, 1, 105, B, -1)->flags = CORECAP_KWAKING_HARDIRQ;
	kr_waking(&b, 1, 106, C, -1)->flags = CORECAP_KWAKING_HARDIRQ;
	kr_switch(&b, 0, 110, A, 'R', B);
	kr_switch(&b, 0, 130, B, 'S', C);
	kr_switch(&b, 0, 150, C, 'S', A);
	const struct cp_type *t = one_op(100, 170);
	expect(t, 30, 0, 0, 0, 40);
	ck_assert_uint_eq(credit(t, B, CP_RUNQUEUE), 20);
	ck_assert_uint_eq(credit(t, C, CP_RUNQUEUE), 20);
	ck_assert_uint_eq(cp.waiters[0], 0);
	ck_assert_uint_eq(cp.waiters[1], 0);
}
END_TEST

/*
 * A log call splits the wait of its thread's CPU's waiters, and a thread
 * seen on two CPUs (its switch-out from one lost) is found on the one it
 * still holds: B is switched in on CPU 0 at 105; A (op 1 from 100 on CPU
 * 1) is preempted for B at 110 (B's switch-out from CPU 0 was lost: it
 * runs on CPU 1, the CPU of its last switch-in, by sched), before CPU 0
 * goes to C at 115; B logs 120..130 and sleeps at 140, when A runs again
 * until its end at 150. A's runqueue behind B: 110..120 and 130..140 B's
 * cpu, 120..130 B's logging.
 */
START_TEST(a_log_call_splits_the_wait_for_its_cpu)
{
	const int32_t C = 40;

	kr_switch(&b, 1, 1, 0, 'S', A);
	kr_switch(&b, 0, 105, 0, 'S', B);
	kr_switch(&b, 1, 110, A, 'R', B);
	kr_switch(&b, 0, 115, 0, 'S', C);
	kr_switch(&b, 1, 140, B, 'S', A);
	start();
	feed(MEV_OP_BEGIN, 100, A, 1);
	feed(MEV_LOG_ENTER, 120, B, 0);
	feed(MEV_LOG_EXIT, 130, B, 0);
	feed(MEV_OP_END, 150, A, 1);
	const struct cp_type *t = type();
	expect(t, 20, 10, 0, 0, 20);
	ck_assert_uint_eq(credit(t, B, CP_RUNQUEUE), 20);
	ck_assert_uint_eq(credit(t, B, CAT_LOGGING), 10);
	ck_assert_uint_eq(t->runq_logging_ns, 10);
	/* B switched in while running (sched's count) */
	ck_assert_uint_eq(corecap_critical_path_inconsistent(&cp), 1);
}
END_TEST

/*
 * A path keeps CP_CREDITS credits, the first made: A (op 1 from 100) is
 * preempted at 110 and waits for CPU 0 behind 14 other processes' threads
 * in turn, 10 each, until 250, and ends the op at 260. Its path's credits
 * in the order made: A's cpu, then H+1..H+14's runqueue; A's cpu, then
 * H+1..H+11 are kept, and H+12..H+14's 30 are uncredited (the replay sums
 * in any order first, and walks again in order for such a path).
 */
#define H 1000
START_TEST(a_path_keeps_the_credits_made_first)
{
	kr_switch(&b, 0, 1, 0, 'S', A);
	kr_switch(&b, 0, 110, A, 'R', H + 1)->flags = CORECAP_KSWITCH_PREV_TARGET;
	for (int i = 1; i < 14; i++)
		kr_switch(&b, 0, 110 + 10 * (uint64_t)i, H + i, 'S', H + i + 1)->flags = 0;
	kr_switch(&b, 0, 250, H + 14, 'S', A)->flags = CORECAP_KSWITCH_NEXT_TARGET;
	const struct cp_type *t = one_op(100, 260);
	expect(t, 20, 0, 0, 0, 140);
	ck_assert_uint_eq(credit(t, A, CAT_CPU), 20);
	for (int i = 1; i <= 14; i++)
		ck_assert_uint_eq(credit(t, H + i, CP_RUNQUEUE), i <= 11 ? 10 : 0);
	ck_assert_uint_eq(t->uncredited_ns, 30);
}
END_TEST
#undef H

/*
 * A sleeps 120..170 and an interrupt wakes it (waker -1): nobody of the
 * daemon had the op. When the trace then reports an I/O covering the
 * sleep, the sleep is io; a second op's sleep with no such report is queue.
 */
START_TEST(woken_by_nobody_is_the_traced_wait_or_queue)
{
	kr_switch(&b, 0, 1, 0, 'S', A);
	kr_switch(&b, 0, 120, A, 'S', 0);
	kr_waking(&b, 0, 170, A, -1)->target_cpu = 0;
	kr_switch(&b, 0, 175, 0, 'S', A);
	kr_switch(&b, 0, 320, A, 'S', 0);
	kr_waking(&b, 0, 370, A, -1)->target_cpu = 0;
	kr_switch(&b, 0, 375, 0, 'S', A);
	start();
	feed(MEV_OP_BEGIN, 100, A, 1);
	feed_io(180, A, 65);
	feed(MEV_OP_END, 200, A, 1);
	feed(MEV_OP_BEGIN, 300, A, 2);
	feed(MEV_OP_END, 400, A, 2);
	const struct cp_type *t = type();
	expect(t, (20 + 25) * 2, 0, 50, 50, 5 * 2);
	ck_assert_uint_eq(credit(t, A, CAT_IO), 50);
	ck_assert_uint_eq(credit(t, CP_NOBODY, CAT_QUEUE), 50);
	ck_assert_uint_eq(t->count, 2);
}
END_TEST

/*
 * An aio on the path: A begins op 1 at 100, submits an aio at 110 and
 * sleeps at 120 until the reaper R wakes it at 320; R slept from 50 until
 * the device's completion woke it at 300 (no waker), ran from 305 and
 * reaped the aio at 310 (submitted 200 earlier). The walk back: A
 * 325..350 cpu, 320..325 runqueue, then R: 305..320 cpu, 300..305
 * runqueue, 110..300 io (the aio, credited to R), 100..110 queue (before
 * the submission: not the aio's). A synchronous I/O event would have made
 * the whole 100..300 io.
 */
START_TEST(an_aio_reaped_is_io_from_its_submission)
{
	enum { R = 40 };
	struct model_event ev = {.kind = MEV_AIO, .ts_ns = 310, .tid = R, .pid = -1};

	kr_switch(&b, 0, 1, 0, 'S', A);
	kr_switch(&b, 1, 1, 0, 'S', R);
	kr_switch(&b, 1, 50, R, 'S', 0);
	kr_switch(&b, 0, 120, A, 'S', 0);
	kr_waking(&b, 1, 300, R, -1)->target_cpu = 1;
	kr_switch(&b, 1, 305, 0, 'S', R);
	kr_waking(&b, 1, 320, A, R)->target_cpu = 0;
	kr_switch(&b, 0, 325, 0, 'S', A);
	start();
	feed(MEV_OP_BEGIN, 100, A, 1);
	ev.io.io_class = CORECAP_IO_JOURNAL;
	ev.io.dur_ns = 200;
	ck_assert_int_eq(corecap_critical_path_event(&cp, &ev), 0);
	ck_assert_int_eq(corecap_model_consume(&m, &ev), 0);
	feed(MEV_OP_END, 350, A, 1);
	const struct cp_type *t = type();
	expect(t, 25 + 15, 0, 190, 10, 5 + 5);
	ck_assert_uint_eq(credit(t, R, CAT_IO), 190);
	ck_assert_uint_eq(credit(t, CP_NOBODY, CAT_QUEUE), 10);
}
END_TEST

/*
 * An uninterruptible sleep ('D': fdatasync, a direct write, waiting in the
 * kernel for the device) that nobody of the daemon ends is io, credited
 * to the sleeper, whether an interrupt (waker -1) or a thread of another
 * process (HOG: a kworker, or whatever thread the completion's interrupt
 * landed on) woke it. A begins op 1 at 100 and sleeps 'D' 120..300 (an
 * interrupt), op 2 at 400 and 'D' 420..500 (HOG); each then waits 5 for
 * the idle CPU and runs to its end: cpu 20 + 25 and 20 + 45, io 180 + 80.
 * An interruptible sleep ended so stays queue
 * (woken_by_nobody_is_the_traced_wait_or_queue).
 */
START_TEST(an_uninterruptible_sleep_ended_outside_the_daemon_is_io)
{
	kr_switch(&b, 0, 1, 0, 'S', A);
	kr_switch(&b, 0, 120, A, 'D', 0);
	kr_waking(&b, 1, 300, A, -1)->target_cpu = 0;
	kr_switch(&b, 0, 305, 0, 'S', A);
	kr_switch(&b, 0, 420, A, 'D', 0);
	kr_waking(&b, 1, 500, A, HOG)->target_cpu = 0;
	kr_switch(&b, 0, 505, 0, 'S', A);
	start();
	feed(MEV_OP_BEGIN, 100, A, 1);
	feed(MEV_OP_END, 330, A, 1);
	feed(MEV_OP_BEGIN, 400, A, 2);
	feed(MEV_OP_END, 550, A, 2);
	const struct cp_type *t = type();
	expect(t, 20 + 25 + 20 + 45, 0, 180 + 80, 0, 5 + 5);
	ck_assert_uint_eq(credit(t, A, CAT_IO), 260);
}
END_TEST

/*
 * The device's completion handed on through a condition variable, as
 * BlueStore's kv_sync thread (A) waits for its aio: A begins op 1 at 100,
 * submits (unseen) and waits on a condition (FUTEX_WAIT_BITSET) from 120;
 * the reaper R, asleep outside a futex since 50 (io_getevents), is woken
 * by the completion's interrupt at 300, runs from 305 and signals A at
 * 320; A waits for CPU 0 until 325 and ends op 1 at 350. Op 2 begins on R
 * at 310 and ends on A at 350 too. The walk back from A stays on A: 325..350
 * cpu, 320..325 runqueue, R's stretches since its wake copied (305..320
 * cpu, 300..305 runqueue), then A's wait up to the completion, 120..300,
 * io credited to R, then A's own 100..120. Op 2 from 310: R's 310..320,
 * then A's. Followed onto R as an ordinary waking, the walk would have
 * met R's sleep since 50, and op 1's 100..300 would have been queue.
 */
START_TEST(the_device_completion_hands_on_through_a_condition)
{
	enum { R = 40 };

	kr_switch(&b, 0, 1, 0, 'S', A);
	kr_switch(&b, 1, 1, 0, 'S', R);
	kr_switch(&b, 1, 50, R, 'S', 0);
	kr_futex_enter(&b, 0, 115, A, 0x80 | 9, 0x2000);
	kr_switch(&b, 0, 120, A, 'S', 0);
	kr_waking(&b, 1, 300, R, -1)->target_cpu = 1;
	kr_switch(&b, 1, 305, 0, 'S', R);
	kr_waking(&b, 1, 320, A, R)->target_cpu = 0;
	kr_switch(&b, 0, 325, 0, 'S', A);
	kr_futex_exit(&b, 0, 326, A, 0);
	start();
	feed(MEV_OP_BEGIN, 100, A, 1);
	feed(MEV_OP_BEGIN, 310, R, 2);
	feed(MEV_OP_END, 350, A, 1);
	feed(MEV_OP_END, 350, A, 2);
	const struct cp_type *t = type();
	ck_assert_uint_eq(t->count, 2);
	expect(t, (25 + 15 + 20) + (25 + 10), 0, 180, 0, (5 + 5) + 5);
	ck_assert_uint_eq(credit(t, R, CAT_IO), 180);
	ck_assert_uint_eq(credit(t, R, CAT_CPU), 15 + 10);
	ck_assert_uint_eq(credit(t, A, CAT_CPU), 45 + 25);
}
END_TEST

/*
 * The completion came before the waiter slept: R is woken by it at 300,
 * A begins op 1 at 100 and waits on a condition only from 310; R signals
 * it at 320. Not a hand-off from the device: R was awake before A slept
 * and may have had the op then (a messenger woken by the network that
 * read the request before it woke a worker), so the walk goes on onto R,
 * an ordinary waking, and meets R's sleep that no trace explains: op 1's
 * 100..300 is queue.
 */
START_TEST(a_completion_before_the_wait_is_an_ordinary_waking)
{
	enum { R = 40 };

	kr_switch(&b, 0, 1, 0, 'S', A);
	kr_switch(&b, 1, 1, 0, 'S', R);
	kr_switch(&b, 1, 50, R, 'S', 0);
	kr_waking(&b, 1, 300, R, -1)->target_cpu = 1;
	kr_switch(&b, 1, 305, 0, 'S', R);
	kr_futex_enter(&b, 0, 309, A, 0x80 | 9, 0x2000);
	kr_switch(&b, 0, 310, A, 'S', 0);
	kr_waking(&b, 1, 320, A, R)->target_cpu = 0;
	kr_switch(&b, 0, 325, 0, 'S', A);
	start();
	feed(MEV_OP_BEGIN, 100, A, 1);
	feed(MEV_OP_END, 350, A, 1);
	const struct cp_type *t = type();
	expect(t, 25 + 15, 0, 0, 200, 5 + 5);
	ck_assert_uint_eq(credit(t, R, CAT_CPU), 15);
}
END_TEST

/*
 * Not a hand-off from the device: the same schedule, but R slept in a
 * futex wait (a timed condition wait, its timeout's interrupt woke it):
 * the waking is an ordinary one, the walk goes on onto R, whose sleep
 * nobody of the daemon ended and no trace explains: op 1's 100..300 is
 * queue.
 */
START_TEST(a_futex_sleep_ended_outside_the_daemon_hands_on_nothing)
{
	enum { R = 40 };

	kr_switch(&b, 0, 1, 0, 'S', A);
	kr_switch(&b, 1, 1, 0, 'S', R);
	kr_futex_enter(&b, 1, 49, R, 0x80 | 9, 0x3000);
	kr_switch(&b, 1, 50, R, 'S', 0);
	kr_futex_enter(&b, 0, 115, A, 0x80 | 9, 0x2000);
	kr_switch(&b, 0, 120, A, 'S', 0);
	kr_waking(&b, 1, 300, R, -1)->target_cpu = 1;
	kr_switch(&b, 1, 305, 0, 'S', R);
	kr_futex_exit(&b, 1, 306, R, -110);
	kr_waking(&b, 1, 320, A, R)->target_cpu = 0;
	kr_switch(&b, 0, 325, 0, 'S', A);
	start();
	feed(MEV_OP_BEGIN, 100, A, 1);
	feed(MEV_OP_END, 350, A, 1);
	const struct cp_type *t = type();
	expect(t, 25 + 15, 0, 0, 200, 5 + 5);
}
END_TEST

/* Two worker threads of one pool sleep in a mutex's FUTEX_WAIT (for
 * glibc's "locked with waiters", 2) and a condition's FUTEX_WAIT_BITSET
 * until thread B (pool "msgr") wakes them: one edge per kind, between
 * pools, clipped to the window; the mutex's (contention) first, though
 * lighter. */
START_TEST(waitfor_edges_by_pool_and_kind)
{
	kr_track(&b, 1, A, "tp_osd_tp");
	kr_track(&b, 1, A + 1, "tp_osd_tp");
	kr_track(&b, 1, B, "msgr-worker-0");
	kr_switch(&b, 1, 1, 0, 'S', B);
	kr_futex_enter(&b, 0, 5, A, 0x80 | 0, 0x1000)->val = 2;
	kr_switch(&b, 0, 10, A, 'S', 0);
	kr_waking(&b, 1, 40, A, B);
	kr_futex_enter(&b, 0, 41, A + 1, 0x80 | 9, 0x2000);
	kr_switch(&b, 0, 42, A + 1, 'S', 0);
	kr_waking(&b, 1, 67, A + 1, B);
	start();
	cp.ws = 20;
	cp.we = 1000;
	ck_assert_int_eq(corecap_critical_path_finish(&cp), 0);
	struct cp_edge *e = edges(2);
	ck_assert_str_eq(e[0].from, "tp_osd_tp");
	ck_assert_str_eq(e[0].to, "msgr-worker");
	ck_assert_int_eq(e[0].kind, CPW_LOCK);
	ck_assert_uint_eq(e[0].ns, 20); /* 10..40 clipped to the window's 20 */
	ck_assert_int_eq(e[1].kind, CPW_COND);
	ck_assert_uint_eq(e[1].ns, 25);
	free(e);
}
END_TEST

/* A FUTEX_WAIT for 0 is a condition's (glibc's __g_signals), not a mutex:
 * a cond edge, though its command is a mutex's; the mutex the thread then
 * waits for (2: locked with waiters) is a lock edge. */
START_TEST(waitfor_a_condition_is_told_by_its_value)
{
	kr_track(&b, 1, A, "tp_osd_tp");
	kr_track(&b, 1, B, "msgr-worker-0");
	kr_switch(&b, 1, 1, 0, 'S', B);
	kr_futex_enter(&b, 0, 5, A, 0x80 | 0, 0x2000); /* val 0: a condition */
	kr_switch(&b, 0, 10, A, 'S', 0);
	kr_waking(&b, 1, 40, A, B);
	kr_switch(&b, 0, 41, 0, 'S', A);
	kr_futex_exit(&b, 0, 42, A, 0);
	kr_futex_enter(&b, 0, 44, A, 0x80 | 0, 0x1000)->val = 2;
	kr_switch(&b, 0, 45, A, 'S', 0);
	kr_waking(&b, 1, 60, A, B);
	start();
	cp.ws = 0;
	cp.we = 1000;
	ck_assert_int_eq(corecap_critical_path_finish(&cp), 0);
	struct cp_edge *e = edges(2);
	ck_assert_int_eq(e[0].kind, CPW_LOCK);
	ck_assert_uint_eq(e[0].ns, 15); /* 45..60 */
	ck_assert_int_eq(e[1].kind, CPW_COND);
	ck_assert_uint_eq(e[1].ns, 30); /* 10..40, heavier, after */
	free(e);
}
END_TEST

/*
 * Sleeps no daemon thread ended go to wPerf-like pseudo pools: A sleeps
 * 10..40 until a hardware interrupt (a timer, the network) wakes it, and
 * 50..70 until a thread of another process (tid 999, never the daemon's)
 * does; its own wake (a signal to itself) is no edge. It sleeps again
 * from 95 to the window's end (1000), and A + 5 sleeps through the whole
 * window (1..1000): both wait for nothing the window shows, so that every
 * blocked ns is on one edge.
 */
START_TEST(waitfor_sleeps_ended_outside_the_daemon)
{
	kr_track(&b, 1, A, "tp_osd_tp");
	kr_switch(&b, 0, 1, 0, 'S', A);
	kr_switch(&b, 0, 10, A, 'S', 0);
	kr_waking(&b, 0, 40, A, -1)->flags = CORECAP_KWAKING_HARDIRQ;
	kr_switch(&b, 0, 41, 0, 'S', A);
	kr_switch(&b, 0, 50, A, 'S', 0);
	kr_waking(&b, 1, 70, A, 999);
	kr_switch(&b, 0, 71, 0, 'S', A);
	kr_switch(&b, 0, 80, A, 'S', 0);
	kr_waking(&b, 0, 90, A, A);
	kr_switch(&b, 0, 91, 0, 'S', A);
	kr_switch(&b, 0, 95, A, 'S', 0);
	kr_track(&b, 1, A + 5, "tp_osd_tp");
	start();
	cp.ws = 1;
	cp.we = 1000;
	ck_assert_int_eq(corecap_critical_path_finish(&cp), 0);
	ck_assert_int_eq(corecap_critical_path_finish(&cp), 0); /* closed once */
	struct cp_edge *e = edges(3);
	/* The idle threads' edge last, though heaviest: a picture leaves it out. */
	ck_assert_str_eq(e[0].from, "tp_osd_tp");
	ck_assert_str_eq(e[0].to, CP_POOL_INTERRUPT);
	ck_assert_uint_eq(e[0].ns, 30);
	ck_assert_str_eq(e[1].to, CP_POOL_OTHER_PROCESS);
	ck_assert_uint_eq(e[1].ns, 20);
	ck_assert_uint_eq(e[1].wakes, 1);
	ck_assert_str_eq(e[2].to, CP_POOL_NOT_WOKEN);
	ck_assert_uint_eq(e[2].ns, (1000 - 95) + (1000 - 1));
	ck_assert(corecap_cp_edge_idle(&e[2]) && !corecap_cp_edge_idle(&e[1]));
	ck_assert_uint_eq(corecap_cp_edges_waiting(e, 3), 2);
	free(e);
}
END_TEST

/* Knots: a and b wait for each other, c waits for a: {a, b} is a sink
 * cycle (c is not in it); an edge under 1% of the waits does not count;
 * once b waits for d in earnest, {a, b} is no knot (and d has no cycle). */
START_TEST(knots_are_sink_cycles)
{
	struct cp_edge e[] = {
		{"a", "b", CPW_LOCK, 1000, 1},
		{"b", "a", CPW_COND, 500, 1},
		{"c", "a", CPW_COND, 300, 1},
		{"b", "d", CPW_WAKE, 10, 1},
	};
	struct cp_knot *k;
	size_t n;

	ck_assert_int_eq(corecap_critical_path_knots(e, 4, &k, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(k[0].n_pools, 2);
	ck_assert_str_eq(k[0].pools[0], "a");
	ck_assert_str_eq(k[0].pools[1], "b");
	ck_assert_uint_eq(k[0].ns, 1500);
	free(k);
	e[3].ns = 400;
	ck_assert_int_eq(corecap_critical_path_knots(e, 4, &k, &n), 0);
	ck_assert_uint_eq(n, 0);
	free(k);
}
END_TEST

/* Ops excluded by the model (outside the window) have no path, and an op
 * ended on a thread never seen has none either (counted). */
START_TEST(excluded_and_pathless_ops)
{
	kr_switch(&b, 0, 1, 0, 'S', A);
	start();
	m.cfg.has_window = true;
	m.ws = 50;
	m.we = 1000;
	feed(MEV_OP_BEGIN, 10, A, 1);
	feed(MEV_OP_END, 60, A, 1);
	ck_assert_ptr_null(corecap_critical_path_type(&cp, 0));
	ck_assert_uint_eq(cp.checked, 0);
	ck_assert_uint_eq(cp.n_inflight, 0);
}
END_TEST

/* Random switches and wakings of 5 threads on 2 CPUs, ops begun and ended
 * on random threads, many in flight, some of the sleeps traced waits. */
static void random_interleaving(unsigned seed)
{
	uint64_t t = 1;
	int32_t on[2] = {0, 0};
	uint64_t next_id = 1, open[64];
	size_t n_open = 0;

	srand(seed);
	for (int i = 0; i < 1500; i++) {
		uint32_t cpu = (uint32_t)(rand() % 2);
		int32_t tid = 1 + rand() % 5;

		t += 1 + (uint64_t)(rand() % 50);
		if (rand() % 3)
			kr_switch(&b, cpu, t, on[cpu], "RS"[rand() % 2], tid);
		else
			kr_waking(&b, cpu, t, tid, rand() % 4 ? on[cpu] : -1)->target_cpu =
				rand() % 2;
		on[cpu] = tid;
	}
	start();
	t = 1;
	for (int i = 0; i < 3000; i++) {
		int32_t tid = 1 + rand() % 5;

		t += 1 + (uint64_t)(rand() % 25);
		if (n_open < 64 && (n_open == 0 || rand() % 2)) {
			open[n_open++] = next_id;
			feed(MEV_OP_BEGIN, t, tid, next_id++);
		} else if (rand() % 4 == 0) {
			feed(rand() % 2 ? MEV_LOG_ENTER : MEV_LOG_EXIT, t, tid, 0);
		} else if (rand() % 5 == 0) {
			feed_io(t, tid, (uint64_t)(rand() % 200));
		} else {
			size_t k = (size_t)rand() % n_open;

			feed(MEV_OP_END, t, tid, open[k]);
			open[k] = open[--n_open];
		}
	}
	ck_assert_int_eq(corecap_critical_path_finish(&cp), 0);
}

/* Every op's path sums to its latency. */
START_TEST(conservation_on_random_interleavings)
{
	random_interleaving(12345);
	ck_assert_uint_gt(cp.checked, 1000);
	ck_assert_uint_eq(cp.violations, 0);
	ck_assert_uint_eq(cp.max_err_ns, 0);
}
END_TEST

/* What type 0's paths add up to, credits in key order. */
struct snapshot {
	uint64_t count, latency_ns, ns[CP__COUNT], uncredited_ns, checked;
	uint64_t keys[256], vals[256];
	size_t n;
};

static void take(struct snapshot *sn)
{
	const struct cp_type *t = corecap_critical_path_type(&cp, 0);
	uint64_t key, v;

	ck_assert_ptr_nonnull(t);
	*sn = (struct snapshot){.count = t->count,
				.latency_ns = t->latency_ns,
				.uncredited_ns = t->uncredited_ns,
				.checked = cp.checked};
	memcpy(sn->ns, t->ns, sizeof(sn->ns));
	for (size_t i = 0; corecap_u64map_next(&t->credit, &i, &key, &v);) {
		size_t j = sn->n++;

		ck_assert_uint_lt(j, 256);
		for (; j > 0 && sn->keys[j - 1] > key; j--) {
			sn->keys[j] = sn->keys[j - 1];
			sn->vals[j] = sn->vals[j - 1];
		}
		sn->keys[j] = key;
		sn->vals[j] = v;
	}
}

/*
 * The ops that hold more chain nodes than nodes_max start over from
 * their paths replayed then: the same figures, to the nanosecond and the
 * credit, as with room for every node.
 */
START_TEST(restarts_keep_the_figures)
{
	struct snapshot all, few;

	random_interleaving(777);
	ck_assert_uint_eq(cp.restarts, 0);
	take(&all);
	path_fixture_teardown();
	path_fixture_setup();
	cp.nodes_max = 16;
	random_interleaving(777);
	ck_assert_uint_gt(cp.restarts, 10);
	take(&few);
	ck_assert_uint_gt(all.checked, 500);
	ck_assert_uint_gt(all.n, 5);
	ck_assert_mem_eq(&all, &few, sizeof(all));
}
END_TEST

/*
 * The critical path reads sched's states, the inferred ones too: A runs
 * op 1 from 100 on CPU 0 and is preempted at 110 for HOG (another
 * process), which leaves CPU 0 to the idle task at 115; A's switch-in is
 * not in the stream, but at 130 A makes a futex call on CPU 0, so it came
 * on after CPU 0's last record (sched's lost switch-in): cpu 100..110 and
 * 115..150, runqueue 110..115 behind HOG, as the thread states have it.
 */
START_TEST(a_lost_switch_in_is_sched_s)
{
	kr_switch(&b, 0, 1, 0, 'S', A);
	kr_switch(&b, 0, 110, A, 'R', HOG)->flags = CORECAP_KSWITCH_PREV_TARGET;
	kr_switch(&b, 0, 115, HOG, 'S', 0)->flags = 0;
	/* not in the stream: kr_switch(&b, 0, 120, 0, 'S', A) */
	kr_futex_enter(&b, 0, 130, A, 129, 0x1000);
	kr_futex_exit(&b, 0, 131, A, 0);
	const struct cp_type *t = one_op(100, 150);
	expect(t, 10 + 35, 0, 0, 0, 5);
	ck_assert_uint_eq(credit(t, HOG, CP_RUNQUEUE), 5);
	ck_assert_uint_eq(cp.sched.lost_switch_ins, 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("critical_path");
	TCase *tc = tcase_create("paths");

	tcase_add_checked_fixture(tc, path_fixture_setup, path_fixture_teardown);
	tcase_add_test(tc, blocked_then_woken_follows_the_waker);
	tcase_add_test(tc, runnable_is_credited_to_the_cpu_holder);
	tcase_add_test(tc, runnable_threads_leave_the_queue_in_any_order);
	tcase_add_test(tc, a_log_call_splits_the_wait_for_its_cpu);
	tcase_add_test(tc, a_path_keeps_the_credits_made_first);
	tcase_add_test(tc, runqueue_behind_the_daemon_other_processes_or_idle);
	tcase_add_test(tc, an_op_begun_in_the_past_keeps_its_latency);
	tcase_add_test(tc, woken_by_nobody_is_the_traced_wait_or_queue);
	tcase_add_test(tc, an_aio_reaped_is_io_from_its_submission);
	tcase_add_test(tc, an_uninterruptible_sleep_ended_outside_the_daemon_is_io);
	tcase_add_test(tc, the_device_completion_hands_on_through_a_condition);
	tcase_add_test(tc, a_futex_sleep_ended_outside_the_daemon_hands_on_nothing);
	tcase_add_test(tc, a_completion_before_the_wait_is_an_ordinary_waking);
	tcase_add_test(tc, waitfor_edges_by_pool_and_kind);
	tcase_add_test(tc, waitfor_a_condition_is_told_by_its_value);
	tcase_add_test(tc, waitfor_sleeps_ended_outside_the_daemon);
	tcase_add_test(tc, knots_are_sink_cycles);
	tcase_add_test(tc, excluded_and_pathless_ops);
	tcase_add_test(tc, conservation_on_random_interleavings);
	tcase_add_test(tc, restarts_keep_the_figures);
	tcase_add_test(tc, a_lost_switch_in_is_sched_s);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
