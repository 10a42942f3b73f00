/*
 * render_diagnosis: the diagnosis (model/diagnosis.h) as the first section
 * of the text report, the `diagnosis` object of the JSON one
 * (docs/report-json.md), and the top box of the HTML page, each with the
 * same figures; and the candidates and the projection as detail under it,
 * with no verdict of their own.
 */
#ifndef CORECAP_RENDER_DIAGNOSIS_H
#define CORECAP_RENDER_DIAGNOSIS_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

#include "../model/ceiling.h"
#include "../model/diagnosis.h"
#include "../model/projection.h"

/* "1.05x (to 1296 ops/s)", or "unknown": one spelling everywhere. */
void corecap_diagnosis_headroom_words(const struct diagnosis *d, char *out, size_t size);
void corecap_render_diagnosis_text(const struct diagnosis *d, FILE *out);
/*
 * A candidate's share of the window running (a lock's: held, with its
 * hand-offs; the diagnosis' figure where the projection has the resource)
 * and waiting for a CPU (< 0 for a lock: it waits for none).
 */
void corecap_diagnosis_candidate_shares(const struct ceiling_candidate *c,
					const struct projection *p, uint64_t window_ns, double *run,
					double *wait_cpu);
/* The candidates' indices, most running first; their number. */
size_t corecap_diagnosis_candidates_order(const struct ceiling *c, const struct projection *p,
					  uint64_t window_ns, size_t order[CEILING_CANDIDATES]);
/* The candidates and the projection table, as detail (no verdicts). */
void corecap_render_diagnosis_detail_text(const struct ceiling *c, const struct projection *p,
					  uint64_t window_ns, FILE *out);
json_object *corecap_render_diagnosis_json(const struct diagnosis *d);
/* The page's top box: d, and p's table as a small one. */
void corecap_render_diagnosis_html(const struct diagnosis *d, const struct projection *p,
				   FILE *out);

#endif
