#include "critical_path.h"
#include "cp_chain.h"
#include "futex_locks.h"
#include "wait_for.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"

/* Another process's thread named (its last HOLDER record wins). */
static int on_holder(struct critical_path *cp, const struct corecap_krec_holder *h)
{
	uint64_t *at = corecap_u64map_upsert(&cp->holder_at, (uint64_t)(uint32_t)h->tid, NULL);

	if (!at)
		return -ENOMEM;
	if (!*at) {
		if (corecap_grow((void **)&cp->holders, &cp->cap_holders, cp->n_holders + 1,
				 sizeof(*cp->holders)))
			return -ENOMEM;
		*at = ++cp->n_holders;
	}
	cp->holders[*at - 1].tgid = h->tgid;
	memcpy(cp->holders[*at - 1].comm, h->comm, sizeof(h->comm));
	cp->holders[*at - 1].comm[sizeof(h->comm) - 1] = '\0';
	return 0;
}

/* Every op's paths hold one entry per thread: grow them all together. */
static int grow_paths(struct critical_path *cp)
{
	size_t cap = cp->path_cap ? cp->path_cap * 2 : 64;
	struct cp_thread **all = realloc(cp->all, cap * sizeof(*all));
	uint32_t *open_runs;

	if (!all)
		return -ENOMEM;
	cp->all = all;
	if (!(open_runs = realloc(cp->open_runs, cap * sizeof(*open_runs))))
		return -ENOMEM;
	cp->open_runs = open_runs;
	for (int pass = 0; pass < 2; pass++) {
		struct cp_op **ops = pass ? cp->spare : cp->inflight;
		size_t n = pass ? cp->n_spare : cp->n_inflight;

		for (size_t i = 0; i < n; i++) {
			struct cp_path *p = realloc(ops[i]->paths, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			memset(p + cp->path_cap, 0, (cap - cp->path_cap) * sizeof(*p));
			ops[i]->paths = p;
		}
	}
	cp->path_cap = cap;
	return 0;
}

static void set_comm(struct cp_thread *th, const char *comm, size_t max)
{
	size_t n = strnlen(comm, max < sizeof(th->comm) ? max : sizeof(th->comm) - 1);

	if (!n)
		return;
	memcpy(th->comm, comm, n);
	th->comm[n] = '\0';
	th->is_log = strcmp(th->comm, CP_LOG_THREAD) == 0;
}

static struct cp_thread *get(struct critical_path *cp, int32_t tid)
{
	bool inserted;
	uint64_t *idx;
	struct cp_thread *th;

	if (tid <= 0)
		return NULL;
	if ((th = corecap_tid_cache_get(&cp->recent, tid)))
		return th;
	idx = corecap_u64map_upsert(&cp->by_tid, (uint64_t)(uint32_t)tid, &inserted);
	if (!idx)
		return NULL;
	if (!inserted)
		return corecap_tid_cache_put(&cp->recent, tid, cp->all[*idx]);
	if ((cp->len == cp->path_cap && grow_paths(cp)) || !(th = calloc(1, sizeof(*th)))) {
		corecap_u64map_remove(&cp->by_tid, (uint64_t)(uint32_t)tid);
		return NULL;
	}
	idx = corecap_u64map_find(&cp->by_tid, (uint64_t)(uint32_t)tid);
	th->tid = tid;
	th->index = (uint32_t)cp->len;
	th->wait_cpu = UINT32_MAX;
	/* The CPUs it was switched to before it was met (not a target then). */
	for (uint32_t c = 0; c < cp->nr_cpus; c++)
		if (corecap_cp_holder(cp, c) == tid) {
			th->n_held++;
			th->held_cpu = c;
		}
	*idx = cp->len;
	cp->all[cp->len++] = th;
	return corecap_tid_cache_put(&cp->recent, tid, th);
}

/* th out of its CPU's waiters, if it is among them. */
static void wait_unlink(struct critical_path *cp, struct cp_thread *th)
{
	if (th->wait_cpu < cp->nr_cpus) {
		if (th->wait_prev)
			cp->all[th->wait_prev - 1]->wait_next = th->wait_next;
		else
			cp->waiters[th->wait_cpu] = th->wait_next;
		if (th->wait_next)
			cp->all[th->wait_next - 1]->wait_prev = th->wait_prev;
		th->wait_prev = th->wait_next = 0;
	}
	th->wait_cpu = UINT32_MAX;
}

/*
 * th waits for CPU cpu (UINT32_MAX: unknown): first among that CPU's
 * waiters, whom flush_waiters charges when its holder changes (a list per
 * CPU: a switch costs its own CPU's waiters, not every runnable thread's).
 */
static void set_runnable(struct critical_path *cp, struct cp_thread *th, uint32_t cpu)
{
	wait_unlink(cp, th);
	th->wait_cpu = cpu;
	if (cpu < cp->nr_cpus) {
		th->wait_next = cp->waiters[cpu];
		if (th->wait_next)
			cp->all[th->wait_next - 1]->wait_prev = th->index + 1;
		cp->waiters[cpu] = th->index + 1;
	}
}

/* The threads waiting for CPU `cpu`, charged up to t (its holder changes). */
static void flush_waiters(struct critical_path *cp, uint32_t cpu, uint64_t t)
{
	for (uint32_t i = cp->waiters[cpu]; i; i = cp->all[i - 1]->wait_next)
		corecap_cp_advance(cp, cp->all[i - 1], t);
}

/*
 * CPU cpu went from old to tid (sched's holder): the holders' counts of
 * CPUs kept (a thread holds more than one only when a switch-out was
 * lost), for a log call's flush of its CPU's waiters without looking at
 * every CPU.
 */
static void set_holder(struct critical_path *cp, uint32_t cpu, int32_t old, int32_t tid)
{
	struct cp_thread *th;

	if (old == tid)
		return;
	if ((th = corecap_cp_find(cp, old)) && th->n_held && --th->n_held && th->held_cpu == cpu)
		for (uint32_t c = 0; c < cp->nr_cpus; c++)
			if (corecap_cp_holder(cp, c) == old)
				th->held_cpu = c;
	if ((th = corecap_cp_find(cp, tid))) {
		th->n_held++;
		th->held_cpu = cpu;
	}
}

/* sched's thread of th, once a record named it (and th, sched's thread's). */
static inline void link_sched(struct critical_path *cp, struct cp_thread *th)
{
	struct sched_thread *st;

	if (!th->st && (st = corecap_sched_find(&cp->sched, th->tid))) {
		th->st = st;
		st->cp = th;
	}
}

/*
 * sched is about to take st's time in its state up to now (a change of
 * state, the inferred ones at their past times included): its paths are
 * charged up to there by that state first.
 */
static void on_sched_advance(void *ctx, const struct sched_thread *st, uint64_t now)
{
	struct critical_path *cp = ctx;
	struct cp_thread *th = st->cp;

	/* Linked once: by the record that named it, else here. */
	if (!th && (th = corecap_cp_find(cp, st->tid)))
		link_sched(cp, th);
	if (th)
		corecap_cp_advance(cp, th, now);
}

void corecap_cp_follow_sched(struct critical_path *cp)
{
	cp->sched.on_advance = on_sched_advance;
	cp->sched.advance_ctx = cp;
}

/* After sched took a record of th: it waits for CPU cpu when sched has it
 * runnable now (and had it so before only when again is set), else for none. */
static inline void sync_wait(struct critical_path *cp, struct cp_thread *th, bool was_runnable,
			     bool again, uint32_t cpu)
{
	link_sched(cp, th);
	if (corecap_cp_state(th) != CPS_RUNNABLE) {
		if (th->wait_cpu != UINT32_MAX)
			wait_unlink(cp, th);
	} else if (!was_runnable || again) {
		set_runnable(cp, th, cpu);
	}
}

/*
 * A switch, fed to sched between its two halves: before, its prev still
 * holds the CPU (its waiters are charged behind it); after, its next
 * does. The states are sched's: its hook charges each thread's time as it
 * changes, so the critical path sees the same transitions (the inferred
 * ones too) as the thread states.
 */
static int on_switch(struct critical_path *cp, const struct corecap_krec_switch *s)
{
	uint64_t t = s->h.time_ns;
	uint32_t cpu = s->h.cpu;
	struct cp_thread *prev = NULL, *next = NULL;
	int32_t old;
	int ret;

	if ((s->flags & CORECAP_KSWITCH_PREV_TARGET) && s->prev_tid > 0 &&
	    !(prev = get(cp, s->prev_tid)))
		return -ENOMEM;
	if ((s->flags & CORECAP_KSWITCH_NEXT_TARGET) && s->next_tid > 0 &&
	    !(next = get(cp, s->next_tid)))
		return -ENOMEM;
	if (prev) {
		link_sched(cp, prev);
		/* Switched out while runnable by the records: sched infers its
		 * lost switch-in after the CPU's last record (model/sched.h); its
		 * wait is charged up to there behind the CPU's holders, and it
		 * waits no more. */
		if (corecap_cp_state(prev) == CPS_RUNNABLE && cpu < cp->sched.n_cpus &&
		    cp->sched.cpus[cpu].known) {
			corecap_cp_advance(cp, prev, cp->sched.cpus[cpu].last_ns);
			wait_unlink(cp, prev);
		}
	}
	if (cpu < cp->nr_cpus)
		flush_waiters(cp, cpu, t);
	old = cpu < cp->nr_cpus ? corecap_cp_holder(cp, cpu) : CP_NOBODY;
	if ((ret = corecap_sched_consume(&cp->sched, &s->h)))
		return ret;
	if (cpu < cp->nr_cpus)
		set_holder(cp, cpu, old, s->next_tid);
	if (prev) {
		sync_wait(cp, prev, false, true, cpu);
		if (corecap_cp_state(prev) != CPS_RUNNABLE) {
			/* Blocked again before its trace said why it was last time. */
			if (prev->pending)
				corecap_cp_resolve_pending(cp, prev, CAT_QUEUE);
			prev->dev_woken = 0;
		}
	}
	if (next)
		sync_wait(cp, next, false, false, cpu);
	return 0;
}

/* The category of a wait on the device: logging inside a log call or on the log thread. */
static uint32_t device_cat(const struct cp_thread *th)
{
	return th->log_depth || th->is_log ? CAT_LOGGING : CAT_IO;
}

/* The most nodes a hand-off copies from its waker (its stretches since its wake). */
#define CP_HANDOFF_NODES 32

/*
 * th, asleep in a futex wait since before its waker's last wake, is woken
 * by waker at t, and the waker's last wake (at ti) came from nobody of the
 * daemon, out of a sleep outside a futex: the device's completion (an aio
 * reaper in io_getevents, e.g. BlueStore's bstore_aio, woken by the
 * completion's interrupt or its kworker) handed to th through a condition
 * variable (the kv_sync thread waiting for its aio). th's walk then goes
 * on its own chain: its wait up to ti was on the device (io, credited to
 * the waker), and from ti to t it waited for the waker, whose stretches
 * there are copied onto th's chain (the waker's earlier sleep is not the
 * op's: the op was with th). False when it does not apply (nothing is
 * changed then): the waking is an ordinary one.
 */
static bool device_handoff(struct critical_path *cp, struct cp_thread *th, struct cp_thread *waker,
			   uint64_t t)
{
	uint64_t ti = waker->dev_woken, covered = 0, h;
	struct cp_node copy[CP_HANDOFF_NODES], *n;
	size_t nc = 0;

	if (!ti || ti > t || !cp->n_inflight || corecap_cp_state(th) != CPS_BLOCKED ||
	    !corecap_cp_futex_kind(th) || corecap_cp_stopped(th) || th->pending ||
	    corecap_cp_blocked_since(cp, th) > ti || th->since > ti)
		return false;
	corecap_cp_advance(cp, waker, t);
	corecap_cp_flush_run(cp, waker);
	/* The waker's stretches since ti: charges (it was awake), covering ti..t,
	 * and the resolves of its sleep before ti (a trace event after it). */
	for (h = waker->head; covered < t - ti; h = n->prev) {
		n = corecap_cp_node_at(cp, h);
		if (n && n->kind == CPN_RESOLVE)
			continue;
		if (!n || n->kind != CPN_CHARGE || n->from < ti || nc == CP_HANDOFF_NODES)
			return false;
		copy[nc++] = *n;
		covered += n->to - n->from;
	}
	if (covered != t - ti)
		return false;
	corecap_cp_advance(cp, th, ti);
	if ((n = corecap_cp_node_push(cp, th, CPN_RESOLVE))) {
		n->cat = (uint8_t)device_cat(th);
		n->tid = waker->tid;
		n->to = UINT64_MAX;
	}
	while (nc && (n = corecap_cp_node_push(cp, th, CPN_CHARGE))) {
		uint64_t prev = n->prev;

		*n = copy[--nc];
		n->prev = prev;
	}
	th->since = t;
	return true;
}

/*
 * th, asleep (or of unknown state: `was`) by sched before this waking, is
 * woken at t: the walk back from it goes on on its waker, or its blocked
 * time awaits its category; and the wait-for graph's edge.
 */
static int woken(struct critical_path *cp, struct cp_thread *th,
		 const struct corecap_krec_waking *w, enum cp_state was)
{
	uint64_t t = w->h.time_ns;
	bool irq = (w->flags & CORECAP_KWAKING_ANY_IRQ) || w->waker_tid <= 0, handoff;
	struct cp_thread *waker = irq ? NULL : corecap_cp_find(cp, w->waker_tid);
	int ret;

	if (waker == th)
		waker = NULL;
	handoff = waker && device_handoff(cp, th, waker, t);
	corecap_cp_advance(cp, th, t);
	/* Resumed by its tracer (the sampler): no wait, no edge. */
	if (corecap_cp_stopped(th))
		return 0;
	/* A thread first seen being woken slept from before the window. */
	if ((was == CPS_BLOCKED || corecap_wait_for_asleep_since_window(cp, th)) &&
	    w->waker_tid != th->tid &&
	    (ret = corecap_wait_for_add(cp, th,
					waker ? waker->index
					: irq ? WAIT_TO_IRQ
					      : WAIT_TO_OTHER,
					t, irq ? 0 : w->waker_tid)))
		return ret;
	if (handoff) {
		/* Its walk goes on on its own chain (device_handoff). */
		th->dev_woken = 0;
	} else if (waker) {
		/* The walk back from th continues on its waker from here. */
		struct cp_node *n;

		th->dev_woken = 0;
		corecap_cp_advance(cp, waker, t);
		corecap_cp_flush_run(cp, th);
		corecap_cp_flush_run(cp, waker);
		/* Its pending time so far is queue: nobody's. */
		if (cp->n_inflight && (n = corecap_cp_node_push(cp, th, CPN_JOIN))) {
			n->prev = waker->head;
			n->waker = waker->index;
			waker->head_shared = true;
		}
		th->pending = false;
	} else if (was == CPS_BLOCKED) {
		/* Nobody of the daemon: the trace may say what it waited for. */
		th->pending = true;
		th->pend_b = corecap_cp_blocked_since(cp, th);
		th->pend_e = t;
		/* Outside a futex: perhaps the device's completion, which a
		 * futex wait it then ends hands on (device_handoff). */
		th->dev_woken = corecap_cp_futex_kind(th) ? 0 : t;
		/* An uninterruptible sleep that nobody of the daemon ended is
		 * a wait in the kernel for the device (fdatasync, a direct
		 * write), ended by its completion: io. */
		if (th->st->off_state == 'D')
			corecap_cp_resolve_pending(cp, th, device_cat(th));
	}
	return 0;
}

/* A waking: the walk's step reads the woken thread's state before sched
 * takes the waking, and its CPU wait follows sched's state after. */
static int on_waking(struct critical_path *cp, const struct corecap_krec_waking *w)
{
	struct cp_thread *th = get(cp, w->tid);
	uint32_t cpu = w->target_cpu >= 0 ? (uint32_t)w->target_cpu : UINT32_MAX;
	enum cp_state was;
	int ret;

	if (!th)
		return -ENOMEM;
	link_sched(cp, th);
	was = corecap_cp_state(th);
	/* Running (woken before its own switch-out, which sched then leaves
	 * runnable) or runnable: it did not sleep. */
	if (was != CPS_RUNNING && was != CPS_RUNNABLE && (ret = woken(cp, th, w, was)))
		return ret;
	if ((ret = corecap_sched_consume(&cp->sched, &w->h)))
		return ret;
	sync_wait(cp, th, was == CPS_RUNNABLE, false, cpu);
	return 0;
}

static int krec(struct critical_path *cp, const struct corecap_krec *r)
{
	struct cp_thread *th = NULL;
	int ret;

	switch (r->type) {
	case CORECAP_KREC_SWITCH:
		return on_switch(cp, (const struct corecap_krec_switch *)r);
	case CORECAP_KREC_WAKING:
		return on_waking(cp, (const struct corecap_krec_waking *)r);
	case CORECAP_KREC_FUTEX_ENTER: {
		const struct corecap_krec_futex_enter *f = (const void *)r;

		/* A futex wait's thread is one of the graph's (its class, a
		 * mutex's or not, is sched's: sched_futex_call.mutex). */
		th = CORECAP_FUTEX_IS_WAIT(f->op) ? get(cp, f->tid) : corecap_cp_find(cp, f->tid);
		if (!th && CORECAP_FUTEX_IS_WAIT(f->op))
			return -ENOMEM;
		break;
	}
	case CORECAP_KREC_FUTEX_EXIT:
		th = corecap_cp_find(cp, ((const struct corecap_krec_futex_exit *)r)->tid);
		break;
	case CORECAP_KREC_FORK: {
		const struct corecap_krec_fork *f = (const void *)r;

		if (!(f->flags & CORECAP_KFORK_SAME_PROCESS))
			break;
		if (!(th = get(cp, f->child_tid)))
			return -ENOMEM;
		set_comm(th, f->child_comm, sizeof(f->child_comm));
		if ((ret = corecap_sched_consume(&cp->sched, r)))
			return ret;
		/* A new thread waits for its first CPU. */
		sync_wait(cp, th, false, false, r->cpu);
		th->since = r->time_ns;
		if (th->since > cp->max_since)
			cp->max_since = th->since;
		return 0;
	}
	default:
		break;
	}
	if ((ret = corecap_sched_consume(&cp->sched, r)))
		return ret;
	/* A system call's thread is on a CPU (sched infers a lost switch-in). */
	if (th)
		sync_wait(cp, th, false, false, r->cpu);
	switch (r->type) {
	case CORECAP_KREC_HOLDER:
		return on_holder(cp, (const struct corecap_krec_holder *)r);
	case CORECAP_KREC_TRACK: {
		const struct corecap_krec_track *k = (const void *)r;

		if (!(th = get(cp, k->tid)))
			return -ENOMEM;
		set_comm(th, k->comm, sizeof(k->comm));
		return 0;
	}
	default:
		return 0;
	}
}

int corecap_critical_path_krec(struct critical_path *cp, const struct corecap_krec *r)
{
	int ret = krec(cp, r);

	return ret ? ret : cp->oom ? -ENOMEM : 0;
}

static int feed_recs(struct critical_path *cp, uint64_t t)
{
	int ret;

	while (cp->next_rec < cp->n_recs && cp->recs[cp->next_rec]->time_ns <= t)
		if ((ret = corecap_critical_path_krec(cp, cp->recs[cp->next_rec++])))
			return ret;
	return 0;
}

/* The records of set_records up to t; none to feed in the analysis pass's
 * case (pass/pass.h feeds krec), checked inline on every event. */
static inline int feed_until(struct critical_path *cp, uint64_t t)
{
	return cp->next_rec < cp->n_recs ? feed_recs(cp, t) : 0;
}

int corecap_critical_path_feed(struct critical_path *cp, uint64_t t)
{
	return feed_until(cp, t);
}

int corecap_critical_path_finish(struct critical_path *cp)
{
	int ret = feed_until(cp, UINT64_MAX);

	return ret ? ret : corecap_wait_for_close_sleeps(cp);
}

/* The category of a wait the trace reports on a thread woken by nobody of
 * the daemon, if the wait covers that blocked stretch; queue otherwise. */
static uint32_t pending_cat(const struct critical_path *cp, const struct cp_thread *th,
			    const struct model_event *ev)
{
	uint64_t dur;
	uint32_t cat;

	switch (ev->kind) {
	case MEV_IO:
		dur = ev->io.dur_ns;
		cat = ev->io.io_class == CORECAP_IO_LOG ? CAT_LOGGING : CAT_IO;
		break;
	case MEV_LOCK_CONTENDED:
		dur = ev->lock.dur_ns;
		cat = cp->site_is_logging && cp->site_is_logging(cp->classify_ctx, ev->lock.site)
			      ? CAT_LOGGING
			      : CAT_LOCK_WAIT;
		break;
	case MEV_COND_WAIT:
		dur = ev->lock.dur_ns;
		cat = CAT_COND_WAIT;
		break;
	default:
		return CAT_QUEUE;
	}
	if (dur > ev->ts_ns || ev->ts_ns - dur >= th->pend_e)
		return CAT_QUEUE;
	return th->log_depth ? CAT_LOGGING : cat;
}

static int event(struct critical_path *cp, const struct model_event *ev)
{
	struct cp_thread *th;
	int ret;

	if ((ret = feed_until(cp, ev->ts_ns)))
		return ret;
	if (ev->kind == MEV_DISCARDED) {
		/* As the model: a lost log_exit must not leave a thread logging. */
		for (size_t i = 0; i < cp->len; i++)
			cp->all[i]->log_depth = 0;
		return 0;
	}
	if ((cp->pid >= 0 && ev->pid >= 0 && ev->pid != cp->pid) || ev->tid <= 0)
		return 0;
	if (!(th = get(cp, ev->tid)))
		return -ENOMEM;
	if (!th->st)
		link_sched(cp, th);
	if (corecap_cp_state(th) == CPS_BLOCKED || corecap_cp_state(th) == CPS_RUNNABLE)
		cp->events_off_cpu++; /* an event of a thread not on a CPU */
	corecap_cp_advance(cp, th, ev->ts_ns);
	if (th->pending && ev->kind == MEV_AIO)
		corecap_cp_resolve_pending_aio(cp, th, ev);
	else if (th->pending)
		corecap_cp_resolve_pending(cp, th, pending_cat(cp, th, ev));
	if (ev->comm && !th->comm[0])
		set_comm(th, ev->comm, sizeof(th->comm) - 1);
	switch (ev->kind) {
	case MEV_OP_BEGIN:
		return corecap_cp_op_begin(cp, ev->op.id, false, ev->ts_ns);
	case MEV_LOG_ENTER:
	case MEV_LOG_EXIT:
		/* Its CPU's waiters were waiting behind its former category. */
		if (corecap_cp_state(th) == CPS_RUNNING && th->n_held == 1)
			flush_waiters(cp, th->held_cpu, ev->ts_ns);
		else if (corecap_cp_state(th) == CPS_RUNNING && th->n_held)
			for (uint32_t c = 0; c < cp->nr_cpus; c++)
				if (corecap_cp_holder(cp, c) == th->tid)
					flush_waiters(cp, c, ev->ts_ns);
		if (ev->kind == MEV_LOG_ENTER)
			th->log_depth++;
		else if (th->log_depth)
			th->log_depth--;
		return 0;
	case MEV_THREAD_NAME: {
		struct cp_thread *named = get(cp, ev->thread.tid);

		if (!named)
			return -ENOMEM;
		if (ev->thread.name)
			set_comm(named, ev->thread.name, sizeof(named->comm) - 1);
		return 0;
	}
	default:
		return 0;
	}
}

int corecap_critical_path_event(struct critical_path *cp, const struct model_event *ev)
{
	int ret = event(cp, ev);

	return ret ? ret : cp->oom ? -ENOMEM : 0;
}

int corecap_critical_path_ext_begin(struct critical_path *cp, uint64_t id, uint64_t ts)
{
	int ret = feed_until(cp, ts);

	return ret ? ret : corecap_cp_op_begin(cp, id, true, ts);
}

int corecap_critical_path_ext_end(struct critical_path *cp, uint64_t id, uint32_t slot, int32_t tid,
				  uint64_t end_ns)
{
	int ret = feed_until(cp, end_ns);

	return ret ? ret : corecap_cp_op_end(cp, id, true, slot, tid, end_ns, false);
}
