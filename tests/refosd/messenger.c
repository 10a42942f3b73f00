/* messenger: see messenger.h. */
#include "messenger.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <corecap/annotate.h>

#include "burn.h"
#include "hash.h"
#include "log.h"
#include "op.h"
#include "protocol.h"
#include "shards.h"

#define MSGR_RBUF_INITIAL    (64u << 10)
#define MSGR_EVENTS	     64
#define MSGR_SNDTIMEO_S	     10
#define MSGR_READS_PER_EVENT 16

/* The op_id source: one counter for the process, so ids are unique among ops in flight. */
static atomic_uint_fast64_t messenger_next_op_id;

/* Marks the listening socket in worker 0's epoll set. */
static char messenger_listen_tag;

int messenger_init(struct messenger *m, unsigned nthreads, struct shards *shards, unsigned pgs,
		   struct log *lg)
{
	int r = 0;

	memset(m, 0, sizeof(*m));
	m->log = lg;
	m->shards = shards;
	m->pgs = pgs;
	m->listen_fd = -1;
	m->nworkers = nthreads;
	pthread_mutex_init(&m->conns_lock, NULL);
	m->workers = calloc(nthreads, sizeof(*m->workers));
	if (!m->workers)
		return -ENOMEM;
	for (unsigned i = 0; i < nthreads; i++) {
		struct messenger_worker *w = &m->workers[i];

		w->msgr = m;
		w->index = i;
		w->epfd = -1;
		w->wakefd = -1;
	}
	for (unsigned i = 0; i < nthreads; i++) {
		struct messenger_worker *w = &m->workers[i];
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = w};

		w->epfd = epoll_create1(EPOLL_CLOEXEC);
		w->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (w->epfd < 0 || w->wakefd < 0 ||
		    epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->wakefd, &ev) < 0) {
			r = -errno;
			break;
		}
	}
	return r;
}

int messenger_bind(struct messenger *m, unsigned port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	socklen_t salen = sizeof(sa);
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &messenger_listen_tag};
	int one = 1, r = 0;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	m->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (m->listen_fd < 0)
		return -errno;
	setsockopt(m->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(m->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(m->listen_fd, 128) < 0 ||
	    getsockname(m->listen_fd, (struct sockaddr *)&sa, &salen) < 0 ||
	    epoll_ctl(m->workers[0].epfd, EPOLL_CTL_ADD, m->listen_fd, &ev) < 0) {
		r = -errno;
		goto out_close;
	}
	m->port = ntohs(sa.sin_port);
	goto out;

out_close:
	close(m->listen_fd);
	m->listen_fd = -1;
out:
	return r;
}

