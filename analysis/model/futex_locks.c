#include "futex_locks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"

#define FUTEX_STACK_MAX 64
#define ERR_EAGAIN	11
#define ERR_ETIMEDOUT	110

void corecap_futex_locks_init_on(struct futex_locks *f, struct sched *s, struct lock_table *out,
				 uint64_t ws, uint64_t we, futex_stack_fn stack_of, void *stack_ctx)
{
	*f = (struct futex_locks){.s = s,
				  .out = out,
				  .ws = ws,
				  .we = we,
				  .stack_of = stack_of,
				  .stack_ctx = stack_ctx};
	corecap_u64map_init(&f->last_wake);
}

void corecap_futex_locks_init(struct futex_locks *f, struct lock_table *out, uint64_t ws,
			      uint64_t we, futex_stack_fn stack_of, void *stack_ctx)
{
	corecap_futex_locks_init_on(f, NULL, out, ws, we, stack_of, stack_ctx);
	corecap_sched_init(&f->own, ws, we);
	f->s = &f->own;
	f->feeds = true;
}

void corecap_futex_locks_release(struct futex_locks *f)
{
	if (f->feeds)
		corecap_sched_release(&f->own);
	corecap_u64map_release(&f->last_wake);
	free(f->wakes);
	free(f->holds);
}

/* th's hold (none at first), or NULL without memory. */
static struct futex_hold *hold_of(struct futex_locks *f, const struct sched_thread *th)
{
	size_t had = f->cap_holds;

	if (th->index >= had) {
		if (corecap_grow((void **)&f->holds, &f->cap_holds, (size_t)th->index + 1,
				 sizeof(*f->holds)))
			return NULL;
		memset(f->holds + had, 0, (f->cap_holds - had) * sizeof(*f->holds));
	}
	return &f->holds[th->index];
}

/* [b, e) clipped to the window; false when nothing is left. */
static bool clip(const struct futex_locks *f, uint64_t *b, uint64_t *e)
{
	if (*b < f->ws)
		*b = f->ws;
	if (*e > f->we)
		*e = f->we;
	return *e > *b;
}

static uint8_t kind_of(uint32_t op)
{
	switch (CORECAP_FUTEX_CMD(op)) {
	case 0:
		return LOCK_KIND_FUTEX_WAIT;
	case 9:
		return LOCK_KIND_FUTEX_WAIT_BITSET;
	default:
		return LOCK_KIND_FUTEX_PI;
	}
}

static struct model_lock *word(struct futex_locks *f, uint64_t uaddr, uint32_t op)
{
	struct model_lock *l = corecap_lock_table_get(f->out, uaddr);

	if (l && l->kind == LOCK_KIND_UNKNOWN) {
		l->kind = kind_of(op);
		l->source = LOCK_SOURCE_FUTEX;
	}
	return l;
}

/* A hold ends at the holder's FUTEX_WAKE on the word it holds. */
static int end_hold(struct futex_locks *f, struct futex_hold *h, uint64_t uaddr, uint64_t now)
{
	struct model_lock *l;
	uint64_t b, e = now;

	if (!h || !h->holding || h->uaddr != uaddr)
		return 0;
	h->holding = false;
	b = h->since;
	if (!clip(f, &b, &e))
		return 0;
	/* Only a word that has contention has a row to hold (model_lock.idle). */
	if (!corecap_u64map_find(&f->out->by_addr, uaddr))
		return 0;
	if (!(l = corecap_lock_table_get(f->out, uaddr)))
		return -ENOMEM;
	l->holds++;
	l->hold_ns += e - b;
	corecap_span_union_add(&l->busy, b, e);
	if (e - b > l->max_hold_ns)
		l->max_hold_ns = e - b;
	return 0;
}

static int on_futex_enter(struct futex_locks *f, const struct corecap_krec_futex_enter *r)
{
	const struct sched_thread *th = corecap_sched_find(f->s, r->tid);
	/* Its hold, if it ever had one (hold_of makes them as waits hand them over). */
	struct futex_hold *h = th && th->index < f->cap_holds ? &f->holds[th->index] : NULL;
	uint64_t *v;

	f->q.calls++;
	/* Waiting again on the word it was handed: it had lost it to a barger. */
	if (h && th->call.is_wait && h->holding && h->uaddr == r->uaddr)
		h->holding = false;
	if (!CORECAP_FUTEX_IS_WAKE(r->op))
		return 0;
	f->q.wakes++;
	if (!(v = corecap_u64map_upsert(&f->last_wake, r->uaddr, NULL)))
		return -ENOMEM;
	if (!*v) {
		if (corecap_grow((void **)&f->wakes, &f->cap_wakes, f->n_wakes + 1,
				 sizeof(*f->wakes))) {
			corecap_u64map_remove(&f->last_wake, r->uaddr);
			return -ENOMEM;
		}
		*v = ++f->n_wakes;
	}
	f->wakes[*v - 1] = (struct futex_wake){.tid = r->tid, .ns = r->h.time_ns};
	return end_hold(f, h, r->uaddr, r->h.time_ns);
}

