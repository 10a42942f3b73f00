/*
 * compare_render: a compare_diff (compare_diff.h) as text, JSON (keys:
 * docs/report-json.md, "compare") or an HTML page. A figure one run did
 * not measure reads "not measured" in text and null in JSON, never 0.
 */
#ifndef CORECAP_COMPARE_RENDER_H
#define CORECAP_COMPARE_RENDER_H

#include <stdio.h>

#include "compare_diff.h"
#include "render/flame_svg.h"

/* The page's differential flame graph: fl->folded's columns 0 (A) and 1 (B). */
struct compare_html_flame {
	const char *heading;
	const char *note;	     /* NULL: none */
	const struct folded *folded; /* NULL: no graph (note says why) */
	struct flame_svg_opts opts;
};

/* run: the two run directories' names. Both return 0, or -EIO / -ENOMEM. */
int corecap_compare_render_text(const struct compare_diff *d, const char *const run[2],
				const struct report *const r[2], FILE *out);
int corecap_compare_render_json(const struct compare_diff *d, const char *const run[2],
				const struct report *const r[2], FILE *out);
/*
 * One figure's text row: its label, A and B (missing: what stands for a
 * side without the figure), B - A and B / A where both sides have it.
 */
void corecap_compare_render_row(const struct compare_row *rw, const char *missing, FILE *out);
/* The object render_json prints (a run of several hosts nests it); NULL: no memory. */
struct json_object;
struct json_object *corecap_compare_json(const struct compare_diff *d, const char *const run[2],
					 const struct report *const r[2]);
/*
 * One self-contained page (no network): the headline, both diagnoses, the
 * configuration differences, the text's tables (sortable), and the
 * differential flame graph fl (NULL: none) as wide as the window.
 */
int corecap_compare_render_html(const struct compare_diff *d, const char *const run[2],
				const struct report *const r[2],
				const struct compare_html_flame *fl, FILE *out);

#endif
