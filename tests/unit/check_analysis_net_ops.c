/*
 * analysis/model/net_ops.c: ops detected from socket I/O, on hand-made
 * event sequences with exact answers: a synchronous server (one thread
 * reads the request and writes the reply), a request read in two parts,
 * a reply written by another thread, a reply whose event comes after the
 * next request's read, writes with no request, other processes and
 * annotations left alone, a reply in several writes (held back until the
 * next request, the hold's end or the trace's), an output without a model;
 * every detected op's categories sum to its latency.
 */
#include <check.h>
#include <string.h>

#include "model/model.h"
#include "model/net_ops.h"

#include "check_run.h"

#define PID 7

static struct model m;
static struct net_ops d;

static void setup(void)
{
	struct model_config cfg = {.pid = PID};

	ck_assert_int_eq(corecap_model_init(&m, &cfg), 0);
	corecap_net_ops_init(&d, &m, PID);
}

static void teardown(void)
{
	corecap_net_ops_release(&d);
	corecap_model_release(&m);
}

/* call: 0 read, 1 write, 3 send, 4 recv. */
/* The first bytes of the next io(): 4 of them (a trace older than `hdr`)... */
static uint32_t next_head;
/* ... or up to 24 (next_hdr_len of them). */
static uint8_t next_hdr[24];
static size_t next_hdr_len;

static void set_head4(struct model_event *ev, uint32_t head)
{
	for (int i = 0; i < 4; i++)
		ev->io.hdr[i] = (uint8_t)(head >> (24 - 8 * i));
	ev->io.hdr_len = 4;
}

static void io(uint64_t ts, int tid, uint8_t call, int fd, int64_t bytes, uint64_t dur, int pid,
	       uint8_t cls)
{
	struct model_event ev = {.kind = MEV_IO, .ts_ns = ts, .tid = tid, .pid = pid};

	if (next_head)
		set_head4(&ev, next_head);
	if (next_hdr_len) {
		memcpy(ev.io.hdr, next_hdr, next_hdr_len);
		ev.io.hdr_len = (uint8_t)next_hdr_len;
	}
	next_head = 0;
	next_hdr_len = 0;
	ev.io.call = call;
	ev.io.io_class = cls;
	ev.io.fd = fd;
	ev.io.bytes = bytes;
	ev.io.dur_ns = dur;
	ck_assert_int_eq(corecap_net_ops_consume(&d, &ev), 0);
}

#define RECV(ts, tid, fd, n, dur) io(ts, tid, 4, fd, n, dur, PID, CORECAP_IO_NET)
#define SEND(ts, tid, fd, n, dur) io(ts, tid, 1, fd, n, dur, PID, CORECAP_IO_NET)

/* The next io() moved an XRootD request header (24 bytes known)... */
static void xreq(uint16_t sid, uint16_t id, uint32_t dlen)
{
	memset(next_hdr, 0, sizeof(next_hdr));
	next_hdr[0] = (uint8_t)(sid >> 8), next_hdr[1] = (uint8_t)sid;
	next_hdr[2] = (uint8_t)(id >> 8), next_hdr[3] = (uint8_t)id;
	for (int i = 0; i < 4; i++)
		next_hdr[20 + i] = (uint8_t)(dlen >> (24 - 8 * i));
	next_hdr_len = 24;
}

/* ... or a response header (8 bytes known). */
static void xresp(uint16_t sid, uint16_t status, uint32_t dlen)
{
	next_hdr[0] = (uint8_t)(sid >> 8), next_hdr[1] = (uint8_t)sid;
	next_hdr[2] = (uint8_t)(status >> 8), next_hdr[3] = (uint8_t)status;
	for (int i = 0; i < 4; i++)
		next_hdr[4 + i] = (uint8_t)(dlen >> (24 - 8 * i));
	next_hdr_len = 8;
}

/* ... or payload bytes that look like a header (they must not be read as one). */
static void xjunk(void)
{
	memset(next_hdr, 0x0b, sizeof(next_hdr));
	next_hdr_len = 24;
}

static const struct op_type *type_named(const char *name)
{
	for (size_t i = 0; i < m.ops.n_types; i++)
		if (strcmp(m.ops.types[i].name, name) == 0)
			return &m.ops.types[i];
	return NULL;
}

