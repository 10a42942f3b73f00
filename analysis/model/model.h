/*
 * model: turns the stream of decoded events (model/event.h) into thread
 * states, the per-op attribution, and the lock table, applying the
 * attribution rule (docs/methodology.md, "Per-op attribution"):
 *
 *   An op lives from `begin` to `end`. While some thread has it in
 *   context (between `enter` and `exit`), the op's time takes the state of
 *   its owner, the last of those threads to enter: cpu, a lock wait, a
 *   cond wait, I/O or logging. While no thread has it, its time is
 *   `queue`, labelled with its last phase. Waits arrive as events at their end, carrying
 *   their length, so the owner's time is charged lazily: on each wait, the
 *   stretch since the last charge is cpu and the wait itself its category.
 *
 * Every nanosecond of an op's life is charged exactly once, so its
 * categories sum to its latency; op_table checks that on every op.
 * Memory stays bounded by threads + locks + ops in flight.
 */
#ifndef CORECAP_MODEL_H
#define CORECAP_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "event.h"
#include "lock_table.h"
#include "op_table.h"
#include "thread_table.h"

struct model_config {
	bool has_window; /* else the window is the trace's first..last event */
	uint64_t window_start_ns, window_end_ns;
	int32_t pid; /* the daemon; events of other processes are counted, not used */
	/* Whether a lock-call site lies in logging code; NULL: never. */
	bool (*site_is_logging)(void *ctx, uint64_t site);
	void *classify_ctx;
	FILE *dump_ops; /* optional: one TSV line per finished op */
};

/* An op's end on thread tid as the model accounts it (`exclude`: left out
 * of its figures): what the analysis pass (pass/pass.h) hands its other
 * consumers. */
struct model_op_end {
	uint64_t id;
	uint32_t type;
	int32_t tid;
	uint64_t end_ns;
	bool exclude;
};

/* What the input lacked or broke; every count here appears in the report. */
struct model_quality {
	uint64_t events, events_other_pid, events_no_tid;
	uint64_t loss_msgs, discarded_events, discarded_unknown_msgs, discarded_packets;
	uint64_t ops_tainted, ops_unfinished, ops_without_begin, ops_outside_window;
	uint64_t ops_replaced, ops_ended_elsewhere;
	uint64_t enter_twice, exit_unmatched, exit_unknown_op, implicit_exits, log_exit_unmatched;
	uint64_t log_depth_reset;
	bool has_ts;
	uint64_t first_ts, last_ts;
};

/*
 * Which sources fed the model: a figure that only an absent source could
 * give is "not measured" (JSON null), never 0 (DESIGN: sources are
 * optional, never faked). Set by the caller as it reads each source.
 */
struct model_sources {
	bool trace;  /* LTTng events: ops, per-thread waits, I/O, logging, lock events */
	bool stats;  /* the shim's counters: lock acquisitions, contentions, holds */
	bool futex;  /* kernel futex events: a lock table of their own (source futex) */
	bool kernel; /* kernel scheduler events: exact thread states */
};

struct model {
	struct model_config cfg;
	struct model_sources src;
	struct thread_table threads;
	struct lock_table locks;
	struct lock_table futex_locks; /* from kernel futex events (model/futex_locks.h) */
	struct op_table ops;
	struct model_quality q;
	bool has_taint;
	uint64_t taint_until;
	uint64_t ws, we; /* the effective window, final after corecap_model_finish */
	struct model_thread *last_th;
	/* The op the last event consumed ended (an event ends one at most). */
	bool has_ended;
	struct model_op_end ended;
	bool finished;
};

int corecap_model_init(struct model *m, const struct model_config *cfg);
void corecap_model_release(struct model *m);
/* Consumes one event; 0 or -ENOMEM. Events must come in timestamp order. */
int corecap_model_consume(struct model *m, const struct model_event *ev);
/*
 * Whether an event of tid should carry its procname: the model names a
 * thread from it only while no better source (threads.tsv, a name event)
 * has named it, so a reader may skip the field otherwise.
 */
bool corecap_model_wants_comm(const struct model *m, int32_t tid);
/*
 * Whether ev names a thread (*tid) by a name event when a fresh model of
 * the daemon pid consumes it (its name then outranks every procname): a
 * reader on another thread that remembers these answers
 * corecap_model_wants_comm for that model without reading it.
 */
bool corecap_model_event_names(int32_t pid, const struct model_event *ev, int32_t *tid);
/* Ends the stream: counts what is left in flight and fixes the window. */
int corecap_model_finish(struct model *m);
/* Records threads.tsv's figures for a thread (creating it if the trace did not). */
int corecap_model_set_thread_cpu(struct model *m, int32_t tid, const char *comm, uint64_t cpu_ns,
				 uint64_t runq_ns, bool has_runq, uint64_t span_ns);
/*
 * Records a thread's states from kernel events (creating it if new); they
 * replace threads.tsv's CPU, run-queue and span figures (the /proc estimate).
 */
int corecap_model_set_thread_kstates(struct model *m, int32_t tid, const char *comm,
				     uint64_t running_ns, uint64_t runnable_ns, uint64_t futex_ns,
				     uint64_t blocked_ns);
/* Records the shim's counters for a lock (deltas over the window). */
int corecap_model_set_lock_stats(struct model *m, uint64_t addr, uint8_t kind,
				 uint64_t acquisitions, uint64_t contentions, uint64_t wait_ns,
				 uint64_t holds, uint64_t hold_ns);
uint64_t corecap_model_window_ns(const struct model *m);
/* Whether op figures, per-thread wait figures and a lock table were measured. */
bool corecap_model_has_ops(const struct model *m);
bool corecap_model_has_thread_waits(const struct model *m);
bool corecap_model_has_locks(const struct model *m);
/* Whether a lock's per-wait figures (max wait, holds, waited time) were seen
 * event by event, not only counted by the shim. */
bool corecap_lock_has_events(const struct model *m, const struct model_lock *l);

#endif
