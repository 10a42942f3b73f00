/* net_ops: see net_ops.h. */
#include "net_ops.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_table.h"

/* corecap_io `call` values: read 0, write 1, fsync 2, send 3, recv 4. */
static bool is_in(uint8_t call)
{
	return call == CORECAP_IO_CALL_READ || call == CORECAP_IO_CALL_RECV;
}

static bool is_out(uint8_t call)
{
	return call == CORECAP_IO_CALL_WRITE || call == CORECAP_IO_CALL_SEND;
}

void corecap_net_ops_init(struct net_ops *d, struct model *m, int32_t pid)
{
	*d = (struct net_ops){.m = m, .pid = pid};
	corecap_u64map_init(&d->conns);
	corecap_u64map_init(&d->threads);
}

void corecap_net_ops_out(struct net_ops *d, int (*fn)(void *, const struct model_event *),
			 void *ctx)
{
	d->out = fn;
	d->out_ctx = ctx;
}

void corecap_net_ops_release(struct net_ops *d)
{
	corecap_u64map_release(&d->conns);
	corecap_u64map_release(&d->threads);
	for (size_t i = d->held_head; i < d->held_end; i++)
		free(d->held[i].stack);
	free(d->held);
	free(d->conn);
	*d = (struct net_ops){0};
}

static void size_label(char *buf, size_t len, uint64_t n)
{
	uint64_t p = 1024;

	if (n < 1024) {
		snprintf(buf, len, "%" PRIu64 "B", n);
		return;
	}
	while (p < n && p < (UINT64_C(1) << 62))
		p <<= 1;
	if (p >= (1u << 20))
		snprintf(buf, len, "<=%" PRIu64 "MiB", p >> 20);
	else
		snprintf(buf, len, "<=%" PRIu64 "KiB", p >> 10);
}

void corecap_net_ops_type(char *buf, size_t len, uint16_t req_id, uint64_t in_bytes,
			  uint64_t out_bytes)
{
	const char *name = req_id ? corecap_xrd_request_name(req_id) : NULL;
	char in[24], out[24];

	if (name) {
		snprintf(buf, len, req_id == XRD_FRAME_ID_HANDSHAKE ? "%s" : "kXR_%s", name);
		return;
	}
	size_label(in, sizeof(in), in_bytes);
	size_label(out, sizeof(out), out_bytes);
	snprintf(buf, len, "req %s resp %s", in, out);
}

static struct net_conn *conn_of(struct net_ops *d, int32_t fd)
{
	bool inserted;
	uint64_t *v = corecap_u64map_upsert(&d->conns, (uint64_t)(uint32_t)fd, &inserted);

	if (!v)
		return NULL;
	if (inserted) {
		if (d->n_conn == d->cap_conn) {
			size_t cap = d->cap_conn ? d->cap_conn * 2 : 64;
			struct net_conn *c = realloc(d->conn, cap * sizeof(*c));

			if (!c) {
				corecap_u64map_remove(&d->conns, (uint64_t)(uint32_t)fd);
				return NULL;
			}
			d->conn = c;
			d->cap_conn = cap;
		}
		d->conn[d->n_conn] = (struct net_conn){.fd = fd};
		corecap_xrd_frame_init(&d->conn[d->n_conn].rq, true);
		corecap_xrd_frame_init(&d->conn[d->n_conn].rs, false);
		*v = d->n_conn++;
	}
	return &d->conn[*v];
}

/* One event to the sink (an op end typed first). */
static int pass(struct net_ops *d, const struct model_event *ev, const struct net_held *h)
{
	if (h && ev->kind == MEV_OP_END && d->m) {
		struct model_op *op = corecap_op_table_find(&d->m->ops, ev->op.id);

		if (op && corecap_op_table_set_type(&d->m->ops, op, h->type))
			return -ENOMEM;
	}
	if (d->out)
		return d->out(d->out_ctx, ev);
	return d->m ? corecap_model_consume(d->m, ev) : 0;
}

static void copy_str(char *to, size_t size, const char **s)
{
	if (!*s)
		return;
	snprintf(to, size, "%s", *s);
	*s = to;
}

