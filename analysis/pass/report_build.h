/*
 * report_build: reads and models one run (read/run.h) into the struct
 * report every renderer reads (render/report.h): the trace through the
 * model (thread states, attribution, locks; ops annotated or detected from
 * socket I/O, their critical paths with kernel events), then the other
 * sources into it (threads.tsv, shim stats, thread names, kernel events,
 * Ceph's files), the pools, the projection and the ceiling, and the
 * data-quality warnings each source gives. `corecap report` renders it;
 * html, compare and flame's lock and op kinds build on it too.
 */
#ifndef CORECAP_REPORT_BUILD_H
#define CORECAP_REPORT_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/ceiling.h"
#include "model/ceph_critical.h"
#include "model/ceph_sampled.h"
#include "model/critical_path.h"
#include "model/diagnosis.h"
#include "model/model.h"
#include "model/lock_rows.h"
#include "model/net_ops.h"
#include "model/pool_table.h"
#include "model/profiler_own.h"
#include "model/projection.h"
#include "model/stack_class.h" /* CORECAP_DEFAULT_LOG_SYMBOLS */
#include "pass/ceph_attrib.h"
#include "pass/consumers.h"
#include "pass/kernel_attrib.h"
#include "pass/pass.h"
#include "pass/report_symbols.h"
#include "read/kernel_reader.h"
#include "read/ceph_files.h"
#include "read/run.h"
#include "render/report.h"

enum report_ops { OPS_AUTO, OPS_ANNOTATED, OPS_DETECTED };

struct report_opts {
	const char *log_symbols; /* comma-separated fnmatch patterns: the logging code */
	const char *op_pools;	 /* the pools on a Ceph daemon's op path */
	FILE *dump_ops;		 /* each op's attribution, one line each; or NULL */
	bool lines;		 /* text: inlined calls and file:line of frames */
	bool keep_shim_frames;	 /* keep the shim's frames in the lock stacks */
	bool keep_profiler;	 /* keep the profiler's threads, locks and edges (profiler_own.h) */
	unsigned long top;	 /* text: rows of the lock table */
	enum report_ops ops;	 /* where ops come from: --ops */
	enum lock_sort lock_sort; /* the lock tables' order (model/lock_rows.h) */
	/* A scale run's fit the projection takes past the run's cores
	 * (pass/scale_build.h, found by the command); NULL: none. */
	const struct scaling_fit *scale_fit;
	const char *scale_dir; /* where it was measured */
};

/* Everything one report holds, released in one place. */
struct report_build {
	struct report_opts o;
	struct run *run; /* borrowed: its manifest may be marked partial */
	struct report_symbols syms;
	struct model model;
	bool has_model;
	struct net_ops net;  /* the op detector, when ops are detected */
	bool detecting;	     /* events go through net */
	uint64_t net_events; /* the daemon's socket I/O events that moved bytes */
	struct pool_table pools;
	struct ceiling ceiling;
	struct projection projection;
	struct profiler_own prof;   /* what is the profiler's own, and its cost */
	struct diagnosis diagnosis; /* the one answer, from the projection */
	char *bench_command;	    /* the benchmark's command, shell-quoted, for verify */
	struct projection_disk disks[PROJECTION_DISKS]; /* the daemon's, for the projection */
	size_t n_disks;
	uint64_t foreign_events;
	const char *missing[8];
	size_t n_missing;
	char **warnings;
	size_t n_warnings;
	bool has_stats;
	const char *incomplete_reason; /* the analysis found the run incomplete */
	uint64_t shim_io_calls, shim_contentions, shim_lock_wait_ns;
	bool has_ctx_switches;
	uint64_t ctx_switches;
	struct shim_io_delta shim_io[CORECAP_IO_CLASSES];
	struct ceph_files ceph;	     /* RUN/ceph/, from a Ceph daemon's admin socket */
	struct ceph_sampled sampled; /* its ops' categories, from wall samples */
	bool has_sampled;
	const char *sampled_why_not;
	struct kernel_quality kernel;
	bool has_kernel;
	/* The analysis pass (pass/pass.h) over the trace's events and the
	 * kernel records, its table the critical path, the thread states and
	 * futex locks, and the model. */
	struct pass pass;
	struct kernel_reader krecs; /* RUN/kernel/'s records, loaded before the trace */
	bool has_krecs;
	struct critical_path cp; /* the ops' critical paths, fed by the pass */
	bool has_crit;
	struct ceph_critical ceph_crit; /* the OpTracker ops' critical paths: the pass's marks */
	bool has_ceph_crit;
	struct kernel_pass kpass; /* the thread states and futex locks, fed by the pass */
	bool has_kpass;
};

/* The defaults of `corecap report`, for the other commands alike. */
void corecap_report_opts_init(struct report_opts *o);
/*
 * Builds the report of run (opened with run_opts.model, or loaded here)
 * into *r, which points into b and run: valid until
 * corecap_report_build_release(b). 0; -ENODATA for a partial run that
 * never started its window (said on stderr: nothing was measured);
 * another negative errno after printing the cause. Release b in all cases.
 */
int corecap_report_build(struct report_build *b, struct run *run, const struct report_opts *o,
			 struct report *r);
/*
 * What a command does: opens the run directory dir into *run and builds its
 * report (errors printed). o NULL: the defaults, with every frame kept (the
 * flame graphs cut the shim's by their own option). Release b, then close
 * run, in all cases.
 */
int corecap_report_build_dir(struct report_build *b, struct run *run, const char *dir,
			     const char *symfs, const struct report_opts *o, struct report *r);
void corecap_report_build_release(struct report_build *b);

#endif
