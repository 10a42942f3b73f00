/*
 * shards: the sharded op queue (Ceph's ShardedOpWQ). An op goes to shard
 * op->pg % nshards; each shard has one FIFO under its own mutex and
 * threads_per_shard worker threads named "tp_osd_tp" that sleep on the
 * shard's condition variable and hand each op to the handler.
 *
 * Guarantees: ops of one shard are dequeued in FIFO order; shards_stop()
 * returns after every queued op went through the handler and every worker
 * exited.
 */
#ifndef REFOSD_SHARDS_H
#define REFOSD_SHARDS_H

#include <pthread.h>
#include <stdbool.h>

struct op;

typedef void (*shards_handler)(void *ctx, struct op *op);

struct shard {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct op *head, *tail;
	unsigned len;
	bool stop;
};

struct shards_worker {
	struct shards *shards;
	struct shard *shard;
	pthread_t thread;
	bool started;
};

struct shards {
	unsigned nshards;
	unsigned threads_per_shard;
	struct shard *shard;
	struct shards_worker *workers; /* nshards * threads_per_shard */
	shards_handler handle;
	void *ctx;
};

/* Returns 0 or -ENOMEM. */
int shards_init(struct shards *s, unsigned nshards, unsigned threads_per_shard,
		shards_handler handle, void *ctx);

/* Start the workers. Returns 0 or a negative errno (those started are stopped again). */
int shards_start(struct shards *s);

/* Queue op on its shard and wake one of the shard's workers. */
void shards_queue(struct shards *s, struct op *op);

/* Let the workers drain their queues, then join them. */
void shards_stop(struct shards *s);

void shards_release(struct shards *s);

#endif /* REFOSD_SHARDS_H */
