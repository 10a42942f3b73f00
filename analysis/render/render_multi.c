/*
 * The rendering of a run of several daemons (render/multi_report.h): the
 * merged view of the box first (its verdict, cores, pools across daemons),
 * then each daemon's own report exactly as `corecap report RUN/daemons/PID`
 * prints it. JSON: the same, with each daemon's report object nested. The
 * page: the same, each daemon's section led by the single page's CPU chart
 * (gap marks) and top table (html_report.h, html_views.h).
 */
#include "multi_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "html_escape.h"
#include "html_report.h"
#include "render_common.h"

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void daemon_label(const struct multi_daemon *d, char *buf, size_t len)
{
	if (d->ceph_osd_id >= 0)
		snprintf(buf, len, "%s (pid %d, osd.%d)", d->comm, d->pid, d->ceph_osd_id);
	else
		snprintf(buf, len, "%s (pid %d)", d->comm, d->pid);
}

static void header_text(const struct multi_report *m, FILE *out)
{
	const struct run_manifest *mf = &m->run->manifest;
	char label[128];

	fprintf(out, "corecap report: %s\n\n", m->run_dir);
	fprintf(out, "daemons    %zu in one window", m->n);
	if (m->nproc)
		fprintf(out, ", %d cores on the box", m->nproc);
	fprintf(out, "\n");
	for (size_t i = 0; i < m->n; i++) {
		daemon_label(m->s[i].d, label, sizeof(label));
		fprintf(out, "           %s: %s%s%s\n", label, m->s[i].d->status,
			m->s[i].d->partial_reason ? ", " : "",
			m->s[i].d->partial_reason ? m->s[i].d->partial_reason : "");
	}
	if (m->window_s > 0)
		fprintf(out, "window     %.3f s (recording window)\n", m->window_s);
	if (mf->partial)
		fprintf(out, "partial    %s\n",
			mf->partial_reason ? mf->partial_reason : "the recording did not complete");
	if (mf->bench_command) {
		corecap_render_bench_line(mf, out);
		if (mf->bench.has_iops)
			fprintf(out, "           %.0f IOPS for the box, %.0f per daemon\n",
				mf->bench.iops_avg, m->n ? mf->bench.iops_avg / (double)m->n : 0);
	}
	fprintf(out, "\n");
}

static void merged_text(const struct multi_report *m, FILE *out)
{
	bool waits = false;

	fprintf(out, "BOX        what caps the box: %s\n", m->verdict);
	for (size_t i = 0; i < m->n_evidence; i++)
		fprintf(out, "  - %s\n", m->evidence[i]);
	fprintf(out, "\n");
	fprintf(out, "cores      the daemons used %.2f", m->cores_used);
	if (m->nproc)
		fprintf(out, " of the box's %d", m->nproc);
	if (m->busy_cores >= 0)
		fprintf(out, "; the box: %.2f busy, %.2f idle", m->busy_cores, m->idle_cores);
	fprintf(out, "\n");
	if (m->busy_cores >= 0)
		fprintf(out, "           busy: daemons %.2f, benchmark %s%.2f, other %.2f\n",
			m->cores_used, m->bench_cores < 0 ? "~" : "",
			m->bench_cores < 0 ? 0 : m->bench_cores, m->other_cores);
	for (size_t i = 0; i < m->n; i++) {
		char label[128];

		daemon_label(m->s[i].d, label, sizeof(label));
		if (m->s[i].r)
			fprintf(out, "           %-32s %.2f cores, run-queue wait %.2f threads\n",
				label, m->s[i].cores_used, m->s[i].runq_threads);
		else
			fprintf(out, "           %-32s not analysed: %s\n", label, m->s[i].why_not);
	}
	fprintf(out, "\n");
	/* The single report's columns: run (on a CPU) and wait-cpu (runnable, no CPU free). */
	fprintf(out, "pools      %-22s %7s %7s %6s %8s %6s %6s %6s %6s %7s\n",
		"(merged, % of the time)", "daemons", "threads", "run", "wait-cpu", "lock", "cond",
		"io", "log", "cores");
	for (size_t i = 0; i < m->n_pools; i++) {
		const struct multi_pool *p = &m->pools[i];

		fprintf(out, "           %-22s %7zu %7zu", p->name, p->n_daemons, p->n_threads);
		if (!p->span_ns) {
			fprintf(out, "  (no " CORECAP_RUN_THREADS " samples)\n");
			continue;
		}
		fprintf(out, " %6.1f %8.1f", pct(p->cpu_ns, p->span_ns),
			pct(p->runq_ns, p->span_ns));
		if (p->waits)
			fprintf(out, " %6.1f %6.1f %6.1f %6.1f", pct(p->lock_wait_ns, p->span_ns),
				pct(p->cond_wait_ns, p->span_ns),
				pct(corecap_io_sum(p->io_ns), p->span_ns),
				pct(p->logging_ns, p->span_ns));
		else
			fprintf(out, " %6s %6s %6s %6s", "-", "-", "-", "-");
		waits |= p->waits;
		fprintf(out, " %7.2f\n",
			m->window_s > 0 ? (double)p->cpu_ns / 1e9 / m->window_s : 0.0);
	}
	if (!waits)
		fprintf(out, "           lock, cond, io, log: not measured (no trace)\n");
	fprintf(out, "\n");
}

