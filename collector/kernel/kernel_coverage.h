/*
 * struct kernel_coverage: per thread of the target, what the kernel's
 * wall-clock sampler (`record --wallclock` with kernel events) owed it
 * and gave it, for the uneven-coverage warning the ptrace sampler has
 * (util/wall_coverage.h). The off-CPU rounds visit every live thread of
 * the target whatever its state (kernel_offcpu.h): the first and last
 * visit bound the thread's time, and each period of it in the window is
 * due one sample, on a CPU (a cpu-clock sample) or off it (a round's).
 * The samples written to wall.samples in the window are what it got.
 *
 * Guarantees: a thread never visited is not counted (its time is not
 * known); a table that could not grow is said (`failed`), and then no
 * figure is made of it.
 */
#ifndef CORECAP_COLLECTOR_KERNEL_COVERAGE_H
#define CORECAP_COLLECTOR_KERNEL_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/wall_coverage.h"

struct kernel_coverage_thread {
	int32_t tid;		    /* 0: an empty slot */
	uint64_t first_ns, last_ns; /* its first and last visit (the run's clock) */
	uint64_t taken;		    /* its samples in the window */
};

struct kernel_coverage {
	struct kernel_coverage_thread *slots; /* open addressing, cap a power of two */
	size_t n, cap;
	bool failed; /* out of memory: a thread not kept */
};

void kernel_coverage_init(struct kernel_coverage *c);
void kernel_coverage_release(struct kernel_coverage *c);
/* A round found tid at time_ns (with a sample of its own or not). */
void kernel_coverage_visit(struct kernel_coverage *c, int32_t tid, uint64_t time_ns);
/* One of tid's samples in the window was written. */
void kernel_coverage_taken(struct kernel_coverage *c, int32_t tid);
/* Each visited thread's due samples (its time in [start_ns, end_ns], to
 * one period after its last visit, times hz) and taken, into out. False
 * (out untouched) when the table failed or the window is unknown. */
bool kernel_coverage_sum(const struct kernel_coverage *c, unsigned hz, uint64_t start_ns,
			 uint64_t end_ns, struct corecap_wall_coverage *out);

#endif
