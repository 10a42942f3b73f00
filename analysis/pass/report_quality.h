/*
 * report_quality: the report's data-quality warnings that the model and
 * the run say once everything is read: the tracer's losses, ops left out
 * (unfinished, begun before the trace, broken annotation sequences, ended
 * on another thread), the benchmark's failure, conservation, and the
 * symbolizer's problems. The sources' own warnings (threads.tsv, stats,
 * kernel, Ceph) are pass/report_build's, said where each is read.
 */
#ifndef CORECAP_REPORT_QUALITY_H
#define CORECAP_REPORT_QUALITY_H

#include <stddef.h>

#include "model/model.h"
#include "read/run.h"

/*
 * The wall-clock sampler's: it fell behind, or covered its threads
 * unevenly (one thread's share of its due samples under 80% of
 * another's). Appended to (*warnings, *n_warnings); flame says them too.
 */
int corecap_wall_quality(char ***warnings, size_t *n_warnings, const struct run_manifest *mf);

/* Appends the sentences to (*warnings, *n_warnings); 0 or -ENOMEM. */
int corecap_report_quality(char ***warnings, size_t *n_warnings, const struct model *m,
			   const struct run *run);

#endif
