#include "diagnosis.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <corecap/run_format.h>

/* The cores bind from this share of the allowed CPUs runnable... */
#define CORES_FULL 0.95
/* ...with the daemon's threads waiting for a CPU this many CPUs' worth at least. */
#define CORES_WAITING 0.10
/*
 * A CPU quota below the affinity binds when the daemon ran this share of
 * it at least (CFS bandwidth lets it run the quota, no more; ticks round):
 * under it, something else took the CPUs before the quota ran out.
 */
#define QUOTA_FULL 0.90
/* A disk this busy is named in the evidence whatever binds. */
#define DEVICE_NOTED 0.50
/* A pool ahead of its own busiest thread when within this of it (ceiling.c's margin). */
#define POOL_MARGIN 0.05

const char *corecap_diag_kind_name(enum diag_kind kind)
{
	static const char *const names[] = {"none",  "lock",	    "thread", "pool",
					    "cores", "closed_loop", "device"};

	return kind <= DIAG_DEVICE ? names[kind] : "?";
}

static void ev(struct diagnosis *d, const char *term, const char *meaning, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void ev(struct diagnosis *d, const char *term, const char *meaning, const char *fmt, ...)
{
	struct diag_evidence *e;
	va_list ap;

	if (d->n_evidence == DIAG_EVIDENCE)
		return;
	e = &d->evidence[d->n_evidence++];
	snprintf(e->term, sizeof(e->term), "%s", term);
	snprintf(e->meaning, sizeof(e->meaning), "%s", meaning);
	va_start(ap, fmt);
	vsnprintf(e->value, sizeof(e->value), fmt, ap);
	va_end(ap);
}

static void missing(struct diagnosis *d, const char *what)
{
	if (d->n_missing < DIAG_MISSING)
		d->missing[d->n_missing++] = what;
}

static double pct(double u)
{
	return 100.0 * u;
}

/* One candidate: a projection resource, the cores, or the closed loop. */
struct cand {
	enum diag_kind kind;
	const char *name;
	double iops; /* where it saturates */
	double util; /* measured / iops: its running share (the loop: 1) */
	bool saturated;
	const struct projection_resource *res;
};

static enum diag_kind from_ceiling(enum ceiling_kind k)
{
	switch (k) {
	case CEIL_LOCK:
		return DIAG_LOCK;
	case CEIL_THREAD:
		return DIAG_THREAD;
	case CEIL_POOL:
		return DIAG_POOL;
	case CEIL_CORES:
		return DIAG_CORES;
	case CEIL_DEVICE:
		return DIAG_DEVICE;
	case CEIL_NONE:
		break;
	}
	return DIAG_NONE;
}

static const struct model_thread *find_thread(const struct model *m, const char *label)
{
	char name[128];

	for (size_t i = 0; i < m->threads.len; i++) {
		const struct model_thread *th = m->threads.all[i];

		snprintf(name, sizeof(name), "%s (tid %d)", th->name[0] ? th->name : "?", th->tid);
		if (strcmp(name, label) == 0)
			return th;
	}
	return NULL;
}

/* The shim's locks, then the futex words (the projection's lock candidates). */
static const struct model_lock *find_lock(const struct model *m, const char *label)
{
	const struct lock_table *t[] = {&m->locks, &m->futex_locks};
	char name[CORECAP_LOCK_LABEL_MAX];

	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < t[k]->len; i++) {
			corecap_lock_label(t[k]->all[i], name, sizeof(name));
			if (strcmp(name, label) == 0)
				return t[k]->all[i];
		}
	return NULL;
}

static const struct model_pool *find_pool(const struct pool_table *pt, const char *name)
{
	for (size_t i = 0; i < pt->len; i++)
		if (strcmp(pt->pools[i].name, name) == 0)
			return &pt->pools[i];
	return NULL;
}

