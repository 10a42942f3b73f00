/* collector/sources/optracker_drain.c: a dump's ops taken as the daemon
 * wrote them (compact or indented), the same values as through json-c's
 * whole document, and replies that are not dumps refused or read whole. */
#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/optracker_drain.h"

#include "check_run.h"

static struct optracker_drain d;

static void setup(void)
{
	memset(&d, 0, sizeof(d));
	d.cap = 16;
	d.rng = 1;
	d.kept = calloc(d.cap, sizeof(*d.kept));
	d.tok = json_tokener_new();
	ck_assert(d.kept && d.tok);
}

static void teardown(void)
{
	optracker_drain_release(&d);
}

static int take(const char *reply)
{
	return optracker_drain_take(&d, reply, strlen(reply));
}

/* Whether kept op i is the JSON value of text (compared as json-c reads both). */
static bool kept_is(size_t i, const char *text)
{
	json_object *a = json_tokener_parse(d.kept[i].json), *b = json_tokener_parse(text);
	bool same = a && b && json_object_equal(a, b);

	json_object_put(a);
	json_object_put(b);
	return same;
}

#define OP1                                                                                        \
	"{\"description\":\"osd_op(client.4 1.0 [write 0~1] "                                      \
	"\\\"ops\\\":[x])\",\"initiated_at\":\"2026-12-07T10:00:00.000001+0000\",\"type_data\":{"  \
	"\"events\":[{\"event\":\"queued\"}]}}"
#define OP2                                                                                        \
	"{\"description\":\"b\",\"initiated_at\":\"2026-12-07T10:00:00.000002+0000\","             \
	"\"duration\":0.5}"

START_TEST(compact_ops_are_kept_as_written)
{
	ck_assert_int_eq(take("{\"size\":20,\"duration\":600,\"ops\":[" OP1 "," OP2 "]}"), 2);
	ck_assert_uint_eq(d.n_kept, 2);
	ck_assert_uint_eq(d.seen, 2);
	ck_assert_str_eq(d.kept[0].json, OP1);
	ck_assert_str_eq(d.kept[1].json, OP2);
	ck_assert_str_eq(d.kept[1].key, strstr(OP2, "\"initiated_at\":"));
	ck_assert_int_eq(take("{\"size\":20,\"duration\":600,\"ops\":[]}"), 0);
	ck_assert_uint_eq(d.n_kept, 2);
}
END_TEST

START_TEST(an_indented_dump_gives_the_same_values)
{
	ck_assert_int_eq(
		take("{\n    \"size\": 20,\n    \"duration\": 600,\n    \"ops\": [\n        " OP1
		     ",\n        " OP2 "\n    ]\n}\n"),
		2);
	ck_assert(kept_is(0, OP1));
	ck_assert(kept_is(1, OP2));
}
END_TEST

START_TEST(another_layout_goes_through_the_document)
{
	/* A string member before "ops", holding "ops": itself: not the fast
	 * path's layout, read through json-c's document, the same values. */
	ck_assert_int_eq(take("{\"note\":\"\\\"ops\\\":[1]\",\"ops\":[" OP2 "," OP1 "]}"), 2);
	ck_assert(kept_is(0, OP2));
	ck_assert(kept_is(1, OP1));
	ck_assert_int_eq(take("{\"size\":[1],\"ops\":[" OP2 "]}"), 1);
	ck_assert(kept_is(2, OP2));
}
END_TEST

START_TEST(replies_that_are_not_dumps_are_refused)
{
	static const char *const bad[] = {
		"",
		"not json",
		"{\"size\":20,\"ops\":{}}",
		"{\"size\":20,\"ops\":[" OP1,		      /* cut after an op */
		"{\"size\":20,\"ops\":[{\"description\":\"a", /* cut inside one */
		"{\"size\":20,\"ops\":[" OP1 " " OP2 "]}",    /* no comma */
		"{\"size\":20,\"ops\":[1,2]}",		      /* ops not objects */
		"{\"size\":20,\"ops\":[" OP1 ",]}",
		"{\"size\":20}",
		"{\"a\":\"x\"ops\":[{}]}", /* the key inside a string of a broken document */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(take(bad[i]) == -EPROTO, "reply %zu: '%s' not refused", i, bad[i]);
}
END_TEST

START_TEST(past_the_cap_a_uniform_sample_is_kept)
{
	char reply[8192];
	size_t n = 0;

	n += (size_t)snprintf(reply + n, sizeof(reply) - n, "{\"size\":20,\"ops\":[");
	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(reply + n, sizeof(reply) - n,
				      "%s{\"initiated_at\":\"t%02d\",\"n\":%d}", i ? "," : "", i,
				      i);
	snprintf(reply + n, sizeof(reply) - n, "]}");
	ck_assert_int_eq(take(reply), 40);
	ck_assert_uint_eq(d.seen, 40);
	ck_assert_uint_eq(d.n_kept, d.cap);
	for (size_t i = 0; i < d.n_kept; i++)
		ck_assert_ptr_nonnull(strstr(d.kept[i].json, "\"initiated_at\":\"t"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("optracker_drain");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, compact_ops_are_kept_as_written);
	tcase_add_test(tc, an_indented_dump_gives_the_same_values);
	tcase_add_test(tc, another_layout_goes_through_the_document);
	tcase_add_test(tc, replies_that_are_not_dumps_are_refused);
	tcase_add_test(tc, past_the_cap_a_uniform_sample_is_kept);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
