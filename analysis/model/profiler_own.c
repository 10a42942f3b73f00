#include "profiler_own.h"

#include "ceph_critical.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The suffix LTTng-UST (2.12 and later) gives its listener threads' names. */
#define UST_SUFFIX "-ust"
/* The room it leaves the process's name: 16 bytes of comm, the suffix, NUL. */
#define UST_PREFIX_MAX (16 - sizeof(UST_SUFFIX))
/* The shim's own thread (preload/dump.c). */
#define SHIM_DUMP_THREAD "corecap-dump"

void corecap_profiler_own_init(struct profiler_own *p, const char *daemon_comm,
			       int32_t collector_pid)
{
	*p = (struct profiler_own){.collector_pid = collector_pid};
	if (daemon_comm)
		snprintf(p->daemon_comm, sizeof(p->daemon_comm), "%s", daemon_comm);
	corecap_thread_table_init(&p->threads);
}

void corecap_profiler_own_release(struct profiler_own *p)
{
	corecap_thread_table_release(&p->threads);
	*p = (struct profiler_own){0};
}

bool corecap_profiler_is_thread_name(const struct profiler_own *p, const char *comm)
{
	size_t n = comm ? strlen(comm) : 0, k = sizeof(UST_SUFFIX) - 1, prefix;

	if (!n)
		return false;
	if (!strcmp(comm, SHIM_DUMP_THREAD))
		return true;
	if (n <= k || strcmp(comm + n - k, UST_SUFFIX))
		return false;
	/* "<the process's name, cut>-ust": with the daemon's name known, its
	 * prefix must be that name's; else any "-ust" thread is taken. */
	prefix = n - k;
	if (!p->daemon_comm[0])
		return true;
	if (prefix > UST_PREFIX_MAX)
		return false;
	return strncmp(comm, p->daemon_comm, prefix) == 0 &&
	       (strlen(p->daemon_comm) == prefix || prefix == UST_PREFIX_MAX);
}

bool corecap_profiler_cuts_pool(const void *p, const char *pool)
{
	return corecap_profiler_is_thread_name(p, pool);
}

/* Whether tid is a thread of the collector that recorded the run. */
static bool is_collector(const struct profiler_own *p, int32_t tid)
{
	if (p->collector_pid <= 0 || tid <= 0)
		return false;
	if (tid == p->collector_pid)
		return true;
	return p->cp && corecap_critical_path_holder_tgid(p->cp, tid) == p->collector_pid;
}

bool corecap_profiler_is_thread(const struct profiler_own *p, int32_t tid, const char *comm)
{
	if (is_collector(p, tid))
		return true;
	if (!comm && p->cp)
		comm = corecap_critical_path_thread_name(p->cp, tid);
	return corecap_profiler_is_thread_name(p, comm);
}

