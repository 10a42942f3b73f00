#include "multi_run.h"
#include "hosts_run.h"
#include "run_file.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <corecap/diag.h>
#include <corecap/manifest_keys.h>
#include <corecap/run_format.h>

static char *manifest_path(const char *dir)
{
	char *p = NULL;

	if (asprintf(&p, "%s/" CORECAP_RUN_MANIFEST, dir) < 0)
		return NULL;
	return p;
}

/* Whether dir's own manifest says version 3. */
static bool version_is_multi(const char *dir)
{
	char *path = manifest_path(dir);
	json_object *root = NULL, *v;
	char *why = NULL;
	bool yes = false;
	int ret;

	if (!path)
		return false;
	/* Through run_file: a FIFO or a device in its place must not block
	 * (the single-daemon reader then says what is wrong with it). */
	ret = corecap_run_file_json(path, &root, &why);
	free(path);
	free(why);
	if (ret)
		return false;
	v = json_object_is_type(root, json_type_object)
		    ? json_object_object_get(root, corecap_mk(CORECAP_MK_VERSION))
		    : NULL;
	yes = v && json_object_is_type(v, json_type_int) &&
	      json_object_get_int(v) == CORECAP_RUN_VERSION_MULTI;
	json_object_put(root);
	return yes;
}

/* RUN:HOST of a run of several hosts: RUN/hosts/HOST, malloc'd; NULL otherwise (nothing said). */
static char *host_run(const char *dir)
{
	char *err = NULL, *sub = corecap_hosts_run_resolve(dir, &err);

	free(err);
	return sub;
}

bool corecap_multi_run_is(const char *dir)
{
	char *sub;
	bool yes = version_is_multi(dir);

	if (!yes && (sub = host_run(dir))) {
		yes = version_is_multi(sub);
		free(sub);
	}
	return yes;
}

int corecap_multi_run_open(struct multi_run *m, const char *dir, char **err)
{
	/* RUN:HOST: a host of several daemons' run (its directory, owned). */
	char *sub = version_is_multi(dir) ? NULL : host_run(dir);
	char *path = manifest_path(sub ? sub : dir);
	int ret;

	if (!path) {
		*m = (struct multi_run){.dir = dir};
		*err = NULL;
		corecap_manifest_init(&m->manifest);
		free(sub);
		return -ENOMEM;
	}
	ret = corecap_multi_run_open_manifest(m, sub ? sub : dir, path, err);
	m->owned_dir = sub;
	free(path);
	return ret;
}

int corecap_multi_run_open_manifest(struct multi_run *m, const char *dir, const char *path,
				    char **err)
{
	json_object *a;
	int ret;

	*m = (struct multi_run){.dir = dir};
	*err = NULL;
	corecap_manifest_init(&m->manifest);
	m->manifest.accept_multi = true;
	corecap_run_file_add_root(dir); /* a link out of the run is refused (read/run_file.h) */
	ret = corecap_manifest_load(&m->manifest, path, err);
	if (ret)
		return ret;
	a = json_object_object_get(m->manifest.root, corecap_mk(CORECAP_MK_DAEMONS));
	if (!a || !json_object_is_type(a, json_type_array) || !json_object_array_length(a))
		return corecap_err(err, -EINVAL, "'%s': a run of several daemons without 'daemons'",
				   path);
	m->daemons = calloc(json_object_array_length(a), sizeof(*m->daemons));
	if (!m->daemons)
		return -ENOMEM;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i), *v;
		struct multi_daemon *d = &m->daemons[m->n_daemons];
		int pid;

		v = o && json_object_is_type(o, json_type_object)
			    ? json_object_object_get(o, corecap_mk(CORECAP_MK_DAEMONS_PID))
			    : NULL;
		pid = v && json_object_is_type(v, json_type_int) ? json_object_get_int(v) : 0;
		if (pid <= 0)
			return corecap_err(err, -EINVAL, "'%s': daemons[%zu] has no pid", path, i);
		d->pid = pid;
		d->comm = corecap_manifest_member_str(o, CORECAP_MK_DAEMONS_COMM)
				  ? corecap_manifest_member_str(o, CORECAP_MK_DAEMONS_COMM)
				  : "?";
		d->status = corecap_manifest_member_str(o, CORECAP_MK_DAEMONS_STATUS)
				    ? corecap_manifest_member_str(o, CORECAP_MK_DAEMONS_STATUS)
				    : "partial";
		d->partial_reason =
			corecap_manifest_member_str(o, CORECAP_MK_DAEMONS_PARTIAL_REASON);
		v = json_object_object_get(o, corecap_mk(CORECAP_MK_DAEMONS_CEPH_OSD_ID));
		d->ceph_osd_id =
			v && json_object_is_type(v, json_type_int) ? json_object_get_int(v) : -1;
		/* The directory by the PID alone: a manifest cannot point outside the run. */
		if (asprintf(&d->dir, "%s/" CORECAP_RUN_DAEMONS_DIR "/%d", dir, pid) < 0) {
			d->dir = NULL;
			return -ENOMEM;
		}
		m->n_daemons++;
	}
	return 0;
}

