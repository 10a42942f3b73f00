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

#include "model/futex_locks.h"
#include "model/kernel_states.h"
#include "model/model.h"
#include "pass/pass.h"
#include "read/kernel_reader.h"
#include "read/symbolizer.h"

struct kernel_wait_stack_ctx {
	const struct kernel_reader *k;
	struct symbolizer *sym;
};
/*
 * The thread states and the futex lock table as a consumer of the analysis
 * pass (pass/pass.h), which feeds it with the critical path, so that the
 * records are read once: init once the model has its window, add
 * corecap_kernel_pass_consumer to the pass's table, then
 * corecap_kernel_attrib_passed (which releases it) once every record was
 * fed, or corecap_kernel_pass_release when not (and
 * corecap_kernel_pass_alone then).
 */
struct kernel_pass {
	struct kernel_wait_stack_ctx sc;
	struct sched own;
	struct sched *s; /* the scheduler's replay ks and f read: own, which consume
			  * feeds, or another pass's (init_on) */
	struct kernel_states ks;
	struct futex_locks f;
};
void corecap_kernel_pass_init(struct kernel_pass *p, struct model *m, const struct kernel_reader *k,
			      struct symbolizer *sym);
/* The same, reading s, which another consumer of the pass feeds each
 * record first (the critical path's sched): one replay of the
 * scheduler for the three models. s must have met no thread yet (its
 * window becomes the model's); -EBUSY, nothing done, when it has. */
int corecap_kernel_pass_init_on(struct kernel_pass *p, struct model *m,
				const struct kernel_reader *k, struct symbolizer *sym,
				struct sched *s);
int corecap_kernel_pass_consume(void *p, const struct corecap_krec *r);
/* Its row of the pass's table (on_krec). */
struct pass_consumer corecap_kernel_pass_consumer(struct kernel_pass *p);
/* p initialized and fed every record of k in a pass of their own (the
 * records alone: a report whose trace's pass fed none, or not all); 0, or
 * a negative errno with *err (malloc'd, naming the run's kernel directory)
 * and p released. */
int corecap_kernel_pass_alone(struct kernel_pass *p, struct model *m, const struct kernel_reader *k,
			      struct symbolizer *sym, const char *run_dir, char **err);
/* The states and futex locks of a pass that fed every record into the
 * model (m->src.kernel and m->src.futex set), releasing p; 0, or a
 * negative errno with *err. */
int corecap_kernel_attrib_passed(struct model *m, struct kernel_pass *p,
				 const struct kernel_reader *k, const char *run_dir,
				 struct kernel_quality *out, char **err);
void corecap_kernel_pass_release(struct kernel_pass *p);

/*
 * A futex wait's call site outward (model/futex_locks.h's futex_stack_fn):
 * its sampled user stack without the frames of the C library, the C++
 * runtime and the shim. ctx is a struct kernel_wait_stack_ctx (sym may be
 * NULL: no frame is skipped). `corecap stat --kernel` uses it too.
 */
uint32_t corecap_kernel_wait_stack(void *ctx, int32_t tid, uint64_t enter_ns, uint64_t *frames,
				   uint32_t max);

#endif
