#include "render_diagnosis.h"
#include "html_escape.h"
#include "render_common.h"
#include "render_projection.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

static json_object *num(double v, int decimals)
{
	return corecap_render_json_num(v, decimals);
}

static json_object *str(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

void corecap_diagnosis_headroom_words(const struct diagnosis *d, char *out, size_t size)
{
	if (d->headroom > 0 && d->iops > 0)
		snprintf(out, size, "%.2fx (to %.0f ops/s)", d->headroom, d->headroom * d->iops);
	else
		snprintf(out, size, "unknown");
}

static void next_words(const struct diagnosis *d, char *out, size_t size)
{
	if (d->next.kind == DIAG_NONE && !d->next.name[0])
		snprintf(out, size, "unknown");
	else
		snprintf(out, size, "%s%s%s at %.0f ops/s", corecap_diag_kind_name(d->next.kind),
			 d->next.name[0] ? " " : "", d->next.name, d->next.iops);
}

void corecap_render_diagnosis_text(const struct diagnosis *d, FILE *out)
{
	char buf[CORECAP_LOCK_LABEL_MAX + 64];

	if (!d)
		return;
	fprintf(out, "DIAGNOSIS  %s: %s\n", corecap_diag_kind_name(d->kind),
		d->headline ? d->headline : "?");
	for (size_t i = 0; i < d->n_evidence; i++)
		fprintf(out, "  %-14s %s  (%s)\n", d->evidence[i].term, d->evidence[i].value,
			d->evidence[i].meaning);
	corecap_diagnosis_headroom_words(d, buf, sizeof(buf));
	fprintf(out,
		"  %-14s %s  (throughput can grow this much before it binds: the "
		"projection at this machine's cores)\n",
		"headroom", buf);
	next_words(d, buf, sizeof(buf));
	fprintf(out, "  %-14s %s\n", "then", buf);
	fprintf(out, "  %-14s %s\n", "action", d->action ? d->action : "?");
	if (d->verify_command)
		fprintf(out, "  %-14s %s\n", "verify", d->verify_command);
	for (size_t i = 0; i < d->n_missing; i++)
		fprintf(out, "  %-14s %s\n", i ? "" : "not measured", d->missing[i]);
	fprintf(out, "\n");
}

void corecap_diagnosis_candidate_shares(const struct ceiling_candidate *c,
					const struct projection *p, uint64_t window_ns, double *run,
					double *wait_cpu)
{
	*run = c->utilization;
	*wait_cpu = -1;
	if (c->kind == CEIL_THREAD) {
		double r = corecap_thread_cpu_util(c->ref, window_ns);

		*wait_cpu = corecap_thread_busy_util(c->ref, window_ns) - r;
		*run = r;
	} else if (c->kind == CEIL_POOL) {
		const struct model_pool *pl = c->ref;

		*run = pl->cpu_util;
		*wait_cpu = pl->busy_util - pl->cpu_util;
	} else if (c->kind == CEIL_LOCK && window_ns) {
		*run = (double)corecap_lock_hold_ns(c->ref) / (double)window_ns;
		/* The diagnosis' figure (held, with its hand-offs) where the projection has it. */
		for (size_t i = 0; p && p->valid && i < p->n_res; i++)
			if (p->res[i].kind == CEIL_LOCK && p->res[i].iops > 0 &&
			    strcmp(p->res[i].name, c->name) == 0)
				*run = p->iops_measured / p->res[i].iops;
	}
}

static int cmp_share(const void *a, const void *b)
{
	const double *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] > y[0] ? -1 : 1;
	return x[2] < y[2] ? -1 : x[2] > y[2];
}

size_t corecap_diagnosis_candidates_order(const struct ceiling *c, const struct projection *p,
					  uint64_t window_ns, size_t order[CEILING_CANDIDATES])
{
	double v[CEILING_CANDIDATES][3];
	size_t n = c ? c->n_running : 0;

	for (size_t i = 0; i < n; i++) {
		corecap_diagnosis_candidate_shares(&c->running[i], p, window_ns, &v[i][0],
						   &v[i][1]);
		v[i][2] = (double)i;
	}
	qsort(v, n, sizeof(v[0]), cmp_share);
	for (size_t i = 0; i < n; i++)
		order[i] = (size_t)v[i][2];
	return n;
}

