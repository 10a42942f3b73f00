/*
 * analysis/read/ctf_reader.c: the committed golden trace
 * (tests/data/analysis/golden-run) read through libbabeltrace2 into
 * model events: every corecap event kind, with its fields and contexts,
 * in timestamp order, the same order as libbabeltrace2's own muxer
 * gives (the babeltrace2 command's); missing input reported; a stream
 * out of time order refused, naming its trace; a trace older than `hdr`
 * (tests/data/analysis/old-head-trace) read with `head` as its 4 bytes.
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
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

/* The events' times in the order given, a run of equal times as one
 * (a begin_enter is two model events at one time). */
struct times {
	uint64_t v[4096];
	size_t n;
};

static void times_add(struct times *t, uint64_t ts)
{
	if (t->n && t->v[t->n - 1] == ts)
		return;
	ck_assert_uint_lt(t->n, sizeof(t->v) / sizeof(t->v[0]));
	t->v[t->n++] = ts;
}

static int keep_time(void *ctx, const struct model_event *ev)
{
	times_add(ctx, ev->ts_ns);
	return 0;
}

/*
 * The reader merges the trace's two streams itself (ctf_merge): its order
 * is the one libbabeltrace2's muxer gives the babeltrace2 command, which
 * prints each event's raw clock value first with --clock-cycles.
 */
START_TEST(the_merge_gives_the_muxers_order)
{
	static struct times ours, theirs;
	char **dirs, line[4096];
	size_t n;
	char *err = NULL;
	struct ctf_reader r;
	FILE *p;

	ours.n = theirs.n = 0;
	ck_assert_int_eq(corecap_ctf_reader_find_traces(GOLDEN_TRACE, &dirs, &n, &err), 0);
	ck_assert_int_eq(corecap_ctf_reader_init(&r, dirs, n, keep_time, &ours), 0);
	ck_assert_int_eq(r.n_inputs, 2); /* corecap_0 and corecap_1 */
	ck_assert_int_eq(corecap_ctf_reader_run(&r), 0);
	corecap_ctf_reader_release(&r);
	corecap_ctf_reader_free_traces(dirs, n);
	p = popen("babeltrace2 --clock-cycles '" GOLDEN_TRACE "'", "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		ck_assert_int_eq(line[0], '[');
		times_add(&theirs, strtoull(line + 1, NULL, 10));
	}
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_uint_gt(theirs.n, 1000);
	ck_assert_uint_eq(ours.n, theirs.n);
	for (size_t i = 0; i < ours.n; i++)
		ck_assert_uint_eq(ours.v[i], theirs.v[i]);
}
END_TEST

static void copy_file(const char *from, const char *to, int times)
{
	static char buf[1 << 20];
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	size_t len;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	len = fread(buf, 1, sizeof(buf), in);
	ck_assert_uint_lt(len, sizeof(buf));
	for (int i = 0; i < times; i++)
		ck_assert_uint_eq(fwrite(buf, 1, len, out), len);
	fclose(in);
	ck_assert_int_eq(fclose(out), 0);
}

/*
 * A copy of the golden trace whose stream corecap_0 holds its one packet
 * twice (its index lists both): the second packet's events go back to
 * the first one's times. The muxer refused that; the merge must too,
 * naming the trace, rather than feed the model a clock going back.
 */
START_TEST(a_stream_out_of_time_order_is_an_error_naming_its_trace)
{
	static const char *files[] = {"metadata", "corecap_1", "index/corecap_1.idx"};
	char tmp[] = "/tmp/corecap-ctf-order.XXXXXX", dir[256], from[512], to[512], cmd[600];
	unsigned char idx[88];
	char **dirs;
	size_t n;
	char *err = NULL;
	struct ctf_reader r;
	struct times t = {.n = 0};
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(dir, sizeof(dir), "%s/ust/uid/0/64-bit", tmp);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/index'", dir);
	ck_assert_int_eq(system(cmd), 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(from, sizeof(from), "%s/ust/uid/0/64-bit/%s", GOLDEN_TRACE, files[i]);
		snprintf(to, sizeof(to), "%s/%s", dir, files[i]);
		copy_file(from, to, 1);
	}
	snprintf(from, sizeof(from), "%s/ust/uid/0/64-bit/corecap_0", GOLDEN_TRACE);
	snprintf(to, sizeof(to), "%s/corecap_0", dir);
	copy_file(from, to, 2);
	/* The index: its 16-byte header, the packet's 72-byte entry, then the
	 * same entry at the second copy's offset (big-endian, first field). */
	snprintf(from, sizeof(from), "%s/ust/uid/0/64-bit/index/corecap_0.idx", GOLDEN_TRACE);
	f = fopen(from, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(idx, 1, sizeof(idx), f), sizeof(idx));
	fclose(f);
	snprintf(to, sizeof(to), "%s/index/corecap_0.idx", dir);
	f = fopen(to, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(idx, 1, sizeof(idx), f), sizeof(idx));
	memset(idx + 16, 0, 8);
	idx[16 + 6] = 0x90; /* offset 36864: the packet's size in bytes */
	ck_assert_uint_eq(fwrite(idx + 16, 1, 72, f), 72);
	ck_assert_int_eq(fclose(f), 0);

	ck_assert_int_eq(corecap_ctf_reader_find_traces(tmp, &dirs, &n, &err), 0);
	ck_assert_int_eq(corecap_ctf_reader_init(&r, dirs, n, keep_time, &t), 0);
	ck_assert_int_eq(corecap_ctf_reader_run(&r), -ERANGE);
	ck_assert_ptr_nonnull(strstr(corecap_ctf_reader_error(&r), dir));
	ck_assert_ptr_nonnull(strstr(corecap_ctf_reader_error(&r), "a stream out of time order"));
	for (size_t i = 1; i < t.n; i++) /* nothing out of order reached the consumer */
		ck_assert_uint_gt(t.v[i], t.v[i - 1]);
	corecap_ctf_reader_release(&r);
	corecap_ctf_reader_free_traces(dirs, n);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	ck_assert_int_eq(system(cmd), 0);
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

	/* The library's read itself, never a replay (check_analysis_run_cache tests that). */
	setenv("CORECAP_RUNCACHE", "0", 1);
	tcase_add_test(tc, the_golden_trace_reads_every_kind_in_order);
	tcase_add_test(tc, the_merge_gives_the_muxers_order);
	tcase_add_test(tc, a_stream_out_of_time_order_is_an_error_naming_its_trace);
	tcase_add_test(tc, a_missing_trace_directory_is_an_error_naming_it);
	tcase_add_test(tc, a_consumer_error_stops_the_reading);
	tcase_add_test(tc, a_trace_older_than_hdr_gives_heads_first_4_bytes);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
