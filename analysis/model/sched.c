#include "sched.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool corecap_futex_wait_is_mutex(uint32_t op, uint32_t val, bool owner_is_thread)
{
	switch (CORECAP_FUTEX_CMD(op)) {
	case 6:	 /* FUTEX_LOCK_PI */
	case 13: /* FUTEX_LOCK_PI2 */
		return true;
	case 11: /* FUTEX_WAIT_REQUEUE_PI: a condition wait */
		return false;
	default:
		break;
	}
	if (val == CORECAP_FUTEX_LOCKED_WAITERS)
		return true;
	return (val & CORECAP_FUTEX_WAITERS) && (val & CORECAP_FUTEX_TID_MASK) && owner_is_thread;
}

void corecap_sched_init(struct sched *s, uint64_t ws, uint64_t we)
{
	*s = (struct sched){.ws = ws, .we = we};
	corecap_u64map_init(&s->by_tid);
}

void corecap_sched_release(struct sched *s)
{
	for (size_t i = 0; i < s->len; i++)
		free(s->all[i]);
	free(s->all);
	corecap_u64map_release(&s->by_tid);
	free(s->cpus);
	*s = (struct sched){0};
}

int corecap_sched_set_window(struct sched *s, uint64_t ws, uint64_t we)
{
	if (s->len)
		return -EBUSY;
	s->ws = ws;
	s->we = we;
	return 0;
}

struct sched_thread *corecap_sched_find(struct sched *s, int32_t tid)
{
	struct sched_thread *th = corecap_tid_cache_get(&s->recent, tid);
	uint64_t *idx;

	if (th || !(idx = corecap_u64map_find(&s->by_tid, (uint64_t)(uint32_t)tid)))
		return th;
	return corecap_tid_cache_put(&s->recent, tid, s->all[*idx]);
}

static struct sched_thread *get(struct sched *s, int32_t tid)
{
	struct sched_thread *th = corecap_tid_cache_get(&s->recent, tid), **all;
	bool inserted;
	uint64_t *idx;

	if (th)
		return th;
	if (!(idx = corecap_u64map_upsert(&s->by_tid, (uint64_t)(uint32_t)tid, &inserted)))
		return NULL;
	if (!inserted)
		return corecap_tid_cache_put(&s->recent, tid, s->all[*idx]);
	if (s->len == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;

		all = realloc(s->all, cap * sizeof(*all));
		if (!all)
			goto fail;
		s->all = all;
		s->cap = cap;
	}
	th = calloc(1, sizeof(*th));
	if (!th)
		goto fail;
	th->tid = tid;
	th->index = (uint32_t)s->len;
	th->state = -1;
	th->start_ns = s->ws;
	th->end_ns = s->we;
	*idx = s->len;
	s->all[s->len++] = th;
	return corecap_tid_cache_put(&s->recent, tid, th);
fail:
	corecap_u64map_remove(&s->by_tid, (uint64_t)(uint32_t)tid);
	return NULL;
}

/* The current state from `since` to `now`, inside the thread's span, to on_stretch. */
static void account(const struct sched *s, struct sched_thread *th, uint64_t now)
{
	uint64_t b = th->since > th->start_ns ? th->since : th->start_ns;
	uint64_t e = now < th->end_ns ? now : th->end_ns;

	if (s->on_advance)
		s->on_advance(s->advance_ctx, th, now);
	if (th->state >= 0 && e > b) {
		if (th->undecided && th->state == SCHED_BLOCKED) {
			th->undecided_ns += e - b; /* its stretch waits for decide() */
		} else {
			th->ns[th->state] += e - b;
			if (s->on_stretch)
				s->on_stretch(s->stretch_ctx, th, (enum sched_state)th->state, b,
					      e);
		}
	}
	if (now > th->since)
		th->since = now;
}

/* The first record of a thread: it was in `before` since its span began. */
static void first(struct sched_thread *th, int before)
{
	if (th->state >= 0)
		return;
	th->state = before;
	th->since = th->start_ns;
	th->undecided = before == SCHED_BLOCKED;
}

static void set_state(const struct sched *s, struct sched_thread *th, uint64_t now, int state)
{
	account(s, th, now);
	if (th->undecided && state != SCHED_BLOCKED)
		th->undecided = false; /* what it was blocked on is decided elsewhere */
	th->state = state;
	th->seen = true;
}

