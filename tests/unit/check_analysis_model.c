/*
 * analysis/model/model.c: the attribution rule (docs/methodology.md, "Per-op attribution") on
 * hand-made event sequences with exact answers, and conservation (every op's categories sum to its
 * latency) on random ones.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

#include "check_run.h"

#define LOCK_A	  0xa000
#define LOCK_LOG  0xb000
#define SITE_WORK 0x1000
#define SITE_LOG  0x2000 /* "in logging code" for these tests */

static bool test_is_logging(void *ctx, uint64_t site)
{
	(void)ctx;
	return site == SITE_LOG;
}

static struct model m;

static void setup_window(bool has_window, uint64_t ws, uint64_t we)
{
	struct model_config cfg = {
		.has_window = has_window,
		.window_start_ns = ws,
		.window_end_ns = we,
		.pid = -1,
		.site_is_logging = test_is_logging,
	};

	ck_assert_int_eq(corecap_model_init(&m, &cfg), 0);
}

static void setup(void)
{
	setup_window(false, 0, 0);
}

static void teardown(void)
{
	corecap_model_release(&m);
}

static void feed(struct model_event ev)
{
	if (ev.pid == 0)
		ev.pid = 1;
	ck_assert_int_eq(corecap_model_consume(&m, &ev), 0);
}

static void op_ev(enum model_event_kind k, uint64_t ts, int tid, uint64_t id, const char *str)
{
	feed((struct model_event){
		.kind = k, .ts_ns = ts, .tid = tid, .op = {.id = id, .str = str}});
}

#define BEGIN(ts, tid, id, type) op_ev(MEV_OP_BEGIN, ts, tid, id, type)
#define ENTER(ts, tid, id)	 op_ev(MEV_OP_ENTER, ts, tid, id, NULL)
#define EXIT(ts, tid, id)	 op_ev(MEV_OP_EXIT, ts, tid, id, NULL)
#define PHASE(ts, tid, id, name) op_ev(MEV_OP_PHASE, ts, tid, id, name)
#define END(ts, tid, id)	 op_ev(MEV_OP_END, ts, tid, id, NULL)

static void lock_wait(uint64_t ts, int tid, uint64_t lock, uint64_t site, uint64_t wait)
{
	feed((struct model_event){.kind = MEV_LOCK_CONTENDED,
				  .ts_ns = ts,
				  .tid = tid,
				  .lock = {.addr = lock, .site = site, .dur_ns = wait, .flag = 1}});
}

static void cond_wait(uint64_t ts, int tid, uint64_t wait)
{
	feed((struct model_event){.kind = MEV_COND_WAIT,
				  .ts_ns = ts,
				  .tid = tid,
				  .lock = {.addr = 0xc000, .site = SITE_WORK, .dur_ns = wait}});
}

static void io(uint64_t ts, int tid, enum corecap_io_class cls, uint64_t dur)
{
	feed((struct model_event){.kind = MEV_IO,
				  .ts_ns = ts,
				  .tid = tid,
				  .io = {.io_class = (uint8_t)cls, .dur_ns = dur}});
}

static void log_call(uint64_t ts, int tid, bool enter)
{
	feed((struct model_event){
		.kind = enter ? MEV_LOG_ENTER : MEV_LOG_EXIT, .ts_ns = ts, .tid = tid});
}

static const struct op_type *type_named(const char *name)
{
	for (size_t i = 0; i < m.ops.n_types; i++)
		if (strcmp(m.ops.types[i].name, name) == 0)
			return &m.ops.types[i];
	ck_abort_msg("no op type '%s'", name);
	return NULL;
}

static uint64_t detail(const struct op_type *t, enum op_cat cat, uint32_t id)
{
	uint64_t *v = corecap_u64map_find(&t->detail, OP_DETAIL_KEY(cat, id));

	return v ? *v : 0;
}

