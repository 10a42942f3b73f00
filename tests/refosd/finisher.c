/* finisher: see finisher.h. */
#include "finisher.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <corecap/annotate.h>

#include "burn.h"
#include "conn.h"
#include "log.h"
#include "messenger.h"
#include "op.h"
#include "protocol.h"

void finisher_init(struct finisher *f, struct log *lg)
{
	memset(f, 0, sizeof(*f));
	f->log = lg;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
}

/* Write the whole iovec array to fd. Returns 0 or a negative errno. */
static int finisher_writev_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* Send op's reply: one send(2) for a header alone, writev(2) for header and data. */
static int finisher_send_reply(struct op *op)
{
	struct proto_reply rep = {
		.op = op->type,
		.status = op->result,
		.tag = op->tag,
		.data_len = op->reply_len,
	};
	uint8_t hdr[PROTO_REPLY_HDR];
	struct iovec iov[2] = {
		{.iov_base = hdr, .iov_len = sizeof(hdr)},
		{.iov_base = op->reply_data, .iov_len = op->reply_len},
	};
	ssize_t n;

	proto_encode_reply_header(hdr, &rep);
	if (op->reply_len)
		return finisher_writev_all(op->conn->fd, iov, 2);
	do {
		n = send(op->conn->fd, hdr, sizeof(hdr), MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n < sizeof(hdr)) {
		iov[0].iov_base = hdr + n;
		iov[0].iov_len = sizeof(hdr) - (size_t)n;
		return finisher_writev_all(op->conn->fd, iov, 1);
	}
	return 0;
}

static void finisher_finish(struct finisher *f, struct op *op)
{
	uint64_t id = op->id;
	struct conn *c = op->conn;
	int r = 0;

	corecap_op_enter(id);
	if (log_enabled(f->log, 1)) {
		struct timespec now;
		double lat_s;

		clock_gettime(CLOCK_MONOTONIC, &now);
		lat_s = (double)(now.tv_sec - op->recv_stamp.tv_sec) +
			(double)(now.tv_nsec - op->recv_stamp.tv_nsec) / 1e9;
		corecap_log_enter();
		log_submitf(f->log, 1, "ms",
			    "-- 127.0.0.1:%u --> %s conn(%" PRIu64 ") -- osd_op_reply(%" PRIu64
			    " %s [%s 0~%u] v35'%" PRIu64 " uv%" PRIu64
			    " ondisk = %d) v8 -- lat %.6f",
			    c->port, c->peer, c->id, op->tag, op->name, proto_op_name(op->type),
			    op->type == PROTO_OP_WRITE ? op->data_len : op->reply_len, op->id,
			    op->id, (int)op->result, lat_s);
		log_submitf(f->log, 5, "osd",
			    "osd.0 op %" PRIu64 " finisher: reply for tag %" PRIu64
			    " to %s r=%d bytes=%u queued on finisher, %s",
			    op->id, op->tag, c->peer, (int)op->result,
			    PROTO_REPLY_HDR + op->reply_len,
			    conn_is_dead(c) ? "connection dead, dropping" : "sending");
		log_submitf(f->log, 20, "osd",
			    "finisher op %" PRIu64 " pg 1.%x conn(%" PRIu64
			    ") refs %d sent %" PRIu64 " dropped %" PRIu64 " recv_stamp %ld.%09ld",
			    op->id, op->pg, c->id, atomic_load(&c->refs), f->replies_sent,
			    f->replies_dropped, (long)op->recv_stamp.tv_sec,
			    op->recv_stamp.tv_nsec);
		corecap_log_exit();
	}
	burn_cpu_us(f->cpu_us);
	if (!conn_is_dead(c)) {
		if (op->flags & PROTO_FLAG_OP_ID)
			corecap_op_reply(id);
		r = finisher_send_reply(op);
		if (r < 0)
			conn_kill(c); /* its messenger worker sees the hang-up and closes it */
	}
	if (conn_is_dead(c) && r == 0)
		r = -ENOTCONN;
	if (r == 0)
		f->replies_sent++;
	else
		f->replies_dropped++;
	/* The exit goes with the end: after the end, an exit is ignored anyway. */
	corecap_op_end_exit(id, r < 0 ? r : op->result);
	op_free(op);
}

static void *finisher_main(void *arg)
{
	struct finisher *f = arg;
	struct op *batch, *next;
	bool stopping;

	pthread_setname_np(pthread_self(), "finisher");
	for (;;) {
		pthread_mutex_lock(&f->lock);
		while (!f->head && !f->stop)
			pthread_cond_wait(&f->cond, &f->lock);
		batch = f->head;
		f->head = f->tail = NULL;
		stopping = f->stop;
		pthread_mutex_unlock(&f->lock);
		if (!batch && stopping)
			break;
		for (; batch; batch = next) {
			next = batch->next;
			finisher_finish(f, batch);
		}
	}
	return NULL;
}

int finisher_start(struct finisher *f)
{
	int r = pthread_create(&f->thread, NULL, finisher_main, f);

	if (r)
		return -r;
	f->running = true;
	return 0;
}

void finisher_queue(struct finisher *f, struct op *op)
{
	op->next = NULL;
	pthread_mutex_lock(&f->lock);
	if (f->tail)
		f->tail->next = op;
	else
		f->head = op;
	f->tail = op;
	pthread_cond_signal(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

void finisher_stop(struct finisher *f)
{
	if (!f->running)
		return;
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_cond_signal(&f->cond);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	f->running = false;
}

void finisher_release(struct finisher *f)
{
	struct op *op = f->head, *next;

	for (; op; op = next) {
		next = op->next;
		op_free(op);
	}
	f->head = f->tail = NULL;
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cond);
}
