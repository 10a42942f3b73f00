#include "html_paths.h"

#include "html_escape.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <corecap/run_format.h>

#define WF_W	  900.0
#define WF_H	  620.0
#define WF_R	  230.0 /* the circle the nodes sit on */
#define NODE_H	  24.0
#define CHAR_W	  7.0 /* a label character's width at font-size 12 */
#define BAR_W	  760.0
#define BAR_L	  230.0 /* the bars' left margin: their labels */
#define BAR_H	  16.0
#define TOP_PAIRS 5

/* The categories in the page's order: where the time went, then what is left. */
static const uint32_t cat_order[CP__COUNT] = {CAT_CPU,	     CP_RUNQUEUE, CAT_LOCK_WAIT,
					      CAT_COND_WAIT, CAT_LOGGING, CAT_IO,
					      CAT_QUEUE,     CAT_OTHER};
static const char *const cat_colour[CP__COUNT] = {
	[CAT_CPU] = "#d95f02",	     [CP_RUNQUEUE] = "#e7298a", [CAT_LOCK_WAIT] = "#d62728",
	[CAT_COND_WAIT] = "#1f77b4", [CAT_LOGGING] = "#7570b3", [CAT_IO] = "#1b9e77",
	[CAT_QUEUE] = "#bbbbbb",     [CAT_OTHER] = "#e6ab02",
};
static const char *const kind_colour[CPW__COUNT] = {
	[CPW_WAKE] = "#7f7f7f",
	[CPW_LOCK] = "#d62728",
	[CPW_COND] = "#1f77b4",
};

static void esc(FILE *out, const char *s)
{
	corecap_html_escape(out, s ? s : "", 0);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct waitfor_node *)a)->name,
		      ((const struct waitfor_node *)b)->name);
}

static size_t node_of(const struct waitfor_layout *l, const char *name)
{
	struct waitfor_node key = {.name = name};
	const struct waitfor_node *n =
		bsearch(&key, l->nodes, l->n_nodes, sizeof(*l->nodes), by_name);

	return n ? (size_t)(n - l->nodes) : 0;
}

static bool has_node(const struct waitfor_node *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return true;
	return false;
}

int corecap_waitfor_layout(const struct cp_edge *e, size_t n, struct waitfor_layout *l)
{
	memset(l, 0, sizeof(*l));
	n = corecap_cp_edges_waiting(e, n); /* idle threads are not drawn */
	l->n_edges = n < WAITFOR_MAX_EDGES ? n : WAITFOR_MAX_EDGES;
	l->edges = e;
	l->width = WF_W;
	l->height = WF_H;
	if (!l->n_edges)
		return 0;
	l->nodes = calloc(2 * l->n_edges, sizeof(*l->nodes));
	l->from = calloc(l->n_edges, sizeof(*l->from));
	l->to = calloc(l->n_edges, sizeof(*l->to));
	if (!l->nodes || !l->from || !l->to) {
		corecap_waitfor_layout_release(l);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->n_edges; i++) {
		if (!has_node(l->nodes, l->n_nodes, e[i].from))
			l->nodes[l->n_nodes++].name = e[i].from;
		if (!has_node(l->nodes, l->n_nodes, e[i].to))
			l->nodes[l->n_nodes++].name = e[i].to;
		if (e[i].ns > l->max_ns)
			l->max_ns = e[i].ns;
	}
	qsort(l->nodes, l->n_nodes, sizeof(*l->nodes), by_name);
	/* On a circle from its top, clockwise; one node alone in the middle. */
	l->radius = l->n_nodes > 1 ? WF_R : 0;
	for (size_t i = 0; i < l->n_nodes; i++) {
		double a = -M_PI / 2 + 2 * M_PI * (double)i / (double)l->n_nodes;

		l->nodes[i].x = WF_W / 2 + l->radius * cos(a);
		l->nodes[i].y = WF_H / 2 + l->radius * sin(a);
	}
	for (size_t i = 0; i < l->n_edges; i++) {
		l->from[i] = node_of(l, e[i].from);
		l->to[i] = node_of(l, e[i].to);
	}
	return 0;
}

void corecap_waitfor_layout_release(struct waitfor_layout *l)
{
	free(l->nodes);
	free(l->from);
	free(l->to);
	memset(l, 0, sizeof(*l));
}

