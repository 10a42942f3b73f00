/*
 * pass: the analysis' one pass over a run, as perf's ordered events feed
 * its struct perf_tool. Its sources are the trace's events (pushed in by
 * whoever reads the trace: the CTF reader, directly or through op
 * detection), the kernel records (RUN/kernel/, through a loaded
 * read/kernel_reader.h) and timed marks of other files (the OpTracker's
 * ops, model/ceph_critical.h), merged into one time-ordered stream by one
 * rule: the records and marks up to and including time t come before the
 * trace's event at t (records first at equal times, marks in their order).
 * The stream goes to a table of consumers, each {on_event, on_krec,
 * on_op_end, finish} with its context, called in the table's order; an
 * op's end (which a consumer posts as it accounts an event, the model's)
 * goes to every consumer's on_op_end once that event has been to all.
 * Nothing calls back up into the pass's owner.
 */
#ifndef CORECAP_PASS_H
#define CORECAP_PASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/event.h"
#include "model/model.h"
#include "read/kernel_reader.h"

/* One consumer; any hook may be NULL. A non-zero return stops the pass. */
struct pass_consumer {
	int (*on_event)(void *ctx, const struct model_event *ev);
	int (*on_krec)(void *ctx, const struct corecap_krec *r);
	int (*on_op_end)(void *ctx, const struct model_op_end *e);
	int (*finish)(void *ctx);
	void *ctx;
};

/* A time-ordered source of marks other than the records: the time of its
 * next mark (UINT64_MAX: none left), and the mark handed on (taken). */
struct pass_marks {
	uint64_t (*next_ns)(void *ctx);
	int (*take)(void *ctx);
	void *ctx;
};

#define PASS_MAX_CONSUMERS 8
#define PASS_MAX_OP_ENDS   16

struct pass {
	struct pass_consumer c[PASS_MAX_CONSUMERS];
	size_t n;
	struct pass_marks marks; /* next_ns NULL: none */
	struct kernel_cursor cur;
	bool streaming;			 /* cur is open */
	const struct corecap_krec *next; /* cur's next record, not fed yet; NULL: none */
	bool fed_all;			 /* every record was fed */
	struct model_op_end ended[PASS_MAX_OP_ENDS]; /* posted during the current event */
	size_t n_ended;
};

void corecap_pass_init(struct pass *p);
/* Appends a consumer to the table; -E2BIG when it is full. */
int corecap_pass_add(struct pass *p, const struct pass_consumer *c);
/* The records of k (loaded) become a source; 0 or a negative errno. */
int corecap_pass_records(struct pass *p, const struct kernel_reader *k);
void corecap_pass_marks(struct pass *p, const struct pass_marks *m);
/* One trace event: the records and marks up to its time, then the event. */
int corecap_pass_event(struct pass *p, const struct model_event *ev);
/* The same as an event sink (ctx = p): the CTF reader's, op detection's. */
int corecap_pass_consume(void *p, const struct model_event *ev);
/* A consumer's on_event says an op ended; -ENOBUFS past PASS_MAX_OP_ENDS. */
int corecap_pass_post_op_end(struct pass *p, const struct model_op_end *e);
/* The sources are done: the records and marks left, then each finish. */
int corecap_pass_finish(struct pass *p);
/* Closes the records' cursor (the consumers are their owners'). */
void corecap_pass_release(struct pass *p);
/* A whole pass over k's records alone, its table the n rows. 0 or the
 * first error. */
int corecap_pass_run_records(const struct kernel_reader *k, const struct pass_consumer *rows,
			     size_t n);

#endif
