#include "out_file.h"

#include <corecap/diag.h>

#include "../read/exit_unlink.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int fail(const char *what, const char *path, int err)
{
	corecap_error("cannot %s '%s': %s", what, path, strerror(err));
	return -err;
}

/* Creates DIR/.BASE.corecap-XXXXXX with O_EXCL; the name into *tmp. */
static int create_beside(const char *target, mode_t mode, char **tmp)
{
	const char *slash = strrchr(target, '/');
	int dir_len = slash ? (int)(slash - target + 1) : 0;
	const char *base = slash ? slash + 1 : target;
	struct timespec ts;
	int fd = -1;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (unsigned i = 0; i < 100 && fd < 0; i++) {
		unsigned long r = (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 16) ^
				  (i * 2654435761u);

		if (asprintf(tmp, "%.*s.%s.corecap-%06lx", dir_len, target, base, r & 0xffffff) < 0)
			return -ENOMEM;
		fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0) {
			free(*tmp);
			*tmp = NULL;
			if (errno != EEXIST)
				return -errno;
		}
	}
	return fd >= 0 ? fd : -EEXIST;
}

/* The replacement keeps the file's mode, and its owner when we may set it. */
static void keep_mode_and_owner(int fd, const struct stat *st)
{
	int r = fchmod(fd, st->st_mode & 07777);

	if (r == 0 && geteuid() == 0)
		r = fchown(fd, st->st_uid, st->st_gid);
	(void)r; /* best effort: a failure leaves what a new file gets */
}

/*
 * A FIFO given as -o: opened without blocking (ENXIO while it has no
 * reader), tried for FIFO_READER_WAIT_MS, then refused: never a command
 * blocked in open() for ever. The
 * descriptor corecap_out_file_check() opened is kept for the open that
 * follows: closing it would end the reader's input.
 */
static struct {
	char *path;
	int fd;
} fifo = {NULL, -1};

#define FIFO_READER_WAIT_MS 2000

static int open_fifo(const char *path)
{
	int fd = -1, flags;

	if (fifo.path && strcmp(fifo.path, path) == 0) {
		fd = fifo.fd;
		free(fifo.path);
		fifo.path = NULL;
		fifo.fd = -1;
		return fd;
	}
	/* A reader started just before the command (`cat FIFO & corecap ...`)
	 * may not have opened it yet: waited for, a bounded while. */
	for (int i = 0; i < FIFO_READER_WAIT_MS / 10; i++) {
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0 || errno != ENXIO)
			break;
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	}
	if (fd < 0) {
		if (errno == ENXIO)
			corecap_error("cannot write '%s': a FIFO that no process reads (none "
				      "opened it within %d s)",
				      path, FIFO_READER_WAIT_MS / 1000);
		else
			fail("open", path, errno);
		return -ENXIO;
	}
	/* The reader is there: from now on a full pipe waits for it, as a pipe should. */
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}

int corecap_out_file_check(const char *path)
{
	struct stat st;
	int fd;

	if (!path || strcmp(path, "-") == 0 || stat(path, &st) != 0)
		return 0; /* a new file: corecap_out_file_open() says what is wrong with it */
	if (S_ISDIR(st.st_mode))
		return fail("create", path, EISDIR);
	if (S_ISSOCK(st.st_mode)) {
		corecap_error("cannot write '%s': a socket (give a file, a FIFO or '-')", path);
		return -ENXIO;
	}
	if (!S_ISFIFO(st.st_mode) || (fifo.path && strcmp(fifo.path, path) == 0))
		return 0;
	fd = open_fifo(path);
	if (fd < 0)
		return fd;
	free(fifo.path);
	if (fifo.fd >= 0)
		close(fifo.fd);
	fifo.path = strdup(path);
	fifo.fd = fifo.path ? fd : -1;
	if (!fifo.path)
		close(fd);
	return 0;
}