void corecap_multi_run_close(struct multi_run *m)
{
	for (size_t i = 0; i < m->n_daemons; i++)
		free(m->daemons[i].dir);
	free(m->daemons);
	corecap_manifest_release(&m->manifest);
	free(m->owned_dir);
	*m = (struct multi_run){0};
}

const struct multi_daemon *corecap_multi_run_daemon(const struct multi_run *m, int pid)
{
	for (size_t i = 0; i < m->n_daemons; i++)
		if (m->daemons[i].pid == pid)
			return &m->daemons[i];
	return NULL;
}

/*
 * RUN:PID on a run of one daemon: RUN itself when PID is its daemon (as
 * the run's manifest says), so that one spelling works on every run; an
 * error when it names another process; NULL when RUN is no run.
 */
static char *one_daemon(const char *run, const char *name, long pid, char **err)
{
	char *path = manifest_path(run), *why = NULL, *out = NULL;
	json_object *root = NULL, *v = NULL;

	if (!path)
		return NULL;
	if (corecap_run_file_json(path, &root, &why) == 0) {
		if (json_object_is_type(root, json_type_object))
			v = json_object_object_get(root, corecap_mk(CORECAP_MK_PID));
		if (v && json_object_is_type(v, json_type_int) && json_object_get_int(v) == pid)
			out = strdup(run);
		else if (v && json_object_is_type(v, json_type_int))
			corecap_err(err, -ENOENT,
				    "'%s' is a run of one daemon, PID %d, not %ld: name it as "
				    "'%s' (or '%s:%d')",
				    name, json_object_get_int(v), pid, name, name,
				    json_object_get_int(v));
		json_object_put(root);
	}
	free(why);
	free(path);
	return out;
}

/* A PID as RUN:PID spells it: decimal digits only, no leading zero, at most 10, <= INT_MAX. */
static long strict_pid(const char *s)
{
	size_t n = strspn(s, "0123456789");
	long long v;

	if (!n || n > 10 || s[n] || s[0] == '0')
		return 0;
	v = strtoll(s, NULL, 10);
	return v <= INT_MAX ? (long)v : 0;
}

char *corecap_multi_run_resolve(const char *arg, char **err)
{
	const char *colon = strrchr(arg, ':');
	struct multi_run m;
	struct stat st;
	char *run, *host = NULL, *out = NULL;
	const char *base;
	long pid;

	*err = NULL;
	if (!colon || colon == arg || stat(arg, &st) == 0)
		return NULL;
	pid = strict_pid(colon + 1);
	run = strndup(arg, (size_t)(colon - arg));
	if (!run)
		return NULL;
	/* RUN:HOST:PID: the daemon of a host's run; a host RUN does not have is said. */
	host = corecap_hosts_run_resolve(run, err);
	if (*err || (!pid && host)) {
		if (!*err)
			corecap_err(err, -EINVAL,
				    "'%s': after host '%s', ':PID' takes a PID (decimal digits, at "
				    "most 10), not '%.40s'",
				    arg, strrchr(run, ':') + 1, colon + 1);
		free(host);
		free(run);
		return NULL;
	}
	if (!pid) {
		free(run);
		return NULL;
	}
	base = host ? host : run;
	if (!version_is_multi(base)) {
		out = one_daemon(base, run, pid, err);
		free(host);
		free(run);
		return out;
	}
	if (corecap_multi_run_open(&m, base, err) == 0) {
		const struct multi_daemon *d = corecap_multi_run_daemon(&m, (int)pid);

		if (d)
			out = strdup(d->dir);
		else
			corecap_err(err, -ENOENT,
				    "'%s' has no daemon of PID %ld (its daemons: see "
				    "corecap report %s)",
				    run, pid, run);
	}
	corecap_multi_run_close(&m);
	free(host);
	free(run);
	return out;
}
