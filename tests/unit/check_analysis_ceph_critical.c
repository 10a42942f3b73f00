/*
 * analysis/model/ceph_critical.c: the critical path of an OpTracker op
 * built by hand (docs/methodology.md's worked example): its span in the
 * daemon's wall clock, the scheduler records on the monotonic one; the
 * op's and its phases' paths computed by hand, the thread each ends on,
 * the logging share of a thread's samples, and a stop by the sampler; a
 * long history's marks are taken in time order while only the ops in
 * flight are held.
 */
#include <check.h>
#include <stdlib.h>

#include "kernel_records.h"
#include "model/ceph_critical.h"

#include "check_run.h"

enum { M = 10, W = 20 };
#define OFF 1000000000LL /* CLOCK_REALTIME minus CLOCK_MONOTONIC */

static struct kbuf b;
static struct critical_path cp;
static struct ceph_critical cc;
static const struct corecap_krec *recs[256];
static struct ceph_phase phases[] = {{"header_read", 0}, {"all_read", 0}, {"queued_for_pg", 0},
				     {"reached_pg", 0},	 {"started", 0},  {"commit_sent", 0}};
static struct ceph_op_type types[1];
static struct ceph_op_event events[7];
static struct ceph_op_span spans[1];
static struct ceph_files files;

static void setup(void)
{
	static const uint64_t t[] = {100, 112, 140, 148, 160, 400, 410};

	b = (struct kbuf){0};
	ck_assert_int_eq(corecap_critical_path_init(&cp, -1, 2), 0);
	types[0] =
		(struct ceph_op_type){.name = "write", .count = 1, .phases = phases, .n_phases = 6};
	for (uint32_t k = 0; k < 7; k++)
		events[k] = (struct ceph_op_event){t[k] + OFF, k < 6 ? k : CEPH_NO_PHASE};
	spans[0] = (struct ceph_op_span){100 + OFF, 400 + OFF, 0, 0, 7, 0};
	files = (struct ceph_files){.has_optracker = true,
				    .n_ops = 1,
				    .types = types,
				    .n_types = 1,
				    .spans = spans,
				    .n_spans = 1,
				    .events = events,
				    .n_events = 7};
}

static void teardown(void)
{
	corecap_ceph_critical_release(&cc);
	corecap_critical_path_release(&cp);
	free(b.p);
}

/*
 * The messenger M runs from 1, reads the op (100..140), wakes the worker W
 * at 140 (W waits for CPU 1, idle, until 148) and sleeps at 150; W runs
 * from 148 and stamps commit_sent at 400. Walking back from (W, 400): W ran
 * 148..400 (cpu 252), was runnable 140..148 (runqueue 8, the idle CPU's),
 * then M from 140 back to the arrival (cpu 40).
 */
static void handover(char w_first_sleep)
{
	kr_track(&b, 1, M, "msgr-worker-0");
	kr_track(&b, 1, W, "tp_osd_tp");
	kr_switch(&b, 0, 1, 0, 'S', M);
	kr_switch(&b, 1, 1, 0, 'S', W);
	kr_switch(&b, 1, 5, W, w_first_sleep, 0);
	kr_waking(&b, 0, 140, W, M)->target_cpu = 1;
	kr_switch(&b, 1, 148, 0, 'S', W);
	kr_switch(&b, 0, 150, M, 'S', 0);
	kr_switch(&b, 1, 420, W, 'S', 0);
	corecap_critical_path_set_records(&cp, recs, kr_index(&b, 0, recs, 256));
	ck_assert_int_eq(corecap_ceph_critical_init(&cc, &files, &cp, OFF, "msgr-worker,tp_osd_tp"),
			 0);
	ck_assert_uint_eq(cc.ops, 1);
	ck_assert_int_eq(corecap_ceph_critical_feed(&cc, 130), 0); /* as a trace event would */
	ck_assert_int_eq(corecap_ceph_critical_finish(&cc), 0);
	ck_assert_int_eq(corecap_critical_path_finish(&cp), 0);
	ck_assert_uint_eq(cp.violations, 0);
	ck_assert_uint_eq(cc.unpicked, 0);
}

static uint64_t credit(const struct cp_type *t, int32_t tid, uint32_t cat)
{
	uint64_t *v = corecap_u64map_find(&t->credit, CP_CREDIT_KEY(tid, cat));

	return v ? *v : 0;
}

static uint64_t sum(const struct cp_type *t)
{
	uint64_t s = 0;

	for (int c = 0; c < CP__COUNT; c++)
		s += t->ns[c];
	return s;
}

