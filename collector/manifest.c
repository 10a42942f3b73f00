#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <json-c/json.h>

#include <corecap/kernel_format.h>

#include "bench_runner.h"
#include "cpu_list.h"
#include "cpu_profile.h"
#include "cpu_quota.h"
#include "device_window.h"
#include <corecap/diag.h>
#include "kernel_events.h"
#include "lttng_session.h"
#include "manifest.h"
#include "maps_buildid.h"
#include "proc_sampler.h"
#include "run_dir.h"
#include "stats_snapshot.h"
#include "stop_watchdog.h"
#include "target.h"
#include "wall_sampler.h"
#include <corecap/run_format.h>

static void put(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static struct json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *ju64(uint64_t v)
{
	return json_object_new_uint64(v);
}

static struct json_object *argv_array(char *const *argv)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; argv && argv[i]; i++)
		json_object_array_add(a, json_object_new_string(argv[i]));
	return a;
}

static struct json_object *cmdline_array(const struct corecap_target *t)
{
	struct json_object *a = json_object_new_array();

	for (size_t off = 0; off < t->cmdline_len;) {
		size_t len = strnlen(t->cmdline + off, t->cmdline_len - off);

		json_object_array_add(a, json_object_new_string_len(t->cmdline + off, (int)len));
		off += len + 1;
	}
	return a;
}

static struct json_object *window(const struct corecap_manifest *m)
{
	struct json_object *w = json_object_new_object();
	char iso[64];
	struct tm tm;

	gmtime_r(&m->start_realtime.tv_sec, &tm);
	strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
	put(w, "start_ns", ju64(m->start_ns));
	put(w, "end_ns", ju64(m->end_ns));
	put(w, "duration_s", json_object_new_double((double)(m->end_ns - m->start_ns) / 1e9));
	put(w, "start_realtime", json_object_new_string(iso));
	put(w, "realtime_offset_ns", json_object_new_int64(m->realtime_offset_ns));
	return w;
}

/* What the recording cost in CPU time, so its overhead can be judged. */
static struct json_object *collector(void)
{
	struct json_object *o = json_object_new_object();
	char list[256];
	struct rusage ru;
	cpu_set_t cpus;

