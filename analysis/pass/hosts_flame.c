/* The stacks of a run of several hosts under a root frame per host (hosts_flame.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/diag.h>

#include "hosts_flame.h"
#include "read/multi_run.h"

/* Adds a unit of root frame root (NAME or NAME:PID) and run dir; 0 or -ENOMEM. */
static int add_unit(struct hosts_flame *h, const char *root, const char *dir)
{
	struct hosts_flame_unit *u = &h->u[h->n_units];

	snprintf(u->root, sizeof(u->root), "%s", root);
	u->dir = strdup(dir);
	if (!u->dir)
		return -ENOMEM;
	h->n_units++;
	return 0;
}

/* Host i's units: its run, or each daemon's of a host of several daemons. */
static int host_units(struct hosts_flame *h, size_t i)
{
	const struct hosts_host *hh = &h->m.hosts[i];
	struct multi_run mr;
	char *err = NULL, root[sizeof(h->u->root)];
	int ret;

	if (!corecap_multi_run_is(hh->dir))
		return add_unit(h, hh->name, hh->dir);
	ret = corecap_multi_run_open(&mr, hh->dir, &err);
	if (ret)
		corecap_error("%s", err ? err : strerror(-ret));
	for (size_t k = 0; !ret && k < mr.n_daemons; k++) {
		struct hosts_flame_unit *grown;

		if (strcmp(mr.daemons[k].status, "missing") == 0) {
			corecap_warn("host '%s', PID %d is left out: no run of it was written",
				     hh->name, mr.daemons[k].pid);
			continue;
		}
		grown = realloc(h->u, (h->n_units + 1 + h->m.n_hosts) * sizeof(*h->u));
		if (!grown) {
			ret = -ENOMEM;
			break;
		}
		h->u = grown;
		snprintf(root, sizeof(root), "%s:%d", hh->name, mr.daemons[k].pid);
		ret = add_unit(h, root, mr.daemons[k].dir);
	}
	free(err);
	corecap_multi_run_close(&mr);
	return ret;
}

int corecap_hosts_flame_open(struct hosts_flame *h, const char *run, const char *symfs,
			     const struct flame_job *tmpl)
{
	char *err = NULL;
	int ret;

	memset(h, 0, sizeof(*h));
	ret = corecap_hosts_run_open(&h->m, run, &err);
	if (ret) {
		corecap_error("%s", err ? err : strerror(-ret));
		free(err);
		return ret;
	}
	h->u = calloc(h->m.n_hosts, sizeof(*h->u));
	if (!h->u) {
		corecap_error("cannot read '%s': %s", run, strerror(ENOMEM));
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->m.n_hosts; i++) {
		if (!h->m.hosts[i].dir) {
			corecap_warn("host '%s' is left out: it sent no run (%s)",
				     h->m.hosts[i].name, h->m.hosts[i].status);
			continue;
		}
		ret = host_units(h, i);
		if (ret) {
			corecap_error("cannot read '%s': %s", run, strerror(-ret));
			return ret;
		}
	}
	h->j = calloc(h->n_units ? h->n_units : 1, sizeof(*h->j));
	h->has = calloc(h->n_units ? h->n_units : 1, sizeof(*h->has));
	if (!h->j || !h->has) {
		corecap_error("cannot read '%s': %s", run, strerror(ENOMEM));
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->n_units; i++) {
		struct flame_job *j = &h->j[i];

		if (corecap_flame_job_init(j, h->u[i].dir, symfs, NULL, NULL))
			return -EINVAL; /* said */
		h->n_init = i + 1;
		j->by_pool = tmpl->by_pool;
		j->merge_lock_instances = tmpl->merge_lock_instances;
		j->quiet = tmpl->quiet;
		j->keep_shim_frames = tmpl->keep_shim_frames;
		j->keep_profiler = tmpl->keep_profiler;
		j->no_idle = tmpl->no_idle;
		j->names_pprof = tmpl->names_pprof;
	}
	return 0;
}

int corecap_hosts_flame_kind(struct hosts_flame *h, enum flame_kind *kind, bool given)
{
	h->used = 0;
	for (int k = given ? (int)*kind : 0; k < FLAME__COUNT && !h->used; k++) {
		for (size_t i = 0; i < h->n_init; i++)
			h->used += h->has[i] = corecap_flame_job_has(&h->j[i], (enum flame_kind)k);
		if (h->used || given)
			*kind = (enum flame_kind)k;
		if (given)
			break;
	}
	return h->used ? 0 : -ENOENT;
}

int corecap_hosts_flame_build(struct hosts_flame *h, struct flame_stacks *fs, int column)
{
	int ret = 0;

	h->profiler_samples = 0;
	h->subtitle[0] = '\0';
	for (size_t i = 0; i < h->n_init && !ret; i++) {
		uint64_t before = fs->weight;

		if (!h->has[i]) {
			corecap_note("%s%shost '%s' is left out: its run has no %s stacks",
				     h->label ? h->label : "", h->label ? ": " : "", h->u[i].root,
				     corecap_flame_kind_name(fs->kind));
			continue;
		}
		fs->root = h->u[i].root;
		ret = corecap_flame_job_build(&h->j[i], fs, column);
		fs->root = NULL;
		corecap_note("%s%shost '%s': %llu %s", h->label ? h->label : "",
			     h->label ? ": " : "", h->u[i].root,
			     (unsigned long long)(fs->weight - before),
			     corecap_flame_kind_unit(fs->kind));
		h->profiler_samples += h->j[i].profiler_samples;
		if (!ret && h->j[i].subtitle[0]) {
			size_t len = strlen(h->subtitle);

			snprintf(h->subtitle + len, sizeof(h->subtitle) - len, "%s%s: %s",
				 len ? "; " : "", h->u[i].root, h->j[i].subtitle);
		}
	}
	return ret;
}

void corecap_hosts_flame_close(struct hosts_flame *h)
{
	for (size_t i = 0; i < h->n_init; i++)
		corecap_flame_job_release(&h->j[i]);
	for (size_t i = 0; i < h->n_units; i++)
		free(h->u[i].dir);
	free(h->u);
	free(h->j);
	free(h->has);
	corecap_hosts_run_close(&h->m);
	memset(h, 0, sizeof(*h));
}
