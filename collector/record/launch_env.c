#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <corecap/diag.h>
#include "launch_env.h"
#include "util/proc_stat.h"

#ifndef CORECAP_INSTALL_LIBDIR
#define CORECAP_INSTALL_LIBDIR "/usr/local/lib"
#endif

static bool listed(const char *list, const char *lib)
{
	size_t n = strlen(lib);
	const char *p = list;

	while (p && *p) {
		size_t len = strcspn(p, ": ");

		if (len == n && strncmp(p, lib, n) == 0)
			return true;
		p += len;
		p += strspn(p, ": ");
	}
	return false;
}

int corecap_preload_join(const char *const *libs, size_t n, const char *existing, char **out)
{
	size_t cap = (existing ? strlen(existing) : 0) + 2;
	size_t len = 0;
	char *buf;
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		if (!*libs[i] || strpbrk(libs[i], ": \t\n")) {
			ret = -EINVAL;
			goto out;
		}
		cap += strlen(libs[i]) + 1;
	}
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (listed(existing, libs[i]) || listed(buf, libs[i]))
			continue;
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ":" : "", libs[i]);
	}
	if (existing && *existing)
		snprintf(buf + len, cap - len, "%s%s", len ? ":" : "", existing);
	*out = buf;
out:
	return ret;
}

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

int corecap_find_library(const char *env_name, const char *subdir, const char *file, char **out)
{
	const char *env = env_name ? getenv(env_name) : NULL;
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n;
	int ret = 0;

	if (env && *env) {
		if (!readable(env)) {
			ret = -errno;
			corecap_error("cannot use %s='%s': %s", env_name, env, strerror(errno));
			goto out;
		}
		snprintf(path, sizeof(path), "%s", env);
		goto found;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			/* The build tree: <build>/cli/corecap beside <build>/<subdir>/. */
			snprintf(path, sizeof(path), "%s/../%s", exe, subdir);
			char *dir = realpath(path, NULL);

			if (dir) {
				snprintf(path, sizeof(path), "%s/%s", dir, file);
				free(dir);
				if (readable(path))
					goto found;
			}
		}
	}
	snprintf(path, sizeof(path), "%s/%s", CORECAP_INSTALL_LIBDIR, file);
	if (readable(path))
		goto found;
	ret = -ENOENT;
	corecap_error("cannot find %s: not beside the corecap executable (../%s/) nor in %s%s%s",
		      file, subdir, CORECAP_INSTALL_LIBDIR, env_name ? "; set " : "",
		      env_name ? env_name : "");
	goto out;
found:
	*out = strdup(path);
	if (!*out)
		ret = -ENOMEM;
out:
	return ret;
}

static int add_lib(struct corecap_launch_env *env, char *path)
{
	if (!path)
		return -ENOMEM;
	env->libs[env->n_libs++] = path;
	return 0;
}

static int add_system_lib(struct corecap_launch_env *env, const char *path, const char *what)
{
	if (!readable(path)) {
		int ret = -errno;

		corecap_error("cannot preload %s '%s': %s", what, path, strerror(errno));
		return ret;
	}
	return add_lib(env, strdup(path));
}

/*
 * The private directory for the profile: mkdtemp makes it 0700 with an
 * unpredictable name, so nothing in it can be planted by another user.
 */
static int make_profile_dir(struct corecap_launch_env *env, pid_t pid)
{
	const char *tmp = getenv("TMPDIR");
	int n, ret = 0;

	if (!tmp || tmp[0] != '/' || strlen(tmp) > 128)
		tmp = "/tmp";
	n = snprintf(env->cpuprofile_dir, sizeof(env->cpuprofile_dir),
		     "%s/" CORECAP_CPUPROFILE_DIR_PREFIX "XXXXXX", tmp);
	if (n < 0 || (size_t)n >= sizeof(env->cpuprofile_dir) || !mkdtemp(env->cpuprofile_dir)) {
		ret = n < 0 || (size_t)n >= sizeof(env->cpuprofile_dir) ? -ENAMETOOLONG : -errno;
		corecap_error("cannot create a directory for the CPU profile in '%s': %s", tmp,
			      strerror(-ret));
		env->cpuprofile_dir[0] = '\0';
		goto out;
	}
	snprintf(env->cpuprofile_path, sizeof(env->cpuprofile_path), "%s/" CORECAP_CPUPROFILE_NAME,
		 env->cpuprofile_dir);
	/* Taken now, before the exec: the cleaner must watch this process, never a reused PID. */
	env->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (env->pidfd < 0) {
		ret = -errno;
		corecap_error("cannot watch PID %d to remove '%s' after it: %s", (int)pid,
			      env->cpuprofile_dir, strerror(errno));
	}
out:
	return ret;
}

/* Removes dir and the files in it (libprofiler's and record's, never a subdirectory). */
static void remove_profile_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(fd, e->d_name, 0);
	closedir(d);
	rmdir(dir);
}

/* Whether the environment of the process of /proc directory dirfd holds
 * `entry` (NAME=VALUE) whole. */
static bool environ_has(int dirfd, const char *entry, char *buf, size_t size)
{
	ssize_t got = corecap_read_small_file(dirfd, "environ", buf, size);
	size_t len = got > 0 ? (size_t)got : 0, elen = strlen(entry);

	for (size_t i = 0; i < len; i += strnlen(buf + i, len - i) + 1)
		if (len - i > elen && memcmp(buf + i, entry, elen) == 0 && buf[i + elen] == '\0')
			return true;
	return false;
}

/* next_user's walk over /proc. */
struct user_walk {
	const char *entry;
	char *buf;
	size_t size;
	int pidfd;
};