START_TEST(one_op_on_two_threads_splits_into_every_category)
{
	const struct op_type *t;

	BEGIN(1000, 10, 1, "write");
	ENTER(1000, 10, 1);
	lock_wait(1500, 10, LOCK_A, SITE_WORK, 300); /* cpu 1000-1200, lock 1200-1500 */
	io(1700, 10, CORECAP_IO_DATA, 100);	     /* cpu 1500-1600, io 1600-1700 */
	PHASE(2000, 10, 1, "queued");
	EXIT(2000, 10, 1);	  /* cpu 1700-2000 */
	ENTER(2500, 11, 1);	  /* queue after "queued" 2000-2500 */
	cond_wait(2800, 11, 200); /* cpu 2500-2600, cond 2600-2800 */
	END(3000, 11, 1);	  /* cpu 2800-3000 */
	EXIT(3000, 11, 1);
	corecap_model_finish(&m);

	t = type_named("write");
	ck_assert_uint_eq(t->hist.count, 1);
	ck_assert_uint_eq(t->hist.sum_ns, 2000);
	ck_assert_uint_eq(t->cat_ns[CAT_CPU], 900);
	ck_assert_uint_eq(t->cat_ns[CAT_LOCK_WAIT], 300);
	ck_assert_uint_eq(t->cat_ns[CAT_IO], 100);
	ck_assert_uint_eq(t->cat_ns[CAT_COND_WAIT], 200);
	ck_assert_uint_eq(t->cat_ns[CAT_QUEUE], 500);
	ck_assert_uint_eq(t->cat_ns[CAT_LOGGING] + t->cat_ns[CAT_OTHER], 0);
	ck_assert_uint_eq(detail(t, CAT_QUEUE, corecap_op_table_phase(&m.ops, "queued")), 500);
	ck_assert_uint_eq(detail(t, CAT_IO, CORECAP_IO_DATA), 100);
	ck_assert_uint_eq(detail(t, CAT_LOCK_WAIT, 0), 300);
	ck_assert_uint_eq(m.ops.violations, 0);
	ck_assert_uint_eq(m.ops.max_err_ns, 0);
	ck_assert_uint_eq(m.q.exit_unmatched + m.q.exit_unknown_op, 0);
}
END_TEST

START_TEST(waits_inside_a_log_call_are_logging_and_log_io_and_log_sites_too)
{
	const struct op_type *t;
	const struct model_thread *th;

	BEGIN(0, 10, 7, "write");
	ENTER(0, 10, 7);
	log_call(100, 10, true);		    /* cpu 0-100 */
	lock_wait(200, 10, LOCK_A, SITE_WORK, 50);  /* inside the log call: logging */
	io(250, 10, CORECAP_IO_LOG, 20);	    /* inside: logging */
	log_call(300, 10, false);		    /* logging 100-300 */
	io(400, 10, CORECAP_IO_LOG, 40);	    /* cpu 300-360, logging (io) 360-400 */
	lock_wait(500, 10, LOCK_LOG, SITE_LOG, 30); /* cpu 400-470, logging (lock) 470-500 */
	END(600, 10, 7);			    /* cpu 500-600 */
	EXIT(600, 10, 7);
	corecap_model_finish(&m);

	t = type_named("write");
	ck_assert_uint_eq(t->cat_ns[CAT_LOGGING], 200 + 40 + 30);
	ck_assert_uint_eq(t->cat_ns[CAT_CPU], 100 + 60 + 70 + 100);
	ck_assert_uint_eq(t->cat_ns[CAT_LOCK_WAIT] + t->cat_ns[CAT_IO], 0);
	ck_assert_uint_eq(detail(t, CAT_LOGGING, LOG_ANNOTATED), 200);
	ck_assert_uint_eq(detail(t, CAT_LOGGING, LOG_IO), 40);
	ck_assert_uint_eq(detail(t, CAT_LOGGING, LOG_LOCK_WAIT), 30);
	/* The thread's states: the same partition. */
	th = corecap_thread_table_find(&m.threads, 10);
	ck_assert_uint_eq(th->logging_ns, 270);
	ck_assert_uint_eq(th->lock_wait_ns, 0);
	ck_assert_uint_eq(th->io_ns[CORECAP_IO_LOG], 0);
	/* The lock table still sees both waits, and which one was logging's. */
	ck_assert_uint_eq(corecap_lock_table_get(&m.locks, LOCK_A)->wait_ns, 50);
	ck_assert_uint_eq(corecap_lock_table_get(&m.locks, LOCK_LOG)->logging_wait_ns, 30);
}
END_TEST

