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
#include <corecap/manifest_keys.h>

#include "workload/bench_runner.h"
#include "util/cpu_list.h"
#include "sources/cpu_profile.h"
#include "sources/cpu_quota.h"
#include "sources/device_window.h"
#include <corecap/diag.h>
#include "kernel/kernel_events.h"
#include "sources/lttng_session.h"
#include "manifest.h"
#include "sources/maps_buildid.h"
#include "sources/proc_sampler.h"
#include "util/run_dir.h"
#include "sources/stats_snapshot.h"
#include "stop_watchdog.h"
#include "sources/target.h"
#include "sources/wall_sampler.h"
#include <corecap/run_format.h>

/* Keys by their names in corecap/manifest_keys.h, the list the analysis reads them by. */
static void put(struct json_object *o, enum corecap_manifest_key key, struct json_object *v)
{
	json_object_object_add(o, corecap_mk(key), v);
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
	put(w, CORECAP_MK_WINDOW_START_NS, ju64(m->start_ns));
	put(w, CORECAP_MK_WINDOW_END_NS, ju64(m->end_ns));
	put(w, CORECAP_MK_WINDOW_DURATION_S,
	    json_object_new_double((double)(m->end_ns - m->start_ns) / 1e9));
	put(w, CORECAP_MK_WINDOW_START_REALTIME, json_object_new_string(iso));
	put(w, CORECAP_MK_WINDOW_REALTIME_OFFSET_NS, json_object_new_int64(m->realtime_offset_ns));
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
	put(o, CORECAP_MK_COLLECTOR_PID, json_object_new_int((int)getpid()));
	/* The CPUs it ran on: --collector-cpus, else those it was started on. */
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0) {
		corecap_cpu_list_format(&cpus, list, sizeof(list));
		put(o, CORECAP_MK_COLLECTOR_CPUS, jstr(list));
	}
	put(o, CORECAP_MK_COLLECTOR_CPU_USER_S,
	    json_object_new_double((double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6));
	put(o, CORECAP_MK_COLLECTOR_CPU_SYS_S,
	    json_object_new_double((double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6));
	return o;
}

static struct json_object *sources(const struct corecap_manifest *m)
{
	struct json_object *s = json_object_new_object();

	put(s, CORECAP_MK_SOURCES_TRACE, json_object_new_boolean(m->lttng != NULL));
	put(s, CORECAP_MK_SOURCES_THREADS,
	    json_object_new_boolean(m->threads && m->threads->rounds > 0));
	put(s, CORECAP_MK_SOURCES_STATS,
	    json_object_new_boolean(m->stats && m->stats->copies == 2));
	put(s, CORECAP_MK_SOURCES_MAPS, json_object_new_boolean(m->maps != NULL));
	put(s, CORECAP_MK_SOURCES_BUILDIDS, json_object_new_boolean(m->maps != NULL));
	put(s, CORECAP_MK_SOURCES_WALL,
	    json_object_new_boolean(
		    m->wall != NULL ||
		    (m->kernel && (m->kernel->stats.oncpu_written > 0 || m->kernel->wall_offcpu))));
	put(s, CORECAP_MK_SOURCES_CPU_PROF,
	    json_object_new_boolean(m->cpu_prof && m->cpu_prof->bytes > 0));
	put(s, CORECAP_MK_SOURCES_BENCH, json_object_new_boolean(m->bench != NULL));
	put(s, CORECAP_MK_SOURCES_KERNEL, json_object_new_boolean(m->kernel != NULL));
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
	put(o, CORECAP_MK_LTTNG_SESSION, json_object_new_string(l->name));
	put(o, CORECAP_MK_LTTNG_EVENTS, ev);
	put(o, CORECAP_MK_LTTNG_CONTEXTS, ctx);
	put(o, CORECAP_MK_LTTNG_CHANNEL, json_object_new_string(CORECAP_LTTNG_CHANNEL));
	put(o, CORECAP_MK_LTTNG_BUFFERS, json_object_new_string("per-uid"));
	put(o, CORECAP_MK_LTTNG_SUBBUF_BYTES, ju64(CORECAP_LTTNG_SUBBUF_BYTES));
	put(o, CORECAP_MK_LTTNG_NUM_SUBBUF, ju64(CORECAP_LTTNG_NUM_SUBBUF));
	put(o, CORECAP_MK_LTTNG_TARGET_REGISTERED, json_object_new_boolean(l->target_registered));
	put(o, CORECAP_MK_LTTNG_TARGET_HAS_PROBES, json_object_new_boolean(l->target_has_probes));
	put(o, CORECAP_MK_LTTNG_DISCARDED_EVENTS,
	    l->counts_known ? ju64(l->discarded_events) : NULL);
	put(o, CORECAP_MK_LTTNG_LOST_PACKETS, l->counts_known ? ju64(l->lost_packets) : NULL);
	put(o, CORECAP_MK_LTTNG_STARTED_SESSIOND, json_object_new_boolean(l->started_sessiond));
	return o;
}

/* Either sampler's coverage per thread (util/wall_coverage.h). */
static void coverage(struct json_object *o, const struct corecap_wall_coverage *c)
{
	put(o, CORECAP_MK_WALLCLOCK_THREADS_COUNTED, ju64(c->threads_counted));
	put(o, CORECAP_MK_WALLCLOCK_THREADS_STARVED, ju64(c->threads_starved));
	put(o, CORECAP_MK_WALLCLOCK_THREAD_SAMPLES_MIN, ju64(c->thread_samples_min));
	put(o, CORECAP_MK_WALLCLOCK_THREAD_SAMPLES_MAX, ju64(c->thread_samples_max));
	put(o, CORECAP_MK_WALLCLOCK_THREAD_COVERAGE_MIN_PM, ju64(c->thread_coverage_min_pm));
	put(o, CORECAP_MK_WALLCLOCK_THREAD_COVERAGE_MAX_PM, ju64(c->thread_coverage_max_pm));
}

static struct json_object *wallclock(const struct corecap_wall_sampler *w)
{
	struct json_object *o = json_object_new_object();

	put(o, CORECAP_MK_WALLCLOCK_HZ, ju64(w->hz));
	put(o, CORECAP_MK_WALLCLOCK_SAMPLER, json_object_new_string(CORECAP_WALL_SAMPLER_PTRACE));
	put(o, CORECAP_MK_WALLCLOCK_THREADS, w->names ? json_object_new_string(w->names) : NULL);
	put(o, CORECAP_MK_WALLCLOCK_ROUNDS, ju64(w->stats.rounds));
	put(o, CORECAP_MK_WALLCLOCK_SAMPLES, ju64(w->stats.samples));
	put(o, CORECAP_MK_WALLCLOCK_DUE, ju64(w->stats.due));
	put(o, CORECAP_MK_WALLCLOCK_SKIPPED, ju64(w->stats.skipped));
	put(o, CORECAP_MK_WALLCLOCK_RATIONED, ju64(w->stats.rationed));
	put(o, CORECAP_MK_WALLCLOCK_ABANDONED, ju64(w->stats.abandoned));
	put(o, CORECAP_MK_WALLCLOCK_SKIPPED_ROUND_MAX, ju64(w->stats.skipped_round_max));
	put(o, CORECAP_MK_WALLCLOCK_MISSED, ju64(w->stats.missed));
	put(o, CORECAP_MK_WALLCLOCK_LATE_ROUNDS, ju64(w->stats.late_rounds));
	put(o, CORECAP_MK_WALLCLOCK_LOST_ROUNDS, ju64(w->stats.lost_rounds));
	put(o, CORECAP_MK_WALLCLOCK_SLOW_STOPS, ju64(w->stats.slow_stops));
	put(o, CORECAP_MK_WALLCLOCK_UNWIND_ERRORS, ju64(w->stats.unwind_errors));
	put(o, CORECAP_MK_WALLCLOCK_SIGNALS_PASSED, ju64(w->stats.signals));
	put(o, CORECAP_MK_WALLCLOCK_LONG_STOPS, ju64(w->stats.long_stops));
	put(o, CORECAP_MK_WALLCLOCK_MAX_THREADS, ju64(w->stats.max_threads));
	coverage(o, &w->stats.coverage);
	put(o, CORECAP_MK_WALLCLOCK_THREAD_STOP_NS_MAX, ju64(w->stats.thread_stop_ns_max));
	put(o, CORECAP_MK_WALLCLOCK_HOLD_NS_MAX, ju64(w->stats.hold_ns_max));
	put(o, CORECAP_MK_WALLCLOCK_STOP_BUDGET_NS, ju64(CORECAP_WALL_STOP_BUDGET_NS));
	put(o, CORECAP_MK_WALLCLOCK_ROUND_SHARE_PCT, ju64(CORECAP_WALL_ROUND_SHARE_PCT));
	put(o, CORECAP_MK_WALLCLOCK_THREAD_STOP_SHARE_PCT,
	    ju64(CORECAP_WALL_THREAD_STOP_SHARE_PCT));
	put(o, CORECAP_MK_WALLCLOCK_STOP_NS_MEDIAN, ju64(w->stats.stop_ns_median));
	put(o, CORECAP_MK_WALLCLOCK_STOP_NS_P99, ju64(w->stats.stop_ns_p99));
	put(o, CORECAP_MK_WALLCLOCK_STOP_NS_MAX, ju64(w->stats.stop_ns_max));
	return o;
}

/* The kernel's on-CPU stacks as the run's wall-clock samples: the rate,
 * what was taken, lost in the kernel, not unwound, written. */
static struct json_object *wallclock_oncpu(const struct corecap_kernel_events *k)
{
	const struct corecap_kernel_offcpu_stats *off = &k->offcpu_stats;
	struct json_object *o = json_object_new_object();

	put(o, CORECAP_MK_WALLCLOCK_HZ, ju64(k->oncpu_hz));
	put(o, CORECAP_MK_WALLCLOCK_SAMPLER,
	    json_object_new_string(k->wall_offcpu ? CORECAP_WALL_SAMPLER_KERNEL_OFFCPU
						  : CORECAP_WALL_SAMPLER_KERNEL_ONCPU));
	put(o, CORECAP_MK_WALLCLOCK_SAMPLES, ju64(k->stats.oncpu_written));
	put(o, CORECAP_MK_WALLCLOCK_TAKEN, ju64(k->stats.oncpu_taken));
	put(o, CORECAP_MK_WALLCLOCK_LOST, ju64(k->stats.oncpu_lost));
	put(o, CORECAP_MK_WALLCLOCK_FAILED, ju64(k->stats.oncpu_failed));
	if (!k->wall_offcpu)
		return o;
	/* The task iterator's rounds (kernel_offcpu.h): no thread stopped. Not
	 * `rounds`: a sample stands for 1/hz s of its thread, not for a round. */
	put(o, CORECAP_MK_WALLCLOCK_OFFCPU_ROUNDS, ju64(off->rounds));
	put(o, CORECAP_MK_WALLCLOCK_OFFCPU_LATE_ROUNDS, ju64(off->late));
	put(o, CORECAP_MK_WALLCLOCK_OFFCPU_FIFO_ROUNDS, ju64(k->offcpu_fifo_rounds));
	put(o, CORECAP_MK_WALLCLOCK_OFFCPU_TAKEN, ju64(off->written));
	put(o, CORECAP_MK_WALLCLOCK_OFFCPU_RUNNABLE, ju64(off->runnable));
	put(o, CORECAP_MK_WALLCLOCK_OFFCPU_ON_CPU, ju64(off->on_cpu));
	put(o, CORECAP_MK_WALLCLOCK_OFFCPU_FAILED, ju64(off->failed));
	put(o, CORECAP_MK_WALLCLOCK_OFFCPU_MOVED, ju64(off->moved));
	put(o, CORECAP_MK_WALLCLOCK_OFFCPU_SAME, ju64(off->same));
	put(o, CORECAP_MK_WALLCLOCK_OFFCPU_UNKEPT, ju64(k->offcpu_unkept));
	put(o, CORECAP_MK_WALLCLOCK_OFFCPU_DISPLACED, ju64(off->displaced));
	put(o, CORECAP_MK_WALLCLOCK_OFFCPU_DROPPED_PERIODS, ju64(off->dropped_periods));
	put(o, CORECAP_MK_WALLCLOCK_ROUND_NS_MEAN,
	    ju64(off->rounds ? off->round_ns_sum / off->rounds : 0));
	put(o, CORECAP_MK_WALLCLOCK_ROUND_NS_MAX, ju64(off->round_ns_max));
	put(o, CORECAP_MK_WALLCLOCK_ROUND_CPU_NS, ju64(off->cpu_ns));
	if (k->wall_coverage_known)
		coverage(o, &k->wall_coverage);
	return o;
}

static struct json_object *kernel_events(const struct corecap_kernel_events *k)
{
	static const enum corecap_manifest_key names[CORECAP_KTP_N] = {
		[CORECAP_KTP_SWITCH] = CORECAP_MK_KERNEL_EVENTS_RECORDS_SWITCH,
		[CORECAP_KTP_WAKING] = CORECAP_MK_KERNEL_EVENTS_RECORDS_WAKING,
		[CORECAP_KTP_FUTEX_ENTER] = CORECAP_MK_KERNEL_EVENTS_RECORDS_FUTEX_ENTER,
		[CORECAP_KTP_FUTEX_EXIT] = CORECAP_MK_KERNEL_EVENTS_RECORDS_FUTEX_EXIT,
		[CORECAP_KTP_FORK] = CORECAP_MK_KERNEL_EVENTS_RECORDS_FORK,
		[CORECAP_KTP_EXIT] = CORECAP_MK_KERNEL_EVENTS_RECORDS_EXIT,
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

	put(files, CORECAP_MK_KERNEL_EVENTS_FILES_EVENTS,
	    json_object_new_string(CORECAP_KERNEL_EVENTS_FILE));
	put(files, CORECAP_MK_KERNEL_EVENTS_FILES_STACKS,
	    json_object_new_string(CORECAP_KERNEL_STACKS_FILE));
	put(o, CORECAP_MK_KERNEL_EVENTS_FILES, files);
	put(o, CORECAP_MK_KERNEL_EVENTS_FORMAT_VERSION,
	    json_object_new_int(CORECAP_KERNEL_FORMAT_VERSION));
	for (int i = 0; i < CORECAP_KTP_N; i++) {
		/* The eBPF programs read futex calls from the scheduler's
		 * tracepoints (kernel_bpf.bpf.c): no system-call tracepoint. */
		bool syscall = i == CORECAP_KTP_FUTEX_ENTER || i == CORECAP_KTP_FUTEX_EXIT;

		if (!(k->bpf && syscall))
			json_object_array_add(tps, json_object_new_string(k->fmt[i].name));
		put(rec, names[i], ju64(st->records[i]));
	}
	put(rec, CORECAP_MK_KERNEL_EVENTS_RECORDS_TRACK, ju64(st->track));
	put(rec, CORECAP_MK_KERNEL_EVENTS_RECORDS_HOLDER, ju64(st->holders));
	put(o, CORECAP_MK_KERNEL_EVENTS_TRACEPOINTS, tps);
	put(o, CORECAP_MK_KERNEL_EVENTS_PRODUCER,
	    json_object_new_string(corecap_kernel_events_producer(k)));
	put(o, CORECAP_MK_KERNEL_EVENTS_FILTER,
	    json_object_new_string(st->kernel_filter ? "kernel" : "reader"));
	put(o, CORECAP_MK_KERNEL_EVENTS_CPUS, json_object_new_int(k->nr_cpus));
	put(o, CORECAP_MK_KERNEL_EVENTS_RING_BYTES, ju64(k->ring_bytes));
	put(o, CORECAP_MK_KERNEL_EVENTS_CLOCK_OFFSET_NS, json_object_new_int64(k->clock_offset_ns));
	put(o, CORECAP_MK_KERNEL_EVENTS_RECORDS, rec);
	for (int c = 0; c < k->nr_cpus; c++)
		json_object_array_add(per_cpu, ju64(st->lost_per_cpu ? st->lost_per_cpu[c] : 0));
	put(lost, CORECAP_MK_KERNEL_EVENTS_LOST_TOTAL, ju64(st->lost_total));
	put(lost, CORECAP_MK_KERNEL_EVENTS_LOST_PER_CPU, per_cpu);
	put(o, CORECAP_MK_KERNEL_EVENTS_LOST, lost);
	put(o, CORECAP_MK_KERNEL_EVENTS_COMPLETE, json_object_new_boolean(st->complete));
	put(o, CORECAP_MK_KERNEL_EVENTS_SET_SWAPS, ju64(st->set_swaps));
	put(o, CORECAP_MK_KERNEL_EVENTS_DUPLICATES_DROPPED, ju64(st->duplicates));
	put(stacks, CORECAP_MK_KERNEL_EVENTS_STACKS_STACK_USER_BYTES,
	    ju64(CORECAP_KERNEL_STACK_USER_BYTES));
	put(stacks, CORECAP_MK_KERNEL_EVENTS_STACKS_MAX_FUTEX_HZ,
	    ju64(CORECAP_KERNEL_FUTEX_STACK_HZ));
	put(stacks, CORECAP_MK_KERNEL_EVENTS_STACKS_MAX_SWITCH_HZ,
	    ju64(CORECAP_KERNEL_SWITCH_STACK_HZ));
	put(stacks, CORECAP_MK_KERNEL_EVENTS_STACKS_TAKEN, ju64(st->stacks_taken));
	put(stacks, CORECAP_MK_KERNEL_EVENTS_STACKS_MATCHED, ju64(st->stacks_matched));
	put(stacks, CORECAP_MK_KERNEL_EVENTS_STACKS_UNWOUND, ju64(st->stacks_unwound));
	put(stacks, CORECAP_MK_KERNEL_EVENTS_STACKS_TRUNCATED, ju64(st->stacks_truncated));
	put(stacks, CORECAP_MK_KERNEL_EVENTS_STACKS_NO_CFI, ju64(st->stacks_no_cfi));
	put(stacks, CORECAP_MK_KERNEL_EVENTS_STACKS_FAILED, ju64(st->stacks_failed));
	put(stacks, CORECAP_MK_KERNEL_EVENTS_STACKS_UNREADABLE, ju64(st->stacks_unreadable));
	put(o, CORECAP_MK_KERNEL_EVENTS_STACKS, stacks);
	put(bytes, CORECAP_MK_KERNEL_EVENTS_BYTES_EVENTS, ju64(st->events_bytes));
	put(bytes, CORECAP_MK_KERNEL_EVENTS_BYTES_STACKS, ju64(st->stacks_bytes));
	put(bytes, CORECAP_MK_KERNEL_EVENTS_BYTES_RAW_STACKS, ju64(st->raw_bytes));
	put(o, CORECAP_MK_KERNEL_EVENTS_BYTES, bytes);
	return o;
}

static struct json_object *benchmark(const struct corecap_manifest *m)
{
	struct json_object *o = json_object_new_object();
	struct json_object *sum = json_object_new_object();
	int code = corecap_bench_runner_exit_code(m->bench);

	put(o, CORECAP_MK_BENCHMARK_COMMAND, argv_array(m->bench_argv));
	put(o, CORECAP_MK_BENCHMARK_EXIT_STATUS, code >= 0 ? json_object_new_int(code) : NULL);
	put(o, CORECAP_MK_BENCHMARK_EXIT_SIGNAL,
	    corecap_bench_runner_killed_by(m->bench)
		    ? json_object_new_int(corecap_bench_runner_killed_by(m->bench))
		    : NULL);
	put(o, CORECAP_MK_BENCHMARK_START_ERROR,
	    m->bench->start_errno ? jstr(strerror(m->bench->start_errno)) : NULL);
	put(o, CORECAP_MK_BENCHMARK_OUTPUT_BYTES, ju64(m->bench->bytes));
	put(o, CORECAP_MK_BENCHMARK_PARSER, jstr(m->summary ? m->summary->parser : NULL));
	for (size_t i = 0; m->summary && i < m->summary->n_items; i++) {
		const struct corecap_bench_item *it = &m->summary->items[i];
		struct json_object *v;

		if (it->integral && fabs(it->value) < 9e15)
			v = json_object_new_int64((int64_t)llround(it->value));
		else
			v = json_object_new_double(it->value);
		/* The benchmark's figures, named by bench_parse.c (from the same list). */
		json_object_object_add(sum, it->key, v);
	}
	put(o, CORECAP_MK_BENCHMARK_SUMMARY, sum);
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
	put(o, CORECAP_MK_MACHINE_DAEMON_CPU_QUOTA_US,
	    !ret && q.quota_us ? ju64(q.quota_us) : NULL);
	put(o, CORECAP_MK_MACHINE_DAEMON_CPU_PERIOD_US,
	    !ret && q.quota_us ? ju64(q.period_us) : NULL);
	put(o, CORECAP_MK_MACHINE_DAEMON_CPU_QUOTA_CGROUP,
	    !ret && q.quota_us ? jstr(q.cgroup) : NULL);
	put(o, CORECAP_MK_MACHINE_DAEMON_CPU_QUOTA_FILE, !ret && q.quota_us ? jstr(q.file) : NULL);
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

		put(o, CORECAP_MK_DEVICES_NAME, jstr(d->id.name));
		put(o, CORECAP_MK_DEVICES_MAJOR, json_object_new_int((int)d->id.major));
		put(o, CORECAP_MK_DEVICES_MINOR, json_object_new_int((int)d->id.minor));
		put(o, CORECAP_MK_DEVICES_READS, has ? ju64(c1->ios[0] - c0->ios[0]) : NULL);
		put(o, CORECAP_MK_DEVICES_WRITES, has ? ju64(c1->ios[1] - c0->ios[1]) : NULL);
		put(o, CORECAP_MK_DEVICES_READ_BYTES,
		    has ? ju64((c1->sectors[0] - c0->sectors[0]) * 512) : NULL);
		put(o, CORECAP_MK_DEVICES_WRITE_BYTES,
		    has ? ju64((c1->sectors[1] - c0->sectors[1]) * 512) : NULL);
		/* Time with at least one I/O in flight, and the I/Os' time in flight summed. */
		put(o, CORECAP_MK_DEVICES_BUSY_MS,
		    has ? ju64(c1->io_ticks_ms - c0->io_ticks_ms) : NULL);
		put(o, CORECAP_MK_DEVICES_QUEUE_MS, has ? ju64(c1->queue_ms - c0->queue_ms) : NULL);
		if (d->has_limit[0] && l0->file) {
			bool counts = l0->has_counts && d->has_limit[1] && l1->has_counts;

			l = json_object_new_object();
			put(l, CORECAP_MK_DEVICES_LIMIT_FILE, jstr(l0->file));
			put(l, CORECAP_MK_DEVICES_LIMIT_CGROUP, jstr(l0->cgroup));
			put(l, CORECAP_MK_DEVICES_LIMIT_READ_IOPS,
			    l0->iops[0] ? ju64(l0->iops[0]) : NULL);
			put(l, CORECAP_MK_DEVICES_LIMIT_WRITE_IOPS,
			    l0->iops[1] ? ju64(l0->iops[1]) : NULL);
			put(l, CORECAP_MK_DEVICES_LIMIT_READ_BPS,
			    l0->bps[0] ? ju64(l0->bps[0]) : NULL);
			put(l, CORECAP_MK_DEVICES_LIMIT_WRITE_BPS,
			    l0->bps[1] ? ju64(l0->bps[1]) : NULL);
			put(l, CORECAP_MK_DEVICES_LIMIT_CGROUP_READS,
			    counts ? ju64(l1->ios[0] - l0->ios[0]) : NULL);
			put(l, CORECAP_MK_DEVICES_LIMIT_CGROUP_WRITES,
			    counts ? ju64(l1->ios[1] - l0->ios[1]) : NULL);
			put(l, CORECAP_MK_DEVICES_LIMIT_CGROUP_READ_BYTES,
			    counts ? ju64(l1->bytes[0] - l0->bytes[0]) : NULL);
			put(l, CORECAP_MK_DEVICES_LIMIT_CGROUP_WRITE_BYTES,
			    counts ? ju64(l1->bytes[1] - l0->bytes[1]) : NULL);
			put(o, CORECAP_MK_DEVICES_LIMIT, l);
		} else {
			put(o, CORECAP_MK_DEVICES_LIMIT, NULL);
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

	put(o, CORECAP_MK_MACHINE_BUSY_CPU_S,
	    m->machine_busy_s >= 0 ? json_object_new_double(m->machine_busy_s) : NULL);
	/* Of busy_cpu_s, the time the hypervisor did not run a vCPU that wanted to run. */
	put(o, CORECAP_MK_MACHINE_STEAL_CPU_S,
	    m->machine_steal_s >= 0 ? json_object_new_double(m->machine_steal_s) : NULL);
	put(o, CORECAP_MK_MACHINE_BENCH_CPU_S,
	    m->bench_cpu_s >= 0 ? json_object_new_double(m->bench_cpu_s) : NULL);
	/* A cross-core wake-up, the price of a lock hand-off (wake_probe.h). */
	put(o, CORECAP_MK_MACHINE_WAKE_NS,
	    m->wake_ns >= 0 ? json_object_new_double(m->wake_ns) : NULL);
	/* The CPUs the daemon may run on (taskset, cgroup cpusets): its cores. */
	CPU_ZERO(&set);
	put(o, CORECAP_MK_MACHINE_DAEMON_CPUS,
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

	put(root, CORECAP_MK_VERSION, json_object_new_int(CORECAP_RUN_VERSION_MULTI));
	put(root, CORECAP_MK_TOOL_VERSION, json_object_new_string(CORECAP_VERSION));
	put(root, CORECAP_MK_STATUS, json_object_new_string(m->complete ? "complete" : "partial"));
	put(root, CORECAP_MK_PARTIAL_REASON, m->complete ? NULL : jstr(m->partial_reason));
	put(root, CORECAP_MK_HOST, json_object_new_string(host));
	put(root, CORECAP_MK_NPROC, json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
	put(root, CORECAP_MK_KERNEL, json_object_new_string(release));
	put(root, CORECAP_MK_CLK_TCK, json_object_new_int((int)sysconf(_SC_CLK_TCK)));
	put(root, CORECAP_MK_CLOCK, json_object_new_string("monotonic"));
	if (m->start_ns)
		put(root, CORECAP_MK_WINDOW, window(m));
	put(root, CORECAP_MK_RECORD_COMMAND, argv_array(m->record_argv));
	put(root, CORECAP_MK_COLLECTOR, collector());
	put(root, CORECAP_MK_MACHINE, machine(m));
	for (size_t i = 0; i < m->n_daemons; i++) {
		const struct corecap_manifest_daemon *d = &m->daemons[i];
		struct json_object *o = json_object_new_object();

		put(o, CORECAP_MK_DAEMONS_PID, json_object_new_int(d->pid));
		put(o, CORECAP_MK_DAEMONS_COMM, jstr(d->comm));
		put(o, CORECAP_MK_DAEMONS_DIR, jstr(d->dir));
		put(o, CORECAP_MK_DAEMONS_STATUS, jstr(d->status));
		put(o, CORECAP_MK_DAEMONS_PARTIAL_REASON, jstr(d->partial_reason));
		put(o, CORECAP_MK_DAEMONS_COLLECTOR_EXIT_STATUS,
		    d->exit_status >= 0 ? json_object_new_int(d->exit_status) : NULL);
		if (d->ceph_asok) {
			put(o, CORECAP_MK_DAEMONS_CEPH_ASOK, jstr(d->ceph_asok));
			put(o, CORECAP_MK_DAEMONS_CEPH_OSD_ID, json_object_new_int(d->ceph_osd_id));
		}
		json_object_array_add(a, o);
	}
	put(root, CORECAP_MK_DAEMONS, a);
	put(root, CORECAP_MK_BENCHMARK, m->bench ? benchmark(m) : NULL);
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
	put(root, CORECAP_MK_FORMAT, json_object_new_string(CORECAP_RUN_FORMAT));
	if (m->daemons)
		return build_multi(m, root, host, uts.release);
	put(root, CORECAP_MK_VERSION, json_object_new_int(CORECAP_RUN_VERSION));
	put(root, CORECAP_MK_TOOL_VERSION, json_object_new_string(CORECAP_VERSION));
	put(root, CORECAP_MK_STATUS, json_object_new_string(m->complete ? "complete" : "partial"));
	put(root, CORECAP_MK_PARTIAL_REASON, m->complete ? NULL : jstr(m->partial_reason));
	put(root, CORECAP_MK_PID, json_object_new_int(t->pid));
	put(root, CORECAP_MK_COMM, json_object_new_string(t->comm));
	put(root, CORECAP_MK_CMDLINE, cmdline_array(t));
	put(root, CORECAP_MK_EXE, json_object_new_string(t->exe));
	put(root, CORECAP_MK_UID, ju64(t->uid));
	put(root, CORECAP_MK_HOST, json_object_new_string(host));
	put(root, CORECAP_MK_NPROC, json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
	put(root, CORECAP_MK_KERNEL, json_object_new_string(uts.release));
	put(root, CORECAP_MK_CLK_TCK, json_object_new_int((int)sysconf(_SC_CLK_TCK)));
	put(root, CORECAP_MK_CLOCK, json_object_new_string("monotonic"));
	if (m->start_ns) /* else a checkpoint from before the window started */
		put(root, CORECAP_MK_WINDOW, window(m));
	put(root, CORECAP_MK_RECORD_COMMAND, argv_array(m->record_argv));
	put(root, CORECAP_MK_COLLECTOR, collector());
	put(root, CORECAP_MK_MACHINE, machine(m));
	put(root, CORECAP_MK_SOURCES, sources(m));
	if (m->devices)
		put(root, CORECAP_MK_DEVICES, devices(m->devices));
	if (m->lttng)
		put(root, CORECAP_MK_LTTNG, lttng(m->lttng));
	put(root, CORECAP_MK_THREADS_HZ, json_object_new_int((int)m->threads_hz));
	if (m->threads) {
		struct json_object *o = json_object_new_object();

		put(o, CORECAP_MK_THREADS_ROUNDS, ju64(m->threads->rounds));
		put(o, CORECAP_MK_THREADS_ROWS, ju64(m->threads->rows));
		put(o, CORECAP_MK_THREADS_SCHEDSTAT,
		    json_object_new_boolean(m->threads->have_schedstat));
		put(root, CORECAP_MK_THREADS, o);
	}
	if (m->wall)
		put(root, CORECAP_MK_WALLCLOCK, wallclock(m->wall));
	else if (m->kernel && (m->kernel->stats.oncpu_written > 0 || m->kernel->wall_offcpu))
		put(root, CORECAP_MK_WALLCLOCK, wallclock_oncpu(m->kernel));
	if (m->kernel)
		put(root, CORECAP_MK_KERNEL_EVENTS, kernel_events(m->kernel));
	if (m->stats && m->stats->present) {
		struct json_object *o = json_object_new_object();

		put(o, CORECAP_MK_STATS_FILE, json_object_new_string(m->stats->path));
		put(o, CORECAP_MK_STATS_BYTES, ju64(m->stats->bytes));
		put(o, CORECAP_MK_STATS_COPIES, json_object_new_int(m->stats->copies));
		put(o, CORECAP_MK_STATS_TORN, json_object_new_int(m->stats->torn));
		put(root, CORECAP_MK_STATS, o);
	}
	if (m->cpu_prof && m->cpu_prof->available) {
		struct json_object *o = json_object_new_object();

		put(o, CORECAP_MK_CPU_PROF_SIGNAL, json_object_new_int(m->cpu_prof->signal));
		put(o, CORECAP_MK_CPU_PROF_CPUPROFILE, json_object_new_string(m->cpu_prof->base));
		put(o, CORECAP_MK_CPU_PROF_BYTES, ju64(m->cpu_prof->bytes));
		put(root, CORECAP_MK_CPU_PROF, o);
	}
	if (m->maps) {
		struct json_object *o = json_object_new_object();

		put(o, CORECAP_MK_MAPS_FILES, ju64(m->maps->n_files));
		put(o, CORECAP_MK_MAPS_BUILD_IDS, ju64(m->maps->n_ids));
		put(o, CORECAP_MK_MAPS_VDSO_BYTES, ju64(m->maps->vdso_bytes));
		put(root, CORECAP_MK_MAPS, o);
	}
	put(root, CORECAP_MK_BENCHMARK, m->bench ? benchmark(m) : NULL);
	if (m->watchdog) {
		struct json_object *o = json_object_new_object();

		put(o, CORECAP_MK_WATCHDOG_COLLECTOR_CONTINUED, ju64(m->watchdog->continued));
		put(o, CORECAP_MK_WATCHDOG_LONGEST_HOLD_NS, ju64(m->watchdog->held_ns_max));
		put(root, CORECAP_MK_WATCHDOG, o);
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
