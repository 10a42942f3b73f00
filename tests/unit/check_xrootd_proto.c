/* xrd_proto (tests/xrootd): requests byte for byte as XProtocol.hh lays them out, responses
 * decoded. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "xrd_proto.h"

#include "check_run.h"

static const uint8_t fh[4] = {0xde, 0xad, 0xbe, 0xef};

START_TEST(handshake_is_five_words_ending_4_and_2012)
{
	uint8_t hs[XRD_HANDSHAKE_LEN];
	static const uint8_t want[XRD_HANDSHAKE_LEN] = {0, 0, 0, 0, 0, 0, 0, 0, 0,    0,
							0, 0, 0, 0, 0, 4, 0, 0, 0x07, 0xdc};

	xrd_encode_handshake(hs);
	ck_assert_mem_eq(hs, want, sizeof(want));
}
END_TEST

START_TEST(handshake_reply_gives_version_and_type)
{
	static const uint8_t rep[16] = {0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0x05, 0x20, 0, 0, 0, 1};
	uint8_t bad[16];
	uint32_t pv = 0, type = 0;

	ck_assert_int_eq(xrd_decode_handshake(rep, sizeof(rep), &pv, &type), 0);
	ck_assert_uint_eq(pv, 0x520);
	ck_assert_uint_eq(type, 1); /* kXR_DataServer */
	ck_assert_int_eq(xrd_decode_handshake(rep, 15, &pv, &type), -EBADMSG);
	memcpy(bad, rep, sizeof(bad));
	bad[7] = 9; /* a body that is not 8 bytes */
	ck_assert_int_eq(xrd_decode_handshake(bad, sizeof(bad), &pv, &type), -EBADMSG);
	memcpy(bad, rep, sizeof(bad));
	bad[2] = 0x0f; /* status 4003, kXR_error */
	bad[3] = 0xa3;
	ck_assert_int_eq(xrd_decode_handshake(bad, sizeof(bad), &pv, &type), -EBADMSG);
}
END_TEST

START_TEST(protocol_and_login_requests)
{
	uint8_t h[XRD_REQ_HDR];

	xrd_encode_protocol(h, 0x0102);
	ck_assert_uint_eq(h[0], 1);
	ck_assert_uint_eq(h[1], 2);
	ck_assert_uint_eq(xrd_request_id(h), 3006);
	ck_assert_uint_eq(h[4] << 24 | h[5] << 16 | h[6] << 8 | h[7], XRD_PROTOCOL_VERSION);
	ck_assert_uint_eq(h[8], 0);		   /* flags */
	ck_assert_uint_eq(h[9], XRD_EXPECT_LOGIN); /* expect */
	ck_assert_uint_eq(h[23], 0);

	xrd_encode_login(h, 7, 0x01020304, "corecap-long-name");
	ck_assert_uint_eq(xrd_request_id(h), 3007);
	ck_assert_uint_eq(h[4], 1);
	ck_assert_uint_eq(h[7], 4);
	ck_assert_mem_eq(h + 8, "corecap-", 8); /* 8 bytes, no NUL */
	ck_assert_uint_eq(h[18], XRD_LOGIN_VERSION);
	xrd_encode_login(h, 7, 1, "ab");
	ck_assert_mem_eq(h + 8, "ab\0\0\0\0\0\0", 8);
}
END_TEST

