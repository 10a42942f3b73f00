#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <corecap/diag.h>
#include "proc_stat.h"
#include "run_dir.h"
#include <corecap/run_format.h>

/* A run's deepest entry is about 9 levels down (daemons/<pid>/trace/ust/uid/0/64-bit/index/). */
#define MAX_DEPTH	 32
#define STATX_MOUNT_ROOT 0x00002000 /* STATX_ATTR_MOUNT_ROOT, Linux 5.8 */

/* What one entry is, never following a link; mnt: it is a mount's root (a bind mount too). */
static int entry_stat(int dirfd, const char *name, struct stat *st, bool *mnt)
{
	struct statx stx;

	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | (*name ? 0 : AT_EMPTY_PATH),
		  STATX_TYPE | STATX_MODE | STATX_UID | STATX_INO, &stx) < 0)
		return -errno;
	memset(st, 0, sizeof(*st));
	st->st_dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	st->st_ino = stx.stx_ino;
	st->st_mode = stx.stx_mode;
	st->st_uid = stx.stx_uid;
	*mnt = (stx.stx_attributes_mask & STATX_MOUNT_ROOT) &&
	       (stx.stx_attributes & STATX_MOUNT_ROOT);
	return 0;
}

struct tree_check {
	dev_t dev;
	uid_t uid;
	char *why;
	size_t size;
};

/*
 * Whether everything below the directory open at dirfd may be removed:
 * the caller's, on the directory's own file system, no deeper than a run
 * goes. rel names the directory in messages. Nothing is changed.
 */
