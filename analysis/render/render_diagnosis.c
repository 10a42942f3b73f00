#include "render_diagnosis.h"
#include "html_escape.h"
#include "render_common.h"
#include "render_projection.h"

#include <stdio.h>

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
	char buf[256];

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

void corecap_render_diagnosis_detail_text(const struct ceiling *c, const struct projection *p,
					  FILE *out)
{
	if (c && c->n_top) {
		fprintf(out, "CANDIDATES (detail for the diagnosis: each resource's busy share of "
			     "the window, running plus waiting for a CPU; a lock's: held or handed "
			     "over)\n");
		for (size_t i = 0; i < c->n_top; i++)
			fprintf(out, "  %-7s %-48s %6.1f%%\n",
				corecap_ceiling_kind_name(c->top[i].kind), c->top[i].name,
				100.0 * c->top[i].utilization);
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
	char buf[256];

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
