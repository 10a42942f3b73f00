/* xrd_conn: see xrd_conn.h. */
#include "xrd_conn.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

void xrd_conn_init(struct xrd_conn *c, uint16_t sid)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->sid = sid;
}

void xrd_conn_release(struct xrd_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->body);
	c->body = NULL;
	c->body_len = c->body_cap = 0;
}

static const char *req_name(uint16_t id)
{
	const char *n = xrd_request_name(id);

	return n ? n : "request";
}

/* Reads exactly len bytes: 0, -ECONNRESET at end of stream, or -errno. */
static int read_full(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Writes the header and payload in one call where the kernel takes them. */
static int write_full(int fd, const uint8_t *hdr, size_t hlen, const void *payload, size_t plen)
{
	struct iovec iov[2] = {{(void *)hdr, hlen}, {(void *)payload, plen}};
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = plen ? 2 : 1};

	while (iov[0].iov_len + iov[1].iov_len) {
		ssize_t n = sendmsg(fd, &m, MSG_NOSIGNAL);
		size_t left;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EPIPE ? -ECONNRESET : -errno;
		left = (size_t)n;
		for (int i = 0; i < 2; i++) {
			size_t k = left < iov[i].iov_len ? left : iov[i].iov_len;

			iov[i].iov_base = (uint8_t *)iov[i].iov_base + k;
			iov[i].iov_len -= k;
			left -= k;
		}
		if (!iov[0].iov_len) {
			m.msg_iov = &iov[1];
			m.msg_iovlen = 1;
		}
	}
	return 0;
}

static int io_error(struct xrd_conn *c, int r, const char *what)
{
	if (r == -ECONNRESET)
		snprintf(c->err, sizeof(c->err), "%s: connection dropped by the server during %s",
			 c->addr, what);
	else
		snprintf(c->err, sizeof(c->err), "%s: %s: %s", c->addr, what, strerror(-r));
	return r;
}

static int grow(struct xrd_conn *c, size_t need)
{
	if (need <= c->body_cap)
		return 0;
	size_t cap = c->body_cap ? c->body_cap : 4096;
	while (cap < need)
		cap *= 2;
	uint8_t *p = realloc(c->body, cap);
	if (!p)
		return -ENOMEM;
	c->body = p;
	c->body_cap = cap;
	return 0;
}

/* A non-kXR_ok final status, described in err. */
static int bad_status(struct xrd_conn *c, uint16_t req, uint16_t status, const uint8_t *body,
		      size_t len)
{
	char msg[400] = "";
	int32_t num = 0;
	const char *sn = xrd_status_name(status);

	if (status == XRD_ERROR || status == XRD_WAIT || status == XRD_REDIRECT)
		xrd_decode_number_text(body, len, &num, msg, sizeof(msg));
	switch (status) {
	case XRD_ERROR:
		snprintf(c->err, sizeof(c->err), "%s: kXR_%s refused: kXR_error %d: %s", c->addr,
			 req_name(req), (int)num, msg[0] ? msg : "(no message)");
		break;
	case XRD_WAIT:
		snprintf(c->err, sizeof(c->err), "%s: kXR_%s: the server asks to wait %d s: %s",
			 c->addr, req_name(req), (int)num, msg);
		break;
	case XRD_REDIRECT:
		snprintf(c->err, sizeof(c->err),
			 "%s: kXR_%s: redirected to %s:%d (xrdbench talks to a data server only)",
			 c->addr, req_name(req), msg, (int)num);
		break;
	default:
		snprintf(c->err, sizeof(c->err), "%s: kXR_%s: unexpected response status %u (%s)",
			 c->addr, req_name(req), status, sn ? sn : "unknown");
	}
	return -EPROTO;
}

