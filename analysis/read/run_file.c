#include "run_file.h"

#include <corecap/diag.h>
#include <corecap/run_format.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zstd.h>

#define KIB (1ull << 10)
#define MIB (1ull << 20)
#define GIB (1ull << 30)

/*
 * The size bound of each kind of run file (docs/robustness.md says why
 * each): far above what a recording writes, so that only a file that is
 * not a recording is refused. The files read whole (JSON, metadata,
 * stacks.bin, cpu.prof, the stats) are bounded by what memory they may
 * cost; the streamed ones (events.bin, wall.samples, threads.tsv, the trace
 * index) by the time a pass over them may take.
 */
static const struct {
	const char *name; /* the path's last components */
	uint64_t max;
} bounds[] = {
	{CORECAP_RUN_WALL, 4 * GIB},
	{CORECAP_RUN_THREADS, 1 * GIB},
	{CORECAP_RUN_MAPS, 16 * MIB},
	{CORECAP_RUN_BUILDIDS, 4 * MIB},
	{CORECAP_KERNEL_EVENTS_FILE, 1ull << 40},
	{CORECAP_KERNEL_STACKS_FILE, 1 * GIB},
	{CORECAP_RUN_CPU_PROF, 1 * GIB},
	/* The OSD's op history for the window: the collector keeps 10 000 ops
	 * (collector/sources/ceph_asok.c), 30.6 MB of JSON on a bare ceph-osd. */
	{CORECAP_RUN_CEPH_HISTORIC_OPS, 128 * MIB},
	{CORECAP_RUN_CEPH_HISTORIC_OPS_ZST, 128 * MIB}, /* decompressed: the above's */
	/* `config show`: about 2000 keys, 100 KB. */
	{CORECAP_RUN_CEPH_CONFIG, 16 * MIB},
	{CORECAP_RUN_STATS_BEGIN, 256 * MIB},
	{CORECAP_RUN_STATS_END, 256 * MIB},
	{"metadata", 64 * MIB}, /* a CTF trace's (read/ctf_check.h) */
	/* A benchmark's ops (read/client_ops.h): lines under 128 bytes, 4M of them. */
	{CORECAP_RUN_CLIENT_OPS, 512 * MIB},
};
#define JSON_SUFFIX	".json"
#define ZSTD_SUFFIX	".zst" /* a JSON file stored zstd-compressed */
#define INDEX_SUFFIX	".idx"
#define INDEX_MAX_BYTES (1 * GIB)
#define DEFAULT_MAX_BYTES                                                                          \
	(1ull << 40) /* a trace's stream files, read by libbabeltrace2 in packets */
#define LINES_READ_BYTES (64 * KIB)

static bool ends_with(const char *path, const char *name)
{
	size_t lp = strlen(path), ln = strlen(name);

	return lp >= ln && strcmp(path + lp - ln, name) == 0 &&
	       (lp == ln || path[lp - ln - 1] == '/' || name[0] == '.');
}

uint64_t corecap_run_file_max_bytes(const char *path)
{
	for (size_t i = 0; i < sizeof(bounds) / sizeof(bounds[0]); i++)
		if (ends_with(path, bounds[i].name))
			return bounds[i].max;
	if (ends_with(path, JSON_SUFFIX))
		return CORECAP_RUN_FILE_JSON_MAX_BYTES;
	if (ends_with(path, INDEX_SUFFIX))
		return INDEX_MAX_BYTES;
	return DEFAULT_MAX_BYTES;
}

/* The size and bound of this thread's last refusal, for corecap_run_file_strerror(). */
static __thread char too_big[160];

/* The run directories registered: each with a descriptor to open beneath. */
static struct run_root {
	char *dir; /* without trailing slashes */
	int fd;
} * roots;
static size_t n_roots;
static pthread_mutex_t roots_lock = PTHREAD_MUTEX_INITIALIZER;

int corecap_run_file_add_root(const char *dir)
{
	size_t len = strlen(dir);
	struct run_root *grown;
	int fd, ret = 0;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len == 0 || (len == 1 && dir[0] == '/'))
		return 0; /* "/": every path is beneath it */
	pthread_mutex_lock(&roots_lock);
	for (size_t i = 0; i < n_roots; i++)
		if (strlen(roots[i].dir) == len && strncmp(roots[i].dir, dir, len) == 0)
			goto out;
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	grown = realloc(roots, (n_roots + 1) * sizeof(*roots));
	if (!grown || !(grown[n_roots].dir = strndup(dir, len))) {
		if (grown)
			roots = grown;
		close(fd);
		ret = -ENOMEM;
		goto out;
	}
	roots = grown;
	roots[n_roots++].fd = fd;
