#include "disk_stats.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The fds looked at, at most: a daemon's data files are among its first. */
#define DISK_FDS_MAX 65536

int corecap_diskstats_line(const char *line, struct corecap_disk_id *id,
			   struct corecap_disk_counts *c)
{
	unsigned long long f[11];
	char name[32];
	int n;

	/* major minor name, then reads: completed merged sectors ms, writes: the same,
	 * in flight, io_ticks, weighted (later kernels add discards and flushes). */
	n = sscanf(line, "%u %u %31s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &id->major, &id->minor, name, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6],
		   &f[7], &f[8], &f[9], &f[10]);
	if (n != 14)
		return -EINVAL;
	snprintf(id->name, sizeof(id->name), "%s", name);
	*c = (struct corecap_disk_counts){
		.ios = {f[0], f[4]},
		.sectors = {f[2], f[6]},
		.io_ticks_ms = f[9],
		.queue_ms = f[10],
	};
	return 0;
}

int corecap_diskstats_find(const char *text, unsigned major, unsigned minor,
			   struct corecap_disk_counts *c)
{
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		struct corecap_disk_id id;

		if (corecap_diskstats_line(line, &id, c) == 0 && id.major == major &&
		    id.minor == minor)
			return 0;
		line = end ? end + 1 : NULL;
	}
	return -ENOENT;
}

/* A whole /proc file through a buffer of at most max bytes; NULL with errno set. */
static char *read_proc(const char *path, size_t max)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap), *grown;
	ssize_t n;
	int fd, err;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	for (;;) {
		if (len + 1 == cap) {
			if (cap >= max) {
				errno = EFBIG;
				goto fail;
			}
			cap = cap * 2 > max ? max : cap * 2;
			grown = realloc(buf, cap);
			if (!grown)
				goto fail;
			buf = grown;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
fail:
	err = errno;
	if (fd >= 0)
		close(fd);
	free(buf);
	errno = err;
	return NULL;
}

int corecap_diskstats_read(unsigned major, unsigned minor, struct corecap_disk_counts *c)
{
	char *text = read_proc("/proc/diskstats", CORECAP_DISKSTATS_MAX);
	int ret;

	if (!text)
		return -errno;
	ret = corecap_diskstats_find(text, major, minor, c);
	free(text);
	return ret;
}

/* mountinfo escapes blanks, tabs, newlines and backslashes as \ooo. */
static void unescape(const char *s, size_t n, char *out, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 1 < size; i++) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			out[o++] = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 +
					  (s[i + 3] - '0'));
			i += 3;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
}