/* Appends a copy of ev to the held events; NULL on -ENOMEM. */
static struct net_held *hold(struct net_ops *d, const struct model_event *ev)
{
	struct net_held *h;

	if (d->held_end == d->held_cap) {
		if (d->held_head) {
			memmove(d->held, d->held + d->held_head,
				(d->held_end - d->held_head) * sizeof(*d->held));
			d->held_seq0 += d->held_head;
			d->held_end -= d->held_head;
			d->held_head = 0;
		} else {
			size_t cap = d->held_cap ? d->held_cap * 2 : 256;
			struct net_held *v = realloc(d->held, cap * sizeof(*v));

			if (!v)
				return NULL;
			d->held = v;
			d->held_cap = cap;
		}
		/* The copies' strings point into their own entries, which moved. */
		for (size_t i = d->held_head; i < d->held_end; i++) {
			struct net_held *e = &d->held[i];

			if (e->ev.comm)
				e->ev.comm = e->comm;
			if (e->ev.kind == MEV_THREAD_NAME && e->ev.thread.name)
				e->ev.thread.name = e->name;
			if (e->ev.kind == MEV_OP_END)
				e->ev.op.str = e->type;
		}
	}
	h = &d->held[d->held_end++];
	*h = (struct net_held){.ev = *ev, .fd = -1};
	copy_str(h->comm, sizeof(h->comm), &h->ev.comm);
	if (ev->kind == MEV_THREAD_NAME)
		copy_str(h->name, sizeof(h->name), &h->ev.thread.name);
	if (corecap_model_event_has_stack(ev)) {
		h->stack = malloc(ev->lock.depth * sizeof(*h->stack));
		if (!h->stack) {
			d->held_end--;
			return NULL;
		}
		memcpy(h->stack, ev->lock.stack, ev->lock.depth * sizeof(*h->stack));
		h->ev.lock.stack = h->stack;
	}
	if (ev->kind == MEV_OP_END)
		h->ev.op.str = h->type;
	if (d->held_end - d->held_head > d->held_max)
		d->held_max = d->held_end - d->held_head;
	return h;
}

static struct net_held *held_at(struct net_ops *d, uint64_t seq)
{
	return seq >= d->held_seq0 + d->held_head && seq < d->held_seq0 + d->held_end
		       ? &d->held[seq - d->held_seq0]
		       : NULL;
}

/* An event on, now or after the held ones. */
static int out(struct net_ops *d, const struct model_event *ev)
{
	if (d->held_end == d->held_head)
		return pass(d, ev, NULL);
	return hold(d, ev) ? 0 : -ENOMEM;
}

/* Passes the held events on up to the first tentative op end. */
static int flush(struct net_ops *d)
{
	int ret;

	while (d->held_head < d->held_end && !d->held[d->held_head].tentative) {
		struct net_held *h = &d->held[d->held_head++];

		ret = h->dropped ? 0 : pass(d, &h->ev, h);
		free(h->stack);
		h->stack = NULL;
		if (ret)
			return ret;
	}
	if (d->held_head == d->held_end) {
		d->held_seq0 += d->held_end;
		d->held_head = d->held_end = 0;
	}
	return 0;
}

/* An op event of the detector's own, on behalf of ev's thread at ev's time. */
static int emit(struct net_ops *d, const struct model_event *ev, enum model_event_kind kind,
		uint64_t id, const char *str, uint64_t bytes)
{
	struct model_event o = {
		.kind = kind, .ts_ns = ev->ts_ns, .tid = ev->tid, .pid = ev->pid, .comm = ev->comm};

	o.op.id = id;
	o.op.str = str;
	o.op.bytes = bytes;
	return out(d, &o);
}

/* c's reply is complete: its op ends at its last write (held, in place). */
static void reply_done(struct net_ops *d, struct net_conn *c)
{
	struct net_held *h = held_at(d, c->end_seq);

	if (h) {
		h->tentative = false;
		corecap_net_ops_type(h->type, sizeof(h->type), c->req_id, c->in_bytes,
				     c->out_bytes);
	}
	d->n_pending--;
	d->ops_ended++;
	c->op_id = 0;
	c->reader = -1;
	c->n_writes = 0;
	c->await_final = false;
}