static void finish_and_check_conservation(void)
{
	ck_assert_int_eq(corecap_net_ops_finish(&d), 0);
	ck_assert_int_eq(corecap_model_finish(&m), 0);
	ck_assert_uint_eq(m.ops.violations, 0);
	ck_assert_uint_eq(m.ops.checked, m.ops.finished);
}

START_TEST(synchronous_request_and_reply_make_one_op_owned_by_the_thread)
{
	const struct op_type *t;

	RECV(1000, 10, 5, 24, 100); /* request read, ends at 1000 */
	SEND(4000, 10, 5, 9, 1000); /* reply written 3000..4000 */
	RECV(9000, 10, 5, 24, 100); /* the next request */
	SEND(10000, 10, 5, 9, 500);
	finish_and_check_conservation();
	ck_assert_uint_eq(m.ops.finished, 2);
	ck_assert_ptr_nonnull(t = type_named("req 24B resp 9B"));
	ck_assert_uint_eq(t->hist.count, 2);
	ck_assert_uint_eq(t->hist.sum_ns, 3000 + 1000);
	/* cpu until the write, the write itself is the op's net I/O */
	ck_assert_uint_eq(t->cat_ns[CAT_CPU], 2000 + 500);
	ck_assert_uint_eq(t->cat_ns[CAT_IO], 1000 + 500);
	ck_assert_uint_eq(d.ops_begun, 2);
	ck_assert_uint_eq(d.handoffs, 0);
}
END_TEST

START_TEST(a_request_in_two_reads_is_one_op)
{
	RECV(1000, 10, 5, 24, 100);
	RECV(1500, 10, 5, 1, 100); /* the write's payload byte */
	SEND(3000, 10, 5, 8, 200);
	finish_and_check_conservation();
	ck_assert_uint_eq(m.ops.finished, 1);
	ck_assert_ptr_nonnull(type_named("req 25B resp 8B"));
	ck_assert_uint_eq(type_named("req 25B resp 8B")->hist.sum_ns, 2000);
}
END_TEST

START_TEST(a_reply_by_another_thread_ends_the_op_there)
{
	const struct op_type *t;

	RECV(1000, 10, 5, 54, 100); /* messenger thread */
	SEND(6000, 11, 5, 24, 100); /* finisher thread */
	finish_and_check_conservation();
	ck_assert_ptr_nonnull(t = type_named("req 54B resp 24B"));
	ck_assert_uint_eq(t->hist.sum_ns, 5000);
	/* The reader's time after its last event is not known: other. */
	ck_assert_uint_eq(t->cat_ns[CAT_OTHER], 5000);
	ck_assert_uint_eq(d.handoffs, 1);
}
END_TEST

START_TEST(a_late_reply_event_leaves_the_next_request_its_own_op)
{
	const struct op_type *t;

	RECV(1000, 10, 5, 54, 100);
	/* The reply went out at 5000 but its write returned at 7000; the
	 * client's next request was read meanwhile, at 6000. */
	RECV(6000, 10, 5, 54, 100);
	SEND(7000, 11, 5, 24, 2000);
	SEND(9500, 11, 5, 24, 100);
	finish_and_check_conservation();
	ck_assert_uint_eq(m.ops.finished, 2);
	ck_assert_uint_eq(d.late_replies, 1);
	ck_assert_uint_eq(d.writes_without_op, 0);
	ck_assert_ptr_nonnull(t = type_named("req 54B resp 24B"));
	ck_assert_uint_eq(t->hist.count, 2);
	ck_assert_uint_eq(t->hist.sum_ns, (7000 - 1000) + (9500 - 6000));
}
END_TEST

START_TEST(connections_are_apart_and_a_thread_leaves_one_for_another)
{
	RECV(1000, 10, 5, 24, 10);
	RECV(2000, 10, 6, 24, 10); /* thread 10 serves fd 6 now: leaves fd 5's op */
	SEND(3000, 10, 6, 9, 10);
	SEND(4000, 12, 5, 9, 10);
	finish_and_check_conservation();
	ck_assert_uint_eq(m.ops.finished, 2);
	ck_assert_uint_eq(type_named("req 24B resp 9B")->hist.sum_ns,
			  (4000 - 1000) + (3000 - 2000));
	ck_assert_uint_eq(m.q.implicit_exits, 0);
}
END_TEST

