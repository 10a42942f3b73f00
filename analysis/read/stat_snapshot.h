/*
 * stat_snapshot: what `corecap stat` reads of a live daemon under the
 * shim: the shim's segment (its sealed memfd, reached through
 * /proc/PID/fd: corecap/stats_path.h, layout corecap/stats_layout.h),
 * mapped read-only and checked; a copy of it taken whole
 * (corecap_stats_copy) with every thread's CPU and run-queue time from
 * /proc right after it (schedstat, which the shim does not count). Errors
 * come back as values; nothing is printed.
 */
#ifndef CORECAP_READ_STAT_SNAPSHOT_H
#define CORECAP_READ_STAT_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../model/stat_interval.h"

/* One copy of the shim's segment, its live threads' times, and when it was taken. */
struct stat_snap {
	void *buf;
	uint64_t t_ns; /* CLOCK_MONOTONIC */
	struct stat_tasks tasks;
};

/* The process's comm, or false when /proc has no such process. */
bool corecap_stat_process_comm(pid_t pid, char *comm, size_t cap);

/*
 * Maps bytes of the segment open at fd (corecap_stats_open's) read-only
 * and checks it is a stats segment of a version this corecap reads
 * (CORECAP_STATS_VERSION_OLDEST to CORECAP_STATS_VERSION) and of pid; fd
 * is closed. 0; -errno of mmap; -EPROTO when it is not a stats segment;
 * -EPROTONOSUPPORT when it is one of another version (*seg_version says
 * which); -ESRCH when it is another process's (*seg_pid says whose).
 */
int corecap_stat_segment_map(pid_t pid, int fd, size_t bytes, const void **map, int32_t *seg_pid,
			     uint32_t *seg_version);

/*
 * A copy of the mapped segment (len bytes) into s, and the threads' times.
 * 0; -EAGAIN when the segment never held still; -EINVAL when the copy is
 * not a valid segment; -ENOMEM.
 */
int corecap_stat_snap_take(pid_t pid, const void *map, size_t len, struct stat_snap *s);
void corecap_stat_snap_release(struct stat_snap *s);

/*
 * /proc/PID/task/TID/schedstat's line: time on a CPU and time runnable
 * waiting for one (run delay), in ns. false when it is not that line.
 */
bool corecap_stat_parse_schedstat(const char *line, uint64_t *run_ns, uint64_t *delay_ns);
/* /proc/PID/task/TID/stat's line: utime + stime, in clock ticks. */
bool corecap_stat_parse_task_cpu(const char *line, uint64_t *ticks);
/*
 * The thread's CPU and run-queue time so far, in ns: schedstat's where the
 * kernel has it; else CPU time from stat (utime + stime, tick resolution)
 * and *has_runq false. 0, or -errno (the thread is gone: -ENOENT).
 */
int corecap_stat_task_times(pid_t pid, pid_t tid, uint64_t *cpu_ns, uint64_t *runq_ns,
			    bool *has_runq);

#endif