/* Is mount point mp path itself or one of its parents? */
static bool under(const char *path, const char *mp)
{
	size_t n = strlen(mp);

	if (strcmp(mp, "/") == 0)
		return path[0] == '/';
	return strncmp(path, mp, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The n-th blank-separated field of a line (s, len): its start and length; false if absent. */
static bool field(const char *s, size_t len, size_t n, const char **f, size_t *flen)
{
	size_t i = 0;

	for (size_t k = 0;; k++) {
		while (i < len && s[i] == ' ')
			i++;
		if (i == len)
			return false;
		*f = s + i;
		while (i < len && s[i] != ' ')
			i++;
		*flen = (size_t)(s + i - *f);
		if (k == n)
			return true;
	}
}

int corecap_mountinfo_find(const char *text, const char *path, unsigned *major, unsigned *minor,
			   char *fstype, size_t fsize)
{
	size_t best = 0;
	int ret = -ENOENT;

	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n'), *f, *dev;
		size_t len = end ? (size_t)(end - line) : strlen(line), flen, dlen, k;
		char mp[4096], num[32];
		unsigned ma, mi;

		/* id parent major:minor root mount-point options [optional...] - fstype ... */
		if (field(line, len, 2, &dev, &dlen) && field(line, len, 4, &f, &flen) &&
		    dlen < sizeof(num)) {
			unescape(f, flen, mp, sizeof(mp));
			memcpy(num, dev, dlen);
			num[dlen] = '\0';
			if (under(path, mp) && strlen(mp) + 1 > best &&
			    sscanf(num, "%u:%u", &ma, &mi) == 2) {
				for (k = 6; field(line, len, k, &f, &flen); k++)
					if (flen == 1 && f[0] == '-')
						break;
				if (field(line, len, k + 1, &f, &flen)) {
					best = strlen(mp) + 1;
					*major = ma;
					*minor = mi;
					snprintf(fstype, fsize, "%.*s", (int)flen, f);
					ret = 0;
				}
			}
		}
		line = end ? end + 1 : NULL;
	}
	return ret;
}

/* A partition's whole disk, and the disk's name, from sysfs (the kernel's own tree). */
static int whole_disk(unsigned major, unsigned minor, struct corecap_disk_id *id)
{
	char link[128], target[512], file[600], buf[64], *slash;
	ssize_t n;
	int fd;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major, minor);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	snprintf(file, sizeof(file), "%s/partition", link);
	if (access(file, F_OK) == 0 && (slash = strrchr(target, '/'))) {
		/* .../block/vda/vda1: the disk is the parent directory. */
		*slash = '\0';
		snprintf(file, sizeof(file), "%s/../dev", link);
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return -EINVAL;
		buf[n] = '\0';
		if (sscanf(buf, "%u:%u", &major, &minor) != 2)
			return -EINVAL;
	}
	slash = strrchr(target, '/');
	slash = slash ? slash + 1 : target;
	if (strlen(slash) >= sizeof(id->name))
		return -ENAMETOOLONG;
	memcpy(id->name, slash, strlen(slash) + 1);
	id->major = major;
	id->minor = minor;
	return 0;
}

static void add_disk(struct corecap_disk_id *out, size_t max, size_t *n, unsigned major,
		     unsigned minor)
{
	struct corecap_disk_id id;

	/* Major 0: no device (tmpfs, proc, an anonymous one such as btrfs' or overlayfs'). */
	if (major == 0 || whole_disk(major, minor, &id) < 0)
		return;
	for (size_t i = 0; i < *n; i++)
		if (out[i].major == id.major && out[i].minor == id.minor)
			return;
	if (*n < max)
		out[(*n)++] = id;
}

/* One descriptor's link: its filesystem's device, or the block device it is. */
static void disk_of(int dirfd, const char *entry, const char *mountinfo,
		    struct corecap_disk_id *out, size_t max, size_t *n)
{
	char target[4096], fstype[32];
	unsigned major, minor;
	struct stat st;
	ssize_t len;

	len = readlinkat(dirfd, entry, target, sizeof(target) - 1);
	if (len <= 0 || target[0] != '/')
		return; /* socket:[..], pipe:[..], anon_inode:..: no file */
	target[len] = '\0';
	if (corecap_mountinfo_find(mountinfo, target, &major, &minor, fstype, sizeof(fstype)))
		return;
	if (strcmp(fstype, "devtmpfs") == 0 || strcmp(fstype, "tmpfs") == 0) {
		/* A node on a kernel filesystem: its stat calls no server. */
		if (fstatat(dirfd, entry, &st, 0) == 0 && S_ISBLK(st.st_mode))
			add_disk(out, max, n, major(st.st_rdev), minor(st.st_rdev));
		return;
	}
	add_disk(out, max, n, major, minor);
}

int corecap_daemon_disks(pid_t pid, struct corecap_disk_id *out, size_t max)
{
	char path[64], *mountinfo;
	struct dirent *e;
	size_t n = 0, seen = 0;
	DIR *d;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
	mountinfo = read_proc(path, CORECAP_MOUNTINFO_MAX);
	if (!mountinfo)
		return -errno;
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d) {
		err = errno;
		free(mountinfo);
		return -err;
	}
	while ((e = readdir(d)) && seen++ < DISK_FDS_MAX)
		if (e->d_name[0] != '.')
			disk_of(dirfd(d), e->d_name, mountinfo, out, max, &n);
	closedir(d);
	free(mountinfo);
	return (int)n;
}
