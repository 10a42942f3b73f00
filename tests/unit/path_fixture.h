/*
 * path_fixture.h: the critical path and the model fed as `corecap report`
 * feeds them (each event after the kernel records up to its time, then to
 * the model, whose op's end then closes the path's op, as the analysis
 * pass, pass/pass.h, hands it on), for the suites of what
 * reads critical paths (critical_path, profiler_own). The records are
 * written into b (kernel_records.h) before the first event is fed.
 */
#ifndef CORECAP_PATH_FIXTURE_H
#define CORECAP_PATH_FIXTURE_H

#include <check.h>
#include <stdlib.h>

#include "kernel_records.h"
#include "model/critical_path.h"
#include "model/model.h"

static struct kbuf b;
static struct critical_path cp;
static struct model m;
static const struct corecap_krec *recs[4096];

static inline void path_fixture_setup(void)
{
	struct model_config cfg = {.pid = -1};

	b = (struct kbuf){0};
	ck_assert_int_eq(corecap_critical_path_init(&cp, -1, 2), 0);
	ck_assert_int_eq(corecap_model_init(&m, &cfg), 0);
}

static inline void path_fixture_teardown(void)
{
	corecap_model_release(&m);
	corecap_critical_path_release(&cp);
	free(b.p);
}

/* The kernel records are all written: hand them to the path. */
static inline void start(void)
{
	corecap_critical_path_set_records(&cp, recs, kr_index(&b, 0, recs, 4096));
}

/* An op event (op.id, type "write") to the path, then to the model. */
static inline void feed(enum model_event_kind kind, uint64_t t, int32_t tid, uint64_t id)
{
	struct model_event ev = {.kind = kind, .ts_ns = t, .tid = tid, .pid = -1};

	ev.op.id = id;
	ev.op.str = "write";
	ck_assert_int_eq(corecap_critical_path_event(&cp, &ev), 0);
	ck_assert_int_eq(corecap_model_consume(&m, &ev), 0);
	if (m.has_ended)
		ck_assert_int_eq(corecap_critical_path_op_end(&cp, m.ended.id, m.ended.type,
							      m.ended.tid, m.ended.end_ns,
							      m.ended.exclude),
				 0);
}

#endif