out:
	pthread_mutex_unlock(&roots_lock);
	return ret;
}

/* The registered root path lies under (the longest), and the rest of path; -1 if none. */
static int root_of(const char *path, const char **rest)
{
	size_t best = 0;
	int fd = -1;

	pthread_mutex_lock(&roots_lock);
	for (size_t i = 0; i < n_roots; i++) {
		size_t len = strlen(roots[i].dir);

		if (len > best && strncmp(path, roots[i].dir, len) == 0 && path[len] == '/') {
			best = len;
			fd = roots[i].fd;
		}
	}
	pthread_mutex_unlock(&roots_lock);
	if (fd >= 0) {
		*rest = path + best;
		while (**rest == '/')
			(*rest)++;
	}
	return fd;
}

/* Without openat2 (Linux < 5.6): where the descriptor really leads, under the root's own. */
static bool beneath(int root, int fd)
{
	char link[64], root_path[PATH_MAX], file_path[PATH_MAX];
	ssize_t n, m;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", root);
	n = readlink(link, root_path, sizeof(root_path) - 1);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	m = readlink(link, file_path, sizeof(file_path) - 1);
	if (n <= 0 || m <= 0)
		return false;
	return (size_t)m > (size_t)n && strncmp(file_path, root_path, (size_t)n) == 0 &&
	       (file_path[n] == '/' || (n == 1 && root_path[0] == '/'));
}

/* open(path, flags), beneath its run directory when it lies in a registered one. */
static int open_in_run(const char *path, int flags)
{
	const char *rest;
	int root = root_of(path, &rest), fd;
	struct open_how how = {
		.flags = (uint64_t)flags,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};

	if (root < 0)
		return open(path, flags);
	fd = (int)syscall(SYS_openat2, root, rest, &how, sizeof(how));
	if (fd < 0 && errno == EXDEV) {
		errno = ELINKOUT_RUN_FILE;
		return -1;
	}
	if (fd >= 0 || errno != ENOSYS)
		return fd;
	fd = openat(root, rest, flags);
	if (fd >= 0 && !beneath(root, fd)) {
		close(fd);
		errno = ELINKOUT_RUN_FILE;
		return -1;
	}
	return fd;
}

int corecap_run_file_open(const char *path)
{
	struct stat st;
	uint64_t max;
	int fd, flags;

	fd = open_in_run(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOTREG_RUN_FILE;
	}
	max = corecap_run_file_max_bytes(path);
	if ((uint64_t)st.st_size > max) {
		close(fd);
		snprintf(too_big, sizeof(too_big),
			 "%llu bytes, more than the %llu bytes a recording's file of this kind "
			 "may hold (docs/robustness.md): not read",
			 (unsigned long long)st.st_size, (unsigned long long)max);
		return -ETOOBIG_RUN_FILE;
	}
	/* Regular files ignore O_NONBLOCK; drop it anyway for plain reads. */
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}

FILE *corecap_run_file_fopen(const char *path)
{
	int fd = corecap_run_file_open(path);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "re");
	if (!f) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

const char *corecap_run_file_strerror(int err)
{
	switch (err) {
	case ENOTREG_RUN_FILE:
		return "not a regular file (a FIFO, device, socket or directory)";
	case ETOOBIG_RUN_FILE:
		return too_big[0] ? too_big : "larger than a recording's file of this kind";
	case ELINKOUT_RUN_FILE:
		return "a symbolic link that leads out of the run directory: refused (a run "
		       "holds its own files)";
	case ELINE_RUN_FILE:
		return "a line longer than a recording writes";
	case ENUL_RUN_FILE:
		return "a NUL byte: not a text file";
	}
	return strerror(err);
}

int corecap_run_lines_open(struct run_lines *l, const char *path, size_t max_line)
{
	*l = (struct run_lines){.fd = -1, .path = path, .max_line = max_line};
	l->fd = corecap_run_file_open(path);
	if (l->fd < 0)
		return l->fd;
	/* A whole line, its newline and the NUL put in its place, plus a read's room. */
	l->cap = max_line + 2 + LINES_READ_BYTES;
	l->buf = malloc(l->cap);
	if (!l->buf) {
		close(l->fd);
		l->fd = -1;
		return -ENOMEM;
	}
	return 0;
}

/* ENUL_RUN_FILE if [p, p + n) holds a NUL byte (bad_at set), else 0. */
static int nul_in(struct run_lines *l, const char *p, size_t n)
{
	const char *z = memchr(p, '\0', n);

	if (!z)
		return 0;
	l->bad_at = l->off + (uint64_t)(z - l->buf);
	return -ENUL_RUN_FILE;
}

