#include "projection.h"

#include <stdio.h>
#include <string.h>
#include <corecap/run_format.h>

static const char *kind_word(enum ceiling_kind k)
{
	return corecap_ceiling_kind_name(k);
}

static void add_res(struct projection *p, enum ceiling_kind kind, const char *name, double demand,
		    double servers)
{
	struct projection_resource r = {
		.kind = kind, .demand_s_per_op = demand, .servers = servers};
	size_t i;

	if (demand <= 0)
		return;
	r.iops = servers / demand;
	snprintf(r.name, sizeof(r.name), "%s", name);
	/* Kept sorted by X ascending, the PROJECTION_RESOURCES smallest. */
	for (i = p->n_res; i > 0 && p->res[i - 1].iops > r.iops; i--)
		if (i < PROJECTION_RESOURCES)
			p->res[i] = p->res[i - 1];
	if (i < PROJECTION_RESOURCES) {
		p->res[i] = r;
		if (p->n_res < PROJECTION_RESOURCES)
			p->n_res++;
	}
}

double corecap_projection_disk_use(const struct projection_disk *d)
{
	double busy = d->busy >= 0 && d->in_flight >= 0 && d->in_flight <= PROJECTION_DISK_SERIAL
			      ? d->busy
			      : -1;

	return d->limit_use > busy ? d->limit_use : busy;
}

const struct projection_disk *corecap_projection_disk(const struct projection *p, const char *name)
{
	for (size_t i = 0; i < p->n_disks; i++)
		if (strcmp(p->disks[i].name, name) == 0)
			return &p->disks[i];
	return NULL;
}

/* The disks whose use is known: one server each, D_r their use per op. */
static void disks(struct projection *p, const struct projection_inputs *in)
{
	p->disks = in->disks;
	p->n_disks = in->n_disks < PROJECTION_DISKS ? in->n_disks : PROJECTION_DISKS;
	p->path_io_share = in->path_ops && in->path_latency_ns
				   ? (double)in->path_io_ns / (double)in->path_latency_ns
				   : -1;
	/* Ops that do not wait on a disk are not capped by one. */
	if (p->path_io_share >= 0 && p->path_io_share < PROJECTION_DISK_PATH_IO)
		return;
	for (size_t i = 0; i < p->n_disks; i++) {
		double u = corecap_projection_disk_use(&p->disks[i]);

		/* Over 1 (the window's edges): full, not beyond it. */
		if (u > 0)
			add_res(p, CEIL_DEVICE, p->disks[i].name,
				(u > 1 ? 1 : u) / p->iops_measured, 1);
	}
}

static void label(char *out, size_t size, const struct projection_resource *r)
{
	snprintf(out, size, "%s %s", kind_word(r->kind), r->name);
}

/* min(n / cpu_per_op, the smallest X_r), naming what binds. */
static double bound_at(const struct projection *p, double cpu_per_op, int n, char *bound,
		       size_t size)
{
	double cores_x = cpu_per_op > 0 ? n / cpu_per_op : 0;

	if (p->n_res && (cores_x <= 0 || p->res[0].iops < cores_x)) {
		label(bound, size, &p->res[0]);
		return p->res[0].iops;
	}
	snprintf(bound, size, "cores");
	return cores_x;
}

static void collect(struct projection *p, const struct projection_inputs *in, double ops)
{
	const struct model *m = in->model;
	char name[CORECAP_LOCK_LABEL_MAX];

	for (size_t i = 0; i < m->locks.len; i++) {
		const struct model_lock *l = m->locks.all[i];
		double acqs = (double)(l->has_stats ? l->stats_acquisitions : l->holds);
		double hold = (double)corecap_lock_hold_ns(l) / 1e9;
		/* Hand-offs cost a saturated lock only if held longer than a wake-up
		 * (projection.h). */
		double handoff = acqs > 0 && hold / acqs >= p->wake_s ? acqs * p->wake_s : 0;

		if (l->profiler) /* the profiler's own (profiler_own.h) */
			continue;
		corecap_lock_label(l, name, sizeof(name));
		add_res(p, CEIL_LOCK, name, hold > 0 ? (hold + handoff) / ops : 0, 1);
	}
	/*
	 * Without the shim or the trace, the locks are the futex words the
	 * kernel saw waited on as mutexes, as the ceiling's candidates: a
	 * word's busy time (its waits' union and hand-over holds) is its
	 * demand, the holds alone being unseen. Idle waits queue for no server.
	 */
	for (size_t i = 0; !m->src.trace && !m->src.stats && i < m->futex_locks.len; i++) {
		const struct model_lock *l = m->futex_locks.all[i];

		if (l->idle || l->profiler || !l->contentions)
			continue;
		corecap_lock_label(l, name, sizeof(name));
		add_res(p, CEIL_LOCK, name, (double)corecap_lock_busy_ns(l) / 1e9 / ops, 1);
	}
	for (size_t i = 0; i < m->threads.len; i++) {
		const struct model_thread *th = m->threads.all[i];

		if (!th->has_samples)
			continue;
		snprintf(name, sizeof(name), "%s (tid %d)", th->name[0] ? th->name : "?", th->tid);
		add_res(p, CEIL_THREAD, name, (double)th->cpu_ns / 1e9 / ops, 1);
	}
	for (size_t i = 0; i < in->pools->len; i++) {
		const struct model_pool *pl = &in->pools->pools[i];

		if (pl->n_sampled >= 2)
			add_res(p, CEIL_POOL, pl->name, (double)pl->cpu_ns / 1e9 / ops,
				(double)pl->n_sampled);
	}
}