void corecap_render_diagnosis_detail_text(const struct ceiling *c, const struct projection *p,
					  uint64_t window_ns, FILE *out)
{
	size_t order[CEILING_CANDIDATES],
		n = corecap_diagnosis_candidates_order(c, p, window_ns, order);
	double run, wait;

	if (n) {
		fprintf(out,
			"CANDIDATES (detail for the diagnosis, most run first: run%% is the share "
			"of its time a thread or pool ran on a CPU, and of the window a lock "
			"was held, with its hand-offs; wait-cpu%% the share a thread or pool "
			"was runnable with no CPU free)\n");
		fprintf(out, "  %-7s %-48s %6s %9s\n", "", "", "run%", "wait-cpu%");
		for (size_t i = 0; i < n; i++) {
			const struct ceiling_candidate *cd = &c->running[order[i]];

			corecap_diagnosis_candidate_shares(cd, p, window_ns, &run, &wait);
			fprintf(out, "  %-7s %-48s %6.1f", corecap_ceiling_kind_name(cd->kind),
				cd->name, 100.0 * run);
			if (wait >= 0)
				fprintf(out, " %9.1f\n", 100.0 * wait);
			else
				fprintf(out, " %9s\n", "-");
		}
		fprintf(out, "\n");
	}
	corecap_render_projection_text(p, out);
}

json_object *corecap_render_diagnosis_json(const struct diagnosis *d)
{
	json_object *o = json_object_new_object(), *ev = json_object_new_array(),
		    *util = json_object_new_object(), *next = json_object_new_object(),
		    *miss = json_object_new_array(), *cores = json_object_new_object();

	put(o, "kind", str(corecap_diag_kind_name(d->kind)));
	put(o, "name", d->name[0] ? str(d->name) : NULL);
	put(o, "site", d->site[0] ? str(d->site) : NULL);
	put(o, "headline", str(d->headline));
	for (size_t i = 0; i < d->n_evidence; i++) {
		json_object *e = json_object_new_object();

		put(e, "term", str(d->evidence[i].term));
		put(e, "value", str(d->evidence[i].value));
		put(e, "meaning", str(d->evidence[i].meaning));
		json_object_array_add(ev, e);
	}
	put(o, "evidence", ev);
	put(util, "running", d->running >= 0 ? num(d->running, 4) : NULL);
	put(util, "waiting", d->waiting >= 0 ? num(d->waiting, 4) : NULL);
	put(o, "utilization", util);
	put(o, "iops", d->iops > 0 ? num(d->iops, 1) : NULL);
	put(o, "headroom", d->headroom > 0 ? num(d->headroom, 3) : NULL);
	put(o, "headroom_iops",
	    d->headroom > 0 && d->iops > 0 ? num(d->headroom * d->iops, 1) : NULL);
	if (d->next.kind != DIAG_NONE || d->next.name[0]) {
		put(next, "kind", str(corecap_diag_kind_name(d->next.kind)));
		put(next, "name", d->next.name[0] ? str(d->next.name) : NULL);
		put(next, "ops_per_s", num(d->next.iops, 1));
	}
	put(o, "next", next);
	put(o, "action", str(d->action));
	put(o, "verify_command", str(d->verify_command));
	put(cores, "allowed", d->cpus_allowed > 0 ? json_object_new_int(d->cpus_allowed) : NULL);
	put(cores, "allowed_from_nproc", json_object_new_boolean(d->cpus_from_nproc));
	put(cores, "quota", d->cpu_quota > 0 ? num(d->cpu_quota, 3) : NULL);
	put(cores, "quota_cgroup",
	    d->cpu_quota > 0 ? json_object_new_string(d->quota_cgroup) : NULL);
	put(cores, "quota_file", d->quota_file ? json_object_new_string(d->quota_file) : NULL);
	put(cores, "quota_binds", json_object_new_boolean(d->quota_binds));
	put(cores, "machine", d->machine_cpus > 0 ? json_object_new_int(d->machine_cpus) : NULL);
	put(cores, "saturated", json_object_new_boolean(d->cores_saturated));
	put(cores, "runnable", d->runnable >= 0 ? num(d->runnable, 3) : NULL);
	put(cores, "daemon_running", d->iops > 0 ? num(d->daemon_running, 3) : NULL);
	put(cores, "daemon_waiting", d->daemon_waiting >= 0 ? num(d->daemon_waiting, 3) : NULL);
	put(cores, "bench", d->bench_cores >= 0 ? num(d->bench_cores, 3) : NULL);
	put(cores, "others", d->other_cores >= 0 ? num(d->other_cores, 3) : NULL);
	put(cores, "stolen", d->stolen_cores >= 0 ? num(d->stolen_cores, 3) : NULL);
	put(cores, "profiler", d->profiler_cores >= 0 ? num(d->profiler_cores, 3) : NULL);
	put(o, "cores", cores);
	for (size_t i = 0; i < d->n_missing; i++)
		json_object_array_add(miss, str(d->missing[i]));
	put(o, "missing_evidence", miss);
	return o;
}

