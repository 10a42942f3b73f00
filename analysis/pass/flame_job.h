/*
 * flame_job: builds the stacks of one flame-graph kind from a run
 * directory, wiring the reading room to flame_stacks (as cmd_report.c
 * wires it to the report):
 *
 *   cpu   RUN/cpu.prof (or a profile file given instead of RUN), pprof's
 *         rules, symbols from the profile's own maps text (the process's
 *         mappings when the profile stopped) and RUN/buildids.tsv;
 *         weight: samples.
 *   wall  RUN/wall.samples; the root frame is the thread's name (or its
 *         pool's, by_pool), from threads.tsv; symbols from RUN/maps;
 *         weight: samples.
 *   lock  the model's lock table: root frame the lock (as the report
 *         labels it), then the sampled wait stacks of each call site,
 *         outermost first; weight: wait ns. The shim samples stacks, so
 *         a site's total wait is spread over its sampled stacks in
 *         proportion to their own waits; a site without any sampled stack
 *         stands alone under its lock.
 *   op    the model's per-type attribution: op type; category; detail
 *         (the lock by its label without its address, so that locks of one
 *         kind taken at one site, like per-PG locks, merge; the queue
 *         phase; the I/O class; the logging source); weight: ns of op
 *         latency, over all finished ops.
 *
 * Frames of the shim and LTTng-UST are cut from every stack unless
 * keep_shim_frames. The cpu and wall stacks are classified as the report
 * classifies wall-clock samples (model/stack_class.h, with the report's
 * default log symbols), the lock stacks are lock waits, for the
 * pictures' colours; no_idle drops the wall stacks classified idle.
 * Errors are printed (corecap/diag.h) where they happen. A source the run
 * does not have returns -ENOENT, with a message saying how to record it.
 */
#ifndef CORECAP_FLAME_JOB_H
#define CORECAP_FLAME_JOB_H

#include <stdbool.h>
#include <stddef.h>

#include "model/flame_stacks.h"
#include "pass/report_build.h"
#include "read/pprof_names.h"
#include "read/run.h"
#include "read/symbolizer.h"
#include "render/report.h"

struct flame_job {
	const char *run; /* a run directory, or a CPU profile file */
	bool run_is_profile;
	const char *symfs;
	bool by_pool;
	/* lock: one root frame per lock label, not per lock (per-PG locks merge). */
	bool merge_lock_instances;
	bool quiet;	       /* no summary line on stderr */
	bool keep_shim_frames; /* keep the shim's and LTTng-UST's frames in stacks */
	bool keep_profiler;    /* keep the profiler's threads, locks, frames (profiler_own.h) */
	bool no_idle;	       /* wall: drop the stacks stack_class calls idle */
	bool names_pprof;      /* cpu: frames named as google-pprof names them (pprof_names.h) */
	struct run *rd;	       /* the run directory: borrowed, or &own_run */
	struct run own_run;
	const struct report *report; /* for lock and op: borrowed, or own_report */
	struct report_build own_build;
	struct report own_report;
	bool has_own_run, has_own_build;
	struct symbolizer *run_sym; /* RUN/maps (the run's), for cpu, wall and lock */
	bool tried_run_sym;
	char subtitle[256]; /* what the last build drew, for a picture */
	/* wall: the samples of the profiler's threads left out */
	uint64_t profiler_samples;
};

/*
 * run (a path: a run directory or a profile file) is opened unless rd, an
 * open run of it, is lent; report (of rd) may be NULL: it is built when a
 * kind needs it.
 */
int corecap_flame_job_init(struct flame_job *j, const char *run, const char *symfs, struct run *rd,
			   const struct report *report);
void corecap_flame_job_release(struct flame_job *j);
/* Whether the run holds the source of a kind (lock, op: reads the run to know). */
bool corecap_flame_job_has(struct flame_job *j, enum flame_kind kind);
/* Adds the stacks of `kind` into fs (whose kind it must be), weight column `column`. */
int corecap_flame_job_build(struct flame_job *j, struct flame_stacks *fs, int column);
/* The unit of a kind's weights: "samples" or "ns". */
const char *corecap_flame_kind_unit(enum flame_kind kind);

#endif