/* The benchmark's closed loop (projection.h), when it keeps one op in flight. */
static void closed_loop(struct projection *p, const struct projection_inputs *in)
{
	double more;

	p->loop.why_not = NULL;
	if (in->bench_iops <= 0 || in->bench_lat_s <= 0) {
		p->loop.why_not = "the benchmark's summary gives no IOPS and mean latency";
		return;
	}
	p->loop.in_flight = in->bench_iops * in->bench_lat_s;
	p->loop.client_lat_s = in->bench_lat_s;
	if (p->loop.in_flight >= PROJECTION_LOOP_MAX) {
		p->loop.why_not = "the benchmark keeps more than one op in flight: each op's "
				  "path holds the others' work";
		return;
	}
	if (!in->path_ops) {
		p->loop.why_not = "no critical path (no kernel events)";
		return;
	}
	p->loop.path_lat_s = (double)in->path_latency_ns / 1e9 / (double)in->path_ops;
	p->loop.runq_s = (double)in->path_runq_ns / 1e9 / (double)in->path_ops;
	more = p->loop.client_lat_s - p->loop.runq_s;
	if (more <= 0) {
		p->loop.why_not = "the ops' paths are all run-queue wait";
		return;
	}
	p->loop.valid = true;
	p->loop.lat_more_s = more;
	p->loop.iops_here = p->loop.in_flight / p->loop.client_lat_s;
	p->loop.iops_more = p->loop.in_flight / more;
}

/* A point's throughput against the closed loop's at its cores. */
static void loop_bound(const struct projection *p, int n, double *iops, char *bound, size_t size)
{
	double x = n > p->cores_here ? p->loop.iops_more : p->loop.iops_here;

	if (p->loop.valid && *iops >= 0 && x < *iops) {
		*iops = x;
		snprintf(bound, size, "%s", PROJECTION_LOOP_BOUND);
	}
}

static void verdicts(struct projection *p, double w_s)
{
	const struct projection_point *here = &p->at[p->cores_here - 1];
	double stolen = p->stolen_cores > 0 ? p->stolen_cores : 0;
	char steal[96] = "";
	int n;

	/* Shown from a hundredth of a core: the figure is in clock ticks. */
	if (stolen >= 0.01)
		snprintf(steal, sizeof(steal), ", the hypervisor took %.2f (steal)", stolen);
	if (p->bench_cores >= 0 && p->other_cores >= 0)
		n = snprintf(p->machine_verdict, sizeof(p->machine_verdict),
			     "%s: the daemon used %.2f, the benchmark client %.2f and other "
			     "processes %.2f of %d cores%s (idle %.2f)",
			     p->cores_bind_here ? "the cores are the limit on this machine"
						: "the cores are not the limit on this machine",
			     p->daemon_cores, p->bench_cores, p->other_cores, p->machine_cpus,
			     steal,
			     p->machine_cpus - p->daemon_cores - p->bench_cores - p->other_cores -
				     stolen);
	else
		n = snprintf(p->machine_verdict, sizeof(p->machine_verdict),
			     "%s: the daemon used %.2f of %d cores (the machine's other CPU use "
			     "was not recorded)",
			     p->cores_bind_here ? "the cores are the limit on this machine"
						: "the cores are not the limit on this machine",
			     p->daemon_cores, p->cores_here);
	(void)n;
	(void)w_s;
	if (p->n_res)
		snprintf(p->daemon_verdict, sizeof(p->daemon_verdict),
			 "the daemon's own limit is %s %s: %.2f us per op%s saturates it at %.0f "
			 "ops/s (%.2fx the %.0f measured)%s",
			 kind_word(p->res[0].kind), p->res[0].name, p->res[0].demand_s_per_op * 1e6,
			 p->res[0].kind == CEIL_POOL ? " over its threads" : "", p->res[0].iops,
			 p->res[0].iops / p->iops_measured, p->iops_measured,
			 strcmp(here->bound_by, PROJECTION_LOOP_BOUND) == 0
				 ? "; the benchmark's one op in flight binds before it here"
			 : here->iops < p->res[0].iops ? "; the cores bind before it here"
						       : "");
	else
		snprintf(
			p->daemon_verdict, sizeof(p->daemon_verdict),
			"no lock, thread or pool figure per op: the daemon's own limit is unknown");
}

