#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ceph_sampled.h"

int corecap_ceph_sampled_init(struct ceph_sampled *s, const struct ceph_files *c,
			      int64_t realtime_offset_ns, uint64_t period_ns)
{
	*s = (struct ceph_sampled){
		.ceph = c,
		.realtime_offset_ns = realtime_offset_ns,
		.period_ns = period_ns,
	};
	s->types = calloc(c->n_types ? c->n_types : 1, sizeof(*s->types));
	if (!s->types)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_types; i++) {
		struct ceph_sampled_type *ty = &s->types[i];
		size_t n = c->types[i].n_phases * STACK__COUNT;

		ty->n_phases = c->types[i].n_phases;
		if (!n)
			continue;
		ty->phase_thread_ns = calloc(n, sizeof(*ty->phase_thread_ns));
		ty->phase_cat_ns = calloc(n, sizeof(*ty->phase_cat_ns));
		if (!ty->phase_thread_ns || !ty->phase_cat_ns) {
			corecap_ceph_sampled_release(s);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < c->n_spans; i++) {
		const struct ceph_op_span *sp = &c->spans[i];
		uint64_t d = sp->reply_ns - sp->arrival_ns;

		if (d > s->max_span_ns)
			s->max_span_ns = d;
		if (sp->type < c->n_types) {
			s->types[sp->type].ops++;
			s->types[sp->type].lat_sum_ns += d;
		}
	}
	return 0;
}

void corecap_ceph_sampled_release(struct ceph_sampled *s)
{
	for (size_t i = 0; s->types && i < s->ceph->n_types; i++) {
		free(s->types[i].phase_thread_ns);
		free(s->types[i].phase_cat_ns);
	}
	free(s->types);
	memset(s, 0, sizeof(*s));
}

/* The phase sp was in at t: the one its last event by t opens; -1: none. */
static long phase_at(const struct ceph_files *c, const struct ceph_op_span *sp, uint64_t t)
{
	long phase = -1;

	for (uint32_t k = 0; k < sp->n_ev && sp->ev0 + k < c->n_events; k++) {
		const struct ceph_op_event *e = &c->events[sp->ev0 + k];

		if (e->t_ns <= t)
			phase = e->phase == CEPH_NO_PHASE ? -1 : (long)e->phase;
	}
	return phase;
}

/* The first span that arrives after t (spans are sorted by arrival). */
static size_t first_after(const struct ceph_files *c, uint64_t t)
{
	size_t lo = 0, hi = c->n_spans;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->spans[mid].arrival_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void corecap_ceph_sampled_add(struct ceph_sampled *s, uint64_t time_ns, enum stack_cat cat)
{
	const struct ceph_files *c = s->ceph;
	uint64_t t = (uint64_t)((int64_t)time_ns + s->realtime_offset_ns);
	size_t end = first_after(c, t), k = 0;
	double w;

	if (cat == STACK_IDLE) {
		s->samples_idle++;
		return;
	}
	/* In flight at t: arrived by t, not replied before t; none arrived
	 * more than the longest op's life ago. */
	for (size_t i = end; i-- > 0 && c->spans[i].arrival_ns + s->max_span_ns >= t;)
		k += c->spans[i].reply_ns >= t;
	if (!k) {
		s->samples_outside_ops++;
		return;
	}
	s->samples_in_ops++;
	w = 1.0 / (double)k;
	for (size_t i = end; i-- > 0 && c->spans[i].arrival_ns + s->max_span_ns >= t;) {
		const struct ceph_op_span *sp = &c->spans[i];

		if (sp->reply_ns < t || sp->type >= c->n_types)
			continue;
		struct ceph_sampled_type *ty = &s->types[sp->type];
		long ph = phase_at(c, sp, t);

		ty->thread_ns[cat] += w * (double)s->period_ns;
		ty->samples += w;
		if (ph >= 0 && (size_t)ph < ty->n_phases)
			ty->phase_thread_ns[(size_t)ph * STACK__COUNT + cat] +=
				w * (double)s->period_ns;
	}
}

void corecap_ceph_sampled_finish(struct ceph_sampled *s)
{
	for (size_t i = 0; i < s->ceph->n_types; i++) {
		struct ceph_sampled_type *ty = &s->types[i];
		double per_op[STACK__COUNT], sum = 0, scale = 1;
		uint64_t given = 0;

		if (!ty->ops)
			continue;
		ty->lat_avg_ns = ty->lat_sum_ns / ty->ops;
		for (int c = STACK_CPU; c < STACK__COUNT; c++) {
			per_op[c] = ty->thread_ns[c] / (double)ty->ops;
			sum += per_op[c];
		}
		if (sum > (double)ty->lat_avg_ns) {
			scale = (double)ty->lat_avg_ns / sum;
			ty->scaled = true;
		}
		for (int c = STACK_CPU; c < STACK__COUNT; c++) {
			ty->cat_ns[c] = (uint64_t)(per_op[c] * scale);
			given += ty->cat_ns[c];
		}
		for (size_t k = 0; k < ty->n_phases * STACK__COUNT; k++)
			ty->phase_cat_ns[k] =
				(uint64_t)(ty->phase_thread_ns[k] / (double)ty->ops * scale);
		/* Rounding never makes the sum exceed the latency. */
		ty->queue_ns = ty->lat_avg_ns > given ? ty->lat_avg_ns - given : 0;
	}
	s->finished = true;
}
