#include "scale_build.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <corecap/diag.h>
#include <corecap/scale_format.h>
#include "../model/diagnosis.h"
#include "report_build.h"

#define SCALE_JSON_MAX (1 << 20)

static const char *str_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return "";
	return json_object_get_string(v);
}

static double num_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	return json_object_get_double(v);
}

static bool has_num(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) &&
	       (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
}

/* DIR/scale.json, never through a link, at most SCALE_JSON_MAX bytes; quiet: say nothing. */
static json_object *read_doc(const char *dir, bool quiet)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;
	json_object *doc = NULL;
	char *buf;
	ssize_t n = 0, r;

	if (dfd < 0) {
		if (!quiet)
			corecap_error("cannot open '%s': %s", dir, strerror(errno));
		return NULL;
	}
	fd = openat(dfd, "scale.json", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0) {
		if (!quiet)
			corecap_error("cannot open '%s/scale.json': %s%s", dir, strerror(errno),
			      errno == ENOENT ? " (not a scale directory)" : "");
		return NULL;
	}
	buf = malloc(SCALE_JSON_MAX + 1);
	while (buf && n < SCALE_JSON_MAX && (r = read(fd, buf + n, SCALE_JSON_MAX - n)) > 0)
		n += r;
	close(fd);
	if (!buf)
		return NULL;
	buf[n] = '\0';
	doc = json_tokener_parse(buf);
	free(buf);
	if (!doc || strcmp(str_of(doc, "format"), CORECAP_SCALE_POINTS_FORMAT) != 0) {
		if (!quiet)
			corecap_error("cannot read '%s/scale.json': not a scale directory's points",
				      dir);
		json_object_put(doc);
		return NULL;
	}
	return doc;
}