int corecap_render_multi_text(const struct multi_report *m, FILE *out)
{
	int ret = 0;

	header_text(m, out);
	merged_text(m, out);
	for (size_t i = 0; i < m->n && !ret; i++) {
		char label[128];

		daemon_label(m->s[i].d, label, sizeof(label));
		fprintf(out, "======== daemon %zu of %zu: %s ========\n\n", i + 1, m->n, label);
		if (m->s[i].r)
			ret = corecap_render_text(m->s[i].r, out);
		else
			fprintf(out, "not analysed: %s\n\n", m->s[i].why_not);
	}
	if (!ret && ferror(out))
		ret = -EIO;
	return ret;
}

/* Writes what render(m) prints, HTML-escaped; 0 or a negative errno. */
static int escaped(FILE *out,
		   int (*render)(const struct multi_report *, const struct report *, FILE *),
		   const struct multi_report *m, const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int ret;

	if (!mem)
		return -errno;
	ret = render(m, r, mem);
	if (fclose(mem) && !ret)
		ret = -EIO;
	if (!ret)
		corecap_html_escape(out, buf, 0);
	free(buf);
	return ret;
}

static int merged_part(const struct multi_report *m, const struct report *r, FILE *out)
{
	(void)r;
	header_text(m, out);
	merged_text(m, out);
	return ferror(out) ? -EIO : 0;
}

static int daemon_part(const struct multi_report *m, const struct report *r, FILE *out)
{
	(void)m;
	return corecap_render_text(r, out);
}

int corecap_render_multi_html(const struct multi_report *m, const struct html_report *pages,
			      FILE *out)
{
	int ret;

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	      "<link rel=\"icon\" href=\"data:,\"><title>corecap: ",
	      out);
	corecap_html_escape(out, m->run_dir, 0);
	fputs("</title>\n", out);
	corecap_html_report_style(out); /* the single page's, for the same parts */
	fputs("</head>\n<body>\n<h1>corecap: ", out);
	corecap_html_escape(out, m->run_dir, 0);
	fprintf(out, " (%zu daemons)</h1>\n<h2>The box, merged</h2>\n<pre>", m->n);
	ret = escaped(out, merged_part, m, NULL);
	fputs("</pre>\n", out);
	for (size_t i = 0; i < m->n && !ret; i++) {
		const struct html_report *pg = pages && pages[i].report ? &pages[i] : NULL;
		char label[128], sfx[24];

		daemon_label(m->s[i].d, label, sizeof(label));
		/* The single page's chart (its gap marks) and top table, ids of this daemon. */
		snprintf(sfx, sizeof(sfx), "-%d", m->s[i].d->pid);
		fprintf(out, "<section id=\"cc-daemon%s\">\n<h2>", sfx);
		corecap_html_escape(out, label, 0);
		fputs("</h2>\n", out);
		if (pg) {
			corecap_html_cpu_chart(pg->series, sfx, out);
			ret = corecap_html_top_views(pg, sfx, false, out);
			if (ret)
				break;
		}
		fputs("<details><summary>Its report (text)</summary>\n", out);
		fprintf(out, "<p>Its own page: <code>corecap html ");
		corecap_html_escape(out, m->run_dir, 0);
		fprintf(out, ":%d</code></p>\n<pre>", m->s[i].d->pid);
		if (m->s[i].r)
			ret = escaped(out, daemon_part, m, m->s[i].r);
		else
			corecap_html_escape(out, m->s[i].why_not, 0);
		fputs("</pre></details>\n</section>\n", out);
	}
	fputs("</body></html>\n", out);
	if (!ret && ferror(out))
		ret = -EIO;
	return ret;
}

static json_object *num(double v, int decimals)
{
	return v < 0 ? NULL : corecap_render_json_num(v, decimals);
}

