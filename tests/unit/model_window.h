/*
 * model_window.h: a model over a one-second window [W, 2W) filled by hand,
 * for the suites of what reads a model's demands (the ceiling, the
 * projection, the diagnosis): a lock held for some time, a thread that ran
 * and waited for a CPU for given shares of the window.
 */
#ifndef CORECAP_MODEL_WINDOW_H
#define CORECAP_MODEL_WINDOW_H

#include <check.h>
#include <stdint.h>

#include "model/model.h"

#define W 1000000000ull /* a 1 s window */

static inline void model_window_init(struct model *m)
{
	struct model_config cfg = {
		.has_window = true, .window_start_ns = W, .window_end_ns = 2 * W, .pid = -1};

	ck_assert_int_eq(corecap_model_init(m, &cfg), 0);
}

/* The lock at `lock` held ns in all, by thread 1, at its site 0x10. */
static inline void model_window_hold(struct model *m, uint64_t lock, uint64_t ns)
{
	struct model_event ev = {.kind = MEV_LOCK_HOLD,
				 .ts_ns = 2 * W,
				 .tid = 1,
				 .pid = 1,
				 .lock = {.addr = lock, .site = 0x10, .dur_ns = ns}};

	ck_assert_int_eq(corecap_model_consume(m, &ev), 0);
}

/* A thread that ran cpu and waited for a CPU runq, in seconds of the window. */
static inline void model_window_thread(struct model *m, int tid, const char *name, double cpu,
				       double runq)
{
	ck_assert_int_eq(corecap_model_set_thread_cpu(m, tid, name, (uint64_t)(cpu * W),
						      (uint64_t)(runq * W), true, W),
			 0);
}

#endif
