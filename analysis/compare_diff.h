/*
 * compare_diff: two runs' figures side by side (`corecap compare`), B
 * against A, built from their reports: the benchmark's, the traced ops'
 * (per type and per category), the whole daemon's per op, the pools', and
 * the Ceph OpTracker's op types and phases when both runs have them. A
 * figure a run did not measure (no trace, no shim, no kernel events) has
 * no value on that side ("not measured"), never a 0. Also what makes the
 * two hard to compare, as warnings: different daemons, different sources
 * (shim or not, trace or not, kernel events or not), one side's OpTracker
 * only; and the headline, "B: 0.46x IOPS; latency +282.7 us/op, of which
 * queue +181, logging +68.7, cpu +21.6".
 */
#ifndef CORECAP_COMPARE_DIFF_H
#define CORECAP_COMPARE_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "model/op_table.h"
#include "model/folded.h"
#include "render/report.h"

/* One compared figure; has[s]: measured in run s. */
struct compare_row {
	char section[96], key[160], label[192];
	double v[2];
	bool has[2];
	int decimals;
	bool hidden; /* a pool idle in both runs: left out of text and JSON */
};

/* One configuration the two runs differ in: what, and each run's words. */
struct compare_config {
	char what[160];
	char *a, *b; /* the differing part; "" for none */
};

/* What a run measured (the sources of its figures). */
struct compare_sources {
	bool trace;  /* LTTng events: ops, per-thread waits, logging */
	bool shim;   /* the shim: lock, cond and I/O waits (its counters or its events) */
	bool kernel; /* kernel events: thread states, futex locks */
	bool optracker;
	bool path;	/* some op has a critical path (kernel scheduler records and ops) */
	bool ceph_path; /* some OpTracker op type has one (model/ceph_critical.h) */
};

/* The headline's inputs, per run; has_*: known. */
struct compare_totals {
	bool has_iops, has_ops;
	bool path;		      /* the categories are the critical path's (with runqueue) */
	double iops, ops_per_s;	      /* the benchmark's; the trace's (0: none) */
	double ops, latency_ns;	      /* traced ops, their summed latency */
	double cat_ns[CP__COUNT];     /* summed per category (runqueue: the path's only) */
	bool cat_measured[CP__COUNT]; /* whether the run measures the category */
};

struct compare_diff {
	struct compare_row *v;
	size_t n, cap;
	const char *daemon[2];
	struct compare_sources src[2];
	struct compare_totals tot[2];
	char **warnings;
	size_t n_warnings;
	/* The headline's split: the critical path's categories when both runs
	 * have one, else the annotations'. */
	bool use_path;
	bool path_ceph;	     /* the paths are the OpTracker ops' (no traced ops in either run) */
	char headline[1024]; /* different daemons: cost_line */
	char cost_line[512]; /* the whole daemon's costs per op (different daemons) */
	/* What the ops waited behind, grown most: "log cpu +30.1, ..." ("": none). */
	char behind[512];
	struct compare_config *config; /* what the runs' own records say differs */
	size_t n_config;
	char config_same[200]; /* what both runs recorded and is the same: "daemon command line" */
	char **idle_pools;     /* pools idle in both runs (no cpu, no run queue) */
	size_t n_idle_pools;
	char diag_change[1200]; /* a sentence when the diagnosis changed; "" */
};

/* Decimals' units below which a figure is not compared by its ratio. */
#define COMPARE_RATIO_FLOOR_UNITS 10

/* 0 or -ENOMEM; the reports must outlive d. */
int corecap_compare_diff_build(struct compare_diff *d, const struct report *a,
			       const struct report *b);
void corecap_compare_diff_release(struct compare_diff *d);
bool corecap_compare_same_daemon(const struct compare_diff *d);
/*
 * The headline from both runs' totals: "B: 0.46x IOPS; latency +282.7
 * us/op, of which queue +181, logging +68.7, cpu +21.6" (categories
 * measured in both, largest change first), naming what one run did not
 * measure.
 */
void corecap_compare_headline(const struct compare_totals t[2], char *buf, size_t len);
/*
 * B / A of a row, when both runs measured it and both are at least
 * COMPARE_RATIO_FLOOR_UNITS of its last decimal (a ratio of near-zero
 * values says nothing); false otherwise. Text and JSON both use it.
 */
bool corecap_compare_ratio(const struct compare_row *r, double *ratio);
/* Whether both runs measured the row and both round to zero: left out. */
bool corecap_compare_row_zero(const struct compare_row *r);
/*
 * Whether text, JSON and HTML print the row: at least one run measured
 * it, it is not hidden, and it is not zero (rounded) in both runs.
 */
bool corecap_compare_row_shown(const struct compare_row *r);
/*
 * The arguments in which two command lines differ, each side's own (the
 * option before a differing value kept as context): "--debug 1" and
 * "--debug 20". Both malloc'd ("" when a side has none); 0 or -ENOMEM.
 */
int corecap_compare_args(const char *const *a, size_t na, const char *const *b, size_t nb,
			 char **only_a, char **only_b);
/* What a run's per-op figures divide by; false when unknown (compare_diff.c). */
bool corecap_compare_run_ops(const struct report *r, double *ops);
/*
 * Scales column `column` of f by factor (rounded; totals recomputed), so
 * that a differential's columns compare per op. 0.
 */
void corecap_compare_scale_column(struct folded *f, int column, double factor);

#endif
