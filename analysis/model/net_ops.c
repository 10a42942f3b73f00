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

void corecap_net_ops_init(struct net_ops *d, struct model *m)
{
	*d = (struct net_ops){.m = m};
	corecap_u64map_init(&d->conns);
	corecap_u64map_init(&d->threads);
}

void corecap_net_ops_release(struct net_ops *d)
{
	corecap_u64map_release(&d->conns);
	corecap_u64map_release(&d->threads);
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

/* XRootD's request ids 3000..3032 (XProtocol.hh, XRequestTypes), by id - 3000. */
static const char *const xrd_requests[] = {
	"auth",	    "query",  "chmod",	 "close",  "dirlist", "gpfile",	  "protocol",
	"login",    "mkdir",  "mv",	 "open",   "ping",    "chkpoint", "read",
	"rm",	    "rmdir",  "sync",	 "stat",   "set",     "write",	  "fattr",
	"prepare",  "statx",  "endsess", "bind",   "readv",   "pgwrite",  "locate",
	"truncate", "sigver", "pgread",	 "writev", "clone",
};

void corecap_net_ops_type(char *buf, size_t len, uint32_t head, uint64_t in_bytes,
			  uint64_t out_bytes)
{
	char in[24], out[24];
	uint32_t id = head & 0xffff;

	if (in_bytes >= 24 && id >= 3000 &&
	    id - 3000 < sizeof(xrd_requests) / sizeof(xrd_requests[0])) {
		snprintf(buf, len, "kXR_%s", xrd_requests[id - 3000]);
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
		*v = d->n_conn++;
	}
	return &d->conn[*v];
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
	return corecap_model_consume(d->m, &o);
}

/*
 * The thread leaves the detected op it has in context on another
 * connection (it went on to serve someone else), if that op is still open.
 */
static int leave_other(struct net_ops *d, const struct model_event *ev, int32_t fd)
{
	uint64_t *v = corecap_u64map_find(&d->threads, (uint64_t)(uint32_t)ev->tid);
	struct net_conn *c;
	int32_t other;
	uint64_t *ci;

	if (!v || !*v)
		return 0;
	other = (int32_t)(*v - 1);
	*v = 0;
	if (other == fd || !(ci = corecap_u64map_find(&d->conns, (uint64_t)(uint32_t)other)))
		return 0;
	c = &d->conn[*ci];
	if (!c->op_id || c->reader != ev->tid)
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

static int on_read(struct net_ops *d, const struct model_event *ev)
{
	struct net_conn *c = conn_of(d, ev->io.fd);
	int ret;

	if (!c)
		return -ENOMEM;
	d->net_reads++;
	if ((ret = leave_other(d, ev, ev->io.fd)))
		return ret;
	c->last_read_end = ev->ts_ns;
	c->last_read_bytes = (uint64_t)ev->io.bytes;
	c->last_read_head = ev->io.head;
	c->last_reader = ev->tid;
	if (c->op_id) {
		/* More of the same request. */
		c->n_reads++;
		c->in_bytes += (uint64_t)ev->io.bytes;
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
	c->head = ev->io.head;
	c->n_reads = 1;
	d->ops_begun++;
	if ((ret = emit(d, ev, MEV_OP_BEGIN, c->op_id, "net", c->in_bytes)) ||
	    (ret = emit(d, ev, MEV_OP_ENTER, c->op_id, NULL, 0)))
		return ret;
	return set_ctx(d, ev->tid, ev->io.fd);
}

static int on_write(struct net_ops *d, const struct model_event *ev)
{
	uint64_t *ci = corecap_u64map_find(&d->conns, (uint64_t)(uint32_t)ev->io.fd);
	struct net_conn *c = ci ? &d->conn[*ci] : NULL;
	struct model_op *op;
	struct model_event next;
	uint64_t start;
	char type[64];
	bool late;
	int ret;

	d->net_writes++;
	if (!c || !c->op_id) {
		d->writes_without_op++;
		return 0;
	}
	op = corecap_op_table_find(&d->m->ops, c->op_id);
	start = ev->io.dur_ns < ev->ts_ns ? ev->ts_ns - ev->io.dur_ns : 0;
	late = c->n_reads > 1 && c->last_read_end > start;
	if (c->reader != ev->tid)
		d->handoffs++;
	d->ops_ended++;
	c->op_id = 0;
	c->reader = -1;
	if (late)
		c->in_bytes -= c->last_read_bytes;
	if (op) {
		corecap_net_ops_type(type, sizeof(type), c->head, c->in_bytes,
				     (uint64_t)ev->io.bytes);
		if (corecap_op_table_set_type(&d->m->ops, op, type))
			return -ENOMEM;
	}
	ret = emit(d, ev, MEV_OP_END, op ? op->id : 0, NULL, 0);
	if (ret || !late)
		return ret;
	/*
	 * The last read was the next request: its op began when that read
	 * ended, and no thread has it in context (its reader went on).
	 */
	d->late_replies++;
	d->ops_begun++;
	c->op_id = ++d->next_id;
	c->in_bytes = c->last_read_bytes;
	c->head = c->last_read_head;
	c->n_reads = 1;
	c->reader = -1;
	next = (struct model_event){.kind = MEV_OP_BEGIN,
				    .ts_ns = c->last_read_end,
				    .tid = c->last_reader,
				    .pid = ev->pid};
	next.op.id = c->op_id;
	next.op.str = "net";
	next.op.bytes = c->in_bytes;
	return corecap_model_consume(d->m, &next);
}

int corecap_net_ops_consume(struct net_ops *d, const struct model_event *ev)
{
	const struct model_config *cfg = &d->m->cfg;
	bool ours = ev->tid >= 0 && (cfg->pid < 0 || ev->pid < 0 || ev->pid == cfg->pid);
	int ret;

	switch (ev->kind) {
	case MEV_OP_BEGIN:
	case MEV_OP_PHASE:
	case MEV_OP_END:
	case MEV_OP_ENTER:
	case MEV_OP_EXIT:
		if (ours)
			d->annotated_dropped++;
		/* Counted by the model as an event, used for nothing. */
		return corecap_model_consume(d->m, &(struct model_event){
							   .kind = MEV__COUNT,
							   .ts_ns = ev->ts_ns,
							   .tid = ev->tid,
							   .pid = ev->pid,
							   .comm = ev->comm,
						   });
	case MEV_IO:
		/* The I/O itself first: the op begins at the read's end, and the
		 * reply's write is part of the op it ends. */
		if (!ours || ev->io.io_class != CORECAP_IO_NET || ev->io.bytes <= 0)
			return corecap_model_consume(d->m, ev);
		if (is_in(ev->io.call)) {
			if ((ret = corecap_model_consume(d->m, ev)))
				return ret;
			return on_read(d, ev);
		}
		if (is_out(ev->io.call)) {
			if ((ret = corecap_model_consume(d->m, ev)))
				return ret;
			return on_write(d, ev);
		}
		return corecap_model_consume(d->m, ev);
	default:
		return corecap_model_consume(d->m, ev);
	}
}