static bool user_one(pid_t pid, int dirfd, void *ctx)
{
	struct user_walk *w = ctx;

	if (!environ_has(dirfd, w->entry, w->buf, w->size))
		return false;
	w->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	/* The PID may have been reused between the look and the open: the
	 * process of dirfd, if it is gone, has no environment to read. */
	if (w->pidfd >= 0 && !environ_has(dirfd, w->entry, w->buf, w->size)) {
		close(w->pidfd);
		w->pidfd = -1;
	}
	return w->pidfd >= 0;
}

/* A pidfd of a process other than us whose environment holds entry, or -1. */
static int next_user(const char *entry, char *buf, size_t size)
{
	struct user_walk w = {.entry = entry, .buf = buf, .size = size, .pidfd = -1};

	corecap_proc_each(user_one, &w);
	return w.pidfd;
}

/*
 * The cleaner: waits for the command, then for any process that inherited
 * its CPUPROFILE (a daemon that forks into the background), and removes
 * the directory. No descriptor of the command's is kept open.
 */
static void run_cleaner(const char *dir, const char *cpuprofile, int pidfd)
{
	static char buf[4 << 20]; /* an environment larger than this is not matched */
	char entry[320];
	int fd;

	setsid();
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_NAME, "corecap-cpu-rm");
	if (dup2(pidfd, 3) < 0)
		_exit(1);
	pidfd = 3;
	fd = open("/dev/null", O_RDWR);
	for (int i = 0; fd >= 0 && i < 3; i++)
		dup2(fd, i);
	syscall(SYS_close_range, 4u, ~0u, 0u);
	if (chdir("/") < 0)
		_exit(1);
	snprintf(entry, sizeof(entry), "CPUPROFILE=%s", cpuprofile);
	while (pidfd >= 0) {
		struct pollfd p = {.fd = pidfd, .events = POLLIN};

		if (poll(&p, 1, -1) < 0 && errno == EINTR)
			continue;
		close(pidfd);
		pidfd = next_user(entry, buf, sizeof(buf));
	}
	remove_profile_dir(dir);
	_exit(0);
}

int corecap_launch_env_start_cleaner(struct corecap_launch_env *env)
{
	int status, ret = 0;
	pid_t child;

	if (!env->cpuprofile || env->pidfd < 0)
		goto out;
	child = fork();
	if (child < 0) {
		ret = -errno;
		corecap_error("cannot start the process that removes '%s': %s", env->cpuprofile_dir,
			      strerror(errno));
		goto out;
	}
	if (child == 0) {
		/* Reparented at once: the command never sees a child it did not make. */
		if (fork() == 0)
			run_cleaner(env->cpuprofile_dir, env->cpuprofile_path, env->pidfd);
		_exit(0);
	}
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
out:
	return ret;
}

int corecap_launch_env_init(struct corecap_launch_env *env, bool shim, bool cpuprofile, pid_t pid)
{
	char *lib = NULL;
	int ret;

	memset(env, 0, sizeof(*env));
	env->pidfd = -1;
	if (shim)
		ret = corecap_find_library("CORECAP_PRELOAD_LIB", "preload",
					   "libcorecap-preload.so", &lib);
	else
		ret = corecap_find_library("CORECAP_TP_LIB", "tracepoints", "libcorecap-tp.so",
					   &lib);
	if (ret < 0)
		goto out_release;
	ret = add_lib(env, lib);
	if (ret < 0)
		goto out_release;
	/* Forked children re-register with LTTng and stay traceable. */
	if (shim) {
		ret = add_system_lib(env, CORECAP_UST_FORK_LIB, "the LTTng-UST fork helper");
		if (ret < 0)
			goto out_release;
	}
	if (cpuprofile) {
		ret = add_system_lib(env, CORECAP_PROFILER_LIB, "gperftools' libprofiler");
		if (ret < 0)
			goto out_release;
		env->cpuprofile = true;
		ret = make_profile_dir(env, pid);
		if (ret < 0)
			goto out_release;
	}
	ret = corecap_preload_join((const char *const *)env->libs, env->n_libs,
				   getenv("LD_PRELOAD"), &env->ld_preload);
	if (ret == -EINVAL)
		corecap_error("cannot preload libraries whose path holds ':' or a blank");
	if (ret < 0)
		goto out_release;
	return 0;

out_release:
	corecap_launch_env_release(env);
	return ret;
}

int corecap_launch_env_apply(struct corecap_launch_env *env)
{
	char sig[16];
	int ret = 0;

	if (setenv("LD_PRELOAD", env->ld_preload, 1) < 0)
		goto out_errno;
	if (env->cpuprofile) {
		snprintf(sig, sizeof(sig), "%d", CORECAP_CPUPROFILE_SIGNAL);
		if (setenv("CPUPROFILE", env->cpuprofile_path, 1) < 0 ||
		    setenv("CPUPROFILESIGNAL", sig, 1) < 0)
			goto out_errno;
	}
	return ret;
out_errno:
	ret = -errno;
	corecap_error("cannot set the environment: %s", strerror(errno));
	return ret;
}

void corecap_launch_env_release(struct corecap_launch_env *env)
{
	for (size_t i = 0; i < env->n_libs; i++)
		free(env->libs[i]);
	free(env->ld_preload);
	if (env->cpuprofile_dir[0])
		remove_profile_dir(env->cpuprofile_dir);
	if (env->pidfd >= 0)
		close(env->pidfd);
	memset(env, 0, sizeof(*env));
	env->pidfd = -1;
}