int xrd_conn_call(struct xrd_conn *c, const uint8_t hdr[XRD_REQ_HDR], const void *payload)
{
	uint16_t req = xrd_request_id(hdr);
	uint32_t plen = (uint32_t)hdr[20] << 24 | (uint32_t)hdr[21] << 16 | (uint32_t)hdr[22] << 8 |
			hdr[23];
	uint8_t rh[XRD_RESP_HDR];
	struct xrd_response r;
	char what[32];
	int ret;

	snprintf(what, sizeof(what), "kXR_%s", req_name(req));
	ret = write_full(c->fd, hdr, XRD_REQ_HDR, payload, plen);
	if (ret < 0)
		return io_error(c, ret, what);
	c->body_len = 0;
	for (;;) {
		ret = read_full(c->fd, rh, sizeof(rh));
		if (ret < 0)
			return io_error(c, ret, what);
		if (xrd_decode_response(rh, sizeof(rh), &r) < 0) {
			snprintf(c->err, sizeof(c->err), "%s: %s: a response of %u bytes is absurd",
				 c->addr, what, r.dlen);
			return -EBADMSG;
		}
		if (r.streamid != c->sid) {
			snprintf(c->err, sizeof(c->err),
				 "%s: %s: response for stream %u, expected %u", c->addr, what,
				 r.streamid, c->sid);
			return -EBADMSG;
		}
		if (grow(c, c->body_len + r.dlen + 1) < 0)
			return io_error(c, -ENOMEM, what);
		ret = read_full(c->fd, c->body + c->body_len, r.dlen);
		if (ret < 0)
			return io_error(c, ret, what);
		if (r.status == XRD_OKSOFAR) {
			c->body_len += r.dlen;
			continue;
		}
		if (r.status != XRD_OK)
			return bad_status(c, req, r.status, c->body + c->body_len, r.dlen);
		c->body_len += r.dlen;
		c->body[c->body_len] = 0; /* text bodies (stat) read as strings */
		return 0;
	}
}

static int connect_to(struct xrd_conn *c, const char *host, unsigned port)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *ai;
	char service[8];
	int r, err = ECONNREFUSED, one = 1;

	snprintf(service, sizeof(service), "%u", port);
	r = getaddrinfo(host, service, &hints, &res);
	if (r) {
		snprintf(c->err, sizeof(c->err), "cannot resolve '%s': %s", host, gai_strerror(r));
		return -EHOSTUNREACH;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);

		if (fd < 0) {
			err = errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			c->fd = fd;
			break;
		}
		err = errno;
		close(fd);
	}
	freeaddrinfo(res);
	if (c->fd < 0) {
		snprintf(c->err, sizeof(c->err), "cannot connect to %s: %s", c->addr,
			 strerror(err));
		return -err;
	}
	/* One small request at a time: Nagle would hold each one back. */
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

int xrd_conn_open(struct xrd_conn *c, const char *host, unsigned port, const char *user)
{
	uint8_t hs[XRD_HANDSHAKE_LEN], hdr[XRD_REQ_HDR], rep[XRD_HANDSHAKE_REPLY_LEN];
	uint32_t pv, type;
	int r;

	snprintf(c->addr, sizeof(c->addr), "%s:%u", host, port);
	r = connect_to(c, host, port);
	if (r < 0)
		return r;
	xrd_encode_handshake(hs);
	r = write_full(c->fd, hs, sizeof(hs), NULL, 0);
	if (r == 0)
		r = read_full(c->fd, rep, sizeof(rep));
	if (r < 0)
		return io_error(c, r, "the handshake");
	if (xrd_decode_handshake(rep, sizeof(rep), &pv, &type) < 0) {
		snprintf(c->err, sizeof(c->err), "%s: not an XRootD server (bad handshake reply)",
			 c->addr);
		return -EPROTO;
	}
	c->server_pv = pv;
	xrd_encode_protocol(hdr, c->sid);
	r = xrd_conn_call(c, hdr, NULL);
	if (r < 0)
		return r;
	xrd_encode_login(hdr, c->sid, (int32_t)getpid(), user);
	r = xrd_conn_call(c, hdr, NULL);
	if (r < 0)
		return r;
	/* 16 bytes of session id, then, if the server wants authentication, its parameters. */
	if (c->body_len > 16 && c->body[16]) {
		snprintf(c->err, sizeof(c->err),
			 "%s: the server asks for authentication (%.*s); xrdbench has none",
			 c->addr, (int)(c->body_len - 16 > 60 ? 60 : c->body_len - 16),
			 (const char *)c->body + 16);
		return -EACCES;
	}
	return 0;
}

int xrd_conn_open_file(struct xrd_conn *c, const char *path, uint16_t options, uint8_t fhandle[4])
{
	uint8_t hdr[XRD_REQ_HDR];
	int r;

	xrd_encode_open(hdr, c->sid, XRD_MODE_0644, options, (uint32_t)strlen(path));
	r = xrd_conn_call(c, hdr, path);
	if (r < 0) {
		/* Name the file in the message. */
		size_t n = strlen(c->err);

		snprintf(c->err + n, sizeof(c->err) - n, " (file '%.200s')", path);
		return r;
	}
	if (c->body_len < 4) {
		snprintf(c->err, sizeof(c->err),
			 "%s: kXR_open of '%.200s': no file handle in reply", c->addr, path);
		return -EBADMSG;
	}
	memcpy(fhandle, c->body, 4);
	return 0;
}