/*
 * The scale run's fit past this run's cores (PROJECTION_FIT_ASSUMPTION):
 * where it is below the constant-demand figure, the fit binds the point.
 */
static void fit(struct projection *p, const struct projection_inputs *in)
{
	for (int n = 1; n <= PROJECTION_MAX_CORES; n++)
		p->at[n - 1].one_run_iops = p->at[n - 1].iops;
	if (!in->fit || !in->fit->valid)
		return;
	p->fitted = true;
	p->fit = *in->fit;
	snprintf(p->fit_dir, sizeof(p->fit_dir), "%s", in->fit_dir ? in->fit_dir : "?");
	for (int n = 1; n <= PROJECTION_MAX_CORES; n++) {
		struct projection_point *pt = &p->at[n - 1];
		double x = scaling_fit_at(in->fit, n);

		pt->fit_iops = x;
		if (in->fit->has_interval && n <= SCALING_BAND) {
			pt->fit_lo = in->fit->band_lo[n - 1];
			pt->fit_hi = in->fit->band_hi[n - 1];
		}
		if (n == p->cores_here)
			continue;
		if (x < pt->iops) {
			pt->iops = x;
			snprintf(pt->bound_by, sizeof(pt->bound_by), PROJECTION_FIT_BOUND);
		}
		if (pt->iops_with_client >= 0 && x < pt->iops_with_client) {
			pt->iops_with_client = x;
			snprintf(pt->bound_with_client, sizeof(pt->bound_with_client),
				 PROJECTION_FIT_BOUND);
		}
	}
}