static bool check_tree(int dirfd, const char *rel, int depth, struct tree_check *c)
{
	struct dirent *de;
	bool ok = true;
	DIR *d;
	int fd;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		snprintf(c->why, c->size, "cannot read '%s': %s", rel, strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (ok && (de = readdir(d))) {
		char sub_rel[PATH_MAX];
		struct stat st;
		bool mnt;
		int sub, ret;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(sub_rel, sizeof(sub_rel), "%s/%s", rel, de->d_name);
		ret = entry_stat(dirfd, de->d_name, &st, &mnt);
		if (ret < 0) {
			snprintf(c->why, c->size, "cannot stat '%s': %s", sub_rel, strerror(-ret));
			ok = false;
		} else if (mnt || st.st_dev != c->dev) {
			snprintf(c->why, c->size, "'%s' is a mount point", sub_rel);
			ok = false;
		} else if (st.st_uid != c->uid) {
			snprintf(c->why, c->size, "'%s' belongs to user %u", sub_rel,
				 (unsigned)st.st_uid);
			ok = false;
		} else if (S_ISDIR(st.st_mode)) {
			if (depth + 1 >= MAX_DEPTH) {
				snprintf(c->why, c->size, "'%s' is deeper than a corecap run goes",
					 sub_rel);
				ok = false;
				continue;
			}
			sub = openat(dirfd, de->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0) {
				snprintf(c->why, c->size, "cannot open '%s': %s", sub_rel,
					 strerror(errno));
				ok = false;
				continue;
			}
			ok = check_tree(sub, sub_rel, depth + 1, c);
			close(sub);
		}
	}
	closedir(d);
	return ok;
}

/* The mark's collector, when dirfd holds corecap's mark and it is the caller's. */
static bool read_mark(int dirfd, pid_t *pid, uint64_t *start_ticks)
{
	char buf[256];
	unsigned long long start;
	struct stat st;
	bool ok = false;
	ssize_t n;
	int pid_i;
	int fd;

	/* O_NONBLOCK: a FIFO put in its place must not hang us. */
	fd = openat(dirfd, CORECAP_RUN_MARK, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size >= (off_t)sizeof(buf))
		goto out_close_fd;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		goto out_close_fd;
	buf[n] = '\0';
	if (strncmp(buf, CORECAP_RUN_MARK_MAGIC, strlen(CORECAP_RUN_MARK_MAGIC)) != 0)
		goto out_close_fd;
	if (sscanf(buf + strlen(CORECAP_RUN_MARK_MAGIC), "collector %d %llu", &pid_i, &start) != 2)
		goto out_close_fd;
	*pid = (pid_t)pid_i;
	*start_ticks = start;
	ok = true;
out_close_fd:
	close(fd);
	return ok;
}

bool corecap_run_dir_marked(int dirfd, pid_t pid, uint64_t start_ticks)
{
	uint64_t mark_start;
	struct stat st;
	pid_t mark_pid;

	if (fstat(dirfd, &st) < 0 || st.st_uid != geteuid())
		return false;
	if (!read_mark(dirfd, &mark_pid, &mark_start))
		return false;
	return mark_pid == pid && (!start_ticks || mark_start == start_ticks);
}

bool corecap_run_dir_is_ours(int dirfd, const char *shown, bool need_manifest, char *why,
			     size_t size)
{
	struct tree_check c = {.why = why, .size = size, .uid = geteuid()};
	struct stat top, st;
	uint64_t start;
	pid_t pid;
	bool mnt;
	int ret;

	ret = entry_stat(dirfd, "", &top, &mnt);
	if (ret < 0) {
		snprintf(why, size, "cannot stat '%s': %s", shown, strerror(-ret));
		return false;
	}
	if (mnt) {
		snprintf(why, size, "'%s' is a mount point", shown);
		return false;
	}
	if (top.st_uid != c.uid) {
		snprintf(why, size, "'%s' belongs to user %u", shown, (unsigned)top.st_uid);
		return false;
	}
	if (!read_mark(dirfd, &pid, &start)) {
		snprintf(why, size,
			 "'%s' holds no " CORECAP_RUN_MARK
			 " (corecap marks every run it writes; a run of a corecap older than the "
			 "mark has none: remove it yourself if it is one, rm -r -- '%s')",
			 shown, shown);
		return false;
	}
	if (need_manifest && (fstatat(dirfd, CORECAP_RUN_MANIFEST, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			      !S_ISREG(st.st_mode))) {
		snprintf(why, size, "'%s' holds no " CORECAP_RUN_MANIFEST, shown);
		return false;
	}
	c.dev = top.st_dev;
	return check_tree(dirfd, shown, 0, &c);
}

/*
 * Removes everything below the directory open at dirfd, on device dev;
 * never follows links, never crosses a mount point. Called only on a tree
 * check_tree() accepted: its checks here only stop a change made since.
 */
static int remove_tree(int dirfd, dev_t dev, int depth)
{
	struct dirent *de;
	int ret = 0;
	DIR *d;
	int fd;

	if (depth >= MAX_DEPTH)
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
		bool mnt;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		ret = entry_stat(dirfd, de->d_name, &st, &mnt);
		if (ret < 0)
			break;
		if (mnt || st.st_dev != dev) {
			ret = -EXDEV;
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd, de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub < 0) {
				ret = -errno;
				break;
			}
			ret = remove_tree(sub, dev, depth + 1);
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

/*
 * Removes the directory `name` in parent_fd, open at dirfd, and its tree,
 * if it is a run of ours (with a manifest: need_manifest) and still the
 * entry `name`; else leaves it whole and says why in why.
 */
static int remove_run(int parent_fd, const char *name, int dirfd, const char *shown,
		      bool need_manifest, char *why, size_t size)
{
	struct stat st, at_name;
	int ret;

	if (!corecap_run_dir_is_ours(dirfd, shown, need_manifest, why, size))
		return -EPERM;
	if (fstat(dirfd, &st) < 0) {
		ret = -errno;
		snprintf(why, size, "%s", strerror(errno));
		return ret;
	}
	ret = remove_tree(dirfd, st.st_dev, 0);
	if (ret < 0) {
		snprintf(why, size, "%s", strerror(-ret));
		return ret;
	}
	if (fstatat(parent_fd, name, &at_name, AT_SYMLINK_NOFOLLOW) < 0 ||
	    at_name.st_dev != st.st_dev || at_name.st_ino != st.st_ino) {
		snprintf(why, size, "'%s' was moved", shown);
		return -ESTALE;
	}
	if (unlinkat(parent_fd, name, AT_REMOVEDIR) < 0) {
		ret = -errno;
		snprintf(why, size, "%s", strerror(errno));
	}
	return ret;
}

/* Splits path into its directory (or ".") and its last name, trailing slashes dropped. */
static int split_path(const char *path, char **parent, char **name)
{
	size_t len = strlen(path);
	const char *slash;
	char *copy;

	while (len > 1 && path[len - 1] == '/')
		len--;
	copy = strndup(path, len);
	if (!copy)
		return -ENOMEM;
	slash = strrchr(copy, '/');
	if (!slash) {
		*parent = strdup(".");
		*name = copy;
	} else {
		*name = strdup(slash + 1);
		*parent = slash == copy ? strdup("/") : strndup(copy, (size_t)(slash - copy));
		free(copy);
	}
	if (!*parent || !*name) {
		free(*parent);
		free(*name);
		return -ENOMEM;
	}
	return 0;
}

/* Makes a fresh directory <name><infix><6 random characters> in parent_fd (mode 0700). */
static int make_fresh(int parent_fd, const char *name, const char *infix, char **out)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[6];
	char buf[NAME_MAX + 1];
	int ret = -EEXIST;

	for (int tries = 0; tries < 100 && ret == -EEXIST; tries++) {
		size_t len;

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return -EIO;
		len = (size_t)snprintf(buf, sizeof(buf), "%s%s", name, infix);
		if (len + sizeof(rnd) >= sizeof(buf))
			return -ENAMETOOLONG;
		for (size_t i = 0; i < sizeof(rnd); i++)
			buf[len + i] = chars[rnd[i] % (sizeof(chars) - 1)];
		buf[len + sizeof(rnd)] = '\0';
		ret = mkdirat(parent_fd, buf, 0700) < 0 ? -errno : 0;
	}
	if (ret == 0) {
		*out = strdup(buf);
		if (!*out) {
			unlinkat(parent_fd, buf, AT_REMOVEDIR);
			ret = -ENOMEM;
		}
	}
	return ret;
}

/* With --force: whether the existing `name` is a run we may replace; keeps its identity. */
static int check_old(struct corecap_run_dir *rd, const char *path)
{
	char why[PATH_MAX + 256];
	struct stat st;
	int ret = 0;
	int fd;

	fd = openat(rd->parent_fd, rd->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		corecap_error("cannot open '%s': %s", path, strerror(errno));
		return ret;
	}
	if (!corecap_run_dir_is_ours(fd, path, true, why, sizeof(why))) {
		corecap_error("--force replaces only a run corecap wrote; not replacing '%s': %s",
			      path, why);
		ret = -ENOTEMPTY;
	} else if (fstat(fd, &st) < 0) {
		ret = -errno;
	} else {
		rd->old_dev = st.st_dev;
		rd->old_ino = st.st_ino;
	}
	close(fd);
	return ret;
}

/* Refuses what exists at rd->name, or checks it for --force; *exists says which. */
static int check_path(struct corecap_run_dir *rd, const char *path, bool force, bool *exists)
{
	struct stat st;
	int ret = 0;

	*exists = false;
	if (fstatat(rd->parent_fd, rd->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT) {
			ret = -errno;
			corecap_error("cannot create run directory '%s': %s", path,
				      strerror(errno));
		}
		goto out;
	}
	*exists = true;
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
		ret = check_old(rd, path);
	}
out:
	return ret;
}

/* corecap's mark, first in the new directory: what --force and a later command look for. */
static int write_mark(struct corecap_run_dir *rd)
{
	struct corecap_proc_stat self;
	char buf[256];
	int fd = -1;
	int ret;
	int n;

	if (corecap_proc_stat_read(AT_FDCWD, "/proc/self/stat", &self) < 0)
		self.starttime_ticks = 0;
	n = snprintf(buf, sizeof(buf), CORECAP_RUN_MARK_MAGIC "collector %d %llu\n", (int)getpid(),
		     (unsigned long long)self.starttime_ticks);
	ret = corecap_run_dir_create_file(rd, CORECAP_RUN_MARK, &fd);
	if (ret < 0)
		return ret;
	ret = corecap_write_all(fd, buf, (size_t)n);
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (ret < 0)
		corecap_error("cannot write '%s/" CORECAP_RUN_MARK "': %s", rd->path,
			      strerror(-ret));
	return ret;
}

static char *join(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *p = malloc(len);

	if (p)
		snprintf(p, len, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", name);
	return p;
}

int corecap_run_dir_create(struct corecap_run_dir *rd, const char *path, bool force)
{
	char abs[PATH_MAX];
	char *parent = NULL;
	const char *made = NULL;
	bool exists;
	struct stat st;
	int ret;

	memset(rd, 0, sizeof(*rd));
	rd->dirfd = -1;
	rd->parent_fd = -1;
	if (!path || !*path) {
		corecap_error("empty run directory name");
		ret = -EINVAL;
		goto out;
	}
	ret = split_path(path, &parent, &rd->name);
	if (ret < 0) {
		corecap_error("out of memory");
		goto out;
	}
	if (!*rd->name || strcmp(rd->name, ".") == 0 || strcmp(rd->name, "..") == 0 ||
	    strcmp(rd->name, "/") == 0) {
		corecap_error("run directory '%s' names no new directory", path);
		ret = -EINVAL;
		goto out_free;
	}
	/* The directory the user chose to hold the run: links in it are theirs to follow. */
	rd->parent_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rd->parent_fd < 0 || !realpath(parent, abs)) {
		ret = -errno;
		corecap_error("cannot create run directory '%s': %s", path, strerror(errno));
		goto out_free;
	}
	rd->parent_abs = strdup(abs);
	if (!rd->parent_abs) {
		ret = -ENOMEM;
		corecap_error("out of memory");
		goto out_free;
	}
	ret = check_path(rd, path, force, &exists);
	if (ret < 0)
		goto out_free;
	if (exists) {
		/* Written aside; the old run stays whole until the new one is placed. */
		ret = make_fresh(rd->parent_fd, rd->name, CORECAP_RUN_DIR_ASIDE, &rd->aside);
		if (ret < 0) {
			corecap_error("cannot create a run directory beside '%s': %s", path,
				      strerror(-ret));
			goto out_free;
		}
		made = rd->aside;
	} else if (mkdirat(rd->parent_fd, rd->name, 0700) < 0) {
		/* mkdirat never follows a symbolic link in the last component. */
		ret = -errno;
		corecap_error("cannot create run directory '%s': %s", path, strerror(errno));
		goto out_free;
	} else {
		made = rd->name;
	}
	rd->dirfd = openat(rd->parent_fd, made, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
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
	rd->path = strdup(path);
	rd->abs_path = join(rd->parent_abs, made);
	if (!rd->path || !rd->abs_path) {
		ret = -ENOMEM;
		corecap_error("out of memory");
		goto out_close_dirfd;
	}
	ret = write_mark(rd);
	if (ret < 0)
		goto out_unlink_mark;
	if (rd->aside && !corecap_diag_quiet)
		corecap_note("writing the new run beside '%s' (in '%s'); it replaces the old one "
			     "once written",
			     path, rd->abs_path);
	goto out_free_parent;

out_unlink_mark:
	unlinkat(rd->dirfd, CORECAP_RUN_MARK, 0);
out_close_dirfd:
	close(rd->dirfd);
	rd->dirfd = -1;
out_rmdir:
	unlinkat(rd->parent_fd, made, AT_REMOVEDIR);
out_free:
	corecap_run_dir_release(rd);
out_free_parent:
	free(parent);
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

/*
 * Swaps the new run (aside) and the old (name) by two renames, for a file
 * system without RENAME_EXCHANGE: the old goes over a fresh empty
 * directory (a directory may replace an empty one), the new to its name.
 * The old one's name is then *old_name; on failure both are as before.
 */
static int swap_by_rename(struct corecap_run_dir *rd, char **old_name)
{
	int ret;

	ret = make_fresh(rd->parent_fd, rd->name, ".corecap-old-", old_name);
	if (ret < 0)
		return ret;
	if (renameat(rd->parent_fd, rd->name, rd->parent_fd, *old_name) < 0) {
		ret = -errno;
		unlinkat(rd->parent_fd, *old_name, AT_REMOVEDIR);
		goto out_free;
	}
	if (renameat(rd->parent_fd, rd->aside, rd->parent_fd, rd->name) < 0) {
		ret = -errno;
		renameat(rd->parent_fd, *old_name, rd->parent_fd, rd->name);
		goto out_free;
	}
	return 0;
out_free:
	free(*old_name);
	*old_name = NULL;
	return ret;
}

int corecap_run_dir_place(struct corecap_run_dir *rd)
{
	char why[PATH_MAX + 256];
	char *old_name = NULL;
	char *old_abs = NULL;
	struct stat st;
	int ret = 0;
	int fd;

	if (!rd->aside)
		goto out;
	/* Only the old run we checked is swapped out: whatever replaced it since is not ours. */
	if (fstatat(rd->parent_fd, rd->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(st.st_mode) || st.st_dev != rd->old_dev || st.st_ino != rd->old_ino) {
		ret = -EEXIST;
		corecap_error("'%s' changed while recording; the new run is kept at '%s'", rd->path,
			      rd->abs_path);
		goto out;
	}
	if (renameat2(rd->parent_fd, rd->aside, rd->parent_fd, rd->name, RENAME_EXCHANGE) == 0) {
		old_name = rd->aside;
		rd->aside = NULL;
	} else if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) {
		ret = swap_by_rename(rd, &old_name);
	} else {
		ret = -errno;
	}
	if (ret < 0) {
		corecap_error("cannot put the new run in the place of '%s': %s; it is kept at '%s'",
			      rd->path, strerror(-ret), rd->abs_path);
		goto out;
	}
	free(rd->aside);
	rd->aside = NULL;
	free(rd->abs_path);
	rd->abs_path = join(rd->parent_abs, rd->name);
	old_abs = join(rd->parent_abs, old_name);
	why[0] = '\0';
	/* The old run, now under the other name, removed whole or not at all. */
	fd = openat(rd->parent_fd, old_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
	} else if (fstat(fd, &st) < 0 || st.st_dev != rd->old_dev || st.st_ino != rd->old_ino) {
		snprintf(why, sizeof(why), "it is not the run that was checked");
	} else {
		int r = remove_run(rd->parent_fd, old_name, fd, old_abs ? old_abs : old_name, true,
				   why, sizeof(why));

		if (r < 0 && !why[0])
			snprintf(why, sizeof(why), "%s", strerror(-r));
	}
	if (fd >= 0)
		close(fd);
	if (why[0])
		corecap_warn("the run '%s' replaced is kept at '%s': %s", rd->path,
			     old_abs ? old_abs : old_name, why);
	free(old_abs);
	free(old_name);
out:
	return ret;
}

void corecap_run_dir_release(struct corecap_run_dir *rd)
{
	if (rd->dirfd >= 0)
		close(rd->dirfd);
	rd->dirfd = -1;
	if (rd->parent_fd >= 0)
		close(rd->parent_fd);
	rd->parent_fd = -1;
	free(rd->path);
	free(rd->abs_path);
	free(rd->name);
	free(rd->aside);
	free(rd->parent_abs);
	rd->path = rd->abs_path = rd->name = rd->aside = rd->parent_abs = NULL;
}

int corecap_run_dir_remove(struct corecap_run_dir *rd)
{
	char why[PATH_MAX + 256];
	int ret;

	ret = remove_run(rd->parent_fd, rd->aside ? rd->aside : rd->name, rd->dirfd, rd->abs_path,
			 false, why, sizeof(why));
	if (ret < 0)
		corecap_error("cannot remove '%s': %s", rd->abs_path, why);
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
