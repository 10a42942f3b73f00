/* refosd protocol: frames survive encode/decode, and every malformed frame is refused. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

#include "check_run.h"

/* Build a whole request frame into buf; returns its size. */
static size_t build_request(uint8_t *buf, uint8_t op, uint64_t tag, const char *name,
			    const void *data, uint32_t len)
{
	struct proto_request req = {
		.op = op,
		.tag = tag,
		.name_len = (uint16_t)strlen(name),
		.data_len = len,
	};

	proto_encode_request_header(buf, &req);
	memcpy(buf + PROTO_REQUEST_HDR, name, req.name_len);
	if (len)
		memcpy(buf + PROTO_REQUEST_HDR + req.name_len, data, len);
	return PROTO_REQUEST_HDR + req.name_len + len;
}

START_TEST(write_request_round_trips)
{
	uint8_t buf[256];
	struct proto_request req;
	size_t n = build_request(buf, PROTO_OP_WRITE, 0x1122334455667788ULL, "obj_1", "hello", 5);
	size_t frame = 0;

	ck_assert_int_eq(proto_decode_request(buf, n, &req, &frame), 0);
	ck_assert_uint_eq(frame, n);
	ck_assert_uint_eq(req.op, PROTO_OP_WRITE);
	ck_assert_uint_eq(req.tag, 0x1122334455667788ULL);
	ck_assert_uint_eq(req.name_len, 5);
	ck_assert_mem_eq(req.name, "obj_1", 5);
	ck_assert_uint_eq(req.data_len, 5);
	ck_assert_mem_eq(req.data, "hello", 5);
}
END_TEST

START_TEST(read_request_round_trips)
{
	uint8_t buf[64];
	struct proto_request req;
	size_t n = build_request(buf, PROTO_OP_READ, 7, "x", NULL, 0), frame = 0;

	ck_assert_int_eq(proto_decode_request(buf, n, &req, &frame), 0);
	ck_assert_uint_eq(frame, PROTO_REQUEST_HDR + 1);
	ck_assert_uint_eq(req.op, PROTO_OP_READ);
	ck_assert_uint_eq(req.data_len, 0);
}
END_TEST

START_TEST(header_is_little_endian_with_magic_first)
{
	uint8_t buf[64];

	build_request(buf, PROTO_OP_WRITE, 1, "a", "b", 1);
	ck_assert_mem_eq(buf, "RFQ1", 4);
	ck_assert_uint_eq(buf[6], 1);  /* name_len low byte */
	ck_assert_uint_eq(buf[8], 1);  /* tag low byte */
	ck_assert_uint_eq(buf[16], 1); /* data_len low byte */
}
END_TEST

START_TEST(op_id_flag_is_byte_5_and_round_trips)
{
	uint8_t buf[64];
	struct proto_request req = {.op = PROTO_OP_READ,
				    .flags = PROTO_FLAG_OP_ID,
				    .tag = (uint64_t)4242 << 32 | 7,
				    .name_len = 1},
			     out;
	size_t frame = 0;

	proto_encode_request_header(buf, &req);
	buf[PROTO_REQUEST_HDR] = 'x';
	ck_assert_uint_eq(buf[5], PROTO_FLAG_OP_ID);
	ck_assert_int_eq(proto_decode_request(buf, PROTO_REQUEST_HDR + 1, &out, &frame), 0);
	ck_assert_uint_eq(out.flags, PROTO_FLAG_OP_ID);
	ck_assert_uint_eq(out.tag, (uint64_t)4242 << 32 | 7);
	/* An older client's request (flags 0) decodes the same, without the flag. */
	buf[5] = 0;
	ck_assert_int_eq(proto_decode_request(buf, PROTO_REQUEST_HDR + 1, &out, &frame), 0);
	ck_assert_uint_eq(out.flags, 0);
	ck_assert_uint_eq(out.tag, (uint64_t)4242 << 32 | 7);
}
END_TEST

