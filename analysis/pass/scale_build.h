/*
 * scale_build: a scale directory (`corecap scale`, docs/run-directory.md)
 * read into its view (struct scale_view of render/scale_render.h, as
 * report_build fills render/report.h's struct report): scale.json's
 * points, each point's run built into its report as `corecap report`
 * does (its throughput, the daemon's CPU per op and the diagnosis come
 * from there, never computed again here), and the fit
 * (model/scaling_fit.h). What `corecap scale --report` renders, and
 * what a report of one of its points (or of a run given `--scale DIR`)
 * takes its projection past the run's cores from.
 */
#ifndef CORECAP_SCALE_BUILD_H
#define CORECAP_SCALE_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "../render/scale_render.h" /* struct scale_view */

/*
 * Reads DIR/scale.json (never through a link, bounded) and builds each
 * point's report. 0; -EINVAL when DIR is not a scale directory (said on
 * stderr, naming it). A point whose report gives no figures is kept with
 * why_not, and left out of the fit.
 */
int corecap_scale_build(struct scale_view *v, const char *dir);
/*
 * The scale run a report of RUN takes its projection's fit from: DIR when
 * given (-EINVAL, said naming it, when it is no scale directory), else the
 * scale directory RUN is a point of, else none. 0 with *v NULL (none) or
 * a view to free(); -errno.
 */
int corecap_scale_for_run(struct scale_view **v, const char *run, const char *dir);

#endif
