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
 * on_op_end, finish} with its context, called in the table's order; the
 * op an event ends in the model (model.h's has_ended, the model the pass
 * is told of: ops_of) goes to every consumer's on_op_end once that event
 * has been to all.
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

struct pass {
	struct pass_consumer c[PASS_MAX_CONSUMERS];
	size_t n;
	/* The table by hook for the hot paths: the rows that have it, in order. */
	struct pass_ev_row {
		int (*fn)(void *ctx, const struct model_event *ev);
		void *ctx;
	} ev[PASS_MAX_CONSUMERS];
	struct pass_krec_row {
		int (*fn)(void *ctx, const struct corecap_krec *r);
		void *ctx;
	} kr[PASS_MAX_CONSUMERS];
	size_t n_ev, n_kr;
	struct pass_marks marks; /* next_ns NULL: none */
	struct kernel_cursor cur;
	bool streaming;			 /* cur is open */
	const struct corecap_krec *next; /* cur's next record, not fed yet; NULL: none */
	bool fed_all;			 /* every record was fed */
	/* When a record is due: the next record's time; 0 while marks remain
	 * (each event asks them); UINT64_MAX: none. */
	uint64_t due_ns;
	const struct model *ops_of; /* whose op ends go to on_op_end; or NULL */
};

void corecap_pass_init(struct pass *p);
/* Appends a consumer to the table; -E2BIG when it is full. */
int corecap_pass_add(struct pass *p, const struct pass_consumer *c);
/* The records of k (loaded) become a source; 0 or a negative errno. */
int corecap_pass_records(struct pass *p, const struct kernel_reader *k);
void corecap_pass_marks(struct pass *p, const struct pass_marks *m);
/* The records and marks up to and including t (the merge). */
int corecap_pass_until(struct pass *p, uint64_t t);
/* The op the last event ended to every on_op_end. */
int corecap_pass_op_end(struct pass *p, const struct model_op_end *e);

/* One trace event: the records and marks up to its time, then the event.
 * Inline: it runs for every event of the trace, most of them with no
 * record due. */
static inline int corecap_pass_event(struct pass *p, const struct model_event *ev)
{
	int ret;

	if (ev->ts_ns >= p->due_ns && (ret = corecap_pass_until(p, ev->ts_ns)))
		return ret;
	for (const struct pass_ev_row *e = p->ev, *end = e + p->n_ev; e < end; e++)
		if ((ret = e->fn(e->ctx, ev)))
			return ret;
	return p->ops_of && p->ops_of->has_ended ? corecap_pass_op_end(p, &p->ops_of->ended) : 0;
}
/* The same as an event sink (ctx = p): the CTF reader's, op detection's. */
int corecap_pass_consume(void *p, const struct model_event *ev);
/* The model whose op ends the pass hands on (its row is the caller's). */
void corecap_pass_ops_of(struct pass *p, const struct model *m);
/* The sources are done: the records and marks left, then each finish. */
int corecap_pass_finish(struct pass *p);
/* Closes the records' cursor (the consumers are their owners'). */
void corecap_pass_release(struct pass *p);
/* A whole pass over k's records alone, its table the n rows. 0 or the
 * first error. */
int corecap_pass_run_records(const struct kernel_reader *k, const struct pass_consumer *rows,
			     size_t n);

#endif