static void esc(FILE *out, const char *s)
{
	corecap_html_escape(out, s ? s : "", 0);
}

/* The cores printed: 1, this machine's, and 2x, 4x of it (at most 64). */
static bool shown(int n, int here)
{
	return n == 1 || n == here || n == 2 * here || n == 4 * here;
}

void corecap_render_diagnosis_html(const struct diagnosis *d, const struct projection *p, FILE *out)
{
	char buf[CORECAP_LOCK_LABEL_MAX + 64];

	if (!d)
		return;
	fprintf(out, "<div class=\"verdict\" id=\"diagnosis\"><p><b>Diagnosis (%s):</b> ",
		corecap_diag_kind_name(d->kind));
	esc(out, d->headline);
	fprintf(out, "</p>\n<table>\n");
	for (size_t i = 0; i < d->n_evidence; i++) {
		fprintf(out, "<tr><td>");
		esc(out, d->evidence[i].term);
		fprintf(out, "</td><td>");
		esc(out, d->evidence[i].value);
		fprintf(out, "</td><td>");
		esc(out, d->evidence[i].meaning);
		fprintf(out, "</td></tr>\n");
	}
	corecap_diagnosis_headroom_words(d, buf, sizeof(buf));
	fprintf(out, "<tr><td>headroom</td><td id=\"headroom\">");
	esc(out, buf);
	fprintf(out, "</td><td>throughput can grow this much before it binds: the projection at "
		     "this machine's cores</td></tr>\n<tr><td>then</td><td>");
	next_words(d, buf, sizeof(buf));
	esc(out, buf);
	fprintf(out, "</td><td>the next limit</td></tr>\n<tr><td>action</td><td colspan=\"2\">");
	esc(out, d->action);
	fprintf(out, "</td></tr>\n");
	if (d->verify_command) {
		fprintf(out, "<tr><td>verify</td><td colspan=\"2\"><code>");
		esc(out, d->verify_command);
		fprintf(out, "</code></td></tr>\n");
	}
	for (size_t i = 0; i < d->n_missing; i++) {
		fprintf(out, "<tr><td>%s</td><td colspan=\"2\">", i ? "" : "not measured");
		esc(out, d->missing[i]);
		fprintf(out, "</td></tr>\n");
	}
	fprintf(out, "</table>\n");
	if (p && p->valid) {
		fprintf(out,
			"<table class=\"projection\">\n<tr><th>cores</th><th>ops/s</th><th>bound "
			"by</th></tr>\n");
		for (int n = 1; n <= PROJECTION_MAX_CORES; n++) {
			if (!shown(n, p->cores_here))
				continue;
			fprintf(out, "<tr><td>%d%s</td><td>%.0f</td><td>", n,
				n == p->cores_here ? " (this machine)" : "", p->at[n - 1].iops);
			esc(out, p->at[n - 1].bound_by);
			fprintf(out, "</td></tr>\n");
		}
		fprintf(out, "</table>\n");
	}
	fprintf(out, "</div>\n");
}
