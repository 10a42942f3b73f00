/*
 * ceph_sampled: the attribution rule (docs/methodology.md, "Per-op attribution") for ops that a daemon records
 * itself but does not annotate (Ceph's OpTracker history), estimated from
 * wall-clock samples of the threads on the op path (docs/methodology.md,
 * "Ops without annotations").
 *
 * Each op lives from its arrival to its reply (ceph_files spans, the
 * daemon's wall clock). Each sample of an op-path thread that is not idle
 * stands for one sampling period of that thread's time in its category
 * (stack_class); that time is shared equally among the ops in flight at
 * the sample's instant, so with one op in flight it is all that op's.
 * Per op type, the mean time per op in each category follows; what the
 * samples do not cover of the mean latency is `queue` (no thread had the
 * op), and if the samples cover more than the latency (threads working
 * for the same ops in parallel), the categories are scaled down to it and
 * `scaled` says so. The categories of a type thus sum to its mean
 * latency, by construction; unlike the annotated attribution, this holds
 * per type and on average, not op by op. A sample's time is also credited
 * to the phase each op was in at that instant (the OpTracker event it
 * had passed last), so the categories can be read per phase.
 */
#ifndef CORECAP_CEPH_SAMPLED_H
#define CORECAP_CEPH_SAMPLED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/ceph_ops.h"
#include "stack_class.h"

struct ceph_sampled_type {
	double thread_ns[STACK__COUNT]; /* credited thread time, all ops of the type */
	double samples;			/* credited samples (weights) */
	size_t ops;			/* spans of the type */
	uint64_t lat_sum_ns;		/* their arrival-to-reply sum */
	/* After finish, per op: the categories (STACK_IDLE unused) and queue. */
	uint64_t lat_avg_ns, cat_ns[STACK__COUNT], queue_ns;
	bool scaled;
	/* Per phase of the type (ceph_op_type.phases): thread time credited
	 * while the op was in that phase, and after finish its share per op
	 * (scaled as the type's). n_phases * STACK__COUNT, phase-major. */
	double *phase_thread_ns;
	uint64_t *phase_cat_ns;
	size_t n_phases;
};

struct ceph_sampled {
	const struct ceph_files *ceph;
	int64_t realtime_offset_ns; /* the daemon's wall clock minus the samples' clock */
	uint64_t period_ns;	    /* one sample's worth of a thread's time */
	uint64_t max_span_ns;
	struct ceph_sampled_type *types; /* parallel to ceph->types */
	/* Samples of op-path threads: idle ones, and the others inside and
	 * outside every op's life. */
	uint64_t samples_idle, samples_in_ops, samples_outside_ops;
	bool finished;
};

/* 0 or -ENOMEM; c must have spans and outlive s. */
int corecap_ceph_sampled_init(struct ceph_sampled *s, const struct ceph_files *c,
			      int64_t realtime_offset_ns, uint64_t period_ns);
void corecap_ceph_sampled_release(struct ceph_sampled *s);
/* One sample of an op-path thread, taken at time_ns (the samples' clock). */
void corecap_ceph_sampled_add(struct ceph_sampled *s, uint64_t time_ns, enum stack_cat cat);
void corecap_ceph_sampled_finish(struct ceph_sampled *s);

#endif
