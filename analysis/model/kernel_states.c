#include "kernel_states.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int corecap_kernel_states_init(struct kernel_states *k, uint64_t ws, uint64_t we)
{
	*k = (struct kernel_states){.ws = ws, .we = we};
	corecap_u64map_init(&k->by_tid);
	return 0;
}

void corecap_kernel_states_release(struct kernel_states *k)
{
	for (size_t i = 0; i < k->len; i++)
		free(k->all[i]);
	free(k->all);
	corecap_u64map_release(&k->by_tid);
	free(k->cpus);
	*k = (struct kernel_states){0};
}

const char *corecap_kstate_name(enum kstate s)
{
	static const char *const names[] = {"running", "runnable", "futex", "blocked"};

	return s < KSTATE__COUNT ? names[s] : "?";
}

static struct kstate_thread *get(struct kernel_states *k, int32_t tid)
{
	struct kstate_thread *th = corecap_tid_cache_get(&k->recent, tid), **all;
	bool inserted;
	uint64_t *idx;

	if (th)
		return th;
	if (!(idx = corecap_u64map_upsert(&k->by_tid, (uint64_t)(uint32_t)tid, &inserted)))
		return NULL;
	if (!inserted)
		return corecap_tid_cache_put(&k->recent, tid, k->all[*idx]);
	if (k->len == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 64;

		all = realloc(k->all, cap * sizeof(*all));
		if (!all)
			goto fail;
		k->all = all;
		k->cap = cap;
	}
	th = calloc(1, sizeof(*th));
	if (!th)
		goto fail;
	th->tid = tid;
	th->state = -1;
	th->start_ns = k->ws;
	th->end_ns = k->we;
	*idx = k->len;
	k->all[k->len++] = th;
	return corecap_tid_cache_put(&k->recent, tid, th);
fail:
	corecap_u64map_remove(&k->by_tid, (uint64_t)(uint32_t)tid);
	return NULL;
}

/* Charges the current state from `since` to `now`, inside the thread's span. */
static void account(const struct kernel_states *k, struct kstate_thread *th, uint64_t now)
{
	uint64_t b = th->since > th->start_ns ? th->since : th->start_ns;
	uint64_t e = now < th->end_ns ? now : th->end_ns;

	if (th->state >= 0 && e > b) {
		th->ns[th->state] += e - b;
		if (th->undecided && th->state == KSTATE_BLOCKED)
			th->undecided_ns += e - b; /* its slice waits for decide() */
		else if (k->on_slice)
			k->on_slice(k->slice_ctx, th, (enum kstate)th->state, b, e);
	}
	if (now > th->since)
		th->since = now;
}

/* The first record of a thread: it was in `before` since its span began. */
static void first(struct kstate_thread *th, int before)
{
	if (th->state >= 0)
		return;
	th->state = before;
	th->since = th->start_ns;
	th->undecided = before == KSTATE_BLOCKED;
}

static void set_state(const struct kernel_states *k, struct kstate_thread *th, uint64_t now,
		      int state)
{
	account(k, th, now);
	if (th->undecided && state != KSTATE_BLOCKED)
		th->undecided = false; /* what it was blocked on is decided elsewhere */
	th->state = state;
	th->seen = true;
}

/* The initial block was a futex wait begun before the recording. */
static void decide(const struct kernel_states *k, struct kstate_thread *th, bool futex)
{
	if (!th->undecided_ns && !th->undecided)
		return;
	/* The initial block, [start_ns, start_ns + undecided_ns): now known. */
	if (k->on_slice && th->undecided_ns)
		k->on_slice(k->slice_ctx, th, futex ? KSTATE_FUTEX : KSTATE_BLOCKED, th->start_ns,
			    th->start_ns + th->undecided_ns);
	if (futex) {
		th->ns[KSTATE_BLOCKED] -= th->undecided_ns;
		th->ns[KSTATE_FUTEX] += th->undecided_ns;
		if (th->state == KSTATE_BLOCKED && th->undecided)
			th->state = KSTATE_FUTEX;
	}
	th->undecided_ns = 0;
	th->undecided = false;
}

static void copy_comm(struct kstate_thread *th, const char *comm)
{
	memcpy(th->comm, comm, sizeof(th->comm) - 1);
	th->comm[sizeof(th->comm) - 1] = '\0';
}

/*
 * Thread `cur` is current on CPU `cpu` at t, by a record of that CPU (a
 * switch's prev, a waking's waker, a system call's caller). If the records
 * last put another of the target's threads on that CPU and it is still
 * running by them, its switch-out was lost (docs/methodology.md, "Thread
 * states from the kernel"): it left after the CPU's last record of it,
 * and is asleep from there, so that it does not run on for the rest of
 * the window. `after` is current from t on (a switch's next; else cur);
 * *before_ns is the CPU's last record before this one (0: none).
 */
