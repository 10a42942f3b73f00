#include "hosts_run.h"
#include "run_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <corecap/diag.h>
#include <corecap/manifest_keys.h>
#include <corecap/run_format.h>

/* 1000 ppm: ten times a cheap crystal's tolerance. */
#define HOSTS_DRIFT_MAX 1e-3

/* A double to int64, saturated (a damaged manifest's times may be anything). */
static int64_t to_i64(double v)
{
	return v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : (int64_t)llround(v);
}

#define HOSTS_NAME_MAX CORECAP_HOSTS_NAME_MAX

static char *manifest_path(const char *dir)
{
	char *p = NULL;

	if (asprintf(&p, "%s/" CORECAP_RUN_MANIFEST, dir) < 0)
		return NULL;
	return p;
}

bool corecap_hosts_run_is(const char *dir)
{
	char *path = manifest_path(dir), *why = NULL;
	json_object *root = NULL, *v = NULL;
	bool yes;

	if (!path)
		return false;
	/* Through run_file: a FIFO in its place must not block. */
	if (corecap_run_file_json(path, &root, &why) == 0 &&
	    json_object_is_type(root, json_type_object))
		v = json_object_object_get(root, corecap_mk(CORECAP_MK_VERSION));
	yes = v && json_object_is_type(v, json_type_int) &&
	      json_object_get_int(v) == CORECAP_RUN_VERSION_HOSTS;
	json_object_put(root);
	free(why);
	free(path);
	return yes;
}