static struct net_conn *conn_at(struct net_ops *d, int32_t fd)
{
	uint64_t *ci = corecap_u64map_find(&d->conns, (uint64_t)(uint32_t)fd);

	return ci ? &d->conn[*ci] : NULL;
}

/*
 * The thread leaves the detected op it has in context on another
 * connection (it went on to serve someone else), if that op is still open
 * and its reply not begun (a reply's op end takes it out of context).
 */
static int leave_other(struct net_ops *d, const struct model_event *ev, int32_t fd)
{
	uint64_t *v = corecap_u64map_find(&d->threads, (uint64_t)(uint32_t)ev->tid);
	struct net_conn *c;
	int32_t other;

	if (!v || !*v)
		return 0;
	other = (int32_t)(*v - 1);
	*v = 0;
	if (other == fd || !(c = conn_at(d, other)))
		return 0;
	if (!c->op_id || c->reader != ev->tid || c->n_writes)
		return 0;
	c->reader = -1;
	return emit(d, ev, MEV_OP_EXIT, c->op_id, NULL, 0);
}

static int set_ctx(struct net_ops *d, int32_t tid, int32_t fd)
{
	bool inserted;
	uint64_t *v = corecap_u64map_upsert(&d->threads, (uint64_t)(uint32_t)tid, &inserted);

	if (!v)
		return -ENOMEM;
	*v = (uint64_t)(uint32_t)fd + 1;
	return 0;
}

/*
 * The XRootD request id of a request read without framing: bytes 2-3 of
 * a read of 24 bytes or more, in XRootD's range (traces older than `hdr`).
 */
static uint16_t unframed_id(const struct model_event *ev)
{
	uint16_t id;

	if (ev->io.hdr_len < 4 || ev->io.bytes < XRD_FRAME_REQ_HDR)
		return 0;
	id = (uint16_t)(ev->io.hdr[2] << 8 | ev->io.hdr[3]);
	return id >= XRD_FRAME_ID_MIN && id <= XRD_FRAME_ID_MAX ? id : 0;
}

/* Feeds a call's bytes to a stream, read again from here if starts and lost. */
static void feed(struct net_ops *d, struct xrd_frame *f, const struct model_event *ev, bool starts,
		 struct xrd_frame_step *st)
{
	bool was_lost = f->lost;

	if (starts && f->lost)
		corecap_xrd_frame_resync(f);
	corecap_xrd_frame_feed(f, ev->io.hdr, ev->io.hdr_len, (uint64_t)ev->io.bytes, st);
	if (st->lost && !was_lost)
		d->frames_lost++;
}

static int on_read(struct net_ops *d, const struct model_event *ev)
{
	struct net_conn *c = conn_of(d, ev->io.fd);
	struct xrd_frame_step st;
	bool framed, whole_before;
	uint16_t id;
	int ret;

	if (!c)
		return -ENOMEM;
	d->net_reads++;
	whole_before = c->op_id && c->framed && c->req_whole;
	feed(d, &c->rq, ev, !c->op_id || c->n_writes, &st);
	framed = st.at_boundary && st.headers && !st.lost;
	id = framed ? st.first_id : unframed_id(ev);
	if (framed && id == XRD_FRAME_ID_HANDSHAKE) {
		/* A client sends one: a second is the first read again (xrootd
		 * peeks at it with MSG_PEEK, answers it, then reads it). */
		if (c->handshake_seen && !c->op_id) {
			d->handshake_rereads++;
			return 0;
		}
		c->handshake_seen = true;
	}
	if (c->op_id && c->n_writes) {
		if (c->await_final)
			d->replies_cut++;
		reply_done(d, c); /* the next request: the reply before it is complete */
	}
	if ((ret = leave_other(d, ev, ev->io.fd)))
		return ret;
	c->last_read_end = ev->ts_ns;
	c->last_read_bytes = (uint64_t)ev->io.bytes;
	c->last_read_id = id;
	c->last_reader = ev->tid;
	if (c->op_id) {
		/* More of the same request, or (framed) the next one's first bytes. */
		c->n_reads++;
		c->in_bytes += (uint64_t)ev->io.bytes;
		if (c->next_pending) {
			c->next_bytes += (uint64_t)ev->io.bytes;
		} else if (whole_before && framed) {
			c->next_pending = true;
			c->next_req_id = id;
			c->next_begin_ns = ev->ts_ns;
			c->next_bytes = (uint64_t)ev->io.bytes;
			c->next_reader = ev->tid;
		}
		if (!c->next_pending)
			c->req_whole = c->framed && corecap_xrd_frame_at_boundary(&c->rq);
		if (c->reader != ev->tid) {
			c->reader = ev->tid;
			d->handoffs++;
			if ((ret = emit(d, ev, MEV_OP_ENTER, c->op_id, NULL, 0)))
				return ret;
		}
		return set_ctx(d, ev->tid, ev->io.fd);
	}
	c->op_id = ++d->next_id;
	c->reader = ev->tid;
	c->in_bytes = (uint64_t)ev->io.bytes;
	c->req_id = id;
	c->framed = framed;
	c->req_whole = framed && corecap_xrd_frame_at_boundary(&c->rq);
	c->next_pending = false;
	c->n_reads = 1;
	c->out_bytes = 0;
	c->n_writes = 0;
	d->ops_begun++;
	d->framed_ops += framed;
	if ((ret = emit(d, ev, MEV_OP_BEGIN, c->op_id, "net", c->in_bytes)) ||
	    (ret = emit(d, ev, MEV_OP_ENTER, c->op_id, NULL, 0)))
		return ret;
	return set_ctx(d, ev->tid, ev->io.fd);
}

