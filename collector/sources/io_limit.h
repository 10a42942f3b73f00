/*
 * io_limit: the I/O limits a daemon's cgroup sets on a device, and what
 * the cgroup did on it. cgroup v2's io.max and io.stat, or, where the
 * blkio controller is on a cgroup v1 hierarchy (hybrid hosts), its
 * blkio.throttle.{read,write}_{iops,bps}_device and io_serviced,
 * io_service_bytes: the same limits. Files are read as cgroup_file.h
 * says.
 *
 * The limit of each kind is the tightest over the daemon's cgroup and its
 * parents (the kernel throttles a cgroup's I/O at every level); the
 * counts are the daemon's own cgroup's (v2's io.stat is hierarchical, v1's
 * throttle counts are the cgroup's own: where the limit sits on a parent
 * shared with others, the daemon's share of it is what is counted).
 */
#ifndef CORECAP_COLLECTOR_IO_LIMIT_H
#define CORECAP_COLLECTOR_IO_LIMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/cgroup_file.h"

/* [0] reads, [1] writes. */
struct corecap_io_limit {
	uint64_t iops[2]; /* per second; 0: none */
	uint64_t bps[2];  /* bytes per second; 0: none */
	const char *file; /* "io.max" or "blkio.throttle" (static); NULL: no limit */
	char cgroup[CORECAP_CGROUP_PATH_MAX]; /* where the first limit found is set */
	/* The daemon's cgroup's counts so far on the device. */
	bool has_counts;
	uint64_t ios[2], bytes[2];
};

/* io.max's line for major:minor ("8:0 rbps=max wbps=max riops=max wiops=100"): 0, -ENOENT, -EINVAL. */
int corecap_io_max_parse(const char *text, unsigned major, unsigned minor,
			 struct corecap_io_limit *l);
/* io.stat's line for major:minor ("8:0 rbytes=.. wbytes=.. rios=.. wios=.."): 0, -ENOENT, -EINVAL. */
int corecap_io_stat_parse(const char *text, unsigned major, unsigned minor, uint64_t ios[2],
			  uint64_t bytes[2]);
/* A blkio.throttle.*_device file's value for major:minor ("8:0 100"): 0, -ENOENT, -EINVAL. */
int corecap_blkio_device_parse(const char *text, unsigned major, unsigned minor, uint64_t *v);
/* blkio.throttle.io_serviced / io_service_bytes: "8:0 Read N", "8:0 Write N". 0, -ENOENT, -EINVAL. */
int corecap_blkio_rw_parse(const char *text, unsigned major, unsigned minor, uint64_t rw[2]);
/*
 * PID's limits on major:minor over its cgroup and parents, and its
 * cgroup's counts. 0 (l->file NULL when no limit), or -errno: -ENOENT
 * when no hierarchy has the io (blkio) controller.
 */
int corecap_io_limit_read(pid_t pid, unsigned major, unsigned minor, struct corecap_io_limit *l);

#endif
