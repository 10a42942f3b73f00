/* The stacks of a run of several hosts under a root frame per host (hosts_flame.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/diag.h>

#include "hosts_flame.h"

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
	h->j = calloc(h->m.n_hosts, sizeof(*h->j));
	h->has = calloc(h->m.n_hosts, sizeof(*h->has));
	if (!h->j || !h->has) {
		corecap_error("cannot read '%s': %s", run, strerror(ENOMEM));
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->m.n_hosts; i++) {
		struct flame_job *j = &h->j[i];

		if (!h->m.hosts[i].dir) {
			corecap_warn("host '%s' is left out: it sent no run (%s)",
				     h->m.hosts[i].name, h->m.hosts[i].status);
			continue;
		}
		if (corecap_flame_job_init(j, h->m.hosts[i].dir, symfs, NULL, NULL))
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
			h->used += h->has[i] = h->m.hosts[i].dir &&
					       corecap_flame_job_has(&h->j[i], (enum flame_kind)k);
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

		if (!h->m.hosts[i].dir)
			continue;
		if (!h->has[i]) {
			corecap_note("%s%shost '%s' is left out: its run has no %s stacks",
				     h->label ? h->label : "", h->label ? ": " : "",
				     h->m.hosts[i].name, corecap_flame_kind_name(fs->kind));
			continue;
		}
		fs->root = h->m.hosts[i].name;
		ret = corecap_flame_job_build(&h->j[i], fs, column);
		fs->root = NULL;
		corecap_note("%s%shost '%s': %llu %s", h->label ? h->label : "",
			     h->label ? ": " : "", h->m.hosts[i].name,
			     (unsigned long long)(fs->weight - before),
			     corecap_flame_kind_unit(fs->kind));
		h->profiler_samples += h->j[i].profiler_samples;
		if (!ret && h->j[i].subtitle[0]) {
			size_t len = strlen(h->subtitle);

			snprintf(h->subtitle + len, sizeof(h->subtitle) - len, "%s%s: %s",
				 len ? "; " : "", h->m.hosts[i].name, h->j[i].subtitle);
		}
	}
	return ret;
}

void corecap_hosts_flame_close(struct hosts_flame *h)
{
	for (size_t i = 0; i < h->n_init; i++)
		if (h->m.hosts[i].dir)
			corecap_flame_job_release(&h->j[i]);
	free(h->j);
	free(h->has);
	corecap_hosts_run_close(&h->m);
	memset(h, 0, sizeof(*h));
}