double corecap_waitfor_width(const struct waitfor_layout *l, uint64_t ns)
{
	double w = l->max_ns ? WAITFOR_MAX_W * (double)ns / (double)l->max_ns : WAITFOR_MIN_W;

	return w < WAITFOR_MIN_W ? WAITFOR_MIN_W : w;
}

static double node_w(const struct waitfor_node *n)
{
	return CHAR_W * (double)strlen(n->name) + 16;
}

/* Where the ray from n's centre towards (dx, dy) leaves its box. */
static void rim(const struct waitfor_node *n, double dx, double dy, double *x, double *y)
{
	double hw = node_w(n) / 2 + 3, hh = NODE_H / 2 + 3, s = INFINITY;

	if (fabs(dx) > 1e-9)
		s = hw / fabs(dx);
	if (fabs(dy) > 1e-9 && hh / fabs(dy) < s)
		s = hh / fabs(dy);
	if (!isfinite(s))
		s = 0;
	*x = n->x + dx * s;
	*y = n->y + dy * s;
}

/* How many drawn edges before i join the same two nodes (the same way or back). */
static size_t parallel_rank(const struct waitfor_layout *l, size_t i)
{
	size_t k = 0;

	for (size_t j = 0; j < i; j++)
		if ((l->from[j] == l->from[i] && l->to[j] == l->to[i]) ||
		    (l->from[j] == l->to[i] && l->to[j] == l->from[i]))
			k++;
	return k;
}

/* An arrowhead with its tip at (tx, ty), pointing along (dx, dy) (a unit vector). */
static void arrowhead(double tx, double ty, double dx, double dy, double size, const char *colour,
		      FILE *out)
{
	double bx = tx - dx * size, by = ty - dy * size, px = -dy * size / 2, py = dx * size / 2;

	fprintf(out,
		"<polygon class=\"arrow\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\"/>",
		tx, ty, bx + px, by + py, bx - px, by - py, colour);
}

static void edge_svg(const struct waitfor_layout *l, size_t i, uint64_t ops_ended, FILE *out)
{
	const struct cp_edge *e = &l->edges[i];
	const struct waitfor_node *a = &l->nodes[l->from[i]], *b = &l->nodes[l->to[i]];
	const char *colour = kind_colour[e->kind < CPW__COUNT ? e->kind : CPW_WAKE];
	const char *kind = corecap_cp_wait_kind_name(e->kind);
	double w = corecap_waitfor_width(l, e->ns), head = 7 + w;
	size_t k = parallel_rank(l, i);
	double sx, sy, tx, ty, cx, cy, lx, ly, dx, dy, len;
	/* Waiting for work (a condition, a hand-off) is drawn dashed: not contention. */
	const char *dash = e->kind == CPW_COND ? " stroke-dasharray=\"6 4\"" : "";

	fprintf(out, "<g class=\"edge\" data-from=\"");
	esc(out, e->from);
	fprintf(out, "\" data-to=\"");
	esc(out, e->to);
	fprintf(out, "\" data-kind=\"%s\" data-ms=\"%.3f\" data-width=\"%.3f\"><title>", kind,
		e->ns / 1e6, w);
	esc(out, e->from);
	fprintf(out, " waits for ");
	esc(out, e->to);
	fprintf(out, " (%s): %.1f ms", kind, e->ns / 1e6);
	if (ops_ended)
		fprintf(out, ", %.1f us per op", (double)e->ns / (double)ops_ended / 1e3);
	fprintf(out, ", %" PRIu64 " wakes</title>", e->wakes);
	if (a == b) {
		/* A pool waiting for itself: a loop above its box. */
		double up = 40 + 22 * (double)k, half = node_w(a) / 4;

		sx = a->x - half;
		sy = a->y - NODE_H / 2 - 3;
		tx = a->x + half;
		ty = sy;
		len = sqrt(half * half / 4 + up * up);
		dx = -(half / 2) / len;
		dy = up / len;
		fprintf(out,
			"<path d=\"M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" "
			"stroke=\"%s\" stroke-width=\"%.2f\" stroke-opacity=\"0.8\"%s/>",
			sx, sy, sx - half / 2, sy - up, tx + half / 2, ty - up, tx - dx * head,
			ty - dy * head, colour, w, dash);
		lx = a->x;
		ly = sy - up * 0.75 - 4;
	} else {
		/* A curve bending to the left of a -> b: b -> a bends the other way. */
		double bend = 0.15 + 0.12 * (double)k;

		dx = b->x - a->x;
		dy = b->y - a->y;
		cx = (a->x + b->x) / 2 + dy * bend;
		cy = (a->y + b->y) / 2 - dx * bend;
		rim(a, cx - a->x, cy - a->y, &sx, &sy);
		rim(b, cx - b->x, cy - b->y, &tx, &ty);
		dx = tx - cx;
		dy = ty - cy;
		len = sqrt(dx * dx + dy * dy);
		dx = len > 0 ? dx / len : 1;
		dy = len > 0 ? dy / len : 0;
		fprintf(out,
			"<path d=\"M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f\" fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"%.2f\" stroke-opacity=\"0.8\"%s/>",
			sx, sy, cx, cy, tx - dx * head, ty - dy * head, colour, w, dash);
		lx = 0.25 * sx + 0.5 * cx + 0.25 * tx;
		ly = 0.25 * sy + 0.5 * cy + 0.25 * ty;
	}
	arrowhead(tx, ty, dx, dy, head, colour, out);
	fprintf(out,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\" "
		"stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\">%.1f ms %s</text></g>\n",
		lx, ly, colour, e->ns / 1e6, kind);
}