START_TEST(writes_without_request_other_processes_and_annotations_start_nothing)
{
	struct model_event ann = {.kind = MEV_OP_BEGIN, .ts_ns = 500, .tid = 10, .pid = PID};

	ann.op.id = 99;
	ann.op.str = "write";
	ck_assert_int_eq(corecap_net_ops_consume(&d, &ann), 0);
	SEND(1000, 10, 5, 9, 10);			     /* nothing asked */
	io(1500, 20, 4, 5, 24, 10, PID + 1, CORECAP_IO_NET); /* a client process */
	io(1600, 10, 0, 3, 100, 10, PID, CORECAP_IO_DATA);   /* a file read */
	RECV(1700, 10, 5, 0, 10);			     /* end of stream */
	finish_and_check_conservation();
	ck_assert_uint_eq(m.ops.finished, 0);
	ck_assert_uint_eq(m.ops.n_types, 0);
	ck_assert_uint_eq(d.writes_without_op, 1);
	ck_assert_uint_eq(d.annotated_dropped, 1);
	ck_assert_uint_eq(d.ops_begun, 0);
}
END_TEST

START_TEST(an_xrootd_request_is_named_for_its_request_id)
{
	next_head = 0x00010bc5; /* stream 1, request 3013 */
	RECV(1000, 10, 5, 24, 10);
	SEND(2000, 10, 5, 9, 10);
	next_head = 0x00020bcb; /* kXR_write's header, then its payload */
	RECV(3000, 10, 5, 24, 10);
	next_head = 0x61626364;
	RECV(3100, 10, 5, 4, 10);
	SEND(4000, 10, 5, 8, 10);
	next_head = 0x52465131; /* "RFQ1": refosd's magic is no XRootD request */
	RECV(5000, 10, 5, 54, 10);
	SEND(6000, 10, 5, 24, 10);
	next_head = 0x00000bc5; /* 3013 in fewer than 24 bytes: not a request header */
	RECV(7000, 10, 5, 20, 10);
	SEND(8000, 10, 5, 16, 10);
	finish_and_check_conservation();
	ck_assert_ptr_nonnull(type_named("kXR_read"));
	ck_assert_ptr_nonnull(type_named("kXR_write"));
	ck_assert_uint_eq(type_named("kXR_write")->hist.sum_ns, 1000);
	ck_assert_ptr_nonnull(type_named("req 54B resp 24B"));
	ck_assert_ptr_nonnull(type_named("req 20B resp 16B"));
}
END_TEST

START_TEST(a_reply_in_several_writes_ends_at_its_last_write)
{
	const struct op_type *t;

	RECV(1000, 10, 5, 24, 100);
	SEND(2000, 10, 5, 8, 100);			     /* the response header */
	io(2500, 10, 0, 3, 4096, 300, PID, CORECAP_IO_DATA); /* the file read between */
	RECV(2600, 11, 6, 24, 10);    /* another connection's request meanwhile */
	SEND(3000, 10, 5, 4096, 400); /* the data */
	SEND(3200, 11, 6, 9, 10);
	SEND(3500, 10, 5, 4096, 300); /* more data */
	RECV(9000, 10, 5, 24, 100);   /* the next request: the reply was complete */
	SEND(9500, 10, 5, 9, 100);
	finish_and_check_conservation();
	ck_assert_uint_eq(m.ops.finished, 3);
	ck_assert_ptr_nonnull(t = type_named("req 24B resp <=16KiB"));
	ck_assert_uint_eq(t->hist.count, 1);
	ck_assert_uint_eq(t->hist.sum_ns, 3500 - 1000);
	/* the three writes and the file read are the op's I/O */
	ck_assert_uint_eq(t->cat_ns[CAT_IO], 100 + 300 + 400 + 300);
	ck_assert_ptr_nonnull(t = type_named("req 24B resp 9B"));
	ck_assert_uint_eq(t->hist.count, 2);
	ck_assert_uint_eq(t->hist.sum_ns, (3200 - 2600) + (9500 - 9000));
	ck_assert_uint_eq(d.reply_writes, 2);
	ck_assert_uint_eq(d.writes_without_op, 0);
	ck_assert_uint_eq(d.ops_ended, 3);
	ck_assert_uint_eq(d.n_pending, 0);
	ck_assert_uint_ge(d.held_max, 5);
}
END_TEST

