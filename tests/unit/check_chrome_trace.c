/*
 * chrome_trace: known event sequences become the Chrome Trace Event JSON
 * they should: one valid document; waits as X slices ending at their
 * event; op work, logging and async op slices paired; phases nested;
 * events of other processes and outside the window left out and counted;
 * what is open at the end closed and marked; names escaped.
 */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/chrome_trace.h"

#include "check_run.h"

#define PID 100

static struct model_event ev(enum model_event_kind kind, uint64_t ts, int32_t tid)
{
	return (struct model_event){.kind = kind, .ts_ns = ts, .tid = tid, .pid = PID};
}

static const char *namer(void *ctx, uint64_t addr, bool code)
{
	static char buf[32];

	(void)ctx;
	snprintf(buf, sizeof(buf), "%s_%llx", code ? "fn" : "obj", (unsigned long long)addr);
	return buf;
}

/* The events of the document whose "name" is name (and phase ph, if not 0). */
static size_t count(json_object *events, const char *ph, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i), *v;

		if (ph && (!json_object_object_get_ex(e, "ph", &v) ||
			   strcmp(json_object_get_string(v), ph) != 0))
			continue;
		if (name && (!json_object_object_get_ex(e, "name", &v) ||
			     strcmp(json_object_get_string(v), name) != 0))
			continue;
		n++;
	}
	return n;
}

static json_object *find(json_object *events, const char *ph, const char *name)
{
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i), *p, *n;

		if (json_object_object_get_ex(e, "ph", &p) &&
		    json_object_object_get_ex(e, "name", &n) &&
		    strcmp(json_object_get_string(p), ph) == 0 &&
		    strcmp(json_object_get_string(n), name) == 0)
			return e;
	}
	return NULL;
}

static double num(json_object *e, const char *key)
{
	json_object *v;

	ck_assert(json_object_object_get_ex(e, key, &v));
	return json_object_get_double(v);
}

