/*
 * device_window: the daemon's block devices over the recording window
 * (docs/run-directory.md, manifest "devices"): each device's counters at
 * the window's start and end (/proc/diskstats: completed I/Os, sectors,
 * busy time) and the I/O limits its cgroup sets there with the cgroup's
 * counts at both ends, so that the analysis can say whether a device, or
 * a cgroup's limit on it, was full.
 */
#ifndef CORECAP_COLLECTOR_DEVICE_WINDOW_H
#define CORECAP_COLLECTOR_DEVICE_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "disk_stats.h"
#include "io_limit.h"

/* A daemon's disks, at most (a Ceph OSD has one to three: data, DB, WAL). */
#define CORECAP_DEVICES_MAX 8

struct corecap_device_window {
	pid_t pid;
	size_t n;
	struct corecap_window_device {
		struct corecap_disk_id id;
		bool has_disk[2]; /* [0] the start, [1] the end */
		struct corecap_disk_counts disk[2];
		bool has_limit[2]; /* the cgroup's limits and counts could be read */
		struct corecap_io_limit limit[2];
	} dev[CORECAP_DEVICES_MAX];
};

/* Finds the daemon's disks and reads their counters at the start (nothing when none). */
void corecap_device_window_begin(struct corecap_device_window *w, pid_t pid);
/* Reads them at the end. */
void corecap_device_window_end(struct corecap_device_window *w);

#endif
