#include "html_report.h"

#include "html_escape.h"
#include "html_paths.h"
#include "html_tables.h"
#include "html_views.h"
#include "name_elide.h"
#include "render_common.h"
#include "render_profiler.h"
#include "render_diagnosis.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <corecap/run_format.h>

#define TOP_THREADS 20
#define TOP_LOCKS   10
#define CHART_W	    1100
#define CHART_H	    300
#define CHART_L	    60 /* left margin: the y axis labels */
#define CHART_B	    40 /* bottom margin: the x axis labels */
#define CHART_T	    20
#define CHART_R	    20

static const char *const series_colours[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void esc(FILE *out, const char *s)
{
	corecap_html_escape(out, s ? s : "", 0);
}

void corecap_html_report_style(FILE *out)
{
	fputs("<style>\n"
	      "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}\n"
	      "p,pre,details,h1,h2,.verdict{max-width:1240px}\n"
	      ".flame{width:100%;overflow:hidden}.flame svg{display:block}\n",
	      out);
	fputs(corecap_html_views_css, out);
	fputs("h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid "
	      "#ccc}\n"
	      "table{border-collapse:collapse;font-size:.9em;margin:.4em 0}\n"
	      "th,td{padding:.15em .6em;border-bottom:1px solid #eee;text-align:right}\n"
	      "th:first-child,td:first-child{text-align:left}\n"
	      "th{background:#f3f3f3}\n"
	      ".verdict{font-size:1.05em;background:#fff6e0;padding:.6em;border-left:4px solid "
	      "#e0a000}\n"
	      ".note{color:#8a4b00}\n"
	      "svg{max-width:100%;height:auto}\n"
	      "pre{font-size:.8em;background:#f8f8f8;padding:.6em;overflow-x:auto}\n"
	      "</style>\n",
	      out);
}

static void head(const struct html_report *h, FILE *out)
{
	const struct report *r = h->report;

	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		     "<link rel=\"icon\" href=\"data:,\">\n<title>corecap: ");
	esc(out, r->run_dir);
	fputs("</title>\n", out);
	corecap_html_report_style(out);
	fputs("</head>\n<body>\n", out);
}

static void summary(const struct html_report *h, FILE *out)
{
	const struct report *r = h->report;
	const struct run_manifest *mf = r->manifest;
	uint64_t w = corecap_model_window_ns(r->model);

	fprintf(out, "<h1>corecap report: ");
	esc(out, r->run_dir);
	fprintf(out, "</h1>\n<table>\n<tr><td>daemon</td><td>");
	esc(out, mf && mf->comm ? mf->comm : "?");
	if (mf && mf->pid >= 0)
		fprintf(out, " (pid %d)", mf->pid);
	if (r->cores_available)
		fprintf(out, ", %d cores available", r->cores_available);
	fprintf(out, "</td></tr>\n<tr><td>window</td><td>%.3f s (%s)</td></tr>\n", w / 1e9,
		r->window_from_manifest ? "recording window" : "first to last event");
	if (mf && mf->bench_command) {
		size_t n = json_object_array_length(mf->bench_command);

		fprintf(out, "<tr><td>benchmark</td><td>");
		for (size_t i = 0; i < n; i++) {
			esc(out, json_object_get_string(
					 json_object_array_get_idx(mf->bench_command, i)));
			fputc(' ', out);
		}
		fprintf(out, "</td></tr>\n");
		if (mf->bench.has_iops)
			fprintf(out, "<tr><td>IOPS</td><td>%.0f</td></tr>\n", mf->bench.iops_avg);
		if (mf->bench.has_lat)
			fprintf(out, "<tr><td>average latency</td><td>%.3f ms</td></tr>\n",
				mf->bench.lat_avg_s * 1e3);
		if (mf->bench.has_p99)
			fprintf(out, "<tr><td>p99 latency</td><td>%.3f ms</td></tr>\n",
				mf->bench.lat_p99_s * 1e3);
	}
	if (!corecap_model_has_ops(r->model))
		fprintf(out, "<tr><td>traced</td><td>ops not measured (no trace)</td></tr>\n");
	else if (w)
		fprintf(out, "<tr><td>traced</td><td>%" PRIu64 " ops, %.0f ops/s</td></tr>\n",
			r->model->ops.finished, (double)r->model->ops.finished * 1e9 / (double)w);
	fprintf(out, "</table>\n");
	corecap_render_diagnosis_html(r->diagnosis, r->projection, out);
	for (size_t i = 0; i < r->n_warnings; i++) {
		fprintf(out, "<p class=\"note\">");
		esc(out, r->warnings[i]);
		fprintf(out, "</p>\n");
	}
}

