/*
 * corecap/stats_path.h: how another process reaches the live counters
 * (corecap/stats_layout.h) of a process under the shim, and what it checks
 * before it trusts them.
 *
 * The shim keeps its counters in a memfd named "corecap.<pid>", sized
 * once and sealed (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), mapped
 * shared and kept open in the process (close-on-exec, never fd 0-2). No
 * file exists in any directory, so nothing can be left behind, swept,
 * replaced or forged under a name, and nobody can truncate it: a mapping
 * of it can never raise SIGBUS, in the shim or in a reader.
 *
 * A reader reaches it through the process itself:
 *  - /proc/PID/fd/N whose link reads "/memfd:corecap.<pid> (deleted)":
 *    listing and opening those needs ptrace-read rights on the process,
 *    i.e. its user or root (a third user gets EACCES, never a file of his);
 *  - when the process closed that descriptor (a daemon that closes every
 *    descriptor as it starts), the mapping's line in /proc/PID/maps and
 *    /proc/PID/map_files/START-END, which the kernel opens for root
 *    (CAP_SYS_ADMIN) only.
 * corecap_stats_open() then checks what it opened: a regular file, sealed
 * against shrinking, owned by the process's real or effective uid or by
 * root, of a size within [header, CORECAP_STATS_MAX_BYTES]. Only then may
 * the caller map it (no SIGBUS path: it cannot shrink) and copy it with
 * corecap_stats_copy(); it still checks the copy (corecap_stats_valid) and
 * that header.pid is the process.
 *
 * /dev/shm/corecap.<pid> was where shims before this layout kept their
 * counters: readers never open it; corecap_stats_legacy_file() lets them
 * say that they ignore one that is there.
 */
#ifndef CORECAP_STATS_PATH_H
#define CORECAP_STATS_PATH_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "stats_layout.h"

#define CORECAP_STATS_MEMFD_FMT "corecap.%d" /* pid: the memfd's name */
/* What readlink of /proc/PID/fd/N reads for it. */
#define CORECAP_STATS_LINK_FMT "/memfd:corecap.%d (deleted)"
/* The file of older shims, never read: DIR (/dev/shm), pid. */
#define CORECAP_STATS_DIR_DEFAULT "/dev/shm"
#define CORECAP_STATS_FILE_FMT	  "%s/corecap.%d"
/* A buffer for a path these functions name in messages. */
#define CORECAP_STATS_PATH_MAX 320
/* The segment is about 4 MiB; a far larger one is not one. */
#define CORECAP_STATS_MAX_BYTES (UINT64_C(256) << 20)

#ifndef F_GET_SEALS
#define F_GET_SEALS   1034
#define F_SEAL_SEAL   0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW   0x0004
#endif

