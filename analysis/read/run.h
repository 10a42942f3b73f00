/*
 * run: one run directory as every analysis command reads it
 * (docs/run-directory.md). It owns the directory, the manifest, the
 * symbols (RUN/maps, loaded once for every command that needs them), the
 * trace list and the shim's counters, and says of each optional source
 * (trace, maps, threads.tsv, shim stats, kernel events, wall samples,
 * cpu.prof, ceph files) whether it is present, absent or partial, and why.
 *
 * The rules of a partial run live here: a run recorded with --no-trace, or
 * of a daemon that was not registered with LTTng, has no trace to read; a
 * partial run with a window may lack its trace or hold one that cannot be
 * listed, and is analysed without it; one that never started its window
 * has nothing to measure (never_started).
 *
 * Errors come back as a malloc'd message in *err (naming the file and the
 * cause) with a negative errno; nothing is printed here.
 */
#ifndef CORECAP_RUN_H
#define CORECAP_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "manifest.h"
#include "shim_stats.h"
#include "symbolizer.h"
#include "thread_samples.h"
#include "thread_series.h"

enum run_source {
	RUN_MANIFEST, /* manifest.json */
	RUN_TRACE,    /* trace/ */
	RUN_MAPS,     /* maps (and buildids.tsv): the symbols */
	RUN_THREADS,  /* threads.tsv */
	RUN_STATS,    /* stats-begin, stats-end */
	RUN_KERNEL,   /* kernel/events.bin */
	RUN_WALL,     /* wall.samples */
	RUN_CPU_PROF, /* cpu.prof */
	RUN_CEPH,     /* ceph/ */
	RUN__SOURCES
};

enum run_state {
	RUN_ABSENT,
	RUN_PRESENT,
	RUN_PARTIAL, /* present, but cut short or unusable: see why */
};

struct run_source_state {
	enum run_state state;
	/* Why it is absent or partial, a sentence (static, or in whys); NULL: no reason known. */
	const char *why;
};

struct run_opts {
	const char *symfs; /* look up the daemon's ELF files under it; or NULL */
	/* A run to model (report, html, compare): checked to be a run
	 * directory, and its manifest, symbols, trace list and shim stats loaded
	 * (corecap_run_load_model). Otherwise the directory alone. */
	bool model;
};

struct run {
	const char *dir;
	char *owned_dir; /* dir when given as RUN:PID (read/multi_run.h) */
	const char *symfs;
	struct run_source_state src[RUN__SOURCES];
	bool model_loaded;
	int model_ret;		      /* what corecap_run_load_model answered */
	char *model_error;	      /* and its message */
	struct run_manifest manifest; /* zeroed defaults without manifest.json */
	bool has_manifest, tried_manifest;
	/* A partial run whose collector stopped before its window started:
	 * nothing was measured (the trace and stats are not loaded). */
	bool never_started;
	struct symbolizer sym; /* RUN/maps; addresses in hex when absent */
	bool has_sym;
	char **traces; /* the CTF traces under trace/, when RUN_TRACE is present */
	size_t n_traces;
	/* A partial run's trace that cannot be listed: the error (the trace is
	 * RUN_PARTIAL and not read). */
	char *trace_error;
	struct shim_stats stats; /* when RUN_STATS is present */
	char *stats_error;	 /* RUN_STATS partial: why the counters are unusable */
	/* kernel/events.bin, stacks.bin shorter than the manifest says: why (RUN_KERNEL partial) */
	char *kernel_cut[2];
};

/* The warning of a run file read up to its last whole line (its collector was killed). */
#define CORECAP_RUN_TORN_WARNING                                                                   \
	"'%s' ends in a torn line (its collector was killed while writing it): read up to its "    \
	"last whole line; the run is partial"

/*
 * 0, or a negative errno with *err (malloc'd). corecap_run_close() in both
 * cases. dir may name one daemon of a run of several as RUN:PID.
 */
int corecap_run_open(struct run *r, const char *dir, const struct run_opts *o, char **err);
/* Loads what a model needs (see run_opts.model), once; 0 or a negative errno with *err. */
int corecap_run_load_model(struct run *r, char **err);
/* Loads manifest.json once (absent: RUN_MANIFEST absent, 0); 0 or a negative errno with *err. */
int corecap_run_load_manifest(struct run *r, char **err);
/* Lists the CTF traces under trace/ into traces (maybe none); 0 or a negative errno with *err. */
int corecap_run_list_traces(struct run *r, char **err);
/*
 * The run's symbolizer, loaded on first use (RUN/maps absent: one that
 * names nothing, RUN_MAPS absent); NULL with *err and *ret when RUN/maps
 * cannot be read (asked again, it tries again).
 */
struct symbolizer *corecap_run_symbols(struct run *r, int *ret, char **err);
/*
 * threads.tsv, the run's one reader of it for every command: each thread's
 * first and last row from start_ns to end_ns (all rows when end_ns is 0;
 * thread_samples.h), into *s, initialised here. 0; -ENOENT when the run
 * has none (RUN_THREADS absent; no *err); another negative errno with *err.
 * *s is to be released in every case. A torn last line marks RUN_THREADS
 * partial (and s->torn_last_line says so; the caller warns).
 */
int corecap_run_thread_samples(struct run *r, uint64_t start_ns, uint64_t end_ns,
			       struct thread_samples *s, char **err);
/*
 * threads.tsv as CPU per pool over time (thread_series.h) from start_ns
 * to end_ns in bins of bin_ns, into *s, initialised here; the answers, the
 * release and a torn last line as corecap_run_thread_samples().
 */
int corecap_run_thread_series(struct run *r, uint64_t start_ns, uint64_t end_ns, uint64_t bin_ns,
			      struct thread_series *s, char **err);
/* The same, also listing the gaps longer than gap_ns without a row (s->gaps). */
int corecap_run_thread_series_gaps(struct run *r, uint64_t start_ns, uint64_t end_ns,
				   uint64_t bin_ns, uint64_t gap_ns, struct thread_series *s,
				   char **err);
/* Marks a source partial (a run file that ends in a torn line): the run is then partial. */
void corecap_run_mark_partial(struct run *r, enum run_source s, const char *why);
/* "DIR/NAME", malloc'd; NULL when out of memory. */
char *corecap_run_path(const struct run *r, const char *name);
void corecap_run_close(struct run *r);

#endif