/* Who ended tid's wait c ending at `now`, and when (*wake_ns): 0 when
 * nobody can be named. */
static int32_t holder_of(struct futex_locks *f, int32_t tid, const struct sched_futex_call *c,
			 uint64_t now, uint64_t *wake_ns)
{
	const uint64_t *at;
	const struct futex_wake *w;

	if (c->waker) {
		f->q.holder_from_waking++;
		*wake_ns = c->waker_ns;
		return c->waker;
	}
	at = corecap_u64map_find(&f->last_wake, c->uaddr);
	w = at ? &f->wakes[*at - 1] : NULL;
	if (w && w->ns >= c->enter_ns && w->ns <= now && w->tid != tid) {
		f->q.holder_from_wake++;
		*wake_ns = w->ns;
		return w->tid;
	}
	f->q.holder_unknown++;
	return 0;
}

static int add_site(struct futex_locks *f, struct model_lock *l, int32_t tid, uint64_t enter_ns,
		    uint64_t wait_ns)
{
	uint64_t frames[FUTEX_STACK_MAX];
	uint32_t depth =
		f->stack_of ? f->stack_of(f->stack_ctx, tid, enter_ns, frames, FUTEX_STACK_MAX) : 0;
	struct lock_site *s;

	if (!depth)
		return 0;
	if (depth > FUTEX_STACK_MAX)
		depth = FUTEX_STACK_MAX;
	f->q.waits_with_stack++;
	if (!(s = corecap_lock_table_site(l, frames[0], NULL)))
		return -ENOMEM;
	s->sampled_waits++;
	s->contentions++;
	s->wait_ns += wait_ns;
	if (wait_ns > s->max_wait_ns)
		s->max_wait_ns = wait_ns;
	return corecap_lock_table_add_stack(l, frames, depth, wait_ns) ? -ENOMEM : 0;
}

static int on_futex_exit(struct futex_locks *f, const struct corecap_krec_futex_exit *r)
{
	const struct sched_thread *th = corecap_sched_find(f->s, r->tid);
	const struct sched_futex_call *t;
	struct futex_hold *h;
	uint64_t b, e, wait_ns, wake_ns = 0;
	struct model_lock *l;
	int64_t result = r->ret;
	int32_t holder;
	int ret;

	if (!th || !th->call.ended) {
		f->q.exits_unpaired++;
		return 0;
	}
	t = &th->call;
	if (!t->is_wait)
		return 0;
	f->q.waits++;
	/* Without the call's result (the eBPF producer's, kernel_format.h): a
	 * wait it recorded slept, and woken by an interrupt, it timed out. */
	if (r->flags & CORECAP_KFUTEX_RESULT_UNKNOWN)
		result = t->irq_woken ? -ERR_ETIMEDOUT : 0;
	if (result == -ERR_EAGAIN) {
		/* The word changed before the thread slept: no wait. */
		f->q.waits_no_sleep++;
		return 0;
	}
	if (result == -ERR_ETIMEDOUT)
		f->q.waits_timed_out++;
	b = t->enter_ns;
	e = r->h.time_ns;
	if (!clip(f, &b, &e))
		return 0;
	wait_ns = e - b;
	if (!(l = word(f, t->mutex ? t->uaddr : CORECAP_FUTEX_IDLE_KEY(t->uaddr), t->op)))
		return -ENOMEM;
	if (!t->mutex) {
		l->addr = t->uaddr;
		l->idle = true;
		f->q.waits_idle++;
	}
	l->contentions++;
	l->wait_ns += wait_ns;
	if (wait_ns > l->max_wait_ns)
		l->max_wait_ns = wait_ns;
	corecap_lock_add_waited(l, b, e);
	corecap_span_union_add(&l->busy, b, e);
	holder = result == 0 ? holder_of(f, th->tid, t, r->h.time_ns, &wake_ns) : 0;
	if (result != 0)
		f->q.holder_unknown++;
	if (holder && f->on_wake)
		f->on_wake(f->wake_ctx, th->tid, holder, wake_ns, r->h.time_ns);
	if ((ret = corecap_lock_tid_add(&l->waiters, &l->n_waiters, th->tid, wait_ns)))
		return ret;
	if (holder)
		ret = corecap_lock_tid_add(&l->holders, &l->n_holders, holder, wait_ns);
	else
		l->holder_unknown++;
	if (!ret)
		ret = add_site(f, l, th->tid, t->enter_ns, wait_ns);
	/* Woken from a mutex's word: the waiter now holds it (a hand-over). */
	if (!ret && result == 0 && t->mutex && CORECAP_FUTEX_CMD(t->op) == 0) {
		if (!(h = hold_of(f, th)))
			return -ENOMEM;
		*h = (struct futex_hold){.holding = true, .uaddr = t->uaddr, .since = r->h.time_ns};
	}
	return ret;
}

