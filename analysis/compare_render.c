#include "compare_render.h"
#include "render/html_escape.h"
#include "render/html_tables.h"
#include "render/render_diagnosis.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <json-c/json.h>

void corecap_compare_render_row(const struct compare_row *rw, const char *missing, FILE *out)
{
	double ratio;

	fprintf(out, "  %-30s", rw->label);
	for (int side = 0; side < 2; side++) {
		if (rw->has[side])
			fprintf(out, " %12.*f", rw->decimals, rw->v[side]);
		else
			fprintf(out, " %12s", missing);
	}
	if (rw->has[0] && rw->has[1]) {
		fprintf(out, " %+12.*f", rw->decimals, rw->v[1] - rw->v[0]);
		if (corecap_compare_ratio(rw, &ratio))
			fprintf(out, " %8.2fx", ratio);
	}
	fprintf(out, "\n");
}

/* Both runs' diagnoses, side by side at the top, and what changed. */
static void diagnoses(const struct compare_diff *d, const struct report *const r[2], FILE *out)
{
	char room[96];

	for (int s = 0; s < 2; s++) {
		const struct diagnosis *dg = r[s]->diagnosis;

		corecap_diagnosis_headroom_words(dg, room, sizeof(room));
		fprintf(out, "diagnosis %c  %s: %s\n", 'A' + s, corecap_diag_kind_name(dg->kind),
			dg->headline ? dg->headline : "?");
		if (dg->next.kind == DIAG_NONE && !dg->next.name[0])
			fprintf(out, "             headroom %s; then unknown\n", room);
		else
			fprintf(out, "             headroom %s; then %s%s%s at %.0f ops/s\n", room,
				corecap_diag_kind_name(dg->next.kind), dg->next.name[0] ? " " : "",
				dg->next.name, dg->next.iops);
	}
	if (d->diag_change[0])
		fprintf(out, "             %s\n", d->diag_change);
}

/* What the runs' records say differs in their configuration. */
static void config_text(const struct compare_diff *d, FILE *out)
{
	if (!d->n_config && !d->config_same[0])
		fprintf(out, "config:   no command line recorded in both runs\n");
	if (d->config_same[0])
		fprintf(out, "config:   the same in both: %s\n", d->config_same);
	for (size_t i = 0; i < d->n_config; i++)
		fprintf(out, "config:   %s: A %s, B %s\n", d->config[i].what,
			d->config[i].a[0] ? d->config[i].a : "(nothing)",
			d->config[i].b[0] ? d->config[i].b : "(nothing)");
}

int corecap_compare_render_text(const struct compare_diff *d, const char *const run[2],
				const struct report *const r[2], FILE *out)
{
	const char *section = "";

	fprintf(out, "corecap compare\n  A  %s (%s)\n  B  %s (%s)\n", run[0], d->daemon[0], run[1],
		d->daemon[1]);
	for (size_t i = 0; i < d->n_warnings; i++)
		fprintf(out, "warning: %s\n", d->warnings[i]);
	diagnoses(d, r, out);
	fprintf(out, "headline: %s\n", d->headline);
	config_text(d, out);
	for (size_t i = 0; i < d->n; i++) {
		const struct compare_row *rw = &d->v[i];

		if (!corecap_compare_row_shown(rw))
			continue;
		if (strcmp(rw->section, section) != 0) {
			section = rw->section;
			fprintf(out, "\n%-32s %12s %12s %12s %9s\n", section, "A", "B", "B - A",
				"B / A");
		}
		corecap_compare_render_row(rw, "not measured", out);
	}
	fprintf(out, "\n");
	if (d->n_idle_pools) {
		fprintf(out, "idle in both runs (left out):");
		for (size_t i = 0; i < d->n_idle_pools; i++)
			fprintf(out, "%s pool %s", i ? "," : "", d->idle_pools[i]);
		fprintf(out, "\n");
	}
	fprintf(out,
		"(B / A only where both are at least %d units of the last decimal; rows zero in "
		"both left out)\n",
		COMPARE_RATIO_FLOOR_UNITS);
	for (int s = 0; s < 2; s++)
		if (!corecap_model_has_ops(r[s]->model))
			fprintf(out,
				"%c: ops, lock, cond, I/O and logging figures not measured (no "
				"trace)\n",
				'A' + s);
	return ferror(out) ? -EIO : 0;
}

