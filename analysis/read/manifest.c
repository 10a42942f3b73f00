#include "manifest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void corecap_manifest_init(struct run_manifest *m)
{
	*m = (struct run_manifest){.pid = -1, .bench_exit_status = -1};
}

void corecap_manifest_release(struct run_manifest *m)
{
	json_object_put(m->root);
	corecap_manifest_init(m);
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return NULL;
	return v;
}

static const char *get_str(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static bool get_num(json_object *o, const char *key, double *out)
{
	json_object *v = get(o, key);

	if (!v ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return false;
	*out = json_object_get_double(v);
	return true;
}

static bool get_u64(json_object *o, const char *key, uint64_t *out)
{
	json_object *v = get(o, key);

	if (!v || !json_object_is_type(v, json_type_int))
		return false;
	*out = json_object_get_uint64(v);
	return true;
}

static bool get_bool(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

static int fail(char **err, int ret, const char *path, const char *why)
{
	if (asprintf(err, "'%s': %s", path, why) < 0)
		*err = NULL;
	return ret;
}

int corecap_manifest_load(struct run_manifest *m, const char *path, char **err)
{
	json_object *root, *window, *machine, *sources, *lttng, *wall, *v;
	const char *format, *status;
	double d;
	char why[160];

	*err = NULL;
	if (access(path, F_OK) != 0 && errno == ENOENT)
		return -ENOENT;
	root = json_object_from_file(path);
	if (!root) {
		snprintf(why, sizeof(why), "cannot parse: %s", json_util_get_last_err());
		why[strcspn(why, "\n")] = '\0';
		return fail(err, -EINVAL, path, why);
	}
	m->root = root;
	if (!json_object_is_type(root, json_type_object))
		return fail(err, -EINVAL, path, "not a JSON object");
	format = get_str(root, "format");
	if (format && strcmp(format, "corecap-run") != 0) {
		snprintf(why, sizeof(why), "format '%s' is not a corecap run", format);
		return fail(err, -EINVAL, path, why);
	}
	if (!get_num(root, "version", &d))
		return fail(err, -EINVAL, path, "no format version");
	m->version = (int)d;
	if (m->version != MANIFEST_VERSION || d != (double)m->version) {
		snprintf(why, sizeof(why),
			 "unsupported run format version %g (this corecap reads version %d)", d,
			 MANIFEST_VERSION);
		return fail(err, -EPROTONOSUPPORT, path, why);
	}
	status = get_str(root, "status");
	m->partial = status && strcmp(status, "complete") != 0;
	m->partial_reason = get_str(root, "partial_reason");
	if (get_num(root, "pid", &d))
		m->pid = (int32_t)d;
	m->comm = get_str(root, "comm");
	m->exe = get_str(root, "exe");
	m->host = get_str(root, "host");
	m->kernel = get_str(root, "kernel");
	m->tool_version = get_str(root, "tool_version");
	if (get_num(root, "nproc", &d))
		m->nproc = (int)d;
	if (get_num(root, "clk_tck", &d))
		m->clk_tck = (long)d;

	machine = get(root, "machine");
	if (machine) {
		m->has_machine_busy = get_num(machine, "busy_cpu_s", &m->machine_busy_cpu_s);
		m->has_bench_cpu = get_num(machine, "bench_cpu_s", &m->bench_cpu_s);
		if (get_num(machine, "daemon_cpus", &d) && d >= 1)
			m->daemon_cpus = (int)d;
	}
	window = get(root, "window");
	if (window) {
		if (!get_u64(window, "start_ns", &m->window_start_ns) ||
		    !get_u64(window, "end_ns", &m->window_end_ns))
			return fail(err, -EINVAL, path, "window lacks start_ns or end_ns");
		if (m->window_end_ns <= m->window_start_ns) {
			snprintf(why, sizeof(why),
				 "empty measurement window (start_ns %llu >= end_ns %llu)",
				 (unsigned long long)m->window_start_ns,
				 (unsigned long long)m->window_end_ns);
			return fail(err, -EINVAL, path, why);
		}
		m->has_window = true;
		v = get(window, "realtime_offset_ns");
		if (v && json_object_is_type(v, json_type_int)) {
			m->realtime_offset_ns = json_object_get_int64(v);
			m->has_realtime_offset = true;
		}
	}
	wall = get(root, "wallclock");
	if (wall) {
		/* Absent keys leave them 0 (corecap_manifest_init). */
		get_num(wall, "hz", &m->wall_hz);
		get_u64(wall, "rounds", &m->wall_rounds);
	}
	sources = get(root, "sources");
	if (sources) {
		m->src_trace = get_bool(sources, "trace");
		m->src_threads = get_bool(sources, "threads");
		m->src_stats = get_bool(sources, "stats");
		m->src_maps = get_bool(sources, "maps");
		m->src_kernel = get_bool(sources, "kernel");
	} else {
		m->src_trace = m->src_threads = m->src_stats = m->src_maps = true;
	}
	lttng = get(root, "lttng");
	if (lttng) {
		m->has_lttng_loss = get_u64(lttng, "discarded_events", &m->lttng_discarded_events);
		m->has_lttng_loss |= get_u64(lttng, "lost_packets", &m->lttng_lost_packets);
		v = get(lttng, "target_registered");
		m->has_target_registered = v && json_object_is_type(v, json_type_boolean);
		m->target_registered = m->has_target_registered && json_object_get_boolean(v);
	}
	v = get(root, "kernel_events");
	if (v && (v = get(v, "lost")))
		m->has_kernel_lost = get_u64(v, "total", &m->kernel_lost);
	m->benchmark = get(root, "benchmark");
	if (m->benchmark) {
		m->bench_command = get(m->benchmark, "command");
		if (get_num(m->benchmark, "exit_status", &d))
			m->bench_exit_status = (int)d;
		m->summary = get(m->benchmark, "summary");
		m->bench.has_iops = get_num(m->summary, "iops_avg", &m->bench.iops_avg);
		m->bench.has_lat = get_num(m->summary, "lat_avg_s", &m->bench.lat_avg_s);
		m->bench.has_ops = get_num(m->summary, "ops", &m->bench.ops);
		m->bench.has_time = get_num(m->summary, "total_time_s", &m->bench.total_time_s);
		m->bench.has_p99 = get_num(m->summary, "lat_p99_s", &m->bench.lat_p99_s);
	}
	return 0;
}
