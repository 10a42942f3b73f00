/*
 * render_projection: the projection (model/projection.h) as detail of
 * the diagnosis, in text and as keys of the JSON ceiling object
 * (docs/report-json.md): on_this_machine, daemon_limit, projection[].
 * Neither says a verdict of its own: the diagnosis is the answer.
 */
#ifndef CORECAP_RENDER_PROJECTION_H
#define CORECAP_RENDER_PROJECTION_H

#include <json-c/json.h>
#include <stdio.h>

#include "../model/projection.h"

/* Both accept NULL (nothing to render). */
void corecap_render_projection_text(const struct projection *p, FILE *out);
void corecap_render_projection_json(const struct projection *p, json_object *ceiling);

#endif