static json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *sources_obj(const struct compare_sources *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "trace", json_object_new_boolean(s->trace));
	json_object_object_add(o, "shim", json_object_new_boolean(s->shim));
	json_object_object_add(o, "kernel", json_object_new_boolean(s->kernel));
	json_object_object_add(o, "optracker", json_object_new_boolean(s->optracker));
	return o;
}

static json_object *config_json(const struct compare_diff *d)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < d->n_config; i++) {
		json_object *c = json_object_new_object();

		json_object_object_add(c, "what", json_object_new_string(d->config[i].what));
		json_object_object_add(c, "a", json_object_new_string(d->config[i].a));
		json_object_object_add(c, "b", json_object_new_string(d->config[i].b));
		json_object_array_add(a, c);
	}
	return a;
}

static json_object *idle_json(const struct compare_diff *d)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < d->n_idle_pools; i++)
		json_object_array_add(a, json_object_new_string(d->idle_pools[i]));
	return a;
}

json_object *corecap_compare_json(const struct compare_diff *d, const char *const run[2],
				  const struct report *const r[2])
{
	json_object *root = json_object_new_object(), *sections = json_object_new_object(),
		    *warnings = json_object_new_array();

	if (!root || !sections || !warnings) {
		json_object_put(root);
		json_object_put(sections);
		json_object_put(warnings);
		return NULL;
	}
	json_object_object_add(root, "a", json_object_new_string(run[0]));
	json_object_object_add(root, "b", json_object_new_string(run[1]));
	json_object_object_add(root, "daemon_a", json_object_new_string(d->daemon[0]));
	json_object_object_add(root, "daemon_b", json_object_new_string(d->daemon[1]));
	json_object_object_add(root, "same_daemon",
			       json_object_new_boolean(corecap_compare_same_daemon(d)));
	json_object_object_add(root, "sources_a", sources_obj(&d->src[0]));
	json_object_object_add(root, "sources_b", sources_obj(&d->src[1]));
	for (size_t i = 0; i < d->n_warnings; i++)
		json_object_array_add(warnings, json_object_new_string(d->warnings[i]));
	json_object_object_add(root, "warnings", warnings);
	json_object_object_add(root, "headline", json_object_new_string(d->headline));
	json_object_object_add(
		root, "split",
		json_object_new_string(d->use_path ? "critical path" : "annotations"));
	json_object_object_add(root, "grew_behind", json_object_new_string(d->behind));
	/* Different daemons only: the same daemon has one headline. */
	json_object_object_add(
		root, "cost_per_op",
		corecap_compare_same_daemon(d) ? NULL : json_object_new_string(d->cost_line));
	json_object_object_add(root, "config", config_json(d));
	json_object_object_add(root, "config_same", json_object_new_string(d->config_same));
	json_object_object_add(root, "idle_pools", idle_json(d));
	json_object_object_add(root, "diagnosis_change",
			       d->diag_change[0] ? json_object_new_string(d->diag_change) : NULL);
	for (size_t i = 0; i < d->n; i++) {
		const struct compare_row *rw = &d->v[i];
		json_object *sec, *fig;
		double ratio;

		if (!corecap_compare_row_shown(rw))
			continue;
		if (!json_object_object_get_ex(sections, rw->section, &sec)) {
			sec = json_object_new_object();
			json_object_object_add(sections, rw->section, sec);
		}
		fig = json_object_new_object();
		json_object_object_add(fig, "a", rw->has[0] ? num(rw->v[0]) : NULL);
		json_object_object_add(fig, "b", rw->has[1] ? num(rw->v[1]) : NULL);
		json_object_object_add(fig, "delta",
				       rw->has[0] && rw->has[1] ? num(rw->v[1] - rw->v[0]) : NULL);
		json_object_object_add(fig, "ratio",
				       corecap_compare_ratio(rw, &ratio) ? num(ratio) : NULL);
		json_object_object_add(sec, rw->key, fig);
	}
	json_object_object_add(root, "figures", sections);
	/* ceiling_a and _b: the diagnoses' headlines, kept for older readers. */
	for (int s = 0; s < 2; s++) {
		const struct diagnosis *dg = r[s]->diagnosis;

		json_object_object_add(root, s ? "diagnosis_b" : "diagnosis_a",
				       corecap_render_diagnosis_json(dg));
		json_object_object_add(root, s ? "ceiling_b" : "ceiling_a",
				       json_object_new_string(dg->headline ? dg->headline : ""));
	}
	return root;
}

