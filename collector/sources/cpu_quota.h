/*
 * cpu_quota: the CPU quota a daemon runs under (docs/run-directory.md,
 * manifest machine.daemon_cpu_quota_us): the CFS bandwidth limit of its
 * cgroup and of each parent up to the root, the tightest (the smallest
 * quota/period) binding the daemon's threads together whatever its
 * affinity allows. cgroup v2's cpu.max, or, where the cpu controller is
 * on a cgroup v1 hierarchy (hybrid hosts), its cpu.cfs_quota_us and
 * cpu.cfs_period_us: the same limit.
 * Its files are read as cgroup_file.h says (beneath the mount, bounded).
 */
#ifndef CORECAP_COLLECTOR_CPU_QUOTA_H
#define CORECAP_COLLECTOR_CPU_QUOTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/cgroup_file.h"

struct corecap_cpu_quota {
	uint64_t quota_us;		 /* of each period; 0: no quota anywhere */
	uint64_t period_us;		 /* the binding cgroup's period */
	const char *file;		 /* "cpu.max" or "cpu.cfs_quota_us" */
	char cgroup[CORECAP_CGROUP_PATH_MAX]; /* the binding cgroup, as /proc shows it ("/a/b") */
};

/*
 * A cpu.max's text: "QUOTA PERIOD" or "max PERIOD" (quota 0: none).
 * 0, or -EINVAL for anything else (a period of 0, a quota of 0).
 */
int corecap_cpu_max_parse(const char *text, uint64_t *quota_us, uint64_t *period_us);
/*
 * cgroup v1's pair: cpu.cfs_quota_us ("-1": none) and cpu.cfs_period_us,
 * as cpu_max_parse. 0 or -EINVAL.
 */
int corecap_cfs_quota_parse(const char *quota, const char *period, uint64_t *quota_us,
			    uint64_t *period_us);
/*
 * PID's tightest quota over its cgroup and its parents. 0 (q->quota_us 0
 * when none binds), or -errno: -ENOENT when no hierarchy has the cpu
 * controller, another when a file cannot be read or is not the kernel's.
 */
int corecap_cpu_quota_read(pid_t pid, struct corecap_cpu_quota *q);

#endif
