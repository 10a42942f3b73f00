#include "trace_pipe.h"

#include <corecap/diag.h>

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

bool corecap_trace_pipe_wanted(void)
{
	const char *s = getenv("CORECAP_TRACE_PIPE");
	cpu_set_t set;

	if (s && (!strcmp(s, "0") || !strcmp(s, "1")))
		return *s == '1';
	if (s && *s)
		corecap_warn("CORECAP_TRACE_PIPE='%s' is neither 0 nor 1: piped when more "
			     "than one CPU is available",
			     s);
	return sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 1;
}

/* Where an event's string is, by its kind (NULL: it has none). */
static const char **string_of(struct model_event *ev)
{
	switch (ev->kind) {
	case MEV_OP_BEGIN:
	case MEV_OP_PHASE:
	case MEV_OP_END:
	case MEV_OP_ENTER:
	case MEV_OP_EXIT:
	case MEV_OP_CLIENT:
	case MEV_OP_REPLY:
		return &ev->op.str;
	case MEV_THREAD_NAME:
	case MEV_THREAD_START:
	case MEV_THREAD_EXIT:
		return &ev->thread.name;
	default:
		return NULL;
	}
}

/* Copies len bytes into b's arena, 8-aligned: their offset + 1, or 0 (ENOMEM). */
static uintptr_t arena_put(struct trace_pipe_batch *b, const void *src, size_t len)
{
	size_t at = (b->used + 7) & ~(size_t)7;

	if (at + len > b->cap) {
		size_t cap = b->cap ? b->cap : 16384;
		char *a;

		while (at + len > cap)
			cap *= 2;
		if (!(a = realloc(b->arena, cap)))
			return 0;
		b->arena = a;
		b->cap = cap;
	}
	memcpy(b->arena + at, src, len);
	b->used = at + len;
	return at + 1;
}

/* The event, its pointers made offsets into b's arena; -ENOMEM. */
static int copy_event(struct trace_pipe_batch *b, struct model_event *to,
		      const struct model_event *ev)
{
	const char **s;
	uintptr_t off;

	*to = *ev;
	if (ev->comm) {
		if (!(off = arena_put(b, ev->comm, strlen(ev->comm) + 1)))
			return -ENOMEM;
		to->comm = (const char *)off;
	}
	if ((s = string_of(to)) && *s) {
		if (!(off = arena_put(b, *s, strlen(*s) + 1)))
			return -ENOMEM;
		*s = (const char *)off;
	}
	if (corecap_model_event_has_stack(ev)) {
		if (!(off = arena_put(b, ev->lock.stack, ev->lock.depth * sizeof(uint64_t))))
			return -ENOMEM;
		to->lock.stack = (const uint64_t *)off;
	}
	return 0;
}

/* The copy back: its offsets made pointers into b's arena. */
static void point_event(const struct trace_pipe_batch *b, struct model_event *ev)
{
	const char **s;

	if (ev->comm)
		ev->comm = b->arena + (uintptr_t)ev->comm - 1;
	if ((s = string_of(ev)) && *s)
		*s = b->arena + (uintptr_t)*s - 1;
	if (corecap_model_event_has_stack(ev))
		ev->lock.stack = (const uint64_t *)(b->arena + (uintptr_t)ev->lock.stack - 1);
}

/* The reader's next batch to fill, once one is free: 0, or the consumer's error. */
static int take(struct trace_pipe *p)
{
	int ret;

	pthread_mutex_lock(&p->mu);
	while (p->count == TRACE_PIPE_DEPTH && !p->stop)
		pthread_cond_wait(&p->emptied, &p->mu);
	ret = p->stop;
	if (!ret) {
		p->fill = &p->b[(p->head + p->count) % TRACE_PIPE_DEPTH];
		p->fill->n = 0;
		p->fill->used = 0;
	}
	pthread_mutex_unlock(&p->mu);
	return ret;
}

static void publish(struct trace_pipe *p)
{
	pthread_mutex_lock(&p->mu);
	if (p->fill->n)
		p->count++;
	p->fill = NULL;
	pthread_cond_signal(&p->filled);
	pthread_mutex_unlock(&p->mu);
}

