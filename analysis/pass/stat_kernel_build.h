/*
 * stat_kernel_build: one interval's run directory of kernel events (the
 * kernel source's, RUN/kernel/ alone) into `corecap stat`'s kernel view:
 * read by read/kernel_reader, modelled by model/kernel_states and
 * model/futex_locks as the report does (the waits' sites from the sampled
 * stacks, pass/kernel_attrib's), named by the symbolizer over the
 * daemon's maps, into model/stat_kernel_interval.h's figures.
 */
#ifndef CORECAP_BUILD_STAT_KERNEL_BUILD_H
#define CORECAP_BUILD_STAT_KERNEL_BUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../model/stat_kernel_interval.h"
#include "../read/symbolizer.h"

/* Whose interval, and what to keep. */
struct stat_kernel_of {
	pid_t pid;
	const char *comm;
	bool keep_profiler;
};

/*
 * The interval [ws, we] of run_dir, threads sorted by key; iv is to be
 * released whatever the result. 0, or a negative errno with *err
 * (malloc'd, or NULL when out of memory).
 */
int corecap_stat_kernel_build(struct stat_kernel_interval *iv, const char *run_dir, uint64_t ws,
			      uint64_t we, const struct stat_kernel_of *of, struct symbolizer *sym,
			      enum stat_ksort key, char **err);

#endif
