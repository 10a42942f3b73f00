/*
 * net_ops: ops of a daemon that marks none of its own, detected from its
 * socket I/O (corecap_io events of class net, which the shim emits for
 * every call that moved bytes when the daemon runs with
 * CORECAP_NET_EVENTS=on). It sits in front of the model: every event goes
 * through corecap_net_ops_consume, which passes it on and, around a
 * socket read or write, adds the corecap_op events an annotated daemon
 * would have emitted, so that detected ops get the same attribution.
 *
 * The rule, per connection (the daemon's descriptor): an op begins when
 * a read returns a request on a connection with no op open (at the
 * read's end: the time the request waited in the socket is not the
 * daemon's) and ends when the first write on that connection after it
 * returns (the reply). Reads before that write belong to the same
 * request. The thread that read the request has the op in context until
 * the reply, or until it does socket I/O on another connection; a reply
 * written by another thread ends the op there, and the reader's time
 * after its last event is `other` (the model's rule for an op ended
 * elsewhere). Writes with no op open (a reply in several writes, pushed
 * data) start nothing and are counted. A reply's event comes when its
 * write returns, which can be after the client's next request was read
 * (the reply was on the wire before the write call returned): a reply
 * whose write began before the op's last read ended closes the op
 * without that read, which begins the next op at its own end (counted as
 * late_replies). An op is typed by its request when the request's first
 * bytes say what it is: an XRootD request (24 bytes or more, a request id
 * of 3000..3032 in its bytes 2-3) is named for its id, "kXR_read". Other
 * ops are typed by the bytes read and written: "req 24B resp 9B" (sizes
 * from 1 KiB on rounded up to a power of two, so that types stay few).
 *
 * Annotated op events (corecap_op) are dropped while detecting and
 * counted, so that the two methods never mix in one model.
 */
#ifndef CORECAP_NET_OPS_H
#define CORECAP_NET_OPS_H

#include <stdint.h>

#include "event.h"
#include "model.h"
#include "../util/u64map.h"

struct net_ops {
	struct model *m;
	struct u64map conns;   /* fd -> index in conn[] */
	struct u64map threads; /* tid -> fd of the op it has in context, + 1 */
	struct net_conn {
		int32_t fd;
		uint64_t op_id; /* 0: no op open */
		int32_t reader; /* tid that read the request */
		uint64_t in_bytes;
		uint32_t head; /* the request's first 4 bytes (0: unknown) */
		uint32_t last_read_head;
		uint32_t n_reads;	/* reads of the open op's request */
		uint64_t last_read_end; /* ns */
		uint64_t last_read_bytes;
		int32_t last_reader;
	} * conn;
	size_t n_conn, cap_conn;
	uint64_t next_id;
	/* What the detector saw, for the report. */
	uint64_t net_reads, net_writes, ops_begun, ops_ended, writes_without_op, annotated_dropped,
		handoffs, late_replies;
};

void corecap_net_ops_init(struct net_ops *d, struct model *m);
void corecap_net_ops_release(struct net_ops *d);
/* Passes ev (and the op events it implies) to the model; 0 or -ENOMEM. */
int corecap_net_ops_consume(struct net_ops *d, const struct model_event *ev);
/*
 * The type name of an op whose request began with `head` (big-endian, 0:
 * unknown) and read in_bytes, and whose reply wrote out_bytes, into buf.
 */
void corecap_net_ops_type(char *buf, size_t len, uint32_t head, uint64_t in_bytes,
			  uint64_t out_bytes);

#endif
