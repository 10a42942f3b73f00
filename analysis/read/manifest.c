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

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return NULL;
	return v;
}

/* An object member, or NULL (with a warning if it is there but not an object). */
static json_object *get_obj(struct run_manifest *m, json_object *o, const char *pre,
			    const char *key)
{
	json_object *v = get(o, key);

	if (v && !json_object_is_type(v, json_type_object)) {
		warn(m, CORECAP_RUN_MANIFEST ": '%s%s' has JSON type %s, not an object: ignored",
		     pre, key, type_name(v));
		return NULL;
	}
	return v;
}

static const char *get_str(struct run_manifest *m, json_object *o, const char *pre, const char *key)
{
	json_object *v = get(o, key);

	if (v && !json_object_is_type(v, json_type_string)) {
		warn(m, CORECAP_RUN_MANIFEST ": '%s%s' has JSON type %s, not a string: ignored",
		     pre, key, type_name(v));
		return NULL;
	}
	return v ? json_object_get_string(v) : NULL;
}

/* A finite number (integer or not) in [lo, hi]; false (and a warning if present) otherwise. */
static bool get_num(struct run_manifest *m, json_object *o, const char *pre, const char *key,
		    double lo, double hi, double *out)
{
	json_object *v = get(o, key);
	double d;

	if (!v)
		return false;
	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double)) {
		warn(m, CORECAP_RUN_MANIFEST ": '%s%s' has JSON type %s, not a number: ignored",
		     pre, key, type_name(v));
		return false;
	}
	d = json_object_get_double(v);
	if (!isfinite(d) || d < lo || d > hi) {
		warn(m, CORECAP_RUN_MANIFEST ": '%s%s' %g is out of range (%g to %g): ignored", pre,
		     key, d, lo, hi);
		return false;
	}
	*out = d;
	return true;
}