static void ops_table(const struct report *r, FILE *out)
{
	const struct op_table *t = &r->model->ops;

	fprintf(out, "<h2>Ops: where the latency goes</h2>\n");
	if (!corecap_model_has_ops(r->model)) {
		fprintf(out, "<p>Not measured (no trace)%s.</p>\n",
			r->ceph && r->ceph->has_optracker ? "; the OSD's own ops (OpTracker) follow"
							  : "");
		return;
	}
	if (!t->finished && r->ceph && r->ceph->has_optracker) {
		fprintf(out, "<p>No annotated op (the daemon does not mark its ops for corecap); "
			     "the OSD's own ops (OpTracker) follow.</p>\n");
		return;
	}
	/* With kernel events the critical path leads; the annotations' split follows. */
	if (r->critical_path) {
		fprintf(out, "<h3>Critical path (kernel events, us per op)</h3>\n<table "
			     "class=\"sortable\">\n<tr><th>type</th><th>ops</th>");
		for (uint32_t c = 0; c < CP__COUNT; c++)
			fprintf(out, "<th>%s</th>", corecap_cp_cat_name(c));
		fprintf(out, "</tr>\n");
		for (size_t i = 0; i < t->n_types; i++) {
			const struct cp_type *cp =
				corecap_critical_path_type(r->critical_path, (uint32_t)i);

			if (!cp || !cp->count)
				continue;
			fprintf(out, "<tr><td>");
			esc(out, t->types[i].name);
			fprintf(out, "</td><td>%" PRIu64 "</td>", cp->count);
			for (uint32_t c = 0; c < CP__COUNT; c++)
				fprintf(out, "<td>%.1f</td>", cp->ns[c] / (double)cp->count / 1e3);
			fprintf(out, "</tr>\n");
		}
		fprintf(out,
			"</table>\n<h3>Annotations</h3>\n<p class=\"note\">"
			"the annotations&#39; own split: &#39;cpu&#39; is any time the op&#39;s "
			"thread was in no traced wait, so it holds that thread&#39;s wait for a "
			"CPU (the path&#39;s runqueue); &#39;queue&#39; is time no thread had the "
			"op, which the path follows into whoever held it up.</p>\n");
	}
	fprintf(out, "<table class=\"sortable\">\n<tr><th>type</th><th>ops</th>"
		     "<th>avg us</th><th>p50 us</th><th>p99 us</th><th>max us</th>");
	for (int c = 0; c < CAT__COUNT; c++)
		fprintf(out, "<th>%s us/op</th>", corecap_op_cat_name((enum op_cat)c));
	fprintf(out, "</tr>\n");
	for (size_t i = 0; i < t->n_types; i++) {
		const struct op_type *ty = &t->types[i];
		double n = (double)ty->hist.count;

		if (!ty->hist.count)
			continue;
		fprintf(out, "<tr><td>");
		esc(out, ty->name);
		fprintf(out,
			"</td><td>%" PRIu64 "</td><td>%.1f</td><td>%.1f</td><td>%.1f</td>"
			"<td>%.1f</td>",
			ty->hist.count, (double)ty->hist.sum_ns / n / 1e3,
			corecap_latency_hist_quantile(&ty->hist, 0.5) / 1e3,
			corecap_latency_hist_quantile(&ty->hist, 0.99) / 1e3,
			ty->hist.max_ns / 1e3);
		for (int c = 0; c < CAT__COUNT; c++)
			fprintf(out, "<td>%.1f</td>", (double)ty->cat_ns[c] / n / 1e3);
		fprintf(out, "</tr>\n");
	}
	fprintf(out, "</table>\n");
}

