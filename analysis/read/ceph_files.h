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
 * {avgcount, sum} counter gives its mean over the window. The object
 * store's counters that time its disk I/O follow, named "SECTION.KEY"
 * (bluestore.kv_commit_lat, filestore.journal_latency, ...).
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

#include "../util/ceph_ops.h"

/* 0 also when RUN/ceph/ is absent (nothing is set); a negative errno and
 * *err (corecap/diag.h's error value, the caller frees it) when a file
 * exists but cannot be read. The OpTracker part comes from the run cache
 * when it holds the history's contents (read/ceph_cache.h), else from the
 * history parsed, then kept there. */
int corecap_ceph_files_load(struct ceph_files *c, const char *run_dir, char **err);
/* The same from parsed files (each may be NULL: absent), without the run
 * cache; c is zeroed first by the caller. For the fuzz harness. */
int corecap_ceph_files_parse(struct ceph_files *c, json_object *historic, json_object *perf_begin,
			     json_object *perf_end);
void corecap_ceph_files_release(struct ceph_files *c);
const struct ceph_perf_counter *corecap_ceph_files_perf(const struct ceph_files *c,
							const char *name);
/* The request id of an op's description, hashed (ceph_op_span.reqid); 0: none. */
uint64_t corecap_ceph_reqid_of(const char *desc);
/* The time of sp's first event whose name starts with prefix (its
 * daemon's CLOCK_REALTIME ns), or 0; its last event, which opens no
 * phase, has no name here. */
uint64_t corecap_ceph_files_event_ns(const struct ceph_files *c, const struct ceph_op_span *sp,
				     const char *prefix);
/*
 * Whether the OpTracker ops are every op of the window the history could
 * hold: one dump, under its size (past it Ceph keeps the slowest); or
 * drained, every op drained kept and the slices over the window.
 */
bool corecap_ceph_files_complete(const struct ceph_files *c);

#endif