START_TEST(the_thread_that_enters_last_owns_the_op)
{
	const struct op_type *t;

	BEGIN(0, 10, 1, "read");
	ENTER(0, 10, 1);
	ENTER(100, 11, 1);			    /* 11 owns from 100: 10's cpu 0-100 */
	lock_wait(150, 11, LOCK_A, SITE_WORK, 100); /* clipped to 100-150 */
	lock_wait(180, 10, LOCK_A, SITE_WORK, 20);  /* not the owner's: ignored */
	EXIT(200, 10, 1);			    /* the former owner unwinds: nothing */
	lock_wait(300, 11, LOCK_A, SITE_WORK, 150); /* cpu 150-150, lock 150-300 */
	EXIT(350, 11, 1);			    /* cpu 300-350; queue from here */
	ENTER(400, 10, 1);			    /* queue 350-400 */
	END(500, 10, 1);			    /* cpu 400-500 */
	corecap_model_finish(&m);

	t = type_named("read");
	ck_assert_uint_eq(t->cat_ns[CAT_CPU], 100 + 50 + 100);
	ck_assert_uint_eq(t->cat_ns[CAT_LOCK_WAIT], 50 + 150);
	ck_assert_uint_eq(t->cat_ns[CAT_QUEUE], 50);
	ck_assert_uint_eq(m.ops.max_err_ns, 0);
}
END_TEST

START_TEST(when_the_owner_exits_the_thread_still_in_context_owns_the_op)
{
	const struct op_type *t;

	BEGIN(0, 10, 1, "read");
	ENTER(0, 10, 1);
	ENTER(100, 11, 1); /* 11 owns */
	EXIT(200, 11, 1);  /* 10 still has it: it owns again from 200 */
	io(300, 10, CORECAP_IO_DATA, 50);
	END(400, 10, 1);
	corecap_model_finish(&m);

	t = type_named("read");
	ck_assert_uint_eq(t->cat_ns[CAT_CPU], 100 + 100 + 50 + 100);
	ck_assert_uint_eq(t->cat_ns[CAT_IO], 50);
	ck_assert_uint_eq(t->cat_ns[CAT_QUEUE], 0);
}
END_TEST

START_TEST(an_op_ended_by_another_thread_leaves_the_owners_unknown_tail_as_other)
{
	const struct op_type *t;

	BEGIN(0, 10, 1, "write");
	ENTER(0, 10, 1);
	io(300, 10, CORECAP_IO_DATA, 100); /* the owner's last event: cpu 0-200, io 200-300 */
	END(1000, 12, 1);		   /* another thread ends it: 300-1000 unknown */
	EXIT(1100, 10, 1);		   /* later exit: quiet */
	corecap_model_finish(&m);

	t = type_named("write");
	ck_assert_uint_eq(t->cat_ns[CAT_CPU], 200);
	ck_assert_uint_eq(t->cat_ns[CAT_IO], 100);
	ck_assert_uint_eq(t->cat_ns[CAT_OTHER], 700);
	ck_assert_uint_eq(m.q.ops_ended_elsewhere, 1);
	ck_assert_uint_eq(m.q.exit_unmatched + m.q.exit_unknown_op, 0);
}
END_TEST

START_TEST(queue_time_is_labelled_by_the_last_phase)
{
	const struct op_type *t;

	BEGIN(0, 10, 1, "write"); /* no context: queue after "begin" 0-100 */
	ENTER(100, 11, 1);
	PHASE(150, 11, 1, "queued"); /* in context: only relabels */
	EXIT(200, 11, 1);
	PHASE(400, 12, 1, "committed"); /* queued 200-400 */
	END(1000, 12, 1);		/* committed 400-1000 */
	corecap_model_finish(&m);

	t = type_named("write");
	ck_assert_uint_eq(detail(t, CAT_QUEUE, OP_PHASE_NONE), 100);
	ck_assert_uint_eq(detail(t, CAT_QUEUE, corecap_op_table_phase(&m.ops, "queued")), 200);
	ck_assert_uint_eq(detail(t, CAT_QUEUE, corecap_op_table_phase(&m.ops, "committed")), 600);
	ck_assert_uint_eq(t->cat_ns[CAT_CPU], 100);
}
END_TEST

