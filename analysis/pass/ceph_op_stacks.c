#include "ceph_op_stacks.h"

#include <stdio.h>

#include "model/stack_class.h"

/* One phase of type t (index k): by category when sampled, else whole. */
static int add_phase(struct flame_stacks *fs, const struct ceph_op_type *t, size_t k,
		     const struct ceph_sampled_type *st, int column, uint64_t *total_ns)
{
	char phase[64];
	const char *frames[3] = {t->name, NULL, phase};
	uint64_t left = t->phases[k].total_ns, ns;
	int ret = 0;

	snprintf(phase, sizeof(phase), "phase %s", t->phases[k].name);
	if (!left)
		return 0;
	*total_ns += left;
	if (!st || k >= st->n_phases) {
		frames[1] = phase;
		return corecap_flame_stacks_add(fs, frames, 2, NULL, 0, false, false, left, column);
	}
	for (int c = STACK_CPU; c < STACK__COUNT && !ret && left; c++) {
		/* Per op, times the ops: the phase's share of the type's total. */
		ns = st->phase_cat_ns[k * STACK__COUNT + c] * (uint64_t)t->count;
		if (ns > left)
			ns = left;
		if (!ns)
			continue;
		left -= ns;
		frames[1] = corecap_stack_cat_name((enum stack_cat)c);
		ret = corecap_flame_stacks_add(fs, frames, 3, NULL, 0, false, false, ns, column);
	}
	if (!ret && left) {
		frames[1] = "queue"; /* no op-path thread worked on it: it waited */
		ret = corecap_flame_stacks_add(fs, frames, 3, NULL, 0, false, false, left, column);
	}
	return ret;
}

int corecap_ceph_op_stacks_add(struct flame_stacks *fs, const struct ceph_files *c,
			       const struct ceph_sampled *sampled, int column, uint64_t *total_ns)
{
	int ret = 0;

	*total_ns = 0;
	for (size_t i = 0; i < c->n_types && !ret; i++) {
		const struct ceph_op_type *t = &c->types[i];
		const struct ceph_sampled_type *st =
			sampled && sampled->types[i].ops ? &sampled->types[i] : NULL;

		for (size_t k = 0; k < t->n_phases && !ret; k++)
			ret = add_phase(fs, t, k, st, column, total_ns);
	}
	return ret;
}
