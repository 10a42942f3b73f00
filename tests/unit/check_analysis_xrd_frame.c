/*
 * analysis/model/xrd_frame.c: XRootD frames followed across socket calls,
 * on crafted byte sequences: a payload counted down from dlen over
 * several reads, a header split over two calls, two frames in one call
 * (known, and beyond the recorded bytes), the client's handshake, a
 * header that is not XRootD's and the stream read again after it, an
 * oversized dlen, partial (kXR_oksofar) and final responses, the request
 * names.
 */
#include <check.h>
#include <string.h>

#include "model/xrd_frame.h"

#include "check_run.h"

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A request header: stream sid, request id, 16 bytes of parameters, dlen. */
static void req(uint8_t *b, uint16_t sid, uint16_t id, uint32_t dlen)
{
	memset(b, 0x5a, 24);
	b[0] = (uint8_t)(sid >> 8), b[1] = (uint8_t)sid;
	b[2] = (uint8_t)(id >> 8), b[3] = (uint8_t)id;
	put32(b + 20, dlen);
}

static void resp(uint8_t *b, uint16_t sid, uint16_t status, uint32_t dlen)
{
	b[0] = (uint8_t)(sid >> 8), b[1] = (uint8_t)sid;
	b[2] = (uint8_t)(status >> 8), b[3] = (uint8_t)status;
	put32(b + 4, dlen);
}

START_TEST(a_payload_is_counted_down_from_dlen_over_several_reads)
{
	struct xrd_frame f;
	struct xrd_frame_step st;
	uint8_t h[24], body[24] = {0xff, 0xff, 0xff, 0xff};

	corecap_xrd_frame_init(&f, true);
	req(h, 1, 3019, 100); /* kXR_write of 100 bytes */
	corecap_xrd_frame_feed(&f, h, 24, 24, &st);
	ck_assert(st.at_boundary && !st.lost);
	ck_assert_uint_eq(st.headers, 1);
	ck_assert_uint_eq(st.first_id, 3019);
	ck_assert_uint_eq(st.first_dlen, 100);
	ck_assert_uint_eq(st.frames, 0);
	ck_assert(!corecap_xrd_frame_at_boundary(&f));
	/* The payload's bytes look like anything: they are not read as headers. */
	corecap_xrd_frame_feed(&f, body, 24, 60, &st);
	ck_assert(!st.at_boundary && !st.lost);
	ck_assert_uint_eq(st.headers + st.frames, 0);
	corecap_xrd_frame_feed(&f, body, 24, 40, &st);
	ck_assert_uint_eq(st.frames, 1);
	ck_assert_uint_eq(st.last_id, 3019);
	ck_assert(corecap_xrd_frame_at_boundary(&f));
	/* The next request. */
	req(h, 1, 3011, 0);
	corecap_xrd_frame_feed(&f, h, 24, 24, &st);
	ck_assert(st.at_boundary);
	ck_assert_uint_eq(st.frames, 1);
	ck_assert_uint_eq(st.first_id, 3011);
}
END_TEST

START_TEST(a_header_split_over_two_calls_and_two_frames_in_one)
{
	struct xrd_frame f;
	struct xrd_frame_step st;
	uint8_t h[48];

	corecap_xrd_frame_init(&f, true);
	req(h, 7, 3017, 0);
	corecap_xrd_frame_feed(&f, h, 10, 10, &st);
	ck_assert_uint_eq(st.headers, 0);
	ck_assert(!st.lost);
	corecap_xrd_frame_feed(&f, h + 10, 14, 14, &st);
	ck_assert(!st.at_boundary);
	ck_assert_uint_eq(st.headers, 1);
	ck_assert_uint_eq(st.frames, 1);
	ck_assert_uint_eq(st.first_id, 3017);
	/* kXR_ping and kXR_stat in one call whose 48 bytes are all known. */
	req(h, 1, 3011, 0);
	req(h + 24, 2, 3017, 0);
	corecap_xrd_frame_feed(&f, h, 48, 48, &st);
	ck_assert_uint_eq(st.headers, 2);
	ck_assert_uint_eq(st.frames, 2);
	ck_assert_uint_eq(st.first_id, 3011);
	ck_assert_uint_eq(st.last_id, 3017);
	/* The same with only 24 recorded (the shim's): the second is unknown. */
	corecap_xrd_frame_feed(&f, h, 24, 48, &st);
	ck_assert(st.lost && f.lost);
	ck_assert_uint_eq(st.headers, 1);
	/* Lost: nothing is read until a resync. */
	corecap_xrd_frame_feed(&f, h, 24, 24, &st);
	ck_assert(st.lost && !st.at_boundary);
	ck_assert_uint_eq(st.headers, 0);
	corecap_xrd_frame_resync(&f);
	corecap_xrd_frame_feed(&f, h, 24, 24, &st);
	ck_assert(!st.lost && st.at_boundary);
	ck_assert_uint_eq(st.first_id, 3011);
}
END_TEST

