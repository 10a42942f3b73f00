/*
 * ceph_critical: the critical path (model/critical_path.h) of the ops a
 * Ceph daemon records itself (its OpTracker history, util/ceph_ops.h),
 * docs/methodology.md, "The critical path of an OpTracker op".
 *
 * No trace event begins or ends these ops: their times come from the
 * history, in the daemon's wall clock, moved onto the kernel records'
 * clock by the run's realtime offset. Each op of the window is an ext op
 * of the critical path from its arrival to its reply, and each of its
 * phases (an OpTracker event to the next, clipped to the op's life) one
 * more, so that the phases' paths are walks of their own that sum to the
 * phase's time exactly. An op (or phase) ends on the op-path thread that
 * was on a CPU at its end: the thread that stamped the event (the
 * messenger's for the message's own stamps up to queued_for_pg, a worker's
 * for the others, the reply included); if none was on a CPU then, the
 * op-path thread that left one last, within pick_ago_ns.
 *
 * Fed in time order: corecap_ceph_critical_feed(t) before each trace
 * event at t, then corecap_ceph_critical_finish.
 */
#ifndef CORECAP_CEPH_CRITICAL_H
#define CORECAP_CEPH_CRITICAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/ceph_ops.h"
#include "../util/u64map.h"
#include "critical_path.h"
#include "stack_class.h"

/* How long before an end its thread may have left its CPU (the history's
 * stamps are whole microseconds, the clock offset is read once). */
#define CORECAP_CEPH_CRITICAL_PICK_AGO_NS 200000ULL

/* One begin or end of an op or a phase, in the kernel records' clock. */
struct cc_mark {
	uint64_t t_ns;
	uint32_t span;	/* in ceph_files.spans */
	uint16_t phase; /* 0: the whole op; else 1 + the type's phase index */
	uint8_t end;	/* 1: an end, else a begin */
	uint8_t msgr;	/* an end the messenger stamped */
	uint32_t ev;	/* the event the phase opens: its index in the span */
	uint32_t seq;	/* its place among its span's marks */
};

struct ceph_critical {
	const struct ceph_files *ceph;
	struct critical_path *cp;
	/* The marks of the spans opened and not yet taken, a heap by time
	 * (ends before begins, then by span, phase and the order made): a span
	 * is opened when its arrival comes, so the heap holds the ops in
	 * flight, not the history. */
	struct cc_mark *marks;
	size_t n_marks, cap_marks;
	size_t next_span; /* the next span of the window to open */
	size_t taken;	  /* marks taken */
	int64_t off;	  /* realtime_offset_ns */
	uint32_t *slot0;  /* per type: its whole op's slot; its phases' follow */
	char **pools;	  /* the op path's pool patterns */
	size_t n_pools;
	uint64_t ops;	       /* ops of the window */
	uint64_t ops_out;      /* ops of the history outside the window */
	uint64_t unpicked;     /* ends with no op-path thread to end on */
	bool log_share;	       /* logging_share applied */
	uint64_t log_share_ns; /* the time it moved to logging, the whole ops' */
};

/*
 * For the spans of c in [cp->ws, cp->we] once moved by realtime_offset_ns
 * (CLOCK_REALTIME minus the records' clock); op_pools as ceph_attrib's.
 * 0 or -ENOMEM. c and cp must outlive cc.
 */
int corecap_ceph_critical_init(struct ceph_critical *cc, const struct ceph_files *c,
			       struct critical_path *cp, int64_t realtime_offset_ns,
			       const char *op_pools);
void corecap_ceph_critical_release(struct ceph_critical *cc);
/* The ops' and phases' begins and ends up to t. 0 or a negative errno. */
int corecap_ceph_critical_feed(struct ceph_critical *cc, uint64_t t);
/* The time of the next mark (UINT64_MAX: none left), and that mark into
 * the critical path: the analysis pass's merge (pass/pass.h) feeds the
 * records up to its time first. */
uint64_t corecap_ceph_critical_next_ns(const struct ceph_critical *cc);
int corecap_ceph_critical_take(struct ceph_critical *cc);
/* Whether every mark was taken. */
bool corecap_ceph_critical_done(const struct ceph_critical *cc);
int corecap_ceph_critical_finish(struct ceph_critical *cc);
/* A thread's wall-clock samples of one stack class (ceph_attrib's count). */
#define CORECAP_CC_SAMPLE_KEY(tid, cat) (((uint64_t)(uint32_t)(tid) << 3) | (uint64_t)(cat))
/*
 * Ceph's threads format their log entries themselves (no annotation says
 * when): the cpu and runqueue that each thread's credits on the paths
 * hold are split by the share of its pool's running samples (cpu and
 * logging classes of stack_class, counted per thread by
 * CORECAP_CC_SAMPLE_KEY) in logging code (all the sampled pools' share
 * when its own are fewer than 20), the logging part moved to logging.
 * Sums are kept exactly.
 * 0 or -ENOMEM.
 */
int corecap_ceph_critical_logging_share(struct ceph_critical *cc, const struct u64map *thread_cats);
/*
 * With a critical path the report leads an OpTracker type's split with it
 * (text, JSON split_lead, HTML); this says once what the OpTracker's own
 * phases, which follow it, count differently.
 */
#define CORECAP_CEPH_PHASES_DIFFER                                                                 \
	"the OpTracker's own split: a phase is the time from one of its events to the next, "      \
	"whatever the op's threads did meanwhile (ran, waited for a CPU or a lock, or no thread "  \
	"had the op); the critical path splits the same time by what held the op up"
/* Type ti's figures (phase 0: the whole op; k: its phase k - 1), or NULL. */
const struct cp_type *corecap_ceph_critical_type(const struct ceph_critical *cc, size_t ti,
						 size_t phase);

#endif
