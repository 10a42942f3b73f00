/*
 * thread_table: every thread of the daemon the model has heard of, by tid,
 * with its identity (name, pool), its op context (which op it works on,
 * for the attribution rule) and its state totals over the window: waits
 * and I/O from the trace, CPU and run-queue delay from threads.tsv.
 * Threads are never freed before the table; their number bounds it.
 */
#ifndef CORECAP_THREAD_TABLE_H
#define CORECAP_THREAD_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "../util/u64map.h"

struct model_op;

#define THREAD_LOG_SPANS 32

enum thread_name_source { TNAME_NONE, TNAME_PROCNAME, TNAME_SAMPLES, TNAME_EVENT };

struct model_thread {
	int32_t tid;
	char name[32];
	enum thread_name_source name_source;
	char pool[32]; /* name without trailing digits and separators */

	/* Op context (see model.c): the op this thread works on, if any. */
	struct model_op *ctx;
	struct model_thread *ctx_next; /* next thread in ctx's list */
	uint64_t acct_from;	       /* owner: ctx's time is attributed up to here */
	uint64_t ended_ctx_id;	       /* op that ended while in context here */
	bool has_ended_ctx;
	uint32_t log_depth;
	uint64_t log_since;
	/*
	 * The thread's latest logging stretches (log calls, log I/O, waits at
	 * logging sites), whatever op they were for: when this thread takes
	 * an op that waited for it, the part of the wait it spent logging is
	 * what logging cost that op (model.c, attach).
	 */
	struct {
		uint64_t b, e;
	} log_spans[THREAD_LOG_SPANS];
	uint32_t log_head, n_log_spans;
	uint64_t last_ts;

	/* State totals over the window, from the trace. */
	uint64_t lock_wait_ns, cond_wait_ns, logging_ns, io_ns[CORECAP_IO_CLASSES];
	uint64_t contentions, cond_waits, ios[CORECAP_IO_CLASSES];
	uint64_t events;

	/* From threads.tsv: CPU truth over the sampled span. */
	bool has_samples;
	uint64_t cpu_ns, runq_ns, span_ns;
	bool has_runq;

	/*
	 * From kernel scheduler events (model/kernel_states.h): exact, over the
	 * thread's span in the window, and the four sum to it. Where present
	 * they replace threads.tsv's cpu_ns, runq_ns and span_ns.
	 */
	bool has_kstates;
	uint64_t k_running_ns, k_runnable_ns, k_futex_ns, k_blocked_ns;
};

struct thread_table {
	struct u64map by_tid; /* tid -> index in all */
	struct model_thread **all;
	size_t len, cap;
};

void corecap_thread_table_init(struct thread_table *t);
void corecap_thread_table_release(struct thread_table *t);
/* The thread `tid`, created if new; NULL when out of memory. */
struct model_thread *corecap_thread_table_get(struct thread_table *t, int32_t tid);
struct model_thread *corecap_thread_table_find(const struct thread_table *t, int32_t tid);
/* Records a name unless a better source already named the thread. */
void corecap_thread_table_name(struct model_thread *th, const char *name,
			       enum thread_name_source src);
/* Remembers that the thread was logging over [b, e) (the oldest span is forgotten). */
void corecap_thread_log_span(struct model_thread *th, uint64_t b, uint64_t e);
/* How much of [b, e) the thread spent logging, by its remembered spans. */
uint64_t corecap_thread_logging_in(const struct model_thread *th, uint64_t b, uint64_t e);
/* Writes the pool name of a thread name: "msgr-worker-12" -> "msgr-worker". */
void corecap_thread_pool_name(const char *name, char *out, size_t size);

#endif