START_TEST(an_op_with_waits_becomes_paired_slices)
{
	struct chrome_trace t;
	struct model_event e;
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);
	json_object *doc, *events, *x;

	/* The window is [1000000, 9000000) ns: time 0 is 1 ms. */
	ck_assert_int_eq(corecap_chrome_trace_init(&t, out, PID, 1000000, 9000000, namer, NULL), 0);
	e = ev(MEV_THREAD_NAME, 1000000, 7);
	e.thread.tid = 7;
	e.thread.name = "tp_osd\"tp";
	corecap_chrome_trace_consume(&t, &e);
	e = ev(MEV_OP_BEGIN, 500000, 7); /* before the window: left out */
	e.op.id = 1;
	e.op.str = "read";
	corecap_chrome_trace_consume(&t, &e);
	e = ev(MEV_OP_BEGIN, 2000000, 7);
	e.op.id = 42;
	e.op.str = "write";
	e.op.bytes = 4096;
	corecap_chrome_trace_consume(&t, &e);
	e = ev(MEV_OP_ENTER, 2000000, 7);
	e.op.id = 42;
	corecap_chrome_trace_consume(&t, &e);
	e = ev(MEV_LOCK_CONTENDED, 2600000, 7); /* waited 500 us, from 2.1 ms */
	e.lock.addr = 0xabc;
	e.lock.site = 0x123;
	e.lock.dur_ns = 500000;
	corecap_chrome_trace_consume(&t, &e);
	corecap_chrome_trace_consume(
		&t, &(struct model_event){
			    .kind = MEV_LOG_ENTER, .ts_ns = 2700000, .tid = 7, .pid = PID});
	corecap_chrome_trace_consume(
		&t, &(struct model_event){
			    .kind = MEV_LOG_EXIT, .ts_ns = 2800000, .tid = 7, .pid = PID});
	e = ev(MEV_OP_PHASE, 2900000, 7);
	e.op.id = 42;
	e.op.str = "queued";
	corecap_chrome_trace_consume(&t, &e);
	e = ev(MEV_OP_EXIT, 3000000, 7);
	e.op.id = 42;
	corecap_chrome_trace_consume(&t, &e);
	e = ev(MEV_OP_END, 4000000, 8);
	e.op.id = 42;
	corecap_chrome_trace_consume(&t, &e);
	e = ev(MEV_IO, 5000000, 8); /* another process: left out */
	e.pid = PID + 1;
	corecap_chrome_trace_consume(&t, &e);
	e = ev(MEV_OP_BEGIN, 6000000, 8); /* never ends: closed at the window's end */
	e.op.id = 43;
	e.op.str = "write";
	corecap_chrome_trace_consume(&t, &e);
	e = ev(MEV_OP_ENTER, 6000000, 8);
	e.op.id = 43;
	corecap_chrome_trace_consume(&t, &e);
	corecap_chrome_trace_name_thread(&t, 8, "finisher");
	corecap_chrome_trace_name_thread(&t, 7, "renamed by threads.tsv");
	ck_assert_int_eq(corecap_chrome_trace_finish(&t, "refosd"), 0);
	ck_assert_uint_eq(t.events_outside, 1);
	ck_assert_uint_eq(t.events_other_pid, 1);
	corecap_chrome_trace_release(&t);
	fclose(out);

	doc = json_tokener_parse(buf);
	ck_assert_msg(doc != NULL, "not JSON:\n%s", buf);
	ck_assert(json_object_object_get_ex(doc, "traceEvents", &events));
	/* Ops: two begun in the window, two ended (one at the window's end). */
	ck_assert_uint_eq(count(events, "b", "write"), 2);
	ck_assert_uint_eq(count(events, "e", "write"), 2);
	ck_assert_uint_eq(count(events, "b", "queued"), 1);
	ck_assert_uint_eq(count(events, "e", "queued"), 1);
	ck_assert_uint_eq(count(events, "b", "read"), 0);
	x = find(events, "X", "lock wait");
	ck_assert_ptr_nonnull(x);
	ck_assert_double_eq_tol(num(x, "ts"), 1100.0, 1e-6);
	ck_assert_double_eq_tol(num(x, "dur"), 500.0, 1e-6);
	ck_assert_ptr_nonnull(strstr(buf, "\"lock\":\"obj_abc\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"site\":\"fn_123\""));
	x = find(events, "X", "op write");
	ck_assert_ptr_nonnull(x);
	ck_assert_double_eq_tol(num(x, "ts"), 1000.0, 1e-6);
	ck_assert_double_eq_tol(num(x, "dur"), 1000.0, 1e-6);
	ck_assert_uint_eq(count(events, "X", "op write"), 2);
	ck_assert_ptr_nonnull(strstr(buf, "\"unfinished\":true"));
	x = find(events, "X", "logging");
	ck_assert_double_eq_tol(num(x, "dur"), 100.0, 1e-6);
	ck_assert_uint_eq(count(events, "X", "io other"), 0);
	/* Names: the trace's wins over threads.tsv's, escaped. */
	ck_assert_ptr_nonnull(strstr(buf, "\"name\":\"tp_osd\\\"tp\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"name\":\"finisher\""));
	ck_assert_ptr_null(strstr(buf, "renamed by threads.tsv"));
	ck_assert_uint_eq(count(events, "M", "thread_name"), 2);
	ck_assert_uint_eq(count(events, "M", "process_name"), 1);
	json_object_put(doc);
	free(buf);
}
END_TEST

START_TEST(without_a_window_time_zero_is_the_first_event)
{
	struct chrome_trace t;
	struct model_event e;
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);
	json_object *doc, *events;

	ck_assert_int_eq(corecap_chrome_trace_init(&t, out, -1, 0, 0, NULL, NULL), 0);
	e = ev(MEV_IO, 5000000, 3);
	e.io.io_class = CORECAP_IO_LOG;
	e.io.dur_ns = 2000;
	e.io.bytes = 80;
	corecap_chrome_trace_consume(&t, &e);
	ck_assert_int_eq(t.pid, PID);
	ck_assert_int_eq(corecap_chrome_trace_finish(&t, NULL), 0);
	corecap_chrome_trace_release(&t);
	fclose(out);
	doc = json_tokener_parse(buf);
	ck_assert_ptr_nonnull(doc);
	ck_assert(json_object_object_get_ex(doc, "traceEvents", &events));
	ck_assert_uint_eq(count(events, "X", "io log"), 1);
	ck_assert_double_eq_tol(num(find(events, "X", "io log"), "ts"), 0.0, 1e-9);
	ck_assert_ptr_nonnull(strstr(buf, "\"name\":\"tid 3\""));
	json_object_put(doc);
	free(buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("chrome_trace");
	TCase *tc = tcase_create("events");

	tcase_add_test(tc, an_op_with_waits_becomes_paired_slices);
	tcase_add_test(tc, without_a_window_time_zero_is_the_first_event);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
