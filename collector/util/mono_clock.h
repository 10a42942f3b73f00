/*
 * mono_clock.h: the collector's one reading of CLOCK_MONOTONIC, the clock
 * of every time in a run directory (docs/run-directory.md).
 */
#ifndef CORECAP_MONO_CLOCK_H
#define CORECAP_MONO_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Added to every reading: the daemon's time namespace offset less
 * ours, when they differ (timens.h, corecap_run_clock_follow); else 0. */
extern int64_t corecap_run_clock_shift_ns;

/* Now, in CLOCK_MONOTONIC nanoseconds of the run's clock (the daemon's). */
static inline uint64_t corecap_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec +
	       (uint64_t)corecap_run_clock_shift_ns;
}

/*
 * CLOCK_REALTIME minus CLOCK_MONOTONIC, in ns: what turns the window's
 * monotonic times into the wall-clock times a daemon stamps its own
 * records with (Ceph's OpTracker). The realtime read is bracketed by two
 * monotonic reads, and the tightest of five brackets is kept, so the
 * offset is good to about a microsecond.
 */
static inline int64_t corecap_realtime_offset_ns(void)
{
	uint64_t best_gap = UINT64_MAX;
	int64_t best = 0;

	for (int i = 0; i < 5; i++) {
		struct timespec rt;
		uint64_t a = corecap_now_ns(), b;

		clock_gettime(CLOCK_REALTIME, &rt);
		b = corecap_now_ns();
		if (b - a < best_gap) {
			best_gap = b - a;
			best = (int64_t)((uint64_t)rt.tv_sec * 1000000000ull +
					 (uint64_t)rt.tv_nsec) -
			       (int64_t)(a + (b - a) / 2);
		}
	}
	return best;
}

#endif /* CORECAP_MONO_CLOCK_H */