int corecap_futex_locks_call(struct futex_locks *f, const struct corecap_krec *r)
{
	switch (r->type) {
	case CORECAP_KREC_FUTEX_ENTER:
		return on_futex_enter(f, (const struct corecap_krec_futex_enter *)(const void *)r);
	case CORECAP_KREC_FUTEX_EXIT:
		return on_futex_exit(f, (const struct corecap_krec_futex_exit *)(const void *)r);
	default:
		return 0;
	}
}

/* A word's sites share its totals by the wait of their sampled waits. */
static void spread(struct model_lock *l)
{
	uint64_t sampled = 0, left_ns = l->wait_ns, left_n = l->contentions;
	size_t last = 0;

	for (size_t i = 0; i < l->n_sites; i++) {
		sampled += l->sites[i].wait_ns;
		last = i;
	}
	if (!sampled)
		return;
	for (size_t i = 0; i < l->n_sites; i++) {
		struct lock_site *s = &l->sites[i];
		double share = (double)s->wait_ns / (double)sampled;
		uint64_t ns = i == last ? left_ns : (uint64_t)(share * (double)l->wait_ns);
		uint64_t n = i == last ? left_n : (uint64_t)(share * (double)l->contentions + 0.5);

		s->wait_ns = ns < left_ns ? ns : left_ns;
		s->contentions = n < left_n ? n : left_n;
		left_ns -= s->wait_ns;
		left_n -= s->contentions;
	}
}

/* Moves m's stacks whose call site is `site` to the idle lock il. */
static void move_stacks(struct model_lock *m, struct model_lock *il, uint64_t site)
{
	for (size_t i = 0; i < m->n_stacks;) {
		struct lock_stack *st = &m->stacks[i];

		if (!st->depth || st->frames[0] != site) {
			i++;
			continue;
		}
		if (!il->stacks)
			il->stacks = calloc(LOCK_STACKS_MAX, sizeof(*il->stacks));
		if (il->stacks && il->n_stacks < LOCK_STACKS_MAX)
			il->stacks[il->n_stacks++] = *st;
		else
			il->stacks_over_cap += st->count;
		memmove(st, st + 1, (m->n_stacks - i - 1) * sizeof(*st));
		m->n_stacks--;
	}
}

/*
 * A mutex's waits called where idle waits were called (pthread_cond_wait's
 * call site: the first frame outside the C library is the same for the
 * condition wait and its re-lock) are re-locks: the share of the word's
 * waits the site stands for moves to the word's idle lock.
 */
static int move_relocks(struct futex_locks *f, struct model_lock *m,
			const struct u64map *idle_sites)
{
	for (size_t i = 0; i < m->n_sites;) {
		struct lock_site s = m->sites[i];
		struct model_lock *il;
		struct lock_site *d;

		if (!corecap_u64map_find(idle_sites, s.site)) {
			i++;
			continue;
		}
		if (!(il = corecap_lock_table_get(f->out, CORECAP_FUTEX_IDLE_KEY(m->addr))))
			return -ENOMEM;
		if (il->kind == LOCK_KIND_UNKNOWN) {
			il->kind = m->kind;
			il->source = LOCK_SOURCE_FUTEX;
		}
		il->addr = m->addr;
		il->idle = true;
		if (!(d = corecap_lock_table_site(il, s.site, NULL)))
			return -ENOMEM;
		d->contentions += s.contentions;
		d->wait_ns += s.wait_ns;
		d->sampled_waits += s.sampled_waits;
		if (s.max_wait_ns > d->max_wait_ns)
			d->max_wait_ns = s.max_wait_ns;
		if (s.max_wait_ns > il->max_wait_ns)
			il->max_wait_ns = s.max_wait_ns;
		il->contentions += s.contentions;
		il->wait_ns += s.wait_ns;
		il->relock_waits += s.contentions;
		m->contentions -= s.contentions;
		m->wait_ns -= s.wait_ns;
		f->q.waits_idle += s.contentions;
		f->q.waits_relock += s.contentions;
		move_stacks(m, il, s.site);
		free(m->sites[i].symbol);
		m->sites[i] = m->sites[--m->n_sites];
	}
	return 0;
}

int corecap_futex_locks_finish(struct futex_locks *f)
{
	struct u64map idle_sites;
	size_t n = f->out->len;
	int ret = 0;

	f->q.enters_unpaired = f->s->futex_enters_unpaired;
	for (size_t i = 0; i < f->s->len; i++)
		if (f->s->all[i]->call.in_call)
			f->q.enters_unpaired++;
	for (size_t i = 0; i < f->out->len; i++)
		spread(f->out->all[i]);
	corecap_u64map_init(&idle_sites);
	for (size_t i = 0; i < n && !ret; i++) {
		const struct model_lock *l = f->out->all[i];

		for (size_t k = 0; l->idle && k < l->n_sites && !ret; k++)
			if (!corecap_u64map_upsert(&idle_sites, l->sites[k].site, NULL))
				ret = -ENOMEM;
	}
	for (size_t i = 0; i < n && !ret && idle_sites.len; i++)
		if (!f->out->all[i]->idle)
			ret = move_relocks(f, f->out->all[i], &idle_sites);
	corecap_u64map_release(&idle_sites);
	return ret;
}
