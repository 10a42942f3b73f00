#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <corecap/stats_layout.h>

#include "stack_sample.h"

/* Wrapper, slow path, and this function: never more than this many. */
#define OWN_FRAMES_MAX 6

uint32_t stack_sample_capture(uint64_t *out, uint32_t max, uint64_t site)
{
	void *ips[CORECAP_STATS_STACK_DEPTH + OWN_FRAMES_MAX];
	int n, first = -1;
	uint32_t depth = 0;

	if (max > CORECAP_STATS_STACK_DEPTH)
		max = CORECAP_STATS_STACK_DEPTH;
	n = unw_backtrace(ips, (int)(max + OWN_FRAMES_MAX));
	for (int i = 0; i < n && i < OWN_FRAMES_MAX; i++) {
		if ((uint64_t)(uintptr_t)ips[i] == site) {
			first = i;
			break;
		}
	}
	if (first < 0) {
		/* The wrapper was reached by a tail call or the unwinder
		 * missed a frame: keep what we have, site first. */
		out[depth++] = site;
		first = n;
	}
	for (int i = first; i < n && depth < max; i++)
		out[depth++] = (uint64_t)(uintptr_t)ips[i];
	return depth;
}
