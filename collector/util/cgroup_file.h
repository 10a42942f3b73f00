/*
 * cgroup_file: reading a daemon's cgroup files as root, safely. The
 * cgroup path is the kernel's (/proc/PID/cgroup), but the tree under
 * /sys/fs/cgroup is writable by whoever was delegated a subtree: each
 * file is opened beneath the hierarchy's mount with openat2(RESOLVE_BENEATH
 * | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS), must be a regular file,
 * and is read through a fixed buffer. Used by cpu_quota (cpu.max) and
 * io_limit (io.max, blkio.throttle.*).
 */
#ifndef CORECAP_COLLECTOR_CGROUP_FILE_H
#define CORECAP_COLLECTOR_CGROUP_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* /proc/PID/cgroup and a controller's file are a few hundred bytes; more is not theirs. */
#define CORECAP_CGROUP_FILE_MAX 4096
#define CORECAP_CGROUP_PATH_MAX 1024

/*
 * The cgroup of /proc/PID/cgroup's text that holds a controller: a cgroup
 * v1 line naming v1_controller among its controllers ("4:cpu,cpuacct:/a";
 * *v1 true, its controller list into hier, the mount's name under
 * /sys/fs/cgroup), else the v2 line ("0::/a"; *v1 false, hier ""). Its
 * path into path. 0; -ENOENT without either; -EINVAL for a path that is
 * not absolute, holds ".." or "//", or does not fit.
 */
int corecap_cgroup_line(const char *text, const char *v1_controller, bool *v1, char *hier,
			size_t hsize, char *path, size_t size);
/* The same for PID, from /proc/PID/cgroup (read through a bounded buffer). */
int corecap_cgroup_of(pid_t pid, const char *v1_controller, bool *v1, char *hier, size_t hsize,
		      char *path, size_t size);
/* The mount of a hierarchy under /sys/fs/cgroup (v1: hier; v2: unified, or the root); an fd or -errno. */
int corecap_cgroup_open(bool v1, const char *hier);
/*
 * A regular file beneath root (rel: no leading '/'), through buf; its
 * length, or -errno (-EFBIG for one that fills buf: not the kernel's).
 */
ssize_t corecap_cgroup_read(int root, const char *rel, char *buf, size_t size);

/* A decimal number at s, as the kernel writes one (no sign, no blank); its end into *end. */
bool corecap_cgroup_u64(const char *s, const char **end, uint64_t *v);

#endif
