/*
 * render_profiler: the report's one statement of the profiler's own cost
 * (model/profiler_own.h), in text, JSON and HTML, with the same figures:
 * its CPU on the box (its threads in the daemon, the collector) and the
 * run-queue wait per op on the ops' critical paths behind its threads,
 * and whether its threads and locks were left out of the tables.
 */
#ifndef CORECAP_RENDER_PROFILER_H
#define CORECAP_RENDER_PROFILER_H

#include <json-c/json.h>
#include <stdio.h>

#include "report.h"

/* "profiler   ..." and a blank line; nothing when r->profiler is NULL. */
void corecap_render_profiler_text(const struct report *r, FILE *out);
/* The `profiler` object; NULL (JSON null) when r->profiler is NULL. */
json_object *corecap_render_profiler_json(const struct report *r);
/* A paragraph (id "profiler"); nothing when r->profiler is NULL. */
void corecap_render_profiler_html(const struct report *r, FILE *out);

#endif