START_TEST(a_reply_ends_at_its_last_write_at_the_hold_or_at_the_trace_end)
{
	RECV(1000, 10, 5, 24, 100);
	SEND(2000, 10, 5, 8, 100);
	SEND(2500, 10, 5, 8, 100);
	/* No write for longer than the hold: the reply was complete, and a
	 * late write is one outside any op. */
	SEND(2500 + NET_OPS_HOLD_NS + 1, 10, 5, 8, 100);
	RECV(3 * NET_OPS_HOLD_NS, 10, 6, 24, 100);
	SEND(3 * NET_OPS_HOLD_NS + 700, 10, 6, 9, 100);
	SEND(3 * NET_OPS_HOLD_NS + 900, 10, 6, 9, 100);
	finish_and_check_conservation(); /* the trace's end completes fd 6's */
	ck_assert_uint_eq(m.ops.finished, 2);
	ck_assert_uint_eq(type_named("req 24B resp 16B")->hist.sum_ns, 1500);
	ck_assert_uint_eq(type_named("req 24B resp 18B")->hist.sum_ns, 900);
	ck_assert_uint_eq(d.replies_by_hold, 1);
	ck_assert_uint_eq(d.writes_without_op, 1);
}
END_TEST

/* An output without a model: what an exporter sees. */
static uint64_t tap_last_ts, tap_ends, tap_begins;
static char tap_type[64];
static int tap(void *ctx, const struct model_event *ev)
{
	(void)ctx;
	ck_assert_uint_ge(ev->ts_ns, tap_last_ts == UINT64_MAX ? 0 : tap_last_ts);
	tap_last_ts = ev->ts_ns;
	if (ev->kind == MEV_OP_BEGIN)
		tap_begins++;
	if (ev->kind == MEV_OP_END) {
		tap_ends++;
		snprintf(tap_type, sizeof(tap_type), "%s", ev->op.str);
	}
	if (ev->kind == MEV_THREAD_NAME)
		ck_assert_str_eq(ev->thread.name, "worker");
	return 0;
}

START_TEST(a_tap_sees_every_event_in_time_order_with_the_ends_typed)
{
	struct net_ops t;
	struct model_event ev = {.kind = MEV_IO, .ts_ns = 1000, .tid = 10, .pid = PID};
	char name[16] = "worker";

	corecap_net_ops_init(&t, NULL, PID);
	corecap_net_ops_out(&t, tap, NULL);
	tap_last_ts = tap_ends = tap_begins = 0;
	ev.io.io_class = CORECAP_IO_NET;
	ev.io.fd = 5;
	ev.io.call = 4;
	ev.io.bytes = 24;
	set_head4(&ev, 0x00010bc5);
	ck_assert_int_eq(corecap_net_ops_consume(&t, &ev), 0);
	ev.io.call = 1;
	ev.io.hdr_len = 0;
	for (int i = 0; i < 1000; i++) { /* enough to move the held events */
		ev.ts_ns += 10;
		ck_assert_int_eq(corecap_net_ops_consume(&t, &ev), 0);
		if (i == 500) {
			struct model_event n = {
				.kind = MEV_THREAD_NAME, .ts_ns = ev.ts_ns, .tid = 10, .pid = PID};

			n.thread.tid = 10;
			n.thread.name = name;
			ck_assert_int_eq(corecap_net_ops_consume(&t, &n), 0);
			strcpy(name, "garbage"); /* the reader's buffer, reused */
		}
	}
	ck_assert_uint_eq(tap_ends, 0); /* still held: the reply may go on */
	ck_assert_int_eq(corecap_net_ops_finish(&t), 0);
	ck_assert_uint_eq(tap_begins, 1);
	ck_assert_uint_eq(tap_ends, 1);
	ck_assert_str_eq(tap_type, "kXR_read");
	ck_assert_uint_eq(tap_last_ts, 1000 + 10 * 1000);
	ck_assert_uint_eq(t.reply_writes, 999);
	corecap_net_ops_release(&t);
}
END_TEST

START_TEST(types_round_large_sizes_up_to_powers_of_two)
{
	char buf[64];

	corecap_net_ops_type(buf, sizeof(buf), 0, 24, 1023);
	ck_assert_str_eq(buf, "req 24B resp 1023B");
	corecap_net_ops_type(buf, sizeof(buf), 0, 1024, 1025);
	ck_assert_str_eq(buf, "req <=1KiB resp <=2KiB");
	corecap_net_ops_type(buf, sizeof(buf), 0, 4 << 20, (4 << 20) + 1);
	ck_assert_str_eq(buf, "req <=4MiB resp <=8MiB");
	corecap_net_ops_type(buf, sizeof(buf), 0x0bfc, 24, 8); /* 3068: beyond the ids */
	ck_assert_str_eq(buf, "req 24B resp 8B");
	corecap_net_ops_type(buf, sizeof(buf), 0x0bd8, 24, 8); /* 3032, the last */
	ck_assert_str_eq(buf, "kXR_clone");
}
END_TEST