int corecap_compare_render_json(const struct compare_diff *d, const char *const run[2],
				const struct report *const r[2], FILE *out)
{
	json_object *root = corecap_compare_json(d, run, r);
	const char *text;
	int ret = 0;

	if (!root)
		return -ENOMEM;
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text || fprintf(out, "%s\n", text) < 0)
		ret = -EIO;
	json_object_put(root);
	return ret;
}

static void hesc(FILE *out, const char *s)
{
	corecap_html_escape(out, s ? s : "", 0);
}

static void html_value(const struct compare_row *r, int side, FILE *out)
{
	if (r->has[side])
		fprintf(out, "<td>%.*f</td>", r->decimals, r->v[side]);
	else
		fprintf(out, "<td data-v=\"-1e300\">not measured</td>");
}

void corecap_compare_html_row(const struct compare_row *rw, FILE *out)
{
	double ratio;

	fputs("<tr><td>", out);
	hesc(out, rw->label);
	fputs("</td>", out);
	html_value(rw, 0, out);
	html_value(rw, 1, out);
	if (rw->has[0] && rw->has[1]) {
		double dv = rw->v[1] - rw->v[0];

		const char *cls = dv > 0 ? "up" : dv < 0 ? "down" : "";

		fprintf(out, "<td class=\"%s\">%+.*f</td>", cls, rw->decimals, dv);
		if (corecap_compare_ratio(rw, &ratio))
			fprintf(out, "<td>%.2fx</td>", ratio);
		else
			fputs("<td data-v=\"-1e300\"></td>", out);
	} else {
		fputs("<td data-v=\"-1e300\"></td><td data-v=\"-1e300\"></td>", out);
	}
	fputs("</tr>\n", out);
}

void corecap_compare_html_table_head(FILE *out)
{
	fputs("<table class=\"sortable\">\n<tr><th>figure</th><th>A</th>"
	      "<th>B</th><th>B - A</th><th>B / A</th></tr>\n",
	      out);
}

/* The text's figures, one sortable table per section, under headings of level h. */
static void html_tables(const struct compare_diff *d, int h, FILE *out)
{
	const char *section = "";
	bool open = false;

	for (size_t i = 0; i < d->n; i++) {
		const struct compare_row *rw = &d->v[i];

		if (!corecap_compare_row_shown(rw))
			continue;
		if (strcmp(rw->section, section) != 0) {
			section = rw->section;
			if (open)
				fputs("</table>\n", out);
			fprintf(out, "<h%d>", h);
			hesc(out, section);
			fprintf(out, "</h%d>\n", h);
			corecap_compare_html_table_head(out);
			open = true;
		}
		corecap_compare_html_row(rw, out);
	}
	if (open)
		fputs("</table>\n", out);
}

void corecap_compare_html_begin(FILE *out, const char *a, const char *b)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<link rel=\"icon\" href=\"data:,\">\n<title>corecap compare: ",
	      out);
	hesc(out, a);
	fputs(" against ", out);
	hesc(out, b);
	fputs("</title>\n<style>\n"
	      "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}\n"
	      "p,pre,h1,h2,.verdict{max-width:1240px}\n"
	      "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid "
	      "#ccc}\n"
	      "table{border-collapse:collapse;font-size:.9em;margin:.4em 0}\n"
	      "th,td{padding:.15em .6em;border-bottom:1px solid #eee;text-align:right}\n"
	      "th:first-child,td:first-child{text-align:left}\nth{background:#f3f3f3}\n"
	      "td.up{color:#b00}td.down{color:#00b}\n"
	      ".verdict{font-size:1.05em;background:#fff6e0;padding:.6em;border-left:4px solid "
	      "#e0a000}\n.note{color:#8a4b00}\n"
	      ".flame{width:100%;overflow:hidden}.flame svg{display:block;max-width:100%;"
	      "height:auto}\n"
	      "</style>\n</head>\n<body>\n<h1>corecap compare</h1>\n",
	      out);
}

