/* host_tar: a strict ustar reader into a directory of ours (host_tar.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_tar.h"

enum { BLOCK = 512 };

static int fail(struct corecap_host_tar *t, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct corecap_host_tar *t, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->error, sizeof(t->error), fmt, ap);
	va_end(ap);
	return err;
}

/* Exactly len bytes, each read bounded in time; -EPIPE at an early EOF. */
static int read_full(struct corecap_host_tar *t, void *buf, size_t len)
{
	char *p = buf;

	if (t->bytes + len > t->max_bytes)
		return fail(t, -EFBIG, "the run is over %llu bytes",
			    (unsigned long long)t->max_bytes);
	while (len) {
		struct pollfd pfd = {.fd = t->in_fd, .events = POLLIN};
		ssize_t got;
		int r = poll(&pfd, 1, t->timeout_ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fail(t, -errno, "cannot read the run: %s", strerror(errno));
		if (r == 0)
			return fail(t, -ETIMEDOUT, "the run stopped coming (no byte in %d s)",
				    t->timeout_ms / 1000);
		got = read(t->in_fd, p, len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return fail(t, -errno, "cannot read the run: %s", strerror(errno));
		if (got == 0)
			return fail(t, -EPIPE, "the run ended early (%llu bytes)",
				    (unsigned long long)t->bytes);
		p += got;
		len -= (size_t)got;
		t->bytes += (uint64_t)got;
	}
	return 0;
}

/* An octal field: digits, then NULs or spaces only; -1 if anything else. */
static long long octal(const char *f, size_t n)
{
	long long v = 0;
	size_t i = 0, digits = 0;

	while (i < n && f[i] == ' ')
		i++;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
		if (v > (1LL << 50))
			return -1;
		v = v * 8 + (f[i] - '0');
	}
	for (; i < n; i++)
		if (f[i] != '\0' && f[i] != ' ')
			return -1;
	return digits ? v : -1;
}

/* A NUL-bounded field of at most n bytes, copied NUL-terminated. */
static void field(char *out, const char *f, size_t n)
{
	size_t len = strnlen(f, n);

	memcpy(out, f, len);
	out[len] = '\0';
}

/*
 * Walks the directories of path's components but the last from dir_fd
 * (O_NOFOLLOW), into *parent (to close); *last points at the last one.
 */
static int walk(struct corecap_host_tar *t, char *path, int *parent, char **last)
{
	int fd = dup(t->dir_fd), depth = 0;
	char *p = path, *slash;

	if (fd < 0)
		return fail(t, -errno, "cannot walk the run: %s", strerror(errno));
	while ((slash = strchr(p, '/'))) {
		int next;

		*slash = '\0';
		next = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return fail(t, -EPROTO, "member under '%s', not a directory sent before",
				    p);
		fd = next;
		p = slash + 1;
		depth++;
	}
	*parent = fd;
	*last = p;
	return depth;
}

/* The member's name without TOP/, checked; "" for TOP itself. */
static int member_name(struct corecap_host_tar *t, const char *raw, bool dir, char *out,
		       size_t size)
{
	size_t top = strlen(t->top), n = strlen(raw), depth = 0;
	const char *rest, *c;

	if (dir && n && raw[n - 1] == '/')
		n--;
	if (n < top || strncmp(raw, t->top, top) != 0 || (n > top && raw[top] != '/'))
		return fail(t, -EPROTO, "a member outside '%s/'", t->top);
	rest = raw + top + (n > top ? 1 : 0);
	n -= (size_t)(rest - raw);
	if (n >= size)
		return fail(t, -EPROTO, "a member name too long");
	for (c = rest; c < rest + n; depth++) {
		const char *e = memchr(c, '/', (size_t)(rest + n - c));
		size_t len = e ? (size_t)(e - c) : (size_t)(rest + n - c);

		if (len == 0 || (len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			return fail(t, -EPROTO, "a member name with an empty, '.' or '..' part");
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)c[i] < 0x20 || c[i] == 0x7f)
				return fail(t, -EPROTO, "a member name with a control character");
		c += len + (e ? 1 : 0);
	}
	if (depth > CORECAP_TAR_DEPTH_MAX)
		return fail(t, -EPROTO, "a member over %d directories deep", CORECAP_TAR_DEPTH_MAX);
	memcpy(out, rest, n);
	out[n] = '\0';
	return 0;
}

static int copy_file(struct corecap_host_tar *t, char *name, long long size)
{
	char buf[64 * BLOCK], *last;
	int parent, fd, ret = 0;
	long long left = size;

	ret = walk(t, name, &parent, &last);
	if (ret < 0)
		return ret;
	ret = 0;
	fd = openat(parent, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(parent);
	if (fd < 0)
		return fail(t, -EPROTO, "cannot create '%s': %s", last, strerror(errno));
	while (left > 0) {
		size_t want = (size_t)((left + BLOCK - 1) / BLOCK * BLOCK);
		size_t data;

		if (want > sizeof(buf))
			want = sizeof(buf);
		ret = read_full(t, buf, want);
		if (ret < 0)
			break;
		data = left < (long long)want ? (size_t)left : want;
		for (size_t off = 0; off < data;) {
			ssize_t w = write(fd, buf + off, data - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				ret = fail(t, -errno, "cannot write '%s': %s", last,
					   strerror(errno));
				goto out_close;
			}
			off += (size_t)w;
		}
		left -= (long long)data;
	}
out_close:
	if (close(fd) < 0 && ret == 0)
		ret = fail(t, -errno, "cannot write '%s': %s", last, strerror(errno));
	if (ret == 0)
		t->files++;
	return ret;
}

static int make_dir(struct corecap_host_tar *t, char *name)
{
	char *last;
	int parent, ret;

	if (!*name)
		return 0; /* TOP itself: the destination */
	ret = walk(t, name, &parent, &last);
	if (ret < 0)
		return ret;
	ret = mkdirat(parent, last, 0700) < 0 ? -errno : 0;
	close(parent);
	if (ret < 0)
		return fail(t, -EPROTO, "cannot make directory '%s': %s", last, strerror(-ret));
	t->dirs++;
	return 0;
}

int corecap_host_tar_extract(struct corecap_host_tar *t)
{
	unsigned char h[BLOCK];
	int zeros = 0, ret;

	t->bytes = 0;
	t->files = t->dirs = 0;
	for (;;) {
		char name[101], prefix[156], full[257], rel[257];
		long long size, sum;
		unsigned long long want = 0;
		bool empty = true;
		char type;

		ret = read_full(t, h, BLOCK);
		if (ret < 0)
			return ret;
		for (int i = 0; i < BLOCK && empty; i++)
			empty = h[i] == 0;
		if (empty) {
			/* Two zero blocks end the archive; tar's padding after them is not read. */
			if (++zeros == 2)
				return 0;
			continue;
		}
		if (zeros)
			return fail(t, -EPROTO, "a member after a zero block");
		if (memcmp(h + 257,
			   "ustar\0"
			   "00",
			   8) != 0)
			return fail(t, -EPROTO, "not a POSIX ustar header");
		sum = octal((const char *)h + 148, 8);
		for (int i = 0; i < BLOCK; i++)
			want += (i >= 148 && i < 156) ? ' ' : h[i];
		if (sum < 0 || (unsigned long long)sum != want)
			return fail(t, -EPROTO, "a header with a bad checksum");
		size = octal((const char *)h + 124, 12);
		if (size < 0)
			return fail(t, -EPROTO, "a header with a bad size");
		field(name, (const char *)h, 100);
		field(prefix, (const char *)h + 345, 155);
		snprintf(full, sizeof(full), "%s%s%s", prefix, *prefix ? "/" : "", name);
		type = (char)h[156];
		if (type == '5') {
			if (size != 0)
				return fail(t, -EPROTO, "a directory with a size");
			ret = member_name(t, full, true, rel, sizeof(rel));
			if (ret == 0)
				ret = make_dir(t, rel);
		} else if (type == '0' || type == '\0') {
			ret = member_name(t, full, false, rel, sizeof(rel));
			if (ret == 0 && !*rel)
				ret = fail(t, -EPROTO, "'%s' sent as a file", t->top);
			if (ret == 0)
				ret = copy_file(t, rel, size);
		} else {
			ret = fail(t, -EPROTO,
				   "a member that is not a file or a directory (type '%c')",
				   type >= 0x20 && type < 0x7f ? type : '?');
		}
		if (ret < 0)
			return ret;
	}
}