/* The reply's op end, tentative until the reply is known to be complete. */
static int end_after(struct net_ops *d, struct net_conn *c, const struct model_event *ev)
{
	struct model_event e = {
		.kind = MEV_OP_END, .ts_ns = ev->ts_ns, .tid = ev->tid, .pid = ev->pid};
	struct net_held *h;

	e.op.id = c->op_id;
	if (!(h = hold(d, &e)))
		return -ENOMEM;
	h->tentative = true;
	h->fd = c->fd;
	c->end_seq = d->held_seq0 + d->held_end - 1;
	return 0;
}

/*
 * A framed reply's bytes: whether they ended its final response (the
 * reply is complete); a partial response leaves the op waiting for it.
 */
static bool reply_framed_end(struct net_ops *d, struct net_conn *c, const struct model_event *ev,
			     bool starts)
{
	struct xrd_frame_step st;

	feed(d, &c->rs, ev, starts, &st);
	if (st.lost || !c->framed)
		return false;
	d->partial_responses += st.partials;
	if (st.finals && corecap_xrd_frame_at_boundary(&c->rs)) {
		d->replies_by_frame++;
		return true;
	}
	if (st.partials)
		c->await_final = true;
	return false;
}

static int on_write(struct net_ops *d, const struct model_event *ev)
{
	struct net_conn *c = conn_at(d, ev->io.fd);
	struct net_held *prev;
	struct model_event next;
	uint64_t start;
	bool late, done;
	int ret;

	d->net_writes++;
	if (!c || !c->op_id) {
		struct xrd_frame_step st;

		d->writes_without_op++;
		if (c)
			feed(d, &c->rs, ev, false, &st); /* a reply's tail, or the server's own */
		return 0;
	}
	if (c->n_writes) {
		/* More of the reply: its end moves to this write. */
		if ((prev = held_at(d, c->end_seq))) {
			prev->dropped = true;
			prev->tentative = false;
		}
		d->reply_writes++;
		c->n_writes++;
		c->out_bytes += (uint64_t)ev->io.bytes;
		done = reply_framed_end(d, c, ev, false);
		if ((ret = end_after(d, c, ev)))
			return ret;
		if (done)
			reply_done(d, c);
		return 0;
	}
	start = ev->io.dur_ns < ev->ts_ns ? ev->ts_ns - ev->io.dur_ns : 0;
	/* The last read was the next request: framed, it began a frame after
	 * the request was whole; else it ended after this write began. */
	late = c->framed ? c->next_pending : c->n_reads > 1 && c->last_read_end > start;
	if (c->reader != ev->tid)
		d->handoffs++;
	c->n_writes = 1;
	c->out_bytes = (uint64_t)ev->io.bytes;
	d->n_pending++;
	done = reply_framed_end(d, c, ev, true);
	if (late)
		c->in_bytes -= c->framed ? c->next_bytes : c->last_read_bytes;
	if ((ret = end_after(d, c, ev)))
		return ret;
	if (!late) {
		if (done)
			reply_done(d, c);
		return 0;
	}
	/*
	 * The next op began when its first read ended; no thread has it in
	 * context (its reader went on). This reply is complete.
	 */
	reply_done(d, c);
	d->late_replies++;
	d->ops_begun++;
	c->op_id = ++d->next_id;
	if (c->framed) {
		c->in_bytes = c->next_bytes;
		c->req_id = c->next_req_id;
		c->req_whole = corecap_xrd_frame_at_boundary(&c->rq);
		next = (struct model_event){.kind = MEV_OP_BEGIN,
					    .ts_ns = c->next_begin_ns,
					    .tid = c->next_reader,
					    .pid = ev->pid};
		d->framed_ops++;
	} else {
		c->in_bytes = c->last_read_bytes;
		c->req_id = c->last_read_id;
		next = (struct model_event){.kind = MEV_OP_BEGIN,
					    .ts_ns = c->last_read_end,
					    .tid = c->last_reader,
					    .pid = ev->pid};
	}
	c->next_pending = false;
	c->n_reads = 1;
	c->reader = -1;
	next.op.id = c->op_id;
	next.op.str = "net";
	next.op.bytes = c->in_bytes;
	return out(d, &next);
}

