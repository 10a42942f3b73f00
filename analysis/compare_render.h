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

/*
 * The page's parts, for a page of several comparisons (a run of several
 * hosts, hosts_compare.h): its head and title (begin), one comparison's
 * sections (body: its headings of level h, the headline's element id
 * headline_id), a differential flame graph, its end (0 or -EIO). A row of
 * figures as the tables show it, and a table's head row.
 */
void corecap_compare_html_begin(FILE *out, const char *a, const char *b);
void corecap_compare_html_body(const struct compare_diff *d, const char *const run[2],
			       const struct report *const r[2], int h, const char *headline_id,
			       FILE *out);
int corecap_compare_html_flame(const struct compare_html_flame *fl, FILE *out);
int corecap_compare_html_end(FILE *out);
void corecap_compare_html_row(const struct compare_row *rw, FILE *out);
void corecap_compare_html_table_head(FILE *out);

#endif