START_TEST(a_wait_for_a_thread_busy_logging_is_logging_queued_behind)
{
	const struct op_type *t;

	BEGIN(0, 10, 1, "write");
	ENTER(0, 10, 1);
	PHASE(50, 10, 1, "queued");
	EXIT(50, 10, 1);	 /* cpu 0-50; waits for thread 11 from 50 */
	log_call(100, 11, true); /* 11 logs for something else: 100-300 */
	log_call(300, 11, false);
	io(350, 11, CORECAP_IO_LOG, 20); /* and writes its log: 330-350 */
	ENTER(400, 11, 1);		 /* 50-400: 220 behind logging, 130 queue */
	END(500, 11, 1);
	corecap_model_finish(&m);

	t = type_named("write");
	ck_assert_uint_eq(t->cat_ns[CAT_LOGGING], 220);
	ck_assert_uint_eq(detail(t, CAT_LOGGING, LOG_QUEUED_BEHIND), 220);
	ck_assert_uint_eq(t->cat_ns[CAT_QUEUE], 130);
	ck_assert_uint_eq(t->cat_ns[CAT_CPU], 150);
	ck_assert_uint_eq(m.ops.max_err_ns, 0);
}
END_TEST

START_TEST(an_op_entered_before_its_begin_counts_from_begin)
{
	const struct op_type *t;

	ENTER(0, 10, 5);
	lock_wait(50, 10, LOCK_A, SITE_WORK, 50);
	BEGIN(100, 10, 5, "write");
	lock_wait(300, 10, LOCK_A, SITE_WORK, 250); /* from 100 on only */
	END(400, 10, 5);
	corecap_model_finish(&m);

	t = type_named("write");
	ck_assert_uint_eq(t->hist.sum_ns, 300);
	ck_assert_uint_eq(t->cat_ns[CAT_LOCK_WAIT], 200);
	ck_assert_uint_eq(t->cat_ns[CAT_CPU], 100);
}
END_TEST

START_TEST(ops_the_trace_lost_events_of_are_left_out_and_counted)
{
	struct model_event loss = {
		.kind = MEV_DISCARDED,
		.ts_ns = 150,
		.tid = -1,
		.pid = -1,
		.loss = {.count = 12, .begin_ns = 150, .end_ns = 300},
	};

	BEGIN(0, 10, 1, "write");   /* in flight at the loss */
	BEGIN(100, 10, 2, "write"); /* in flight too */
	END(120, 10, 2);	    /* ... but ended before: kept */
	ck_assert_int_eq(corecap_model_consume(&m, &loss), 0);
	BEGIN(200, 11, 3, "write"); /* begins inside the lost range */
	END(400, 10, 1);
	END(500, 11, 3);
	BEGIN(600, 11, 4, "write"); /* after: kept */
	END(700, 11, 4);
	corecap_model_finish(&m);

	ck_assert_uint_eq(type_named("write")->hist.count, 2);
	ck_assert_uint_eq(m.q.ops_tainted, 2);
	ck_assert_uint_eq(m.q.discarded_events, 12);
	ck_assert_uint_eq(m.q.loss_msgs, 1);
}
END_TEST

