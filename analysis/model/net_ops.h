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
 * daemon's) and ends when the last write of its reply returns: the last
 * write on that connection before the next read on it (the next request),
 * so that a reply written in several write()/writev() calls is one reply.
 * Which write was the last is known only later, so from a reply's first
 * write on, the detector holds the events back (copies, in order) until
 * the connection's next read, or until NET_OPS_HOLD_NS of trace time
 * passed without another write on it, or the trace ends
 * (corecap_net_ops_finish): the op's end then goes in just after its
 * last write, and the model sees every event in time order. Reads
 * before the first write belong to the same request. The thread that
 * read the request has the op in context until the reply, or until it
 * does socket I/O on another connection; a reply written by another
 * thread ends the op there, and the reader's time after its last event
 * is `other` (the model's rule for an op ended elsewhere). Writes with no
 * op open (pushed data, a reply's tail after the hold) start nothing and
 * are counted. A reply's event comes when its write returns, which can
 * be after the client's next request was read (the reply was on the wire
 * before the write call returned): a reply whose first write began before
 * the op's last read ended closes the op at that write without that
 * read, which begins the next op at its own end (counted as
 * late_replies). An op is typed by its request when the request's first
 * bytes say what it is: an XRootD request is named for its request id,
 * "kXR_read". Other ops are typed by the bytes read and written: "req
 * 24B resp 9B" (sizes from 1 KiB on rounded up to a power of two, so that
 * types stay few).
 *
 * XRootD's framing (xrd_frame.h), per connection and direction, from the
 * events' first bytes (`hdr`): while a connection's bytes parse as
 * XRootD frames, its request is the header read and dlen bytes of
 * payload, however many reads they take; a read that begins a new
 * request after the op's request was whole is the next request (the
 * reply's write event had not come yet: a late reply, found by framing
 * and not by time); and a reply ends at the end of its final response
 * (not kXR_oksofar), at once, without waiting for the next read or the
 * hold, which does not end a reply waiting for its final response
 * (unless NET_OPS_FINAL_HOLD_NS passed).
 * A handshake read again after it was answered (xrootd peeks at it with
 * MSG_PEEK, answers, then reads it) is no op of its own.
 * A connection whose bytes are not XRootD's (another protocol, a header
 * beyond the recorded bytes, a trace older than `hdr`) keeps the rule
 * above, and is read again from where that rule says a request or reply
 * begins.
 *
 * The events go, in time order, to one sink: the model, or an output
 * set with corecap_net_ops_out (the analysis pass, pass/pass.h, which
 * hands them to its consumers, the model among them; or an exporter).
 * The model, when given, still has its ops typed before their ends.
 *
 * Annotated op events (corecap_op) are dropped while detecting and
 * counted, so that the two methods never mix in one model.
 */
#ifndef CORECAP_NET_OPS_H
#define CORECAP_NET_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "model.h"
#include "xrd_frame.h"
#include "../util/u64map.h"

/* How long a reply's last write waits for another write before it is the last. */
#define NET_OPS_HOLD_NS (1000ull * 1000 * 1000)
/* How long a framed reply waits for its final response after a partial one. */
#define NET_OPS_FINAL_HOLD_NS (10 * NET_OPS_HOLD_NS)

/* An event held back until the replies before it are known to be complete. */
struct net_held {
	struct model_event ev;
	char comm[24], name[24]; /* ev's strings, copied */
	uint64_t *stack;	 /* ev's lock stack, copied */
	char type[64];		 /* an op end's type */
	int32_t fd;		 /* an op end's connection */
	bool tentative;		 /* an op end that a later write may move */
	bool dropped;		 /* an op end moved to a later write */
};

struct net_ops {
	struct model *m; /* whose ops are typed; the sink unless out is set */
	int32_t pid;	 /* the daemon's events only; -1: any */
	int (*out)(void *ctx, const struct model_event *ev);
	void *out_ctx;
	struct u64map conns;   /* fd -> index in conn[] */
	struct u64map threads; /* tid -> fd of the op it has in context, + 1 */
	struct net_conn {
		int32_t fd;
		uint64_t op_id; /* 0: no op open */
		int32_t reader; /* tid that read the request */
		uint64_t in_bytes;
		uint16_t req_id; /* the request's XRootD id (0: unknown) */
		uint16_t last_read_id;
		bool framed;	     /* the open op's request began an XRootD frame */
		bool req_whole;	     /* and all of it was read */
		bool await_final;    /* its reply had partial responses, not its final one */
		bool next_pending;   /* a framed read began the next request (next_*) */
		bool handshake_seen; /* the client's handshake was read */
		uint16_t next_req_id;
		uint64_t next_begin_ns, next_bytes;
		int32_t next_reader;
		struct xrd_frame rq, rs; /* the request and reply streams */
		uint32_t n_reads;	 /* reads of the open op's request */
		uint64_t last_read_end;	 /* ns */
		uint64_t last_read_bytes;
		int32_t last_reader;
		uint64_t out_bytes; /* the reply's, so far */
		uint32_t n_writes;  /* of the reply, so far (0: none yet) */
		uint64_t end_seq;   /* the reply's tentative op end in held[] */
	} * conn;
	size_t n_conn, cap_conn;
	uint64_t next_id;
	/* Held events: held[held_head..held_end), the first at sequence held_seq0 + held_head. */
	struct net_held *held;
	size_t held_head, held_end, held_cap;
	uint64_t held_seq0;
	size_t n_pending; /* connections whose reply's end is tentative */
	/* What the detector saw, for the report. */
	uint64_t net_reads, net_writes, ops_begun, ops_ended, writes_without_op, annotated_dropped,
		handoffs, late_replies;
	uint64_t reply_writes;	  /* writes that continued a reply (more than one per reply) */
	uint64_t replies_by_hold; /* replies ended because no write came within the hold */
	uint64_t held_max;	  /* the most events held back at once */
	/* XRootD's framing: ops whose request began a frame, replies ended by
	 * their final response, partial responses, frames lost (resyncs),
	 * replies left by a read before their final response. */
	uint64_t framed_ops, replies_by_frame, partial_responses, frames_lost, replies_cut;
	uint64_t handshake_rereads; /* a peeked handshake read again: no op of its own */
};

/* m may be NULL (then an output is set); pid -1: any process. */
void corecap_net_ops_init(struct net_ops *d, struct model *m, int32_t pid);
/* Every event goes to fn(ctx, ev) instead of the model. */
void corecap_net_ops_out(struct net_ops *d, int (*fn)(void *, const struct model_event *),
			 void *ctx);
void corecap_net_ops_release(struct net_ops *d);
/*
 * Passes ev (and the op events it implies) on, maybe later (held back
 * behind a reply not known to be complete); 0, -ENOMEM or the sink's
 * error.
 */
int corecap_net_ops_consume(struct net_ops *d, const struct model_event *ev);
/* The trace ended: the replies still open end at their last write; passes the rest on. */
int corecap_net_ops_finish(struct net_ops *d);
/*
 * The type name of an op whose request has XRootD id req_id (0: unknown)
 * and read in_bytes, and whose reply wrote out_bytes, into buf.
 */
void corecap_net_ops_type(char *buf, size_t len, uint16_t req_id, uint64_t in_bytes,
			  uint64_t out_bytes);

#endif
