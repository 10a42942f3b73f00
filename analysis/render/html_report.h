/*
 * html_report: a run as one self-contained HTML page: the report's
 * verdict and tables (ops, pools, threads, locks; the whole text report
 * beside them), the ops' critical paths and the wait-for graph
 * (html_paths.h), the CPU each pool used over time as an inline SVG chart,
 * and the flame graphs as inline SVG (each with its own inline script:
 * flame_svg.h; each as wide as the window, redrawn when it resizes), the
 * CPU and wall-clock stacks' top functions with callers and callees
 * (html_views.h), the chart's gaps where threads.tsv has no row; its
 * tables sort when a header is clicked (one inline script, html_tables.h).
 * Nothing is fetched: no script, stylesheet, font or image from elsewhere
 * (the favicon is an empty data: URL, so a browser asks for none); every
 * text is escaped.
 */
#ifndef CORECAP_HTML_REPORT_H
#define CORECAP_HTML_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../model/folded.h"
#include "../read/thread_series.h"
#include "flame_svg.h"
#include "report.h"

#define HTML_MAX_FLAMES 4

struct html_flame {
	const char *heading;
	const char *kind; /* "cpu", "wall", "lock", "op": cpu and wall get the top table */
	const struct folded *folded;
	struct flame_svg_opts opts;
};

struct html_report {
	const struct report *report;
	const char *report_text;	    /* the text rendering, or NULL */
	const struct thread_series *series; /* NULL: no threads.tsv */
	struct html_flame flames[HTML_MAX_FLAMES];
	size_t n_flames;
	const char *notes[HTML_MAX_FLAMES + 2]; /* what is missing and why, as sentences */
	size_t n_notes;
};

/* 0, or -EIO when writing failed. */
int corecap_html_report_render(const struct html_report *h, FILE *out);

/*
 * Parts of the page that a page of several daemons repeats per daemon
 * (render_multi.c), each id ending in sfx (html_views.h): the page's
 * <style> element; the CPU per pool over time with its gap marks (s NULL:
 * a line saying there is none); the top table of h's cpu and wall stacks
 * (h->flames; with_flames: their graphs follow on the page).
 */
void corecap_html_report_style(FILE *out);
void corecap_html_cpu_chart(const struct thread_series *s, const char *sfx, FILE *out);
int corecap_html_top_views(const struct html_report *h, const char *sfx, bool with_flames,
			   FILE *out);

#endif