START_TEST(discarded_counts_saturate_instead_of_wrapping)
{
	/* A corrupt packet counter: 2^63 twice would wrap the sum to 0. */
	struct model_event loss = {.kind = MEV_DISCARDED,
				   .ts_ns = 100,
				   .tid = -1,
				   .pid = -1,
				   .loss = {.count = UINT64_C(1) << 63}};

	ck_assert_int_eq(corecap_model_consume(&m, &loss), 0);
	ck_assert_int_eq(corecap_model_consume(&m, &loss), 0);
	loss.loss.packets = true;
	loss.loss.count = UINT64_MAX - 1;
	ck_assert_int_eq(corecap_model_consume(&m, &loss), 0);
	ck_assert_int_eq(corecap_model_consume(&m, &loss), 0);
	corecap_model_finish(&m);
	ck_assert_uint_eq(m.q.discarded_events, UINT64_MAX);
	ck_assert_uint_eq(m.q.discarded_packets, UINT64_MAX);
}
END_TEST

START_TEST(a_lost_log_exit_does_not_leave_a_thread_logging_for_ever)
{
	struct model_event loss = {.kind = MEV_DISCARDED,
				   .ts_ns = 200,
				   .tid = -1,
				   .pid = -1,
				   .loss = {.count = UINT64_MAX}};

	log_call(100, 10, true);
	ck_assert_int_eq(corecap_model_consume(&m, &loss), 0);
	BEGIN(300, 10, 1, "write");
	ENTER(300, 10, 1);
	END(400, 10, 1);
	corecap_model_finish(&m);

	ck_assert_uint_eq(type_named("write")->cat_ns[CAT_CPU], 100);
	ck_assert_uint_eq(m.q.log_depth_reset, 1);
	ck_assert_uint_eq(m.q.discarded_unknown_msgs, 1);
}
END_TEST

START_TEST(the_window_clips_thread_states_and_selects_ops_by_begin)
{
	const struct model_thread *th;

	teardown();
	setup_window(true, 1000, 2000);
	BEGIN(900, 10, 1, "write"); /* begins before the window: left out */
	END(1100, 10, 1);
	BEGIN(1500, 10, 2, "write");
	END(1600, 10, 2);
	lock_wait(1100, 11, LOCK_A, SITE_WORK, 300); /* 800-1100: 100 inside */
	cond_wait(2200, 11, 400);		     /* 1800-2200: 200 inside */
	feed((struct model_event){.kind = MEV_LOCK_HOLD,
				  .ts_ns = 1050,
				  .tid = 11,
				  .lock = {.addr = LOCK_A, .site = SITE_WORK, .dur_ns = 100}});
	corecap_model_finish(&m);

	ck_assert_uint_eq(type_named("write")->hist.count, 1);
	ck_assert_uint_eq(m.q.ops_outside_window, 1);
	th = corecap_thread_table_find(&m.threads, 11);
	ck_assert_uint_eq(th->lock_wait_ns, 100);
	ck_assert_uint_eq(th->cond_wait_ns, 200);
	ck_assert_uint_eq(corecap_lock_table_get(&m.locks, LOCK_A)->hold_ns, 50);
	ck_assert_uint_eq(corecap_model_window_ns(&m), 1000);
}
END_TEST

START_TEST(exits_are_judged_by_what_the_op_is)
{
	BEGIN(0, 10, 1, "write");
	ENTER(0, 10, 1);
	EXIT(10, 11, 1);  /* op in flight, never entered by 11: broken */
	EXIT(20, 11, 99); /* never seen: entered before the trace */
	END(30, 10, 1);
	EXIT(40, 10, 1); /* after its end: the usual order */
	corecap_model_finish(&m);

	ck_assert_uint_eq(m.q.exit_unmatched, 1);
	ck_assert_uint_eq(m.q.exit_unknown_op, 1);
}
END_TEST

START_TEST(an_enter_without_exit_is_an_implicit_exit)
{
	const struct op_type *t;

	BEGIN(0, 10, 1, "write");
	BEGIN(0, 10, 2, "write");
	ENTER(0, 10, 1);
	ENTER(100, 10, 2); /* leaves op 1 at 100 */
	END(300, 10, 1);   /* op 1: cpu 100, queue 200 */
	END(300, 10, 2);   /* op 2: queue 100, cpu 200 */
	corecap_model_finish(&m);

	t = type_named("write");
	ck_assert_uint_eq(t->cat_ns[CAT_CPU], 300);
	ck_assert_uint_eq(t->cat_ns[CAT_QUEUE], 300);
	ck_assert_uint_eq(m.q.implicit_exits, 1);
}
END_TEST