START_TEST(framed_a_request_spans_its_reads_by_dlen_and_its_final_reply_ends_it)
{
	const struct op_type *t;

	xreq(1, 3019, 65536); /* kXR_write: its header, then 64 KiB in three reads */
	RECV(1000, 10, 5, 24, 10);
	xjunk();
	RECV(1100, 10, 5, 30000, 10);
	xjunk();
	RECV(1200, 10, 5, 30000, 10);
	xjunk();
	RECV(1300, 10, 5, 5536, 10);
	xresp(1, 0, 0); /* kXR_ok */
	SEND(2000, 10, 5, 8, 10);
	/* Ended by its final response: no next read, no hold, no trace end. */
	ck_assert_uint_eq(m.ops.finished, 1);
	ck_assert_uint_eq(d.replies_by_frame, 1);
	t = type_named("kXR_write");
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->hist.sum_ns, 1000);
	xreq(1, 3011, 0); /* kXR_ping */
	RECV(3000, 10, 5, 24, 10);
	xresp(1, 0, 0);
	SEND(3500, 10, 5, 8, 10);
	ck_assert_uint_eq(m.ops.finished, 2);
	xreq(1, 3017, 0); /* kXR_stat: header and body in one writev */
	RECV(4000, 10, 5, 24, 10);
	xresp(1, 0, 30);
	SEND(4700, 10, 5, 38, 10);
	finish_and_check_conservation();
	ck_assert_uint_eq(m.ops.finished, 3);
	ck_assert_uint_eq(d.framed_ops, 3);
	ck_assert_uint_eq(d.replies_by_frame, 3);
	ck_assert_uint_eq(type_named("kXR_ping")->hist.sum_ns, 500);
	ck_assert_uint_eq(type_named("kXR_stat")->hist.sum_ns, 700);
	ck_assert_uint_eq(d.frames_lost, 0);
}
END_TEST

START_TEST(framed_partial_responses_keep_the_op_open_past_the_hold)
{
	const struct op_type *t;
	uint64_t gap = 2 * NET_OPS_HOLD_NS;

	xreq(1, 3013, 0); /* kXR_read of 4 MiB: two kXR_oksofar, then kXR_ok */
	RECV(1000, 10, 5, 24, 10);
	xresp(1, 4000, 2 << 20);
	SEND(2000, 10, 5, 8 + (2 << 20), 10);
	/* The next chunk comes after more than the hold: the op waits. */
	xresp(1, 4000, 1 << 20);
	SEND(2000 + gap, 10, 5, 8, 10);
	xjunk();
	SEND(2100 + gap, 10, 5, 1 << 20, 10);
	ck_assert_uint_eq(m.ops.finished, 0);
	xresp(1, 0, 1 << 20);
	SEND(3000 + gap, 10, 5, 8 + (1 << 20), 10);
	ck_assert_uint_eq(m.ops.finished, 1);
	finish_and_check_conservation();
	t = type_named("kXR_read");
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->hist.count, 1);
	ck_assert_uint_eq(t->hist.sum_ns, 2000 + gap);
	ck_assert_uint_eq(d.partial_responses, 2);
	ck_assert_uint_eq(d.replies_by_hold, 0);
	ck_assert_uint_eq(d.replies_by_frame, 1);
}
END_TEST

START_TEST(framed_the_next_request_read_before_the_reply_event_is_its_own_op)
{
	xreq(1, 3011, 0); /* kXR_ping, whole */
	RECV(1000, 10, 5, 24, 10);
	xreq(1, 3017, 5); /* kXR_stat, read before the ping's reply event came */
	RECV(1500, 10, 5, 24, 10);
	xjunk();
	RECV(1600, 10, 5, 5, 10);
	/* The ping's reply began after those reads ended (so time alone does
	 * not say they were the next request: framing does). */
	xresp(1, 0, 0);
	SEND(2000, 11, 5, 8, 100);
	xresp(1, 0, 20);
	SEND(3000, 11, 5, 28, 100);
	finish_and_check_conservation();
	ck_assert_uint_eq(d.late_replies, 1);
	ck_assert_uint_eq(type_named("kXR_ping")->hist.count, 1);
	ck_assert_uint_eq(type_named("kXR_ping")->hist.sum_ns, 1000);
	ck_assert_uint_eq(type_named("kXR_stat")->hist.count, 1);
	ck_assert_uint_eq(type_named("kXR_stat")->hist.sum_ns, 1500);
}
END_TEST