/* Unlink c from the list, close it for its worker, drop the messenger's reference. */
static void messenger_close_conn(struct messenger_worker *w, struct conn *c, const char *why)
{
	struct messenger *m = w->msgr;

	epoll_ctl(w->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	conn_kill(c);
	pthread_mutex_lock(&m->conns_lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		m->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&m->conns_lock);
	if (why && log_enabled(m->log, 1)) {
		corecap_log_enter();
		log_submitf(m->log, 1, "ms", "-- 127.0.0.1:%u >> %s conn(%" PRIu64 ") closed: %s",
			    c->port, c->peer, c->id, why);
		corecap_log_exit();
	}
	conn_put(c);
}

static void messenger_accept(struct messenger_worker *w)
{
	struct messenger *m = w->msgr;

	for (;;) {
		struct sockaddr_in sa;
		socklen_t salen = sizeof(sa);
		struct timeval tv = {.tv_sec = MSGR_SNDTIMEO_S};
		struct messenger_worker *owner;
		struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP};
		struct conn *c;
		char addr[INET_ADDRSTRLEN] = "?";
		int one = 1;
		int fd = accept4(m->listen_fd, (struct sockaddr *)&sa, &salen, SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				fprintf(stderr, "refosd: cannot accept a connection: %s\n",
					strerror(errno));
			return;
		}
		/*
		 * A blocking socket: reads use MSG_DONTWAIT, the finisher's sends
		 * block, for SO_SNDTIMEO at most.
		 */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		c = calloc(1, sizeof(*c));
		if (c)
			c->rbuf = malloc(MSGR_RBUF_INITIAL);
		if (!c || !c->rbuf) {
			fprintf(stderr, "refosd: cannot accept a connection: %s\n",
				strerror(ENOMEM));
			if (c)
				free(c);
			close(fd);
			continue;
		}
		inet_ntop(AF_INET, &sa.sin_addr, addr, sizeof(addr));
		snprintf(c->peer, sizeof(c->peer), "%s:%u", addr, ntohs(sa.sin_port));
		c->fd = fd;
		c->port = m->port;
		c->rcap = MSGR_RBUF_INITIAL;
		atomic_init(&c->refs, 1);
		atomic_init(&c->dead, false);
		owner = &m->workers[atomic_fetch_add(&m->next_worker, 1) % m->nworkers];
		pthread_mutex_lock(&m->conns_lock);
		c->id = ++m->next_conn_id;
		c->next = m->conns;
		if (m->conns)
			m->conns->prev = c;
		m->conns = c;
		pthread_mutex_unlock(&m->conns_lock);
		if (log_enabled(m->log, 1)) {
			corecap_log_enter();
			log_submitf(m->log, 1, "ms",
				    "-- 127.0.0.1:%u >> %s conn(%" PRIu64
				    ") accepted by msgr-worker-%u",
				    m->port, c->peer, c->id, owner->index);
			corecap_log_exit();
		}
		ev.data.ptr = c;
		if (epoll_ctl(owner->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			fprintf(stderr, "refosd: cannot watch connection %s: %s\n", c->peer,
				strerror(errno));
			messenger_close_conn(owner, c, NULL);
		}
	}
}

/* Turn one decoded frame into an op and queue it on its shard. */
static int messenger_dispatch(struct messenger_worker *w, struct conn *c,
			      const struct proto_request *req)
{
	struct messenger *m = w->msgr;
	uint64_t id = atomic_fetch_add(&messenger_next_op_id, 1) + 1;
	uint32_t pg = (uint32_t)(hash_name(req->name, req->name_len) % m->pgs);
	struct op *op;

	corecap_op_begin_enter(id, proto_op_name(req->op), req->data_len);
	if (req->flags & PROTO_FLAG_OP_ID)
		corecap_op_client(id, req->tag);
	op = op_new(req, c, id, pg);
	if (!op) {
		corecap_op_end_exit(id, -ENOMEM);
		return -ENOMEM;
	}
	if (log_enabled(m->log, 5)) {
		corecap_log_enter();
		log_submitf(
			m->log, 5, "ms",
			"-- 127.0.0.1:%u <== client %s conn(%" PRIu64 ") %" PRIu64
			" ==== osd_op(client.%" PRIu64 ".0:%" PRIu64
			" 1.%x %s [%s 0~%u] snapc 0=[] ondisk+%s e35) v8 ==== %u+0+%u (crc 0 0 0)",
			m->port, c->peer, c->id, id, c->id, req->tag, pg, op->name,
			proto_op_name(req->op), req->data_len,
			req->op == PROTO_OP_WRITE ? "write" : "read",
			PROTO_REQUEST_HDR + req->name_len, req->data_len);
		log_submitf(m->log, 10, "ms",
			    "msgr-worker-%u conn(%" PRIu64 " %s) handle_message op %" PRIu64
			    " tag %" PRIu64
			    " front=%u data=%u rbuf %zu/%zu fast dispatch to pg 1.%x shard %u",
			    w->index, c->id, c->peer, id, req->tag,
			    PROTO_REQUEST_HDR + req->name_len, req->data_len, c->rlen, c->rcap, pg,
			    pg % m->shards->nshards);
		log_submitf(m->log, 20, "ms",
			    "msgr-worker-%u conn(%" PRIu64
			    ") read_until state=READ_FOOTER_AND_DISPATCH op %" PRIu64
			    " name_len %u data_len %u queued_at %ld.%09ld",
			    w->index, c->id, id, req->name_len, req->data_len,
			    (long)op->recv_stamp.tv_sec, op->recv_stamp.tv_nsec);
		corecap_log_exit();
	}
	burn_cpu_us(m->cpu_us);
	corecap_op_phase(id, "queued");
	shards_queue(m->shards, op);
	corecap_op_exit(id);
	return 0;
}

/* Decode every whole frame in c's buffer. Returns 0, or a decode error: the caller closes c. */
static int messenger_parse(struct messenger_worker *w, struct conn *c)
{
	size_t off = 0, need = 0;
	int r = 0;

	while (off < c->rlen) {
		struct proto_request req;

		r = proto_decode_request(c->rbuf + off, c->rlen - off, &req, &need);
		if (r == -EAGAIN) {
			r = 0;
			break;
		}
		if (r < 0)
			break;
		r = messenger_dispatch(w, c, &req);
		if (r < 0)
			break;
		off += need;
	}
	if (r == 0 && off) {
		memmove(c->rbuf, c->rbuf + off, c->rlen - off);
		c->rlen -= off;
	}
	if (r == 0 && need > c->rcap) {
		uint8_t *nb = realloc(c->rbuf, need);

		if (!nb)
			return -ENOMEM;
		c->rbuf = nb;
		c->rcap = need;
	}
	return r;
}

/*
 * Read and decode what c has, MSGR_READS_PER_EVENT reads at most: epoll is
 * level-triggered, so a client that keeps sending comes back in the next
 * round instead of starving the worker's other connections.
 */
static void messenger_readable(struct messenger_worker *w, struct conn *c)
{
	char why[128];

	for (int reads = 0; reads < MSGR_READS_PER_EVENT; reads++) {
		ssize_t n = recv(c->fd, c->rbuf + c->rlen, c->rcap - c->rlen, MSG_DONTWAIT);
		int r;

		if (n > 0) {
			c->rlen += (size_t)n;
			r = messenger_parse(w, c);
			if (r < 0) {
				atomic_fetch_add(&w->msgr->frames_refused, 1);
				fprintf(stderr, "refosd: closing connection %s: %s\n", c->peer,
					proto_strerror(r));
				snprintf(why, sizeof(why), "malformed frame: %s",
					 proto_strerror(r));
				messenger_close_conn(w, c, why);
				return;
			}
			continue;
		}
		if (n == 0) {
			messenger_close_conn(w, c, "closed by the client");
			return;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return;
		snprintf(why, sizeof(why), "read error: %s", strerror(errno));
		messenger_close_conn(w, c, why);
		return;
	}
}

static void *messenger_worker_main(void *arg)
{
	struct messenger_worker *w = arg;
	struct messenger *m = w->msgr;
	struct epoll_event evs[MSGR_EVENTS];
	char name[16];

	snprintf(name, sizeof(name), "msgr-worker-%u", w->index);
	pthread_setname_np(pthread_self(), name);
	while (!atomic_load(&m->stop)) {
		int n = epoll_wait(w->epfd, evs, MSGR_EVENTS, -1);

		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "refosd: msgr-worker-%u: epoll_wait: %s\n", w->index,
				strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;

			if (p == w)
				continue; /* woken by messenger_stop() */
			if (p == &messenger_listen_tag)
				messenger_accept(w);
			else
				messenger_readable(w, p);
		}
	}
	return NULL;
}

int messenger_start(struct messenger *m)
{
	int r = 0;

	for (unsigned i = 0; i < m->nworkers; i++) {
		r = -pthread_create(&m->workers[i].thread, NULL, messenger_worker_main,
				    &m->workers[i]);
		if (r < 0)
			break;
		m->workers[i].started = true;
	}
	if (r < 0)
		messenger_stop(m);
	return r;
}

void messenger_stop(struct messenger *m)
{
	uint64_t one = 1;

	atomic_store(&m->stop, true);
	for (unsigned i = 0; i < m->nworkers; i++) {
		if (m->workers[i].wakefd >= 0 && write(m->workers[i].wakefd, &one, sizeof(one)) < 0)
			fprintf(stderr, "refosd: cannot wake msgr-worker-%u: %s\n", i,
				strerror(errno));
	}
	for (unsigned i = 0; i < m->nworkers; i++) {
		if (m->workers[i].started) {
			pthread_join(m->workers[i].thread, NULL);
			m->workers[i].started = false;
		}
	}
}

void messenger_release(struct messenger *m)
{
	struct conn *c = m->conns, *next;

	for (; c; c = next) {
		next = c->next;
		conn_kill(c);
		conn_put(c);
	}
	m->conns = NULL;
	if (m->listen_fd >= 0)
		close(m->listen_fd);
	m->listen_fd = -1;
	for (unsigned i = 0; m->workers && i < m->nworkers; i++) {
		if (m->workers[i].epfd >= 0)
			close(m->workers[i].epfd);
		if (m->workers[i].wakefd >= 0)
			close(m->workers[i].wakefd);
	}
	free(m->workers);
	m->workers = NULL;
	pthread_mutex_destroy(&m->conns_lock);
}
