/*
 * ceph_op_stacks: the op flame graph of a Ceph OSD that corecap did not
 * annotate, from its OpTracker history (read/ceph_files.h, which is why it
 * lives in build/ and not model/): per op type,
 * the time of each phase (a phase runs from its event to the next), and,
 * when wall-clock samples split the ops (model/ceph_sampled.h), each
 * phase's time per category. Stacks are "TYPE;CATEGORY;phase NAME" (the
 * op palette colours the second frame by category; a phase's time the
 * samples did not cover is queue) or, without samples, "TYPE;phase NAME".
 * Weights are nanoseconds summed over the type's ops, so a type's root is
 * its ops' total phase time.
 */
#ifndef CORECAP_CEPH_OP_STACKS_H
#define CORECAP_CEPH_OP_STACKS_H

#include <stdint.h>

#include "read/ceph_files.h"
#include "model/ceph_sampled.h"
#include "model/flame_stacks.h"

/* Adds the stacks into fs (kind op), weight column `column`; sampled may be
 * NULL. *total_ns: the time added. 0 or -ENOMEM. */
int corecap_ceph_op_stacks_add(struct flame_stacks *fs, const struct ceph_files *c,
			       const struct ceph_sampled *sampled, int column, uint64_t *total_ns);

#endif
