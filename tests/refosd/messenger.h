/*
 * messenger: TCP on 127.0.0.1, nthreads epoll threads named
 * "msgr-worker-N" (Ceph's async messenger). msgr-worker-0 also accepts;
 * each new connection is given to the workers in turn and stays with that
 * worker, which alone reads and closes it. A worker decodes each frame
 * into an op, marks it begun (corecap_op_begin), and queues it on its
 * shard. A malformed frame closes that connection only.
 *
 * Connections are reference-counted: the messenger holds one reference
 * until it closes the connection, each op one more. The descriptor is
 * closed only with the last reference, so a reply in flight never writes
 * to a reused descriptor; a dead connection's replies are dropped.
 */
#ifndef REFOSD_MESSENGER_H
#define REFOSD_MESSENGER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct log;
struct shards;
struct messenger;

struct conn {
	int fd;
	atomic_int refs;
	atomic_bool dead;
	uint64_t id;
	char peer[64]; /* "127.0.0.1:PORT" of the client */
	unsigned port; /* the daemon's port, for log lines */
	uint8_t *rbuf; /* bytes received and not yet decoded */
	size_t rlen, rcap;
	struct conn *prev, *next; /* the messenger's list, under conns_lock */
};

struct messenger_worker {
	struct messenger *msgr;
	unsigned index;
	int epfd;
	int wakefd; /* eventfd: messenger_stop() wakes the worker through it */
	pthread_t thread;
	bool started;
};

struct messenger {
	struct log *log;
	struct shards *shards;
	unsigned pgs;
	int listen_fd;
	unsigned port;
	unsigned nworkers;
	struct messenger_worker *workers;
	atomic_bool stop;
	atomic_uint next_worker;
	pthread_mutex_t conns_lock;
	struct conn *conns;
	uint64_t next_conn_id; /* under conns_lock */
	atomic_uint_fast64_t frames_refused;
};

/* Returns 0 or a negative errno. */
int messenger_init(struct messenger *m, unsigned nthreads, struct shards *shards, unsigned pgs,
		   struct log *lg);

/*
 * Listen on 127.0.0.1:port (0: any free port); m->port is then the port.
 * Returns 0 or a negative errno.
 */
int messenger_bind(struct messenger *m, unsigned port);

int messenger_start(struct messenger *m);

/* Stop accepting and reading; joins the workers. Connections stay open. */
void messenger_stop(struct messenger *m);

/* Close every connection and free everything; after the ops are gone. */
void messenger_release(struct messenger *m);

void conn_get(struct conn *c);
void conn_put(struct conn *c);

/* Mark c dead and shut its socket down; its worker closes it. */
void conn_kill(struct conn *c);

static inline bool conn_is_dead(struct conn *c)
{
	return atomic_load_explicit(&c->dead, memory_order_relaxed);
}

#endif /* REFOSD_MESSENGER_H */