START_TEST(file_requests_put_fields_at_their_offsets)
{
	uint8_t h[XRD_REQ_HDR];

	xrd_encode_open(h, 1, XRD_MODE_0644, XRD_OPEN_DELETE | XRD_OPEN_UPDATE, 11);
	ck_assert_uint_eq(xrd_request_id(h), 3010);
	ck_assert_uint_eq(h[4] << 8 | h[5], 0x1a4); /* 0644 in kXR_ur.. bits */
	ck_assert_uint_eq(h[6] << 8 | h[7], 0x22);
	ck_assert_uint_eq(h[23], 11);

	xrd_encode_read(h, 1, fh, 0x0102030405060708LL, 4096);
	ck_assert_uint_eq(xrd_request_id(h), 3013);
	ck_assert_mem_eq(h + 4, fh, 4);
	ck_assert_uint_eq(h[8], 1);
	ck_assert_uint_eq(h[15], 8);
	ck_assert_uint_eq(h[18] << 8 | h[19], 4096);	     /* rlen */
	ck_assert_uint_eq(h[20] | h[21] | h[22] | h[23], 0); /* no payload */

	xrd_encode_write(h, 1, fh, 16, 0x10203);
	ck_assert_uint_eq(xrd_request_id(h), 3019);
	ck_assert_mem_eq(h + 4, fh, 4);
	ck_assert_uint_eq(h[15], 16);
	ck_assert_uint_eq(h[16], 0); /* pathid */
	ck_assert_uint_eq(h[21] << 16 | h[22] << 8 | h[23], 0x10203);

	xrd_encode_stat(h, 1, fh, 5);
	ck_assert_uint_eq(xrd_request_id(h), 3017);
	ck_assert_uint_eq(h[4], 0); /* options */
	ck_assert_mem_eq(h + 16, fh, 4);
	ck_assert_uint_eq(h[23], 5);

	xrd_encode_close(h, 1, fh);
	ck_assert_uint_eq(xrd_request_id(h), 3003);
	ck_assert_mem_eq(h + 4, fh, 4);

	xrd_encode_ping(h, 9);
	ck_assert_uint_eq(xrd_request_id(h), 3011);
	ck_assert_uint_eq(h[1], 9);
	for (int i = 4; i < XRD_REQ_HDR; i++)
		ck_assert_uint_eq(h[i], 0);

	xrd_encode_rm(h, 1, 3);
	ck_assert_uint_eq(xrd_request_id(h), 3014);
	ck_assert_uint_eq(h[23], 3);
}
END_TEST

START_TEST(response_headers_and_absurd_lengths)
{
	static const uint8_t ok[8] = {0, 3, 0x0f, 0xa0, 0, 0, 1, 0};
	static const uint8_t huge[8] = {0, 3, 0, 0, 0x7f, 0, 0, 0};
	struct xrd_response r;

	ck_assert_int_eq(xrd_decode_response(ok, 7, &r), -EAGAIN);
	ck_assert_int_eq(xrd_decode_response(ok, 8, &r), 0);
	ck_assert_uint_eq(r.streamid, 3);
	ck_assert_uint_eq(r.status, XRD_OKSOFAR);
	ck_assert_uint_eq(r.dlen, 256);
	ck_assert_int_eq(xrd_decode_response(huge, 8, &r), -EMSGSIZE);
}
END_TEST

START_TEST(error_body_gives_number_and_message)
{
	static const uint8_t body[] = {0,   0,	 0x0b, 0xc3, 'n',  'o', ' ',
				       'f', 'i', 'l',  'e',  '\n', 0};
	char msg[64], small[4];
	int32_t num = 0;

	ck_assert_int_eq(xrd_decode_number_text(body, sizeof(body), &num, msg, sizeof(msg)), 0);
	ck_assert_int_eq(num, 3011); /* kXR_NotFound */
	ck_assert_str_eq(msg, "no file");
	ck_assert_int_eq(xrd_decode_number_text(body, sizeof(body), &num, small, sizeof(small)), 0);
	ck_assert_str_eq(small, "no"); /* truncated, trailing blank trimmed */
	ck_assert_int_eq(xrd_decode_number_text(body, 3, &num, msg, sizeof(msg)), -EBADMSG);
	ck_assert_int_eq(xrd_decode_number_text(body, 4, &num, msg, sizeof(msg)), 0);
	ck_assert_str_eq(msg, "");
}
END_TEST

START_TEST(names_of_requests_and_statuses)
{
	ck_assert_str_eq(xrd_request_name(XRD_REQ_READ), "read");
	ck_assert_str_eq(xrd_request_name(XRD_REQ_PING), "ping");
	ck_assert_ptr_null(xrd_request_name(2999));
	ck_assert_str_eq(xrd_status_name(XRD_ERROR), "kXR_error");
	ck_assert_ptr_null(xrd_status_name(17));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("xrootd_proto");
	TCase *tc = tcase_create("proto");

	tcase_add_test(tc, handshake_is_five_words_ending_4_and_2012);
	tcase_add_test(tc, handshake_reply_gives_version_and_type);
	tcase_add_test(tc, protocol_and_login_requests);
	tcase_add_test(tc, file_requests_put_fields_at_their_offsets);
	tcase_add_test(tc, response_headers_and_absurd_lengths);
	tcase_add_test(tc, error_body_gives_number_and_message);
	tcase_add_test(tc, names_of_requests_and_statuses);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
