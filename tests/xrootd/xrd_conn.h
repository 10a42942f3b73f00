/*
 * xrd_conn: one synchronous XRootD connection (a blocking TCP socket,
 * one request in flight): connect + handshake + kXR_protocol + kXR_login,
 * then request/response calls. After a failed call the connection is
 * unusable and err holds one line naming the server, the request and the
 * cause (a refusal, a kXR_error and its message, a dropped connection).
 */
#ifndef XRD_CONN_H
#define XRD_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "xrd_proto.h"

struct xrd_conn {
	int fd;
	uint16_t sid;	 /* this connection's stream id */
	char addr[80];	 /* host:port, for messages */
	uint8_t *body;	 /* the last response's body */
	size_t body_len; /* its length */
	size_t body_cap;
	uint32_t server_pv; /* the server's protocol version */
	char err[512];
};

void xrd_conn_init(struct xrd_conn *c, uint16_t sid);
void xrd_conn_release(struct xrd_conn *c);

/*
 * Connect and log in as `user`. 0, or a negative errno: -ECONNREFUSED and
 * the like from connect, -EPROTO for a refused handshake or login (a
 * kXR_error: err quotes it), -EACCES when the server asks for
 * authentication, -ECONNRESET when it closed the connection.
 */
int xrd_conn_open(struct xrd_conn *c, const char *host, unsigned port, const char *user);

/*
 * Send a request (24-byte header and payload of the length its header
 * says) and read its response: kXR_oksofar parts are gathered into one
 * body (c->body, c->body_len). 0 on kXR_ok; -EPROTO on kXR_error (err
 * quotes its number and message) or any other status; -ECONNRESET when
 * the server closes the connection; -EBADMSG for a response to another
 * stream or an absurd length.
 */
int xrd_conn_call(struct xrd_conn *c, const uint8_t hdr[XRD_REQ_HDR], const void *payload);

/* kXR_open of path; the handle in fhandle. */
int xrd_conn_open_file(struct xrd_conn *c, const char *path, uint16_t options, uint8_t fhandle[4]);

#endif /* XRD_CONN_H */
