/*
 * mono_clock.h: the collector's one reading of CLOCK_MONOTONIC, the clock
 * of every time in a run directory (docs/run-directory.md).
 */
#ifndef CORECAP_MONO_CLOCK_H
#define CORECAP_MONO_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Now, in CLOCK_MONOTONIC nanoseconds. */
static inline uint64_t corecap_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* CORECAP_MONO_CLOCK_H */