START_TEST(op_and_phases_walk_back_from_the_stamping_thread)
{
	/* The phases: each from its event to the next, on the thread that
	 * stamped the next (the messenger up to queued_for_pg). */
	static const uint64_t cpu[] = {12, 28, 0, 12, 240}, runq[] = {0, 0, 8, 0, 0};
	const struct cp_type *t;
	uint64_t phase_sum = 0;

	handover('S');
	t = corecap_ceph_critical_type(&cc, 0, 0);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->count, 1);
	ck_assert_uint_eq(t->latency_ns, 300);
	ck_assert_uint_eq(t->ns[CAT_CPU], 292);
	ck_assert_uint_eq(t->ns[CP_RUNQUEUE], 8);
	ck_assert_uint_eq(credit(t, W, CAT_CPU), 252);
	ck_assert_uint_eq(credit(t, M, CAT_CPU), 40);
	for (size_t k = 0; k < 5; k++) {
		const struct cp_type *p = corecap_ceph_critical_type(&cc, 0, k + 1);

		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq(p->ns[CAT_CPU], cpu[k]);
		ck_assert_uint_eq(p->ns[CP_RUNQUEUE], runq[k]);
		ck_assert_uint_eq(sum(p), p->latency_ns);
		phase_sum += sum(p);
	}
	ck_assert_uint_eq(credit(corecap_ceph_critical_type(&cc, 0, 1), M, CAT_CPU), 12);
	/* commit_sent opens a phase past the reply: none. */
	ck_assert_ptr_null(corecap_ceph_critical_type(&cc, 0, 6));
	ck_assert_uint_eq(phase_sum, 300);
	ck_assert_uint_eq(cp.checked, 6);
}
END_TEST

/* W's samples are a quarter in logging code: a quarter of its cpu on the
 * paths is logging, the sums kept. */
START_TEST(logging_share_of_the_samples_splits_the_cpu)
{
	struct u64map cats;
	const struct cp_type *t;

	handover('S');
	corecap_u64map_init(&cats);
	*corecap_u64map_upsert(&cats, CORECAP_CC_SAMPLE_KEY(W, STACK_CPU), NULL) = 3;
	*corecap_u64map_upsert(&cats, CORECAP_CC_SAMPLE_KEY(W, STACK_LOGGING), NULL) = 1;
	*corecap_u64map_upsert(&cats, CORECAP_CC_SAMPLE_KEY(W, STACK_IDLE), NULL) = 50;
	ck_assert_int_eq(corecap_ceph_critical_logging_share(&cc, &cats), 0);
	t = corecap_ceph_critical_type(&cc, 0, 0);
	ck_assert_uint_eq(t->ns[CAT_LOGGING], 63);
	ck_assert_uint_eq(t->ns[CAT_CPU], 292 - 63);
	ck_assert_uint_eq(credit(t, W, CAT_LOGGING), 63);
	ck_assert_uint_eq(credit(t, M, CAT_CPU), 40);
	ck_assert_uint_eq(sum(t), 300);
	ck_assert_uint_eq(cc.log_share_ns, 63);
	ck_assert_uint_eq(sum(corecap_ceph_critical_type(&cc, 0, 5)), 240);
	corecap_u64map_release(&cats);
}
END_TEST

/* An op whose end finds no op-path thread on a CPU nor one that left one
 * in the 200 us before has no path; one outside the window is left out. */
START_TEST(ends_without_a_thread_and_ops_outside_the_window)
{
	kr_track(&b, 1, M, "msgr-worker-0");
	kr_switch(&b, 0, 1, 0, 'S', M);
	kr_switch(&b, 0, 50, M, 'S', 0);
	corecap_critical_path_set_records(&cp, recs, kr_index(&b, 0, recs, 256));
	spans[0].reply_ns = 400000 + OFF;
	events[5].t_ns = 400000 + OFF;
	events[6].t_ns = 400010 + OFF;
	ck_assert_int_eq(corecap_ceph_critical_init(&cc, &files, &cp, OFF, "tp_osd_tp"), 0);
	ck_assert_int_eq(corecap_ceph_critical_finish(&cc), 0);
	ck_assert_ptr_null(corecap_ceph_critical_type(&cc, 0, 0));
	ck_assert_uint_gt(cc.unpicked, 0);
	ck_assert_uint_gt(cp.ops_without_path, 0);
	corecap_ceph_critical_release(&cc);
	cp.ws = 200 + OFF; /* after the arrival */
	ck_assert_int_eq(corecap_ceph_critical_init(&cc, &files, &cp, 0, "tp_osd_tp"), 0);
	ck_assert_uint_eq(cc.ops, 0);
	ck_assert_uint_eq(cc.ops_out, 1);
	ck_assert_uint_eq(cc.n_marks, 0);
}
END_TEST

