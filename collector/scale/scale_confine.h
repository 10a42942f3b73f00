/*
 * struct scale_confine: a daemon held to a number of CPUs for one point of
 * `corecap scale` (docs/methodology.md, "Scaling"), and put back as it
 * was whatever happens to corecap.
 *
 * Every thread of the daemon (each /proc/PID/task/TID) is confined by
 * sched_setaffinity(2) to the point's CPUs; scale_confine_pass() is
 * repeated during the point, so threads created meanwhile are confined
 * too (a thread inherits its creator's affinity, so they mostly are
 * already), and a thread found on other CPUs than the point's after it
 * was confined has reset its own affinity: it is counted and named. A
 * fractional point (1.5 cores) also sets its cgroup's CPU quota (v2
 * cpu.max, or v1 cpu.cfs_quota_us over its cpu.cfs_period_us), which is
 * refused where the daemon's cgroup cannot be written or also holds
 * corecap (the quota would throttle the benchmark). A daemon in the root
 * cgroup, which takes no quota, is moved for the scale into a cgroup of
 * corecap's own beneath it (corecap-scale-PID, made here, never one that
 * exists), and back, the cgroup removed, at the end.
 *
 * The threads' affinity before the first point is kept in a shared page,
 * each thread's own (up to SCALE_MAX_TASKS threads); a thread born during
 * the scale, or beyond that many, gets back the main thread's. Whether
 * corecap may set them at all (the daemon's user, or CAP_SYS_NICE) is
 * checked when it opens the daemon, each thread set to its own mask. Only the daemon's present
 * tasks are ever touched: the task list is read through a directory descriptor of /proc/PID opened
 * at the start, which a reused PID cannot redirect. A guard process (forked, in its own process
 * group, holding no other file) polls its parent every 10 ms: when corecap is gone without
 * releasing it (kill -9) it restores the threads' affinity, the quota and the cgroup, and exits.
 */
#ifndef CORECAP_COLLECTOR_SCALE_CONFINE_H
#define CORECAP_COLLECTOR_SCALE_CONFINE_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SCALE_MAX_TASKS	  4096
#define SCALE_RESET_NAMED 8

struct scale_task {
	pid_t tid;
	bool confined; /* set to the point's CPUs at least once in this point */
	cpu_set_t orig;
};

/* Shared with the guard: what it restores. */
struct scale_shared {
	volatile int quota_set; /* the quota file holds ours: quota_orig restores it */
	volatile int moved;	/* the daemon's threads are in moved_to (its cgroup was the root) */
	int v1;			/* the cpu controller is on a cgroup v1 hierarchy */
	char quota_orig[64];
	char quota_rel[1100]; /* cpu.max (v2) or cpu.cfs_quota_us (v1) under the mount */
	char moved_to[64];    /* "corecap-scale-PID" under the mount: ours, removed after */
	unsigned long long period_us; /* the quota's period (v2: ours; v1: cpu.cfs_period_us) */
	volatile int ntasks;
	cpu_set_t base; /* the main thread's original affinity: new threads get it back */
	struct scale_task tasks[SCALE_MAX_TASKS];
};

struct scale_confine {
	pid_t pid;
	int procfd;	   /* /proc/PID */
	int cgroot;	   /* the cpu controller's cgroup mount (v1 or v2), or -1 */
	char cgroup[1024]; /* the daemon's cgroup ("/a/b"), or "" */
	struct scale_shared *sh;
	pid_t guard;
	cpu_set_t cur; /* the point's CPUs */
	/* This point's threads found off its CPUs after being confined. */
	unsigned resets;
	pid_t reset_tids[SCALE_RESET_NAMED];
	unsigned threads, new_threads; /* seen during this point; born during it */
	int confine_errno;	       /* the first thread that could not be confined */
	pid_t confine_tid;
};

/*
 * Opens the daemon, keeps every thread's affinity and starts the guard.
 * -errno, the cause printed.
 */
int scale_confine_open(struct scale_confine *c, pid_t pid);
/* The CPUs the daemon's main thread may use now (before any point). */
const cpu_set_t *scale_confine_base(const struct scale_confine *c);
/*
 * Whether a quota can be set on the daemon's cgroup: 0, or -errno with a
 * sentence in why (no cpu controller, shared with corecap, not writable).
 * A daemon in the root cgroup is moved into corecap-scale-PID here.
 */
int scale_confine_quota_check(struct scale_confine *c, char *why, size_t size);
/*
 * Starts a point: every thread on cpus, and with quota_cpus > 0 the cgroup's
 * CPU quota at that many CPUs. -errno, the cause printed.
 */
int scale_confine_begin(struct scale_confine *c, const cpu_set_t *cpus, double quota_cpus);
/* Confines threads born since, notes those that left; 0 or -ESRCH (the daemon is gone). */
int scale_confine_pass(struct scale_confine *c);
/* Ends a point: a last pass, then every thread and the quota back as they were. */
int scale_confine_end(struct scale_confine *c);
/* Restores what is confined (if anything) and the daemon's cgroup, stops the guard, closes. */
void scale_confine_release(struct scale_confine *c);

#endif