/* What the run lacks, and what would provide it. */
static void note_missing(struct diagnosis *d, const struct diagnosis_inputs *in)
{
	const struct model *m = in->model;

	if (in->partial)
		missing(d, "a complete run: this one is partial (its figures cover what was "
			   "recorded); record again without interrupting it");
	if (!m->src.kernel)
		missing(d, "kernel events (exact thread states, the ops' critical paths): record "
			   "as root with kernel events on");
	if (!in->pools->n_sampled)
		missing(d, "the threads' CPU (" CORECAP_RUN_THREADS "): record with /proc readable "
			   "for the daemon");
	if (!corecap_model_has_locks(m))
		missing(d, "lock holds: run the daemon under the shim (corecap run) or record "
			   "kernel futex events as root");
	if (!in->has_bench)
		missing(d, "the benchmark's summary (IOPS, mean latency: its ops in flight): give "
			   "the benchmark to corecap record after --");
	if (in->projection->valid && in->projection->other_cores < 0)
		missing(d, "the machine's CPU (the client's, other processes', steal): a run "
			   "recorded with a benchmark by corecap record");
	if (!in->cpus_allowed)
		missing(d, "the CPUs the daemon may use (its affinity): not recorded, so the "
			   "machine's nproc is used");
	if (in->profiler_cpu_s < 0)
		missing(d, "the profiler's own CPU (manifest collector.cpu_*_s)");
}

/* The cores: what the daemon may use, who took them, and whether they bind. */
static void cores(struct diagnosis *d, const struct diagnosis_inputs *in, double w_s)
{
	const struct projection *p = in->projection;
	bool has_runq = false, whole_machine;
	double occupied;

	for (size_t i = 0; i < in->model->threads.len && !has_runq; i++)
		has_runq = in->model->threads.all[i]->has_runq;
	d->machine_cpus = in->nproc;
	d->cpus_allowed = in->cpus_allowed ? in->cpus_allowed : in->nproc;
	d->cpus_from_nproc = !in->cpus_allowed;
	/* A CPU quota below the affinity caps the daemon's threads together (CFS bandwidth). */
	d->cpus_usable = d->cpus_allowed;
	if (in->cpu_quota > 0) {
		d->cpu_quota = in->cpu_quota;
		snprintf(d->quota_cgroup, sizeof(d->quota_cgroup), "%s",
			 in->quota_cgroup ? in->quota_cgroup : "?");
		d->quota_file = !in->quota_file ? "cpu.max"
				: strcmp(in->quota_file, "cpu.cfs_quota_us") == 0
					? "cpu.cfs_quota_us"
					: "cpu.max";
		if ((d->cpus_allowed <= 0 || in->cpu_quota < d->cpus_allowed) &&
		    p->daemon_cores >= QUOTA_FULL * in->cpu_quota) {
			d->cpus_usable = in->cpu_quota;
			d->quota_binds = true;
		}
	}
	d->daemon_running = p->daemon_cores;
	d->daemon_waiting = has_runq ? (double)in->pools->runq_ns / 1e9 / w_s : -1;
	d->bench_cores = p->bench_cores;
	d->other_cores = p->other_cores;
	d->stolen_cores = p->stolen_cores;
	d->profiler_cores = in->profiler_cpu_s >= 0 ? in->profiler_cpu_s / w_s : -1;
	d->runnable = -1;
	if (d->daemon_waiting < 0 || d->cpus_usable <= 0)
		return;
	/*
	 * On the whole machine the others' CPU is known to be on the daemon's
	 * CPUs; on a subset of it (its affinity) it is not (the run has no
	 * per-CPU figures): only the daemon's own demand is counted there.
	 */
	whole_machine = d->cpus_usable >= d->machine_cpus;
	occupied = d->daemon_running;
	if (whole_machine && p->other_cores >= 0)
		occupied += p->bench_cores + p->other_cores +
			    (p->stolen_cores > 0 ? p->stolen_cores : 0);
	d->runnable = occupied + d->daemon_waiting;
	d->cores_saturated =
		d->runnable >= CORES_FULL * d->cpus_usable && d->daemon_waiting >= CORES_WAITING;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->iops != y->iops)
		return x->iops < y->iops ? -1 : 1;
	/* On a tie the narrower resource explains more: lock, thread, pool, cores, loop. */
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static void set_next(struct diagnosis *d, const struct cand *c)
{
	d->next.kind = c->kind;
	snprintf(d->next.name, sizeof(d->next.name), "%s", c->name);
	d->next.iops = c->iops;
}

