#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <corecap/diag.h>
#include "run_dir.h"
#include <corecap/run_format.h>

bool corecap_run_dir_looks_like_run(int dirfd)
{
	static const char *const markers[] = {CORECAP_RUN_MANIFEST, CORECAP_RUN_TRACE,
					      CORECAP_RUN_THREADS};
	struct dirent *de;
	bool empty = true;
	DIR *d;
	int fd;

	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		struct stat st;

		if (fstatat(dirfd, markers[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			return true;
	}
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return false;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			empty = false;
			break;
		}
	}
	closedir(d);
	return empty;
}

/* Removes everything below the directory open at dirfd; never follows links. */
static int remove_tree(int dirfd, int depth)
{
	struct dirent *de;
	int ret = 0;
	DIR *d;
	int fd;

	if (depth > 64)
		return -ELOOP;
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			ret = -errno;
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd, de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub < 0) {
				ret = -errno;
				break;
			}
			ret = remove_tree(sub, depth + 1);
			close(sub);
			if (ret < 0)
				break;
			if (unlinkat(dirfd, de->d_name, AT_REMOVEDIR) < 0) {
				ret = -errno;
				break;
			}
		} else if (unlinkat(dirfd, de->d_name, 0) < 0) {
			ret = -errno;
			break;
		}
	}
	closedir(d);
	return ret;
}

static int remove_existing(const char *path)
{
	int ret;
	int fd;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		corecap_error("cannot open '%s': %s", path, strerror(errno));
		return ret;
	}
	if (!corecap_run_dir_looks_like_run(fd)) {
		corecap_error("'%s' does not look like a corecap run directory; not removing it",
			      path);
		ret = -ENOTEMPTY;
		goto out_close_fd;
	}
	ret = remove_tree(fd, 0);
	if (ret < 0) {
		corecap_error("cannot remove '%s': %s", path, strerror(-ret));
		goto out_close_fd;
	}
	if (rmdir(path) < 0) {
		ret = -errno;
		corecap_error("cannot remove '%s': %s", path, strerror(errno));
	}
out_close_fd:
	close(fd);
	return ret;
}

/* Refuses or clears what exists at path; 0 when path is free to be created. */
static int clear_path(const char *path, bool force)
{
	struct stat st;
	int ret = 0;

	if (lstat(path, &st) < 0) {
		if (errno != ENOENT) {
			ret = -errno;
			corecap_error("cannot create run directory '%s': %s", path,
				      strerror(errno));
		}
		goto out;
	}
	if (S_ISLNK(st.st_mode)) {
		corecap_error("run directory '%s' is a symbolic link; refusing to use it", path);
		ret = -ELOOP;
	} else if (!S_ISDIR(st.st_mode)) {
		corecap_error("'%s' exists and is not a directory; refusing to replace it", path);
		ret = -EEXIST;
	} else if (!force) {
		corecap_error("run directory '%s' already exists (use --force to replace it)",
			      path);
		ret = -EEXIST;
	} else {
		ret = remove_existing(path);
	}
out:
	return ret;
}

