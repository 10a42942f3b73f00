#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_stat.h"

ssize_t corecap_pread_small_file(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t ret;

	while (len < size - 1) {
		ret = pread(fd, buf + len, size - 1 - len, (off_t)len);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (ret == 0)
			break;
		len += (size_t)ret;
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

ssize_t corecap_read_small_file(int dirfd, const char *path, char *buf, size_t size)
{
	ssize_t ret;
	int fd;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = corecap_pread_small_file(fd, buf, size);
	close(fd);
	return ret;
}

/* corecap_read_comm of path relative to dirfd. */
static bool read_comm_at(int dirfd, const char *path, char comm[16])
{
	char buf[64];
	size_t n;

	memset(comm, 0, 16);
	if (corecap_read_small_file(dirfd, path, buf, sizeof(buf)) < 0)
		return false;
	n = strcspn(buf, "\n");
	memcpy(comm, buf, n < 15 ? n : 15);
	return true;
}

bool corecap_read_comm(const char *path, char comm[16])
{
	return read_comm_at(AT_FDCWD, path, comm);
}

int corecap_proc_stat_parse(const char *text, struct corecap_proc_stat *st)
{
	const char *open = strchr(text, '(');
	const char *close = strrchr(text, ')');
	unsigned long long v;
	const char *p;
	size_t n;
	int field;

	memset(st, 0, sizeof(*st));
	if (!open || !close || close < open || close[1] != ' ')
		return -EINVAL;
	n = (size_t)(close - open - 1);
	if (n >= sizeof(st->comm))
		n = sizeof(st->comm) - 1;
	memcpy(st->comm, open + 1, n);
	st->comm[n] = '\0';
	p = close + 2;
	st->state = *p;
	if (!st->state || st->state == ' ')
		return -EINVAL;
	/* Field 3 is the state; walk the blank-separated fields after it. */
	for (field = 4; field <= 39; field++) {
		char *end;

		p = strchr(p, ' ');
		if (!p)
			return field > 15 ? 0 : -EINVAL;
		p++;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (end == p && *p != '-')
			return -EINVAL;
		switch (field) {
		case 9:
			st->flags = (unsigned long)v;
			break;
		case 14:
			st->utime_ticks = v;
			break;
		case 15:
			st->stime_ticks = v;
			break;
		case 22:
			st->starttime_ticks = v;
			break;
		case 39:
			st->processor = (int)v;
			break;
		}
	}
	return 0;
}

int corecap_proc_stat_read(int dirfd, const char *path, struct corecap_proc_stat *st)
{
	char buf[1024];
	ssize_t n;

	n = corecap_read_small_file(dirfd, path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return corecap_proc_stat_parse(buf, st);
}

bool corecap_proc_fd_find(pid_t pid, bool (*match)(const char *target, const void *ctx),
			  const void *ctx, char *link, size_t size)
{
	char dir[64], p[320];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		ssize_t n;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		n = readlink(p, link, size - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		found = match(link, ctx);
	}
	closedir(d);
	return found;
}

int corecap_proc_each(bool (*fn)(pid_t pid, int dirfd, void *ctx), void *ctx)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool done = false;

	if (!d)
		return -errno;
	while (!done && (e = readdir(d))) {
		char *end;
		long pid;
		int fd;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		errno = 0;
		pid = strtol(e->d_name, &end, 10);
		if (*end || errno || pid > INT32_MAX || pid == (long)getpid())
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		done = fn((pid_t)pid, fd, ctx);
		close(fd);
	}
	closedir(d);
	return 0;
}

bool corecap_proc_comm_is(int dirfd, const char *comm)
{
	char name[16];

	return read_comm_at(dirfd, "comm", name) && strcmp(name, comm) == 0;
}

int corecap_machine_busy_s(double *busy_s, double *steal_s)
{
	unsigned long long v[8];
	char buf[512];
	ssize_t n = corecap_read_small_file(AT_FDCWD, "/proc/stat", buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	if (sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) != 8)
		return -EINVAL;
	*busy_s = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)sysconf(_SC_CLK_TCK);
	if (steal_s)
		*steal_s = (double)v[7] / (double)sysconf(_SC_CLK_TCK);
	return 0;
}
