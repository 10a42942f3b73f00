#include "manifest.h"

#include <corecap/diag.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/lines.h"
#include "run_file.h"
#include <corecap/manifest_keys.h>
#include <corecap/run_format.h>

void corecap_manifest_init(struct run_manifest *m)
{
	*m = (struct run_manifest){.pid = -1, .bench_exit_status = -1};
}

void corecap_manifest_release(struct run_manifest *m)
{
	json_object_put(m->root);
	corecap_lines_release(&m->warnings, &m->n_warnings);
	corecap_manifest_init(m);
}

static void warn(struct run_manifest *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void warn(struct run_manifest *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	corecap_lines_vadd(&m->warnings, &m->n_warnings, fmt, ap); /* out of memory: one less */
	va_end(ap);
}

static const char *type_name(json_object *v)
{
	return json_type_to_name(json_object_get_type(v));
}

json_object *corecap_manifest_member(json_object *o, enum corecap_manifest_key key)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, corecap_mk(key), &v) ||
	    json_object_is_type(v, json_type_null))
		return NULL;
	return v;
}

const char *corecap_manifest_member_str(json_object *o, enum corecap_manifest_key key)
{
	json_object *v = corecap_manifest_member(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* A key's path for a warning ("machine.daemon_cpus"), in a buffer that lives to the block's end. */
#define KEY_PATH(key) corecap_manifest_key_path(key, (char[96]){0}, 96)

/* An object member, or NULL (with a warning if it is there but not an object). */
static json_object *get_obj(struct run_manifest *m, json_object *o, enum corecap_manifest_key key)
{
	json_object *v = corecap_manifest_member(o, key);

	if (v && !json_object_is_type(v, json_type_object)) {
		warn(m, CORECAP_RUN_MANIFEST ": '%s' has JSON type %s, not an object: ignored",
		     KEY_PATH(key), type_name(v));
		return NULL;
	}
	return v;
}

static const char *get_str(struct run_manifest *m, json_object *o, enum corecap_manifest_key key)
{
	json_object *v = corecap_manifest_member(o, key);

	if (v && !json_object_is_type(v, json_type_string)) {
		warn(m, CORECAP_RUN_MANIFEST ": '%s' has JSON type %s, not a string: ignored",
		     KEY_PATH(key), type_name(v));
		return NULL;
	}
	return v ? json_object_get_string(v) : NULL;
}

/* A finite number (integer or not) in [lo, hi]; false (and a warning if present) otherwise. */
static bool get_num(struct run_manifest *m, json_object *o, enum corecap_manifest_key key,
		    double lo, double hi, double *out)
{
	json_object *v = corecap_manifest_member(o, key);
	double d;

	if (!v)
		return false;
	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double)) {
		warn(m, CORECAP_RUN_MANIFEST ": '%s' has JSON type %s, not a number: ignored",
		     KEY_PATH(key), type_name(v));
		return false;
	}
	d = json_object_get_double(v);
	if (!isfinite(d) || d < lo || d > hi) {
		warn(m, CORECAP_RUN_MANIFEST ": '%s' %g is out of range (%g to %g): ignored",
		     KEY_PATH(key), d, lo, hi);
		return false;
	}
	*out = d;
	return true;
}

/* An integer in [lo, hi]. */
static bool get_int(struct run_manifest *m, json_object *o, enum corecap_manifest_key key,
		    int64_t lo, int64_t hi, int64_t *out)
{
	json_object *v = corecap_manifest_member(o, key);
	int64_t x;

	if (!v)
		return false;
	if (!json_object_is_type(v, json_type_int)) {
		warn(m, CORECAP_RUN_MANIFEST ": '%s' has JSON type %s, not an integer: ignored",
		     KEY_PATH(key), type_name(v));
		return false;
	}
	x = json_object_get_int64(v);
	if (x < lo || x > hi) {
		warn(m, CORECAP_RUN_MANIFEST ": '%s' %lld is out of range (%lld to %lld): ignored",
		     KEY_PATH(key), (long long)x, (long long)lo, (long long)hi);
		return false;
	}
	*out = x;
	return true;
}