/* Real and effective uid of pid from /proc/PID/status; false if unreadable. */
static inline bool corecap_stats_proc_uids(pid_t pid, uid_t *ruid, uid_t *euid)
{
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long r, e;

		if (sscanf(line, "Uid:\t%lu\t%lu", &r, &e) == 2) {
			*ruid = (uid_t)r;
			*euid = (uid_t)e;
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* The descriptor number in pid's table whose link names its segment, or -ENOENT / -errno. */
static inline int corecap_stats_find_fd(pid_t pid, char *what, size_t cap)
{
	struct dirent *d;
	char dir[64], want[64], link[64 + sizeof(d->d_name)], got[128];
	int ret = -ENOENT;
	DIR *dp;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	snprintf(want, sizeof(want), CORECAP_STATS_LINK_FMT, (int)pid);
	snprintf(what, cap, "%s", dir);
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while (ret == -ENOENT && (d = readdir(dp))) {
		ssize_t n;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, d->d_name);
		n = readlink(link, got, sizeof(got) - 1);
		if (n < 0)
			continue;
		got[n] = '\0';
		if (strcmp(got, want) == 0) {
			snprintf(what, cap, "%s", link);
			ret = atoi(d->d_name);
		}
	}
	closedir(dp);
	return ret;
}

/* /proc/PID/map_files/START-END of the segment's mapping into what, or -ENOENT / -errno. */
static inline int corecap_stats_find_mapping(pid_t pid, char *what, size_t cap)
{
	char maps[64], want[64], line[512];
	int ret = -ENOENT;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	snprintf(want, sizeof(want), CORECAP_STATS_LINK_FMT, (int)pid);
	f = fopen(maps, "re");
	if (!f) {
		snprintf(what, cap, "%s", maps);
		return -errno;
	}
	while (ret == -ENOENT && fgets(line, sizeof(line), f)) {
		unsigned long long start, end;
		size_t n = strcspn(line, "\n"), w = strlen(want);

		line[n] = '\0';
		if (n < w || strcmp(line + n - w, want) != 0 ||
		    sscanf(line, "%llx-%llx", &start, &end) != 2)
			continue;
		snprintf(what, cap, "/proc/%d/map_files/%llx-%llx", (int)pid, start, end);
		ret = 0;
	}
	fclose(f);
	return ret;
}

/*
 * Opens the live counters of pid with flags (O_RDONLY, or O_RDWR for the
 * delay control), checked as the header says. Returns the descriptor and
 * its size in *bytes, or a negative errno with `what` naming the path
 * that failed and `why` (cap bytes) the cause:
 *   -ENOENT  the process has no segment (not under the shim, or
 *            CORECAP_STATS=off), or no longer exists;
 *   -EACCES  not allowed (another user's process; or, when the process
 *            closed the shim's descriptor, not root);
 *   -EPERM   something named like the segment that fails the checks
 *            (not sealed, owned by another user, a wrong size).
 */
static inline int corecap_stats_open(pid_t pid, int flags, size_t *bytes, char *what, size_t cap,
				     char *why, size_t why_cap)
{
	uid_t ruid, euid;
	struct stat st;
	int n, fd, seals;

	snprintf(why, why_cap, "%s", "");
	n = corecap_stats_find_fd(pid, what, cap);
	if (n >= 0) {
		fd = open(what, flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	} else if (n == -ENOENT) {
		/* No descriptor: the mapping, if the process closed it. */
		n = corecap_stats_find_mapping(pid, what, cap);
		if (n < 0) {
			snprintf(why, why_cap, "%s", strerror(-n));
			return n;
		}
		fd = open(what, flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		if (fd < 0 && (errno == EPERM || errno == EACCES)) {
			snprintf(why, why_cap,
				 "%s (the process closed the shim's descriptor; only root can "
				 "open its mapping)",
				 strerror(EACCES));
			return -EACCES;
		}
	} else {
		snprintf(why, why_cap, "%s", strerror(-n));
		return n;
	}
	if (fd < 0) {
		n = -errno;
		snprintf(why, why_cap, "%s", strerror(errno));
		return n;
	}
	seals = fcntl(fd, F_GET_SEALS);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, why_cap, "not a regular file");
		goto out_refuse;
	}
	if (seals < 0 || !(seals & F_SEAL_SHRINK)) {
		snprintf(why, why_cap, "not sealed against shrinking");
		goto out_refuse;
	}
	if (!corecap_stats_proc_uids(pid, &ruid, &euid)) {
		snprintf(why, why_cap, "cannot read the process's uid");
		goto out_refuse;
	}
	if (st.st_uid != ruid && st.st_uid != euid && st.st_uid != 0) {
		snprintf(why, why_cap,
			 "owned by uid %u, not by the process's user (uid %u) or root",
			 (unsigned)st.st_uid, (unsigned)euid);
		goto out_refuse;
	}
	if ((uint64_t)st.st_size < sizeof(struct corecap_stats_header) ||
	    (uint64_t)st.st_size > CORECAP_STATS_MAX_BYTES) {
		snprintf(why, why_cap, "a size of %lld bytes", (long long)st.st_size);
		goto out_refuse;
	}
	*bytes = (size_t)st.st_size & ~(size_t)7;
	return fd;
out_refuse:
	close(fd);
	return -EPERM;
}

/*
 * Whether an older shim's file /dev/shm/corecap.<pid> is there (never
 * followed nor read), with its owner: readers say that they ignore it.
 */
static inline bool corecap_stats_legacy_file(pid_t pid, char *path, size_t cap, uid_t *owner)
{
	struct stat st;

	snprintf(path, cap, CORECAP_STATS_FILE_FMT, CORECAP_STATS_DIR_DEFAULT, (int)pid);
	if (lstat(path, &st) < 0)
		return false;
	*owner = st.st_uid;
	return true;
}

#endif