int corecap_waitfor_svg(const struct cp_edge *e, size_t n, uint64_t ops_ended, FILE *out)
{
	struct waitfor_layout l;
	int ret = corecap_waitfor_layout(e, n, &l);

	if (ret)
		return ret;
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"waitfor\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
		"font-size=\"12\">\n<title>wait-for graph: %zu pools, %zu edges</title>\n"
		"<rect width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n",
		l.width, l.height, l.width, l.height, l.n_nodes, l.n_edges, l.width, l.height);
	for (size_t i = 0; i < l.n_edges; i++)
		edge_svg(&l, i, ops_ended, out);
	for (size_t i = 0; i < l.n_nodes; i++) {
		const struct waitfor_node *nd = &l.nodes[i];
		double w = node_w(nd);

		fprintf(out, "<g class=\"node\" data-pool=\"");
		esc(out, nd->name);
		fprintf(out,
			"\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"5\" "
			"fill=\"#f3f3f3\" stroke=\"#555\"/><text x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\">",
			nd->x - w / 2, nd->y - NODE_H / 2, w, NODE_H, nd->x, nd->y + 4);
		esc(out, nd->name);
		fprintf(out, "</text></g>\n");
	}
	for (int k = 0; k < CPW__COUNT; k++)
		fprintf(out,
			"<rect x=\"%d\" y=\"%.0f\" width=\"24\" height=\"4\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"%.0f\">%s</text>\n",
			12 + 110 * k, l.height - 16, kind_colour[k], 40 + 110 * k, l.height - 11,
			corecap_cp_wait_kind_name((enum cp_wait_kind)k));
	fprintf(out,
		"<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">A &#8594; B: A slept until a "
		"thread of B woke it; width: ms</text>\n</svg>\n",
		l.width - 12, l.height - 11);
	corecap_waitfor_layout_release(&l);
	return ferror(out) ? -EIO : 0;
}

/* Why the run has no critical path, as the end of a sentence. */
static const char *why_no_path(const struct report *r)
{
	if (!corecap_model_has_ops(r->model))
		return "the run has no trace (the path follows the trace's annotated ops)";
	if (!r->kernel)
		return "the run has no kernel events (RUN/" CORECAP_KERNEL_DIR
		       "/: corecap record records them as root with tracefs, unless "
		       "--no-kernel)";
	return "the kernel's records could not be read (the report's warnings say why)";
}

static double per_op_us(uint64_t ns, uint64_t count)
{
	return count ? (double)ns / (double)count / 1e3 : 0.0;
}

/* Op type i, or NULL when none of its ops finished; *cp: its path, or NULL. */
static const struct op_type *op_type(const struct report *r, size_t i, const struct cp_type **cp)
{
	const struct op_type *ty = &r->model->ops.types[i];

	*cp = corecap_critical_path_type(r->critical_path, (uint32_t)i);
	return ty->hist.count ? ty : NULL;
}

