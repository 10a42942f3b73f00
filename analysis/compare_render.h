/*
 * compare_render: a compare_diff (compare_diff.h) as text or JSON (keys:
 * docs/report-json.md, "compare"). A figure one run did not measure
 * reads "not measured" in text and null in JSON, never 0.
 */
#ifndef CORECAP_COMPARE_RENDER_H
#define CORECAP_COMPARE_RENDER_H

#include <stdio.h>

#include "compare_diff.h"

/* run: the two run directories' names. Both return 0, or -EIO / -ENOMEM. */
int corecap_compare_render_text(const struct compare_diff *d, const char *const run[2],
				const struct report *const r[2], FILE *out);
int corecap_compare_render_json(const struct compare_diff *d, const char *const run[2],
				const struct report *const r[2], FILE *out);

#endif