static int observe(struct kernel_states *k, uint32_t cpu, int32_t cur, int32_t after, uint64_t t,
		   uint64_t *before_ns)
{
	struct kstate_cpu *c;

	*before_ns = 0;
	if (cpu >= KSTATE_MAX_CPUS)
		return 0;
	if (cpu >= k->n_cpus) {
		size_t n = cpu + 1 > 2 * k->n_cpus ? cpu + 1 : 2 * k->n_cpus;
		struct kstate_cpu *v = realloc(k->cpus, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + k->n_cpus, 0, (n - k->n_cpus) * sizeof(*v));
		k->cpus = v;
		k->n_cpus = n;
	}
	c = &k->cpus[cpu];
	if (c->known && c->tid != cur && c->tid > 0) {
		struct kstate_thread *th = corecap_tid_cache_get(&k->recent, c->tid);
		uint64_t *idx;

		if (!th && (idx = corecap_u64map_find(&k->by_tid, (uint64_t)(uint32_t)c->tid)))
			th = k->all[*idx];

		if (th && th->state == KSTATE_RUNNING && th->cpu == cpu && !th->exited) {
			set_state(k, th, c->last_ns,
				  th->in_futex_wait ? KSTATE_FUTEX : KSTATE_BLOCKED);
			th->woken_running = false;
			k->lost_switch_outs++;
		}
	}
	if (c->known)
		*before_ns = c->last_ns;
	c->known = true;
	c->tid = after;
	c->last_ns = t;
	return 0;
}

static int on_switch(struct kernel_states *k, const struct corecap_krec_switch *r)
{
	struct kstate_thread *th;
	uint64_t t = r->h.time_ns, before;
	int ret = observe(k, r->h.cpu, r->prev_tid, r->next_tid, t, &before);

	if (ret)
		return ret;

	if ((r->flags & CORECAP_KSWITCH_PREV_TARGET) && r->prev_tid) {
		if (!(th = get(k, r->prev_tid)))
			return -ENOMEM;
		first(th, KSTATE_RUNNING);
		if (th->state != KSTATE_RUNNING) {
			/* Switched out, never in: woken, it came on after the CPU's
			 * last record (the kernel's own stream lacks some of the idle
			 * task's switches to a woken thread, docs/methodology.md).
			 * Asleep by the records (its waking lost too), when is not
			 * known: it stays asleep to here. */
			k->inconsistent++;
			if (th->state == KSTATE_RUNNABLE && before < t) {
				if (before < th->since)
					before = th->since;
				set_state(k, th, before, KSTATE_RUNNING);
				k->lost_switch_ins++;
			}
		}
		decide(k, th, false);
		if (r->prev_state_char == 'R' || (r->flags & CORECAP_KSWITCH_PREEMPTED) ||
		    th->woken_running)
			set_state(k, th, t, KSTATE_RUNNABLE);
		else
			set_state(k, th, t, th->in_futex_wait ? KSTATE_FUTEX : KSTATE_BLOCKED);
		th->woken_running = false;
	}
	if ((r->flags & CORECAP_KSWITCH_NEXT_TARGET) && r->next_tid) {
		if (!(th = get(k, r->next_tid)))
			return -ENOMEM;
		first(th, KSTATE_RUNNABLE);
		if (th->state != KSTATE_RUNNABLE)
			k->inconsistent++;
		set_state(k, th, t, KSTATE_RUNNING);
		th->cpu = r->h.cpu;
	}
	return 0;
}

static int on_waking(struct kernel_states *k, const struct corecap_krec_waking *r)
{
	struct kstate_thread *th;
	uint64_t before;

	if (!(r->flags & CORECAP_KWAKING_ANY_IRQ) && r->waker_tid != r->tid &&
	    r->h.time_ns >= k->ws && r->h.time_ns < k->we &&
	    corecap_u64map_find(&k->by_tid, (uint64_t)(uint32_t)r->waker_tid)) {
		k->wakes_daemon++;
		if (r->target_cpu >= 0 && (uint32_t)r->target_cpu != r->h.cpu)
			k->wakes_cross_cpu++;
	}
	if (observe(k, r->h.cpu, r->waker_tid, r->waker_tid, r->h.time_ns, &before) ||
	    !(th = get(k, r->tid)))
		return -ENOMEM;
	first(th, KSTATE_BLOCKED);
	if (th->state == KSTATE_FUTEX || th->state == KSTATE_BLOCKED) {
		account(k, th, r->h.time_ns);
		th->state = KSTATE_RUNNABLE;
		th->seen = true;
	} else if (th->state == KSTATE_RUNNING) {
		th->woken_running = true;
	}
	return 0;
}

