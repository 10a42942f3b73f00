/*
 * messenger: TCP on 127.0.0.1, nthreads epoll threads named
 * "msgr-worker-N" (Ceph's async messenger). msgr-worker-0 also accepts;
 * each new connection is given to the workers in turn and stays with that
 * worker, which alone reads and closes it. A worker decodes each frame
 * into an op, marks it begun (corecap_op_begin), and queues it on its
 * shard. A malformed frame closes that connection only. Connections
 * (conn.h) are reference-counted; the messenger holds one reference until
 * it closes the connection.
 */
#ifndef REFOSD_MESSENGER_H
#define REFOSD_MESSENGER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conn.h"

struct log;
struct shards;
struct messenger;

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
	unsigned cpu_us; /* burnt per request before it is queued (--msgr-cpu-us) */
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

#endif /* REFOSD_MESSENGER_H */