static void pools_table(const struct report *r, FILE *out)
{
	const struct pool_table *p = r->pools;
	bool waits = corecap_model_has_thread_waits(r->model);

	corecap_render_profiler_html(r, out);
	fprintf(out, "<h2>Pools (%% of the pool's time)</h2>\n<table class=\"sortable\">\n"
		     "<tr><th>pool</th>"
		     "<th>threads</th><th>run</th><th>wait-cpu</th><th>lock</th><th>cond</th>"
		     "<th>io</th><th>log</th></tr>\n");
	for (size_t i = 0; i < p->len; i++) {
		const struct model_pool *pl = &p->pools[i];
		uint64_t cap = pl->span_ns;

		fprintf(out, "<tr><td>");
		esc(out, pl->name);
		fprintf(out, "</td><td>%zu</td>", pl->n_threads);
		if (!cap)
			fprintf(out,
				"<td colspan=\"6\">no " CORECAP_RUN_THREADS " samples</td></tr>\n");
		else if (waits)
			fprintf(out,
				"<td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%.1f</td>"
				"<td>%.1f</td><td>%.1f</td></tr>\n",
				pct(pl->cpu_ns, cap), pct(pl->runq_ns, cap),
				pct(pl->lock_wait_ns, cap), pct(pl->cond_wait_ns, cap),
				pct(corecap_io_sum(pl->io_ns), cap), pct(pl->logging_ns, cap));
		else
			fprintf(out,
				"<td>%.1f</td><td>%.1f</td><td colspan=\"4\">not "
				"measured</td></tr>\n",
				pct(pl->cpu_ns, cap), pct(pl->runq_ns, cap));
	}
	fprintf(out, "</table>\n");
}

static void threads_table(const struct report *r, FILE *out)
{
	const struct model_thread **v;
	uint64_t w = corecap_model_window_ns(r->model);
	size_t n = corecap_render_sorted_threads(r, &v);

	fprintf(out,
		"<h2>Threads (most run first, %%)</h2>\n<table class=\"sortable\">\n"
		"<tr><th>thread</th>"
		"<th>tid</th><th>run</th><th>wait-cpu</th><th>lock</th><th>cond</th><th>io</th>"
		"<th>log</th></tr>\n");
	for (size_t i = 0; i < n && i < TOP_THREADS; i++) {
		const struct model_thread *th = v[i];
		uint64_t span = th->span_ns ? th->span_ns : w;
		struct thread_waits tw;

		fprintf(out, "<tr><td>");
		esc(out, th->name[0] ? th->name : "?");
		fprintf(out, "</td><td>%d</td>", th->tid);
		if (th->has_samples)
			fprintf(out, "<td>%.1f</td><td>%.1f</td>",
				100 * corecap_thread_cpu_util(th, w),
				100 * (corecap_thread_busy_util(th, w) -
				       corecap_thread_cpu_util(th, w)));
		else
			fprintf(out, "<td>-</td><td>-</td>");
		corecap_thread_waits(th, &tw);
		if (corecap_model_has_thread_waits(r->model))
			fprintf(out, "<td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%.1f</td></tr>\n",
				pct(tw.lock_ns, span), pct(tw.cond_ns, span),
				pct(corecap_io_sum(tw.io_ns), span), pct(tw.logging_ns, span));
		else
			fprintf(out, "<td colspan=\"4\">not measured</td></tr>\n");
	}
	fprintf(out, "</table>\n");
	if (n > TOP_THREADS)
		fprintf(out, "<p>... and %zu more threads (corecap report --json lists all)</p>\n",
			n - TOP_THREADS);
	free(v);
}

