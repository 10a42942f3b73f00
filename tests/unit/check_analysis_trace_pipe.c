/*
 * analysis/read/trace_pipe.c: the committed golden trace
 * (tests/data/analysis/golden-run) read through the pipe gives the
 * consumer the same events in the same order as the reader itself (every
 * field, string and stack compared), in batches of every size from one
 * event to the default; a consumer's error stops the reader, whatever it
 * was doing, and is what the run returns, after exactly the events before
 * it; the reader-side hook's error alike; wants_comm runs as set.
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "read/ctf_reader.h"
#include "read/trace_pipe.h"

#include "check_run.h"

#define GOLDEN_TRACE CORECAP_TEST_DATA "/analysis/golden-run/trace"
#define MAX_EVENTS   4096

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
	return s ? fnv(h, s, strlen(s) + 1) : fnv(h, "", 0) * 31;
}

/* Every field the kind gives, strings and stack by their contents. */
static uint64_t digest(const struct model_event *ev)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv(h, &ev->kind, sizeof(ev->kind));
	h = fnv(h, &ev->ts_ns, sizeof(ev->ts_ns));
	h = fnv(h, &ev->tid, sizeof(ev->tid));
	h = fnv(h, &ev->pid, sizeof(ev->pid));
	h = fnv_str(h, ev->comm);
	switch (ev->kind) {
	case MEV_OP_BEGIN:
	case MEV_OP_PHASE:
	case MEV_OP_END:
	case MEV_OP_ENTER:
	case MEV_OP_EXIT:
		h = fnv(h, &ev->op.id, sizeof(ev->op.id));
		h = fnv(h, &ev->op.bytes, sizeof(ev->op.bytes));
		h = fnv(h, &ev->op.result, sizeof(ev->op.result));
		return fnv_str(h, ev->op.str);
	case MEV_LOCK_CONTENDED:
	case MEV_LOCK_HOLD:
	case MEV_COND_WAIT:
	case MEV_COND_WAKE:
		h = fnv(h, &ev->lock.addr, 4 * sizeof(uint64_t));
		h = fnv(h, &ev->lock.kind, 2);
		h = fnv(h, &ev->lock.depth, sizeof(ev->lock.depth));
		return ev->lock.stack ? fnv(h, ev->lock.stack, ev->lock.depth * sizeof(uint64_t))
				      : h;
	case MEV_IO:
	case MEV_AIO:
		h = fnv(h, &ev->io.call, 2);
		h = fnv(h, &ev->io.fd, sizeof(ev->io.fd));
		h = fnv(h, &ev->io.bytes, sizeof(ev->io.bytes));
		h = fnv(h, &ev->io.dur_ns, sizeof(ev->io.dur_ns));
		return fnv(h, ev->io.hdr, ev->io.hdr_len);
	case MEV_THREAD_NAME:
	case MEV_THREAD_START:
	case MEV_THREAD_EXIT:
		h = fnv(h, &ev->thread.tid, 2 * sizeof(int32_t));
		return fnv_str(h, ev->thread.name);
	default:
		return fnv(h, &ev->loss, sizeof(ev->loss));
	}
}

struct digests {
	uint64_t v[MAX_EVENTS];
	size_t n, fail_at; /* fail_at: the call that returns -ENOMEM (0: none) */
	size_t stacks, strings, comms;
};

static int keep(void *ctx, const struct model_event *ev)
{
	struct digests *d = ctx;

	ck_assert_uint_lt(d->n, MAX_EVENTS);
	d->v[d->n++] = digest(ev);
	d->stacks += ev->kind == MEV_LOCK_CONTENDED && ev->lock.stack;
	d->strings += ev->kind == MEV_OP_BEGIN && ev->op.str;
	d->comms += ev->comm != NULL;
	return d->fail_at && d->n == d->fail_at ? -ENOMEM : 0;
}

static void read_direct(struct digests *d)
{
	char **dirs;
	size_t n;
	char *err = NULL;
	struct ctf_reader r;

	ck_assert_int_eq(corecap_ctf_reader_find_traces(GOLDEN_TRACE, &dirs, &n, &err), 0);
	ck_assert_int_eq(corecap_ctf_reader_init(&r, dirs, n, keep, d), 0);
	ck_assert_int_eq(corecap_ctf_reader_run(&r), 0);
	corecap_ctf_reader_release(&r);
	corecap_ctf_reader_free_traces(dirs, n);
}

/* What the reader's side sees: its hook's calls, and wants_comm's answer. */
struct reader_side {
	size_t seen, fail_at;
	bool comm;
};

