/*
 * xrd_frame: one direction of one connection read as XRootD frames, from
 * the socket calls' byte counts and the first bytes of each call that the
 * shim records (docs/events.md, corecap_io:syscall's `hdr`: 24 bytes of a
 * read, 8 of a write).
 *
 * XRootD (XProtocol.hh): every request is a 24-byte header (streamid[2],
 * requestid[2], parms[16], dlen[4]) and dlen bytes of payload; every
 * response an 8-byte header (streamid[2], status[2], dlen[4]) and dlen
 * bytes of body, all big-endian. A client's first 20 bytes are its
 * handshake (0, 0, 0, 4, 2012 as five 32-bit words). A response with
 * status kXR_oksofar (4000) is partial: more responses to the same
 * request follow.
 *
 * The frames are followed across calls: a header split over calls, a
 * payload read in several calls (counted down from dlen), several frames
 * in one call as long as each header lies within the call's recorded
 * bytes. A header outside them, or one that is not XRootD's (an unknown
 * request id or status, a dlen of 1 GiB or more), loses the framing: the
 * stream is `lost` until corecap_xrd_frame_resync says where a frame
 * begins again.
 */
#ifndef CORECAP_XRD_FRAME_H
#define CORECAP_XRD_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XRD_FRAME_REQ_HDR   24
#define XRD_FRAME_RESP_HDR  8
#define XRD_FRAME_HANDSHAKE 20
#define XRD_FRAME_ID_MIN    3000 /* kXR_auth */
#define XRD_FRAME_ID_MAX    3032 /* kXR_clone */
#define XRD_FRAME_OKSOFAR   4000
#define XRD_FRAME_WAITRESP  4006
/* The id given to a client's handshake (no request id of XRootD's). */
#define XRD_FRAME_ID_HANDSHAKE 1

struct xrd_frame {
	bool request; /* the client's side: 24-byte headers */
	bool lost;    /* the bytes are not (or no longer) XRootD frames */
	bool started; /* a byte was seen */
	uint8_t have; /* header bytes so far */
	uint8_t part[XRD_FRAME_REQ_HDR];
	uint64_t left; /* body bytes still to come */
	uint16_t id;   /* the last header's request id or status */
	uint32_t dlen; /* and its dlen */
};

/* What one call's bytes held. */
struct xrd_frame_step {
	bool at_boundary;    /* they began a new frame */
	uint32_t headers;    /* headers completed in them */
	uint32_t frames;     /* frames (header and body) completed in them */
	uint16_t first_id;   /* the first header's id or status (headers > 0) */
	uint16_t last_id;    /* the last completed frame's (frames > 0) */
	uint64_t first_dlen; /* the first header's dlen */
	uint32_t partials;   /* responses completed that are not final (kXR_oksofar...) */
	uint32_t finals;     /* responses completed that end their request's reply */
	bool lost;	     /* the framing was lost in them, or before */
};

/* request: the client's side of the connection, else the server's. */
void corecap_xrd_frame_init(struct xrd_frame *f, bool request);
/*
 * A call moved `bytes` bytes, of which the first hdr_len are hdr. st
 * says what they held (st->lost: nothing is known of them).
 */
void corecap_xrd_frame_feed(struct xrd_frame *f, const uint8_t *hdr, size_t hdr_len, uint64_t bytes,
			    struct xrd_frame_step *st);
/* A frame begins at the next call (a lost stream is read again from there). */
void corecap_xrd_frame_resync(struct xrd_frame *f);
/* Whether no frame is partly moved (a whole number of frames so far). */
bool corecap_xrd_frame_at_boundary(const struct xrd_frame *f);
/* "read", "write", ... for a request id; NULL when unknown. */
const char *corecap_xrd_request_name(uint16_t id);
/* Whether a response status ends its request's reply (not kXR_oksofar, kXR_waitresp). */
bool corecap_xrd_status_final(uint16_t status);

#endif
