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
	char section[64], key[64], label[96];
	double v[2];
	bool has[2];
	int decimals;
};

/* What a run measured (the sources of its figures). */
struct compare_sources {
	bool trace;  /* LTTng events: ops, per-thread waits, logging */
	bool shim;   /* the shim: lock, cond and I/O waits (its counters or its events) */
	bool kernel; /* kernel events: thread states, futex locks */
	bool optracker;
};

/* The headline's inputs, per run; has_*: known. */
struct compare_totals {
	bool has_iops, has_ops;
	double iops, ops_per_s; /* the benchmark's; the trace's (0: none) */
	double ops, latency_ns;	       /* traced ops, their summed latency */
	double cat_ns[CAT__COUNT];     /* summed per category */
	bool cat_measured[CAT__COUNT]; /* whether the run measures the category */
};

struct compare_diff {
	struct compare_row *v;
	size_t n, cap;
	const char *daemon[2];
	struct compare_sources src[2];
	struct compare_totals tot[2];
	char **warnings;
	size_t n_warnings;
	char headline[512];  /* different daemons: cost_line */
	char cost_line[512]; /* the whole daemon's costs per op (different daemons) */
};

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
/* What a run's per-op figures divide by; false when unknown (compare_diff.c). */
bool corecap_compare_run_ops(const struct report *r, double *ops);
/*
 * Scales column `column` of f by factor (rounded; totals recomputed), so
 * that a differential's columns compare per op. 0.
 */
void corecap_compare_scale_column(struct folded *f, int column, double factor);

#endif
