/*
 * ceph_ops: the values of what `corecap record` saved from a Ceph daemon's
 * admin socket (RUN/ceph/): its OpTracker ops by type, their spans and
 * events, and its perf counters. read/ceph_files.h fills them from the run
 * directory; model/ceph_sampled.h reads them. Values only, so that the
 * model needs no reader.
 */
#ifndef CORECAP_CEPH_OPS_H
#define CORECAP_CEPH_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	/* Its request id (the first word in its description's parentheses,
	 * "client.4181.0:123": a client op and its replicas' osd_repop share
	 * it) hashed, never 0; 0: none. */
	uint64_t reqid;
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
	/* The history drained in slices during the window (collector/sources/optracker_drain.h):
	 * its "corecap_drain"; drained false for one dump at the window's end. */
	struct {
		bool drained;
		double ops_seen, ops_kept, slices, sliced_ms, window_ms, longest_dump_ms;
		bool stopped; /* a command failed: only the ops drained before */
	} drain;
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

#endif