static int on_futex(struct kernel_states *k, uint32_t cpu, int32_t tid, uint64_t t, bool enter,
		    uint32_t op)
{
	struct kstate_thread *th;
	uint64_t before;

	if (observe(k, cpu, tid, tid, t, &before) || !(th = get(k, tid)))
		return -ENOMEM;
	first(th, KSTATE_RUNNING);
	if (th->state != KSTATE_RUNNING) {
		/* A system call is made on a CPU: a switch-in was lost, after the
		 * CPU's last record when it had been woken. */
		k->inconsistent++;
		decide(k, th, false);
		if (th->state == KSTATE_RUNNABLE && before < t) {
			if (before < th->since)
				before = th->since;
			k->lost_switch_ins++;
		} else {
			before = t;
		}
		set_state(k, th, before, KSTATE_RUNNING);
	}
	th->cpu = cpu;
	if (enter) {
		decide(k, th, false);
		th->woken_running = false; /* a waking before this call was for an earlier sleep */
		th->in_futex_wait = CORECAP_FUTEX_IS_WAIT(op);
	} else {
		/* The exit of a wait whose enter came before the recording. */
		if (!th->in_futex_wait && th->undecided_ns)
			decide(k, th, true);
		th->in_futex_wait = false;
	}
	th->seen = true;
	return 0;
}

int corecap_kernel_states_consume(struct kernel_states *k, const struct corecap_krec *r)
{
	struct kstate_thread *th;
	uint64_t before;

	switch (r->type) {
	case CORECAP_KREC_SWITCH:
		return on_switch(k, (const struct corecap_krec_switch *)(const void *)r);
	case CORECAP_KREC_WAKING:
		return on_waking(k, (const struct corecap_krec_waking *)(const void *)r);
	case CORECAP_KREC_FUTEX_ENTER: {
		const struct corecap_krec_futex_enter *e = (const void *)r;

		return on_futex(k, r->cpu, e->tid, r->time_ns, true, e->op);
	}
	case CORECAP_KREC_FUTEX_EXIT:
		return on_futex(k, r->cpu,
				((const struct corecap_krec_futex_exit *)(const void *)r)->tid,
				r->time_ns, false, 0);
	case CORECAP_KREC_FORK: {
		const struct corecap_krec_fork *f = (const void *)r;

		if (observe(k, r->cpu, f->parent_tid, f->parent_tid, r->time_ns, &before))
			return -ENOMEM;
		if (!(f->flags & CORECAP_KFORK_SAME_PROCESS))
			return 0;
		if (!(th = get(k, f->child_tid)))
			return -ENOMEM;
		copy_comm(th, f->child_comm);
		if (th->state < 0) {
			/* New: runnable from its creation until it first runs. */
			if (r->time_ns > th->start_ns)
				th->start_ns = r->time_ns;
			th->state = KSTATE_RUNNABLE;
			th->since = th->start_ns;
		}
		return 0;
	}
	case CORECAP_KREC_EXIT: {
		const struct corecap_krec_exit *x = (const void *)r;

		if (observe(k, r->cpu, x->tid, x->tid, r->time_ns, &before) ||
		    !(th = get(k, x->tid)))
			return -ENOMEM;
		copy_comm(th, x->comm);
		first(th, KSTATE_RUNNING);
		account(k, th, r->time_ns);
		if (r->time_ns < th->end_ns)
			th->end_ns = r->time_ns > th->start_ns ? r->time_ns : th->start_ns;
		th->exited = true;
		return 0;
	}
	case CORECAP_KREC_TRACK: {
		const struct corecap_krec_track *t = (const void *)r;

		if (!(th = get(k, t->tid)))
			return -ENOMEM;
		if (!th->comm[0])
			copy_comm(th, t->comm);
		return 0;
	}
	default:
		return 0;
	}
}

void corecap_kernel_states_finish(struct kernel_states *k)
{
	for (size_t i = 0; i < k->len; i++) {
		struct kstate_thread *th = k->all[i];

		if (th->end_ns < th->start_ns)
			th->end_ns = th->start_ns; /* gone before the window */
		if (th->state < 0) {
			/* Tracked, never scheduled in the window: asleep all of it. */
			th->state = KSTATE_BLOCKED;
			th->since = th->start_ns;
		}
		if (!th->exited)
			account(k, th, th->end_ns);
		decide(k, th, false);
	}
}