/* One row of the paths table: a type's annotations (cp NULL) or its path. */
static void path_row(const struct op_type *ty, const struct cp_type *cp, FILE *out)
{
	uint64_t count = cp ? cp->count : ty->hist.count;
	uint64_t lat = cp ? cp->latency_ns : ty->hist.sum_ns;

	fprintf(out, "<tr data-type=\"");
	esc(out, ty->name);
	fprintf(out, "\" data-source=\"%s\"><td>", cp ? "critical_path" : "annotations");
	esc(out, ty->name);
	fprintf(out, "</td><td>%s</td><td>%" PRIu64 "</td><td data-v=\"%.3f\">%.1f</td>",
		cp ? "critical path" : "annotations", count, per_op_us(lat, count),
		per_op_us(lat, count));
	for (size_t i = 0; i < CP__COUNT; i++) {
		uint32_t c = cat_order[i];

		if (!cp && c == CP_RUNQUEUE)
			fprintf(out, "<td data-cat=\"runqueue\">-</td>");
		else
			fprintf(out, "<td data-cat=\"%s\" data-v=\"%.3f\">%.1f</td>",
				corecap_cp_cat_name(c),
				per_op_us(cp ? cp->ns[c] : ty->cat_ns[c], count),
				per_op_us(cp ? cp->ns[c] : ty->cat_ns[c], count));
	}
	fprintf(out, "</tr>\n");
}

/* One stacked bar: ns[] of count ops, scaled so that `scale_us` fills BAR_W. */
static void bar(const char *label, const uint64_t *ns, bool has_runq, uint64_t count,
		double scale_us, double y, FILE *out)
{
	double x = BAR_L;

	fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", BAR_L - 6, y + BAR_H - 4);
	esc(out, label);
	fprintf(out, "</text>");
	for (size_t i = 0; i < CP__COUNT; i++) {
		uint32_t c = cat_order[i];
		double us = per_op_us(ns[c], count), w = scale_us > 0 ? BAR_W * us / scale_us : 0;

		if ((c == CP_RUNQUEUE && !has_runq) || w <= 0)
			continue;
		fprintf(out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\">"
			"<title>",
			x, y, w, BAR_H, cat_colour[c]);
		esc(out, label);
		fprintf(out, ": %s %.1f us per op</title></rect>", corecap_cp_cat_name(c), us);
		x += w;
	}
	fprintf(out, "\n");
}

static void paths_bars(const struct report *r, FILE *out)
{
	const struct op_table *t = &r->model->ops;
	double scale = 0;
	size_t rows = 0;
	double y = 10;
	char label[300];

	for (size_t i = 0; i < t->n_types; i++) {
		const struct cp_type *cp;
		const struct op_type *ty = op_type(r, i, &cp);

		if (!ty)
			continue;
		rows += cp ? 2 : 1;
		if (per_op_us(ty->hist.sum_ns, ty->hist.count) > scale)
			scale = per_op_us(ty->hist.sum_ns, ty->hist.count);
		if (cp && per_op_us(cp->latency_ns, cp->count) > scale)
			scale = per_op_us(cp->latency_ns, cp->count);
	}
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"critical-path-bars\" "
		"width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n",
		BAR_L + BAR_W + 20, 10 + (double)rows * (BAR_H + 6) + 50, BAR_L + BAR_W + 20,
		10 + (double)rows * (BAR_H + 6) + 50);
	for (size_t i = 0; i < t->n_types; i++) {
		const struct cp_type *cp;
		const struct op_type *ty = op_type(r, i, &cp);
		uint64_t ann[CP__COUNT] = {0};

		if (!ty)
			continue;
		memcpy(ann, ty->cat_ns, sizeof(ty->cat_ns));
		snprintf(label, sizeof(label), "%s: annotations", ty->name);
		bar(label, ann, false, ty->hist.count, scale, y, out);
		y += BAR_H + 6;
		if (cp) {
			snprintf(label, sizeof(label), "%s: critical path", ty->name);
			bar(label, cp->ns, true, cp->count, scale, y, out);
			y += BAR_H + 6;
		}
	}
	fprintf(out,
		"<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#888\"/>"
		"<text x=\"%.0f\" y=\"%.0f\">0</text><text x=\"%.0f\" y=\"%.0f\" "
		"text-anchor=\"end\">%.1f us per op</text>\n",
		BAR_L, y, BAR_L + BAR_W, y, BAR_L, y + 14, BAR_L + BAR_W, y + 14, scale);
	for (size_t i = 0; i < CP__COUNT; i++)
		fprintf(out,
			"<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
			BAR_L + 95 * (double)i, y + 24, cat_colour[cat_order[i]],
			BAR_L + 95 * (double)i + 16, y + 34, corecap_cp_cat_name(cat_order[i]));
	fprintf(out, "</svg>\n");
}

