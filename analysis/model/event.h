/*
 * struct model_event: one decoded corecap event, the contract between the
 * reading room (which decodes CTF or any other source) and the model
 * (which only ever sees these). Strings and the stack are borrowed: valid
 * only during the call that receives the event; the model copies what it
 * keeps. Timestamps are CLOCK_MONOTONIC ns, the clock of every run file.
 */
#ifndef CORECAP_MODEL_EVENT_H
#define CORECAP_MODEL_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include <corecap/run_format.h>

enum model_event_kind {
	MEV_OP_BEGIN,	    /* op: id, str = type, bytes */
	MEV_OP_PHASE,	    /* op: id, str = phase name */
	MEV_OP_END,	    /* op: id, result */
	MEV_OP_ENTER,	    /* op: id */
	MEV_OP_EXIT,	    /* op: id */
	MEV_LOG_ENTER,	    /* no fields */
	MEV_LOG_EXIT,	    /* no fields */
	MEV_LOCK_CONTENDED, /* lock: addr, kind, site, dur_ns = wait, stack */
	MEV_LOCK_HOLD,	    /* lock: addr, kind, site, dur_ns = hold */
	MEV_COND_WAIT,	    /* lock: addr = cond, mutex, site, dur_ns = wait, timed_out */
	MEV_COND_WAKE,	    /* lock: addr = cond, site, broadcast */
	MEV_IO,		    /* io: call, class, fd, bytes, dur_ns */
	MEV_THREAD_NAME,    /* thread: tid, name */
	MEV_THREAD_START,   /* thread: tid, parent_tid */
	MEV_THREAD_EXIT,    /* thread: tid */
	MEV_DISCARDED,	    /* loss: events or packets lost in [begin_ns, end_ns] */
	MEV_AIO,	    /* io: call, class, fd, bytes; dur_ns = submission to this reap */
	MEV_OP_CLIENT,	    /* op: id, bytes = the client's id of the op */
	MEV_OP_REPLY,	    /* op: id */
	MEV__COUNT
};

/* Values of corecap_io's `class` and `call`: run_format.h (enum corecap_io_class). */

struct model_event {
	enum model_event_kind kind;
	uint64_t ts_ns;
	int32_t tid;	  /* vtid context; -1 if the trace lacks it */
	int32_t pid;	  /* vpid context; -1 if the trace lacks it */
	const char *comm; /* procname context (the thread's name then), or NULL */
	union {
		struct {
			uint64_t id;
			const char *str;
			uint64_t bytes;
			int64_t result;
		} op;
		struct {
			uint64_t addr, mutex, site, dur_ns;
			uint8_t kind; /* corecap_lock's `kind`: 0 mutex, 1 rd, 2 wr, 3 spin */
			uint8_t flag; /* acquired (contended), timed_out (cond_wait), broadcast
					 (cond_wake) */
			uint32_t depth;
			const uint64_t *stack; /* innermost first */
		} lock;
		struct {
			uint8_t call, io_class;
			int32_t fd;
			int64_t bytes;
			uint64_t dur_ns;
			uint8_t hdr_len; /* bytes of hdr known (net events; 0: none) */
			uint8_t hdr[24]; /* the first bytes moved (docs/events.md, `hdr`) */
		} io;
		struct {
			int32_t tid, parent_tid;
			const char *name;
		} thread;
		struct {
			uint64_t count; /* UINT64_MAX when the source does not know */
			uint64_t begin_ns, end_ns;
			int packets; /* 1: packets were lost, 0: events */
		} loss;
	};
};

/* Whether ev carries a stack (lock.stack, lock.depth frames): a lock kind
 * that has one. A copy that outlives the call copies it too. */
static inline bool corecap_model_event_has_stack(const struct model_event *ev)
{
	return (ev->kind == MEV_LOCK_CONTENDED || ev->kind == MEV_LOCK_HOLD ||
		ev->kind == MEV_COND_WAIT || ev->kind == MEV_COND_WAKE) &&
	       ev->lock.stack && ev->lock.depth;
}

#endif
