/*
 * consumers: the models as consumers of the analysis pass (pass.h), each a
 * table row over the model's own state: the critical path
 * (model/critical_path.h: records, events and the model's op ends), the
 * OpTracker's ops as the pass's marks (model/ceph_critical.h), and the
 * model (model/model.h: events; the op each event ends goes on); and the
 * kernel models over one replay of the scheduler: sched's row first, then
 * kernel_states' and futex_locks' (set up with init_on over that sched).
 */
#ifndef CORECAP_PASS_CONSUMERS_H
#define CORECAP_PASS_CONSUMERS_H

#include "model/ceph_critical.h"
#include "model/critical_path.h"
#include "model/futex_locks.h"
#include "model/kernel_states.h"
#include "model/model.h"
#include "model/sched.h"
#include "pass/pass.h"

struct pass_consumer corecap_pass_critical_path(struct critical_path *cp);
struct pass_marks corecap_pass_ceph_marks(struct ceph_critical *cc);

/* The model's row, appended to p's table; the ops its events end go to the
 * rows' on_op_end (corecap_pass_ops_of). 0 or -E2BIG. */
int corecap_pass_model(struct pass *p, struct model *m);

/* Records only; none finishes its model (its caller does, when it needs). */
struct pass_consumer corecap_pass_sched(struct sched *s);
struct pass_consumer corecap_pass_kernel_states(struct kernel_states *k);
struct pass_consumer corecap_pass_futex_locks(struct futex_locks *f);

#endif
