/*
 * hold_draw.h: the random draw that picks which of a hot lock's
 * uncontended holds the shim tracks (1 in CORECAP_HOLD_TIME, each
 * standing for that many holds of its length). Inline, so that the
 * holds it skips (7 in 8 by default) cost the lock wrapper these few
 * instructions and no call. A random draw, not a countdown: an op that
 * takes a fixed sequence of locks would otherwise track the same few of
 * them every time.
 *
 * The estimate: over n holds, sum(weight x tracked hold) is unbiased for
 * the sum of the holds; each hold is tracked independently with p = 1/N,
 * so the count's standard deviation is sqrt(n (N-1)) holds and the time's
 * sqrt((N-1) sum(d_i^2)) (check_hold_draw compares both with exact sums
 * on synthetic distributions).
 */
#ifndef CORECAP_PRELOAD_HOLD_DRAW_H
#define CORECAP_PRELOAD_HOLD_DRAW_H

#include <stdbool.h>
#include <stdint.h>

/* UINT32_MAX / every: a draw at most this is tracked (every >= 1). */
static inline uint32_t hold_draw_threshold(uint32_t every)
{
	return UINT32_MAX / (every ? every : 1);
}

/*
 * One xorshift32 step of *state (0: not seeded yet; seeded from its
 * address and the TSC); true for 1 in `every` draws when below =
 * hold_draw_threshold(every).
 */
static inline bool hold_draw(uint32_t *state, uint32_t below)
{
	uint32_t x = *state;

	if (__builtin_expect(!x, 0))
		x = ((uint32_t)(uintptr_t)state ^ (uint32_t)__builtin_ia32_rdtsc()) | 1;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x <= below;
}

#endif /* CORECAP_PRELOAD_HOLD_DRAW_H */
