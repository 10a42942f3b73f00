#include "html_tables.h"

#include "../model/stack_class.h"
#include "ceph_disk.h"
#include "html_escape.h"

static void esc(FILE *out, const char *s)
{
	corecap_html_escape(out, s ? s : "", 0);
}

void corecap_html_sort_script(FILE *out)
{
	/* First click: largest first (the order the report chose); again: reversed. */
	fputs("<script>\n"
	      "(function () {\n"
	      "  function key(td) {\n"
	      "    var v = td.getAttribute('data-v');\n"
	      "    if (v === null) v = td.textContent.trim();\n"
	      "    var n = parseFloat(v);\n"
	      "    return isNaN(n) || !/^[-+]?[0-9.]/.test(v) ? v.toLowerCase() : n;\n"
	      "  }\n"
	      "  function cmp(a, b) {\n"
	      "    var na = typeof a === 'number', nb = typeof b === 'number';\n"
	      "    if (na && nb) return a - b;\n"
	      "    if (na !== nb) return na ? 1 : -1;\n"
	      "    return a < b ? -1 : a > b ? 1 : 0;\n"
	      "  }\n"
	      "  document.querySelectorAll('table.sortable').forEach(function (t) {\n"
	      "    var head = t.rows[0];\n"
	      "    Array.prototype.forEach.call(head.cells, function (th, i) {\n"
	      "      th.style.cursor = 'pointer';\n"
	      "      th.title = 'sort by this column';\n"
	      "      th.addEventListener('click', function () {\n"
	      "        var desc = th.getAttribute('data-order') !== 'desc';\n"
	      "        var rows = Array.prototype.slice.call(t.rows, 1);\n"
	      "        Array.prototype.forEach.call(head.cells, function (h) {\n"
	      "          h.removeAttribute('data-order');\n"
	      "        });\n"
	      "        th.setAttribute('data-order', desc ? 'desc' : 'asc');\n"
	      "        rows.sort(function (x, y) {\n"
	      "          var c = cmp(key(x.cells[i] || x.cells[0]), key(y.cells[i] || "
	      "y.cells[0]));\n"
	      "          return desc ? -c : c;\n"
	      "        });\n"
	      "        rows.forEach(function (r) { r.parentNode.appendChild(r); });\n"
	      "      });\n"
	      "    });\n"
	      "  });\n"
	      "})();\n"
	      "</script>\n",
	      out);
}

/* The categories' header cells, when wall-clock samples split the ops. */
static void cat_headers(FILE *out)
{
	for (int c = STACK_CPU; c < STACK__COUNT; c++)
		fprintf(out, "<th>%s us/op</th>", corecap_stack_cat_name((enum stack_cat)c));
}

static void types_table(const struct report *r, FILE *out)
{
	const struct ceph_files *c = r->ceph;
	const struct ceph_sampled *s = r->ceph_sampled;

	if (s)
		fprintf(out,
			"<p>Categories from wall-clock samples of the op-path threads, one per "
			"%.0f us (arrival to reply; queue: no op-path thread on it).</p>\n",
			s->period_ns / 1e3);
	else if (r->ceph_sampled_why_not)
		fprintf(out, "<p>No categories: %s.</p>\n", r->ceph_sampled_why_not);
	fprintf(out, "<table class=\"sortable\">\n<tr><th>type</th><th>ops</th><th>span s</th>"
		     "<th>avg us</th><th>p50 us</th><th>p99 us</th><th>arrival to reply us</th>");
	if (s) {
		cat_headers(out);
		fprintf(out, "<th>queue us/op</th>");
	}
	fprintf(out, "</tr>\n");
	for (size_t i = 0; i < c->n_types; i++) {
		const struct ceph_op_type *t = &c->types[i];

		fprintf(out, "<tr><td>");
		esc(out, t->name);
		fprintf(out,
			"</td><td>%zu</td><td>%.2f</td><td>%.1f</td><td>%.1f</td><td>%.1f</td>"
			"<td>%.1f</td>",
			t->count, t->span_ns / 1e9, t->lat_avg_ns / 1e3, t->lat_p50_ns / 1e3,
			t->lat_p99_ns / 1e3, t->reply_avg_ns / 1e3);
		if (s && s->types[i].ops) {
			for (int k = STACK_CPU; k < STACK__COUNT; k++)
				fprintf(out, "<td>%.1f</td>", s->types[i].cat_ns[k] / 1e3);
			fprintf(out, "<td>%.1f</td>", s->types[i].queue_ns / 1e3);
		} else if (s) {
			fprintf(out, "<td colspan=\"%d\">not sampled</td>", STACK__COUNT);
		}
		fprintf(out, "</tr>\n");
	}
	fprintf(out, "</table>\n");
}

