#include "hosts_build.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/diag.h>

/* The system's verdict: the least headroom of the hosts' diagnoses (render/hosts_report.h). */
static void verdict(struct hosts_report *v)
{
	v->cap = v->next = -1;
	for (size_t i = 0; i < v->n; i++) {
		const struct diagnosis *d = v->s[i].r ? v->s[i].r->diagnosis : NULL;

		if (!v->s[i].r)
			continue;
		if (d && d->iops > 0)
			v->ops_per_s += d->iops;
		if (!d || !(d->headroom > 0)) {
			v->n_no_headroom++;
			continue;
		}
		if (v->cap < 0 || d->headroom < v->s[v->cap].r->diagnosis->headroom) {
			v->next = v->cap;
			v->cap = (int)i;
		} else if (v->next < 0 || d->headroom < v->s[v->next].r->diagnosis->headroom) {
			v->next = (int)i;
		}
	}
	if (v->cap < 0) {
		snprintf(v->verdict, sizeof(v->verdict),
			 v->n_analysed
				 ? "no host's diagnosis gives a headroom: see each host's below"
				 : "no host's run could be analysed");
		return;
	}
	snprintf(v->verdict, sizeof(v->verdict), "host %s's daemon binds first: %s",
		 v->s[v->cap].h->name, v->s[v->cap].r->diagnosis->headline);
}

int corecap_hosts_build(struct hosts_build *hb, const char *dir, const char *symfs,
			const struct report_opts *o, const struct hosts_report **out)
{
	struct hosts_report *v = &hb->view;
	char *err = NULL;
	size_t n;
	int ret;

	*hb = (struct hosts_build){0};
	ret = corecap_hosts_run_open(&hb->run, dir, &err);
	if (ret) {
		corecap_error("%s", err ? err : strerror(-ret));
		free(err);
		return ret;
	}
	n = hb->run.n_hosts;
	hb->runs = calloc(n, sizeof(*hb->runs));
	hb->b = calloc(n, sizeof(*hb->b));
	hb->r = calloc(n, sizeof(*hb->r));
	hb->s = calloc(n, sizeof(*hb->s));
	if (!hb->runs || !hb->b || !hb->r || !hb->s)
		return -ENOMEM;
	*v = (struct hosts_report){.run_dir = dir, .run = &hb->run, .s = hb->s, .n = n};
	if (hb->run.manifest.has_window)
		v->window_s = (double)(hb->run.manifest.window_end_ns -
				       hb->run.manifest.window_start_ns) /
			      1e9;
	for (size_t i = 0; i < n; i++) {
		struct hosts_section *s = &hb->s[i];

		s->h = &hb->run.hosts[i];
		if (!s->h->dir) {
			s->why_not = "it sent no run";
			continue;
		}
		ret = corecap_report_build_dir(&hb->b[i], &hb->runs[i], s->h->dir, symfs, o,
					       &hb->r[i]);
		if (ret) {
			s->why_not = ret == -ENODATA
					     ? "its window never started"
					     : "its run cannot be read (the error is above)";
			continue;
		}
		s->r = &hb->r[i];
		v->n_analysed++;
	}
	verdict(v);
	*out = v;
	return 0;
}

void corecap_hosts_build_release(struct hosts_build *hb)
{
	for (size_t i = 0; hb->b && i < hb->run.n_hosts; i++) {
		corecap_report_build_release(&hb->b[i]);
		corecap_run_close(&hb->runs[i]);
	}
	free(hb->b);
	free(hb->runs);
	free(hb->r);
	free(hb->s);
	corecap_hosts_run_close(&hb->run);
	*hb = (struct hosts_build){0};
}
