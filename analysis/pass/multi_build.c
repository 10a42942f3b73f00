#include "multi_build.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/diag.h>

static struct multi_pool *pool_named(struct multi_report *v, const char *name)
{
	struct multi_pool *grown;

	for (size_t i = 0; i < v->n_pools; i++)
		if (strcmp(v->pools[i].name, name) == 0)
			return &v->pools[i];
	grown = realloc(v->pools, (v->n_pools + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	v->pools = grown;
	grown = &v->pools[v->n_pools++];
	*grown = (struct multi_pool){0};
	snprintf(grown->name, sizeof(grown->name), "%s", name);
	return grown;
}

static int cmp_pool(const void *a, const void *b)
{
	const struct multi_pool *x = a, *y = b;

	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns < y->cpu_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* One daemon's pools into the merged ones; its cores. */
static int merge(struct multi_report *v, struct multi_section *s)
{
	const struct report *r = s->r;
	const struct pool_table *p = r->pools;
	uint64_t w = corecap_model_window_ns(r->model);
	uint64_t top = (uint64_t)(v->window_s * 1e9);
	bool waits = corecap_model_has_thread_waits(r->model);

	/* A daemon that exited early used its cores over the box's window, not its own. */
	if (top > w)
		w = top;
	s->cores_used = w && p->n_sampled ? (double)p->cpu_ns / (double)w : 0;
	s->runq_threads = w && p->n_sampled ? (double)p->runq_ns / (double)w : 0;
	v->cores_used += s->cores_used;
	v->runq_threads += s->runq_threads;
	for (size_t i = 0; i < p->len; i++) {
		const struct model_pool *pl = &p->pools[i];
		struct multi_pool *m = pool_named(v, pl->name);

		if (!m)
			return -ENOMEM;
		m->n_daemons++;
		m->n_threads += pl->n_threads;
		m->span_ns += pl->span_ns;
		m->cpu_ns += pl->cpu_ns;
		m->runq_ns += pl->runq_ns;
		m->lock_wait_ns += pl->lock_wait_ns;
		m->cond_wait_ns += pl->cond_wait_ns;
		m->logging_ns += pl->logging_ns;
		for (int c = 0; c < CORECAP_IO_CLASSES; c++)
			m->io_ns[c] += pl->io_ns[c];
		m->waits |= waits;
	}
	return 0;
}

static void evidence(struct multi_report *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void evidence(struct multi_report *v, const char *fmt, ...)
{
	va_list ap;

	if (v->n_evidence == MULTI_MAX_EVIDENCE)
		return;
	va_start(ap, fmt);
	vsnprintf(v->evidence[v->n_evidence++], sizeof(v->evidence[0]), fmt, ap);
	va_end(ap);
}

/* The box's cores over the window, from its manifest ("machine"). */
static void box_cores(struct multi_report *v)
{
	const struct run_manifest *mf = &v->run->manifest;

	v->busy_cores = v->bench_cores = v->other_cores = v->idle_cores = -1;
	if (v->window_s <= 0 || !mf->has_machine_busy)
		return;
	v->busy_cores = mf->machine_busy_cpu_s / v->window_s;
	if (v->nproc) {
		if (v->busy_cores > v->nproc)
			v->busy_cores = v->nproc;
		v->idle_cores = v->nproc - v->busy_cores;
	}
	if (mf->has_bench_cpu)
		v->bench_cores = mf->bench_cpu_s / v->window_s;
	v->other_cores = v->busy_cores - v->cores_used - (v->bench_cores > 0 ? v->bench_cores : 0);
	if (v->other_cores < 0)
		v->other_cores = 0;
}

/* What caps the box: its cores, or the most utilized resource of a daemon, or none. */
static void verdict(struct multi_report *v)
{
	const struct ceiling_candidate *best = NULL;
	const struct multi_section *best_s = NULL;

	for (size_t i = 0; i < v->n; i++) {
		const struct ceiling *c = v->s[i].r ? v->s[i].r->ceiling : NULL;

		if (c && c->n_top && (!best || c->top[0].utilization > best->utilization)) {
			best = &c->top[0];
			best_s = &v->s[i];
		}
	}
	v->cap_kind = "none";
	/* The busy cores as the text prints them (two decimals): 1.7996 of 2 reads
	 * 1.80, 90%, and must not sit beside "nothing saturates". */
	if (v->busy_cores >= 0 && v->nproc &&
	    round(v->busy_cores * 100) / 100 >= MULTI_BOX_CORES_BUSY * v->nproc) {
		v->cap_kind = "cores";
		snprintf(v->cap_name, sizeof(v->cap_name), "the box's %d cores", v->nproc);
		v->cap_utilization = v->busy_cores / v->nproc;
		char bench[32] = "?";

		if (v->bench_cores >= 0)
			snprintf(bench, sizeof(bench), "%.2f", v->bench_cores);
		snprintf(
			v->verdict, sizeof(v->verdict),
			"the box's cores: %.2f of %d busy (%.0f%%: the daemons %.2f, the benchmark "
			"%s, other processes %.2f); more daemons or more load cannot add "
			"throughput "
			"here, only fewer cores per op%s",
			v->busy_cores, v->nproc, 100 * v->cap_utilization, v->cores_used, bench,
			v->other_cores,
			v->other_cores > v->cores_used ? " or less other work on the box" : "");
	} else if (best && best->utilization >= CEILING_SATURATED) {
		v->cap_kind = corecap_ceiling_kind_name(best->kind);
		snprintf(v->cap_name, sizeof(v->cap_name), "%s", best->name);
		v->cap_pid = best_s->d->pid;
		v->cap_utilization = best->utilization;
		snprintf(v->verdict, sizeof(v->verdict),
			 "%s %s of PID %d (%s) at %.0f%%: the box's cores are not the limit",
			 v->cap_kind, best->name, best_s->d->pid, best_s->d->comm,
			 100 * best->utilization);
	} else {
		snprintf(v->verdict, sizeof(v->verdict),
			 "nothing on the box saturates: neither its cores nor any daemon's "
			 "resource (the load offered sets the throughput)");
	}
	if (v->busy_cores >= 0) {
		char bench[32] = "unknown";

		if (v->bench_cores >= 0)
			snprintf(bench, sizeof(bench), "%.2f", v->bench_cores);
		evidence(v,
			 "the box's %d cores were %.0f%% busy over %.2f s: the daemons %.2f, the "
			 "benchmark %s, other processes %.2f; idle %.2f",
			 v->nproc, v->nproc ? 100 * v->busy_cores / v->nproc : 0, v->window_s,
			 v->cores_used, bench, v->other_cores,
			 v->idle_cores < 0 ? 0 : v->idle_cores);
	}
	evidence(v, "the daemons' threads waited for a CPU %.2f threads on average (run queue)",
		 v->runq_threads);
	if (best)
		evidence(v, "busiest resource of a daemon: %s %s of PID %d (%s) at %.0f%%",
			 corecap_ceiling_kind_name(best->kind), best->name, best_s->d->pid,
			 best_s->d->comm, 100 * best->utilization);
	for (size_t i = 0; i < v->n; i++)
		if (!v->s[i].r)
			evidence(v, "PID %d is left out: %s", v->s[i].d->pid, v->s[i].why_not);
}

int corecap_multi_build(struct multi_build *mb, const char *dir, const char *symfs,
			const struct report_opts *o, const struct multi_report **out)
{
	struct multi_report *v = &mb->view;
	char *err = NULL;
	size_t n;
	int ret;

	*mb = (struct multi_build){0};
	ret = corecap_multi_run_open(&mb->run, dir, &err);
	if (ret) {
		corecap_error("%s", err ? err : strerror(-ret));
		free(err);
		return ret;
	}
	n = mb->run.n_daemons;
	mb->runs = calloc(n, sizeof(*mb->runs));
	mb->b = calloc(n, sizeof(*mb->b));
	mb->r = calloc(n, sizeof(*mb->r));
	mb->s = calloc(n, sizeof(*mb->s));
	if (!mb->runs || !mb->b || !mb->r || !mb->s)
		return -ENOMEM;
	*v = (struct multi_report){.run_dir = dir, .run = &mb->run, .s = mb->s, .n = n};
	if (mb->run.manifest.has_window)
		v->window_s = (double)(mb->run.manifest.window_end_ns -
				       mb->run.manifest.window_start_ns) /
			      1e9;
	v->nproc = mb->run.manifest.nproc;
	for (size_t i = 0; i < n; i++) {
		struct multi_section *s = &mb->s[i];

		s->d = &mb->run.daemons[i];
		s->cores_used = -1;
		if (strcmp(s->d->status, "missing") == 0) {
			s->why_not = "no run of it was written";
			continue;
		}
		ret = corecap_report_build_dir(&mb->b[i], &mb->runs[i], s->d->dir, symfs, o,
					       &mb->r[i]);
		if (ret) {
			s->why_not = ret == -ENODATA
					     ? "its window never started"
					     : "its run cannot be read (the error is above)";
			continue;
		}
		s->r = &mb->r[i];
		v->n_analysed++;
		ret = merge(v, s);
		if (ret)
			return ret;
	}
	qsort(v->pools, v->n_pools, sizeof(*v->pools), cmp_pool);
	box_cores(v);
	verdict(v);
	*out = v;
	return 0;
}

void corecap_multi_build_release(struct multi_build *mb)
{
	for (size_t i = 0; mb->b && i < mb->run.n_daemons; i++) {
		corecap_report_build_release(&mb->b[i]);
		corecap_run_close(&mb->runs[i]);
	}
	free(mb->b);
	free(mb->runs);
	free(mb->r);
	free(mb->s);
	free(mb->view.pools);
	corecap_multi_run_close(&mb->run);
	*mb = (struct multi_build){0};
}
