/*
 * protocol: refosd's wire format, as pure functions on byte buffers.
 *
 * A request is a 20-byte header, the object name, then the data (writes
 * only). A reply is a 24-byte header, then the data (reads only). All
 * integers are little-endian. Decoding never reads past `len` and never
 * allocates: a decoded frame points into the caller's buffer. The layout
 * is documented in docs/refosd.md; change both together.
 */
#ifndef REFOSD_PROTOCOL_H
#define REFOSD_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#define PROTO_REQUEST_MAGIC 0x31514652u /* "RFQ1" on the wire */
#define PROTO_REPLY_MAGIC   0x31524652u /* "RFR1" on the wire */
#define PROTO_REQUEST_HDR   20
#define PROTO_REPLY_HDR	    24
#define PROTO_MAX_NAME	    1024
#define PROTO_MAX_DATA	    (64u << 20) /* larger lengths are "absurd": the frame is refused */

/*
 * Request flags (byte 5). PROTO_FLAG_OP_ID: the tag is the client's op id,
 * the client's id in the high 32 bits and its op's sequence number in the
 * low 32, and the daemon records it with its op (corecap_op_client). A
 * request without it (an older client) is served the same; a daemon that
 * does not know a flag ignores it, so a newer client works with it too.
 */
#define PROTO_FLAG_OP_ID 0x01u

enum proto_op {
	PROTO_OP_WRITE = 1,
	PROTO_OP_READ = 2,
};

/* A decoded request; name and data point into the decoded buffer. */
struct proto_request {
	uint8_t op;
	uint8_t flags; /* PROTO_FLAG_* */
	uint64_t tag;  /* chosen by the client, echoed in the reply */
	uint16_t name_len;
	uint32_t data_len;
	const char *name; /* not NUL-terminated */
	const uint8_t *data;
};

/* A decoded reply; data points into the decoded buffer. */
struct proto_reply {
	uint8_t op;
	int32_t status; /* 0 or a negative errno */
	uint64_t tag;
	uint32_t data_len;
	const uint8_t *data;
};

/*
 * Decode the request at the start of buf. Returns 0 and sets *frame_bytes
 * to the frame's size when a whole frame is there; -EAGAIN when more bytes
 * are needed (*frame_bytes is then the size needed so far: the header, or
 * the whole frame once the header is in); -EBADMSG for a bad magic,
 * -EMSGSIZE for a name or data length over the limits, -EOPNOTSUPP for an
 * unknown op, -EINVAL for an empty name or a read carrying data.
 */
int proto_decode_request(const uint8_t *buf, size_t len, struct proto_request *req,
			 size_t *frame_bytes);

/* The same for replies (-EINVAL for a write reply carrying data). */
int proto_decode_reply(const uint8_t *buf, size_t len, struct proto_reply *rep,
		       size_t *frame_bytes);

/* Encode the header of req (name and data follow it on the wire). */
void proto_encode_request_header(uint8_t hdr[PROTO_REQUEST_HDR], const struct proto_request *req);

/* Encode the header of rep (data follows it on the wire). */
void proto_encode_reply_header(uint8_t hdr[PROTO_REPLY_HDR], const struct proto_reply *rep);

/* A short description of a decode error ("bad magic", ...). */
const char *proto_strerror(int err);

/* "write", "read" or "unknown". */
const char *proto_op_name(uint8_t op);

#endif /* REFOSD_PROTOCOL_H */