static int seen(void *ctx, const struct model_event *ev)
{
	struct reader_side *s = ctx;

	(void)ev;
	return ++s->seen == s->fail_at ? -EPERM : 0;
}

static bool wants(void *ctx, int32_t tid)
{
	(void)tid;
	return ((struct reader_side *)ctx)->comm;
}

/* The pipe's run, in batches of `batch` events, with its reader's error. */
static int read_piped(struct digests *d, uint32_t batch, struct reader_side *s, char **error)
{
	char **dirs;
	size_t n;
	char *err = NULL;
	struct ctf_reader r;
	struct trace_pipe p;
	int ret;

	ck_assert_int_eq(corecap_ctf_reader_find_traces(GOLDEN_TRACE, &dirs, &n, &err), 0);
	ck_assert_int_eq(corecap_trace_pipe_init(&p, &r, dirs, n, keep, d), 0);
	if (batch)
		p.batch = batch;
	if (s) {
		p.seen = seen;
		p.wants_comm = wants;
		p.reader_ctx = s;
	}
	ret = corecap_trace_pipe_run(&p);
	*error = corecap_ctf_reader_error(&r) ? strdup(corecap_ctf_reader_error(&r)) : NULL;
	corecap_trace_pipe_release(&p);
	corecap_ctf_reader_release(&r);
	corecap_ctf_reader_free_traces(dirs, n);
	return ret;
}

static const uint32_t batches[] = {1, 7, 100, 0 /* TRACE_PIPE_EVENTS */};

START_TEST(the_pipe_gives_the_readers_events_in_its_order)
{
	static struct digests direct, piped;
	uint32_t batch = batches[_i];
	char *error;

	memset(&direct, 0, sizeof(direct));
	memset(&piped, 0, sizeof(piped));
	read_direct(&direct);
	ck_assert_uint_gt(direct.n, 1000);
	ck_assert_uint_gt(direct.stacks, 0);
	ck_assert_uint_gt(direct.strings, 0);
	ck_assert_uint_eq(direct.comms, direct.n);
	ck_assert_int_eq(read_piped(&piped, batch, NULL, &error), 0);
	ck_assert_ptr_null(error);
	ck_assert_uint_eq(piped.n, direct.n);
	for (size_t i = 0; i < direct.n; i++)
		ck_assert_msg(piped.v[i] == direct.v[i], "event %zu of %zu differs (batch %u)", i,
			      direct.n, batch);
	ck_assert_uint_eq(piped.stacks, direct.stacks);
	ck_assert_uint_eq(piped.comms, direct.comms);
}
END_TEST

START_TEST(a_consumers_error_stops_the_reader_and_is_returned)
{
	static struct digests d;
	uint32_t batch = batches[_i];
	char *error;

	memset(&d, 0, sizeof(d));
	d.fail_at = 100;
	ck_assert_int_eq(read_piped(&d, batch, NULL, &error), -ENOMEM);
	ck_assert_uint_eq(d.n, 100); /* no event after the error */
	/* A reader stopped by it names it; one that had read every event
	 * before the consumer failed has no error of its own. */
	if (batch && batch < 100)
		ck_assert_ptr_nonnull(error);
	if (error)
		ck_assert_str_eq(error, strerror(ENOMEM));
	free(error);
}
END_TEST

START_TEST(the_reader_sides_hook_and_wants_comm_run_as_set)
{
	static struct digests d;
	struct reader_side s = {.comm = false};
	uint32_t batch = batches[_i];
	char *error;

	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(read_piped(&d, batch, &s, &error), 0);
	ck_assert_ptr_null(error);
	ck_assert_uint_eq(s.seen, d.n);
	ck_assert_uint_eq(d.comms, 0); /* no procname was asked for */

	memset(&d, 0, sizeof(d));
	s = (struct reader_side){.fail_at = 50, .comm = true};
	ck_assert_int_eq(read_piped(&d, batch, &s, &error), -EPERM);
	ck_assert_uint_eq(s.seen, 50);
	ck_assert_uint_eq(d.n, 49); /* the events queued before it, all of them */
	ck_assert_uint_eq(d.comms, 49);
	ck_assert_str_eq(error, strerror(EPERM));
	free(error);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_trace_pipe");
	TCase *tc = tcase_create("pipe");
	int n = (int)(sizeof(batches) / sizeof(batches[0]));

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, the_pipe_gives_the_readers_events_in_its_order, 0, n);
	tcase_add_loop_test(tc, a_consumers_error_stops_the_reader_and_is_returned, 0, n);
	tcase_add_loop_test(tc, the_reader_sides_hook_and_wants_comm_run_as_set, 0, n);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
