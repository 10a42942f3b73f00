/* xrd_proto: see xrd_proto.h. */
#include "xrd_proto.h"

#include <errno.h>
#include <string.h>

#define ROOTD_PQ 2012 /* the handshake's fifth word: "this is the xroot protocol" */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A header with everything but the stream id, request id and dlen zero. */
static void header(uint8_t out[XRD_REQ_HDR], uint16_t sid, uint16_t req, uint32_t dlen)
{
	memset(out, 0, XRD_REQ_HDR);
	put16(out, sid);
	put16(out + 2, req);
	put32(out + 20, dlen);
}

void xrd_encode_handshake(uint8_t out[XRD_HANDSHAKE_LEN])
{
	memset(out, 0, XRD_HANDSHAKE_LEN);
	put32(out + 12, 4);
	put32(out + 16, ROOTD_PQ);
}

int xrd_decode_handshake(const uint8_t *buf, size_t len, uint32_t *protover, uint32_t *server_type)
{
	struct xrd_response r;

	if (len < XRD_HANDSHAKE_REPLY_LEN || xrd_decode_response(buf, len, &r) < 0 ||
	    r.streamid != 0 || r.status != XRD_OK || r.dlen != 8)
		return -EBADMSG;
	*protover = get32(buf + 8);
	*server_type = get32(buf + 12);
	return 0;
}

void xrd_encode_protocol(uint8_t out[XRD_REQ_HDR], uint16_t sid)
{
	header(out, sid, XRD_REQ_PROTOCOL, 0);
	put32(out + 4, XRD_PROTOCOL_VERSION);
	out[8] = 0; /* flags: no security requirements asked, not TLS capable */
	out[9] = XRD_EXPECT_LOGIN;
}

void xrd_encode_login(uint8_t out[XRD_REQ_HDR], uint16_t sid, int32_t pid, const char *user)
{
	size_t n = strlen(user);

	header(out, sid, XRD_REQ_LOGIN, 0);
	put32(out + 4, (uint32_t)pid);
	memcpy(out + 8, user, n < 8 ? n : 8);
	out[16] = 0; /* ability2 */
	out[17] = 0; /* ability */
	out[18] = XRD_LOGIN_VERSION;
}

void xrd_encode_open(uint8_t out[XRD_REQ_HDR], uint16_t sid, uint16_t mode, uint16_t options,
		     uint32_t path_len)
{
	header(out, sid, XRD_REQ_OPEN, path_len);
	put16(out + 4, mode);
	put16(out + 6, options);
}

void xrd_encode_close(uint8_t out[XRD_REQ_HDR], uint16_t sid, const uint8_t fhandle[4])
{
	header(out, sid, XRD_REQ_CLOSE, 0);
	memcpy(out + 4, fhandle, 4);
}

void xrd_encode_read(uint8_t out[XRD_REQ_HDR], uint16_t sid, const uint8_t fhandle[4],
		     int64_t offset, uint32_t rlen)
{
	header(out, sid, XRD_REQ_READ, 0);
	memcpy(out + 4, fhandle, 4);
	put64(out + 8, (uint64_t)offset);
	put32(out + 16, rlen);
}

void xrd_encode_write(uint8_t out[XRD_REQ_HDR], uint16_t sid, const uint8_t fhandle[4],
		      int64_t offset, uint32_t dlen)
{
	header(out, sid, XRD_REQ_WRITE, dlen);
	memcpy(out + 4, fhandle, 4);
	put64(out + 8, (uint64_t)offset);
	/* pathid and reserved stay 0 */
}

void xrd_encode_stat(uint8_t out[XRD_REQ_HDR], uint16_t sid, const uint8_t fhandle[4],
		     uint32_t path_len)
{
	header(out, sid, XRD_REQ_STAT, path_len);
	/* options 0 (not a vfs stat), reserved, wants 0; the handle counts without a path */
	memcpy(out + 16, fhandle, 4);
}

void xrd_encode_ping(uint8_t out[XRD_REQ_HDR], uint16_t sid)
{
	header(out, sid, XRD_REQ_PING, 0);
}

void xrd_encode_rm(uint8_t out[XRD_REQ_HDR], uint16_t sid, uint32_t path_len)
{
	header(out, sid, XRD_REQ_RM, path_len);
}

uint16_t xrd_request_id(const uint8_t hdr[XRD_REQ_HDR])
{
	return get16(hdr + 2);
}

int xrd_decode_response(const uint8_t *buf, size_t len, struct xrd_response *r)
{
	if (len < XRD_RESP_HDR)
		return -EAGAIN;
	r->streamid = get16(buf);
	r->status = get16(buf + 2);
	r->dlen = get32(buf + 4);
	return r->dlen > XRD_MAX_BODY ? -EMSGSIZE : 0;
}

int xrd_decode_number_text(const uint8_t *body, size_t len, int32_t *num, char *msg, size_t msglen)
{
	size_t n;

	if (len < 4)
		return -EBADMSG;
	*num = (int32_t)get32(body);
	if (!msglen)
		return 0;
	n = len - 4;
	if (n > msglen - 1)
		n = msglen - 1;
	memcpy(msg, body + 4, n);
	msg[n] = '\0';
	/* The server's text may carry its own NUL and a trailing newline. */
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	return 0;
}

const char *xrd_request_name(uint16_t id)
{
	switch (id) {
	case XRD_REQ_CLOSE:
		return "close";
	case XRD_REQ_PROTOCOL:
		return "protocol";
	case XRD_REQ_LOGIN:
		return "login";
	case XRD_REQ_OPEN:
		return "open";
	case XRD_REQ_PING:
		return "ping";
	case XRD_REQ_READ:
		return "read";
	case XRD_REQ_RM:
		return "rm";
	case XRD_REQ_STAT:
		return "stat";
	case XRD_REQ_WRITE:
		return "write";
	default:
		return NULL;
	}
}

const char *xrd_status_name(uint16_t status)
{
	switch (status) {
	case XRD_OK:
		return "kXR_ok";
	case XRD_OKSOFAR:
		return "kXR_oksofar";
	case XRD_ATTN:
		return "kXR_attn";
	case XRD_AUTHMORE:
		return "kXR_authmore";
	case XRD_ERROR:
		return "kXR_error";
	case XRD_REDIRECT:
		return "kXR_redirect";
	case XRD_WAIT:
		return "kXR_wait";
	case XRD_WAITRESP:
		return "kXR_waitresp";
	case XRD_STATUS:
		return "kXR_status";
	default:
		return NULL;
	}
}
