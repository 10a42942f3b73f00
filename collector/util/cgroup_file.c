#include "cgroup_file.h"

#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CGROUP_ROOT "/sys/fs/cgroup"

bool corecap_cgroup_u64(const char *s, const char **end, uint64_t *v)
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

/* name among a v1 line's comma-separated controllers. */
static bool has_controller(const char *list, size_t len, const char *name)
{
	size_t want = strlen(name);

	for (size_t i = 0; i < len;) {
		size_t n = strcspn(list + i, ",:");

		if (n > len - i)
			n = len - i;
		if (n == want && strncmp(list + i, name, want) == 0)
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

int corecap_cgroup_line(const char *text, const char *v1_controller, bool *v1, char *hier,
			size_t hsize, char *path, size_t size)
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
		} else if (c2 && has_controller(c1 + 1, (size_t)(c2 - c1 - 1), v1_controller)) {
			/* The controller is on this v1 hierarchy, not on v2. */
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

int corecap_cgroup_of(pid_t pid, const char *v1_controller, bool *v1, char *hier, size_t hsize,
		      char *path, size_t size)
{
	char buf[CORECAP_CGROUP_FILE_MAX], proc[64];
	ssize_t n;
	int fd;

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
	return corecap_cgroup_line(buf, v1_controller, v1, hier, hsize, path, size);
}

ssize_t corecap_cgroup_read(int root, const char *rel, char *buf, size_t size)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	size_t len = 0;
	ssize_t n;
	int fd;

	/* Without openat2 (Linux < 5.6) there is no safe walk: nothing is read. */
	fd = (int)syscall(SYS_openat2, root, rel, &how, sizeof(how));
	if (fd < 0)
		return -errno;
	/* A FIFO opens without blocking (O_NONBLOCK), then is refused here. */
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

int corecap_cgroup_open(bool v1, const char *hier)
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
