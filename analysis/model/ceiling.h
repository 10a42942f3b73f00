/*
 * ceiling: the daemon's own limit, the resource of the daemon that binds
 * first (docs/methodology.md, "The ceiling"). Every candidate resource
 * gets a utilization over the window W:
 *   lock    sum of hold times / W (a lock is one server);
 *   thread  (CPU time + time runnable but waiting for a CPU) / its span;
 *   pool    the same over all its threads' spans (pools of 2+ threads).
 * The binding resource is the one with the highest utilization; by the
 * utilization law throughput can grow at most 1/U before it saturates.
 * Below CEILING_SATURATED nothing binds (kind "none"): the load offered,
 * or the machine, not the daemon, sets the throughput. The cores are not
 * a candidate: whether this machine's cores bind is the other verdict
 * (projection.h, "on this machine"), and the two are never conflated (a
 * daemon's threads queue for CPUs the benchmark client takes, which is
 * no limit of the daemon's). The verdict keeps its evidence as sentences
 * with the numbers behind them, and the runners-up.
 */
#ifndef CORECAP_CEILING_H
#define CORECAP_CEILING_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "pool_table.h"

#define CEILING_SATURATED  0.70
#define CEILING_CANDIDATES 5

enum ceiling_kind { CEIL_NONE, CEIL_LOCK, CEIL_THREAD, CEIL_POOL, CEIL_CORES, CEIL_DEVICE };

struct ceiling_candidate {
	enum ceiling_kind kind;
	char name[CORECAP_LOCK_LABEL_MAX];
	double utilization;
	const void *ref; /* struct model_lock, model_thread or model_pool; NULL for cores */
};

struct ceiling {
	enum ceiling_kind kind;
	char name[CORECAP_LOCK_LABEL_MAX];
	double utilization;
	double headroom; /* 1 / utilization of the binding (or busiest) resource */
	char *verdict;	 /* one sentence */
	char **evidence;
	size_t n_evidence;
	struct ceiling_candidate top[CEILING_CANDIDATES]; /* sorted, highest first */
	size_t n_top;
	/*
	 * The CANDIDATES detail: the resources that ran most (a thread's or
	 * pool's CPU over its span, a lock's hold over W), highest first, as
	 * the diagnosis ranks them; time waiting for a CPU is no demand of
	 * the resource's (docs/methodology.md, "The diagnosis").
	 */
	struct ceiling_candidate running[CEILING_CANDIDATES];
	size_t n_running;
};

struct ceiling_inputs {
	const struct model *model;
	const struct pool_table *pools;
	int cores_available; /* 0: unknown */
};

int corecap_ceiling_compute(struct ceiling *c, const struct ceiling_inputs *in);
void corecap_ceiling_release(struct ceiling *c);
const char *corecap_ceiling_kind_name(enum ceiling_kind kind);

#endif