/* A tooltip with a site's inlined calls and source lines, innermost first. */
static void site_title(const struct report *r, uint64_t site, FILE *out)
{
	struct report_frame f[REPORT_MAX_FRAMES];
	size_t n = corecap_render_frame_sources(r, site, f, REPORT_MAX_FRAMES);
	char line[24];

	if (!n)
		return;
	fprintf(out, " title=\"");
	for (size_t i = 0; i < n; i++) {
		fputs(i ? " <- " : "", out);
		esc(out, f[i].function);
		fputs(f[i].inlined ? " [inline]" : "", out);
		if (f[i].file) {
			fputs(" at ", out);
			esc(out, f[i].file);
			snprintf(line, sizeof(line), ":%u", f[i].line);
			fputs(line, out);
		}
	}
	fputs("\"", out);
}

/* A long name elided to fit (name_elide.h), whole in its title. */
static void elided(FILE *out, const char *s, size_t width)
{
	char buf[1024];

	corecap_name_elide(s, width, buf, sizeof(buf));
	fputs("<span title=\"", out);
	esc(out, s);
	fputs("\">", out);
	esc(out, buf);
	fputs("</span>", out);
}

/* Rows [from, to) of one table (the shim's or the futex words'); data-v: the sort keys. */
static void lock_table_rows(const struct report *r, const struct lock_rows *rows, size_t from,
			    size_t to, FILE *out)
{
	uint64_t w = corecap_model_window_ns(r->model);
	char label[400];

	for (size_t i = from; i < to && i < rows->n && i - from < TOP_LOCKS; i++) {
		const struct lock_row *row = &rows->v[i];
		bool futex = row->source == LOCK_SOURCE_FUTEX;
		uint64_t held = futex ? row->busy_ns : row->hold_ns;
		const char *object;

		corecap_lock_row_label(row, label, sizeof(label));
		fprintf(out, "<tr><td>");
		if (row->family) {
			fprintf(out, "<details><summary>");
			elided(out, label, 60);
			fprintf(out, "</summary><ul>");
			for (size_t k = 0; k < row->n_members; k++)
				fprintf(out, "<li>0x%" PRIx64 ": %" PRIu64 " waits, %.1f us</li>",
					row->members[k]->addr,
					corecap_lock_contentions(row->members[k]),
					corecap_lock_wait_ns(row->members[k]) / 1e3);
			fprintf(out, "</ul></details>");
		} else {
			elided(out, label, 60);
		}
		/* A heap lock's type and member, as the text says it under the row. */
		if ((object = corecap_render_lock_object(r, row))) {
			fputs("<br><small class=\"cc-lock-object\">a ", out);
			esc(out, object);
			fputs("</small>", out);
		}
		fprintf(out, "</td><td>%s</td><td>%" PRIu64 "</td><td>%.1f</td><td>%.1f</td>",
			futex ? "futex" : "shim", row->contentions, row->wait_ns / 1e3,
			corecap_lock_row_avg_wait_ns(row) / 1e3);
		if (row->has_max_wait)
			fprintf(out, "<td>%.1f</td>", row->max_wait_ns / 1e3);
		else
			fprintf(out, "<td data-v=\"-1\">-</td>");
		/* An idle wait keeps no server busy: no utilization. */
		if (row->idle)
			fprintf(out, "<td data-v=\"-1\">-</td><td>");
		else
			fprintf(out, "<td>%.1f</td><td>", pct(held, w));
		esc(out, corecap_lock_kind_name(row->kind));
		fprintf(out, "</td><td");
		if (row->site)
			site_title(r, row->site->site, out);
		fprintf(out, ">");
		if (row->site && row->site->symbol) {
			char buf[1024];

			corecap_name_elide(row->site->symbol, 60, buf, sizeof(buf));
			esc(out, buf);
		} else {
			esc(out, "-");
		}
		if (row->site && row->site->is_logging)
			fprintf(out, " (logging code)");
		fprintf(out, "</td></tr>\n");
	}
}

