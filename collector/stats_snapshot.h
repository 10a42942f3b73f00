/*
 * struct corecap_stats_snapshot: byte copies of the shim's counters file,
 * /dev/shm/corecap.<pid>, into RUN/stats-begin and RUN/stats-end.
 *
 * Guarantees: a copy is taken with corecap_stats_copy() from
 * corecap/stats_layout.h (whole 64-bit words, retried while the shim's
 * header.seq shows a structural change in progress), checked with
 * corecap_stats_valid(), and written in full or not at all (a file that
 * could not be copied consistently is not left behind half-written).
 */
#ifndef CORECAP_COLLECTOR_STATS_SNAPSHOT_H
#define CORECAP_COLLECTOR_STATS_SNAPSHOT_H

#include <corecap/stats_path.h>

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct corecap_run_dir;

struct corecap_stats_snapshot {
	char path[CORECAP_STATS_PATH_MAX]; /* corecap/stats_path.h */
	bool present;  /* the daemon runs under the shim */
	size_t bytes;
	int copies; /* files written */
	int torn;   /* copies abandoned because the shim kept changing it */
};

/* Whether the file exists; no error when it does not. */
void corecap_stats_snapshot_init(struct corecap_stats_snapshot *ss, pid_t pid);
/* Copies it to RUN/name; -errno with a message when it fails. */
int corecap_stats_snapshot_take(struct corecap_stats_snapshot *ss, struct corecap_run_dir *rd,
				const char *name);

#endif
