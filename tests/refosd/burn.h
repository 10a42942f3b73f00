/*
 * burn: CPU work of a set length on the calling thread, for the options
 * that construct a bound (--op-cpu-us in the workers, --msgr-cpu-us in
 * the messenger, --finisher-cpu-us in the finisher, --log-cpu-us in the
 * log thread: docs/refosd.md). The length is measured on the thread's own
 * CPU clock, so preemption does not shorten the work.
 */
#ifndef REFOSD_BURN_H
#define REFOSD_BURN_H

/* Calibrates the spin loop; once, before any thread burns. */
void burn_calibrate(void);

/* Spends cpu_us microseconds of this thread's CPU time (0: nothing). */
void burn_cpu_us(unsigned cpu_us);

#endif /* REFOSD_BURN_H */