int corecap_run_lines_next(struct run_lines *l, char **line, size_t *len)
{
	char *nl;
	ssize_t k;
	int ret;

	for (;;) {
		nl = memchr(l->buf + l->start, '\n', l->end - l->start);
		if (nl) {
			size_t n = (size_t)(nl - (l->buf + l->start));

			if (n > l->max_line) {
				l->bad_at = l->off + l->start;
				return -ELINE_RUN_FILE;
			}
			if ((ret = nul_in(l, l->buf + l->start, n)))
				return ret;
			*nl = '\0';
			*line = l->buf + l->start;
			*len = n;
			l->start += n + 1;
			l->lineno++;
			return 1;
		}
		if ((ret = nul_in(l, l->buf + l->start, l->end - l->start)))
			return ret;
		if (l->end - l->start > l->max_line) {
			l->bad_at = l->off + l->start;
			return -ELINE_RUN_FILE;
		}
		if (l->eof) {
			/* Only the last line can lack its newline: cut by a killed collector. */
			l->torn = l->end > l->start;
			l->start = l->end;
			return 0;
		}
		if (l->start) {
			memmove(l->buf, l->buf + l->start, l->end - l->start);
			l->off += l->start;
			l->end -= l->start;
			l->start = 0;
		}
		k = read(l->fd, l->buf + l->end, l->cap - 1 - l->end);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			l->eof = true;
		l->end += (size_t)k;
	}
}

int corecap_run_lines_err(const struct run_lines *l, int ret, char **err)
{
	if (ret == -ELINE_RUN_FILE)
		return corecap_err(err, -EINVAL,
				   "cannot read '%s': line %llu (at byte %llu) is longer than %zu "
				   "bytes, more than a recording writes",
				   l->path, (unsigned long long)l->lineno + 1,
				   (unsigned long long)l->bad_at, l->max_line);
	if (ret == -ENUL_RUN_FILE)
		return corecap_err(err, -EINVAL,
				   "cannot read '%s': a NUL byte at byte %llu: not a text file "
				   "(a recording writes none)",
				   l->path, (unsigned long long)l->bad_at);
	return corecap_err(err, ret, "cannot read '%s': %s", l->path,
			   corecap_run_file_strerror(-ret));
}

void corecap_run_lines_close(struct run_lines *l)
{
	if (l->fd >= 0)
		close(l->fd);
	free(l->buf);
	*l = (struct run_lines){.fd = -1};
}

/* The error "'PATH': <why>". */
static int fail(char **err, int ret, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char **err, int ret, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	corecap_verr(err, ret, fmt, ap);
	va_end(ap);
	return corecap_err_wrap(err, ret, "'%s'", path);
}