START_TEST(events_of_other_processes_are_counted_not_used)
{
	struct model_event ev = {.kind = MEV_OP_BEGIN,
				 .ts_ns = 1,
				 .tid = 5,
				 .pid = 77,
				 .op = {.id = 1, .str = "write"}};

	teardown();
	{
		struct model_config cfg = {.pid = 1};

		ck_assert_int_eq(corecap_model_init(&m, &cfg), 0);
	}
	ck_assert_int_eq(corecap_model_consume(&m, &ev), 0);
	ev.pid = 1;
	ev.ts_ns = 2;
	ck_assert_int_eq(corecap_model_consume(&m, &ev), 0);
	ck_assert_uint_eq(m.q.events_other_pid, 1);
	ck_assert_uint_eq(m.ops.inflight.len, 1);
}
END_TEST

START_TEST(thread_names_prefer_name_events_and_pools_strip_digits)
{
	const struct model_thread *th;

	feed((struct model_event){.kind = MEV_LOG_ENTER, .ts_ns = 1, .tid = 10, .comm = "refosd"});
	feed((struct model_event){.kind = MEV_THREAD_NAME,
				  .ts_ns = 2,
				  .tid = 10,
				  .thread = {.tid = 10, .name = "msgr-worker-12"}});
	feed((struct model_event){.kind = MEV_LOG_EXIT, .ts_ns = 3, .tid = 10, .comm = "refosd"});
	th = corecap_thread_table_find(&m.threads, 10);
	ck_assert_str_eq(th->name, "msgr-worker-12");
	ck_assert_str_eq(th->pool, "msgr-worker");
	ck_assert_int_eq(corecap_model_set_thread_cpu(&m, 10, "msgr-worker-1", 5, 1, true, 10), 0);
	ck_assert_str_eq(th->name, "msgr-worker-12");
	ck_assert_uint_eq(th->cpu_ns, 5);
}
END_TEST

/*
 * corecap_model_event_names, the mirror a reader on another thread keeps
 * of the model's naming (read/trace_pipe.h): after every event of a
 * sequence (name events of the daemon, of another process, of a trace
 * without pids, without a tid, with an empty name or none, naming another
 * thread), each thread wants its procname by the mirror exactly when it
 * does by the model.
 */
START_TEST(ops_a_client_named_keep_its_id_and_their_times)
{
	BEGIN(1000, 10, 1, "write");
	feed((struct model_event){
		.kind = MEV_OP_CLIENT, .ts_ns = 1000, .tid = 10, .op = {.id = 1, .bytes = 77}});
	BEGIN(1100, 11, 2, "write"); /* an older client's: no id */
	END(1500, 11, 2);
	feed((struct model_event){.kind = MEV_OP_REPLY, .ts_ns = 3500, .tid = 10, .op = {.id = 1}});
	END(4000, 10, 1);
	/* A client event for an op not begun is ignored. */
	feed((struct model_event){
		.kind = MEV_OP_CLIENT, .ts_ns = 4100, .tid = 10, .op = {.id = 9, .bytes = 78}});
	ck_assert_int_eq(corecap_model_finish(&m), 0);
	ck_assert_uint_eq(m.ops.n_client, 1);
	ck_assert_uint_eq(m.ops.client[0].client_op, 77);
	ck_assert_uint_eq(m.ops.client[0].begin_ns, 1000);
	ck_assert_uint_eq(m.ops.client[0].end_ns, 4000);
	ck_assert_uint_eq(m.ops.client[0].reply_ns, 3500);
}
END_TEST

