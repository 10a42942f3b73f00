/*
 * tick_clock.h: cheap timestamps for durations (lock waits and holds, I/O
 * calls). Where the TSC is invariant and is the kernel's own clock source,
 * a tick is one TSC cycle (rdtsc: ~10 ns here, half a vDSO clock_gettime);
 * elsewhere a tick is a CLOCK_MONOTONIC nanosecond. Ticks are only ever
 * subtracted and converted; points in time that readers compare with the
 * trace (thread start, hot_since_ns...) keep using now_ns().
 *
 * Invariant: tick_mult is set once, by the constructor, before any thread
 * the shim times exists; it never changes afterwards.
 */
#ifndef CORECAP_PRELOAD_TICK_CLOCK_H
#define CORECAP_PRELOAD_TICK_CLOCK_H

#include <stdint.h>

#include "util.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* ns = ticks * tick_mult / 2^32; 0 means ticks are nanoseconds. */
extern uint64_t tick_mult;

static inline uint64_t ticks(void)
{
#if defined(__x86_64__)
	if (likely(tick_mult))
		return __rdtsc();
#endif
	return now_ns();
}

static inline uint64_t ticks_to_ns(uint64_t t)
{
	return tick_mult ? (uint64_t)(((unsigned __int128)t * tick_mult) >> 32) : t;
}

/* The inverse, for intervals set once (not on a hot path: it divides). */
static inline uint64_t ticks_from_ns(uint64_t ns)
{
	return tick_mult ? (uint64_t)(((unsigned __int128)ns << 32) / tick_mult) : ns;
}

/*
 * Decides whether the TSC can be used and measures its rate against
 * CLOCK_MONOTONIC over about a millisecond. Returns 1 if ticks are TSC
 * cycles, 0 if they are nanoseconds.
 */
int tick_clock_init(void);

#endif /* CORECAP_PRELOAD_TICK_CLOCK_H */
