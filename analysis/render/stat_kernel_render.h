/*
 * stat_kernel_render: `corecap stat`'s kernel view of one interval
 * (model/stat_kernel_interval.h), named by the symbolizer over the
 * daemon's maps: the text view (the process's thread time by state, the
 * pools, the threads, then the futex words waited on, mutexes apart from
 * idle waits, --top rows each; redrawn in place on a terminal) and one
 * JSON object per interval and line (keys in corecap-stat(1)).
 */
#ifndef CORECAP_RENDER_STAT_KERNEL_RENDER_H
#define CORECAP_RENDER_STAT_KERNEL_RENDER_H

#include <stdbool.h>
#include <stdint.h>

#include "../model/stat_kernel_interval.h"
#include "../read/symbolizer.h"
#include "stat_render.h"

/* The live view's second header line: elapsed time, sort key, keys. */
struct stat_klive {
	bool redraw, interactive;
	uint64_t elapsed_ns;
	enum stat_ksort sort;
};

void corecap_stat_kernel_render_text(const struct stat_view_of *o,
				     const struct stat_kernel_interval *iv, struct symbolizer *sym,
				     const struct stat_klive *lv);
void corecap_stat_kernel_render_json(const struct stat_view_of *o,
				     const struct stat_kernel_interval *iv, struct symbolizer *sym);

#endif
