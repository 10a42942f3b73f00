/*
 * stat_build: one interval of `corecap stat`'s shim view from two copies
 * of the daemon's segment (read/stat_snapshot.h): the shim's deltas as
 * read/shim_stats computes them for a run's stats-begin and stats-end,
 * and the threads' rows, into model/stat_interval.h's figures, the locks
 * named by the symbolizer over the daemon's maps.
 */
#ifndef CORECAP_BUILD_STAT_BUILD_H
#define CORECAP_BUILD_STAT_BUILD_H

#include "../model/stat_interval.h"
#include "../read/stat_snapshot.h"
#include "../read/symbolizer.h"

/* What the interval from prev to cur did, threads sorted by key. 0 or -ENOMEM. */
int corecap_stat_build(struct stat_interval *iv, const struct stat_snap *prev,
		       const struct stat_snap *cur, struct symbolizer *sym, enum stat_sort key);

#endif
