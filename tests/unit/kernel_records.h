/*
 * Builds kernel records (common/include/corecap/kernel_format.h) in memory
 * for the analysis' kernel suites: each kr_*() appends one record to a
 * growable buffer, as the collector writes them.
 */
#ifndef CORECAP_TEST_KERNEL_RECORDS_H
#define CORECAP_TEST_KERNEL_RECORDS_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/kernel_format.h>

struct kbuf {
	unsigned char *p;
	size_t len, cap;
};

static inline void *kr_add(struct kbuf *b, size_t size)
{
	void *r;

	if (b->len + size > b->cap) {
		b->cap = (b->len + size) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		ck_assert_ptr_nonnull(b->p);
	}
	r = b->p + b->len;
	memset(r, 0, size);
	b->len += size;
	return r;
}

static inline void kr_head(struct corecap_krec *h, uint16_t type, size_t size, uint32_t cpu,
			   uint64_t t)
{
	h->type = type;
	h->size = (uint16_t)size;
	h->cpu = cpu;
	h->time_ns = t;
}

static inline void kr_file_header(struct kbuf *b, uint64_t magic, uint32_t pid, uint32_t cpus)
{
	struct corecap_kfile_header *h = kr_add(b, sizeof(*h));

	h->magic = magic;
	h->version = CORECAP_KERNEL_FORMAT_V1;
	h->header_bytes = sizeof(*h);
	h->pid = pid;
	h->nr_cpus = cpus;
	h->clock_id = CORECAP_KERNEL_CLOCK_MONOTONIC;
}

/* A switch on cpu at t from prev (state 'R' or 'S'...) to next; both the target's unless 0. */
static inline struct corecap_krec_switch *kr_switch(struct kbuf *b, uint32_t cpu, uint64_t t,
						    int32_t prev, char state, int32_t next)
{
	struct corecap_krec_switch *r = kr_add(b, sizeof(*r));

	kr_head(&r->h, CORECAP_KREC_SWITCH, sizeof(*r), cpu, t);
	r->prev_tid = prev;
	r->next_tid = next;
	r->prev_state = state == 'R' ? 0 : 1;
	r->prev_state_char = (uint8_t)state;
	r->flags =
		(prev ? CORECAP_KSWITCH_PREV_TARGET : 0) | (next ? CORECAP_KSWITCH_NEXT_TARGET : 0);
	return r;
}

static inline struct corecap_krec_waking *kr_waking(struct kbuf *b, uint32_t cpu, uint64_t t,
						    int32_t tid, int32_t waker)
{
	struct corecap_krec_waking *r = kr_add(b, sizeof(*r));

	kr_head(&r->h, CORECAP_KREC_WAKING, sizeof(*r), cpu, t);
	r->tid = tid;
	r->waker_tid = waker;
	return r;
}

/* The record, to set what else the call passed (val: the value waited for). */
static inline struct corecap_krec_futex_enter *
kr_futex_enter(struct kbuf *b, uint32_t cpu, uint64_t t, int32_t tid, uint32_t op, uint64_t uaddr)
{
	struct corecap_krec_futex_enter *r = kr_add(b, sizeof(*r));

	kr_head(&r->h, CORECAP_KREC_FUTEX_ENTER, sizeof(*r), cpu, t);
	r->tid = tid;
	r->op = op;
	r->uaddr = uaddr;
	return r;
}

static inline struct corecap_krec_futex_exit *kr_futex_exit(struct kbuf *b, uint32_t cpu,
							    uint64_t t, int32_t tid, int64_t ret)
{
	struct corecap_krec_futex_exit *r = kr_add(b, sizeof(*r));

	kr_head(&r->h, CORECAP_KREC_FUTEX_EXIT, sizeof(*r), cpu, t);
	r->tid = tid;
	r->ret = ret;
	return r;
}

static inline void kr_track(struct kbuf *b, uint64_t t, int32_t tid, const char *comm)
{
	struct corecap_krec_track *r = kr_add(b, sizeof(*r));

	kr_head(&r->h, CORECAP_KREC_TRACK, sizeof(*r), 0, t);
	r->tid = tid;
	r->reason = CORECAP_KTRACK_START;
	strncpy(r->comm, comm, sizeof(r->comm) - 1);
}

static inline void kr_holder(struct kbuf *b, uint64_t t, int32_t tid, int32_t tgid,
			     const char *comm)
{
	struct corecap_krec_holder *r = kr_add(b, sizeof(*r));

	kr_head(&r->h, CORECAP_KREC_HOLDER, sizeof(*r), 0, t);
	r->tid = tid;
	r->tgid = tgid;
	strncpy(r->comm, comm, sizeof(r->comm) - 1);
}

static inline void kr_fork(struct kbuf *b, uint32_t cpu, uint64_t t, int32_t parent, int32_t child,
			   const char *comm)
{
	struct corecap_krec_fork *r = kr_add(b, sizeof(*r));

	kr_head(&r->h, CORECAP_KREC_FORK, sizeof(*r), cpu, t);
	r->parent_tid = parent;
	r->child_tid = child;
	r->flags = CORECAP_KFORK_SAME_PROCESS;
	strncpy(r->child_comm, comm, sizeof(r->child_comm) - 1);
}

static inline void kr_lost(struct kbuf *b, uint32_t cpu, uint64_t t, uint64_t n)
{
	struct corecap_krec_lost *r = kr_add(b, sizeof(*r));

	kr_head(&r->h, CORECAP_KREC_LOST, sizeof(*r), cpu, t);
	r->lost = n;
}

static inline void kr_stack(struct kbuf *b, uint64_t t, int32_t tid, uint16_t kind,
			    uint64_t event_t, const uint64_t *frames, uint16_t n)
{
	struct corecap_krec_stack *r = kr_add(b, sizeof(*r) + 8u * n);

	kr_head(&r->h, CORECAP_KREC_STACK, sizeof(*r) + 8u * n, 0, t);
	r->tid = tid;
	r->kind = kind;
	r->nframes = n;
	r->event_time_ns = event_t;
	memcpy(r + 1, frames, 8u * n);
}

/* The records of b from `from` (a byte offset) as an array of pointers, in order. */
static inline size_t kr_index(const struct kbuf *b, size_t from, const struct corecap_krec **v,
			      size_t max)
{
	size_t n = 0;

	for (size_t off = from; off < b->len && n < max;) {
		const struct corecap_krec *r = (const void *)(b->p + off);

		v[n++] = r;
		off += r->size;
	}
	return n;
}

#endif
