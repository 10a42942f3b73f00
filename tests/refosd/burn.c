/* burn: see burn.h. */
#include "burn.h"

#include <stdint.h>
#include <time.h>

static volatile uint64_t burn_sink;
static uint64_t spin_per_us = 1; /* iterations of spin() per microsecond */

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Pure CPU work the compiler cannot drop (xorshift into a volatile sink). */
static void spin(uint64_t iters)
{
	uint64_t x = burn_sink | 1;

	for (uint64_t i = 0; i < iters; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	burn_sink = x;
}

void burn_calibrate(void)
{
	uint64_t iters = 200000, best_ns = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t t0 = thread_cpu_ns(), dt;

		spin(iters);
		dt = thread_cpu_ns() - t0;
		if (dt && dt < best_ns)
			best_ns = dt;
	}
	spin_per_us = best_ns == UINT64_MAX ? 1000 : iters * 1000 / best_ns;
	if (!spin_per_us)
		spin_per_us = 1;
}

/*
 * Spin the calibrated amount for what is left, then check the thread's CPU
 * clock, and repeat until it says the work is done: the clock decides, so
 * preemption and frequency changes do not shorten the work. Calibration
 * keeps the fastest of its runs, so a chunk rarely overshoots, and a burn
 * costs two or three clock reads (system calls) rather than one every few
 * microseconds.
 */
void burn_cpu_us(unsigned cpu_us)
{
	uint64_t start, target = (uint64_t)cpu_us * 1000, done;

	if (!cpu_us)
		return;
	start = thread_cpu_ns();
	while ((done = thread_cpu_ns() - start) < target)
		spin(spin_per_us * ((target - done + 999) / 1000));
}