void corecap_projection_compute(struct projection *p, const struct projection_inputs *in)
{
	uint64_t w = corecap_model_window_ns(in->model);
	double w_s = (double)w / 1e9, ops, best_other;

	memset(p, 0, sizeof(*p));
	p->daemon_cores = p->bench_cores = p->other_cores = p->stolen_cores = -1;
	if (!w || !in->pools->n_sampled || !in->cores_available) {
		p->why_not = !w ? "empty window"
			     : !in->pools->n_sampled
				     ? "no thread CPU figures (" CORECAP_RUN_THREADS ")"
				     : "the number of cores is unknown (no manifest)";
		return;
	}
	p->iops_source = "trace";
	p->iops_measured = (double)in->model->ops.finished / w_s;
	if (!in->model->ops.finished && in->bench_iops > 0) {
		p->iops_source = "benchmark";
		p->iops_measured = in->bench_iops;
	} else if (!in->model->ops.finished && in->osd_ops > 0) {
		p->iops_source = "perf counters";
		p->iops_measured = in->osd_ops / w_s;
	}
	if (p->iops_measured <= 0) {
		p->why_not = "no throughput: neither finished ops in the trace, a benchmark figure "
			     "nor an OSD's perf counters";
		return;
	}
	ops = p->iops_measured * w_s;
	p->valid = true;
	p->cores_here = in->cores_available > PROJECTION_MAX_CORES ? PROJECTION_MAX_CORES
								   : in->cores_available;
	p->machine_cpus = in->machine_cpus ? in->machine_cpus : in->cores_available;
	p->daemon_cores = (double)in->pools->cpu_ns / (double)w;
	if (in->bench_cpu_s >= 0)
		p->bench_cores = in->bench_cpu_s / w_s;
	if (in->machine_busy_cpu_s >= 0 && in->machine_steal_cpu_s >= 0)
		p->stolen_cores = in->machine_steal_cpu_s / w_s;
	if (in->machine_busy_cpu_s >= 0 && p->bench_cores >= 0) {
		p->other_cores = in->machine_busy_cpu_s / w_s - p->daemon_cores - p->bench_cores -
				 (p->stolen_cores > 0 ? p->stolen_cores : 0);
		if (p->other_cores < 0)
			p->other_cores = 0; /* tick rounding of the three figures */
	}
	p->cpu_s_per_op = (double)in->pools->cpu_ns / 1e9 / ops;
	p->client_s_per_op = in->bench_cpu_s >= 0 ? in->bench_cpu_s / ops : -1;
	p->wake_s = in->wake_ns > 0 ? in->wake_ns / 1e9 : 0;
	collect(p, in, ops);
	disks(p, in);
	closed_loop(p, in);
	for (int n = 1; n <= PROJECTION_MAX_CORES; n++) {
		struct projection_point *pt = &p->at[n - 1];

		pt->cores = n;
		pt->iops = bound_at(p, p->cpu_s_per_op, n, pt->bound_by, sizeof(pt->bound_by));
		pt->iops_with_client =
			p->client_s_per_op < 0
				? -1
				: bound_at(p, p->cpu_s_per_op + p->client_s_per_op, n,
					   pt->bound_with_client, sizeof(pt->bound_with_client));
		loop_bound(p, n, &pt->iops, pt->bound_by, sizeof(pt->bound_by));
		loop_bound(p, n, &pt->iops_with_client, pt->bound_with_client,
			   sizeof(pt->bound_with_client));
	}
	/*
	 * On this machine the cores were the limit if they had (next to) no
	 * idle time, or the daemon filled the CPUs its affinity allows (a
	 * daemon pinned to fewer than the machine's), or, without the
	 * machine's figures, if the projection says the cores bind at the
	 * daemon's core count.
	 */
	if (p->daemon_cores >= 0.95 * p->cores_here)
		p->cores_bind_here = true;
	else if (p->other_cores >= 0)
		p->cores_bind_here = in->machine_busy_cpu_s / w_s >= 0.95 * p->machine_cpus;
	else
		p->cores_bind_here = strcmp(p->at[p->cores_here - 1].bound_by, "cores") == 0;
	/* Relief at this machine's cores: lift the binding bound, the next one binds. */
	{
		double cores_x = p->cpu_s_per_op > 0 ? p->cores_here / p->cpu_s_per_op : 0;
		double cur = p->at[p->cores_here - 1].iops;

		if (strcmp(p->at[p->cores_here - 1].bound_by, PROJECTION_LOOP_BOUND) == 0) {
			/* More ops in flight would lift it: up to the model's bound here. */
			char b[sizeof(p->at[0].bound_by)];

			snprintf(p->relief[0].resource, sizeof(p->relief[0].resource),
				 "the closed loop");
			p->relief[0].iops_gain =
				bound_at(p, p->cpu_s_per_op, p->cores_here, b, sizeof(b)) - cur;
			p->n_relief = 1;
			for (size_t i = 0; i < p->n_res && p->n_relief < PROJECTION_RESOURCES;
			     i++) {
				label(p->relief[p->n_relief].resource,
				      sizeof(p->relief[p->n_relief].resource), &p->res[i]);
				p->relief[p->n_relief++].iops_gain = 0;
			}
			snprintf(p->relief[p->n_relief].resource,
				 sizeof(p->relief[p->n_relief].resource), "cores");
			p->relief[p->n_relief++].iops_gain = 0;
		} else if (p->cores_bind_here) {
			best_other = p->n_res ? p->res[0].iops : cur;
			snprintf(p->relief[0].resource, sizeof(p->relief[0].resource), "cores");
			p->relief[0].iops_gain = best_other - cur;
			p->n_relief = 1;
			for (size_t i = 0; i < p->n_res && p->n_relief < PROJECTION_RESOURCES + 1;
			     i++) {
				label(p->relief[p->n_relief].resource,
				      sizeof(p->relief[p->n_relief].resource), &p->res[i]);
				p->relief[p->n_relief++].iops_gain = 0;
			}
		} else {
			best_other =
				p->n_res > 1 && p->res[1].iops < cores_x ? p->res[1].iops : cores_x;
			for (size_t i = 0; i < p->n_res; i++) {
				label(p->relief[p->n_relief].resource,
				      sizeof(p->relief[p->n_relief].resource), &p->res[i]);
				p->relief[p->n_relief++].iops_gain = i == 0 ? best_other - cur : 0;
			}
			snprintf(p->relief[p->n_relief].resource,
				 sizeof(p->relief[p->n_relief].resource), "cores");
			p->relief[p->n_relief++].iops_gain = 0;
		}
	}
	fit(p, in);
	verdicts(p, w_s);
}