/* The sampler stops W ('t') over 200..260 and resumes it: that is W's own
 * time (cpu), not a wait nobody of the daemon ended (queue). */
START_TEST(a_stop_by_the_sampler_is_the_threads_time)
{
	kr_track(&b, 1, M, "msgr-worker-0");
	kr_track(&b, 1, W, "tp_osd_tp");
	kr_switch(&b, 0, 1, 0, 'S', M);
	kr_switch(&b, 1, 1, 0, 'S', W);
	kr_switch(&b, 1, 5, W, 'S', 0);
	kr_waking(&b, 0, 140, W, M)->target_cpu = 1;
	kr_switch(&b, 1, 148, 0, 'S', W);
	kr_switch(&b, 0, 150, M, 'S', 0);
	kr_switch(&b, 1, 200, W, 't', 0);
	kr_waking(&b, 1, 260, W, 0)->target_cpu = 1;
	kr_switch(&b, 1, 260, 0, 'S', W);
	kr_switch(&b, 1, 420, W, 'S', 0);
	corecap_critical_path_set_records(&cp, recs, kr_index(&b, 0, recs, 256));
	ck_assert_int_eq(corecap_ceph_critical_init(&cc, &files, &cp, OFF, "msgr-worker,tp_osd_tp"),
			 0);
	ck_assert_int_eq(corecap_ceph_critical_finish(&cc), 0);
	const struct cp_type *t = corecap_ceph_critical_type(&cc, 0, 0);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->ns[CAT_CPU], 292);
	ck_assert_uint_eq(t->ns[CAT_QUEUE], 0);
	ck_assert_uint_eq(cp.violations, 0);
}
END_TEST

/* 5000 ops one after the other, each 7 events (three at one time: ties),
 * two in flight at a time: every mark is taken, in time order, and the
 * marks held never pass the first allocation (the ops in flight), not the
 * 60,000 of the history. */
START_TEST(a_long_history_holds_the_ops_in_flight)
{
	enum { N = 5000 };
	static struct ceph_op_span sp[N];
	static struct ceph_op_event ev[N * 7];
	static const uint64_t t[] = {0, 100, 100, 100, 300, 900, 950};
	uint64_t last = 0, taken = 0;

	for (uint32_t i = 0; i < N; i++) {
		for (uint32_t k = 0; k < 7; k++)
			ev[i * 7 + k] = (struct ceph_op_event){OFF + 1000 + i * 500ull + t[k],
							       k < 6 ? k : CEPH_NO_PHASE};
		sp[i] = (struct ceph_op_span){
			OFF + 1000 + i * 500ull, OFF + 1000 + i * 500ull + 900, 0, i * 7, 7, 0};
	}
	files.spans = sp;
	files.n_spans = N;
	files.events = ev;
	files.n_events = N * 7;
	types[0].count = N;
	files.n_ops = N;
	corecap_critical_path_set_records(&cp, recs, kr_index(&b, 0, recs, 256));
	ck_assert_int_eq(corecap_ceph_critical_init(&cc, &files, &cp, OFF, "tp_osd_tp"), 0);
	ck_assert_uint_eq(cc.ops, N);
	while (!corecap_ceph_critical_done(&cc)) {
		uint64_t next = corecap_ceph_critical_next_ns(&cc);

		ck_assert_uint_ge(next, last);
		last = next;
		ck_assert_int_eq(corecap_ceph_critical_take(&cc), 0);
		taken++;
		ck_assert_uint_le(cc.cap_marks, 256);
	}
	/* Per op: its begin and end, and phases 0, 3 and 4 begun and ended
	 * (1 and 2 are empty, their events at one time; 5 begins at the
	 * reply). */
	ck_assert_uint_eq(taken, N * (2 + 2 * 3));
	ck_assert_uint_eq(cc.taken, taken);
	ck_assert_uint_eq(corecap_ceph_critical_next_ns(&cc), UINT64_MAX);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ceph_critical");
	TCase *tc = tcase_create("optracker");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, op_and_phases_walk_back_from_the_stamping_thread);
	tcase_add_test(tc, logging_share_of_the_samples_splits_the_cpu);
	tcase_add_test(tc, ends_without_a_thread_and_ops_outside_the_window);
	tcase_add_test(tc, a_stop_by_the_sampler_is_the_threads_time);
	tcase_add_test(tc, a_long_history_holds_the_ops_in_flight);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