	getrusage(RUSAGE_SELF, &ru);
	put(o, "pid", json_object_new_int((int)getpid()));
	/* The CPUs it ran on: --collector-cpus, else those it was started on. */
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0) {
		corecap_cpu_list_format(&cpus, list, sizeof(list));
		put(o, "cpus", jstr(list));
	}
	put(o, "cpu_user_s",
	    json_object_new_double((double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6));
	put(o, "cpu_sys_s",
	    json_object_new_double((double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6));
	return o;
}

static struct json_object *sources(const struct corecap_manifest *m)
{
	struct json_object *s = json_object_new_object();

	put(s, "trace", json_object_new_boolean(m->lttng != NULL));
	put(s, "threads", json_object_new_boolean(m->threads && m->threads->rounds > 0));
	put(s, "stats", json_object_new_boolean(m->stats && m->stats->copies == 2));
	put(s, "maps", json_object_new_boolean(m->maps != NULL));
	put(s, "buildids", json_object_new_boolean(m->maps != NULL));
	put(s, "wall", json_object_new_boolean(m->wall != NULL));
	put(s, "cpu_prof", json_object_new_boolean(m->cpu_prof && m->cpu_prof->bytes > 0));
	put(s, "bench", json_object_new_boolean(m->bench != NULL));
	put(s, "kernel", json_object_new_boolean(m->kernel != NULL));
	return s;
}

static struct json_object *lttng(const struct corecap_lttng_session *l)
{
	struct json_object *o = json_object_new_object();
	struct json_object *ev = json_object_new_array();
	struct json_object *ctx = json_object_new_array();

	for (size_t i = 0; i < l->n_events; i++)
		json_object_array_add(ev, json_object_new_string(l->events[i]));
	json_object_array_add(ctx, json_object_new_string("vtid"));
	put(o, "session", json_object_new_string(l->name));
	put(o, "events", ev);
	put(o, "contexts", ctx);
	put(o, "channel", json_object_new_string(CORECAP_LTTNG_CHANNEL));
	put(o, "buffers", json_object_new_string("per-uid"));
	put(o, "subbuf_bytes", ju64(CORECAP_LTTNG_SUBBUF_BYTES));
	put(o, "num_subbuf", ju64(CORECAP_LTTNG_NUM_SUBBUF));
	put(o, "target_registered", json_object_new_boolean(l->target_registered));
	put(o, "target_has_probes", json_object_new_boolean(l->target_has_probes));
	put(o, "discarded_events", l->counts_known ? ju64(l->discarded_events) : NULL);
	put(o, "lost_packets", l->counts_known ? ju64(l->lost_packets) : NULL);
	put(o, "started_sessiond", json_object_new_boolean(l->started_sessiond));
	return o;
}

static struct json_object *wallclock(const struct corecap_wall_sampler *w)
{
	struct json_object *o = json_object_new_object();

	put(o, "hz", ju64(w->hz));
	put(o, "threads", w->names ? json_object_new_string(w->names) : NULL);
	put(o, "rounds", ju64(w->stats.rounds));
	put(o, "samples", ju64(w->stats.samples));
	put(o, "due", ju64(w->stats.due));
	put(o, "skipped", ju64(w->stats.skipped));
	put(o, "rationed", ju64(w->stats.rationed));
	put(o, "abandoned", ju64(w->stats.abandoned));
	put(o, "skipped_round_max", ju64(w->stats.skipped_round_max));
	put(o, "missed", ju64(w->stats.missed));
	put(o, "late_rounds", ju64(w->stats.late_rounds));
	put(o, "lost_rounds", ju64(w->stats.lost_rounds));
	put(o, "slow_stops", ju64(w->stats.slow_stops));
	put(o, "unwind_errors", ju64(w->stats.unwind_errors));
	put(o, "signals_passed", ju64(w->stats.signals));
	put(o, "long_stops", ju64(w->stats.long_stops));
	put(o, "max_threads", ju64(w->stats.max_threads));
	put(o, "threads_counted", ju64(w->stats.threads_counted));
	put(o, "threads_starved", ju64(w->stats.threads_starved));
	put(o, "thread_samples_min", ju64(w->stats.thread_samples_min));
	put(o, "thread_samples_max", ju64(w->stats.thread_samples_max));
	put(o, "thread_coverage_min_pm", ju64(w->stats.thread_coverage_min_pm));
	put(o, "thread_coverage_max_pm", ju64(w->stats.thread_coverage_max_pm));
	put(o, "thread_stop_ns_max", ju64(w->stats.thread_stop_ns_max));
	put(o, "hold_ns_max", ju64(w->stats.hold_ns_max));
	put(o, "stop_budget_ns", ju64(CORECAP_WALL_STOP_BUDGET_NS));
	put(o, "round_share_pct", ju64(CORECAP_WALL_ROUND_SHARE_PCT));
	put(o, "thread_stop_share_pct", ju64(CORECAP_WALL_THREAD_STOP_SHARE_PCT));
	put(o, "stop_ns_median", ju64(w->stats.stop_ns_median));
	put(o, "stop_ns_p99", ju64(w->stats.stop_ns_p99));
	put(o, "stop_ns_max", ju64(w->stats.stop_ns_max));
	return o;
}

static struct json_object *kernel_events(const struct corecap_kernel_events *k)
{
	static const char *const names[CORECAP_KTP_N] = {
		[CORECAP_KTP_SWITCH] = "switch",
		[CORECAP_KTP_WAKING] = "waking",
		[CORECAP_KTP_FUTEX_ENTER] = "futex_enter",
		[CORECAP_KTP_FUTEX_EXIT] = "futex_exit",
		[CORECAP_KTP_FORK] = "fork",
		[CORECAP_KTP_EXIT] = "exit",
	};
	const struct corecap_kernel_stats *st = &k->stats;
	struct json_object *o = json_object_new_object();
	struct json_object *files = json_object_new_object();
	struct json_object *tps = json_object_new_array();
	struct json_object *rec = json_object_new_object();
	struct json_object *lost = json_object_new_object();
	struct json_object *per_cpu = json_object_new_array();
	struct json_object *stacks = json_object_new_object();
	struct json_object *bytes = json_object_new_object();

	put(files, "events", json_object_new_string(CORECAP_KERNEL_EVENTS_FILE));
	put(files, "stacks", json_object_new_string(CORECAP_KERNEL_STACKS_FILE));
	put(o, "files", files);
	put(o, "format_version", json_object_new_int(CORECAP_KERNEL_FORMAT_VERSION));
	for (int i = 0; i < CORECAP_KTP_N; i++) {
		/* The eBPF programs read futex calls from the scheduler's
		 * tracepoints (kernel_bpf.bpf.c): no system-call tracepoint. */
		bool syscall = i == CORECAP_KTP_FUTEX_ENTER || i == CORECAP_KTP_FUTEX_EXIT;

		if (!(k->bpf && syscall))
			json_object_array_add(tps, json_object_new_string(k->fmt[i].name));
		put(rec, names[i], ju64(st->records[i]));
	}
	put(rec, "track", ju64(st->track));
	put(rec, "holder", ju64(st->holders));
	put(o, "tracepoints", tps);
	put(o, "producer", json_object_new_string(corecap_kernel_events_producer(k)));
	put(o, "filter", json_object_new_string(st->kernel_filter ? "kernel" : "reader"));
	put(o, "cpus", json_object_new_int(k->nr_cpus));
	put(o, "ring_bytes", ju64(k->ring_bytes));
	put(o, "records", rec);
	for (int c = 0; c < k->nr_cpus; c++)
		json_object_array_add(per_cpu, ju64(st->lost_per_cpu ? st->lost_per_cpu[c] : 0));
	put(lost, "total", ju64(st->lost_total));
	put(lost, "per_cpu", per_cpu);
	put(o, "lost", lost);
	put(o, "complete", json_object_new_boolean(st->complete));
	put(o, "set_swaps", ju64(st->set_swaps));
	put(o, "duplicates_dropped", ju64(st->duplicates));
	put(stacks, "stack_user_bytes", ju64(CORECAP_KERNEL_STACK_USER_BYTES));
	put(stacks, "max_futex_hz", ju64(CORECAP_KERNEL_FUTEX_STACK_HZ));
	put(stacks, "max_switch_hz", ju64(CORECAP_KERNEL_SWITCH_STACK_HZ));
	put(stacks, "taken", ju64(st->stacks_taken));
	put(stacks, "matched", ju64(st->stacks_matched));
	put(stacks, "unwound", ju64(st->stacks_unwound));
	put(stacks, "truncated", ju64(st->stacks_truncated));
	put(stacks, "no_cfi", ju64(st->stacks_no_cfi));
	put(stacks, "failed", ju64(st->stacks_failed));
	put(stacks, "unreadable", ju64(st->stacks_unreadable));
	put(o, "stacks", stacks);
	put(bytes, "events", ju64(st->events_bytes));
	put(bytes, "stacks", ju64(st->stacks_bytes));
	put(bytes, "raw_stacks", ju64(st->raw_bytes));
	put(o, "bytes", bytes);
	return o;
}

static struct json_object *benchmark(const struct corecap_manifest *m)
{
	struct json_object *o = json_object_new_object();
	struct json_object *sum = json_object_new_object();
	int code = corecap_bench_runner_exit_code(m->bench);

	put(o, "command", argv_array(m->bench_argv));
	put(o, "exit_status", code >= 0 ? json_object_new_int(code) : NULL);
	put(o, "exit_signal",
	    corecap_bench_runner_killed_by(m->bench)
		    ? json_object_new_int(corecap_bench_runner_killed_by(m->bench))
		    : NULL);
	put(o, "start_error", m->bench->start_errno ? jstr(strerror(m->bench->start_errno)) : NULL);
	put(o, "output_bytes", ju64(m->bench->bytes));
	put(o, "parser", jstr(m->summary ? m->summary->parser : NULL));
	for (size_t i = 0; m->summary && i < m->summary->n_items; i++) {
		const struct corecap_bench_item *it = &m->summary->items[i];
		struct json_object *v;

		if (it->integral && fabs(it->value) < 9e15)
			v = json_object_new_int64((int64_t)llround(it->value));
		else
			v = json_object_new_double(it->value);
		put(sum, it->key, v);
	}
	put(o, "summary", sum);
	return o;
}

/*
 * The daemon's CPU quota (cgroup cpu.max, or cpu.cfs_quota_us on a v1
 * hierarchy): the tightest of its cgroup's and its parents', which caps
 * its threads together whatever their affinity. null when none binds or
 * it cannot be read (a warning says which).
 */
static void quota(struct json_object *o, const struct corecap_manifest *m)
{
	struct corecap_cpu_quota q;
	int ret;

	if (!m->target)
		return;
	ret = corecap_cpu_quota_read(m->target->pid, &q);
	if (ret && ret != -ENOENT)
		corecap_warn("cannot read the CPU quota of the cgroup of '/proc/%d': %s",
			     (int)m->target->pid, strerror(-ret));
	put(o, "daemon_cpu_quota_us", !ret && q.quota_us ? ju64(q.quota_us) : NULL);
	put(o, "daemon_cpu_period_us", !ret && q.quota_us ? ju64(q.period_us) : NULL);
	put(o, "daemon_cpu_quota_cgroup", !ret && q.quota_us ? jstr(q.cgroup) : NULL);
	put(o, "daemon_cpu_quota_file", !ret && q.quota_us ? jstr(q.file) : NULL);
}

/*
 * The daemon's disks over the window: each one's I/Os, bytes and busy
 * time (/proc/diskstats' io_ticks), and the I/O limits its cgroup sets
 * there with the cgroup's own I/Os (null when it sets none).
 */
static struct json_object *devices(const struct corecap_device_window *w)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < w->n; i++) {
		const struct corecap_window_device *d = &w->dev[i];
		const struct corecap_disk_counts *c0 = &d->disk[0], *c1 = &d->disk[1];
		const struct corecap_io_limit *l0 = &d->limit[0], *l1 = &d->limit[1];
		struct json_object *o = json_object_new_object(), *l;
		bool has = d->has_disk[0] && d->has_disk[1];

