/* conn: see conn.h. */
#include "conn.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

void conn_get(struct conn *c)
{
	atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
}

void conn_put(struct conn *c)
{
	if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) != 1)
		return;
	close(c->fd);
	free(c->rbuf);
	free(c);
}

void conn_kill(struct conn *c)
{
	if (!atomic_exchange(&c->dead, true))
		shutdown(c->fd, SHUT_RDWR);
}
