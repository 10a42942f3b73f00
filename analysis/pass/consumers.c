#include "consumers.h"

static int cp_event(void *ctx, const struct model_event *ev)
{
	return corecap_critical_path_event(ctx, ev);
}

static int cp_krec(void *ctx, const struct corecap_krec *r)
{
	return corecap_critical_path_krec(ctx, r);
}

static int cp_op_end(void *ctx, const struct model_op_end *e)
{
	return corecap_critical_path_op_end(ctx, e->id, e->type, e->tid, e->end_ns, e->exclude);
}

static int cp_finish(void *ctx)
{
	return corecap_critical_path_finish(ctx);
}

struct pass_consumer corecap_pass_critical_path(struct critical_path *cp)
{
	return (struct pass_consumer){.on_event = cp_event,
				      .on_krec = cp_krec,
				      .on_op_end = cp_op_end,
				      .finish = cp_finish,
				      .ctx = cp};
}

static uint64_t ceph_next_ns(void *ctx)
{
	return corecap_ceph_critical_next_ns(ctx);
}

static int ceph_take(void *ctx)
{
	return corecap_ceph_critical_take(ctx);
}

struct pass_marks corecap_pass_ceph_marks(struct ceph_critical *cc)
{
	return (struct pass_marks){.next_ns = ceph_next_ns, .take = ceph_take, .ctx = cc};
}

static int model_event(void *ctx, const struct model_event *ev)
{
	return corecap_model_consume(ctx, ev);
}

static int model_finish(void *ctx)
{
	return corecap_model_finish(ctx);
}

int corecap_pass_model(struct pass *p, struct model *m)
{
	int ret = corecap_pass_add(
		p,
		&(struct pass_consumer){.on_event = model_event, .finish = model_finish, .ctx = m});

	if (!ret)
		corecap_pass_ops_of(p, m);
	return ret;
}

static int sched_krec(void *ctx, const struct corecap_krec *r)
{
	return corecap_sched_consume(ctx, r);
}

struct pass_consumer corecap_pass_sched(struct sched *s)
{
	return (struct pass_consumer){.on_krec = sched_krec, .ctx = s};
}

static int states_krec(void *ctx, const struct corecap_krec *r)
{
	return corecap_kernel_states_consume(ctx, r);
}

struct pass_consumer corecap_pass_kernel_states(struct kernel_states *k)
{
	return (struct pass_consumer){.on_krec = states_krec, .ctx = k};
}

static int futex_krec(void *ctx, const struct corecap_krec *r)
{
	return corecap_futex_locks_consume(ctx, r);
}

struct pass_consumer corecap_pass_futex_locks(struct futex_locks *f)
{
	return (struct pass_consumer){.on_krec = futex_krec, .ctx = f};
}
