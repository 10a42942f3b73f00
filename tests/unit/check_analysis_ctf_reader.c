/*
 * analysis/read/ctf_reader.c: the committed golden trace
 * (tests/data/analysis/golden-run) read through libbabeltrace2 into
 * model events: every corecap event kind, with its fields and contexts,
 * in timestamp order; missing input reported.
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "read/ctf_reader.h"

#include "check_run.h"

#define GOLDEN_TRACE CORECAP_TEST_DATA "/analysis/golden-run/trace"

struct tally {
	uint64_t by_kind[MEV__COUNT];
	uint64_t last_ts, out_of_order, without_tid, begin_typed, stacks;
	int32_t pid;
	bool comm_seen;
};

static int count(void *ctx, const struct model_event *ev)
{
	struct tally *t = ctx;

	t->by_kind[ev->kind]++;
	if (ev->ts_ns < t->last_ts)
		t->out_of_order++;
	t->last_ts = ev->ts_ns;
	if (ev->tid <= 0)
		t->without_tid++;
	t->pid = ev->pid;
	if (ev->comm && strncmp(ev->comm, "tg-worker-", 10) == 0)
		t->comm_seen = true;
	if (ev->kind == MEV_OP_BEGIN && ev->op.str &&
	    (strcmp(ev->op.str, "write") == 0 || strcmp(ev->op.str, "read") == 0) &&
	    ev->op.bytes == 4096)
		t->begin_typed++;
	if (ev->kind == MEV_LOCK_CONTENDED && ev->lock.depth == 2 &&
	    ev->lock.stack[0] == ev->lock.site && ev->lock.flag == 1)
		t->stacks++;
	return 0;
}

START_TEST(the_golden_trace_reads_every_kind_in_order)
{
	char **dirs;
	size_t n;
	char *err = NULL;
	struct ctf_reader r;
	struct tally t = {0};

	ck_assert_int_eq(corecap_ctf_reader_find_traces(GOLDEN_TRACE, &dirs, &n, &err), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_ptr_nonnull(strstr(dirs[0], "/ust/uid/0/64-bit"));
	ck_assert_int_eq(corecap_ctf_reader_init(&r, dirs, n, count, &t), 0);
	ck_assert_int_eq(corecap_ctf_reader_run(&r), 0);
	ck_assert_ptr_null(corecap_ctf_reader_error(&r));
	ck_assert_uint_eq(t.out_of_order, 0);
	ck_assert_uint_eq(t.without_tid, 0);
	ck_assert(t.comm_seen);
	ck_assert_int_gt(t.pid, 0);
	/* tracegen: per op 1 begin, 2 enter, 2 exit, 2 phase, 1 end, ... */
	ck_assert_uint_gt(t.by_kind[MEV_OP_BEGIN], 50);
	ck_assert_uint_eq(t.begin_typed, t.by_kind[MEV_OP_BEGIN]);
	ck_assert_uint_ge(t.by_kind[MEV_OP_ENTER], 2 * t.by_kind[MEV_OP_BEGIN] - 4);
	ck_assert_uint_gt(t.by_kind[MEV_OP_PHASE], 0);
	ck_assert_uint_gt(t.by_kind[MEV_OP_END], 0);
	ck_assert_uint_gt(t.by_kind[MEV_LOG_ENTER], 0);
	ck_assert_uint_eq(t.by_kind[MEV_LOG_ENTER], t.by_kind[MEV_LOG_EXIT]);
	ck_assert_uint_gt(t.by_kind[MEV_LOCK_HOLD], 0);
	ck_assert_uint_gt(t.by_kind[MEV_COND_WAIT], 0);
	ck_assert_uint_gt(t.by_kind[MEV_IO], 0);
	/* Every other contended event carries the two-frame stack (lock_a's). */
	ck_assert_uint_eq(2 * t.stacks, t.by_kind[MEV_LOCK_CONTENDED]);
	ck_assert_uint_eq(r.foreign_events, 0);
	corecap_ctf_reader_release(&r);
	corecap_ctf_reader_free_traces(dirs, n);
}
END_TEST

START_TEST(a_missing_trace_directory_is_an_error_naming_it)
{
	char **dirs;
	size_t n;
	char *err = NULL;

	ck_assert_int_eq(corecap_ctf_reader_find_traces("/nonexistent/trace", &dirs, &n, &err),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "cannot open trace '/nonexistent/trace'"));
	free(err);
}
END_TEST

static int refuse(void *ctx, const struct model_event *ev)
{
	(void)ctx, (void)ev;
	return -ENOMEM;
}

START_TEST(a_consumer_error_stops_the_reading)
{
	char **dirs;
	size_t n;
	char *err = NULL;
	struct ctf_reader r;

	ck_assert_int_eq(corecap_ctf_reader_find_traces(GOLDEN_TRACE, &dirs, &n, &err), 0);
	ck_assert_int_eq(corecap_ctf_reader_init(&r, dirs, n, refuse, NULL), 0);
	ck_assert_int_eq(corecap_ctf_reader_run(&r), -ENOMEM);
	ck_assert_ptr_nonnull(corecap_ctf_reader_error(&r));
	corecap_ctf_reader_release(&r);
	corecap_ctf_reader_free_traces(dirs, n);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_ctf_reader");
	TCase *tc = tcase_create("reader");

	tcase_add_test(tc, the_golden_trace_reads_every_kind_in_order);
	tcase_add_test(tc, a_missing_trace_directory_is_an_error_naming_it);
	tcase_add_test(tc, a_consumer_error_stops_the_reading);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