static void paths_top(const struct report *r, FILE *out)
{
	const struct op_table *t = &r->model->ops;

	fprintf(out,
		"<p>Who the path's time is credited to: the thread that ran it, or for "
		"<i>runqueue</i> the thread that held the CPU while the op's thread waited "
		"for it (the largest %d pairs of each type, us per op).</p>\n"
		"<table class=\"sortable\" id=\"critical-path-top\">\n<tr><th>type</th>"
		"<th>thread</th><th>tid</th><th>category</th><th>us/op</th></tr>\n",
		TOP_PAIRS);
	for (size_t i = 0; i < t->n_types; i++) {
		const struct cp_type *cp;
		const struct op_type *ty = op_type(r, i, &cp);
		struct cp_top v[TOP_PAIRS];
		size_t n;

		if (!ty || !cp)
			continue;
		n = corecap_profiler_path_top(r->profiler, cp, v, TOP_PAIRS);
		for (size_t k = 0; k < n; k++) {
			const char *name =
				corecap_critical_path_thread_name(r->critical_path, v[k].tid);

			fprintf(out, "<tr data-type=\"");
			esc(out, ty->name);
			fprintf(out, "\"><td>");
			esc(out, ty->name);
			fprintf(out, "</td><td>");
			esc(out, name ? name : v[k].tid == 0 ? "idle" : "unnamed");
			fprintf(out,
				"</td><td>%d</td><td>%s</td><td data-v=\"%.3f\">%.1f</td></tr>\n",
				(int)v[k].tid, corecap_cp_cat_name(v[k].cat),
				per_op_us(v[k].ns, cp->count), per_op_us(v[k].ns, cp->count));
		}
	}
	fprintf(out, "</table>\n");
}

/* Whom each type's runqueue waited behind (critical_path_runq_behind), us per op. */
static void paths_behind(const struct report *r, FILE *out)
{
	const struct op_table *t = &r->model->ops;

	fprintf(out, "<p>Whom the <i>runqueue</i> waited behind (us per op): the collector is "
		     "the profiler's own cost on the path; an idle CPU, the wake-up's "
		     "latency.</p>\n<table class=\"sortable\" id=\"critical-path-behind\">\n"
		     "<tr><th>type</th>");
	for (uint32_t b = 0; b < CPB__COUNT; b++)
		fprintf(out, "<th>%s</th>", corecap_cp_behind_label(b));
	fprintf(out, "</tr>\n");
	for (size_t i = 0; i < t->n_types; i++) {
		const struct cp_type *cp;
		const struct op_type *ty = op_type(r, i, &cp);
		uint64_t v[CPB__COUNT];

		if (!ty || !cp)
			continue;
		corecap_critical_path_runq_behind(r->critical_path, cp, v);
		fprintf(out, "<tr data-type=\"");
		esc(out, ty->name);
		fprintf(out, "\"><td>");
		esc(out, ty->name);
		fprintf(out, "</td>");
		for (uint32_t b = 0; b < CPB__COUNT; b++)
			fprintf(out, "<td data-behind=\"%s\" data-v=\"%.3f\">%.1f</td>",
				corecap_cp_behind_name(b), per_op_us(v[b], cp->count),
				per_op_us(v[b], cp->count));
		fprintf(out, "</tr>\n");
	}
	fprintf(out, "</table>\n");
}

