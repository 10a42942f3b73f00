/*
 * analysis/read/ctf_reader.c: the committed golden trace
 * (tests/data/analysis/golden-run) read through libbabeltrace2 into
 * model events: every corecap event kind, with its fields and contexts,
 * in timestamp order; missing input reported; a trace older than `hdr`
 * (tests/data/analysis/old-head-trace) read with `head` as its 4 bytes.
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/net_ops.h"
#include "read/ctf_reader.h"

#include "check_run.h"

#define GOLDEN_TRACE   CORECAP_TEST_DATA "/analysis/golden-run/trace"
#define OLD_HEAD_TRACE CORECAP_TEST_DATA "/analysis/old-head-trace"

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

/* The old trace's events, kept, then fed to the op detector. */
static struct model_event old_io[16];
static size_t n_old_io;

static int keep_io(void *ctx, const struct model_event *ev)
{
	(void)ctx;
	if (ev->kind == MEV_IO && n_old_io < sizeof(old_io) / sizeof(old_io[0]))
		old_io[n_old_io++] = *ev;
	return 0;
}

START_TEST(a_trace_older_than_hdr_gives_heads_first_4_bytes)
{
	static const uint8_t read_req[4] = {0x00, 0x01, 0x0b, 0xc5};
	struct model_config cfg = {.pid = -1};
	char **dirs;
	size_t n;
	char *err = NULL;
	struct ctf_reader r;
	struct model m;
	struct net_ops d;
	bool read_seen = false, rfq_seen = false;

	ck_assert_int_eq(corecap_ctf_reader_find_traces(OLD_HEAD_TRACE, &dirs, &n, &err), 0);
	ck_assert_uint_eq(n, 1);
	n_old_io = 0;
	ck_assert_int_eq(corecap_ctf_reader_init(&r, dirs, n, keep_io, NULL), 0);
	ck_assert_int_eq(corecap_ctf_reader_run(&r), 0);
	ck_assert_ptr_null(corecap_ctf_reader_error(&r));
	corecap_ctf_reader_release(&r);
	corecap_ctf_reader_free_traces(dirs, n);
	ck_assert_uint_eq(n_old_io, 7);
	for (size_t i = 0; i < n_old_io; i++) {
		const struct model_event *e = &old_io[i];

		ck_assert_uint_eq(e->io.hdr_len, 4);
		ck_assert_uint_eq(e->io.io_class, CORECAP_IO_NET);
		if (e->io.fd == 5 && e->io.call == CORECAP_IO_CALL_RECV) {
			ck_assert_mem_eq(e->io.hdr, read_req, 4);
			read_seen = true;
		}
		if (e->io.fd == 6 && e->io.call == CORECAP_IO_CALL_RECV) {
			ck_assert_mem_eq(e->io.hdr, "RFQ1", 4);
			rfq_seen = true;
		}
	}
	ck_assert(read_seen && rfq_seen);
	/* The detector names the XRootD requests from those 4 bytes. */
	ck_assert_int_eq(corecap_model_init(&m, &cfg), 0);
	corecap_net_ops_init(&d, &m, -1);
	for (size_t i = 0; i < n_old_io; i++)
		ck_assert_int_eq(corecap_net_ops_consume(&d, &old_io[i]), 0);
	ck_assert_int_eq(corecap_net_ops_finish(&d), 0);
	ck_assert_int_eq(corecap_model_finish(&m), 0);
	ck_assert_uint_eq(d.framed_ops, 0); /* 4 bytes frame nothing */
	ck_assert_uint_eq(m.ops.finished, 3);
	for (size_t i = 0; i < m.ops.n_types; i++) {
		const struct op_type *t = &m.ops.types[i];

		if (!t->hist.count)
			continue; /* "net": the unanswered request's type, until its reply */
		if (strcmp(t->name, "kXR_read") == 0)
			ck_assert_uint_eq(t->hist.count, 2);
		else
			ck_assert_str_eq(t->name, "req 54B resp 9B");
	}
	corecap_net_ops_release(&d);
	corecap_model_release(&m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_ctf_reader");
	TCase *tc = tcase_create("reader");

	tcase_add_test(tc, the_golden_trace_reads_every_kind_in_order);
	tcase_add_test(tc, a_missing_trace_directory_is_an_error_naming_it);
	tcase_add_test(tc, a_consumer_error_stops_the_reading);
	tcase_add_test(tc, a_trace_older_than_hdr_gives_heads_first_4_bytes);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