/* Replies with no write for NET_OPS_HOLD_NS before now are complete (the
 * held events are in time order: the scan stops at the first too recent). */
static void expire(struct net_ops *d, uint64_t now)
{
	for (size_t i = d->held_head; i < d->held_end; i++) {
		struct net_held *h = &d->held[i];
		struct net_conn *c;

		if (h->ev.ts_ns + NET_OPS_HOLD_NS > now)
			return;
		if (!h->tentative)
			continue;
		c = conn_at(d, h->fd);
		if (c && c->await_final && h->ev.ts_ns + NET_OPS_FINAL_HOLD_NS > now)
			return; /* a framed reply waits for its final response */
		if (c && c->op_id && c->n_writes && c->end_seq == d->held_seq0 + i) {
			d->replies_by_hold++;
			reply_done(d, c);
		} else {
			h->tentative = false; /* cannot happen: left out, to be safe */
			h->dropped = true;
		}
	}
}

int corecap_net_ops_consume(struct net_ops *d, const struct model_event *ev)
{
	bool ours = ev->tid >= 0 && (d->pid < 0 || ev->pid < 0 || ev->pid == d->pid);
	int ret;

	if (d->n_pending)
		expire(d, ev->ts_ns);
	switch (ev->kind) {
	case MEV_OP_BEGIN:
	case MEV_OP_PHASE:
	case MEV_OP_END:
	case MEV_OP_ENTER:
	case MEV_OP_EXIT:
		if (ours)
			d->annotated_dropped++;
		/* Counted by the model as an event, used for nothing. */
		ret = out(d, &(struct model_event){
				     .kind = MEV__COUNT,
				     .ts_ns = ev->ts_ns,
				     .tid = ev->tid,
				     .pid = ev->pid,
				     .comm = ev->comm,
			     });
		break;
	case MEV_IO:
		/* The I/O itself first: the op begins at the read's end, and the
		 * reply's write is part of the op it ends. */
		ret = out(d, ev);
		if (ret || !ours || ev->io.io_class != CORECAP_IO_NET || ev->io.bytes <= 0)
			break;
		if (is_in(ev->io.call))
			ret = on_read(d, ev);
		else if (is_out(ev->io.call))
			ret = on_write(d, ev);
		break;
	default:
		ret = out(d, ev);
		break;
	}
	return ret ? ret : flush(d);
}

int corecap_net_ops_finish(struct net_ops *d)
{
	for (size_t i = 0; i < d->n_conn; i++)
		if (d->conn[i].op_id && d->conn[i].n_writes)
			reply_done(d, &d->conn[i]);
	return flush(d);
}
