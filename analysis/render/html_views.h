/*
 * html_views: pprof's views of the page's CPU and wall-clock stacks: a
 * top-functions table (self and total per function, as `pprof -top`),
 * sortable by any column and filtered by a search (a regular expression,
 * else a substring), and the callers and callees of the function clicked
 * (as `pprof -peek`). The stacks are the flame graphs' own folded tree,
 * embedded once as the folded text `corecap flame` prints (a JSON string
 * in a <script type="application/json">), and the page's inline script
 * counts from them, so the table, the flame graph and `corecap flame`
 * cannot disagree:
 *
 *   self(F)  = the weight of the stacks whose innermost frame is F;
 *   total(F) = the weight of the stacks holding F anywhere (once per
 *              stack, so recursion is not counted twice);
 *   caller C of F = the weight of the stacks where C calls F (once per
 *              stack); callee likewise, and "(self)" for F's own weight.
 *
 * Nothing is fetched; without script the section says so.
 */
#ifndef CORECAP_HTML_VIEWS_H
#define CORECAP_HTML_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../model/folded.h"

struct html_view_stacks {
	const char *kind; /* "cpu", "wall" */
	const char *unit; /* "samples" */
	const struct folded *folded;
};

/* The section (nothing when n is 0). 0, -ENOMEM, or -EIO when writing failed. */
int corecap_html_views(const struct html_view_stacks *v, size_t n, FILE *out);

/*
 * The same, one of several on a page (a run of several daemons, one per
 * daemon): every id of the section ends in sfx (letters, digits, '-';
 * -EINVAL otherwise), its stacks and script answer to it alone;
 * corecap_html_views() is sfx "" with flame graphs. with_flames: the page
 * has the stacks' flame graphs below (the text says so).
 */
int corecap_html_views_at(const struct html_view_stacks *v, size_t n, const char *sfx,
			  bool with_flames, FILE *out);

/* The section's style rules (any suffix), for the page's <style>. */
extern const char corecap_html_views_css[];

#endif