		put(o, "name", jstr(d->id.name));
		put(o, "major", json_object_new_int((int)d->id.major));
		put(o, "minor", json_object_new_int((int)d->id.minor));
		put(o, "reads", has ? ju64(c1->ios[0] - c0->ios[0]) : NULL);
		put(o, "writes", has ? ju64(c1->ios[1] - c0->ios[1]) : NULL);
		put(o, "read_bytes", has ? ju64((c1->sectors[0] - c0->sectors[0]) * 512) : NULL);
		put(o, "write_bytes", has ? ju64((c1->sectors[1] - c0->sectors[1]) * 512) : NULL);
		/* Time with at least one I/O in flight, and the I/Os' time in flight summed. */
		put(o, "busy_ms", has ? ju64(c1->io_ticks_ms - c0->io_ticks_ms) : NULL);
		put(o, "queue_ms", has ? ju64(c1->queue_ms - c0->queue_ms) : NULL);
		if (d->has_limit[0] && l0->file) {
			bool counts = l0->has_counts && d->has_limit[1] && l1->has_counts;

			l = json_object_new_object();
			put(l, "file", jstr(l0->file));
			put(l, "cgroup", jstr(l0->cgroup));
			put(l, "read_iops", l0->iops[0] ? ju64(l0->iops[0]) : NULL);
			put(l, "write_iops", l0->iops[1] ? ju64(l0->iops[1]) : NULL);
			put(l, "read_bps", l0->bps[0] ? ju64(l0->bps[0]) : NULL);
			put(l, "write_bps", l0->bps[1] ? ju64(l0->bps[1]) : NULL);
			put(l, "cgroup_reads", counts ? ju64(l1->ios[0] - l0->ios[0]) : NULL);
			put(l, "cgroup_writes", counts ? ju64(l1->ios[1] - l0->ios[1]) : NULL);
			put(l, "cgroup_read_bytes", counts ? ju64(l1->bytes[0] - l0->bytes[0]) : NULL);
			put(l, "cgroup_write_bytes",
			    counts ? ju64(l1->bytes[1] - l0->bytes[1]) : NULL);
			put(o, "limit", l);
		} else {
			put(o, "limit", NULL);
		}
		json_object_array_add(a, o);
	}
	return a;
}

