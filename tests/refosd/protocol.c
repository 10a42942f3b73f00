/* protocol: see protocol.h and docs/refosd.md for the layout. */
#include "protocol.h"

#include <errno.h>
#include <string.h>

static void put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint16_t get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

int proto_decode_request(const uint8_t *buf, size_t len, struct proto_request *req,
			 size_t *frame_bytes)
{
	size_t total;

	*frame_bytes = PROTO_REQUEST_HDR;
	/* The magic is checked as soon as its bytes are in, so garbage is refused early. */
	for (size_t i = 0; i < len && i < 4; i++) {
		if (buf[i] != (uint8_t)(PROTO_REQUEST_MAGIC >> (8 * i)))
			return -EBADMSG;
	}
	if (len < PROTO_REQUEST_HDR)
		return -EAGAIN;
	req->op = buf[4];
	req->flags = buf[5];
	req->name_len = get_u16(buf + 6);
	req->tag = get_u64(buf + 8);
	req->data_len = get_u32(buf + 16);
	if (req->op != PROTO_OP_WRITE && req->op != PROTO_OP_READ)
		return -EOPNOTSUPP;
	if (req->name_len > PROTO_MAX_NAME || req->data_len > PROTO_MAX_DATA)
		return -EMSGSIZE;
	if (req->name_len == 0 || (req->op == PROTO_OP_READ && req->data_len))
		return -EINVAL;
	total = PROTO_REQUEST_HDR + (size_t)req->name_len + req->data_len;
	*frame_bytes = total;
	if (len < total)
		return -EAGAIN;
	req->name = (const char *)buf + PROTO_REQUEST_HDR;
	req->data = buf + PROTO_REQUEST_HDR + req->name_len;
	return 0;
}

int proto_decode_reply(const uint8_t *buf, size_t len, struct proto_reply *rep, size_t *frame_bytes)
{
	size_t total;

	*frame_bytes = PROTO_REPLY_HDR;
	for (size_t i = 0; i < len && i < 4; i++) {
		if (buf[i] != (uint8_t)(PROTO_REPLY_MAGIC >> (8 * i)))
			return -EBADMSG;
	}
	if (len < PROTO_REPLY_HDR)
		return -EAGAIN;
	rep->op = buf[4];
	rep->status = (int32_t)get_u32(buf + 8);
	rep->data_len = get_u32(buf + 12);
	rep->tag = get_u64(buf + 16);
	if (rep->op != PROTO_OP_WRITE && rep->op != PROTO_OP_READ)
		return -EOPNOTSUPP;
	if (rep->data_len > PROTO_MAX_DATA)
		return -EMSGSIZE;
	if (rep->op == PROTO_OP_WRITE && rep->data_len)
		return -EINVAL;
	total = PROTO_REPLY_HDR + (size_t)rep->data_len;
	*frame_bytes = total;
	if (len < total)
		return -EAGAIN;
	rep->data = buf + PROTO_REPLY_HDR;
	return 0;
}

void proto_encode_request_header(uint8_t hdr[PROTO_REQUEST_HDR], const struct proto_request *req)
{
	put_u32(hdr, PROTO_REQUEST_MAGIC);
	hdr[4] = req->op;
	hdr[5] = req->flags;
	put_u16(hdr + 6, req->name_len);
	put_u64(hdr + 8, req->tag);
	put_u32(hdr + 16, req->data_len);
}

void proto_encode_reply_header(uint8_t hdr[PROTO_REPLY_HDR], const struct proto_reply *rep)
{
	put_u32(hdr, PROTO_REPLY_MAGIC);
	hdr[4] = rep->op;
	hdr[5] = 0;
	put_u16(hdr + 6, 0);
	put_u32(hdr + 8, (uint32_t)rep->status);
	put_u32(hdr + 12, rep->data_len);
	put_u64(hdr + 16, rep->tag);
}

const char *proto_strerror(int err)
{
	switch (err) {
	case 0:
		return "no error";
	case -EAGAIN:
		return "truncated frame";
	case -EBADMSG:
		return "bad magic";
	case -EMSGSIZE:
		return "length over the limit";
	case -EOPNOTSUPP:
		return "unknown op";
	case -EINVAL:
		return "inconsistent frame";
	default:
		return strerror(-err);
	}
}

const char *proto_op_name(uint8_t op)
{
	switch (op) {
	case PROTO_OP_WRITE:
		return "write";
	case PROTO_OP_READ:
		return "read";
	default:
		return "unknown";
	}
}