/* The reader's consumer, on its thread. */
static int push(void *ctx, const struct model_event *ev)
{
	struct trace_pipe *p = ctx;
	struct trace_pipe_batch *b;
	int ret;

	if (p->seen && (ret = p->seen(p->reader_ctx, ev)))
		return ret;
	if (!p->fill && (ret = take(p)))
		return ret;
	b = p->fill;
	if ((ret = copy_event(b, &b->ev[b->n], ev)))
		return ret;
	if (++b->n >= p->batch)
		publish(p);
	return 0;
}

static bool wants_comm(void *ctx, int32_t tid)
{
	const struct trace_pipe *p = ctx;

	return !p->wants_comm || p->wants_comm(p->reader_ctx, tid);
}

/* The reader's consumer without a thread. */
static int direct(void *ctx, const struct model_event *ev)
{
	struct trace_pipe *p = ctx;
	int ret;

	if (p->seen && (ret = p->seen(p->reader_ctx, ev)))
		return ret;
	return p->consume(p->ctx, ev);
}

static void *reader_main(void *arg)
{
	struct trace_pipe *p = arg;
	int ret = corecap_ctf_reader_run(p->r);

	if (p->fill)
		publish(p);
	pthread_mutex_lock(&p->mu);
	p->done = true;
	p->reader_ret = ret;
	pthread_cond_signal(&p->filled);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int corecap_trace_pipe_init(struct trace_pipe *p, struct ctf_reader *r, char *const *dirs, size_t n,
			    ctf_reader_consume_fn fn, void *ctx)
{
	int ret;

	*p = (struct trace_pipe){.r = r, .consume = fn, .ctx = ctx, .batch = TRACE_PIPE_EVENTS};
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->filled, NULL);
	pthread_cond_init(&p->emptied, NULL);
	ret = corecap_ctf_reader_init(r, dirs, n, push, p);
	r->wants_comm = wants_comm;
	for (size_t i = 0; !ret && i < TRACE_PIPE_DEPTH; i++)
		if (!(p->b[i].ev = malloc(TRACE_PIPE_EVENTS * sizeof(*p->b[i].ev))))
			ret = -ENOMEM;
	return ret;
}

/* The queued batches to the consumer until the reader is done or it fails. */
static int drain(struct trace_pipe *p)
{
	int ret = 0;

	for (;;) {
		struct trace_pipe_batch *b;

		pthread_mutex_lock(&p->mu);
		while (!p->count && !p->done)
			pthread_cond_wait(&p->filled, &p->mu);
		b = p->count ? &p->b[p->head] : NULL;
		pthread_mutex_unlock(&p->mu);
		if (!b)
			return 0;
		for (uint32_t i = 0; i < b->n && !ret; i++) {
			struct model_event ev = b->ev[i];

			point_event(b, &ev);
			ret = p->consume(p->ctx, &ev);
		}
		pthread_mutex_lock(&p->mu);
		p->head = (p->head + 1) % TRACE_PIPE_DEPTH;
		p->count--;
		p->stop = ret;
		pthread_cond_signal(&p->emptied);
		pthread_mutex_unlock(&p->mu);
		if (ret)
			return ret;
	}
}

int corecap_trace_pipe_run(struct trace_pipe *p)
{
	pthread_t t;
	int ret;

	if (pthread_create(&t, NULL, reader_main, p)) {
		p->r->consume = direct;
		return corecap_ctf_reader_run(p->r);
	}
	ret = drain(p);
	pthread_join(t, NULL);
	return ret ? ret : p->reader_ret;
}

void corecap_trace_pipe_release(struct trace_pipe *p)
{
	for (size_t i = 0; i < TRACE_PIPE_DEPTH; i++) {
		free(p->b[i].ev);
		free(p->b[i].arena);
	}
	pthread_cond_destroy(&p->emptied);
	pthread_cond_destroy(&p->filled);
	pthread_mutex_destroy(&p->mu);
	*p = (struct trace_pipe){0};
}