static json_object *merged_obj(const struct multi_report *m)
{
	json_object *o = json_object_new_object(), *box = json_object_new_object();
	json_object *cap = json_object_new_object(), *ev = json_object_new_array();
	json_object *per = json_object_new_array(), *pools = json_object_new_array();

	json_object_object_add(o, "daemons_analysed", json_object_new_int((int)m->n_analysed));
	json_object_object_add(o, "cores_used", num(m->cores_used, 3));
	json_object_object_add(o, "runq_threads", num(m->runq_threads, 3));
	for (size_t i = 0; i < m->n; i++) {
		json_object *d = json_object_new_object();

		json_object_object_add(d, "pid", json_object_new_int(m->s[i].d->pid));
		json_object_object_add(d, "cores_used",
				       m->s[i].r ? num(m->s[i].cores_used, 3) : NULL);
		json_object_array_add(per, d);
	}
	json_object_object_add(o, "cores_used_per_daemon", per);
	json_object_object_add(box, "nproc", m->nproc ? json_object_new_int(m->nproc) : NULL);
	json_object_object_add(box, "busy_cores", num(m->busy_cores, 3));
	json_object_object_add(box, "idle_cores", num(m->idle_cores, 3));
	json_object_object_add(box, "daemons_cores", num(m->cores_used, 3));
	json_object_object_add(box, "bench_cores", num(m->bench_cores, 3));
	json_object_object_add(box, "other_cores", num(m->other_cores, 3));
	json_object_object_add(o, "box", box);
	json_object_object_add(cap, "kind", json_object_new_string(m->cap_kind));
	json_object_object_add(cap, "name",
			       m->cap_name[0] ? json_object_new_string(m->cap_name) : NULL);
	json_object_object_add(cap, "pid", m->cap_pid ? json_object_new_int(m->cap_pid) : NULL);
	json_object_object_add(cap, "utilization", num(m->cap_utilization, 4));
	json_object_object_add(cap, "verdict", json_object_new_string(m->verdict));
	for (size_t i = 0; i < m->n_evidence; i++)
		json_object_array_add(ev, json_object_new_string(m->evidence[i]));
	json_object_object_add(cap, "evidence", ev);
	json_object_object_add(o, "cap", cap);
	for (size_t i = 0; i < m->n_pools; i++) {
		const struct multi_pool *p = &m->pools[i];
		json_object *x = json_object_new_object();

		json_object_object_add(x, "name", json_object_new_string(p->name));
		json_object_object_add(x, "daemons", json_object_new_int((int)p->n_daemons));
		json_object_object_add(x, "threads", json_object_new_int((int)p->n_threads));
		json_object_object_add(x, "span_ns", json_object_new_int64((int64_t)p->span_ns));
		json_object_object_add(x, "cpu_ns", json_object_new_int64((int64_t)p->cpu_ns));
		json_object_object_add(x, "runq_ns", json_object_new_int64((int64_t)p->runq_ns));
		json_object_object_add(x, "lock_wait_ns",
				       p->waits ? json_object_new_int64((int64_t)p->lock_wait_ns)
						: NULL);
		json_object_object_add(x, "cond_wait_ns",
				       p->waits ? json_object_new_int64((int64_t)p->cond_wait_ns)
						: NULL);
		json_object_object_add(
			x, "io_ns",
			p->waits ? json_object_new_int64((int64_t)corecap_io_sum(p->io_ns)) : NULL);
		json_object_object_add(x, "logging_ns",
				       p->waits ? json_object_new_int64((int64_t)p->logging_ns)
						: NULL);
		json_object_object_add(
			x, "cores",
			m->window_s > 0 ? num((double)p->cpu_ns / 1e9 / m->window_s, 3) : NULL);
		json_object_array_add(pools, x);
	}
	json_object_object_add(o, "pools", pools);
	return o;
}

json_object *corecap_render_multi_json_object(const struct multi_report *m, int *ret)
{
	json_object *root = corecap_render_json_runs_head("corecap-report-multi", m->run_dir,
							  &m->run->manifest, m->window_s);
	json_object *a = json_object_new_array();

	json_object_object_add(root, "merged", merged_obj(m));
	for (size_t i = 0; i < m->n && !*ret; i++) {
		const struct multi_daemon *d = m->s[i].d;
		json_object *o = json_object_new_object();

		json_object_object_add(o, "pid", json_object_new_int(d->pid));
		json_object_object_add(o, "comm", json_object_new_string(d->comm));
		json_object_object_add(o, "ceph_osd_id",
				       d->ceph_osd_id >= 0 ? json_object_new_int(d->ceph_osd_id)
							   : NULL);
		json_object_object_add(o, "dir", json_object_new_string(d->dir));
		json_object_object_add(o, "status", json_object_new_string(d->status));
		json_object_object_add(o, "partial_reason",
				       d->partial_reason ? json_object_new_string(d->partial_reason)
							 : NULL);
		json_object_object_add(o, "not_analysed",
				       m->s[i].r ? NULL : json_object_new_string(m->s[i].why_not));
		json_object_object_add(
			o, "report", m->s[i].r ? corecap_render_json_object(m->s[i].r, ret) : NULL);
		json_object_array_add(a, o);
	}
	json_object_object_add(root, "daemons", a);
	return root;
}

int corecap_render_multi_json(const struct multi_report *m, FILE *out)
{
	int ret = 0;
	json_object *root = corecap_render_multi_json_object(m, &ret);

	return corecap_render_json_out(root, ret, out);
}