bool corecap_profiler_is_module(const char *path)
{
	static const char *const prefixes[] = {
		"libcorecap-",		    /* the shim, the tracepoint provider */
		"liblttng-ust",		    /* LTTng-UST, its libraries */
		"lttng-ust-wait-",	    /* LTTng-UST's shared wait page */
		"libprofiler",		    /* gperftools' CPU profiler */
		"libtcmalloc_and_profiler", /* it, linked with tcmalloc */
		"libunwind",		    /* its unwinder */
	};
	const char *base;

	if (!path)
		return false;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
		if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

bool corecap_profiler_is_frame(const struct profiler_own *p, uint64_t addr)
{
	return addr && p->module_of &&
	       corecap_profiler_is_module(p->module_of(p->module_ctx, addr));
}

bool corecap_profiler_is_lock_site(const struct profiler_own *p, uint64_t addr, uint64_t site)
{
	return corecap_profiler_is_frame(p, addr) || corecap_profiler_is_frame(p, site);
}

static uint64_t thread_cpu_ns(const struct model_thread *th)
{
	return th->has_kstates ? th->k_running_ns : th->has_samples ? th->cpu_ns : 0;
}

int corecap_profiler_own_split_threads(struct profiler_own *p, struct thread_table *t)
{
	size_t kept = 0;
	int ret = 0;

	for (size_t i = 0; i < t->len; i++) {
		struct model_thread *th = t->all[i], *moved;
		uint64_t *idx;

		if (!corecap_profiler_is_thread(p, th->tid, th->name)) {
			t->all[kept++] = th;
			continue;
		}
		p->threads_cpu_ns += thread_cpu_ns(th);
		if (p->keep) {
			t->all[kept++] = th;
			/* Listed for the report's line, as a copy. */
			if (!(moved = corecap_thread_table_get(&p->threads, th->tid)))
				ret = -ENOMEM;
			else
				*moved = *th;
			continue;
		}
		/* The thread itself moves: pointers into it stay valid. */
		if ((moved = corecap_thread_table_get(&p->threads, th->tid))) {
			idx = corecap_u64map_find(&p->threads.by_tid, (uint64_t)(uint32_t)th->tid);
			free(moved);
			p->threads.all[*idx] = th;
		} else {
			t->all[kept++] = th;
			ret = -ENOMEM;
		}
	}
	t->len = kept;
	/* Rebuild the index of those left. */
	corecap_u64map_release(&t->by_tid);
	corecap_u64map_init(&t->by_tid);
	for (size_t i = 0; i < t->len && !ret; i++) {
		uint64_t *idx =
			corecap_u64map_upsert(&t->by_tid, (uint64_t)(uint32_t)t->all[i]->tid, NULL);

		if (!idx)
			ret = -ENOMEM;
		else
			*idx = i;
	}
	return ret;
}

/* Whether tid is one of the profiler's: its thread in the daemon, or the collector's. */
static bool own_tid(const struct profiler_own *p, int32_t tid)
{
	return corecap_thread_table_find(&p->threads, tid) || is_collector(p, tid);
}

void corecap_profiler_own_mark_locks(struct profiler_own *p, struct lock_table *t)
{
	for (size_t i = 0; i < t->len && !p->keep; i++) {
		struct model_lock *l = t->all[i];
		const struct lock_site *top = corecap_lock_top_site(l);
		bool only_own = l->n_waiters > 0;
		size_t kept = 0;

		for (size_t k = 0; k < l->n_waiters && only_own; k++)
			only_own = own_tid(p, l->waiters[k].tid);
		if (only_own || corecap_profiler_is_lock_site(p, l->addr, top ? top->site : 0)) {
			l->profiler = true;
			p->locks_cut++;
			continue;
		}
		for (size_t k = 0; k < l->n_holders; k++) {
			if (own_tid(p, l->holders[k].tid)) {
				p->holders_cut++;
				continue;
			}
			l->holders[kept++] = l->holders[k];
		}
		l->n_holders = kept;
	}
}

/* The ops on the path of one type, and their runqueue behind p. */
static void runq_of(const struct profiler_own *p, const struct cp_type *t, uint64_t *ns,
		    uint64_t *ops)
{
	uint64_t key, v;

	if (!t)
		return;
	*ops += t->count;
	for (size_t k = 0; corecap_u64map_next(&t->credit, &k, &key, &v);) {
		int32_t tid = CP_CREDIT_TID(key);

		if (CP_CREDIT_CAT(key) == CP_RUNQUEUE && tid > 0 &&
		    corecap_profiler_is_thread(p, tid, NULL))
			*ns += v;
	}
}

void corecap_profiler_runq_behind(const struct profiler_own *p, uint64_t *ns, uint64_t *ops)
{
	*ns = *ops = 0;
	if (!p->cp)
		return;
	/* The trace's ops, else the OpTracker's, as the projection counts them. */
	for (size_t i = 0; i < p->cp->n_types; i++)
		runq_of(p, &p->cp->types[i], ns, ops);
	if (*ops)
		return;
	*ns = 0;
	/* An OpTracker type's phases have slots of their own after its whole
	 * op's: counted too, they would count its ops and runqueue again. */
	if (p->ceph)
		for (size_t ti = 0; ti < p->ceph->ceph->n_types; ti++)
			runq_of(p, corecap_ceph_critical_type(p->ceph, ti, 0), ns, ops);
	else
		for (size_t i = 0; i < p->cp->n_ext_types; i++)
			runq_of(p, &p->cp->ext_types[i], ns, ops);
}

size_t corecap_profiler_path_top(const struct profiler_own *p, const struct cp_type *t,
				 struct cp_top *out, size_t n)
{
	/* Every pair: the profiler's may be any number of the largest. */
	size_t all = t->credit.len + 1, len, kept = 0;
	struct cp_top *v = calloc(all, sizeof(*v));

	if (!v)
		return 0;
	len = corecap_critical_path_top(t, v, all);
	for (size_t i = 0; i < len && kept < n; i++)
		if (!p || p->keep || v[i].tid <= 0 ||
		    !corecap_profiler_is_thread(p, v[i].tid, NULL))
			out[kept++] = v[i];
	free(v);
	return kept;
}

void corecap_profiler_cost(const struct profiler_own *p, uint64_t window_ns, double collector_cpu_s,
			   struct profiler_cost *c)
{
	double w = window_ns ? (double)window_ns / 1e9 : 0;
	uint64_t ns, ops;

	*c = (struct profiler_cost){.collector_cores = -1, .runq_us_per_op = -1};
	c->n_threads = p->threads.len;
	c->threads_cores = w > 0 ? (double)p->threads_cpu_ns / 1e9 / w : 0;
	if (collector_cpu_s >= 0 && w > 0)
		c->collector_cores = collector_cpu_s / w;
	/* Without the collector's, the sum is not measured: never a 0 that reads as one. */
	c->cpu_cores = c->collector_cores >= 0 ? c->threads_cores + c->collector_cores : -1;
	corecap_profiler_runq_behind(p, &ns, &ops);
	if (ops)
		c->runq_us_per_op = (double)ns / (double)ops / 1e3;
}