static void locks_table(const struct report *r, FILE *out)
{
	struct lock_rows shim, futex;

	fprintf(out, "<h2>Locks (by %s)</h2>\n", corecap_lock_sort_title(r->lock_sort, false));
	if (!corecap_model_has_locks(r->model)) {
		fprintf(out, "<p>Not measured (no trace, no shim counters, no kernel futex "
			     "events).</p>\n");
		return;
	}
	if (corecap_render_lock_rows(r, LOCK_SOURCE_SHIM, &shim))
		return;
	if (corecap_render_lock_rows(r, LOCK_SOURCE_FUTEX, &futex)) {
		corecap_lock_rows_release(&shim);
		return;
	}
	if (!shim.n && !corecap_lock_rows_contended(&futex)) {
		fprintf(out, "<p>No contended or tracked lock.</p>\n");
	} else {
		fprintf(out, "<p>Hold %% is the busy %% (held or waited for) for futex words; "
			     "a row \"SITE xN\" is N heap locks taken at one site (click to "
			     "list them).</p>\n");
		fprintf(out, "<table class=\"sortable\">\n<tr><th>lock</th><th>source</th>"
			     "<th>contended</th><th>total wait us</th><th>avg wait us</th>"
			     "<th>max wait us</th><th>hold %%</th><th>kind</th><th>top "
			     "site</th></tr>\n");
		lock_table_rows(r, &shim, 0, shim.n, out);
		lock_table_rows(r, &futex, 0, corecap_lock_rows_contended(&futex), out);
		fprintf(out, "</table>\n");
	}
	if (corecap_lock_rows_contended(&futex) < futex.n) {
		fprintf(out, "<h3>Waiting for work (futex, not contention)</h3>\n"
			     "<p>Condition and other futex waits of threads waiting for work, "
			     "and mutexes re-taken as a condition wait returns (a hand-off): "
			     "idle time, not ranked with the locks.</p>\n");
		fprintf(out, "<table class=\"sortable\">\n<tr><th>futex word</th><th>source</th>"
			     "<th>waits</th><th>total wait us</th><th>avg wait us</th>"
			     "<th>max wait us</th><th>busy %%</th><th>kind</th><th>top "
			     "site</th></tr>\n");
		lock_table_rows(r, &futex, corecap_lock_rows_contended(&futex), futex.n, out);
		fprintf(out, "</table>\n");
	}
	corecap_lock_rows_release(&shim);
	corecap_lock_rows_release(&futex);
}

/*
 * The times threads.tsv has no row (thread_series' gaps: the /proc
 * sampler stopped or starved), shaded with a title: the lines cross them
 * straight, an average over the gap, not a measure within it.
 */
static size_t gap_marks(const struct thread_series *s, double plot_w, double plot_h,
			double *longest, FILE *out)
{
	double span = (double)s->n_bins * (double)s->bin_ns;
	size_t n = 0;

	for (size_t i = 0; i < s->n_gaps; i++) {
		const struct series_gap *g = &s->gaps[i];
		double a = (double)g->from_ns - (double)s->start_ns,
		       b = (double)g->to_ns - (double)s->start_ns;

		if (b <= 0 || a >= span)
			continue;
		a = a < 0 ? 0 : a;
		b = b > span ? span : b;
		if (b - a > *longest)
			*longest = b - a;
		n++;
		fprintf(out,
			"<g class=\"cc-gap\" data-from-s=\"%.3f\" data-to-s=\"%.3f\">"
			"<title>no sample from %.2f s to %.2f s (%.2f s): the /proc sampler was "
			"stopped or starved; the lines cross the gap with its average</title>"
			"<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"#f2c0c0\" fill-opacity=\"0.55\"/>"
			"<text x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"#a00\" "
			"text-anchor=\"middle\">no samples</text></g>\n",
			a / 1e9, b / 1e9, a / 1e9, b / 1e9, (b - a) / 1e9,
			CHART_L + plot_w * a / span, CHART_T,
			plot_w * (b - a) / span > 1 ? plot_w * (b - a) / span : 1, plot_h,
			CHART_L + plot_w * (a + b) / 2 / span, CHART_T - 4);
	}
	return n;
}

