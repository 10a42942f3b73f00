/*
 * xrd_proto: the part of the XRootD protocol (version 5, as xrootd 5.5
 * speaks it) that xrdbench uses, as pure functions on byte buffers.
 *
 * Written from the protocol's public definition (XProtocol.hh of the
 * xrootd sources): every request is a 24-byte header (2-byte stream id,
 * 2-byte request id, 16 request-specific bytes, 4-byte payload length)
 * and its payload; every response is an 8-byte header (stream id, 2-byte
 * status, 4-byte body length) and its body. All integers are big-endian.
 * Encoders fill a caller's 24-byte array and never fail; decoders never
 * read past `len`.
 */
#ifndef XRD_PROTO_H
#define XRD_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define XRD_HANDSHAKE_LEN 20 /* the client's first bytes */
#define XRD_HANDSHAKE_REPLY_LEN                                                                    \
	16 /* a response header and 8 bytes: protocol version, server type */
#define XRD_REQ_HDR	     24
#define XRD_RESP_HDR	     8
#define XRD_PROTOCOL_VERSION 0x520u	  /* 5.2.0, the version this client speaks */
#define XRD_MAX_BODY	     (256u << 20) /* a larger response body is refused */

/* Request ids (XRequestTypes). */
enum xrd_request {
	XRD_REQ_CLOSE = 3003,
	XRD_REQ_PROTOCOL = 3006,
	XRD_REQ_LOGIN = 3007,
	XRD_REQ_OPEN = 3010,
	XRD_REQ_PING = 3011,
	XRD_REQ_READ = 3013,
	XRD_REQ_RM = 3014,
	XRD_REQ_STAT = 3017,
	XRD_REQ_WRITE = 3019,
};

/* Response statuses (XResponseType). */
enum xrd_status {
	XRD_OK = 0,
	XRD_OKSOFAR = 4000,
	XRD_ATTN = 4001,
	XRD_AUTHMORE = 4002,
	XRD_ERROR = 4003,
	XRD_REDIRECT = 4004,
	XRD_WAIT = 4005,
	XRD_WAITRESP = 4006,
	XRD_STATUS = 4007,
};

/* kXR_open options and modes (XOpenRequestOption, XOpenRequestMode). */
enum {
	XRD_OPEN_DELETE = 0x0002, /* create, or truncate an existing file */
	XRD_OPEN_NEW = 0x0008,
	XRD_OPEN_READ = 0x0010,
	XRD_OPEN_UPDATE = 0x0020,
	XRD_OPEN_MKPATH = 0x0100,
	XRD_MODE_0644 = 0x100 | 0x080 | 0x020 | 0x004, /* ur uw gr or */
};

#define XRD_LOGIN_VERSION 5 /* kXR_ver005: the 2019 TLS-capable client; we never ask for TLS */
#define XRD_EXPECT_LOGIN  3 /* kXR_ExpLogin: a kXR_login follows the kXR_protocol */

struct xrd_response {
	uint16_t streamid;
	uint16_t status; /* enum xrd_status */
	uint32_t dlen;	 /* body bytes that follow */
};

void xrd_encode_handshake(uint8_t out[XRD_HANDSHAKE_LEN]);
/* The server's handshake reply: 0, or -EBADMSG when it is not one. */
int xrd_decode_handshake(const uint8_t *buf, size_t len, uint32_t *protover, uint32_t *server_type);

void xrd_encode_protocol(uint8_t out[XRD_REQ_HDR], uint16_t sid);
/* user: up to 8 bytes are sent (NUL-padded). */
void xrd_encode_login(uint8_t out[XRD_REQ_HDR], uint16_t sid, int32_t pid, const char *user);
/* Followed by path_len bytes of path. */
void xrd_encode_open(uint8_t out[XRD_REQ_HDR], uint16_t sid, uint16_t mode, uint16_t options,
		     uint32_t path_len);
void xrd_encode_close(uint8_t out[XRD_REQ_HDR], uint16_t sid, const uint8_t fhandle[4]);
void xrd_encode_read(uint8_t out[XRD_REQ_HDR], uint16_t sid, const uint8_t fhandle[4],
		     int64_t offset, uint32_t rlen);
/* Followed by dlen bytes of data. */
void xrd_encode_write(uint8_t out[XRD_REQ_HDR], uint16_t sid, const uint8_t fhandle[4],
		      int64_t offset, uint32_t dlen);
/* A path stat (followed by path_len bytes of path), or, with path_len 0, of fhandle's file. */
void xrd_encode_stat(uint8_t out[XRD_REQ_HDR], uint16_t sid, const uint8_t fhandle[4],
		     uint32_t path_len);
void xrd_encode_ping(uint8_t out[XRD_REQ_HDR], uint16_t sid);
/* Followed by path_len bytes of path. */
void xrd_encode_rm(uint8_t out[XRD_REQ_HDR], uint16_t sid, uint32_t path_len);

/* Request id of an encoded request header. */
uint16_t xrd_request_id(const uint8_t hdr[XRD_REQ_HDR]);

/*
 * A response header: 0; -EAGAIN below 8 bytes; -EMSGSIZE when its body
 * is longer than XRD_MAX_BODY.
 */
int xrd_decode_response(const uint8_t *buf, size_t len, struct xrd_response *r);

/*
 * A kXR_error, kXR_wait or kXR_redirect body: its leading 4-byte number
 * (error code, seconds, port) and its text, NUL-terminated in msg
 * (truncated to msglen - 1). 0, or -EBADMSG below 4 bytes.
 */
int xrd_decode_number_text(const uint8_t *body, size_t len, int32_t *num, char *msg, size_t msglen);

/* "read", "write", ... for a request id; NULL when unknown. */
const char *xrd_request_name(uint16_t id);
/* "kXR_ok", "kXR_error", ... for a status; NULL when unknown. */
const char *xrd_status_name(uint16_t status);

#endif /* XRD_PROTO_H */