static void paths_section(const struct report *r, FILE *out)
{
	const struct op_table *t = &r->model->ops;

	fprintf(out, "<h2>Ops: the critical path</h2>\n");
	if (!r->critical_path) {
		fprintf(out,
			"<p class=\"note\" id=\"critical-path-missing\">Not computed: %s.</p>\n",
			why_no_path(r));
		return;
	}
	if (!t->finished) {
		fprintf(out,
			"<p class=\"note\" id=\"critical-path-missing\">Not computed: no "
			"annotated op finished in the window%s.</p>\n",
			r->ceph && r->ceph->has_optracker ? " (the paths follow annotated ops; the "
							    "OSD's OpTracker ops have none)"
							  : "");
		return;
	}
	fprintf(out,
		"<p>Each op's latency along the threads it waited for (docs/methodology.md, "
		"\"The critical path of an op\"), beside the annotations' breakdown; both sum "
		"to the mean latency. <i>runqueue</i>: runnable, waiting for a CPU; "
		"<i>queue</i>: no thread of the daemon had the op. us per op; %" PRIu64
		" ops checked, %" PRIu64 " missing their latency.</p>\n"
		"<table id=\"critical-path\">\n<tr><th>type</th><th>from</th><th>ops</th>"
		"<th>latency us</th>",
		r->critical_path->checked, r->critical_path->violations);
	for (size_t i = 0; i < CP__COUNT; i++)
		fprintf(out, "<th>%s</th>", corecap_cp_cat_name(cat_order[i]));
	fprintf(out, "</tr>\n");
	for (size_t i = 0; i < t->n_types; i++) {
		const struct cp_type *cp;
		const struct op_type *ty = op_type(r, i, &cp);

		if (!ty)
			continue;
		path_row(ty, NULL, out);
		if (cp) {
			path_row(ty, cp, out);
			continue;
		}
		fprintf(out, "<tr data-type=\"");
		esc(out, ty->name);
		fprintf(out, "\" data-source=\"none\"><td>");
		esc(out, ty->name);
		fprintf(out,
			"</td><td colspan=\"%d\">no critical path: none of its ops ended "
			"after the kernel's records began</td></tr>\n",
			CP__COUNT + 3);
	}
	fprintf(out, "</table>\n");
	paths_bars(r, out);
	paths_top(r, out);
	paths_behind(r, out);
}

static int waitfor_section(const struct report *r, FILE *out)
{
	const struct critical_path *cp = r->critical_path;
	struct cp_edge *v;
	struct cp_knot *k;
	size_t n, nk;
	int ret;

	fprintf(out, "<h2>Wait-for graph between pools</h2>\n");
	if (!cp) {
		fprintf(out, "<p class=\"note\" id=\"waitfor-missing\">Not computed: %s.</p>\n",
			why_no_path(r));
		return 0;
	}
	if ((ret = corecap_critical_path_waitfor(cp, &v, &n)))
		return ret;
	if (!n) {
		fprintf(out, "<p id=\"waitfor-missing\">No thread of the daemon was woken by "
			     "another of its threads in the window.</p>\n");
		free(v);
		return 0;
	}
	fprintf(out,
		"<p>A &#8594; B: a thread of pool A slept until a thread of pool B woke it, "
		"by what it slept in (lock: a mutex B unlocked; cond: a condition or other "
		"futex wait B signalled; wake: any other sleep B ended); ms in the window, "
		"width proportional to them. The heaviest %d edges are drawn.</p>\n",
		WAITFOR_MAX_EDGES);
	ret = corecap_waitfor_svg(v, n, cp->ops_ended, out);
	if (!ret && !corecap_critical_path_knots(v, n, &k, &nk)) {
		for (size_t i = 0; i < nk; i++) {
			fprintf(out,
				"<p class=\"note\">Knot (pools waiting for each other only): ");
			for (size_t p = 0; p < k[i].n_pools; p++) {
				fputs(p ? " + " : "", out);
				esc(out, k[i].pools[p]);
			}
			fprintf(out, ", %.1f ms.</p>\n", k[i].ns / 1e6);
		}
		free(k);
	}
	fprintf(out, "<table class=\"sortable\" id=\"waitfor-edges\">\n<tr><th>pool</th>"
		     "<th>waits for</th><th>kind</th><th>ms</th><th>us/op</th><th>wakes</th>"
		     "</tr>\n");
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "<tr><td>");
		esc(out, v[i].from);
		fprintf(out, "</td><td>");
		esc(out, v[i].to);
		fprintf(out, "</td><td>%s</td><td data-v=\"%.3f\">%.1f</td>",
			corecap_cp_wait_kind_name(v[i].kind), v[i].ns / 1e6, v[i].ns / 1e6);
		if (cp->ops_ended)
			fprintf(out, "<td>%.1f</td>", per_op_us(v[i].ns, cp->ops_ended));
		else
			fprintf(out, "<td>-</td>");
		fprintf(out, "<td>%" PRIu64 "</td></tr>\n", v[i].wakes);
	}
	fprintf(out, "</table>\n");
	free(v);
	return ret;
}

int corecap_html_paths(const struct report *r, FILE *out)
{
	paths_section(r, out);
	return waitfor_section(r, out);
}