/* Cores used per pool over time: one polyline per pool (the busiest 10). */
void corecap_html_cpu_chart(const struct thread_series *s, const char *sfx, FILE *out)
{
	size_t order[64], n = 0;
	double ymax = 0.25, plot_w = CHART_W - CHART_L - CHART_R,
	       plot_h = CHART_H - CHART_T - CHART_B;
	double secs, longest = 0;
	size_t n_gaps;

	fprintf(out, "<h2>CPU per pool over time (cores)</h2>\n");
	if (!s || !s->n_bins) {
		fprintf(out, "<p>No " CORECAP_RUN_THREADS " samples: no chart.</p>\n");
		return;
	}
	for (size_t p = 0; p < s->n_pools && n < 64; p++)
		if (s->pools[p].total_cpu_ns)
			order[n++] = p;
	/* Busiest pools first; the chart keeps ten of them. */
	for (size_t i = 1; i < n; i++)
		for (size_t k = i;
		     k > 0 && s->pools[order[k]].total_cpu_ns > s->pools[order[k - 1]].total_cpu_ns;
		     k--) {
			size_t tmp = order[k];

			order[k] = order[k - 1];
			order[k - 1] = tmp;
		}
	if (n > 10)
		n = 10;
	for (size_t i = 0; i < n; i++)
		for (size_t b = 0; b < s->n_bins; b++)
			if (corecap_thread_series_cores(s, order[i], b) > ymax)
				ymax = corecap_thread_series_cores(s, order[i], b);
	ymax = ymax <= 1 ? (double)((int)(ymax * 4 + 0.999)) / 4 : (double)(int)(ymax + 0.999);
	secs = (double)s->n_bins * (double)s->bin_ns / 1e9;
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
		"<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
		CHART_W, CHART_H + 20 * (int)((n + 4) / 5), CHART_W,
		CHART_H + 20 * (int)((n + 4) / 5), CHART_W, CHART_H + 20 * (int)((n + 4) / 5));
	for (int g = 0; g <= 4; g++) {
		double y = CHART_T + plot_h - plot_h * g / 4;

		fprintf(out,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.2f</text>\n",
			CHART_L, y, CHART_L + plot_w, y, CHART_L - 6, y + 4, ymax * g / 4);
	}
	for (int g = 0; g <= 5; g++) {
		double x = CHART_L + plot_w * g / 5;

		fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.1f s</text>\n", x,
			CHART_T + (int)plot_h + 16, secs * g / 5);
	}
	fprintf(out,
		"<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" "
		"text-anchor=\"middle\">cores</text>\n",
		CHART_T + (int)plot_h / 2, CHART_T + (int)plot_h / 2);
	n_gaps = gap_marks(s, plot_w, plot_h, &longest, out);
	for (size_t i = 0; i < n; i++) {
		const struct series_pool *pl = &s->pools[order[i]];
		const char *colour = series_colours[i % 10];

		fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" points=\"",
			colour);
		for (size_t b = 0; b < s->n_bins; b++)
			fprintf(out, "%s%.1f,%.1f", b ? " " : "",
				CHART_L + plot_w * ((double)b + 0.5) / (double)s->n_bins,
				CHART_T + plot_h -
					plot_h * corecap_thread_series_cores(s, order[i], b) /
						ymax);
		fprintf(out, "\"><title>");
		esc(out, pl->name);
		fprintf(out, ": %.2f cores on average</title></polyline>\n",
			(double)pl->total_cpu_ns / ((double)s->n_bins * (double)s->bin_ns));
		fprintf(out,
			"<rect x=\"%zu\" y=\"%zu\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%zu\" y=\"%zu\">",
			CHART_L + (i % 5) * 200, (size_t)CHART_H + (i / 5) * 20 - 8, colour,
			CHART_L + (i % 5) * 200 + 16, (size_t)CHART_H + (i / 5) * 20 + 2);
		esc(out, pl->name);
		fprintf(out, " (%zu)</text>\n", pl->n_threads);
	}
	fprintf(out, "</svg>\n");
	if (n_gaps)
		fprintf(out,
			"<p class=\"note\" id=\"cc-gaps%s\">%zu gap%s in the /proc sampler&#39;s "
			"rows (shaded: no sample for more than %.2f s, the longest %.2f s): the "
			"sampler was stopped or starved there.</p>\n",
			sfx, n_gaps, n_gaps == 1 ? "" : "s", (double)s->gap_ns / 1e9,
			longest / 1e9);
}