/* Each type's phases: us per op, share of the duration, and categories. */
static void phases_table(const struct report *r, size_t i, FILE *out)
{
	const struct ceph_op_type *t = &r->ceph->types[i];
	const struct ceph_sampled_type *st = r->ceph_sampled && r->ceph_sampled->types[i].ops
						     ? &r->ceph_sampled->types[i]
						     : NULL;
	double n = t->count ? (double)t->count : 1, sum = 0;

	for (size_t k = 0; k < t->n_phases; k++)
		sum += (double)t->phases[k].total_ns;
	fprintf(out, "<h3>Phases of ");
	esc(out, t->name);
	fprintf(out, " (a phase runs from its event to the next)</h3>\n<table "
		     "class=\"sortable\">\n<tr><th>phase</th><th>us/op</th><th>%% of the "
		     "phases</th>");
	if (st)
		cat_headers(out);
	fprintf(out, "</tr>\n");
	for (size_t k = 0; k < t->n_phases; k++) {
		fprintf(out, "<tr><td>");
		esc(out, t->phases[k].name);
		fprintf(out, "</td><td>%.1f</td><td>%.1f</td>", t->phases[k].total_ns / n / 1e3,
			sum > 0 ? 100.0 * (double)t->phases[k].total_ns / sum : 0.0);
		for (int c = STACK_CPU; st && c < STACK__COUNT; c++)
			fprintf(out, "<td>%.1f</td>",
				k < st->n_phases ? st->phase_cat_ns[k * STACK__COUNT + c] / 1e3
						 : 0.0);
		fprintf(out, "</tr>\n");
	}
	fprintf(out, "</table>\n");
}

/* A type's critical path and its phases' (model/ceph_critical.h), us per op. */
static void ceph_critical_table(const struct report *r, size_t i, FILE *out)
{
	const struct ceph_critical *cc = r->ceph_critical;
	const struct cp_type *t = corecap_ceph_critical_type(cc, i, 0);
	const struct ceph_op_type *ty = &r->ceph->types[i];

	if (!t)
		return;
	fprintf(out, "<h3>Critical path of ");
	esc(out, ty->name);
	fprintf(out,
		" (%llu ops, arrival to reply %.1f us; kernel records)</h3>\n<table "
		"class=\"sortable\">\n<tr><th>phase</th>",
		(unsigned long long)t->count, t->latency_ns / (double)t->count / 1e3);
	for (uint32_t c = 0; c < CP__COUNT; c++)
		fprintf(out, "<th>%s us/op</th>", corecap_cp_cat_name(c));
	fprintf(out, "</tr>\n");
	for (size_t k = 0; k <= ty->n_phases; k++) {
		const struct cp_type *pt = corecap_ceph_critical_type(cc, i, k);

		if (!pt)
			continue;
		fprintf(out, "<tr><td>");
		esc(out, k ? ty->phases[k - 1].name : "(whole op)");
		fprintf(out, "</td>");
		for (uint32_t c = 0; c < CP__COUNT; c++)
			fprintf(out, "<td>%.1f</td>", pt->ns[c] / (double)t->count / 1e3);
		fprintf(out, "</tr>\n");
	}
	fprintf(out, "</table>\n");
}

static void perf_table(const struct ceph_files *c, FILE *out)
{
	size_t shown = 0;

	fprintf(out, "<h2>Ceph perf counters (over the window)</h2>\n<table "
		     "class=\"sortable\">\n<tr><th>counter</th><th>ops</th><th>avg us</th></tr>\n");
	for (size_t i = 0; i < c->n_perf; i++) {
		const struct ceph_perf_counter *p = &c->perf[i];

		if (!p->is_avg || p->count_delta <= 0)
			continue;
		fprintf(out, "<tr><td>");
		esc(out, p->name);
		fprintf(out, "</td><td>%.0f</td><td>%.1f</td></tr>\n", p->count_delta,
			p->sum_s_delta / p->count_delta * 1e6);
		shown++;
	}
	if (!shown)
		fprintf(out, "<tr><td colspan=\"3\">no latency counter moved</td></tr>\n");
	fprintf(out, "</table>\n");
}

void corecap_html_ceph_tables(const struct report *r, FILE *out)
{
	const struct ceph_files *c = r->ceph;

	if (!c || !(c->has_optracker || c->has_perf))
		return;
	if (c->has_optracker) {
		bool led = false;

		fprintf(out, "<h2>Ceph ops (the OSD's OpTracker: %zu ops)</h2>\n", c->n_ops);
		/* With kernel events the critical paths lead (docs/methodology.md);
		 * the sampled categories and the phases follow. */
		for (size_t i = 0; i < c->n_types; i++)
			if (corecap_ceph_critical_type(r->ceph_critical, i, 0)) {
				ceph_critical_table(r, i, out);
				led = true;
			}
		if (led) {
			fprintf(out, "<p class=\"note\">");
			esc(out, CORECAP_CEPH_PHASES_DIFFER);
			fprintf(out, ".</p>\n");
		}
		types_table(r, out);
		for (size_t i = 0; i < c->n_types; i++)
			phases_table(r, i, out);
	}
	if (c->has_perf)
		perf_table(c, out);
	corecap_ceph_disk_html(r, out);
}
