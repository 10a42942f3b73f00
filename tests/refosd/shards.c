/* shards: see shards.h. */
#include "shards.h"

#include <errno.h>
#include <stdlib.h>

#include "op.h"

int shards_init(struct shards *s, unsigned nshards, unsigned threads_per_shard,
		shards_handler handle, void *ctx)
{
	*s = (struct shards){
		.nshards = nshards,
		.threads_per_shard = threads_per_shard,
		.handle = handle,
		.ctx = ctx,
	};
	s->shard = calloc(nshards, sizeof(*s->shard));
	s->workers = calloc((size_t)nshards * threads_per_shard, sizeof(*s->workers));
	if (!s->shard || !s->workers) {
		free(s->shard);
		free(s->workers);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < nshards; i++) {
		pthread_mutex_init(&s->shard[i].lock, NULL);
		pthread_cond_init(&s->shard[i].cond, NULL);
	}
	return 0;
}

static void *shards_worker_main(void *arg)
{
	struct shards_worker *w = arg;
	struct shard *sh = w->shard;
	struct op *op;

	pthread_setname_np(pthread_self(), "tp_osd_tp");
	for (;;) {
		pthread_mutex_lock(&sh->lock);
		while (!sh->head && !sh->stop)
			pthread_cond_wait(&sh->cond, &sh->lock);
		op = sh->head;
		if (op) {
			sh->head = op->next;
			if (!sh->head)
				sh->tail = NULL;
			sh->len--;
			op->next = NULL;
		}
		pthread_mutex_unlock(&sh->lock);
		if (!op)
			break; /* stopping and drained */
		w->shards->handle(w->shards->ctx, op);
	}
	return NULL;
}

int shards_start(struct shards *s)
{
	unsigned n = s->nshards * s->threads_per_shard;
	int r = 0;

	for (unsigned i = 0; i < n; i++) {
		struct shards_worker *w = &s->workers[i];

		w->shards = s;
		w->shard = &s->shard[i % s->nshards];
		r = -pthread_create(&w->thread, NULL, shards_worker_main, w);
		if (r < 0)
			break;
		w->started = true;
	}
	if (r < 0)
		shards_stop(s);
	return r;
}

void shards_queue(struct shards *s, struct op *op)
{
	struct shard *sh = &s->shard[op->pg % s->nshards];

	op->next = NULL;
	pthread_mutex_lock(&sh->lock);
	if (sh->tail)
		sh->tail->next = op;
	else
		sh->head = op;
	sh->tail = op;
	sh->len++;
	pthread_cond_signal(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
}

void shards_stop(struct shards *s)
{
	unsigned n = s->nshards * s->threads_per_shard;

	for (unsigned i = 0; i < s->nshards; i++) {
		pthread_mutex_lock(&s->shard[i].lock);
		s->shard[i].stop = true;
		pthread_cond_broadcast(&s->shard[i].cond);
		pthread_mutex_unlock(&s->shard[i].lock);
	}
	for (unsigned i = 0; i < n; i++) {
		if (s->workers[i].started) {
			pthread_join(s->workers[i].thread, NULL);
			s->workers[i].started = false;
		}
	}
}

void shards_release(struct shards *s)
{
	for (unsigned i = 0; i < s->nshards; i++) {
		struct op *op = s->shard[i].head, *next;

		/* Only ops queued after shards_stop() can be left. */
		for (; op; op = next) {
			next = op->next;
			op_free(op);
		}
		pthread_mutex_destroy(&s->shard[i].lock);
		pthread_cond_destroy(&s->shard[i].cond);
	}
	free(s->shard);
	free(s->workers);
	s->shard = NULL;
	s->workers = NULL;
}