/* An integer in [lo, hi]. */
static bool get_int(struct run_manifest *m, json_object *o, const char *pre, const char *key,
		    int64_t lo, int64_t hi, int64_t *out)
{
	json_object *v = get(o, key);
	int64_t x;

	if (!v)
		return false;
	if (!json_object_is_type(v, json_type_int)) {
		warn(m, CORECAP_RUN_MANIFEST ": '%s%s' has JSON type %s, not an integer: ignored",
		     pre, key, type_name(v));
		return false;
	}
	x = json_object_get_int64(v);
	if (x < lo || x > hi) {
		warn(m,
		     CORECAP_RUN_MANIFEST ": '%s%s' %lld is out of range (%lld to %lld): ignored",
		     pre, key, (long long)x, (long long)lo, (long long)hi);
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

static bool get_u64(struct run_manifest *m, json_object *o, const char *pre, const char *key,
		    uint64_t *out)
{
	json_object *v = get(o, key);

	if (!v)
		return false;
	if (!u64_of(v, out)) {
		warn(m, CORECAP_RUN_MANIFEST ": '%s%s' is not a non-negative integer: ignored", pre,
		     key);
		return false;
	}
	return true;
}

static bool get_bool(struct run_manifest *m, json_object *o, const char *pre, const char *key)
{
	json_object *v = get(o, key);

	if (v && !json_object_is_type(v, json_type_boolean)) {
		warn(m,
		     CORECAP_RUN_MANIFEST
		     ": '%s%s' has JSON type %s, not a boolean: taken as false",
		     pre, key, type_name(v));
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
	json_object *v = get(bench, "command");
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

	m->benchmark = get_obj(m, root, "", "benchmark");
	if (!m->benchmark)
		return;
	m->bench_command = get_command(m, m->benchmark);
	if (get_int(m, m->benchmark, "benchmark.", "exit_status", 0, 255, &x))
		m->bench_exit_status = (int)x;
	m->summary = get_obj(m, m->benchmark, "benchmark.", "summary");
	/* Rates and times are finite and non-negative; a benchmark's own
	 * figures are passed through, not trusted for arithmetic otherwise. */
	b->has_iops =
		get_num(m, m->summary, "benchmark.summary.", "iops_avg", 0, 1e12, &b->iops_avg);
	b->has_lat =
		get_num(m, m->summary, "benchmark.summary.", "lat_avg_s", 0, 1e9, &b->lat_avg_s);
	b->has_ops = get_num(m, m->summary, "benchmark.summary.", "ops", 0, 1e18, &b->ops);
	b->has_time = get_num(m, m->summary, "benchmark.summary.", "total_time_s", 0, 1e9,
			      &b->total_time_s);
	b->has_p99 =
		get_num(m, m->summary, "benchmark.summary.", "lat_p99_s", 0, 1e9, &b->lat_p99_s);
}

/* An unsigned count of a device (0 .. 2^62); false and a warning when present but not one. */
static bool dev_u64(struct run_manifest *m, json_object *o, const char *key, uint64_t *out)
{
	int64_t x;

	if (!get_int(m, o, "devices[].", key, 0, INT64_MAX / 2, &x))
		return false;
	*out = (uint64_t)x;
	return true;
}

/* manifest "devices": the daemon's disks over the window; a device that is not an object is skipped. */
static void load_devices(struct run_manifest *m, json_object *a)
{
	static const char *const lim[4] = {"read_iops", "write_iops", "read_bps", "write_bps"};
	static const char *const cg[4] = {"cgroup_reads", "cgroup_writes", "cgroup_read_bytes",
					  "cgroup_write_bytes"};

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

		*d = (struct run_device){.name = get_str(m, o, "devices[].", "name")};
		if (!json_object_is_type(o, json_type_object) || !d->name)
			continue;
		d->has_counts = dev_u64(m, o, "reads", &d->ios[0]) &
				dev_u64(m, o, "writes", &d->ios[1]) &
				dev_u64(m, o, "read_bytes", &d->bytes[0]) &
				dev_u64(m, o, "write_bytes", &d->bytes[1]) &
				dev_u64(m, o, "busy_ms", &d->busy_ms) &
				dev_u64(m, o, "queue_ms", &d->queue_ms);
		l = get_obj(m, o, "devices[].", "limit");
		if (l) {
			d->limit_file = get_str(m, l, "devices[].limit.", "file");
			d->limit_cgroup = get_str(m, l, "devices[].limit.", "cgroup");
			for (int k = 0; k < 4; k++)
				dev_u64(m, l, lim[k], &v[k]);
			d->limit_iops[0] = v[0], d->limit_iops[1] = v[1];
			d->limit_bps[0] = v[2], d->limit_bps[1] = v[3];
			d->has_cgroup_counts = dev_u64(m, l, cg[0], &d->cgroup_ios[0]) &
					       dev_u64(m, l, cg[1], &d->cgroup_ios[1]) &
					       dev_u64(m, l, cg[2], &d->cgroup_bytes[0]) &
					       dev_u64(m, l, cg[3], &d->cgroup_bytes[1]);
		}
		m->n_devices++;
	}
}

int corecap_manifest_load(struct run_manifest *m, const char *path, char **err)
{
	json_object *root, *window, *machine, *collector, *sources, *lttng, *wall, *v, *kbytes, *recs;
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
	format = get_str(m, root, "", "format");
	if (format && strcmp(format, CORECAP_RUN_FORMAT) != 0) {
		snprintf(why, sizeof(why), "format '%.64s' is not a corecap run", format);
		return fail(err, -EINVAL, path, why);
	}
	v = get(root, "version");
	if (!v ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return fail(err, -EINVAL, path, "no format version");
	d = json_object_get_double(v);
	/* In range (NaN is not) before the cast: (int) of a double out of its range
	 * is undefined. */
	if (d == CORECAP_RUN_VERSION_MULTI && !m->accept_multi) {
		v = get(root, "daemons");
		snprintf(why, sizeof(why),
			 "a run of %zu daemons (format version %d): name one as RUN:PID or "
			 "RUN/" CORECAP_RUN_DAEMONS_DIR "/PID",
			 v && json_object_is_type(v, json_type_array) ? json_object_array_length(v)
								      : (size_t)0,
			 CORECAP_RUN_VERSION_MULTI);
		return fail(err, -EPROTONOSUPPORT, path, why);
	}
	if (m->accept_multi ? d != CORECAP_RUN_VERSION_MULTI
			    : !(d >= CORECAP_RUN_VERSION_OLDEST && d <= CORECAP_RUN_VERSION) ||
				      d != (double)(int)d) {
		snprintf(why, sizeof(why),
			 "unsupported run format version %g (this corecap reads versions %d-%d)", d,
			 CORECAP_RUN_VERSION_OLDEST, CORECAP_RUN_VERSION);
		return fail(err, -EPROTONOSUPPORT, path, why);
	}
	m->version = (int)d;
	status = get_str(m, root, "", "status");
	m->partial = status && strcmp(status, "complete") != 0;
	m->partial_reason = get_str(m, root, "", "partial_reason");
	if (get_int(m, root, "", "pid", 1, INT32_MAX, &x))
		m->pid = (int32_t)x;
	m->comm = get_str(m, root, "", "comm");
	m->exe = get_str(m, root, "", "exe");
	m->host = get_str(m, root, "", "host");
	m->kernel = get_str(m, root, "", "kernel");
	m->tool_version = get_str(m, root, "", "tool_version");
	if (get_int(m, root, "", "nproc", 1, MANIFEST_MAX_NPROC, &x))
		m->nproc = (int)x;
	if (get_int(m, root, "", "clk_tck", 1, 1000000, &x))
		m->clk_tck = (long)x;

	collector = get_obj(m, root, "", "collector");
	if (collector && get_int(m, collector, "collector.", "pid", 1, INT32_MAX, &x))
		m->collector_pid = (int32_t)x;
	if (collector) {
		double user = 0, sys = 0;

		m->has_collector_cpu =
			get_num(m, collector, "collector.", "cpu_user_s", 0, 1e9, &user) &&
			get_num(m, collector, "collector.", "cpu_sys_s", 0, 1e9, &sys);
		m->collector_cpu_s = m->has_collector_cpu ? user + sys : 0;
	}
	machine = get_obj(m, root, "", "machine");
	if (machine) {
		m->has_machine_busy = get_num(m, machine, "machine.", "busy_cpu_s", 0, 1e12,
					      &m->machine_busy_cpu_s);
		m->has_machine_steal = get_num(m, machine, "machine.", "steal_cpu_s", 0, 1e12,
					       &m->machine_steal_cpu_s);
		m->has_bench_cpu =
			get_num(m, machine, "machine.", "bench_cpu_s", 0, 1e12, &m->bench_cpu_s);
		m->has_wake = get_num(m, machine, "machine.", "wake_ns", 0, 1e9, &m->wake_ns);
		if (get_int(m, machine, "machine.", "daemon_cpus", 1, MANIFEST_MAX_NPROC, &x))
			m->daemon_cpus = (int)x;
		if (get(machine, "daemon_cpu_quota_us")) {
			int64_t quota, period;

			/* The kernel's bounds: 1 ms to 1 s periods, quotas of at least 1 ms. */
			m->has_cpu_quota = get_int(m, machine, "machine.", "daemon_cpu_quota_us",
						   1000, INT64_MAX / 2, &quota) &&
					   get_int(m, machine, "machine.", "daemon_cpu_period_us",
						   1000, 1000000, &period);
			m->cpu_quota = m->has_cpu_quota ? (double)quota / (double)period : 0;
			m->cpu_quota_cgroup =
				get_str(m, machine, "machine.", "daemon_cpu_quota_cgroup");
			m->cpu_quota_file =
				get_str(m, machine, "machine.", "daemon_cpu_quota_file");
		}
	}
	if (get(root, "devices"))
		load_devices(m, get(root, "devices"));
	window = get(root, "window");
	if (window) {
		/* The window decides every rate: a bad one is an error, not a skip. */
		if (!json_object_is_type(window, json_type_object) ||
		    !u64_of(get(window, "start_ns"), &m->window_start_ns) ||
		    !u64_of(get(window, "end_ns"), &m->window_end_ns))
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
		if (get_int(m, window, "window.", "realtime_offset_ns", INT64_MIN, INT64_MAX, &x)) {
			m->realtime_offset_ns = x;
			m->has_realtime_offset = true;
		}
	}
	wall = get_obj(m, root, "", "wallclock");
	if (wall) {
		/* Absent or bad keys leave them 0 (corecap_manifest_init): not recorded. */
		get_num(m, wall, "wallclock.", "hz", 1e-3, 1e6, &m->wall_hz);
		get_u64(m, wall, "wallclock.", "rounds", &m->wall_rounds);
		m->has_wall_due = get_u64(m, wall, "wallclock.", "due", &m->wall_due) &&
				  get_u64(m, wall, "wallclock.", "samples", &m->wall_samples);
		get_u64(m, wall, "wallclock.", "skipped", &m->wall_skipped);
		get_u64(m, wall, "wallclock.", "abandoned", &m->wall_abandoned);
		get_u64(m, wall, "wallclock.", "rationed", &m->wall_rationed);
		get_u64(m, wall, "wallclock.", "late_rounds", &m->wall_late_rounds);
		get_u64(m, wall, "wallclock.", "lost_rounds", &m->wall_lost_rounds);
		m->has_wall_starved =
			get_u64(m, wall, "wallclock.", "threads_starved", &m->wall_threads_starved);
		get_u64(m, wall, "wallclock.", "threads_counted", &m->wall_threads_counted);
		get_u64(m, wall, "wallclock.", "stop_budget_ns", &m->wall_stop_budget_ns);
		m->has_wall_coverage = get_u64(m, wall, "wallclock.", "thread_coverage_min_pm",
					       &m->wall_coverage_min_pm) &&
				       get_u64(m, wall, "wallclock.", "thread_coverage_max_pm",
					       &m->wall_coverage_max_pm);
	}
	sources = get_obj(m, root, "", "sources");
	if (sources) {
		m->src_trace = get_bool(m, sources, "sources.", "trace");
		m->src_threads = get_bool(m, sources, "sources.", "threads");
		m->src_stats = get_bool(m, sources, "sources.", "stats");
		m->src_maps = get_bool(m, sources, "sources.", "maps");
		m->src_kernel = get_bool(m, sources, "sources.", "kernel");
	} else {
		m->src_trace = m->src_threads = m->src_stats = m->src_maps = true;
	}
	lttng = get_obj(m, root, "", "lttng");
	if (lttng) {
		m->has_lttng_loss =
			get_u64(m, lttng, "lttng.", "discarded_events", &m->lttng_discarded_events);
		m->has_lttng_loss |=
			get_u64(m, lttng, "lttng.", "lost_packets", &m->lttng_lost_packets);
		v = get(lttng, "target_registered");
		m->has_target_registered = v && json_object_is_type(v, json_type_boolean);
		m->target_registered = m->has_target_registered && json_object_get_boolean(v);
	}
	v = get_obj(m, root, "", "kernel_events");
	kbytes = v ? get_obj(m, v, "kernel_events.", "bytes") : NULL;
	if (kbytes)
		m->has_kernel_bytes = get_u64(m, kbytes, "kernel_events.bytes.", "events",
					      &m->kernel_events_bytes) &&
				      get_u64(m, kbytes, "kernel_events.bytes.", "stacks",
					      &m->kernel_stacks_bytes);
	recs = v ? get_obj(m, v, "kernel_events.", "records") : NULL;
	if (recs) {
		json_object_object_foreach(recs, key, val)
		{
			uint64_t n;

			(void)key;
			if (u64_of(val, &n) && n <= UINT64_MAX - m->kernel_records)
				m->kernel_records += n;
		}
	}
	if (v && (v = get_obj(m, v, "kernel_events.", "lost")))
		m->has_kernel_lost = get_u64(m, v, "kernel_events.lost.", "total", &m->kernel_lost);
	load_benchmark(m, root);
	return 0;
}
