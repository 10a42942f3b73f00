#include "ceiling.h"
#include "lines.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <corecap/run_format.h>

#define MAX_CANDIDATES 4096

struct cand_list {
	struct ceiling_candidate *v;
	size_t len;
};

static void add_cand(struct cand_list *l, enum ceiling_kind kind, const char *name, double u,
		     const void *ref)
{
	struct ceiling_candidate *c;

	if (l->len == MAX_CANDIDATES || u <= 0)
		return;
	c = &l->v[l->len++];
	c->kind = kind;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->utilization = u;
	c->ref = ref;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct ceiling_candidate *x = a, *y = b;

	if (x->utilization != y->utilization)
		return x->utilization > y->utilization ? -1 : 1;
	/* On a tie the narrower resource explains more: lock, thread, pool, cores. */
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int evidence(struct ceiling *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int evidence(struct ceiling *c, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = corecap_lines_vadd(&c->evidence, &c->n_evidence, fmt, ap);
	va_end(ap);
	return ret;
}

const char *corecap_ceiling_kind_name(enum ceiling_kind kind)
{
	static const char *const names[] = {"none", "lock", "thread", "pool", "cores", "device"};

	return kind <= CEIL_DEVICE ? names[kind] : "?";
}

static void thread_label(const struct model_thread *th, char *out, size_t size)
{
	snprintf(out, size, "%s (tid %d)", th->name[0] ? th->name : "?", th->tid);
}

static double pct(double u)
{
	return 100.0 * u;
}

static int lock_evidence(struct ceiling *c, const struct ceiling_inputs *in,
			 const struct model_lock *l, uint64_t w)
{
	const struct model *m = in->model;
	const struct lock_site *s = corecap_lock_top_site(l);
	uint64_t hold = corecap_lock_hold_ns(l), ops = m->ops.finished;
	int ret;

	if (l->source == LOCK_SOURCE_FUTEX)
		ret = evidence(c,
			       "source: futex (kernel futex events, no shim): waited on by %zu "
			       "threads; hand-overs after a wait held it %.3f s (%.1f%%), a lower "
			       "bound of its holds",
			       l->n_waiters, hold / 1e9, pct((double)hold / (double)w));
	else
		ret = evidence(c, "held %.3f s of the %.3f s window (%.1f%%), from %s", hold / 1e9,
			       w / 1e9, pct((double)hold / (double)w),
			       l->has_stats && l->stats_hold_ns ? "the shim's hold counters"
								: "hold events");
	if (!ret)
		ret = evidence(c, "a thread was waiting for it %.1f%% of the window",
			       pct((double)corecap_lock_waited_ns(l) / (double)w));
	if (!ret && ops)
		ret = evidence(c, "%.2f us held per op at %.0f ops/s (%.0f ops/s x %.2f us = %.2f)",
			       (double)hold / (double)ops / 1e3, (double)ops * 1e9 / (double)w,
			       (double)ops * 1e9 / (double)w, (double)hold / (double)ops / 1e3,
			       (double)hold / (double)w);
	if (!ret && corecap_lock_contentions(l))
		ret = evidence(c,
			       "contended %llu times; waiters spent %.3f s in it (%.2f threads "
			       "waiting on average)",
			       (unsigned long long)corecap_lock_contentions(l),
			       corecap_lock_wait_ns(l) / 1e9,
			       (double)corecap_lock_wait_ns(l) / (double)w);
	if (!ret && s && s->symbol)
		ret = evidence(c, "taken most at %s", s->symbol);
	/* Preempted holders stretch every hold: say so when the cores were short. */
	if (!ret && in->pools->n_sampled && in->pools->runq_ns > w / 2)
		ret = evidence(c,
			       "the cores were contended too (%.2f threads waiting for a CPU on "
			       "average): holds stretch when a holder is preempted",
			       (double)in->pools->runq_ns / (double)w);
	return ret;
}

static int thread_evidence(struct ceiling *c, const struct ceiling_inputs *in,
			   const struct model_thread *th, uint64_t w)
{
	const struct model_pool *pl = NULL;
	uint64_t span = th->span_ns ? th->span_ns : w;
	int ret;

	ret = evidence(c, "ran on a CPU %.1f%% of its %.3f s span and waited for one %.1f%%%s",
		       pct((double)th->cpu_ns / (double)span), span / 1e9,
		       pct((double)th->runq_ns / (double)span),
		       th->has_runq ? "" : " (no schedstat: run-queue wait unknown)");
	for (size_t i = 0; i < in->pools->len && !pl; i++)
		if (strcmp(in->pools->pools[i].name, th->pool) == 0)
			pl = &in->pools->pools[i];
	if (!ret && pl && pl->n_threads == 1)
		ret = evidence(c, "it is the only thread of its kind (%s): its work cannot spread",
			       pl->name);
	else if (!ret && pl)
		ret = evidence(c, "its pool %s has %zu threads, busy %.1f%% on average", pl->name,
			       pl->n_threads, pct(pl->busy_util));
	if (!ret && (th->lock_wait_ns || th->cond_wait_ns))
		ret = evidence(c, "it waited %.1f%% on locks and %.1f%% on conditions",
			       pct((double)th->lock_wait_ns / (double)span),
			       pct((double)th->cond_wait_ns / (double)span));
	return ret;
}

static int cores_line(struct ceiling *c, const struct ceiling_inputs *in, uint64_t w)
{
	double used = (double)in->pools->cpu_ns / (double)w;

	if (!in->pools->n_sampled)
		return evidence(c, "cores used: unknown (no " CORECAP_RUN_THREADS ")");
	if (in->cores_available)
		return evidence(c,
				"the daemon used %.2f of %d cores; its threads waited for a CPU "
				"%.3f s in all (%.2f threads runnable on average)",
				used, in->cores_available, in->pools->runq_ns / 1e9,
				(double)in->pools->runq_ns / (double)w);
	return evidence(c, "the daemon used %.2f cores (cores available unknown)", used);
}

/* A thread's run-queue share of its span from which its verdict says so. */
#define RUNQ_SHARE 0.10

static int verdict(struct ceiling *c, const struct ceiling_inputs *in, uint64_t w)
{
	double used = in->pools->n_sampled ? (double)in->pools->cpu_ns / (double)w : 0;
	const struct model_pool *pl;
	int n = -1;

	switch (c->kind) {
	case CEIL_LOCK:
		n = asprintf(&c->verdict,
			     "%s busy %.0f%% of the window (held %.0f%%): at most %.2fx more "
			     "throughput; more cores will not help",
			     c->name, pct(c->utilization),
			     pct((double)corecap_lock_hold_ns(c->top[0].ref) / (double)w),
			     c->headroom);
		break;
	case CEIL_THREAD: {
		const struct model_thread *th = c->top[0].ref;
		double on_cpu = corecap_thread_cpu_util(th, w);

		/* Waiting for a CPU is the machine's share of its busy time: more
		 * cores take that away, and only its running time is its own. */
		if (c->utilization - on_cpu >= RUNQ_SHARE)
			n = asprintf(
				&c->verdict,
				"thread %s busy %.0f%% of the window (on a CPU %.0f%%, waiting "
				"for one %.0f%%): at most %.2fx more throughput on these cores; "
				"more cores help only until its own CPU time saturates it (one "
				"thread runs on one core at a time)",
				c->name, pct(c->utilization), pct(on_cpu),
				pct(c->utilization - on_cpu), c->headroom);
		else
			n = asprintf(&c->verdict,
				     "thread %s busy %.0f%% of the window: at most %.2fx more "
				     "throughput; more cores will not help (one thread runs on one "
				     "core at a time)",
				     c->name, pct(c->utilization), c->headroom);
		break;
	}
	case CEIL_POOL:
		pl = c->top[0].ref;
		n = asprintf(&c->verdict,
			     "pool %s (%zu threads) busy %.0f%%: at most %.2fx more throughput "
			     "from these threads; more threads in it may help while cores are free "
			     "(%.2f of %d used)",
			     c->name, pl->n_threads, pct(c->utilization), c->headroom, used,
			     in->cores_available);
		break;
	case CEIL_CORES:  /* the machine's verdict (projection.c), never the daemon's */
	case CEIL_DEVICE: /* a disk: the projection's (projection.h), never a candidate here */
	case CEIL_NONE:
		if (c->n_top)
			n = asprintf(&c->verdict,
				     "no resource of the daemon is saturated (the busiest, %s %s, "
				     "is at %.0f%%): the offered load (the benchmark's concurrency "
				     "and latency) or the machine sets the throughput",
				     corecap_ceiling_kind_name(c->top[0].kind), c->top[0].name,
				     pct(c->top[0].utilization));
		else
			n = asprintf(&c->verdict, "no resource could be measured: no lock holds "
						  "and no thread CPU figures in this run");
		break;
	}
	return n < 0 ? -ENOMEM : 0;
}

/*
 * A thread is a ceiling of its own only if it stands out from its pool:
 * when its pool, as a whole, is about as busy, the work spreads over the
 * pool and the pool is what binds (more threads could help; one thread
 * would not). The pool then moves ahead of the thread.
 */
#define POOL_MARGIN 0.05

/*
 * Several resources can be saturated at once (on a small machine a big
 * lock and the cores often are). Among those within SATURATION_MARGIN of
 * the busiest, the narrowest binds: a lock stays the bound whatever the
 * cores, a thread whatever its pool. Moves it to the front.
 */
#define SATURATION_MARGIN 0.05

static void prefer_narrowest(struct cand_list *l)
{
	size_t best = 0;

	for (size_t i = 1; i < l->len; i++) {
		if (l->v[i].utilization < l->v[0].utilization - SATURATION_MARGIN)
			break;
		if (l->v[i].kind < l->v[best].kind)
			best = i;
	}
	if (best) {
		struct ceiling_candidate c = l->v[best];

		memmove(&l->v[1], &l->v[0], best * sizeof(*l->v));
		l->v[0] = c;
	}
}

static void prefer_pool(struct cand_list *l)
{
	const struct model_thread *th;

	if (l->len < 2 || l->v[0].kind != CEIL_THREAD)
		return;
	th = l->v[0].ref;
	for (size_t i = 1; i < l->len; i++) {
		const struct model_pool *pl = l->v[i].ref;
		struct ceiling_candidate pool;

		if (l->v[i].kind != CEIL_POOL || strcmp(pl->name, th->pool) != 0)
			continue;
		if (l->v[i].utilization < l->v[0].utilization - POOL_MARGIN)
			return;
		pool = l->v[i];
		memmove(&l->v[1], &l->v[0], i * sizeof(*l->v));
		l->v[0] = pool;
		return;
	}
}

/*
 * A lock's share in the running order: its holds. A futex word's holds
 * are not seen (only its waits and hand-overs): its busy time, the union
 * of both, is what it served, as the diagnosis says of it. By its holds
 * alone a word busy 97% (refosd --big-lock, bare) ranked below threads
 * that ran 23% and fell out of the list under its own headline.
 */
static uint64_t lock_running_ns(const struct model_lock *l)
{
	return l->source == LOCK_SOURCE_FUTEX ? corecap_lock_busy_ns(l) : corecap_lock_hold_ns(l);
}

/* Fills c->running: the candidates with their running share as utilization, most first. */
static void running_order(struct ceiling *c, const struct cand_list *l, uint64_t w)
{
	struct cand_list r = {.v = malloc((l->len ? l->len : 1) * sizeof(*l->v)), .len = l->len};

	if (!r.v)
		return;
	memcpy(r.v, l->v, l->len * sizeof(*l->v));
	for (size_t i = 0; i < r.len; i++) {
		if (r.v[i].kind == CEIL_THREAD)
			r.v[i].utilization = corecap_thread_cpu_util(r.v[i].ref, w);
		else if (r.v[i].kind == CEIL_POOL)
			r.v[i].utilization = ((const struct model_pool *)r.v[i].ref)->cpu_util;
		else if (r.v[i].kind == CEIL_LOCK)
			r.v[i].utilization = (double)lock_running_ns(r.v[i].ref) / (double)w;
	}
	qsort(r.v, r.len, sizeof(*r.v), cmp_cand);
	c->n_running = r.len < CEILING_CANDIDATES ? r.len : CEILING_CANDIDATES;
	memcpy(c->running, r.v, c->n_running * sizeof(*r.v));
	free(r.v);
}

int corecap_ceiling_compute(struct ceiling *c, const struct ceiling_inputs *in)
{
	const struct model *m = in->model;
	uint64_t w = corecap_model_window_ns(m);
	struct cand_list l = {0};
	char label[CORECAP_LOCK_LABEL_MAX];
	int ret = 0;

	*c = (struct ceiling){.kind = CEIL_NONE};
	if (!w)
		return verdict(c, in, 1);
	l.v = calloc(MAX_CANDIDATES, sizeof(*l.v));
	if (!l.v)
		return -ENOMEM;
	for (size_t i = 0; i < m->locks.len; i++) {
		const struct model_lock *lk = m->locks.all[i];

		if (lk->profiler) /* the profiler's own (profiler_own.h) */
			continue;
		corecap_lock_label(lk, label, sizeof(label));
		add_cand(&l, CEIL_LOCK, label, (double)corecap_lock_busy_ns(lk) / (double)w, lk);
	}
	/*
	 * Without the shim, the locks are the futex words the kernel saw
	 * waited on as mutexes (futex_locks.h). The idle waits (conditions,
	 * other futex waits, re-locks as a condition wait returns) are
	 * threads waiting for work, not queued for a server.
	 */
	for (size_t i = 0; !m->src.trace && !m->src.stats && i < m->futex_locks.len; i++) {
		const struct model_lock *lk = m->futex_locks.all[i];

		if (lk->idle || lk->profiler || !lk->contentions)
			continue;

		corecap_lock_label(lk, label, sizeof(label));
		add_cand(&l, CEIL_LOCK, label, (double)corecap_lock_busy_ns(lk) / (double)w, lk);
	}
	for (size_t i = 0; i < m->threads.len; i++) {
		const struct model_thread *th = m->threads.all[i];

		thread_label(th, label, sizeof(label));
		add_cand(&l, CEIL_THREAD, label, corecap_thread_busy_util(th, w), th);
	}
	for (size_t i = 0; i < in->pools->len; i++) {
		const struct model_pool *pl = &in->pools->pools[i];

		if (pl->n_sampled >= 2)
			add_cand(&l, CEIL_POOL, pl->name, pl->busy_util, pl);
	}
	running_order(c, &l, w);
	qsort(l.v, l.len, sizeof(*l.v), cmp_cand);
	prefer_narrowest(&l);
	prefer_pool(&l);
	c->n_top = l.len < CEILING_CANDIDATES ? l.len : CEILING_CANDIDATES;
	memcpy(c->top, l.v, c->n_top * sizeof(*c->top));
	free(l.v);

	if (c->n_top) {
		c->utilization = c->top[0].utilization;
		c->headroom = 1.0 / c->utilization;
		if (c->utilization >= CEILING_SATURATED) {
			c->kind = c->top[0].kind;
			snprintf(c->name, sizeof(c->name), "%s", c->top[0].name);
		}
	}
	switch (c->kind) {
	case CEIL_LOCK:
		ret = lock_evidence(c, in, c->top[0].ref, w);
		break;
	case CEIL_THREAD:
		ret = thread_evidence(c, in, c->top[0].ref, w);
		break;
	case CEIL_POOL: {
		const struct model_pool *pl = c->top[0].ref;

		ret = evidence(c,
			       "%zu threads ran %.1f%% and waited for a CPU %.1f%% of their spans",
			       pl->n_sampled, pct(pl->cpu_util), pct(pl->busy_util - pl->cpu_util));
		if (!ret && pl->busiest)
			ret = evidence(c, "busiest: %s (tid %d) at %.1f%%", pl->busiest->name,
				       pl->busiest->tid, pct(pl->busiest_busy));
		break;
	}
	case CEIL_CORES:
	case CEIL_DEVICE:
	case CEIL_NONE:
		break;
	}
	if (!ret)
		ret = cores_line(c, in, w);
	if (!ret && !corecap_model_has_locks(m))
		ret = evidence(c,
			       "locks: not measured (no trace, no shim counters, no kernel futex "
			       "events), so no lock could be weighed");
	for (size_t i = 1; !ret && i < c->n_top && i < 3; i++)
		ret = evidence(c, "next: %s %s at %.1f%%",
			       corecap_ceiling_kind_name(c->top[i].kind), c->top[i].name,
			       pct(c->top[i].utilization));
	return ret ? ret : verdict(c, in, w);
}

void corecap_ceiling_release(struct ceiling *c)
{
	corecap_lines_release(&c->evidence, &c->n_evidence);
	free(c->verdict);
	*c = (struct ceiling){0};
}