/* The top table of the page's cpu and wall stacks (html_views.h): the flame graphs' own trees. */
int corecap_html_top_views(const struct html_report *h, const char *sfx, bool with_flames,
			   FILE *out)
{
	struct html_view_stacks v[HTML_MAX_FLAMES];
	size_t n = 0;

	for (size_t i = 0; i < h->n_flames; i++) {
		const char *k = h->flames[i].kind;

		if (k && (strcmp(k, "cpu") == 0 || strcmp(k, "wall") == 0) &&
		    !corecap_folded_empty(h->flames[i].folded, 0))
			v[n++] = (struct html_view_stacks){.kind = k,
							   .unit = h->flames[i].opts.unit,
							   .folded = h->flames[i].folded};
	}
	return corecap_html_views_at(v, n, sfx, with_flames, out);
}

int corecap_html_report_render(const struct html_report *h, FILE *out)
{
	head(h, out);
	summary(h, out);
	for (size_t i = 0; i < h->n_notes; i++) {
		fprintf(out, "<p class=\"note\">");
		esc(out, h->notes[i]);
		fprintf(out, "</p>\n");
	}
	ops_table(h->report, out);
	if (corecap_html_paths(h->report, out))
		return -EIO;
	corecap_html_ceph_tables(h->report, out);
	corecap_html_cpu_chart(h->series, "", out);
	pools_table(h->report, out);
	threads_table(h->report, out);
	locks_table(h->report, out);
	if (corecap_html_top_views(h, "", true, out))
		return -EIO;
	for (size_t i = 0; i < h->n_flames; i++) {
		struct flame_svg_opts o = h->flames[i].opts;

		fprintf(out, "<h2>");
		esc(out, h->flames[i].heading);
		fprintf(out, "</h2>\n<div class=\"flame\" data-kind=\"%s\">\n",
			h->flames[i].kind ? h->flames[i].kind : "");
		o.embedded = true;
		o.fit = true;
		if (corecap_flame_svg_render(h->flames[i].folded, &o, out))
			return -EIO;
		fprintf(out, "</div>\n");
	}
	if (h->report_text) {
		fprintf(out,
			"<h2>The text report</h2>\n<details><summary>corecap report %s</summary>"
			"<pre>",
			"(as printed)");
		esc(out, h->report_text);
		fprintf(out, "</pre></details>\n");
	}
	fprintf(out, "<p style=\"color:#888;font-size:.8em\">corecap %s</p>\n", CORECAP_VERSION);
	corecap_html_sort_script(out);
	fprintf(out, "</body>\n</html>\n");
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}