int corecap_run_dir_create(struct corecap_run_dir *rd, const char *path, bool force)
{
	char abs[PATH_MAX];
	struct stat st;
	int ret;

	memset(rd, 0, sizeof(*rd));
	rd->dirfd = -1;
	if (!path || !*path) {
		corecap_error("empty run directory name");
		ret = -EINVAL;
		goto out;
	}
	ret = clear_path(path, force);
	if (ret < 0)
		goto out;
	/* mkdir never follows a symbolic link in the last component. */
	if (mkdir(path, 0700) < 0) {
		ret = -errno;
		corecap_error("cannot create run directory '%s': %s", path, strerror(errno));
		goto out;
	}
	rd->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (rd->dirfd < 0) {
		ret = -errno;
		corecap_error("cannot open run directory '%s': %s", path, strerror(errno));
		goto out_rmdir;
	}
	if (fstat(rd->dirfd, &st) < 0 || st.st_uid != geteuid() || fchmod(rd->dirfd, 0700) < 0) {
		ret = errno ? -errno : -EPERM;
		corecap_error("run directory '%s' is not ours: %s", path, strerror(-ret));
		goto out_close_dirfd;
	}
	if (!realpath(path, abs)) {
		ret = -errno;
		corecap_error("cannot resolve run directory '%s': %s", path, strerror(errno));
		goto out_close_dirfd;
	}
	rd->path = strdup(path);
	rd->abs_path = strdup(abs);
	if (!rd->path || !rd->abs_path) {
		ret = -ENOMEM;
		corecap_error("out of memory");
		goto out_free;
	}
	goto out;

out_free:
	free(rd->path);
	free(rd->abs_path);
	rd->path = rd->abs_path = NULL;
out_close_dirfd:
	close(rd->dirfd);
	rd->dirfd = -1;
out_rmdir:
	rmdir(path);
out:
	return ret;
}

int corecap_run_dir_create_file(struct corecap_run_dir *rd, const char *name, int *fd_out)
{
	int ret = 0;
	int fd;

	fd = openat(rd->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		corecap_error("cannot create '%s/%s': %s", rd->path, name, strerror(errno));
	} else {
		*fd_out = fd;
	}
	return ret;
}

int corecap_run_dir_fopen(struct corecap_run_dir *rd, const char *name, FILE **out)
{
	int fd = -1;
	FILE *f;
	int ret;

	ret = corecap_run_dir_create_file(rd, name, &fd);
	if (ret < 0)
		goto out;
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		corecap_error("cannot open '%s/%s': %s", rd->path, name, strerror(errno));
		close(fd);
		goto out;
	}
	*out = f;
out:
	return ret;
}

int corecap_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO; /* not seen on files; never loop on it */
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void corecap_run_file_flush(FILE *f, const char *name, int *write_errno)
{
	errno = 0;
	if (fflush(f) != 0 && !*write_errno) {
		*write_errno = errno ? errno : EIO;
		corecap_error("cannot write %s: %s", name, strerror(*write_errno));
	}
}

int corecap_run_file_close(FILE *f, const char *name, int *write_errno)
{
	corecap_run_file_flush(f, name, write_errno);
	if (fclose(f) != 0 && !*write_errno) {
		*write_errno = errno;
		corecap_error("cannot write %s: %s", name, strerror(errno));
	}
	return -*write_errno;
}

int corecap_run_dir_rename(struct corecap_run_dir *rd, const char *tmp_name, const char *name)
{
	int ret = 0;

	if (renameat(rd->dirfd, tmp_name, rd->dirfd, name) < 0) {
		ret = -errno;
		corecap_error("cannot rename '%s/%s' to '%s': %s", rd->path, tmp_name, name,
			      strerror(errno));
	}
	return ret;
}

void corecap_run_dir_release(struct corecap_run_dir *rd)
{
	if (rd->dirfd >= 0)
		close(rd->dirfd);
	rd->dirfd = -1;
	free(rd->path);
	free(rd->abs_path);
	rd->path = rd->abs_path = NULL;
}

int corecap_run_dir_remove(struct corecap_run_dir *rd)
{
	int ret;

	ret = remove_tree(rd->dirfd, 0);
	if (ret == 0 && rmdir(rd->abs_path) < 0)
		ret = -errno;
	if (ret < 0)
		corecap_error("cannot remove '%s': %s", rd->path, strerror(-ret));
	corecap_run_dir_release(rd);
	return ret;
}

void corecap_run_dir_default_name(const char *comm, const char *tag, char *buf, size_t size)
{
	char clean[64], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	size_t i;

	for (i = 0; comm[i] && i < sizeof(clean) - 1; i++) {
		char c = comm[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';

		clean[i] = ok ? c : '_';
	}
	clean[i] = '\0';
	if (clean[0] == '.' || !clean[0])
		clean[0] = '_';
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, size, "corecap-%s-%s-%s", clean, tag, stamp);
}
