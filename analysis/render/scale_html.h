/*
 * scale_html: a scale directory's result (render/scale_render.h) as one
 * self-contained HTML page: the throughput-against-cores chart (the
 * measured points, the fit and its band, the peak or the level it tends
 * to), then the text result.
 */
#ifndef CORECAP_SCALE_HTML_H
#define CORECAP_SCALE_HTML_H

#include <stdio.h>

#include "scale_render.h"

int scale_render_html(const struct scale_view *v, FILE *out);

#endif
