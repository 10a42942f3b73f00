/*
 * struct corecap_stats_snapshot: byte copies of the shim's counters (its
 * sealed memfd, reached through the daemon: corecap/stats_path.h), into
 * RUN/stats-begin and RUN/stats-end.
 *
 * Guarantees: only a segment that passes corecap_stats_open()'s checks
 * (sealed, owned by the daemon's user or root, bounded size) is read,
 * and only one whose header names the daemon's pid is written; a file
 * /dev/shm/corecap.<pid> (older shims', or anyone's) is never read, and
 * init says it ignores one. A copy is taken with corecap_stats_copy() from
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
	pid_t pid;
	char path[CORECAP_STATS_PATH_MAX]; /* what was opened: /proc/PID/fd/N */
	bool present;			   /* the daemon runs under the shim, its counters usable */
	size_t bytes;
	int copies; /* files written */
	int torn;   /* copies abandoned because the shim kept changing it */
};

/*
 * Whether the daemon has usable counters; no message when it has none,
 * a warning naming the cause when it has some that cannot be used.
 */
void corecap_stats_snapshot_init(struct corecap_stats_snapshot *ss, pid_t pid);
/* Copies it to RUN/name; -errno with a message when it fails. */
int corecap_stats_snapshot_take(struct corecap_stats_snapshot *ss, struct corecap_run_dir *rd,
				const char *name);

#endif