START_TEST(a_readers_mirror_of_name_events_answers_as_the_model)
{
	struct model_config cfg = {.pid = 5, .site_is_logging = test_is_logging};
	const struct model_event evs[] = {
		{.kind = MEV_LOG_ENTER, .ts_ns = 1, .tid = 10, .pid = 5, .comm = "d"},
		{.kind = MEV_THREAD_NAME,
		 .ts_ns = 2,
		 .tid = 11,
		 .pid = 6,
		 .thread = {.tid = 11, .name = "other"}},
		{.kind = MEV_THREAD_NAME,
		 .ts_ns = 3,
		 .tid = -1,
		 .pid = 5,
		 .thread = {.tid = 12, .name = "no-tid"}},
		{.kind = MEV_THREAD_NAME,
		 .ts_ns = 4,
		 .tid = 13,
		 .pid = 5,
		 .thread = {.tid = 13, .name = ""}},
		{.kind = MEV_THREAD_NAME, .ts_ns = 4, .tid = 15, .pid = 5, .thread = {.tid = 15}},
		{.kind = MEV_THREAD_NAME,
		 .ts_ns = 5,
		 .tid = 10,
		 .pid = 5,
		 .thread = {.tid = 14, .name = "worker-1"}},
		{.kind = MEV_THREAD_NAME,
		 .ts_ns = 6,
		 .tid = 10,
		 .pid = -1,
		 .thread = {.tid = 10, .name = "log"}},
		{.kind = MEV_THREAD_NAME,
		 .ts_ns = 7,
		 .tid = 10,
		 .pid = 5,
		 .thread = {.tid = -3, .name = "negative"}},
		{.kind = MEV_LOG_EXIT, .ts_ns = 8, .tid = 10, .pid = 5, .comm = "d"},
	};
	bool named[20] = {false}; /* by tid + 4 */
	int32_t tid;

	corecap_model_release(&m);
	ck_assert_int_eq(corecap_model_init(&m, &cfg), 0);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		if (corecap_model_event_names(cfg.pid, &evs[i], &tid)) {
			ck_assert(tid >= -4 && tid < 16);
			named[tid + 4] = true;
		}
		ck_assert_int_eq(corecap_model_consume(&m, &evs[i]), 0);
		for (int32_t t = -4; t < 16; t++)
			ck_assert_msg(corecap_model_wants_comm(&m, t) == !named[t + 4],
				      "after event %zu, thread %d", i, (int)t);
	}
	ck_assert(named[10 + 4] && named[14 + 4] && named[-3 + 4]);
	ck_assert(!named[11 + 4] && !named[12 + 4] && !named[13 + 4] && !named[15 + 4]);
}
END_TEST

/*
 * A thread's logging inside a window, against a sum over every span kept:
 * spans of random lengths and gaps (some overlapping the one before, which
 * log_span trims), past the ring's THREAD_LOG_SPANS so that it wraps, and
 * windows that begin before, inside and after them.
 */
START_TEST(logging_in_a_window_sums_the_spans_kept_in_it)
{
	struct model_thread th;
	uint64_t t = 100;

	memset(&th, 0, sizeof(th));
	srandom(7);
	for (int n = 0; n < 3 * THREAD_LOG_SPANS; n++) {
		uint64_t b = t - (uint64_t)(random() % 5), e = t + 1 + (uint64_t)(random() % 40);

		corecap_thread_log_span(&th, b, e);
		t = e + (uint64_t)(random() % 30);
		for (int w = 0; w < 20; w++) {
			uint64_t wb = (uint64_t)(random() % (t + 20)),
				 we = wb + (uint64_t)(random() % 300);
			uint64_t want = 0;

			for (uint32_t i = 0; i < th.n_log_spans; i++) {
				uint64_t lb = th.log_spans[i].b > wb ? th.log_spans[i].b : wb;
				uint64_t le = th.log_spans[i].e < we ? th.log_spans[i].e : we;

				want += le > lb ? le - lb : 0;
			}
			ck_assert_uint_eq(corecap_thread_logging_in(&th, wb, we), want);
		}
	}
	ck_assert_uint_eq(th.n_log_spans, THREAD_LOG_SPANS);
}
END_TEST

