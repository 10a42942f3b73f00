/* The kernel wall-clock sampler's coverage per thread (kernel_coverage.h). */
#include "kernel_coverage.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_CAP 64u

void kernel_coverage_init(struct kernel_coverage *c)
{
	memset(c, 0, sizeof(*c));
}

void kernel_coverage_release(struct kernel_coverage *c)
{
	free(c->slots);
	kernel_coverage_init(c);
}

static struct kernel_coverage_thread *slot_of(struct kernel_coverage_thread *slots, size_t cap,
					      int32_t tid)
{
	size_t h = ((uint32_t)tid * 2654435761u) & (cap - 1);

	while (slots[h].tid && slots[h].tid != tid)
		h = (h + 1) & (cap - 1);
	return &slots[h];
}

/* tid's entry, added when absent (NULL: no memory). Kept under half full. */
static struct kernel_coverage_thread *find_or_add(struct kernel_coverage *c, int32_t tid)
{
	struct kernel_coverage_thread *s;

	if (c->n + 1 > c->cap / 2) {
		size_t cap = c->cap ? 2 * c->cap : FIRST_CAP;
		struct kernel_coverage_thread *p = calloc(cap, sizeof(*p));

		if (!p) {
			c->failed = true;
			return NULL;
		}
		for (size_t i = 0; i < c->cap; i++)
			if (c->slots[i].tid)
				*slot_of(p, cap, c->slots[i].tid) = c->slots[i];
		free(c->slots);
		c->slots = p;
		c->cap = cap;
	}
	s = slot_of(c->slots, c->cap, tid);
	if (!s->tid) {
		s->tid = tid;
		c->n++;
	}
	return s;
}

void kernel_coverage_visit(struct kernel_coverage *c, int32_t tid, uint64_t time_ns)
{
	struct kernel_coverage_thread *s = tid > 0 ? find_or_add(c, tid) : NULL;

	if (!s)
		return;
	if (!s->first_ns || time_ns < s->first_ns)
		s->first_ns = time_ns;
	if (time_ns > s->last_ns)
		s->last_ns = time_ns;
}

void kernel_coverage_taken(struct kernel_coverage *c, int32_t tid)
{
	struct kernel_coverage_thread *s = tid > 0 ? find_or_add(c, tid) : NULL;

	if (s)
		s->taken++;
}

bool kernel_coverage_sum(const struct kernel_coverage *c, unsigned hz, uint64_t start_ns,
			 uint64_t end_ns, struct corecap_wall_coverage *out)
{
	uint64_t period_ns;

	if (c->failed || !hz || !start_ns || end_ns <= start_ns)
		return false;
	period_ns = 1000000000ull / hz;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < c->cap; i++) {
		const struct kernel_coverage_thread *s = &c->slots[i];
		uint64_t from, to;

		if (!s->tid || !s->first_ns)
			continue; /* sampled on a CPU, never visited: its time is unknown */
		/* A visit stands for the period after it. */
		from = s->first_ns > start_ns ? s->first_ns : start_ns;
		to = s->last_ns + period_ns < end_ns ? s->last_ns + period_ns : end_ns;
		if (to <= from)
			continue;
		corecap_wall_coverage_add(out, ((to - from) * hz + 500000000ull) / 1000000000ull,
					  s->taken);
	}
	return true;
}