/* The machine's CPU over the window: who else used the cores. */
static struct json_object *machine(const struct corecap_manifest *m)
{
	struct json_object *o = json_object_new_object();
	cpu_set_t set;

	put(o, "busy_cpu_s",
	    m->machine_busy_s >= 0 ? json_object_new_double(m->machine_busy_s) : NULL);
	/* Of busy_cpu_s, the time the hypervisor did not run a vCPU that wanted to run. */
	put(o, "steal_cpu_s",
	    m->machine_steal_s >= 0 ? json_object_new_double(m->machine_steal_s) : NULL);
	put(o, "bench_cpu_s", m->bench_cpu_s >= 0 ? json_object_new_double(m->bench_cpu_s) : NULL);
	/* A cross-core wake-up, the price of a lock hand-off (wake_probe.h). */
	put(o, "wake_ns", m->wake_ns >= 0 ? json_object_new_double(m->wake_ns) : NULL);
	/* The CPUs the daemon may run on (taskset, cgroup cpusets): its cores. */
	CPU_ZERO(&set);
	put(o, "daemon_cpus",
	    m->target && sched_getaffinity(m->target->pid, sizeof(set), &set) == 0
		    ? json_object_new_int(CPU_COUNT(&set))
		    : NULL);
	quota(o, m);
	return o;
}