/* The initial block was a futex wait begun before the recording, or not. */
static void decide(const struct sched *s, struct sched_thread *th, bool futex)
{
	if (!th->undecided_ns && !th->undecided)
		return;
	/* The initial block, [start_ns, start_ns + undecided_ns): now known. */
	th->ns[futex ? SCHED_FUTEX : SCHED_BLOCKED] += th->undecided_ns;
	if (s->on_stretch && th->undecided_ns)
		s->on_stretch(s->stretch_ctx, th, futex ? SCHED_FUTEX : SCHED_BLOCKED, th->start_ns,
			      th->start_ns + th->undecided_ns);
	if (futex && th->state == SCHED_BLOCKED && th->undecided)
		th->state = SCHED_FUTEX;
	th->undecided_ns = 0;
	th->undecided = false;
}

static void copy_comm(struct sched_thread *th, const char *comm)
{
	memcpy(th->comm, comm, sizeof(th->comm) - 1);
	th->comm[sizeof(th->comm) - 1] = '\0';
}

/* Asleep, in a futex wait or elsewhere. */
static int asleep(const struct sched_thread *th)
{
	return corecap_sched_in_futex_wait(th) ? SCHED_FUTEX : SCHED_BLOCKED;
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
static int cpu_grow_slow(struct sched *s, uint32_t cpu)
{
	size_t n = cpu + 1 > 2 * s->n_cpus ? cpu + 1 : 2 * s->n_cpus;
	struct sched_cpu *v;

	if (!(v = realloc(s->cpus, n * sizeof(*v))))
		return -ENOMEM;
	for (size_t i = s->n_cpus; i < n; i++)
		v[i] = (struct sched_cpu){.holder = -1};
	s->cpus = v;
	s->n_cpus = n;
	return 0;
}

/* CPU cpu followed: 0, or -ENOMEM. */
static inline int cpu_grow(struct sched *s, uint32_t cpu)
{
	return cpu < s->n_cpus ? 0 : cpu_grow_slow(s, cpu);
}

int corecap_sched_follow_cpus(struct sched *s, uint32_t n)
{
	if (n > SCHED_MAX_HOLDER_CPUS)
		return -EINVAL;
	return n ? cpu_grow(s, n - 1) : 0;
}

static int observe(struct sched *s, uint32_t cpu, int32_t cur, int32_t after, uint64_t t,
		   uint64_t *before_ns)
{
	struct sched_cpu *c;

	*before_ns = 0;
	if (cpu >= SCHED_MAX_CPUS)
		return 0;
	if (cpu_grow(s, cpu))
		return -ENOMEM;
	c = &s->cpus[cpu];
	if (c->known && c->tid != cur && c->tid > 0) {
		struct sched_thread *th = corecap_sched_find(s, c->tid);

		if (th && th->state == SCHED_RUNNING && th->cpu == cpu && !th->exited) {
			set_state(s, th, c->last_ns, asleep(th));
			th->woken_running = false;
			th->off_ns = c->last_ns;
			th->off_state = 0;
			s->lost_switch_outs++;
		}
	}
	if (c->known)
		*before_ns = c->last_ns;
	c->known = true;
	c->tid = after;
	c->last_ns = t;
	return 0;
}

static int on_switch(struct sched *s, const struct corecap_krec_switch *r)
{
	struct sched_thread *th;
	uint64_t t = r->h.time_ns, before;
	int ret = observe(s, r->h.cpu, r->prev_tid, r->next_tid, t, &before);

	if (ret)
		return ret;
	/* The CPU changes hands. */
	if (r->h.cpu < SCHED_MAX_HOLDER_CPUS) {
		if (cpu_grow(s, r->h.cpu))
			return -ENOMEM;
		s->cpus[r->h.cpu].holder = r->next_tid;
	}

	if ((r->flags & CORECAP_KSWITCH_PREV_TARGET) && r->prev_tid) {
		if (!(th = get(s, r->prev_tid)))
			return -ENOMEM;
		first(th, SCHED_RUNNING);
		if (th->state != SCHED_RUNNING) {
			/* Switched out, never in: woken, it came on after the CPU's
			 * last record (the kernel's own stream lacks some of the idle
			 * task's switches to a woken thread, docs/methodology.md).
			 * Asleep by the records (its waking lost too), when is not
			 * known: it stays asleep to here. */
			s->inconsistent++;
			if (th->state == SCHED_RUNNABLE && before < t) {
				if (before < th->since)
					before = th->since;
				set_state(s, th, before, SCHED_RUNNING);
				s->lost_switch_ins++;
			}
		}
		decide(s, th, false);
		if (r->prev_state_char == 'R' || (r->flags & CORECAP_KSWITCH_PREEMPTED) ||
		    th->woken_running)
			set_state(s, th, t, SCHED_RUNNABLE);
		else
			set_state(s, th, t, asleep(th));
		th->woken_running = false;
		th->off_ns = t;
		th->off_state = (char)r->prev_state_char;
	}
	if ((r->flags & CORECAP_KSWITCH_NEXT_TARGET) && r->next_tid) {
		if (!(th = get(s, r->next_tid)))
			return -ENOMEM;
		first(th, SCHED_RUNNABLE);
		if (th->state != SCHED_RUNNABLE)
			s->inconsistent++;
		set_state(s, th, t, SCHED_RUNNING);
		th->woken_running = false;
		th->cpu = r->h.cpu;
	}
	return 0;
}

/* A waking of th during its futex wait: the first one ends the sleep. */
static void futex_woken(struct sched_futex_call *c, const struct corecap_krec_waking *r)
{
	if (!c->in_call || !c->is_wait || c->waker)
		return;
	/* From an interrupt, the wait timed out (or was signalled), since
	 * futex wakes are system calls. */
	if (!c->woken) {
		c->woken = true;
		c->irq_woken = r->flags & CORECAP_KWAKING_ANY_IRQ;
	}
	/* From an interrupt the "waker" is whoever ran there: not a holder. */
	if (r->waker_tid <= 0 || r->waker_tid == r->tid || (r->flags & CORECAP_KWAKING_ANY_IRQ))
		return;
	c->waker = r->waker_tid;
	c->waker_ns = r->h.time_ns;
}

static int on_waking(struct sched *s, const struct corecap_krec_waking *r)
{
	struct sched_thread *th;
	uint64_t before;

	if (!(r->flags & CORECAP_KWAKING_ANY_IRQ) && r->waker_tid != r->tid &&
	    r->h.time_ns >= s->ws && r->h.time_ns < s->we &&
	    corecap_u64map_find(&s->by_tid, (uint64_t)(uint32_t)r->waker_tid)) {
		s->wakes_daemon++;
		if (r->target_cpu >= 0 && (uint32_t)r->target_cpu != r->h.cpu)
			s->wakes_cross_cpu++;
	}
	if (observe(s, r->h.cpu, r->waker_tid, r->waker_tid, r->h.time_ns, &before) ||
	    !(th = get(s, r->tid)))
		return -ENOMEM;
	futex_woken(&th->call, r);
	first(th, SCHED_BLOCKED);
	if (th->state == SCHED_FUTEX || th->state == SCHED_BLOCKED) {
		account(s, th, r->h.time_ns);
		th->state = SCHED_RUNNABLE;
		th->seen = true;
	} else if (th->state == SCHED_RUNNING) {
		th->woken_running = true;
	}
	return 0;
}

/* A futex call begins: its class, and whether it waits for a mutex's value. */
static void futex_enter(struct sched *s, struct sched_thread *th,
			const struct corecap_krec_futex_enter *r)
{
	struct sched_futex_call *c = &th->call;

	if (c->in_call)
		s->futex_enters_unpaired++; /* its exit was lost */
	*c = (struct sched_futex_call){.in_call = true,
				       .is_wait = CORECAP_FUTEX_IS_WAIT(r->op),
				       .op = r->op,
				       .val = r->val,
				       .uaddr = r->uaddr,
				       .enter_ns = r->h.time_ns};
	if (c->is_wait) {
		uint32_t owner = r->val & CORECAP_FUTEX_TID_MASK;

		/* The owner matters only with FUTEX_WAITERS (a robust mutex's word). */
		c->mutex = corecap_futex_wait_is_mutex(
			r->op, r->val,
			(r->val & CORECAP_FUTEX_WAITERS) &&
				corecap_sched_is_thread(s, (int32_t)owner));
	}
}

static int on_futex(struct sched *s, uint32_t cpu, int32_t tid, uint64_t t,
		    const struct corecap_krec_futex_enter *enter)
{
	struct sched_thread *th;
	uint64_t before;

	if (observe(s, cpu, tid, tid, t, &before) || !(th = get(s, tid)))
		return -ENOMEM;
	first(th, SCHED_RUNNING);
	if (th->state != SCHED_RUNNING) {
		/* A system call is made on a CPU: a switch-in was lost, after the
		 * CPU's last record when it had been woken. */
		s->inconsistent++;
		decide(s, th, false);
		if (th->state == SCHED_RUNNABLE && before < t) {
			if (before < th->since)
				before = th->since;
			s->lost_switch_ins++;
		} else {
			before = t;
		}
		set_state(s, th, before, SCHED_RUNNING);
	}
	th->cpu = cpu;
	if (enter) {
		/* A waking before this entry is kept (woken_running) until the
		 * switch-out: the eBPF producer stamps a sleeping wait's entry 1 ns
		 * before its switch-out, after the waking that ended that wait
		 * (docs/methodology.md). */
		decide(s, th, false);
		futex_enter(s, th, enter);
	} else {
		/* The exit of a wait whose enter came before the recording. */
		if (!corecap_sched_in_futex_wait(th) && th->undecided_ns)
			decide(s, th, true);
		th->call.ended = th->call.in_call;
		th->call.in_call = false;
		/* A waking while it ran ended a wait that returned without
		 * sleeping (perf's records: enter, waking, exit): it is spent. */
		th->woken_running = false;
	}
	th->seen = true;
	return 0;
}

int corecap_sched_consume(struct sched *s, const struct corecap_krec *r)
{
	struct sched_thread *th;
	uint64_t before;

	switch (r->type) {
	case CORECAP_KREC_SWITCH:
		return on_switch(s, (const struct corecap_krec_switch *)(const void *)r);
	case CORECAP_KREC_WAKING:
		return on_waking(s, (const struct corecap_krec_waking *)(const void *)r);
	case CORECAP_KREC_FUTEX_ENTER: {
		const struct corecap_krec_futex_enter *e = (const void *)r;

		return on_futex(s, r->cpu, e->tid, r->time_ns, e);
	}
	case CORECAP_KREC_FUTEX_EXIT:
		return on_futex(s, r->cpu,
				((const struct corecap_krec_futex_exit *)(const void *)r)->tid,
				r->time_ns, NULL);
	case CORECAP_KREC_FORK: {
		const struct corecap_krec_fork *f = (const void *)r;

		if (observe(s, r->cpu, f->parent_tid, f->parent_tid, r->time_ns, &before))
			return -ENOMEM;
		if (!(f->flags & CORECAP_KFORK_SAME_PROCESS))
			return 0;
		if (!(th = get(s, f->child_tid)))
			return -ENOMEM;
		copy_comm(th, f->child_comm);
		if (th->state < 0) {
			/* New: runnable from its creation until it first runs. */
			if (r->time_ns > th->start_ns)
				th->start_ns = r->time_ns;
			th->state = SCHED_RUNNABLE;
			th->since = th->start_ns;
			th->seen = true;
		}
		return 0;
	}
	case CORECAP_KREC_EXIT: {
		const struct corecap_krec_exit *x = (const void *)r;

		if (observe(s, r->cpu, x->tid, x->tid, r->time_ns, &before) ||
		    !(th = get(s, x->tid)))
			return -ENOMEM;
		copy_comm(th, x->comm);
		first(th, SCHED_RUNNING);
		account(s, th, r->time_ns);
		if (r->time_ns < th->end_ns)
			th->end_ns = r->time_ns > th->start_ns ? r->time_ns : th->start_ns;
		th->exited = true;
		return 0;
	}
	case CORECAP_KREC_TRACK: {
		const struct corecap_krec_track *t = (const void *)r;

		if (!(th = get(s, t->tid)))
			return -ENOMEM;
		if (!th->comm[0])
			copy_comm(th, t->comm);
		return 0;
	}
	default:
		return 0;
	}
}

void corecap_sched_finish(struct sched *s)
{
	for (size_t i = 0; i < s->len; i++) {
		struct sched_thread *th = s->all[i];

		if (th->end_ns < th->start_ns)
			th->end_ns = th->start_ns; /* gone before the window */
		if (th->state < 0) {
			/* Tracked, never scheduled in the window: asleep all of it. */
			th->state = SCHED_BLOCKED;
			th->since = th->start_ns;
		}
		if (!th->exited)
			account(s, th, th->end_ns);
		decide(s, th, false);
	}
}