/* Random interleavings of every event kind: no op may break conservation. */
START_TEST(random_sequences_conserve_every_op)
{
	static const enum model_event_kind kinds[] = {
		MEV_OP_BEGIN,  MEV_OP_ENTER,  MEV_OP_EXIT,   MEV_OP_PHASE,
		MEV_OP_END,    MEV_LOG_ENTER, MEV_LOG_EXIT,  MEV_LOCK_CONTENDED,
		MEV_COND_WAIT, MEV_IO,	      MEV_DISCARDED,
	};
	uint64_t ts = 1000;

	srandom(42 + (unsigned)_i);
	for (int n = 0; n < 20000; n++) {
		struct model_event ev = {
			.kind = kinds[random() % (sizeof(kinds) / sizeof(kinds[0]))],
			.tid = 1 + (int)(random() % 4),
			.pid = 1,
		};

		ts += (uint64_t)(random() % 50);
		ev.ts_ns = ts;
		switch (ev.kind) {
		case MEV_DISCARDED:
			if (random() % 50)
				continue;
			ev.loss.count = 1;
			ev.loss.end_ns = ts + 10;
			break;
		case MEV_LOCK_CONTENDED:
			ev.lock.addr = LOCK_A + 8 * (uint64_t)(random() % 3);
			ev.lock.site = random() % 2 ? SITE_LOG : SITE_WORK;
			ev.lock.dur_ns = (uint64_t)(random() % 300);
			break;
		case MEV_COND_WAIT:
			ev.lock.dur_ns = (uint64_t)(random() % 300);
			break;
		case MEV_IO:
			ev.io.io_class = (uint8_t)(random() % CORECAP_IO_CLASSES);
			ev.io.dur_ns = (uint64_t)(random() % 300);
			break;
		default:
			ev.op.id = (uint64_t)(random() % 12);
			ev.op.str = random() % 2 ? "read" : "queued";
			break;
		}
		ck_assert_int_eq(corecap_model_consume(&m, &ev), 0);
	}
	corecap_model_finish(&m);
	ck_assert_uint_gt(m.ops.checked, 100);
	ck_assert_uint_eq(m.ops.violations, 0);
	ck_assert_uint_eq(m.ops.max_err_ns, 0);
}
END_TEST

static Suite *model_suite(void)
{
	Suite *s = suite_create("analysis_model");
	TCase *tc = tcase_create("attribution");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, one_op_on_two_threads_splits_into_every_category);
	tcase_add_test(tc, waits_inside_a_log_call_are_logging_and_log_io_and_log_sites_too);
	tcase_add_test(tc, the_thread_that_enters_last_owns_the_op);
	tcase_add_test(tc, when_the_owner_exits_the_thread_still_in_context_owns_the_op);
	tcase_add_test(tc, an_op_ended_by_another_thread_leaves_the_owners_unknown_tail_as_other);
	tcase_add_test(tc, queue_time_is_labelled_by_the_last_phase);
	tcase_add_test(tc, a_wait_for_a_thread_busy_logging_is_logging_queued_behind);
	tcase_add_test(tc, an_op_entered_before_its_begin_counts_from_begin);
	tcase_add_test(tc, ops_the_trace_lost_events_of_are_left_out_and_counted);
	tcase_add_test(tc, a_lost_log_exit_does_not_leave_a_thread_logging_for_ever);
	tcase_add_test(tc, the_window_clips_thread_states_and_selects_ops_by_begin);
	tcase_add_test(tc, exits_are_judged_by_what_the_op_is);
	tcase_add_test(tc, an_enter_without_exit_is_an_implicit_exit);
	tcase_add_test(tc, discarded_counts_saturate_instead_of_wrapping);
	tcase_add_test(tc, events_of_other_processes_are_counted_not_used);
	tcase_add_test(tc, thread_names_prefer_name_events_and_pools_strip_digits);
	tcase_add_test(tc, a_readers_mirror_of_name_events_answers_as_the_model);
	tcase_add_test(tc, ops_a_client_named_keep_its_id_and_their_times);
	tcase_add_test(tc, logging_in_a_window_sums_the_spans_kept_in_it);
	tcase_add_loop_test(tc, random_sequences_conserve_every_op, 0, 8);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return corecap_check_run(model_suite());
}
