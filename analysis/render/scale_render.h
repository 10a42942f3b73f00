/*
 * scale_render: a scale directory's result (`corecap scale`) as text or as
 * JSON (format "corecap-scale", docs/report-json.md): each point's
 * throughput and CPU per op from its run's report, the Universal
 * Scalability Law's fit (model/scaling_fit.h), and its terms beside what
 * the runs measured: the contention term beside what the diagnosis of the
 * largest run names (model/diagnosis.h), the coherency term beside the
 * growth of CPU per op between the smallest and largest points.
 */
#ifndef CORECAP_SCALE_RENDER_H
#define CORECAP_SCALE_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>


#include "../build/scale_build.h"

int scale_render_text(const struct scale_view *v, FILE *out);
int scale_render_json(const struct scale_view *v, FILE *out);

#endif