/* A run of several daemons: what they share, and where each one's run is. */
static struct json_object *build_multi(const struct corecap_manifest *m, struct json_object *root,
				       const char *host, const char *release)
{
	struct json_object *a = json_object_new_array();

	put(root, "version", json_object_new_int(CORECAP_RUN_VERSION_MULTI));
	put(root, "tool_version", json_object_new_string(CORECAP_VERSION));
	put(root, "status", json_object_new_string(m->complete ? "complete" : "partial"));
	put(root, "partial_reason", m->complete ? NULL : jstr(m->partial_reason));
	put(root, "host", json_object_new_string(host));
	put(root, "nproc", json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
	put(root, "kernel", json_object_new_string(release));
	put(root, "clk_tck", json_object_new_int((int)sysconf(_SC_CLK_TCK)));
	put(root, "clock", json_object_new_string("monotonic"));
	if (m->start_ns)
		put(root, "window", window(m));
	put(root, "record_command", argv_array(m->record_argv));
	put(root, "collector", collector());
	put(root, "machine", machine(m));
	for (size_t i = 0; i < m->n_daemons; i++) {
		const struct corecap_manifest_daemon *d = &m->daemons[i];
		struct json_object *o = json_object_new_object();

		put(o, "pid", json_object_new_int(d->pid));
		put(o, "comm", jstr(d->comm));
		put(o, "dir", jstr(d->dir));
		put(o, "status", jstr(d->status));
		put(o, "partial_reason", jstr(d->partial_reason));
		put(o, "collector_exit_status",
		    d->exit_status >= 0 ? json_object_new_int(d->exit_status) : NULL);
		if (d->ceph_asok) {
			put(o, "ceph_asok", jstr(d->ceph_asok));
			put(o, "ceph_osd_id", json_object_new_int(d->ceph_osd_id));
		}
		json_object_array_add(a, o);
	}
	put(root, "daemons", a);
	put(root, "benchmark", m->bench ? benchmark(m) : NULL);
	return root;
}

static struct json_object *build(const struct corecap_manifest *m)
{
	struct json_object *root = json_object_new_object();
	const struct corecap_target *t = m->target;
	struct utsname uts;
	char host[256] = "";

	uname(&uts);
	gethostname(host, sizeof(host) - 1);
	put(root, "format", json_object_new_string(CORECAP_RUN_FORMAT));
	if (m->daemons)
		return build_multi(m, root, host, uts.release);
	put(root, "version", json_object_new_int(CORECAP_RUN_VERSION));
	put(root, "tool_version", json_object_new_string(CORECAP_VERSION));
	put(root, "status", json_object_new_string(m->complete ? "complete" : "partial"));
	put(root, "partial_reason", m->complete ? NULL : jstr(m->partial_reason));
	put(root, "pid", json_object_new_int(t->pid));
	put(root, "comm", json_object_new_string(t->comm));
	put(root, "cmdline", cmdline_array(t));
	put(root, "exe", json_object_new_string(t->exe));
	put(root, "uid", ju64(t->uid));
	put(root, "host", json_object_new_string(host));
	put(root, "nproc", json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
	put(root, "kernel", json_object_new_string(uts.release));
	put(root, "clk_tck", json_object_new_int((int)sysconf(_SC_CLK_TCK)));
	put(root, "clock", json_object_new_string("monotonic"));
	if (m->start_ns) /* else a checkpoint from before the window started */
		put(root, "window", window(m));
	put(root, "record_command", argv_array(m->record_argv));
	put(root, "collector", collector());
	put(root, "machine", machine(m));
	put(root, "sources", sources(m));
	if (m->devices)
		put(root, "devices", devices(m->devices));
	if (m->lttng)
		put(root, "lttng", lttng(m->lttng));
	put(root, "threads_hz", json_object_new_int((int)m->threads_hz));
	if (m->threads) {
		struct json_object *o = json_object_new_object();

		put(o, "rounds", ju64(m->threads->rounds));
		put(o, "rows", ju64(m->threads->rows));
		put(o, "schedstat", json_object_new_boolean(m->threads->have_schedstat));
		put(root, "threads", o);
	}
	if (m->wall)
		put(root, "wallclock", wallclock(m->wall));
	if (m->kernel)
		put(root, "kernel_events", kernel_events(m->kernel));
	if (m->stats && m->stats->present) {
		struct json_object *o = json_object_new_object();

		put(o, "file", json_object_new_string(m->stats->path));
		put(o, "bytes", ju64(m->stats->bytes));
		put(o, "copies", json_object_new_int(m->stats->copies));
		put(o, "torn", json_object_new_int(m->stats->torn));
		put(root, "stats", o);
	}
	if (m->cpu_prof && m->cpu_prof->available) {
		struct json_object *o = json_object_new_object();

		put(o, "signal", json_object_new_int(m->cpu_prof->signal));
		put(o, "cpuprofile", json_object_new_string(m->cpu_prof->base));
		put(o, "bytes", ju64(m->cpu_prof->bytes));
		put(root, "cpu_prof", o);
	}
	if (m->maps) {
		struct json_object *o = json_object_new_object();

		put(o, "files", ju64(m->maps->n_files));
		put(o, "build_ids", ju64(m->maps->n_ids));
		put(o, "vdso_bytes", ju64(m->maps->vdso_bytes));
		put(root, "maps", o);
	}
	put(root, "benchmark", m->bench ? benchmark(m) : NULL);
	if (m->watchdog) {
		struct json_object *o = json_object_new_object();

		put(o, "collector_continued", ju64(m->watchdog->continued));
		put(o, "longest_hold_ns", ju64(m->watchdog->held_ns_max));
		put(root, "watchdog", o);
	}
	return root;
}

int corecap_manifest_write(const struct corecap_manifest *m, struct corecap_run_dir *rd)
{
	static const char tmp[] = CORECAP_RUN_MANIFEST_TMP;
	struct json_object *root = build(m);
	const char *text;
	FILE *f = NULL;
	int ret;

	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_SPACED |
							    JSON_C_TO_STRING_NOSLASHESCAPE);
	unlinkat(rd->dirfd, tmp, 0); /* a checkpoint cut short by a signal */
	ret = corecap_run_dir_fopen(rd, tmp, &f);
	if (ret < 0)
		goto out_put;
	errno = 0;
	if (fputs(text, f) < 0 || fputc('\n', f) == EOF || fflush(f) != 0)
		ret = -(errno ? errno : EIO);
	if (fclose(f) != 0 && !ret)
		ret = -errno;
	if (ret) {
		if (!m->quiet_errors)
			corecap_cause("cannot write '%s/%s': %s", rd->path, tmp, strerror(-ret));
		unlinkat(rd->dirfd, tmp, 0);
		goto out_put;
	}
	ret = corecap_run_dir_rename(rd, tmp, CORECAP_RUN_MANIFEST);
out_put:
	json_object_put(root);
	return ret;
}
