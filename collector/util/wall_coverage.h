/*
 * struct corecap_wall_coverage: how evenly a wall-clock sampler reached
 * the threads of the window. Each thread due CORECAP_WALL_STARVED_MIN_DUE
 * samples or more is added once, with the samples due to it (its time in
 * the window times the rate) and those it got; the struct keeps how many
 * were added, how many got none, and the fewest and most samples and
 * samples per mille of due of any of them. Both samplers fill one: the
 * ptrace sampler as it forgets a thread (sources/wall_sampler.c), the
 * kernel's after the window (kernel/kernel_coverage.h). The manifest
 * writes it as wallclock.threads_counted ... thread_coverage_max_pm, from
 * which `report`, `flame` and `html` warn of uneven coverage
 * (docs/run-directory.md).
 */
#ifndef CORECAP_WALL_COVERAGE_H
#define CORECAP_WALL_COVERAGE_H

#include <stdint.h>

/* A thread due this many samples or more that got none is counted starved. */
#define CORECAP_WALL_STARVED_MIN_DUE 5u

struct corecap_wall_coverage {
	uint64_t threads_counted; /* threads added */
	uint64_t threads_starved; /* of them, those that got no sample */
	uint64_t thread_samples_min, thread_samples_max;
	/* Each thread's samples per mille of those due to it: the lowest and
	 * the highest. Apart, the wall flame graph draws the first thread
	 * narrower than the second for the same time. */
	uint64_t thread_coverage_min_pm, thread_coverage_max_pm;
};

/* One thread's samples due and taken; a thread due fewer than
 * CORECAP_WALL_STARVED_MIN_DUE is left out (a sample or two apart would
 * read as uneven). */
void corecap_wall_coverage_add(struct corecap_wall_coverage *c, uint64_t due, uint64_t taken);

#endif