/* Does candidate c belong to the headline (a thread of the headline pool, or its pool)? */
static bool same_resource(const struct diagnosis *d, const struct cand *c,
			  const struct diagnosis_inputs *in)
{
	const struct model_thread *th;

	if (c->kind == d->kind && strcmp(c->name, d->name) == 0)
		return true;
	if (d->kind == DIAG_POOL && c->kind == DIAG_THREAD &&
	    (th = find_thread(in->model, c->name)))
		return strcmp(th->pool, d->name) == 0;
	return false;
}

static int sentence(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sentence(char **out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(out, fmt, ap);
	va_end(ap);
	if (n < 0)
		*out = NULL;
	return n < 0 ? -ENOMEM : 0;
}

static void who_took(const struct diagnosis *d, char *out, size_t size)
{
	int n = 0;

	if (d->other_cores < 0) {
		snprintf(out, size, "the machine's other CPU use was not recorded");
		return;
	}
	n = snprintf(out, size,
		     "on the machine's %d CPUs the benchmark client took %.2f, other "
		     "processes %.2f",
		     d->machine_cpus, d->bench_cores, d->other_cores);
	if (d->profiler_cores >= 0 && n > 0 && (size_t)n < size)
		n += snprintf(out + n, size - n, " (of which corecap's collector %.2f)",
			      d->profiler_cores);
	if (d->stolen_cores >= 0.01 && n > 0 && (size_t)n < size)
		snprintf(out + n, size - n, ", the hypervisor %.2f (steal)", d->stolen_cores);
}

static int lock_words(struct diagnosis *d, const struct diagnosis_inputs *in, double w_s)
{
	const struct model_lock *l = find_lock(in->model, d->name);
	const struct lock_site *s = l ? corecap_lock_top_site(l) : NULL;
	double hold_s = l ? (double)corecap_lock_hold_ns(l) / 1e9 : 0;
	int ret;

	if (s && s->symbol)
		snprintf(d->site, sizeof(d->site), "%s", s->symbol);
	d->waiting = -1;
	ev(d, "held", "a lock serves one holder at a time: held all the time is its limit",
	   "%.1f%% of the %.3f s window (%.3f s)", pct(hold_s / w_s), w_s, hold_s);
	if (d->running > hold_s / w_s + 0.005)
		ev(d, "hand-offs", "each acquisition of a saturated lock waits for a wake-up",
		   "%.1f%% more of the window (%.1f us per acquisition)",
		   pct(d->running - hold_s / w_s), in->projection->wake_s * 1e6);
	if (l)
		ev(d, "waited for", "the share of the window some thread waited for it", "%.1f%%",
		   pct((double)corecap_lock_waited_ns(l) / 1e9 / w_s));
	if (l)
		ev(d, "busy", "held, or wanted while handed over (the candidates' figure)",
		   "%.1f%%", pct((double)corecap_lock_busy_ns(l) / 1e9 / w_s));
	if (d->site[0])
		ev(d, "site", "where it is taken most (what verify delays)", "%s", d->site);
	ret = sentence(&d->headline,
		       "lock %s%s%s is busy %.0f%% of the window: throughput can grow at most "
		       "%.2fx (to %.0f ops/s) whatever the cores",
		       d->name, d->site[0] && !strstr(d->name, d->site) ? " taken at " : "",
		       d->site[0] && !strstr(d->name, d->site) ? d->site : "", pct(d->running),
		       d->headroom, d->headroom * d->iops);
	if (!ret)
		ret = sentence(&d->action,
			       "shorten what is done under lock %s, split it, or take it less "
			       "often; first test that it binds: delay its holds (corecap verify) "
			       "and see the throughput fall as the model predicts",
			       d->name);
	/* verify delays holds through the shim: a futex word's lock has none to delay. */
	if (l && l->source == LOCK_SOURCE_FUTEX)
		ev(d, "source", "how its holds were seen",
		   "kernel futex events (no shim: corecap verify needs the daemon under corecap "
		   "run)");
	if (!ret && d->site[0] && l && l->source != LOCK_SOURCE_FUTEX)
		ret = sentence(&d->verify_command, "corecap verify -p %d --site '%s' -- %s",
			       in->pid > 0 ? in->pid : 0, d->site,
			       in->bench_command ? in->bench_command : "BENCHMARK [ARGS...]");
	return ret;
}

static int thread_words(struct diagnosis *d, const struct diagnosis_inputs *in, double w_s)
{
	const struct model_thread *th = find_thread(in->model, d->name);
	int ret;

	d->waiting = th && th->has_runq ? (double)th->runq_ns / 1e9 / w_s : -1;
	ev(d, "running", "on a CPU, as a share of the window: a thread's own utilization", "%.1f%%",
	   pct(d->running));
	if (d->waiting >= 0)
		ev(d, "waiting", "runnable, no CPU free: evidence about the cores, not the thread",
		   "%.1f%%", pct(d->waiting));
	ret = sentence(&d->headline,
		       "thread %s runs on a CPU %.0f%% of the window: one thread runs on one core "
		       "at a time, so throughput can grow at most %.2fx (to %.0f ops/s) whatever "
		       "the cores",
		       d->name, pct(d->running), d->headroom, d->headroom * d->iops);
	if (!ret)
		ret = sentence(&d->action,
			       "take work off thread %s (cut its CPU per op) or spread it over "
			       "more threads; more cores will not help a serial thread",
			       d->name);
	return ret;
}

static int pool_words(struct diagnosis *d, const struct diagnosis_inputs *in, double w_s)
{
	const struct model_pool *pl = find_pool(in->pools, d->name);
	size_t k = pl ? pl->n_sampled : 0;
	int ret;

	d->waiting = pl && k ? (double)pl->runq_ns / 1e9 / w_s / (double)k : -1;
	ev(d, "running", "on a CPU, as a share of the pool's threads' time: its utilization",
	   "%.1f%% over %zu threads", pct(d->running), k);
	if (d->waiting >= 0)
		ev(d, "waiting", "runnable, no CPU free: evidence about the cores, not the pool",
		   "%.1f%%", pct(d->waiting));
	ret = sentence(
		&d->headline,
		"pool %s (%zu threads) runs on a CPU %.0f%% of its threads' time: throughput "
		"can grow at most %.2fx (to %.0f ops/s) with these threads",
		d->name, k, pct(d->running), d->headroom, d->headroom * d->iops);
	if (!ret)
		ret = sentence(&d->action,
			       "add threads to pool %s while CPUs are free, or cut its CPU per op",
			       d->name);
	return ret;
}

/*
 * The cores bound by a cgroup CPU quota below the affinity: the quota's
 * CPU time per period is full (the kernel throttles the daemon's threads
 * for the rest of each period: they wait, runnable). Relieving it gives
 * the daemon the CPUs its affinity allows, the projection there.
 */
static int quota_words(struct diagnosis *d, const char *who)
{
	int ret;

	ev(d, "CPU quota",
	   "CPU time per period its cgroup may use, in CPUs (the tightest of its "
	   "cgroup's and parents')",
	   "%.2f CPU (cgroup %s of %s)", d->cpu_quota, d->quota_file, d->quota_cgroup);
	ev(d, "running", "on a CPU, in CPUs", "%.2f (the daemon's threads)", d->daemon_running);
	ev(d, "waiting", "runnable, no CPU free or the quota spent, in CPUs",
	   "%.2f (the daemon's threads)", d->daemon_waiting);
	ev(d, "runnable", "what wanted the quota's CPU: running + waiting", "%.2f of %.2f",
	   d->runnable, d->cpus_usable);
	ev(d, "who took them", "the machine's other CPU use over the window", "%s", who);
	ret = sentence(
		&d->headline,
		"the cores bind: its CPU quota of %.2f CPU (cgroup %s of %s) is full: the "
		"daemon's threads wanted %.2f CPUs (running %.2f, waiting for a CPU %.2f) "
		"where its affinity allows %d; %s. With the quota lifted the daemon would reach "
		"%.0f ops/s (%.2fx) on its %d CPU%s",
		d->cpu_quota, d->quota_file, d->quota_cgroup, d->daemon_running + d->daemon_waiting,
		d->daemon_running, d->daemon_waiting, d->cpus_allowed, who, d->headroom * d->iops,
		d->headroom, d->cpus_allowed, d->cpus_allowed == 1 ? "" : "s");
	if (!ret)
		ret = sentence(&d->action,
			       "raise the CPU quota of cgroup %s (%s), or cut the daemon's CPU per "
			       "op",
			       d->quota_cgroup, d->quota_file);
	return ret;
}

static int cores_words(struct diagnosis *d)
{
	char who[256];
	int ret;

	who_took(d, who, sizeof(who));
	d->running = d->cpus_usable > 0 ? (d->runnable - d->daemon_waiting) / d->cpus_usable : -1;
	d->waiting = d->cpus_usable > 0 ? d->daemon_waiting / d->cpus_usable : -1;
	ev(d, "allowed CPUs", "the CPUs the daemon may run on", "%d of the machine's %d (%s)",
	   d->cpus_allowed, d->machine_cpus,
	   d->cpus_from_nproc ? "its affinity was not recorded: nproc" : "its affinity");
	if (d->quota_binds)
		return quota_words(d, who);
	if (d->cpu_quota > 0)
		ev(d, "CPU quota", "CPU time per period its cgroup may use, in CPUs",
		   "%.2f CPU (cgroup %s of %s), of which the daemon ran %.2f: not what was full",
		   d->cpu_quota, d->quota_file, d->quota_cgroup, d->daemon_running);
	ev(d, "running", "on a CPU, in CPUs", "%.2f (the daemon's threads)", d->daemon_running);
	ev(d, "waiting", "runnable, no CPU free, in CPUs", "%.2f (the daemon's threads)",
	   d->daemon_waiting);
	ev(d, "runnable", "what wanted the allowed CPUs: running + waiting (+ others' on them)",
	   "%.2f of %d", d->runnable, d->cpus_allowed);
	ev(d, "who took them", "the machine's other CPU use over the window", "%s", who);
	ret = sentence(&d->headline,
		       "the cores bind: the daemon may use %d CPU%s (%s) and its threads wanted "
		       "%.2f of them (running %.2f, waiting for a CPU %.2f); %s. With %s to "
		       "itself the daemon would reach %.0f ops/s (%.2fx)",
		       d->cpus_allowed, d->cpus_allowed == 1 ? "" : "s",
		       d->cpus_from_nproc ? "the machine's; its affinity was not recorded"
		       : d->cpus_allowed < d->machine_cpus ? "its affinity"
							   : "all of the machine's",
		       d->daemon_running + d->daemon_waiting, d->daemon_running, d->daemon_waiting,
		       who, d->cpus_allowed == 1 ? "that CPU" : "those CPUs", d->headroom * d->iops,
		       d->headroom);
	if (!ret)
		ret = sentence(
			&d->action, "%s",
			d->cpus_allowed < d->machine_cpus && !d->cpus_from_nproc
				? "let the daemon use more CPUs (widen its affinity or cpuset), "
				  "or move the other load off its CPUs"
				: "give the daemon more cores, or move the benchmark client "
				  "and the other processes off its machine");
	return ret;
}

/* One evidence line of a disk: what it did, and what its busy time means. */
static void device_evidence(struct diagnosis *d, const struct projection_disk *dv,
			    const struct projection *p)
{
	char term[32], path[96] = "";

	snprintf(term, sizeof(term), "disk %s", dv->name);
	if (dv->busy < 0)
		return;
	if (p->path_io_share >= 0)
		snprintf(path, sizeof(path),
			 "; the ops' critical paths spent %.0f%% of their latency in io%s",
			 pct(p->path_io_share),
			 p->path_io_share < PROJECTION_DISK_PATH_IO ? " (not waiting on a disk)"
								    : "");
	ev(d, term,
	   dv->in_flight <= PROJECTION_DISK_SERIAL
		   ? "busy: an I/O in flight (iostat's %util); serving about one at a time, "
		     "busy all the time is full"
		   : "busy: an I/O in flight (iostat's %util); serving several at once, it can "
		     "be busy all the time and not full",
	   "busy %.0f%%, %.1f I/Os in flight on average, %.0f I/Os per second%s", pct(dv->busy),
	   dv->in_flight, dv->ios_per_s, path);
}

static int device_words(struct diagnosis *d, const struct projection_disk *dv,
			const struct projection *p)
{
	bool limit = dv->limit_use >= 0 && dv->limit_use >= corecap_projection_disk_use(dv);
	int ret;

	d->waiting = -1;
	device_evidence(d, dv, p);
	if (dv->limit_use >= 0)
		ev(d, "I/O limit", "what the daemon's cgroup may do on the disk per second",
		   "%s (%s of cgroup %s): its cgroup did %.0f, %.0f%% of it", dv->limit_what,
		   dv->limit_file, dv->limit_cgroup, dv->limit_rate, pct(dv->limit_use));
	if (limit)
		ret = sentence(&d->headline,
			       "disk %s: the I/O limit of the daemon's cgroup is full (%s, %s of "
			       "cgroup %s; it did %.0f per second, %.0f%%): throughput can grow at "
			       "most %.2fx (to %.0f ops/s) under it",
			       dv->name, dv->limit_what, dv->limit_file, dv->limit_cgroup,
			       dv->limit_rate, pct(dv->limit_use), d->headroom,
			       d->headroom * d->iops);
	else
		ret = sentence(&d->headline,
			       "disk %s is busy %.0f%% of the window serving about one I/O at a "
			       "time (%.1f in flight on average): throughput can grow at most "
			       "%.2fx (to %.0f ops/s) on this disk",
			       dv->name, pct(dv->busy), dv->in_flight, d->headroom,
			       d->headroom * d->iops);
	if (!ret)
		ret = limit ? sentence(&d->action,
				       "raise the I/O limit of cgroup %s (%s) on disk %s, or do "
				       "fewer I/Os per op (batch writes, fewer syncs)",
				       dv->limit_cgroup, dv->limit_file, dv->name)
			    : sentence(&d->action,
				       "do fewer I/Os per op on disk %s (batch writes, fewer "
				       "syncs), give it more I/Os in flight, or use a faster disk",
				       dv->name);
	return ret;
}

static int loop_words(struct diagnosis *d, const struct projection *p)
{
	int ret;

	d->running = 1;
	d->waiting = -1;
	ev(d, "ops in flight", "the benchmark's IOPS x its mean latency (Little's law)", "%.2f",
	   p->loop.in_flight);
	ev(d, "latency", "the benchmark's mean, per op", "%.1f us", p->loop.client_lat_s * 1e6);
	ret = sentence(&d->headline,
		       "the benchmark's closed loop: it keeps %.2f op in flight, so it waits "
		       "for each reply (%.1f us) before the next op, at %.0f ops/s; %s",
		       p->loop.in_flight, p->loop.client_lat_s * 1e6, d->iops,
		       d->cores_saturated ? "the cores are full too, which lengthens each op"
					  : "nothing of the daemon is saturated");
	if (!ret)
		ret = sentence(&d->action, "raise the benchmark's concurrency (more ops in flight, "
					   "e.g. -t 16): the daemon's next limit then binds");
	return ret;
}

static int none_words(struct diagnosis *d, const struct diagnosis_inputs *in, const struct cand *b)
{
	int ret;

	d->waiting = -1;
	if (!b)
		/* Not "nothing is saturated": a thread may run 100% and nothing could say so. */
		ret = sentence(
			&d->headline,
			"no limit can be named: no resource could be weighed (%s), so whether "
			"one is saturated is not known",
			in->projection->valid ? "no lock, thread or pool figure per op"
					      : in->projection->why_not);
	else
		ret = sentence(&d->headline,
			       "nothing measured is saturated: the first to saturate, %s%s%s, %s "
			       "%.0f%% of the window (it would bind at %.0f ops/s, %.2fx); the "
			       "offered load sets the throughput",
			       corecap_diag_kind_name(b->kind), b->name && b->name[0] ? " " : "",
			       b->name ? b->name : "",
			       b->kind == DIAG_LOCK	? "is held (with its hand-offs)"
			       : b->kind == DIAG_CORES	? "are used"
			       : b->kind == DIAG_DEVICE ? "is used"
							: "runs on a CPU",
			       pct(b->util), b->iops, d->headroom);
	if (!ret)
		ret = sentence(&d->action, "%s",
			       d->n_missing ? "offer more load, and record what is missing (below) "
					      "before trusting that nothing binds"
					    : "offer more load (more clients or ops in flight)");
	return ret;
}

/*
 * A scale run's fit (projection.h, PROJECTION_FIT_ASSUMPTION): the
 * throughput past this run's cores is the fit's where it is below one
 * run's constant demand. Said as evidence, and where the answer is more
 * CPUs, in the action: what they would give, measured.
 */
static int fit_words(struct diagnosis *d, const struct projection *p)
{
	int more = p->machine_cpus > p->cores_here ? p->machine_cpus : 2 * p->cores_here;
	const struct projection_point *at;
	char *action;
	int ret = 0;

	if (more > PROJECTION_MAX_CORES)
		more = PROJECTION_MAX_CORES;
	at = &p->at[more - 1];
	ev(d, "scale fit",
	   "the daemon's throughput measured at several core counts and fitted (corecap scale)",
	   "%.0f ops/s at %d CPUs, bound by %s (one run's constant demand: %.0f); %zu points "
	   "of '%s'",
	   at->iops, more, at->bound_by, at->one_run_iops, p->fit.n_points, p->fit_dir);
	if (d->kind == DIAG_CORES && !d->quota_binds && d->cpus_allowed < d->machine_cpus &&
	    !d->cpus_from_nproc && d->action && d->iops > 0) {
		action = d->action;
		d->action = NULL;
		ret = sentence(&d->action,
			       "%s; with the machine's %d CPUs the scale fit gives %.0f ops/s "
			       "(%.2fx)",
			       action, more, at->iops, at->iops / d->iops);
		free(action);
	}
	return ret;
}

int corecap_diagnosis_compute(struct diagnosis *d, const struct diagnosis_inputs *in)
{
	const struct projection *p = in->projection;
	double w_s = (double)corecap_model_window_ns(in->model) / 1e9;
	struct cand c[PROJECTION_RESOURCES + 2];
	const struct cand *head = NULL, *busiest = NULL;
	size_t n = 0;
	int ret;

	*d = (struct diagnosis){.kind = DIAG_NONE, .running = -1, .waiting = -1};
	note_missing(d, in);
	if (!p->valid || w_s <= 0)
		return none_words(d, in, NULL);
	d->iops = p->iops_measured;
	cores(d, in, w_s);
	for (size_t i = 0; i < p->n_res; i++) {
		c[n] = (struct cand){.kind = from_ceiling(p->res[i].kind),
				     .name = p->res[i].name,
				     .iops = p->res[i].iops,
				     .util = d->iops / p->res[i].iops,
				     .res = &p->res[i]};
		c[n].saturated = c[n].util >= CEILING_SATURATED;
		n++;
	}
	if (p->cpu_s_per_op > 0) {
		c[n] = (struct cand){.kind = DIAG_CORES,
				     .name = "",
				     .iops = (d->quota_binds ? d->cpus_usable : p->cores_here) /
					     p->cpu_s_per_op,
				     .saturated = d->cores_saturated};
		c[n].util = d->iops / c[n].iops;
		n++;
	}
	/* One op in flight: the loop is saturated by definition (it waits for each reply). */
	if (in->has_bench && p->loop.in_flight > 0 && p->loop.in_flight < PROJECTION_LOOP_MAX) {
		c[n] = (struct cand){.kind = DIAG_LOOP,
				     .name = "",
				     .iops = p->loop.valid ? p->loop.iops_here : d->iops,
				     .util = 1,
				     .saturated = true};
		n++;
	}
	qsort(c, n, sizeof(*c), cmp_cand);
	for (size_t i = 0; i < n && !head; i++)
		if (c[i].saturated)
			head = &c[i];
	for (size_t i = 0; i < n && !busiest; i++)
		if (c[i].kind != DIAG_LOOP)
			busiest = &c[i];
	/* A thread whose pool is about as busy: the work spreads, the pool binds. */
	if (head && head->kind == DIAG_THREAD) {
		const struct model_thread *th = find_thread(in->model, head->name);

		for (size_t i = 0; th && i < n; i++)
			if (c[i].kind == DIAG_POOL && strcmp(c[i].name, th->pool) == 0 &&
			    c[i].util >= head->util - POOL_MARGIN)
				head = &c[i];
	}
	if (head) {
		d->kind = head->kind;
		snprintf(d->name, sizeof(d->name), "%s", head->name);
		d->running = head->util;
	} else if (busiest) {
		d->running = busiest->util;
	}
	/*
	 * The headroom is the projection's throughput at this machine's cores
	 * over the measured one: what binds first there. A closed loop the
	 * projection could not model (no critical paths) is saturated as is.
	 */
	d->headroom = p->at[p->cores_here - 1].iops / d->iops;
	if (d->kind == DIAG_LOOP && !p->loop.valid)
		d->headroom = 1;
	if (d->kind == DIAG_NONE && busiest)
		d->headroom = busiest->iops / d->iops;
	for (size_t i = 0; i < n; i++)
		if (!same_resource(d, &c[i], in) && c[i].kind != DIAG_LOOP &&
		    !(d->kind == DIAG_NONE && &c[i] == busiest)) {
			set_next(d, &c[i]);
			break;
		}
	if (d->kind == DIAG_NONE && busiest)
		set_next(d, busiest);
	ev(d, "throughput", "measured over the window", "%.0f ops/s (from the %s)", d->iops,
	   p->iops_source);
	switch (d->kind) {
	case DIAG_LOCK:
		ret = lock_words(d, in, w_s);
		break;
	case DIAG_THREAD:
		ret = thread_words(d, in, w_s);
		break;
	case DIAG_POOL:
		ret = pool_words(d, in, w_s);
		break;
	case DIAG_CORES:
		ret = cores_words(d);
		break;
	case DIAG_LOOP:
		ret = loop_words(d, p);
		break;
	case DIAG_DEVICE:
		ret = device_words(d, corecap_projection_disk(p, d->name), p);
		break;
	default:
		ret = none_words(d, in, busiest);
		break;
	}
	if (d->daemon_waiting >= 0 && d->kind != DIAG_CORES)
		ev(d, "cores", "running: on a CPU; waiting: runnable, no CPU free",
		   "the daemon ran %.2f and waited for a CPU %.2f of %.*f CPU%s it may use%s%s",
		   d->daemon_running, d->daemon_waiting, d->quota_binds ? 2 : 0, d->cpus_usable,
		   d->cpus_usable == 1 ? "" : "s", d->quota_binds ? " (its CPU quota)" : "",
		   d->cores_saturated ? " (full)" : "");
	for (size_t i = 0; i < p->n_disks && d->kind != DIAG_DEVICE; i++)
		if (p->disks[i].busy >= DEVICE_NOTED)
			device_evidence(d, &p->disks[i], p);
	if (p->loop.in_flight > 0 && d->kind != DIAG_LOOP)
		ev(d, "ops in flight", "the benchmark's IOPS x its mean latency (Little's law)",
		   "%.2f", p->loop.in_flight);
	if (!ret && p->fitted)
		ret = fit_words(d, p);
	return ret;
}

void corecap_diagnosis_release(struct diagnosis *d)
{
	free(d->headline);
	free(d->action);
	free(d->verify_command);
	*d = (struct diagnosis){0};
}
