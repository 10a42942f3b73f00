/*
 * html_tables: the HTML page's tables beyond the report's own (the Ceph
 * OpTracker's op types and phases, the perf counters) and the one inline
 * script that sorts every table of class "sortable" when its header is
 * clicked (numbers by value, the rest as text; a cell's data-v, when
 * present, is its sort key). The script fetches nothing.
 */
#ifndef CORECAP_HTML_TABLES_H
#define CORECAP_HTML_TABLES_H

#include <stdio.h>

#include "report.h"

/* Writes the sorting script (once, at the end of the body). */
void corecap_html_sort_script(FILE *out);
/* RUN/ceph/'s tables: op types, each type's phases, perf counters; nothing without it. */
void corecap_html_ceph_tables(const struct report *r, FILE *out);

#endif
