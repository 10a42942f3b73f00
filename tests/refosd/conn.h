/*
 * conn: one client connection, reference-counted: the messenger holds one
 * reference until it closes the connection, each op one more. The
 * descriptor is closed only with the last reference, so a reply in flight
 * never writes to a reused descriptor; a dead connection's replies are
 * dropped. Its own module so that op (which holds a reference) and the
 * messenger (which makes ops) do not include each other.
 */
#ifndef REFOSD_CONN_H
#define REFOSD_CONN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

void conn_get(struct conn *c);
void conn_put(struct conn *c);

/* Mark c dead and shut its socket down; its worker closes it. */
void conn_kill(struct conn *c);

static inline bool conn_is_dead(struct conn *c)
{
	return atomic_load_explicit(&c->dead, memory_order_relaxed);
}

#endif /* REFOSD_CONN_H */
