#include "cpu_quota.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CGROUP_ROOT "/sys/fs/cgroup"

/* "cpu" among a v1 line's comma-separated controllers. */
static bool has_cpu(const char *list, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = strcspn(list + i, ",:");

		if (n > len - i)
			n = len - i;
		if (n == 3 && strncmp(list + i, "cpu", 3) == 0)
			return true;
		i += n + 1;
	}
	return false;
}

static int copy_path(const char *p, size_t n, char *path, size_t size)
{
	if (n == 0 || p[0] != '/' || n >= size)
		return -EINVAL;
	memcpy(path, p, n);
	path[n] = '\0';
	/* The kernel writes no "..", no "//": a path with one is not its. */
	if (strstr(path, "/../") || (n >= 3 && strcmp(path + n - 3, "/..") == 0) ||
	    strstr(path, "//"))
		return -EINVAL;
	return 0;
}

int corecap_cgroup_cpu_line(const char *text, bool *v1, char *hier, size_t hsize, char *path,
			    size_t size)
{
	const char *v2 = NULL, *line = text;
	size_t v2_len = 0;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *c1 = memchr(line, ':', len);
		const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;

		if (c2 && c1 - line == 1 && line[0] == '0' && c2 == c1 + 1) {
			v2 = c2 + 1;
			v2_len = len - (size_t)(v2 - line);
		} else if (c2 && has_cpu(c1 + 1, (size_t)(c2 - c1 - 1))) {
			/* The cpu controller is on this v1 hierarchy, not on v2. */
			size_t n = (size_t)(c2 - c1 - 1);

			if (n >= hsize || memchr(c1 + 1, '/', n))
				return -EINVAL;
			memcpy(hier, c1 + 1, n);
			hier[n] = '\0';
			*v1 = true;
			return copy_path(c2 + 1, len - (size_t)(c2 + 1 - line), path, size);
		}
		line = end ? end + 1 : NULL;
	}
	if (!v2)
		return -ENOENT;
	*v1 = false;
	if (hsize)
		hier[0] = '\0';
	return copy_path(v2, v2_len, path, size);
}

static bool number(const char *s, const char **end, uint64_t *v)
{
	char *e;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &e, 10);
	if (errno)
		return false;
	*end = e;
	return true;
}

/* The end of a one-number or one-line file: an optional newline, then nothing. */
static bool at_end(const char *p)
{
	return p[0] == '\0' || (p[0] == '\n' && p[1] == '\0');
}

int corecap_cpu_max_parse(const char *text, uint64_t *quota_us, uint64_t *period_us)
{
	const char *p = text;
	uint64_t q = 0, per;

	if (strncmp(p, "max", 3) == 0)
		p += 3;
	else if (!number(p, &p, &q) || q == 0)
		return -EINVAL;
	if (*p != ' ' || !number(p + 1, &p, &per) || per == 0 || !at_end(p))
		return -EINVAL;
	*quota_us = q;
	*period_us = per;
	return 0;
}

int corecap_cfs_quota_parse(const char *quota, const char *period, uint64_t *quota_us,
			    uint64_t *period_us)
{
	const char *p;
	uint64_t q = 0, per;

	if (strncmp(quota, "-1", 2) == 0 && at_end(quota + 2))
		q = 0;
	else if (!number(quota, &p, &q) || q == 0 || !at_end(p))
		return -EINVAL;
	if (!number(period, &p, &per) || per == 0 || !at_end(p))
		return -EINVAL;
	*quota_us = q;
	*period_us = per;
	return 0;
}

/* A regular file beneath root (a FIFO opens without blocking, then is refused), through a
 * fixed buffer; its length or -errno. */
static ssize_t read_beneath(int root, const char *rel, char *buf, size_t size)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	size_t len = 0;
	ssize_t n;
	int fd;

	/* Without openat2 (Linux < 5.6) there is no safe walk: no quota is read. */
	fd = (int)syscall(SYS_openat2, root, rel, &how, sizeof(how));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	/* A full buffer is a file longer than the bound: not the kernel's. */
	return len == size - 1 ? -EFBIG : (ssize_t)len;
}

/* One cgroup's quota (rel: its path under the mount, no leading '/'); -ENOENT: no controller. */
static int quota_of(int root, bool v1, const char *rel, uint64_t *quota, uint64_t *period)
{
	char buf[CPU_QUOTA_FILE_MAX], buf2[CPU_QUOTA_FILE_MAX], file[CPU_QUOTA_PATH_MAX + 32];
	ssize_t n;

	snprintf(file, sizeof(file), "%s/%s", rel, v1 ? "cpu.cfs_quota_us" : "cpu.max");
	n = read_beneath(root, file, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (!v1)
		return corecap_cpu_max_parse(buf, quota, period);
	snprintf(file, sizeof(file), "%s/cpu.cfs_period_us", rel);
	n = read_beneath(root, file, buf2, sizeof(buf2));
	if (n < 0)
		return (int)n;
	return corecap_cfs_quota_parse(buf, buf2, quota, period);
}

/* The mount of the hierarchy with the cpu controller, under /sys/fs/cgroup. */
static int open_hierarchy(bool v1, const char *hier)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int top, fd = -1, err;

	top = open(CGROUP_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0)
		return -errno;
	if (v1) {
		fd = (int)syscall(SYS_openat2, top, hier, &how, sizeof(how));
	} else {
		/* Unified at /sys/fs/cgroup, or beside the v1 mounts (hybrid). */
		struct stat st;

		if (fstatat(top, "cgroup.controllers", &st, AT_SYMLINK_NOFOLLOW) == 0)
			fd = dup(top);
		else
			fd = (int)syscall(SYS_openat2, top, "unified", &how, sizeof(how));
	}
	err = errno;
	close(top);
	return fd < 0 ? -err : fd;
}

int corecap_cpu_quota_read(pid_t pid, struct corecap_cpu_quota *q)
{
	char buf[CPU_QUOTA_FILE_MAX], path[CPU_QUOTA_PATH_MAX], hier[64], proc[64];
	double tightest = 0;
	bool v1 = false;
	ssize_t n;
	int root, ret, fd;

	*q = (struct corecap_cpu_quota){0};
	snprintf(proc, sizeof(proc), "/proc/%d/cgroup", (int)pid);
	fd = open(proc, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	/* A full buffer may have cut the v2 line's path to a parent's: not read at all. */
	if ((size_t)n == sizeof(buf) - 1)
		return -EFBIG;
	buf[n] = '\0';
	ret = corecap_cgroup_cpu_line(buf, &v1, hier, sizeof(hier), path, sizeof(path));
	if (ret)
		return ret;
	root = open_hierarchy(v1, hier);
	if (root < 0)
		return root;
	q->file = v1 ? "cpu.cfs_quota_us" : "cpu.max";
	/* The cgroup, then each parent; the root cgroup has no quota of its own in v2. */
	for (char *slash; path[1] && (slash = strrchr(path, '/'));) {
		uint64_t quota, period;

		ret = quota_of(root, v1, path + 1, &quota, &period);
		if (ret == -ENOENT) {
			ret = 0; /* no cpu controller enabled at this level */
		} else if (ret) {
			break;
		} else if (quota && (!tightest || (double)quota / (double)period < tightest)) {
			tightest = (double)quota / (double)period;
			q->quota_us = quota;
			q->period_us = period;
			snprintf(q->cgroup, sizeof(q->cgroup), "%s", path);
		}
		if (slash == path)
			break;
		*slash = '\0';
	}
	close(root);
	return ret;
}