/* One point's figures from its run's report. */
static void measure(struct scale_view *v, size_t i, const char *dir)
{
	struct report_build b;
	struct run run;
	struct report r;
	char path[4400];
	const char *name = v->pt[i].run;
	int ret;

	v->pt[i].measured = false;
	if (strcmp(v->pt[i].status, "ok") != 0) {
		char status[sizeof(v->pt[i].status)];

		memcpy(status, v->pt[i].status, sizeof(status));
		if (strcmp(status, "prepare_failed") == 0)
			snprintf(v->pt[i].why_not, sizeof(v->pt[i].why_not),
				 "its prepare command failed (exit %d): not recorded",
				 v->pt[i].prepare_exit);
		else
			snprintf(v->pt[i].why_not, sizeof(v->pt[i].why_not), "its record %s",
				 status);
		return;
	}
	if (!name[0] || strchr(name, '/') || strcmp(name, "..") == 0 || strcmp(name, ".") == 0) {
		snprintf(v->pt[i].why_not, sizeof(v->pt[i].why_not), "no run named");
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(&b, 0, sizeof(b));
	memset(&run, 0, sizeof(run));
	ret = corecap_report_build_dir(&b, &run, path, NULL, NULL, &r);
	if (ret == 0 && r.projection && r.projection->valid) {
		const struct projection *p = r.projection;

		v->pt[i].measured = true;
		v->pt[i].iops = p->iops_measured;
		v->pt[i].iops_source = p->iops_source;
		v->pt[i].cpu_s_per_op = p->cpu_s_per_op;
		v->pt[i].daemon_cores = p->daemon_cores;
		v->pt[i].bench_cores = p->bench_cores;
		v->pt[i].other_cores = p->other_cores;
		v->pt[i].diag_running = -1;
		v->pt[i].wakes_per_op = v->pt[i].xwakes_per_op = -1;
		if (r.kernel && p->iops_measured > 0 && corecap_model_window_ns(r.model)) {
			double ops = p->iops_measured * (double)corecap_model_window_ns(r.model) / 1e9;

			v->pt[i].wakes_per_op = (double)r.kernel->wakes_daemon / ops;
			v->pt[i].xwakes_per_op = (double)r.kernel->wakes_cross_cpu / ops;
		}
		snprintf(v->pt[i].diag_kind, sizeof(v->pt[i].diag_kind), "none");
		if (r.diagnosis) {
			snprintf(v->pt[i].diag_kind, sizeof(v->pt[i].diag_kind), "%s",
				 corecap_diag_kind_name(r.diagnosis->kind));
			snprintf(v->pt[i].diag_name, sizeof(v->pt[i].diag_name), "%s",
				 r.diagnosis->name);
			v->pt[i].diag_running = r.diagnosis->running;
		}
	} else {
		snprintf(v->pt[i].why_not, sizeof(v->pt[i].why_not),
			 "its report has no figures%s%s", ret == 0 && r.projection ? ": " : "",
			 ret == 0 && r.projection && r.projection->why_not ? r.projection->why_not
									   : "");
	}
	corecap_report_build_release(&b);
	corecap_run_close(&run);
}

static void fill(struct scale_view *v, json_object *doc, const char *dir)
{
	json_object *pts, *bench;
	double cores[SCALE_VIEW_POINTS], x[SCALE_VIEW_POINTS];
	size_t k = 0;

	memset(v, 0, sizeof(*v));
	v->dir = dir;
	v->pid = (int)num_of(doc, "pid");
	v->machine_cpus = (int)num_of(doc, "machine_cpus");
	snprintf(v->comm, sizeof(v->comm), "%s", str_of(doc, "comm"));
	snprintf(v->daemon_cpus, sizeof(v->daemon_cpus), "%s", str_of(doc, "daemon_cpus"));
	snprintf(v->client_set, sizeof(v->client_set), "%s", str_of(doc, "client_cpus_set"));
	if (json_object_object_get_ex(doc, "benchmark", &bench) &&
	    json_object_is_type(bench, json_type_array))
		for (size_t i = 0; i < json_object_array_length(bench); i++) {
			size_t at = strlen(v->benchmark);

			snprintf(v->benchmark + at, sizeof(v->benchmark) - at, "%s%s", i ? " " : "",
				 json_object_get_string(json_object_array_get_idx(bench, i)));
		}
	snprintf(v->prepare, sizeof(v->prepare), "%s", str_of(doc, "prepare"));
	v->largest = v->smallest = -1;
	if (!json_object_object_get_ex(doc, "points", &pts) ||
	    !json_object_is_type(pts, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(pts) && v->n < SCALE_VIEW_POINTS; i++) {
		json_object *p = json_object_array_get_idx(pts, i), *tids;
		size_t n = v->n++;

		v->pt[n].cores = num_of(p, "cores");
		v->pt[n].quota_cpus = num_of(p, "quota_cpus");
		snprintf(v->pt[n].cpus, sizeof(v->pt[n].cpus), "%s", str_of(p, "cpus"));
		snprintf(v->pt[n].client_cpus, sizeof(v->pt[n].client_cpus), "%s",
			 str_of(p, "client_cpus"));
		snprintf(v->pt[n].run, sizeof(v->pt[n].run), "%s", str_of(p, "run"));
		snprintf(v->pt[n].status, sizeof(v->pt[n].status), "%s", str_of(p, "status"));
		v->pt[n].resets = (int)num_of(p, "affinity_resets");
		v->pt[n].prepare_exit =
			has_num(p, "prepare_exit") ? (int)num_of(p, "prepare_exit") : -1;
		v->pt[n].prepare_s = has_num(p, "prepare_s") ? num_of(p, "prepare_s") : -1;
		if (json_object_object_get_ex(p, "affinity_reset_tids", &tids) &&
		    json_object_is_type(tids, json_type_array))
			for (size_t t = 0; t < json_object_array_length(tids) && t < 8; t++)
				v->pt[n].reset_tids[v->pt[n].n_reset_tids++] =
					json_object_get_int(json_object_array_get_idx(tids, t));
		v->pt[n].client_shared = (int)num_of(p, "client_shares_cpus");
		measure(v, n, dir);
		if (!v->pt[n].measured)
			continue;
		cores[k] = v->pt[n].cores;
		x[k++] = v->pt[n].iops;
		if (v->largest < 0 || v->pt[n].cores > v->pt[v->largest].cores)
			v->largest = (int)n;
		if (v->smallest < 0 || v->pt[n].cores < v->pt[v->smallest].cores)
			v->smallest = (int)n;
	}
	scaling_fit_compute(&v->fit, cores, x, k);
}

int corecap_scale_build(struct scale_view *v, const char *dir)
{
	json_object *doc = read_doc(dir, false);

	if (!doc)
		return -EINVAL;
	fill(v, doc, dir);
	json_object_put(doc);
	return 0;
}

/*
 * The scale.json of RUN's parent when it names RUN's last component as a
 * point's run, the parent into out; NULL (quietly: a run outside a scale
 * directory is the usual case) otherwise.
 */
static json_object *doc_of_run(const char *run, char *out, size_t size)
{
	char path[4096], base[256], *slash;
	json_object *doc, *pts;
	bool found = false;

	/* RUN without its trailing slashes, split at its last one. */
	if (snprintf(path, sizeof(path), "%s", run) >= (int)sizeof(path))
		return NULL;
	for (size_t n = strlen(path); n > 1 && path[n - 1] == '/'; n--)
		path[n - 1] = '\0';
	slash = strrchr(path, '/');
	if (snprintf(base, sizeof(base), "%s", slash ? slash + 1 : path) >= (int)sizeof(base) ||
	    !base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return NULL;
	if (slash == path)
		snprintf(out, size, "/");
	else if (slash) {
		*slash = '\0';
		if (snprintf(out, size, "%s", path) >= (int)size)
			return NULL;
	} else if (snprintf(out, size, ".") >= (int)size)
		return NULL;
	doc = read_doc(out, true);
	if (doc && json_object_object_get_ex(doc, "points", &pts) &&
	    json_object_is_type(pts, json_type_array))
		for (size_t i = 0; i < json_object_array_length(pts) && !found; i++)
			found = strcmp(str_of(json_object_array_get_idx(pts, i), "run"), base) == 0;
	if (!found) {
		json_object_put(doc);
		return NULL;
	}
	return doc;
}

int corecap_scale_for_run(struct scale_view **v, const char *run, const char *dir)
{
	char path[sizeof((*v)->path)];
	struct scale_view *sv;
	json_object *doc;

	*v = NULL;
	if (dir) {
		snprintf(path, sizeof(path), "%s", dir);
		if (!(doc = read_doc(path, false)))
			return -EINVAL;
	} else if (!(doc = doc_of_run(run, path, sizeof(path)))) {
		return 0;
	}
	sv = malloc(sizeof(*sv));
	if (!sv) {
		json_object_put(doc);
		return -ENOMEM;
	}
	/* scale.json read once: fill builds the points' reports from it. */
	fill(sv, doc, path);
	json_object_put(doc);
	memcpy(sv->path, path, sizeof(path));
	sv->dir = sv->path;
	*v = sv;
	return 0;
}