/* Reads fd whole into a NUL-terminated buffer; 0 or a negative errno. */
static int read_all(int fd, uint64_t max, char **buf, size_t *len)
{
	size_t cap = 4096, got = 0;
	char *b = malloc(cap), *grown;
	ssize_t k;

	if (!b)
		return -ENOMEM;
	for (;;) {
		if (got + 1 == cap) {
			/* cap stays below 2^31: json-c takes an int length */
			if (cap > max) {
				free(b);
				return -EFBIG;
			}
			grown = realloc(b, cap * 2);
			if (!grown) {
				free(b);
				return -ENOMEM;
			}
			b = grown;
			cap *= 2;
		}
		k = read(fd, b + got, cap - 1 - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int ret = -errno;

			free(b);
			return ret;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	b[got] = '\0';
	*buf = b;
	*len = got;
	return 0;
}

/*
 * A JSON file stored zstd-compressed (NAME.json.zst, corecap/run_format.h):
 * buf decompressed into *out (NUL-terminated), at most max bytes. 0, or
 * -EFBIG (more than max: a bomb is refused once past it), or -EINVAL
 * with *why (not zstd, cut short, or garbage after a frame).
 */
static int unzstd(const char *buf, size_t len, uint64_t max, char **out, size_t *out_len,
		  const char **why)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	ZSTD_inBuffer in = {buf, len, 0};
	size_t cap = 1u << 20, got = 0, r = 1;
	char *b = malloc(cap), *grown;
	int ret = 0;

	if (!dc || !b) {
		ret = -ENOMEM;
		goto out;
	}
	while (in.pos < in.size || r != 0) {
		ZSTD_outBuffer o = {b + got, cap - 1 - got, 0};

		if (got + 1 == cap) {
			if (cap > max) {
				ret = -EFBIG;
				goto out;
			}
			if (!(grown = realloc(b, cap * 2))) {
				ret = -ENOMEM;
				goto out;
			}
			b = grown;
			cap *= 2;
			continue;
		}
		r = ZSTD_decompressStream(dc, &o, &in);
		got += o.pos;
		if (ZSTD_isError(r)) {
			*why = ZSTD_getErrorName(r);
			ret = -EINVAL;
			goto out;
		}
		if (r != 0 && in.pos == in.size && o.pos < o.size) {
			*why = "the zstd stream is cut short";
			ret = -EINVAL;
			goto out;
		}
	}
	if (got > max) {
		ret = -EFBIG;
		goto out;
	}
	b[got] = '\0';
	*out = b;
	*out_len = got;
	b = NULL;
out:
	ZSTD_freeDCtx(dc);
	free(b);
	return ret;
}

int corecap_run_file_bytes(const char *path, char **buf, size_t *len, char **err)
{
	int fd, ret;

	*buf = NULL;
	*len = 0;
	*err = NULL;
	fd = corecap_run_file_open(path);
	if (fd == -ENOENT)
		return -ENOENT;
	if (fd < 0)
		return fail(err, fd, path, "cannot open: %s", corecap_run_file_strerror(-fd));
	ret = read_all(fd, corecap_run_file_max_bytes(path), buf, len);
	close(fd);
	if (ret == -EFBIG)
		return fail(err, ret, path, "larger than %llu bytes: not a run's JSON file",
			    (unsigned long long)corecap_run_file_max_bytes(path));
	if (ret)
		return fail(err, ret, path, "cannot read: %s", strerror(-ret));
	return 0;
}

int corecap_run_file_json(const char *path, json_object **out, char **err)
{
	char *buf;
	size_t len;
	int ret;

	*out = NULL;
	ret = corecap_run_file_bytes(path, &buf, &len, err);
	if (ret)
		return ret;
	ret = corecap_run_file_json_bytes(path, buf, len, out, err);
	free(buf);
	return ret;
}

int corecap_run_file_json_bytes(const char *path, const char *raw, size_t len, json_object **out,
				char **err)
{
	json_tokener *tok = NULL;
	json_object *o = NULL;
	enum json_tokener_error jerr;
	const char *buf = raw;
	char *dec = NULL;
	size_t end, i;
	int ret = 0;

	*out = NULL;
	*err = NULL;
	if (ends_with(path, ZSTD_SUFFIX)) {
		/* Bounded as the plain file is. */
		char plain[4096];
		const char *why = "";
		uint64_t max;

		snprintf(plain, sizeof(plain), "%.*s", (int)(strlen(path) - strlen(ZSTD_SUFFIX)),
			 path);
		max = corecap_run_file_max_bytes(plain);
		ret = unzstd(raw, len, max, &dec, &len, &why);
		if (ret == -EFBIG)
			return fail(err, ret, path,
				    "decompresses to more than %llu bytes: not a run's JSON file",
				    (unsigned long long)max);
		if (ret)
			return fail(err, ret, path, "cannot decompress: %s",
				    ret == -EINVAL ? why : strerror(-ret));
		buf = dec;
	}
	for (i = 0; i < len && strchr(" \t\r\n", buf[i]); i++)
		;
	if (i == len) {
		ret = fail(err, -EINVAL, path,
			   len ? "cannot parse: only white space, no JSON value"
			       : "cannot parse: empty file (0 bytes), no JSON value");
		goto out;
	}
	if (strlen(buf) != len) {
		ret = fail(err, -EINVAL, path, "cannot parse: not JSON: a NUL byte at byte %zu",
			   strlen(buf));
		goto out;
	}
	tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	if (!tok) {
		ret = -ENOMEM;
		goto out;
	}
	/* The terminating NUL is passed too: it ends a number at the end of
	 * the file, and makes a value cut short an "unexpected end of data". */
	o = json_tokener_parse_ex(tok, buf, (int)(len + 1));
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue || jerr == json_tokener_error_parse_eof) {
		ret = fail(
			err, -EINVAL, path,
			"cannot parse: truncated, the file ends (at byte %zu) inside a JSON value",
			len);
		goto out;
	}
	if (jerr != json_tokener_success || !o) {
		ret = fail(err, -EINVAL, path, "cannot parse: not JSON: %s at byte %zu",
			   json_tokener_error_desc(jerr), end);
		goto out;
	}
	for (i = end; i < len && strchr(" \t\r\n", buf[i]); i++)
		;
	if (i < len) {
		ret = fail(err, -EINVAL, path,
			   "cannot parse: not JSON: data after the JSON value at byte %zu", i);
		goto out;
	}
	*out = o;
	o = NULL;
out:
	json_object_put(o);
	if (tok)
		json_tokener_free(tok);
	free(dec);
	return ret;
}
