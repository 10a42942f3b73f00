/*
 * finisher: the thread named "finisher" that sends the replies. Workers
 * hand it finished ops (finisher_queue); it takes the whole queue at once,
 * writes each reply to its connection, marks the op ended
 * (corecap_op_end) and frees it. Being the only thread that writes to
 * sockets, it needs no per-connection write lock.
 *
 * Guarantees: finisher_stop() returns after every queued op was replied
 * to (or dropped, when its connection is dead) and freed.
 */
#ifndef REFOSD_FINISHER_H
#define REFOSD_FINISHER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct log;
struct op;

struct finisher {
	struct log *log;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct op *head, *tail; /* under lock */
	bool stop;		/* under lock */
	bool running;
	pthread_t thread;
	uint64_t replies_sent;	  /* finisher thread only */
	uint64_t replies_dropped; /* finisher thread only */
	unsigned cpu_us;	  /* burnt per reply (--finisher-cpu-us) */
};

void finisher_init(struct finisher *f, struct log *lg);

int finisher_start(struct finisher *f);

/* Hand a finished op (result and reply data set) to the finisher. */
void finisher_queue(struct finisher *f, struct op *op);

/* Reply to everything queued, then join the thread. */
void finisher_stop(struct finisher *f);

void finisher_release(struct finisher *f);

#endif /* REFOSD_FINISHER_H */
