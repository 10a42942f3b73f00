/*
 * report: everything a rendering needs, gathered by pass/report_build.h
 * after reading and modelling. Renderers only read it; a new output
 * format is a new render_*.c over this struct and nothing else.
 */
#ifndef CORECAP_REPORT_H
#define CORECAP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../model/ceiling.h"
#include "../model/ceph_critical.h"
#include "../model/ceph_sampled.h"
#include "../model/critical_path.h"
#include "../model/diagnosis.h"
#include "../model/kernel_states.h"
#include "../model/lock_rows.h"
#include "../model/model.h"
#include "../model/net_ops.h"
#include "../model/projection.h"
#include "../model/pool_table.h"
#include "../model/profiler_own.h"
#include "../read/ceph_files.h"
#include "../read/manifest.h"
#include "../read/shim_stats.h"
#include <corecap/run_format.h>

struct symbolizer;

/* One frame of a code address: an inlined call or the function holding it. */
struct report_frame {
	const char *function;
	const char *file; /* NULL: DWARF has no line */
	unsigned line;
	bool inlined; /* inlined into the next frame */
};

#define REPORT_MAX_FRAMES 64

struct report {
	const char *run_dir;
	const struct run_manifest *manifest; /* NULL: no manifest (partial run) */
	const struct model *model;
	const struct pool_table *pools;
	const struct ceiling *ceiling;
	const struct projection *projection; /* NULL: not computed */
	const struct diagnosis *diagnosis;   /* the one answer, printed first; NULL: none */
	int cores_available;		     /* 0: unknown */
	bool window_from_manifest;
	size_t n_traces;
	uint64_t foreign_events;    /* events of other providers, ignored */
	const char *const *missing; /* run files absent: CORECAP_RUN_THREADS, ... */
	size_t n_missing;
	char **warnings; /* data-quality sentences */
	size_t n_warnings;
	/* Set when the analysis itself found the run incomplete (a stream file
	 * shorter than its index, events the shim counted missing from the
	 * trace), though its manifest says complete: the report is partial. */
	const char *incomplete_reason;
	bool has_stats;
	/* The shim's I/O per class over the window ([CORECAP_IO_CLASSES]); NULL: no stats. */
	const struct shim_io_delta *shim_io;
	size_t top_locks;	  /* text: rows of the lock table */
	enum lock_sort lock_sort; /* the lock tables' order (model/lock_rows.h) */
	/* Names a code address (a stack frame) for display. */
	const char *(*frame_name)(void *ctx, uint64_t addr);
	/*
	 * The frames of a return address (a stack frame, a lock site),
	 * innermost first, into out[0..max); 0 when none is known. NULL: none.
	 */
	size_t (*frame_sources)(void *ctx, uint64_t addr, struct report_frame *out, size_t max);
	/*
	 * What the call at a lock site (its return address) passes as its
	 * first argument, by type and member ("shard.lock", from DWARF): a
	 * heap lock's type beside its one name; NULL when unknown. NULL: none.
	 */
	const char *(*object_name)(void *ctx, uint64_t site);
	void *frame_ctx;
	bool lines; /* text: inlined calls and file:line of stack frames and sites */
	struct symbolizer *symbolizer; /* the run's (RUN/maps), for other commands; or NULL */
	const struct ceph_files *ceph; /* NULL, or empty without RUN/ceph/ */
	/* Its ops' categories from wall-clock samples; NULL with the reason
	 * in ceph_sampled_why_not (NULL too when there is no history). */
	const struct ceph_sampled *ceph_sampled;
	const char *ceph_sampled_why_not;
	const struct kernel_quality *kernel; /* RUN/kernel/'s records; NULL without them */
	/* The shim's process totals over the window (has_stats), and the
	 * threads' context switches from threads.tsv (has_ctx_switches). */
	uint64_t shim_io_calls, shim_contentions, shim_lock_wait_ns;
	bool has_ctx_switches;
	uint64_t ctx_switches;
	/* Ops detected from socket I/O (model/net_ops.h); NULL: annotated ops. */
	const struct net_ops *net_ops;
	/* The ops' critical paths (trace and kernel records); NULL without both. */
	const struct critical_path *critical_path;
	/* The OpTracker ops' critical paths in it; NULL without a Ceph history. */
	const struct ceph_critical *ceph_critical;
	/* The profiler's own threads and cost (model/profiler_own.h); NULL: unknown. */
	const struct profiler_own *profiler;
};

/* Both return 0, or -EIO when writing failed. */
int corecap_render_text(const struct report *r, FILE *out);
int corecap_render_json(const struct report *r, FILE *out);
/* The JSON report as an object (the caller puts it); NULL with *ret a negative errno. */
struct json_object;
struct json_object *corecap_render_json_object(const struct report *r, int *ret);

#endif