int corecap_out_file_open(struct out_file *o, const char *path)
{
	struct stat st;
	bool exists;
	int fd, ret = 0;

	*o = (struct out_file){0};
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		o->in_place = true;
		return 0;
	}
	o->path = strdup(path);
	if (!o->path)
		return fail("create", path, ENOMEM);
	exists = stat(path, &st) == 0;
	if (!exists && errno != ENOENT) {
		ret = fail("create", path, errno);
		goto out_free;
	}
	if (exists && S_ISDIR(st.st_mode)) {
		ret = fail("create", path, EISDIR);
		goto out_free;
	}
	if (exists && S_ISSOCK(st.st_mode)) {
		ret = corecap_out_file_check(path);
		goto out_free;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		/* A device or FIFO: the reader at the other end is the point. */
		fd = S_ISFIFO(st.st_mode) ? open_fifo(path)
					  : open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd == -ENXIO) {
			ret = fd;
			goto out_free;
		}
		if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
			ret = fail("open", path, errno);
			if (fd >= 0)
				close(fd);
			goto out_free;
		}
		o->in_place = true;
		return 0;
	}
	if (!exists && lstat(path, &st) == 0) {
		corecap_error("cannot create '%s': a dangling symbolic link", path);
		ret = -ENOENT;
		goto out_free;
	}
	/* Replace what a link points to, not the link. */
	o->target = exists ? realpath(path, NULL) : strdup(path);
	if (!o->target) {
		ret = fail("resolve", path, errno ? errno : ENOMEM);
		goto out_free;
	}
	fd = create_beside(o->target, exists ? (st.st_mode & 07777) : 0666, &o->tmp);
	if (fd < 0) {
		ret = fail("create", path, -fd);
		goto out_free;
	}
	if (exists)
		keep_mode_and_owner(fd, &st);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		ret = fail("open", o->tmp, errno);
		close(fd);
		unlink(o->tmp);
		goto out_free;
	}
	/* Ours (O_EXCL): removed by the trace guard too, should it end the process. */
	corecap_exit_unlink_add(o->tmp);
	return 0;

out_free:
	free(o->tmp);
	free(o->target);
	free(o->path);
	*o = (struct out_file){0};
	return ret;
}

static void release(struct out_file *o)
{
	if (o->tmp)
		corecap_exit_unlink_remove(o->tmp);
	free(o->tmp);
	free(o->target);
	free(o->path);
	*o = (struct out_file){0};
}

int corecap_out_file_commit(struct out_file *o)
{
	int ret = 0;

	if (!o->f)
		return 0;
	if (o->in_place) {
		if (fflush(o->f) != 0 || ferror(o->f))
			ret = -(errno ? errno : EIO);
		if (o->f != stdout && fclose(o->f) != 0 && !ret)
			ret = -errno;
		if (ret)
			corecap_error("cannot write %s: %s", corecap_out_file_name(o),
				      strerror(-ret));
		release(o);
		return ret;
	}
	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		ret = -(errno ? errno : EIO);
	else if (fsync(fileno(o->f)) != 0)
		ret = -errno;
	if (fclose(o->f) != 0 && !ret)
		ret = -errno;
	o->f = NULL;
	/* Forgotten before the rename: after it, the name is no longer ours. */
	corecap_exit_unlink_remove(o->tmp);
	if (!ret && rename(o->tmp, o->target) != 0)
		ret = -errno;
	if (ret) {
		corecap_error("cannot write '%s': %s", o->path, strerror(-ret));
		unlink(o->tmp);
	}
	release(o);
	return ret;
}

void corecap_out_file_abort(struct out_file *o)
{
	if (!o->f)
		return;
	if (o->in_place) {
		if (o->f == stdout)
			fflush(stdout);
		else
			fclose(o->f);
	} else {
		fclose(o->f);
		corecap_exit_unlink_remove(o->tmp);
		unlink(o->tmp);
	}
	release(o);
}

const char *corecap_out_file_name(const struct out_file *o)
{
	return o->path ? o->path : "standard output";
}
