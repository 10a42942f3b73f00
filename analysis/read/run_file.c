#include "run_file.h"

#include <corecap/diag.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int corecap_run_file_open(const char *path)
{
	struct stat st;
	int fd, flags;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
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
	if (err == ENOTREG_RUN_FILE)
		return "not a regular file (a FIFO, device, socket or directory)";
	return strerror(err);
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
static int read_all(int fd, char **buf, size_t *len)
{
	size_t cap = 4096, got = 0;
	char *b = malloc(cap), *grown;
	ssize_t k;

	if (!b)
		return -ENOMEM;
	for (;;) {
		if (got + 1 == cap) {
			/* cap stays below 2^31: json-c takes an int length */
			if (cap > CORECAP_RUN_FILE_JSON_MAX_BYTES) {
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

int corecap_run_file_json(const char *path, json_object **out, char **err)
{
	json_tokener *tok = NULL;
	json_object *o = NULL;
	enum json_tokener_error jerr;
	char *buf = NULL;
	size_t len = 0, end, i;
	int fd, ret;

	*out = NULL;
	*err = NULL;
	fd = corecap_run_file_open(path);
	if (fd == -ENOENT)
		return -ENOENT;
	if (fd < 0)
		return fail(err, fd, path, "cannot open: %s", corecap_run_file_strerror(-fd));
	ret = read_all(fd, &buf, &len);
	close(fd);
	if (ret == -EFBIG)
		return fail(err, ret, path, "larger than %llu bytes: not a run's JSON file",
			    CORECAP_RUN_FILE_JSON_MAX_BYTES);
	if (ret)
		return fail(err, ret, path, "cannot read: %s", strerror(-ret));
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
	free(buf);
	return ret;
}
