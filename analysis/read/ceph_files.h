/*
 * ceph_files: what `corecap record` saved from a Ceph daemon's admin
 * socket (RUN/ceph/, docs/run-directory.md), summarised for the report.
 *
 * The OpTracker part: every op of historic_ops.json, grouped by type (the
 * first op of an osd_op's [...] list other than set-alloc-hint: write,
 * read, delete, ...; otherwise the message name, osd_repop), with count,
 * latency avg/p50/p99 (the op's own duration) and, per phase, the mean time
 * per op. A phase is named for the OpTracker event that opens it and lasts
 * until the next event (computed from the events' times, as Ceph's own
 * per-event durations are, but never negative).
 *
 * The perf part: the osd section's op* counters, end minus begin; a
 * {avgcount, sum} counter gives its mean over the window.
 *
 * Any layout is read without harm: a file of another shape (another Ceph
 * version, a hand-edited one) skips its section with a sentence in
 * warnings; an op without a description or with a negative, missing or
 * absurd duration is rejected and counted (ops_rejected), never averaged.
 */
#ifndef CORECAP_CEPH_FILES_H
#define CORECAP_CEPH_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

struct ceph_phase {
	char name[40];
	uint64_t total_ns;
};

struct ceph_op_type {
	char name[32];
	size_t count;
	uint64_t lat_avg_ns, lat_p50_ns, lat_p99_ns;
	/* Mean from the first event (header_read: the message's arrival) to
	 * commit_sent, or to done without one: what the perf counters'
	 * op_*_latency measure (receive stamp to reply), unlike the op's
	 * duration, which ends when the OpTracker drops the op. */
	uint64_t reply_avg_ns;
	uint64_t span_ns; /* first initiated to last done over these ops */
	uint64_t reply_sum_ns;
	struct ceph_phase *phases; /* in first-seen order */
	size_t n_phases;
};

/* One op of the history, in the daemon's wall clock (CLOCK_REALTIME ns):
 * from its first event (the message's arrival) to its reply (commit_sent,
 * else done). type indexes ceph_files.types. */
struct ceph_op_span {
	uint64_t arrival_ns, reply_ns;
	uint32_t type;
	uint32_t ev0, n_ev; /* its events: ceph_files.events[ev0 .. ev0 + n_ev) */
};

/* An op's event: its time (as the span's) and the phase it opens, an index
 * into its type's phases (CEPH_NO_PHASE for the last event, which opens none). */
#define CEPH_NO_PHASE UINT32_MAX
struct ceph_op_event {
	uint64_t t_ns;
	uint32_t phase;
};

struct ceph_perf_counter {
	char name[48];
	bool is_avg;	    /* {avgcount, sum} */
	double count_delta; /* avgcount delta, or the value's delta */
	double sum_s_delta; /* is_avg only */
};

struct ceph_files {
	bool has_optracker, has_perf;
	size_t n_ops;
	size_t history_size;	    /* the dump's "size": a history this full lost ops */
	struct ceph_op_type *types; /* by count, largest first */
	size_t n_types;
	struct ceph_op_span *spans; /* every op with both stamps, by arrival */
	size_t n_spans;
	struct ceph_op_event *events; /* the spans' events, in each op's order */
	size_t n_events;
	struct ceph_perf_counter *perf;
	size_t n_perf;
	size_t ops_rejected, ops_bad_duration;
	char **warnings; /* sections or ops skipped, one sentence each */
	size_t n_warnings;
};

/* 0 also when RUN/ceph/ is absent (nothing is set); a negative errno when a
 * file exists but cannot be read (the cause is printed). */
int corecap_ceph_files_load(struct ceph_files *c, const char *run_dir);
/* The same from parsed files (each may be NULL: absent); c is zeroed first
 * by the caller. For corecap_ceph_files_load and the fuzz harness. */
int corecap_ceph_files_parse(struct ceph_files *c, json_object *historic, json_object *perf_begin,
			     json_object *perf_end);
void corecap_ceph_files_release(struct ceph_files *c);
const struct ceph_perf_counter *corecap_ceph_files_perf(const struct ceph_files *c,
							const char *name);

#endif
