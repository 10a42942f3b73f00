/*
 * stack_sample.h: full stacks for a bounded subset of waits, unwound with
 * libunwind's local unw_backtrace (DWARF CFI, so it works in code built
 * without frame pointers, like Ceph). Taken before the thread blocks, so
 * the unwind overlaps a wait that would happen anyway instead of
 * lengthening a critical section.
 *
 * Which waits: the first at each site (so every site has a stack), then
 * 1 in CORECAP_STACK_SAMPLE per site; at a few microseconds per unwind the
 * cost stays below 1/N of the waits' own.
 */
#ifndef CORECAP_PRELOAD_STACK_SAMPLE_H
#define CORECAP_PRELOAD_STACK_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

/* Is the wait that follows `waits_so_far` at a site sampled? */
static inline bool stack_sample_due(uint64_t waits_so_far, uint32_t every)
{
	return waits_so_far == 0 || (every && waits_so_far % every == 0);
}

/*
 * Fills out[0..max) with return addresses, out[0] being `site` (the
 * shim's own frames are dropped). Returns the number of frames, 0 if the
 * unwind failed.
 */
uint32_t stack_sample_capture(uint64_t *out, uint32_t max, uint64_t site);

#endif /* CORECAP_PRELOAD_STACK_SAMPLE_H */