START_TEST(reply_round_trips_with_negative_status)
{
	uint8_t buf[64];
	struct proto_reply rep = {.op = PROTO_OP_READ, .status = -ENOENT, .tag = 99, .data_len = 3};
	struct proto_reply out;
	size_t frame = 0;

	proto_encode_reply_header(buf, &rep);
	memcpy(buf + PROTO_REPLY_HDR, "abc", 3);
	ck_assert_mem_eq(buf, "RFR1", 4);
	ck_assert_int_eq(proto_decode_reply(buf, PROTO_REPLY_HDR + 3, &out, &frame), 0);
	ck_assert_uint_eq(frame, PROTO_REPLY_HDR + 3);
	ck_assert_int_eq(out.status, -ENOENT);
	ck_assert_uint_eq(out.tag, 99);
	ck_assert_uint_eq(out.data_len, 3);
	ck_assert_mem_eq(out.data, "abc", 3);
}
END_TEST

START_TEST(every_truncation_asks_for_more)
{
	uint8_t buf[256];
	struct proto_request req;
	size_t n = build_request(buf, PROTO_OP_WRITE, 3, "truncated", "0123456789", 10);

	for (size_t len = 0; len < n; len++) {
		size_t frame = 0;

		ck_assert_int_eq(proto_decode_request(buf, len, &req, &frame), -EAGAIN);
		/* Once the header is in, the whole frame's size is known. */
		ck_assert_uint_eq(frame, len < PROTO_REQUEST_HDR ? PROTO_REQUEST_HDR : n);
	}
}
END_TEST

START_TEST(truncated_reply_asks_for_more)
{
	uint8_t buf[64];
	struct proto_reply rep = {.op = PROTO_OP_READ, .tag = 1, .data_len = 8}, out;
	size_t frame = 0;

	proto_encode_reply_header(buf, &rep);
	ck_assert_int_eq(proto_decode_reply(buf, PROTO_REPLY_HDR + 7, &out, &frame), -EAGAIN);
	ck_assert_uint_eq(frame, PROTO_REPLY_HDR + 8);
}
END_TEST

START_TEST(bad_magic_is_refused_from_the_first_byte)
{
	uint8_t buf[64];
	struct proto_request req;
	size_t n = build_request(buf, PROTO_OP_READ, 1, "o", NULL, 0), frame;

	buf[0] = 'X';
	ck_assert_int_eq(proto_decode_request(buf, 1, &req, &frame), -EBADMSG);
	ck_assert_int_eq(proto_decode_request(buf, n, &req, &frame), -EBADMSG);
	buf[0] = 'R';
	buf[3] = '2';
	ck_assert_int_eq(proto_decode_request(buf, n, &req, &frame), -EBADMSG);
	/* A reply is not a request. */
	memcpy(buf, "RFR1", 4);
	ck_assert_int_eq(proto_decode_request(buf, n, &req, &frame), -EBADMSG);
}
END_TEST

START_TEST(oversize_lengths_are_refused_before_the_data)
{
	uint8_t buf[64];
	struct proto_request req = {
		.op = PROTO_OP_WRITE, .tag = 1, .name_len = 1, .data_len = PROTO_MAX_DATA + 1};
	struct proto_reply rep = {.op = PROTO_OP_READ, .data_len = PROTO_MAX_DATA + 1}, out;
	size_t frame;

	proto_encode_request_header(buf, &req);
	ck_assert_int_eq(proto_decode_request(buf, PROTO_REQUEST_HDR, &req, &frame), -EMSGSIZE);
	req.data_len = 0xffffffffu;
	proto_encode_request_header(buf, &req);
	ck_assert_int_eq(proto_decode_request(buf, PROTO_REQUEST_HDR, &req, &frame), -EMSGSIZE);
	req = (struct proto_request){.op = PROTO_OP_READ, .name_len = PROTO_MAX_NAME + 1};
	proto_encode_request_header(buf, &req);
	ck_assert_int_eq(proto_decode_request(buf, PROTO_REQUEST_HDR, &req, &frame), -EMSGSIZE);
	proto_encode_reply_header(buf, &rep);
	ck_assert_int_eq(proto_decode_reply(buf, PROTO_REPLY_HDR, &out, &frame), -EMSGSIZE);
}
END_TEST

