/*
 * disk_stats: the block devices a daemon's files live on, and their
 * counters (/proc/diskstats) as iostat reads them.
 *
 * A daemon's devices are found without acting on its files: the targets
 * of the links in /proc/PID/fd are matched against the longest mount
 * point of /proc/PID/mountinfo, whose major:minor is the filesystem's
 * device. Only a file on devtmpfs or tmpfs (a block device node it holds
 * open, as BlueStore holds its disk) is stat'ed, through the descriptor's
 * link, for its st_rdev: stat on another filesystem may call its server
 * (FUSE, NFS), which a less trusted owner could make hang. A partition
 * counts as its whole disk (/sys/dev/block/M:m), where the counters and
 * the I/O limits of cgroups are kept. Its cwd is left out: a daemon
 * whose working directory is on the system disk does no I/O there for it.
 */
#ifndef CORECAP_COLLECTOR_DISK_STATS_H
#define CORECAP_COLLECTOR_DISK_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* mountinfo and diskstats are read through buffers of this size at most. */
#define CORECAP_MOUNTINFO_MAX (1u << 20)
#define CORECAP_DISKSTATS_MAX (1u << 20)

struct corecap_disk_id {
	unsigned major, minor;
	char name[32]; /* as /proc/diskstats names it ("vda", "loop3") */
};

/* One device's cumulative counters: [0] reads, [1] writes. */
struct corecap_disk_counts {
	uint64_t ios[2];     /* completed */
	uint64_t sectors[2]; /* 512 bytes each */
	uint64_t io_ticks_ms; /* time with at least one I/O in flight */
	uint64_t queue_ms;    /* the I/Os' time in flight, summed (weighted) */
};

/* One /proc/diskstats line. 0, or -EINVAL for a line that is not one. */
int corecap_diskstats_line(const char *line, struct corecap_disk_id *id,
			   struct corecap_disk_counts *c);
/* The line of major:minor in a whole /proc/diskstats text. 0 or -ENOENT. */
int corecap_diskstats_find(const char *text, unsigned major, unsigned minor,
			   struct corecap_disk_counts *c);
/* The same from /proc/diskstats. */
int corecap_diskstats_read(unsigned major, unsigned minor, struct corecap_disk_counts *c);
/*
 * The mount holding path (absolute) in a mountinfo text: the longest
 * mount point that is path or a parent of it; its major:minor and its
 * filesystem type (fstype, at most fsize bytes). 0, or -ENOENT.
 */
int corecap_mountinfo_find(const char *text, const char *path, unsigned *major, unsigned *minor,
			   char *fstype, size_t fsize);
/*
 * PID's whole disks (at most max, deduplicated, in the order found). The
 * count, or -errno when /proc/PID/fd or its mountinfo cannot be read.
 */
int corecap_daemon_disks(pid_t pid, struct corecap_disk_id *out, size_t max);

#endif
