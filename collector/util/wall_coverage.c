/* A wall-clock sampler's coverage per thread (wall_coverage.h). */
#include "wall_coverage.h"

void corecap_wall_coverage_add(struct corecap_wall_coverage *c, uint64_t due, uint64_t taken)
{
	uint64_t pm;

	if (due < CORECAP_WALL_STARVED_MIN_DUE)
		return;
	pm = taken * 1000 / due;
	if (!c->threads_counted || taken < c->thread_samples_min)
		c->thread_samples_min = taken;
	if (taken > c->thread_samples_max)
		c->thread_samples_max = taken;
	if (!c->threads_counted || pm < c->thread_coverage_min_pm)
		c->thread_coverage_min_pm = pm;
	if (pm > c->thread_coverage_max_pm)
		c->thread_coverage_max_pm = pm;
	c->threads_counted++;
	c->threads_starved += taken == 0;
}