static bool num_of(json_object *o, enum corecap_manifest_key key, double *out)
{
	json_object *v = corecap_manifest_member(o, key);

	if (!v ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return false;
	*out = json_object_get_double(v);
	return *out == *out; /* not NaN */
}

/* A name the recorder could have made: it becomes a path under RUN/hosts/. */
static bool name_ok(const char *n)
{
	size_t len = n ? strlen(n) : 0;

	if (len == 0 || len > HOSTS_NAME_MAX || strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
		return false;
	for (const char *c = n; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' || *c == '.'))
			return false;
	return true;
}

static void clock_of(json_object *c, bool end, struct hosts_clock *out)
{
	json_object *e = corecap_manifest_member(c, end ? CORECAP_MK_HOSTS_CLOCK_END
							: CORECAP_MK_HOSTS_CLOCK_START);
	double off, bound, at;

	/* 1e15 ns: eleven days, past any offset two boots give and within a double's exact range.
	 */
	out->valid = num_of(e,
			    end ? CORECAP_MK_HOSTS_CLOCK_END_OFFSET_NS
				: CORECAP_MK_HOSTS_CLOCK_START_OFFSET_NS,
			    &off) &&
		     num_of(e,
			    end ? CORECAP_MK_HOSTS_CLOCK_END_BOUND_NS
				: CORECAP_MK_HOSTS_CLOCK_START_BOUND_NS,
			    &bound) &&
		     off > -1e18 && off < 1e18 && bound >= 0 && bound < 1e15;
	if (out->valid) {
		out->offset_ns = (int64_t)off;
		out->bound_ns = (uint64_t)bound;
		if (num_of(e,
			   end ? CORECAP_MK_HOSTS_CLOCK_END_AT_NS
			       : CORECAP_MK_HOSTS_CLOCK_START_AT_NS,
			   &at) &&
		    at > 0 && at < 1e18)
			out->at_ns = (uint64_t)at;
	}
}

int corecap_hosts_run_open(struct hosts_run *m, const char *dir, char **err)
{
	char *path = manifest_path(dir);
	int ret;

	if (!path) {
		*m = (struct hosts_run){.dir = dir};
		*err = NULL;
		corecap_manifest_init(&m->manifest);
		return -ENOMEM;
	}
	ret = corecap_hosts_run_open_manifest(m, dir, path, err);
	free(path);
	return ret;
}

int corecap_hosts_run_open_manifest(struct hosts_run *m, const char *dir, const char *path,
				    char **err)
{
	json_object *a;
	int ret;

	*m = (struct hosts_run){.dir = dir};
	*err = NULL;
	corecap_manifest_init(&m->manifest);
	m->manifest.accept_hosts = true;
	corecap_run_file_add_root(dir); /* a link out of the run is refused (read/run_file.h) */
	ret = corecap_manifest_load(&m->manifest, path, err);
	if (ret)
		return ret;
	a = corecap_manifest_member(m->manifest.root, CORECAP_MK_HOSTS);
	if (!a || !json_object_is_type(a, json_type_array) || !json_object_array_length(a))
		return corecap_err(err, -EINVAL, "'%s': a run of several hosts without 'hosts'",
				   path);
	m->hosts = calloc(json_object_array_length(a), sizeof(*m->hosts));
	if (!m->hosts)
		return -ENOMEM;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i), *c;
		struct hosts_host *h = &m->hosts[m->n_hosts];
		double pid = 0;

		h->name = corecap_manifest_member_str(o, CORECAP_MK_HOSTS_NAME);
		/* A NUL inside the JSON string would cut the name short of what it says. */
		if (!name_ok(h->name) || (size_t)json_object_get_string_len(corecap_manifest_member(
						 o, CORECAP_MK_HOSTS_NAME)) != strlen(h->name))
			return corecap_err(err, -EINVAL,
					   "'%s': hosts[%zu] has no name of letters, digits, '_', "
					   "'-' and '.' (at most %d)",
					   path, i, HOSTS_NAME_MAX);
		for (size_t j = 0; j < m->n_hosts; j++)
			if (strcmp(m->hosts[j].name, h->name) == 0)
				return corecap_err(err, -EINVAL, "'%s': host '%s' twice", path,
						   h->name);
		h->reach = corecap_manifest_member_str(o, CORECAP_MK_HOSTS_REACH)
				   ? corecap_manifest_member_str(o, CORECAP_MK_HOSTS_REACH)
				   : "?";
		h->comm = corecap_manifest_member_str(o, CORECAP_MK_HOSTS_COMM)
				  ? corecap_manifest_member_str(o, CORECAP_MK_HOSTS_COMM)
				  : "?";
		if (num_of(o, CORECAP_MK_HOSTS_PID, &pid) && pid >= 1 && pid <= 2147483647.0)
			h->pid = (int)pid;
		h->status = corecap_manifest_member_str(o, CORECAP_MK_HOSTS_STATUS)
				    ? corecap_manifest_member_str(o, CORECAP_MK_HOSTS_STATUS)
				    : "failed";
		h->partial_reason = corecap_manifest_member_str(o, CORECAP_MK_HOSTS_PARTIAL_REASON);
		c = corecap_manifest_member(o, CORECAP_MK_HOSTS_CLOCK);
		clock_of(c, false, &h->start);
		clock_of(c, true, &h->end);
		h->has_drift =
			num_of(c, CORECAP_MK_HOSTS_CLOCK_DRIFT_PPM, &h->drift_ppm) &&
			num_of(c, CORECAP_MK_HOSTS_CLOCK_DRIFT_BOUND_PPM, &h->drift_bound_ppm);
		/* The directory by the name alone, and only for a host that sent its
		 * run (it has 'dir'): a manifest cannot point outside the run. */
		if (corecap_manifest_member_str(o, CORECAP_MK_HOSTS_DIR) &&
		    asprintf(&h->dir, "%s/" CORECAP_RUN_HOSTS_DIR "/%s", dir, h->name) < 0) {
			h->dir = NULL;
			return -ENOMEM;
		}
		m->n_hosts++;
	}
	return 0;
}

void corecap_hosts_run_close(struct hosts_run *m)
{
	for (size_t i = 0; i < m->n_hosts; i++)
		free(m->hosts[i].dir);
	free(m->hosts);
	corecap_manifest_release(&m->manifest);
	*m = (struct hosts_run){0};
}

char *corecap_hosts_run_resolve(const char *arg, char **err)
{
	const char *colon = strrchr(arg, ':');
	struct hosts_run m;
	struct stat st;
	char *run, *out = NULL;
	size_t i;

	*err = NULL;
	if (!colon || colon == arg || !name_ok(colon + 1) || stat(arg, &st) == 0)
		return NULL;
	run = strndup(arg, (size_t)(colon - arg));
	if (!run)
		return NULL;
	if (!corecap_hosts_run_is(run)) {
		free(run);
		return NULL;
	}
	if (corecap_hosts_run_open(&m, run, err) == 0) {
		for (i = 0; i < m.n_hosts && strcmp(m.hosts[i].name, colon + 1) != 0; i++)
			;
		if (i == m.n_hosts)
			corecap_err(err, -ENOENT,
				    "'%s' has no host '%s' (its hosts: see corecap report %s)", run,
				    colon + 1, run);
		else if (!m.hosts[i].dir)
			corecap_err(err, -ENOENT, "host '%s' of '%s' sent no run (%s%s%s)",
				    colon + 1, run, m.hosts[i].status,
				    m.hosts[i].partial_reason ? ": " : "",
				    m.hosts[i].partial_reason ? m.hosts[i].partial_reason : "");
		else
			out = strdup(m.hosts[i].dir);
	}
	corecap_hosts_run_close(&m);
	free(run);
	return out;
}

void corecap_hosts_align_init(struct hosts_align *a, const struct hosts_host *h)
{
	const struct hosts_clock *s = &h->start, *e = &h->end;

	*a = (struct hosts_align){0};
	if (!s->valid && !e->valid)
		return;
	if (!s->valid)
		s = e; /* the one estimate there is */
	a->valid = true;
	a->offset_ns = s->offset_ns;
	a->at_ns = a->from_ns = a->to_ns = s->at_ns;
	a->bound_ns = s->bound_ns;
	if (s == e || !e->valid)
		return;
	if (e->bound_ns > a->bound_ns)
		a->bound_ns = e->bound_ns;
	/*
	 * The drift needs both estimates' times, the later after the earlier;
	 * one past HOSTS_DRIFT_MAX is no clock's (a damaged manifest): none.
	 */
	if (s->at_ns && e->at_ns > s->at_ns) {
		double span = (double)(e->at_ns - s->at_ns);
		double d = ((double)e->offset_ns - (double)s->offset_ns) / span;

		if (fabs(d) > HOSTS_DRIFT_MAX)
			return;
		a->has_drift = true;
		a->to_ns = e->at_ns;
		a->drift = d;
		a->drift_bound = (double)(s->bound_ns + e->bound_ns) / span;
	}
}

/*
 * The offset at the recording host's r is offset + drift (r - at); the
 * host's time t = r + that, so r = at + (t - offset - at) / (1 + drift).
 * The differences are taken in integers first: a double holds them
 * exactly. Sums wrap as unsigned: a damaged manifest's must not overflow.
 */
int64_t corecap_hosts_align_to_rec(const struct hosts_align *a, uint64_t t)
{
	int64_t x = (int64_t)(t - (uint64_t)a->offset_ns - a->at_ns);

	return (int64_t)(a->at_ns + (uint64_t)to_i64((double)x / (1 + a->drift)));
}

int64_t corecap_hosts_align_to_host(const struct hosts_align *a, int64_t t)
{
	int64_t x = (int64_t)((uint64_t)t - a->at_ns);

	return (int64_t)((uint64_t)t + (uint64_t)a->offset_ns +
			 (uint64_t)to_i64(a->drift * (double)x));
}

uint64_t corecap_hosts_align_bound(const struct hosts_align *a, int64_t t)
{
	double past = 0;

	if (a->has_drift && t < (int64_t)a->from_ns)
		past = (double)a->from_ns - (double)t;
	else if (a->has_drift && t > (int64_t)a->to_ns)
		past = (double)t - (double)a->to_ns;
	past = ceil(past * a->drift_bound);
	return a->bound_ns + (past < 1e18 ? (uint64_t)past : (uint64_t)1e18);
}
