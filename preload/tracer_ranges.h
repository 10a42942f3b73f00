/*
 * tracer_ranges.h: where the tracer's own code lives. LTTng-UST takes
 * pthread locks, waits and writes from the daemon's threads too (its RCU
 * registry lock in a thread-exit destructor, ring-buffer wakeups), and
 * a call from there must pass straight through: timing it is harmless,
 * but emitting an event from it re-enters LTTng-UST, which may take the
 * very lock it holds (a deadlock seen in refosd's shutdown). So each
 * slow path checks its return address against the text of the loaded
 * LTTng-UST libraries and of the probes (libcorecap-tp).
 *
 * Filled once (these libraries load with the shim), read without locks.
 */
#ifndef CORECAP_PRELOAD_TRACER_RANGES_H
#define CORECAP_PRELOAD_TRACER_RANGES_H

#include <stdbool.h>
#include <stdint.h>

#define TRACER_RANGES_MAX 16

struct tracer_ranges {
	uint32_t n;
	uint32_t ready; /* set once filled */
	struct {
		uint64_t start, end;
	} r[TRACER_RANGES_MAX];
};

extern struct tracer_ranges g_tracer_ranges;

/*
 * Records the executable segments of the tracer's libraries; returns how
 * many. Called by the constructor, and earlier by pthread_create if
 * LTTng-UST starts its threads before the shim's constructor has run.
 */
int tracer_ranges_init(struct tracer_ranges *t);

static inline void tracer_ranges_ensure(struct tracer_ranges *t)
{
	if (!__atomic_load_n(&t->ready, __ATOMIC_ACQUIRE))
		tracer_ranges_init(t);
}

/* Is this code address inside the tracer? */
static inline bool tracer_ranges_contain(const struct tracer_ranges *t, uint64_t addr)
{
	uint32_t n = __atomic_load_n(&t->n, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < n; i++)
		if (addr - t->r[i].start < t->r[i].end - t->r[i].start)
			return true;
	return false;
}

#endif /* CORECAP_PRELOAD_TRACER_RANGES_H */