START_TEST(the_handshake_and_headers_that_are_not_xrootds)
{
	struct xrd_frame f;
	struct xrd_frame_step st;
	uint8_t h[44] = {0};

	corecap_xrd_frame_init(&f, true);
	h[15] = 4;
	h[18] = 2012 >> 8;
	h[19] = 2012 & 0xff;
	corecap_xrd_frame_feed(&f, h, 20, 20, &st);
	ck_assert(!st.lost);
	ck_assert_uint_eq(st.frames, 1);
	ck_assert_uint_eq(st.first_id, XRD_FRAME_ID_HANDSHAKE);
	ck_assert_str_eq(corecap_xrd_request_name(st.first_id), "handshake");
	/* The handshake and kXR_protocol in one call, 24 bytes of 44 known. */
	req(h + 20, 0, 3006, 0);
	corecap_xrd_frame_init(&f, true);
	corecap_xrd_frame_feed(&f, h, 24, 44, &st);
	ck_assert(st.lost);
	ck_assert_uint_eq(st.frames, 1);
	/* refosd's requests ("RFQ1"...): no XRootD request id. */
	corecap_xrd_frame_init(&f, true);
	memcpy(h, "RFQ1", 4);
	corecap_xrd_frame_feed(&f, h, 24, 54, &st);
	ck_assert(st.lost);
	ck_assert_uint_eq(st.headers, 0);
	/* A dlen of 1 GiB is no frame of XRootD's. */
	corecap_xrd_frame_init(&f, true);
	req(h, 1, 3019, 1u << 30);
	corecap_xrd_frame_feed(&f, h, 24, 24, &st);
	ck_assert(st.lost);
	/* A response status out of XRootD's range. */
	corecap_xrd_frame_init(&f, false);
	resp(h, 1, 3999, 0);
	corecap_xrd_frame_feed(&f, h, 8, 8, &st);
	ck_assert(st.lost);
}
END_TEST

START_TEST(partial_responses_then_the_final_one)
{
	struct xrd_frame f;
	struct xrd_frame_step st;
	uint8_t h[24];

	corecap_xrd_frame_init(&f, false);
	resp(h, 1, XRD_FRAME_OKSOFAR, 1000); /* header and body in one writev */
	corecap_xrd_frame_feed(&f, h, 8, 1008, &st);
	ck_assert(st.at_boundary && !st.lost);
	ck_assert_uint_eq(st.partials, 1);
	ck_assert_uint_eq(st.finals, 0);
	resp(h, 1, XRD_FRAME_OKSOFAR, 1000); /* header alone, then the body */
	corecap_xrd_frame_feed(&f, h, 8, 8, &st);
	ck_assert_uint_eq(st.partials + st.finals, 0);
	corecap_xrd_frame_feed(&f, h, 8, 1000, &st);
	ck_assert_uint_eq(st.partials, 1);
	resp(h, 1, 0, 10); /* kXR_ok: the final one */
	corecap_xrd_frame_feed(&f, h, 8, 18, &st);
	ck_assert_uint_eq(st.finals, 1);
	ck_assert_uint_eq(st.last_id, 0);
	resp(h, 1, 4003, 20); /* kXR_error is final too */
	corecap_xrd_frame_feed(&f, h, 8, 28, &st);
	ck_assert_uint_eq(st.finals, 1);
	ck_assert(corecap_xrd_status_final(4005));  /* kXR_wait */
	ck_assert(!corecap_xrd_status_final(4006)); /* kXR_waitresp */
}
END_TEST

START_TEST(request_names)
{
	ck_assert_str_eq(corecap_xrd_request_name(3013), "read");
	ck_assert_str_eq(corecap_xrd_request_name(3019), "write");
	ck_assert_str_eq(corecap_xrd_request_name(3017), "stat");
	ck_assert_str_eq(corecap_xrd_request_name(3011), "ping");
	ck_assert_str_eq(corecap_xrd_request_name(3000), "auth");
	ck_assert_str_eq(corecap_xrd_request_name(3032), "clone");
	ck_assert_ptr_null(corecap_xrd_request_name(2999));
	ck_assert_ptr_null(corecap_xrd_request_name(3033));
	ck_assert_ptr_null(corecap_xrd_request_name(0));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_xrd_frame");
	TCase *tc = tcase_create("xrd_frame");

	tcase_add_test(tc, a_payload_is_counted_down_from_dlen_over_several_reads);
	tcase_add_test(tc, a_header_split_over_two_calls_and_two_frames_in_one);
	tcase_add_test(tc, the_handshake_and_headers_that_are_not_xrootds);
	tcase_add_test(tc, partial_responses_then_the_final_one);
	tcase_add_test(tc, request_names);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