START_TEST(bytes_that_are_not_xrootds_keep_the_generic_rule)
{
	/* The handshake, answered (a frame of its own), then a protocol that
	 * is not XRootD's on another connection. */
	memset(next_hdr, 0, 20);
	next_hdr[15] = 4, next_hdr[18] = 2012 >> 8, next_hdr[19] = 2012 & 0xff;
	next_hdr_len = 20;
	RECV(1000, 10, 5, 20, 10);
	xresp(0, 0, 8);
	SEND(1200, 10, 5, 16, 10);
	ck_assert_uint_eq(m.ops.finished, 1);
	/* xrootd peeked at it (the read above) and now reads it: no op. */
	memset(next_hdr, 0, 20);
	next_hdr[15] = 4, next_hdr[18] = 2012 >> 8, next_hdr[19] = 2012 & 0xff;
	next_hdr_len = 20;
	RECV(1300, 10, 5, 20, 10);
	xreq(1, 3006, 0); /* kXR_protocol */
	RECV(1400, 10, 5, 24, 10);
	xresp(1, 0, 8);
	SEND(1450, 10, 5, 16, 10);
	ck_assert_uint_eq(m.ops.finished, 2);
	ck_assert_uint_eq(d.handshake_rereads, 1);
	memcpy(next_hdr, "RFQ1abcdefghijklmnopqrst", 24);
	next_hdr_len = 24;
	RECV(2000, 10, 6, 54, 10);
	memcpy(next_hdr, "RFR1abcd", 8);
	next_hdr_len = 8;
	SEND(2500, 10, 6, 9, 10);
	ck_assert_uint_eq(m.ops.finished, 2); /* held: the reply may go on */
	memcpy(next_hdr, "RFQ1abcdefghijklmnopqrst", 24);
	next_hdr_len = 24;
	RECV(3000, 10, 6, 54, 10);
	SEND(3300, 10, 6, 9, 10);
	finish_and_check_conservation();
	ck_assert_uint_eq(type_named("handshake")->hist.sum_ns, 200);
	ck_assert_uint_eq(type_named("req 54B resp 9B")->hist.count, 2);
	ck_assert_uint_eq(type_named("kXR_protocol")->hist.sum_ns, 50);
	ck_assert_uint_eq(d.late_replies, 0);
	ck_assert_uint_eq(d.framed_ops, 2);
	ck_assert_uint_eq(d.frames_lost, 2); /* each direction of fd 6, once */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_net_ops");
	TCase *tc = tcase_create("net_ops");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, synchronous_request_and_reply_make_one_op_owned_by_the_thread);
	tcase_add_test(tc, a_request_in_two_reads_is_one_op);
	tcase_add_test(tc, a_reply_by_another_thread_ends_the_op_there);
	tcase_add_test(tc, a_late_reply_event_leaves_the_next_request_its_own_op);
	tcase_add_test(tc, connections_are_apart_and_a_thread_leaves_one_for_another);
	tcase_add_test(tc, writes_without_request_other_processes_and_annotations_start_nothing);
	tcase_add_test(tc, an_xrootd_request_is_named_for_its_request_id);
	tcase_add_test(tc, a_reply_in_several_writes_ends_at_its_last_write);
	tcase_add_test(tc, a_reply_ends_at_its_last_write_at_the_hold_or_at_the_trace_end);
	tcase_add_test(tc, a_tap_sees_every_event_in_time_order_with_the_ends_typed);
	tcase_add_test(tc, types_round_large_sizes_up_to_powers_of_two);
	tcase_add_test(tc, framed_a_request_spans_its_reads_by_dlen_and_its_final_reply_ends_it);
	tcase_add_test(tc, framed_partial_responses_keep_the_op_open_past_the_hold);
	tcase_add_test(tc, framed_the_next_request_read_before_the_reply_event_is_its_own_op);
	tcase_add_test(tc, bytes_that_are_not_xrootds_keep_the_generic_rule);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
