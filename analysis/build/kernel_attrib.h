/*
 * kernel_attrib: the report's figures from kernel events (RUN/kernel/,
 * read/kernel_reader.h): thread states (model/kernel_states.h) into the
 * model's threads, replacing threads.tsv's estimate, and the futex lock
 * table (model/futex_locks.h) into model.futex_locks, its waits' call
 * sites taken from the sampled user stacks: the first frame outside the
 * C library, the C++ runtime and corecap's own shim, symbolized as
 * wall.samples are. Wires the reading room to the model, as ceph_attrib.
 */
#ifndef CORECAP_KERNEL_ATTRIB_H
#define CORECAP_KERNEL_ATTRIB_H

#include <stdbool.h>
#include <stdint.h>

#include "model/kernel_states.h"
#include "model/model.h"
#include "read/kernel_reader.h"
#include "read/symbolizer.h"

/*
 * Reads RUN/kernel/ and fills the model (m->src.kernel and m->src.futex
 * set). 0; 1 when the run has no kernel/events.bin; a negative errno with
 * *err (malloc'd, naming the file) when it is unreadable or invalid.
 */
int corecap_kernel_attrib(struct model *m, const char *run_dir, struct symbolizer *sym,
			  struct kernel_quality *out, char **err);
/* The same from records already loaded (critical_attrib.h loads them before
 * the trace); 0 or a negative errno with *err. */
int corecap_kernel_attrib_loaded(struct model *m, const struct kernel_reader *k,
				 const char *run_dir, struct symbolizer *sym,
				 struct kernel_quality *out, char **err);

#endif