void corecap_compare_html_body(const struct compare_diff *d, const char *const run[2],
			       const struct report *const r[2], int h, const char *headline_id,
			       FILE *out)
{
	fputs("<table>\n<tr><td>A</td><td>", out);
	hesc(out, run[0]);
	fputs(" (", out);
	hesc(out, d->daemon[0]);
	fputs(")</td></tr>\n<tr><td>B</td><td>", out);
	hesc(out, run[1]);
	fputs(" (", out);
	hesc(out, d->daemon[1]);
	fputs(")</td></tr>\n</table>\n", out);
	for (size_t i = 0; i < d->n_warnings; i++) {
		fputs("<p class=\"note\">warning: ", out);
		hesc(out, d->warnings[i]);
		fputs("</p>\n", out);
	}
	fputs("<p class=\"verdict\" id=\"", out);
	hesc(out, headline_id);
	fputs("\">", out);
	hesc(out, d->headline);
	fputs("</p>\n", out);
	for (int s = 0; s < 2; s++) {
		const struct diagnosis *dg = r[s]->diagnosis;

		fprintf(out, "<p>diagnosis %c: %s: ", 'A' + s, corecap_diag_kind_name(dg->kind));
		hesc(out, dg->headline ? dg->headline : "?");
		fputs("</p>\n", out);
	}
	if (d->diag_change[0]) {
		fputs("<p>", out);
		hesc(out, d->diag_change);
		fputs("</p>\n", out);
	}
	fprintf(out, "<h%d>Configuration</h%d>\n", h, h);
	if (!d->n_config && !d->config_same[0])
		fputs("<p>No command line recorded in both runs.</p>\n", out);
	if (d->config_same[0]) {
		fputs("<p>The same in both: ", out);
		hesc(out, d->config_same);
		fputs("</p>\n", out);
	}
	if (d->n_config) {
		fputs("<table>\n<tr><th>what</th><th>A</th><th>B</th></tr>\n", out);
		for (size_t i = 0; i < d->n_config; i++) {
			fputs("<tr><td>", out);
			hesc(out, d->config[i].what);
			fputs("</td><td>", out);
			hesc(out, d->config[i].a[0] ? d->config[i].a : "(nothing)");
			fputs("</td><td>", out);
			hesc(out, d->config[i].b[0] ? d->config[i].b : "(nothing)");
			fputs("</td></tr>\n", out);
		}
		fputs("</table>\n", out);
	}
	html_tables(d, h, out);
	if (d->n_idle_pools) {
		fputs("<p>Idle in both runs (left out):", out);
		for (size_t i = 0; i < d->n_idle_pools; i++) {
			fputs(i ? ", pool " : " pool ", out);
			hesc(out, d->idle_pools[i]);
		}
		fputs("</p>\n", out);
	}
	fprintf(out,
		"<p>B / A only where both are at least %d units of the last decimal; rows zero in "
		"both left out.</p>\n",
		COMPARE_RATIO_FLOOR_UNITS);
}

int corecap_compare_html_flame(const struct compare_html_flame *fl, FILE *out)
{
	struct flame_svg_opts o = fl->opts;

	fputs("<h2>", out);
	hesc(out, fl->heading);
	fputs("</h2>\n", out);
	if (fl->note) {
		fputs("<p>", out);
		hesc(out, fl->note);
		fputs("</p>\n", out);
	}
	o.embedded = true;
	o.fit = true;
	if (fl->folded) {
		fputs("<div class=\"flame\">\n", out);
		if (corecap_flame_svg_render(fl->folded, &o, out))
			return -EIO;
		fputs("</div>\n", out);
	}
	return 0;
}

int corecap_compare_html_end(FILE *out)
{
	fprintf(out, "<p style=\"color:#888;font-size:.8em\">corecap %s</p>\n", CORECAP_VERSION);
	corecap_html_sort_script(out);
	fputs("</body>\n</html>\n", out);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

int corecap_compare_render_html(const struct compare_diff *d, const char *const run[2],
				const struct report *const r[2],
				const struct compare_html_flame *fl, FILE *out)
{
	corecap_compare_html_begin(out, run[0], run[1]);
	corecap_compare_html_body(d, run, r, 2, "headline", out);
	if (fl && corecap_compare_html_flame(fl, out))
		return -EIO;
	return corecap_compare_html_end(out);
}
