/* xrd_frame: see xrd_frame.h. */
#include "xrd_frame.h"

#include <string.h>

/* A dlen this large is not a frame of XRootD's (its own limit is far below). */
#define XRD_FRAME_DLEN_MAX (1u << 30)

/* XRootD's request ids 3000..3032 (XProtocol.hh, XRequestTypes), by id - 3000. */
static const char *const xrd_requests[] = {
	"auth",	    "query",  "chmod",	 "close",  "dirlist", "gpfile",	  "protocol",
	"login",    "mkdir",  "mv",	 "open",   "ping",    "chkpoint", "read",
	"rm",	    "rmdir",  "sync",	 "stat",   "set",     "write",	  "fattr",
	"prepare",  "statx",  "endsess", "bind",   "readv",   "pgwrite",  "locate",
	"truncate", "sigver", "pgread",	 "writev", "clone",
};

const char *corecap_xrd_request_name(uint16_t id)
{
	if (id == XRD_FRAME_ID_HANDSHAKE)
		return "handshake";
	if (id < XRD_FRAME_ID_MIN || id > XRD_FRAME_ID_MAX)
		return NULL;
	return xrd_requests[id - XRD_FRAME_ID_MIN];
}

bool corecap_xrd_status_final(uint16_t status)
{
	/* kXR_attn (4001) is the server's own message, not a reply. */
	return status != XRD_FRAME_OKSOFAR && status != XRD_FRAME_WAITRESP && status != 4001;
}

void corecap_xrd_frame_init(struct xrd_frame *f, bool request)
{
	*f = (struct xrd_frame){.request = request};
}

void corecap_xrd_frame_resync(struct xrd_frame *f)
{
	corecap_xrd_frame_init(f, f->request);
	f->started = true;
}

bool corecap_xrd_frame_at_boundary(const struct xrd_frame *f)
{
	return !f->lost && !f->have && !f->left;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool is_handshake(const uint8_t *p)
{
	static const uint8_t hs[XRD_FRAME_HANDSHAKE] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 2012 >> 8, 2012 & 0xff};

	return memcmp(p, hs, sizeof(hs)) == 0;
}

/* A header is complete: false when it is not one of XRootD's. */
static bool header_done(struct xrd_frame *f, struct xrd_frame_step *st)
{
	uint16_t id = (uint16_t)(f->part[2] << 8 | f->part[3]);
	uint32_t dlen = be32(f->part + (f->request ? 20 : 4));

	if (f->request ? id < XRD_FRAME_ID_MIN || id > XRD_FRAME_ID_MAX
		       : id != 0 && (id < XRD_FRAME_OKSOFAR || id > 4007))
		return false;
	if (dlen >= XRD_FRAME_DLEN_MAX)
		return false;
	f->id = id;
	f->dlen = dlen;
	f->have = 0;
	f->left = dlen;
	if (!st->headers++) {
		st->first_id = id;
		st->first_dlen = dlen;
	}
	return true;
}

static void frame_done(struct xrd_frame *f, struct xrd_frame_step *st)
{
	st->frames++;
	st->last_id = f->id;
	if (f->request)
		return;
	if (corecap_xrd_status_final(f->id))
		st->finals++;
	else
		st->partials++;
}

void corecap_xrd_frame_feed(struct xrd_frame *f, const uint8_t *hdr, size_t hdr_len, uint64_t bytes,
			    struct xrd_frame_step *st)
{
	size_t hsize = f->request ? XRD_FRAME_REQ_HDR : XRD_FRAME_RESP_HDR;
	uint64_t pos = 0;

	*st = (struct xrd_frame_step){.at_boundary = corecap_xrd_frame_at_boundary(f)};
	if (hdr_len > bytes)
		hdr_len = (size_t)bytes;
	f->started = true;
	while (!f->lost && pos < bytes) {
		uint64_t k;

		if (f->left) {
			k = bytes - pos < f->left ? bytes - pos : f->left;
			f->left -= k;
			pos += k;
			if (!f->left)
				frame_done(f, st);
			continue;
		}
		if (f->request && !f->have && hdr_len >= pos + XRD_FRAME_HANDSHAKE &&
		    is_handshake(hdr + pos)) {
			f->id = XRD_FRAME_ID_HANDSHAKE;
			f->dlen = 0;
			if (!st->headers++)
				st->first_id = f->id;
			frame_done(f, st);
			pos += XRD_FRAME_HANDSHAKE;
			continue;
		}
		k = hsize - f->have;
		if (bytes - pos < k)
			k = bytes - pos;
		if (pos + k > hdr_len) {
			f->lost = true; /* header bytes the call's record does not hold */
			break;
		}
		memcpy(f->part + f->have, hdr + pos, (size_t)k);
		f->have = (uint8_t)(f->have + k);
		pos += k;
		if (f->have < hsize)
			continue;
		if (!header_done(f, st)) {
			f->lost = true;
			break;
		}
		if (!f->left)
			frame_done(f, st);
	}
	st->lost = f->lost;
}