/* A non-negative integer of up to 64 bits; false if absent or not one (no warning). */
static bool u64_of(json_object *v, uint64_t *out)
{
	if (!v || !json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return false;
	*out = json_object_get_uint64(v);
	return true;
}

static bool get_u64(struct run_manifest *m, json_object *o, enum corecap_manifest_key key,
		    uint64_t *out)
{
	json_object *v = corecap_manifest_member(o, key);

	if (!v)
		return false;
	if (!u64_of(v, out)) {
		warn(m, CORECAP_RUN_MANIFEST ": '%s' is not a non-negative integer: ignored",
		     KEY_PATH(key));
		return false;
	}
	return true;
}

static bool get_bool(struct run_manifest *m, json_object *o, enum corecap_manifest_key key)
{
	json_object *v = corecap_manifest_member(o, key);

	if (v && !json_object_is_type(v, json_type_boolean)) {
		warn(m,
		     CORECAP_RUN_MANIFEST ": '%s' has JSON type %s, not a boolean: taken as false",
		     KEY_PATH(key), type_name(v));
		return false;
	}
	return v && json_object_get_boolean(v);
}

static int fail(char **err, int ret, const char *path, const char *why)
{
	return corecap_err(err, ret, "'%s': %s", path, why);
}

/* benchmark.command: an array of strings, else ignored. */
static json_object *get_command(struct run_manifest *m, json_object *bench)
{
	json_object *v = corecap_manifest_member(bench, CORECAP_MK_BENCHMARK_COMMAND);
	size_t n;

	if (!v)
		return NULL;
	if (!json_object_is_type(v, json_type_array)) {
		warn(m,
		     CORECAP_RUN_MANIFEST ": 'benchmark.command' has JSON type %s, not an array of "
					  "strings: "
					  "ignored",
		     type_name(v));
		return NULL;
	}
	n = json_object_array_length(v);
	for (size_t i = 0; i < n; i++)
		if (!json_object_is_type(json_object_array_get_idx(v, i), json_type_string)) {
			warn(m,
			     CORECAP_RUN_MANIFEST
			     ": 'benchmark.command' item %zu has JSON type %s, not a "
			     "string: "
			     "the command is ignored",
			     i, type_name(json_object_array_get_idx(v, i)));
			return NULL;
		}
	return v;
}

static void load_benchmark(struct run_manifest *m, json_object *root)
{
	struct bench_summary *b = &m->bench;
	int64_t x;

	m->benchmark = get_obj(m, root, CORECAP_MK_BENCHMARK);
	if (!m->benchmark)
		return;
	m->bench_command = get_command(m, m->benchmark);
	if (get_int(m, m->benchmark, CORECAP_MK_BENCHMARK_EXIT_STATUS, 0, 255, &x))
		m->bench_exit_status = (int)x;
	m->summary = get_obj(m, m->benchmark, CORECAP_MK_BENCHMARK_SUMMARY);
	/* Rates and times are finite and non-negative; a benchmark's own
	 * figures are passed through, not trusted for arithmetic otherwise. */
	b->has_iops = get_num(m, m->summary, CORECAP_MK_BENCHMARK_SUMMARY_IOPS_AVG, 0, 1e12,
			      &b->iops_avg);
	b->has_lat = get_num(m, m->summary, CORECAP_MK_BENCHMARK_SUMMARY_LAT_AVG_S, 0, 1e9,
			     &b->lat_avg_s);
	b->has_ops = get_num(m, m->summary, CORECAP_MK_BENCHMARK_SUMMARY_OPS, 0, 1e18, &b->ops);
	b->has_time = get_num(m, m->summary, CORECAP_MK_BENCHMARK_SUMMARY_TOTAL_TIME_S, 0, 1e9,
			      &b->total_time_s);
	b->has_p99 = get_num(m, m->summary, CORECAP_MK_BENCHMARK_SUMMARY_LAT_P99_S, 0, 1e9,
			     &b->lat_p99_s);
}

/* An unsigned count of a device (0 .. 2^62); false and a warning when present but not one. */
static bool dev_u64(struct run_manifest *m, json_object *o, enum corecap_manifest_key key,
		    uint64_t *out)
{
	int64_t x;

	if (!get_int(m, o, key, 0, INT64_MAX / 2, &x))
		return false;
	*out = (uint64_t)x;
	return true;
}

/* manifest "devices": the daemon's disks over the window; a device that is not an object is
 * skipped. */
static void load_devices(struct run_manifest *m, json_object *a)
{
	static const enum corecap_manifest_key lim[4] = {
		CORECAP_MK_DEVICES_LIMIT_READ_IOPS, CORECAP_MK_DEVICES_LIMIT_WRITE_IOPS,
		CORECAP_MK_DEVICES_LIMIT_READ_BPS, CORECAP_MK_DEVICES_LIMIT_WRITE_BPS};
	static const enum corecap_manifest_key cg[4] = {
		CORECAP_MK_DEVICES_LIMIT_CGROUP_READS, CORECAP_MK_DEVICES_LIMIT_CGROUP_WRITES,
		CORECAP_MK_DEVICES_LIMIT_CGROUP_READ_BYTES,
		CORECAP_MK_DEVICES_LIMIT_CGROUP_WRITE_BYTES};

	if (!json_object_is_type(a, json_type_array)) {
		warn(m, CORECAP_RUN_MANIFEST ": 'devices' has JSON type %s, not an array: ignored",
		     type_name(a));
		return;
	}
	m->has_devices = true;
	for (size_t i = 0; i < json_object_array_length(a) && m->n_devices < MANIFEST_MAX_DEVICES;
	     i++) {
		json_object *o = json_object_array_get_idx(a, i), *l;
		struct run_device *d = &m->devices[m->n_devices];
		uint64_t v[4] = {0};

		*d = (struct run_device){.name = get_str(m, o, CORECAP_MK_DEVICES_NAME)};
		if (!json_object_is_type(o, json_type_object) || !d->name)
			continue;
		/* Each read (and its warning) whatever the others gave: counted, not
		 * short-circuited. */
		d->has_counts =
			dev_u64(m, o, CORECAP_MK_DEVICES_READS, &d->ios[0]) +
				dev_u64(m, o, CORECAP_MK_DEVICES_WRITES, &d->ios[1]) +
				dev_u64(m, o, CORECAP_MK_DEVICES_READ_BYTES, &d->bytes[0]) +
				dev_u64(m, o, CORECAP_MK_DEVICES_WRITE_BYTES, &d->bytes[1]) +
				dev_u64(m, o, CORECAP_MK_DEVICES_BUSY_MS, &d->busy_ms) +
				dev_u64(m, o, CORECAP_MK_DEVICES_QUEUE_MS, &d->queue_ms) ==
			6;
		l = get_obj(m, o, CORECAP_MK_DEVICES_LIMIT);
		if (l) {
			d->limit_file = get_str(m, l, CORECAP_MK_DEVICES_LIMIT_FILE);
			d->limit_cgroup = get_str(m, l, CORECAP_MK_DEVICES_LIMIT_CGROUP);
			for (int k = 0; k < 4; k++)
				dev_u64(m, l, lim[k], &v[k]);
			d->limit_iops[0] = v[0], d->limit_iops[1] = v[1];
			d->limit_bps[0] = v[2], d->limit_bps[1] = v[3];
			d->has_cgroup_counts = dev_u64(m, l, cg[0], &d->cgroup_ios[0]) +
						       dev_u64(m, l, cg[1], &d->cgroup_ios[1]) +
						       dev_u64(m, l, cg[2], &d->cgroup_bytes[0]) +
						       dev_u64(m, l, cg[3], &d->cgroup_bytes[1]) ==
					       4;
		}
		m->n_devices++;
	}
}

int corecap_manifest_load(struct run_manifest *m, const char *path, char **err)
{
	json_object *root, *window, *machine, *collector, *sources, *lttng, *wall, *v, *kbytes,
		*recs;
	const char *format, *status;
	int64_t x;
	double d;
	char why[160];
	int ret;

	*err = NULL;
	ret = corecap_run_file_json(path, &root, err);
	if (ret)
		return ret;
	m->root = root;
	if (!json_object_is_type(root, json_type_object))
		return fail(err, -EINVAL, path, "not a JSON object");
	format = get_str(m, root, CORECAP_MK_FORMAT);
	if (format && strcmp(format, CORECAP_RUN_FORMAT) != 0) {
		snprintf(why, sizeof(why), "format '%.64s' is not a corecap run", format);
		return fail(err, -EINVAL, path, why);
	}
	v = corecap_manifest_member(root, CORECAP_MK_VERSION);
	if (!v ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return fail(err, -EINVAL, path, "no format version");
	d = json_object_get_double(v);
	/* In range (NaN is not) before the cast: (int) of a double out of its range
	 * is undefined. */
	if (d == CORECAP_RUN_VERSION_MULTI && !m->accept_multi) {
		v = corecap_manifest_member(root, CORECAP_MK_DAEMONS);
		snprintf(why, sizeof(why),
			 "a run of %zu daemons (format version %d): name one as RUN:PID or "
			 "RUN/" CORECAP_RUN_DAEMONS_DIR "/PID",
			 v && json_object_is_type(v, json_type_array) ? json_object_array_length(v)
								      : (size_t)0,
			 CORECAP_RUN_VERSION_MULTI);
		return fail(err, -EPROTONOSUPPORT, path, why);
	}
	if (d == CORECAP_RUN_VERSION_HOSTS && !m->accept_hosts) {
		v = corecap_manifest_member(root, CORECAP_MK_HOSTS);
		snprintf(why, sizeof(why),
			 "a run of %zu hosts (format version %d): name one host's run, "
			 "RUN/" CORECAP_RUN_HOSTS_DIR "/NAME",
			 v && json_object_is_type(v, json_type_array) ? json_object_array_length(v)
								      : (size_t)0,
			 CORECAP_RUN_VERSION_HOSTS);
		return fail(err, -EPROTONOSUPPORT, path, why);
	}
	if (m->accept_multi   ? d != CORECAP_RUN_VERSION_MULTI
	    : m->accept_hosts ? d != CORECAP_RUN_VERSION_HOSTS
			      : !(d >= CORECAP_RUN_VERSION_OLDEST && d <= CORECAP_RUN_VERSION) ||
					d != (double)(int)d) {
		snprintf(why, sizeof(why),
			 "unsupported run format version %g (this corecap reads versions %d-%d)", d,
			 CORECAP_RUN_VERSION_OLDEST, CORECAP_RUN_VERSION);
		return fail(err, -EPROTONOSUPPORT, path, why);
	}
	m->version = (int)d;
	status = get_str(m, root, CORECAP_MK_STATUS);
	m->partial = status && strcmp(status, "complete") != 0;
	m->partial_reason = get_str(m, root, CORECAP_MK_PARTIAL_REASON);
	if (get_int(m, root, CORECAP_MK_PID, 1, INT32_MAX, &x))
		m->pid = (int32_t)x;
	m->comm = get_str(m, root, CORECAP_MK_COMM);
	m->exe = get_str(m, root, CORECAP_MK_EXE);
	m->host = get_str(m, root, CORECAP_MK_HOST);
	m->kernel = get_str(m, root, CORECAP_MK_KERNEL);
	m->tool_version = get_str(m, root, CORECAP_MK_TOOL_VERSION);
	if (get_int(m, root, CORECAP_MK_NPROC, 1, MANIFEST_MAX_NPROC, &x))
		m->nproc = (int)x;
	if (get_int(m, root, CORECAP_MK_CLK_TCK, 1, 1000000, &x))
		m->clk_tck = (long)x;

	collector = get_obj(m, root, CORECAP_MK_COLLECTOR);
	if (collector && get_int(m, collector, CORECAP_MK_COLLECTOR_PID, 1, INT32_MAX, &x))
		m->collector_pid = (int32_t)x;
	if (collector) {
		double user = 0, sys = 0;

		m->has_collector_cpu =
			get_num(m, collector, CORECAP_MK_COLLECTOR_CPU_USER_S, 0, 1e9, &user) &&
			get_num(m, collector, CORECAP_MK_COLLECTOR_CPU_SYS_S, 0, 1e9, &sys);
		m->collector_cpu_s = m->has_collector_cpu ? user + sys : 0;
	}
	machine = get_obj(m, root, CORECAP_MK_MACHINE);
	if (machine) {
		m->has_machine_busy = get_num(m, machine, CORECAP_MK_MACHINE_BUSY_CPU_S, 0, 1e12,
					      &m->machine_busy_cpu_s);
		m->has_machine_steal = get_num(m, machine, CORECAP_MK_MACHINE_STEAL_CPU_S, 0, 1e12,
					       &m->machine_steal_cpu_s);
		m->has_bench_cpu = get_num(m, machine, CORECAP_MK_MACHINE_BENCH_CPU_S, 0, 1e12,
					   &m->bench_cpu_s);
		m->has_wake = get_num(m, machine, CORECAP_MK_MACHINE_WAKE_NS, 0, 1e9, &m->wake_ns);
		if (get_int(m, machine, CORECAP_MK_MACHINE_DAEMON_CPUS, 1, MANIFEST_MAX_NPROC, &x))
			m->daemon_cpus = (int)x;
		if (corecap_manifest_member(machine, CORECAP_MK_MACHINE_DAEMON_CPU_QUOTA_US)) {
			int64_t quota, period;

			/* The kernel's bounds: 1 ms to 1 s periods, quotas of at least 1 ms. */
			m->has_cpu_quota =
				get_int(m, machine, CORECAP_MK_MACHINE_DAEMON_CPU_QUOTA_US, 1000,
					INT64_MAX / 2, &quota) &&
				get_int(m, machine, CORECAP_MK_MACHINE_DAEMON_CPU_PERIOD_US, 1000,
					1000000, &period);
			m->cpu_quota = m->has_cpu_quota ? (double)quota / (double)period : 0;
			m->cpu_quota_cgroup =
				get_str(m, machine, CORECAP_MK_MACHINE_DAEMON_CPU_QUOTA_CGROUP);
			m->cpu_quota_file =
				get_str(m, machine, CORECAP_MK_MACHINE_DAEMON_CPU_QUOTA_FILE);
		}
	}
	if (corecap_manifest_member(root, CORECAP_MK_DEVICES))
		load_devices(m, corecap_manifest_member(root, CORECAP_MK_DEVICES));
	window = corecap_manifest_member(root, CORECAP_MK_WINDOW);
	if (window) {
		/* The window decides every rate: a bad one is an error, not a skip. */
		if (!json_object_is_type(window, json_type_object) ||
		    !u64_of(corecap_manifest_member(window, CORECAP_MK_WINDOW_START_NS),
			    &m->window_start_ns) ||
		    !u64_of(corecap_manifest_member(window, CORECAP_MK_WINDOW_END_NS),
			    &m->window_end_ns))
			return fail(err, -EINVAL, path,
				    "window lacks start_ns or end_ns (non-negative integers)");
		if (m->window_end_ns <= m->window_start_ns) {
			snprintf(why, sizeof(why),
				 "empty measurement window (start_ns %llu >= end_ns %llu)",
				 (unsigned long long)m->window_start_ns,
				 (unsigned long long)m->window_end_ns);
			return fail(err, -EINVAL, path, why);
		}
		m->has_window = true;
		if (get_int(m, window, CORECAP_MK_WINDOW_REALTIME_OFFSET_NS, INT64_MIN, INT64_MAX,
			    &x)) {
			m->realtime_offset_ns = x;
			m->has_realtime_offset = true;
		}
	}
	wall = get_obj(m, root, CORECAP_MK_WALLCLOCK);
	if (wall) {
		/* Absent or bad keys leave them 0 (corecap_manifest_init): not recorded. */
		get_num(m, wall, CORECAP_MK_WALLCLOCK_HZ, 1e-3, 1e6, &m->wall_hz);
		m->wall_sampler = get_str(m, wall, CORECAP_MK_WALLCLOCK_SAMPLER);
		m->wall_oncpu_only = m->wall_sampler &&
				     !strcmp(m->wall_sampler, CORECAP_WALL_SAMPLER_KERNEL_ONCPU);
		get_u64(m, wall, CORECAP_MK_WALLCLOCK_TAKEN, &m->wall_oncpu_taken);
		get_u64(m, wall, CORECAP_MK_WALLCLOCK_LOST, &m->wall_oncpu_lost);
		get_u64(m, wall, CORECAP_MK_WALLCLOCK_FAILED, &m->wall_oncpu_failed);
		get_u64(m, wall, CORECAP_MK_WALLCLOCK_ROUNDS, &m->wall_rounds);
		m->has_wall_due = get_u64(m, wall, CORECAP_MK_WALLCLOCK_DUE, &m->wall_due) &&
				  get_u64(m, wall, CORECAP_MK_WALLCLOCK_SAMPLES, &m->wall_samples);
		get_u64(m, wall, CORECAP_MK_WALLCLOCK_SKIPPED, &m->wall_skipped);
		get_u64(m, wall, CORECAP_MK_WALLCLOCK_ABANDONED, &m->wall_abandoned);
		get_u64(m, wall, CORECAP_MK_WALLCLOCK_RATIONED, &m->wall_rationed);
		get_u64(m, wall, CORECAP_MK_WALLCLOCK_LATE_ROUNDS, &m->wall_late_rounds);
		get_u64(m, wall, CORECAP_MK_WALLCLOCK_LOST_ROUNDS, &m->wall_lost_rounds);
		m->has_wall_starved = get_u64(m, wall, CORECAP_MK_WALLCLOCK_THREADS_STARVED,
					      &m->wall_threads_starved);
		get_u64(m, wall, CORECAP_MK_WALLCLOCK_THREADS_COUNTED, &m->wall_threads_counted);
		get_u64(m, wall, CORECAP_MK_WALLCLOCK_STOP_BUDGET_NS, &m->wall_stop_budget_ns);
		m->has_wall_coverage = get_u64(m, wall, CORECAP_MK_WALLCLOCK_THREAD_COVERAGE_MIN_PM,
					       &m->wall_coverage_min_pm) &&
				       get_u64(m, wall, CORECAP_MK_WALLCLOCK_THREAD_COVERAGE_MAX_PM,
					       &m->wall_coverage_max_pm);
	}
	sources = get_obj(m, root, CORECAP_MK_SOURCES);
	if (sources) {
		m->src_trace = get_bool(m, sources, CORECAP_MK_SOURCES_TRACE);
		m->src_threads = get_bool(m, sources, CORECAP_MK_SOURCES_THREADS);
		m->src_stats = get_bool(m, sources, CORECAP_MK_SOURCES_STATS);
		m->src_maps = get_bool(m, sources, CORECAP_MK_SOURCES_MAPS);
		m->src_kernel = get_bool(m, sources, CORECAP_MK_SOURCES_KERNEL);
	} else {
		m->src_trace = m->src_threads = m->src_stats = m->src_maps = true;
	}
	lttng = get_obj(m, root, CORECAP_MK_LTTNG);
	if (lttng) {
		m->has_lttng_loss = get_u64(m, lttng, CORECAP_MK_LTTNG_DISCARDED_EVENTS,
					    &m->lttng_discarded_events);
		m->has_lttng_loss |=
			get_u64(m, lttng, CORECAP_MK_LTTNG_LOST_PACKETS, &m->lttng_lost_packets);
		v = corecap_manifest_member(lttng, CORECAP_MK_LTTNG_TARGET_REGISTERED);
		m->has_target_registered = v && json_object_is_type(v, json_type_boolean);
		m->target_registered = m->has_target_registered && json_object_get_boolean(v);
	}
	v = get_obj(m, root, CORECAP_MK_KERNEL_EVENTS);
	kbytes = v ? get_obj(m, v, CORECAP_MK_KERNEL_EVENTS_BYTES) : NULL;
	if (kbytes)
		m->has_kernel_bytes = get_u64(m, kbytes, CORECAP_MK_KERNEL_EVENTS_BYTES_EVENTS,
					      &m->kernel_events_bytes) &&
				      get_u64(m, kbytes, CORECAP_MK_KERNEL_EVENTS_BYTES_STACKS,
					      &m->kernel_stacks_bytes);
	recs = v ? get_obj(m, v, CORECAP_MK_KERNEL_EVENTS_RECORDS) : NULL;
	if (recs) {
		json_object_object_foreach(recs, key, val)
		{
			uint64_t n;

			(void)key;
			if (u64_of(val, &n) && n <= UINT64_MAX - m->kernel_records)
				m->kernel_records += n;
		}
	}
	if (v && (v = get_obj(m, v, CORECAP_MK_KERNEL_EVENTS_LOST)))
		m->has_kernel_lost =
			get_u64(m, v, CORECAP_MK_KERNEL_EVENTS_LOST_TOTAL, &m->kernel_lost);
	load_benchmark(m, root);
	return 0;
}