START_TEST(largest_legal_lengths_are_accepted)
{
	uint8_t buf[64];
	struct proto_request req = {.op = PROTO_OP_WRITE,
				    .tag = 1,
				    .name_len = PROTO_MAX_NAME,
				    .data_len = PROTO_MAX_DATA};
	size_t frame;

	proto_encode_request_header(buf, &req);
	ck_assert_int_eq(proto_decode_request(buf, PROTO_REQUEST_HDR, &req, &frame), -EAGAIN);
	ck_assert_uint_eq(frame, PROTO_REQUEST_HDR + PROTO_MAX_NAME + (size_t)PROTO_MAX_DATA);
}
END_TEST

START_TEST(unknown_op_and_inconsistent_frames_are_refused)
{
	uint8_t buf[64];
	struct proto_request req;
	size_t n = build_request(buf, PROTO_OP_WRITE, 1, "o", "d", 1), frame;

	buf[4] = 9;
	ck_assert_int_eq(proto_decode_request(buf, n, &req, &frame), -EOPNOTSUPP);
	buf[4] = 0;
	ck_assert_int_eq(proto_decode_request(buf, n, &req, &frame), -EOPNOTSUPP);
	/* A read that carries data. */
	buf[4] = PROTO_OP_READ;
	ck_assert_int_eq(proto_decode_request(buf, n, &req, &frame), -EINVAL);
	/* An empty name. */
	n = build_request(buf, PROTO_OP_WRITE, 1, "", "d", 1);
	ck_assert_int_eq(proto_decode_request(buf, n, &req, &frame), -EINVAL);
}
END_TEST

START_TEST(back_to_back_frames_decode_one_at_a_time)
{
	uint8_t buf[256];
	struct proto_request req;
	size_t a = build_request(buf, PROTO_OP_WRITE, 1, "first", "1", 1);
	size_t b = build_request(buf + a, PROTO_OP_READ, 2, "second", NULL, 0);
	size_t frame;

	ck_assert_int_eq(proto_decode_request(buf, a + b, &req, &frame), 0);
	ck_assert_uint_eq(frame, a);
	ck_assert_uint_eq(req.tag, 1);
	ck_assert_int_eq(proto_decode_request(buf + a, b, &req, &frame), 0);
	ck_assert_uint_eq(frame, b);
	ck_assert_uint_eq(req.tag, 2);
	ck_assert_mem_eq(req.name, "second", 6);
}
END_TEST

START_TEST(errors_have_names)
{
	ck_assert_str_eq(proto_strerror(-EBADMSG), "bad magic");
	ck_assert_str_eq(proto_strerror(-EMSGSIZE), "length over the limit");
	ck_assert_str_eq(proto_strerror(-EOPNOTSUPP), "unknown op");
	ck_assert_str_eq(proto_op_name(PROTO_OP_WRITE), "write");
	ck_assert_str_eq(proto_op_name(PROTO_OP_READ), "read");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("refosd_protocol");
	TCase *tc = tcase_create("frames");

	tcase_add_test(tc, write_request_round_trips);
	tcase_add_test(tc, read_request_round_trips);
	tcase_add_test(tc, header_is_little_endian_with_magic_first);
	tcase_add_test(tc, op_id_flag_is_byte_5_and_round_trips);
	tcase_add_test(tc, reply_round_trips_with_negative_status);
	tcase_add_test(tc, every_truncation_asks_for_more);
	tcase_add_test(tc, truncated_reply_asks_for_more);
	tcase_add_test(tc, bad_magic_is_refused_from_the_first_byte);
	tcase_add_test(tc, oversize_lengths_are_refused_before_the_data);
	tcase_add_test(tc, largest_legal_lengths_are_accepted);
	tcase_add_test(tc, unknown_op_and_inconsistent_frames_are_refused);
	tcase_add_test(tc, back_to_back_frames_decode_one_at_a_time);
	tcase_add_test(tc, errors_have_names);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
