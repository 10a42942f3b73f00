/*
 * trace_pipe: a ctf_reader (ctf_reader.h) run on a thread of its own, its
 * events handed to the consumer on the calling thread in batches, in the
 * reader's order. libbabeltrace2's decoding is most of a report's time;
 * piped, it runs beside what the consumer does with the events (the
 * model, the critical path and the kernel records merged into it), on a
 * second CPU.
 *
 * The consumer gets the same events, in the same order, as from the
 * reader itself: each is copied into a batch with its strings and its
 * stack (borrowed from the batch during the call, as from the reader).
 * At most TRACE_PIPE_DEPTH batches of TRACE_PIPE_EVENTS events are read
 * ahead: memory does not grow with the trace. A consumer's error stops
 * the reader at its next batch and is what the run returns, as the
 * reader's own run would (the reader's error names it unless the reader
 * had read the whole trace by then); a reader's error comes after every
 * event read before it was consumed.
 *
 * What runs on the reader's thread: the library, the reader's wants_comm
 * (it must not read the consumer's state) and the pipe's `seen` hook.
 */
#ifndef CORECAP_TRACE_PIPE_H
#define CORECAP_TRACE_PIPE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/event.h"
#include "ctf_reader.h"

#define TRACE_PIPE_EVENTS 8192
#define TRACE_PIPE_DEPTH  4

struct trace_pipe_batch {
	struct model_event *ev; /* TRACE_PIPE_EVENTS; pointers: offsets into arena, +1 */
	uint32_t n;
	char *arena; /* the events' strings and stacks */
	size_t used, cap;
};

struct trace_pipe {
	struct ctf_reader *r; /* borrowed */
	ctf_reader_consume_fn consume;
	void *ctx;
	/* Optional, on the reader's thread with reader_ctx: each event as it
	 * is read, before it is queued (a nonzero return stops the reading,
	 * as consume's), and the reader's wants_comm (NULL: every procname). */
	ctf_reader_consume_fn seen;
	ctf_reader_wants_comm_fn wants_comm;
	void *reader_ctx;
	pthread_mutex_t mu;
	pthread_cond_t filled, emptied;
	uint32_t batch; /* events per batch: TRACE_PIPE_EVENTS, or fewer (tests) */
	struct trace_pipe_batch b[TRACE_PIPE_DEPTH];
	uint32_t head, count;	       /* the oldest queued batch; batches queued */
	struct trace_pipe_batch *fill; /* the reader's batch being filled, or NULL */
	int stop;		       /* the consumer's error: the reader stops */
	bool done;		       /* the reader's run returned reader_ret */
	int reader_ret;
};

/*
 * Whether a report should pipe its trace: CORECAP_TRACE_PIPE=1 or 0 says
 * so; unset, when the process may run on more than one CPU. Another value
 * is warned about and taken as unset.
 */
bool corecap_trace_pipe_wanted(void);
/*
 * Initializes r (ctf_reader_init's arguments) to feed p, and p to hand
 * r's events to fn(ctx): 0 or a negative errno (r's error set when r's).
 * Release both in all cases, in either order (the reader's thread is
 * joined by then).
 */
int corecap_trace_pipe_init(struct trace_pipe *p, struct ctf_reader *r, char *const *dirs, size_t n,
			    ctf_reader_consume_fn fn, void *ctx);
/*
 * Runs the reader on its own thread and the consumer here until both are
 * done: 0 or a negative errno, the consumer's first, else the reader's
 * (corecap_ctf_reader_error(r) then names it). Without a thread
 * (pthread_create failed) the reader runs here, unpiped.
 */
int corecap_trace_pipe_run(struct trace_pipe *p);
void corecap_trace_pipe_release(struct trace_pipe *p);

#endif
