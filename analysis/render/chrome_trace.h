/*
 * chrome_trace: a run as Chrome Trace Event JSON (the "JSON Object
 * Format" that Perfetto UI and chrome://tracing load), written while the
 * trace streams by:
 *
 *   M  process_name, thread_name and thread_sort_index (threads grouped
 *      by pool), written at the end, once every name is known;
 *   X  per-thread state slices: "lock wait", "cond wait", "io <class>",
 *      "logging" (log_enter..log_exit) and "op <type>" (the thread works
 *      on an op: enter..exit), with their figures in args;
 *   b/e ops as async slices (cat "op", id = op_id) from begin to end, with
 *      their phases as nested async slices;
 *   C  "pool CPU (cores)": the CPU each pool used per time bin, one series
 *      per pool, from threads.tsv;
 *   i  lost events, where the tracer said it lost some;
 *   X  with kernel records (RUN/kernel/): each thread's kernel states
 *      (cat "kernel": running, runnable, futex, blocked) as slices that
 *      tile its span, in a second process "<daemon> kernel thread states"
 *      (pid + CHROME_KERNEL_PID_OFFSET, the same tids and names), since
 *      they overlap the trace's slices without nesting in them;
 *   s/f there too: each futex wait whose holder the kernel records name,
 *      a flow from the holder's wake to the waiter's return.
 *
 * Timestamps are microseconds from the start of the span exported (the
 * recording window, or a part of it; without a window, the first event);
 * events outside the span are left out and counted. Memory is bounded
 * by threads + ops in flight + distinct op types and phase names.
 * Every string is JSON-escaped; the output is one valid JSON document.
 */
#ifndef CORECAP_CHROME_TRACE_H
#define CORECAP_CHROME_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../model/event.h"
#include "../model/profiler_own.h"
#include "../util/u64map.h"

struct thread_series;

/* Names an address (a call site when code, else a lock object); stable until the next call. */
typedef const char *(*chrome_namer_fn)(void *ctx, uint64_t addr, bool code);

struct chrome_thread;

struct chrome_trace {
	FILE *out;
	int32_t pid; /* -1: the first event's */
	bool has_window;
	uint64_t start_ns, end_ns; /* the window; start_ns is time 0 */
	/*
	 * Another host's run on the recording host's time line (a run of
	 * several hosts, docs/hosts.md): start_ns is at shift_ns, and its
	 * times pass at rate (1 / (1 + drift)) of the recording host's, each
	 * moved to a whole ns before it is written, so that slices which
	 * tile still tile; events go to process shown_pid (0: pid), which
	 * keeps the pids of two hosts' daemons apart. Set after init
	 * (defaults 0, 1, 0).
	 */
	int64_t shift_ns;
	double rate;
	int32_t shown_pid;
	bool started;
	chrome_namer_fn namer;
	void *namer_ctx;
	struct u64map threads; /* tid -> struct chrome_thread * */
	struct u64map ops;     /* op_id -> type << 32 | phase + 1 (0: no phase open) */
	char **strings;	       /* interned op types and phase names */
	size_t n_strings, cap_strings;
	uint64_t events_written, events_outside, events_other_pid, enter_unmatched;
	uint64_t flows; /* futex wake flows written (their ids) */
	/* The profiler's threads (model/profiler_own.h), left out: tid -> 1,
	 * and its pools by name (cut_profiler; NULL: none left out). */
	struct u64map skip;
	const struct profiler_own *cut_profiler;
	uint64_t events_profiler; /* the events of its threads left out */
	int err;
};

/* end_ns 0: no window (time 0 is the first event). namer may be NULL (hex). */
int corecap_chrome_trace_init(struct chrome_trace *t, FILE *out, int32_t pid, uint64_t start_ns,
			      uint64_t end_ns, chrome_namer_fn namer, void *namer_ctx);
/* Consumes one event (in timestamp order); 0 or a negative errno. */
int corecap_chrome_trace_consume(struct chrome_trace *t, const struct model_event *ev);
/* Leaves out every event of thread tid (the profiler's). 0 or -ENOMEM. */
int corecap_chrome_trace_skip_thread(struct chrome_trace *t, int32_t tid);
/* Names a thread (threads.tsv), unless the trace named it. */
int corecap_chrome_trace_name_thread(struct chrome_trace *t, int32_t tid, const char *name);
/* Writes the pool CPU counters of a series. */
void corecap_chrome_trace_counters(struct chrome_trace *t, const struct thread_series *s);
/* The kernel states' process id: the daemon's plus this (above PID_MAX_LIMIT). */
#define CHROME_KERNEL_PID_OFFSET 4194304
/* One kernel state slice [from_ns, to_ns) of thread tid; 0 or -ENOMEM. */
int corecap_chrome_trace_kstate(struct chrome_trace *t, int32_t tid, const char *state,
				uint64_t from_ns, uint64_t to_ns);
/* A futex wait's end as a flow (ph s, f; cat "kernel", "futex wake") in the
 * kernel states' process: from the holder at its wake (wake_ns) to the
 * waiter's return (end_ns). 0 or -ENOMEM. */
int corecap_chrome_trace_kwake(struct chrome_trace *t, int32_t holder, int32_t waiter,
			       uint64_t wake_ns, uint64_t end_ns);
/* Closes open slices at the window's end, writes the metadata, ends the document. */
int corecap_chrome_trace_finish(struct chrome_trace *t, const char *process_name);
void corecap_chrome_trace_release(struct chrome_trace *t);

#endif
