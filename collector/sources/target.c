#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <corecap/diag.h>
#include "util/proc_stat.h"
#include "target.h"

/* Reads a whole /proc file of unknown size; returns its length or -errno. */
static ssize_t read_all(const char *path, char **out)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	ssize_t ret;
	int fd;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out_free;
	}
	for (;;) {
		if (len + 1 >= cap) {
			char *nbuf = realloc(buf, cap * 2);

			if (!nbuf) {
				ret = -ENOMEM;
				goto out_close;
			}
			buf = nbuf;
			cap *= 2;
		}
		ret = read(fd, buf + len, cap - 1 - len);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			ret = -errno;
			goto out_close;
		}
		if (ret == 0)
			break;
		len += (size_t)ret;
	}
	buf[len] = '\0';
	close(fd);
	*out = buf;
	return (ssize_t)len;
out_close:
	close(fd);
out_free:
	free(buf);
	return ret;
}

static int status_field(pid_t pid, const char *name, long *value)
{
	char path[64], buf[4096];
	size_t n = strlen(name);
	const char *p;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	len = corecap_read_small_file(AT_FDCWD, path, buf, sizeof(buf));
	if (len < 0)
		return (int)len;
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, name, n) == 0 && p[n] == ':') {
			*value = strtol(p + n + 1, NULL, 10);
			return 0;
		}
	}
	return -ENOENT;
}

/* Whether this process holds CAP_SYS_PTRACE in its effective set. */
static bool have_cap_sys_ptrace(void)
{
	char buf[4096];
	const char *p;
	ssize_t len = corecap_read_small_file(AT_FDCWD, "/proc/self/status", buf, sizeof(buf));

	if (len < 0)
		return false;
	p = strstr(buf, "\nCapEff:");
	return p && (strtoull(p + 9, NULL, 16) >> 19 & 1); /* CAP_SYS_PTRACE is 19 */
}

static void no_permission(pid_t pid, uid_t uid, int err)
{
	/* Advice to become that user or take CAP_SYS_PTRACE only when it would help. */
	if ((err == EACCES || err == EPERM) &&
	    (geteuid() == 0 || geteuid() == uid || have_cap_sys_ptrace()))
		corecap_error(
			"cannot attach to PID %d: %s (it runs as uid %u, and corecap as uid "
			"%u%s; the kernel refuses it even so: a non-dumpable process, another "
			"user namespace, Yama's ptrace_scope or an LSM)",
			(int)pid, strerror(err), (unsigned)uid, (unsigned)geteuid(),
			have_cap_sys_ptrace() ? " with CAP_SYS_PTRACE" : "");
	else if (err == EACCES || err == EPERM)
		corecap_error("cannot attach to PID %d: %s (it runs as uid %u; record as that user "
			      "or with CAP_SYS_PTRACE)",
			      (int)pid, strerror(err), (unsigned)uid);
	else
		corecap_error("cannot attach to PID %d: %s", (int)pid, strerror(err));
}

int corecap_target_open(struct corecap_target *t, pid_t pid)
{
	struct corecap_proc_stat st;
	char path[64];
	long tgid = 0, uid = 0;
	ssize_t n;
	int ret;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	ret = corecap_proc_stat_read(AT_FDCWD, path, &st);
	if (ret == -ENOENT || ret == -ESRCH) {
		corecap_error("no process with PID %d", (int)pid);
		goto out;
	}
	if (ret < 0) {
		corecap_error("cannot read '%s': %s", path, strerror(-ret));
		goto out;
	}
	if (st.flags & CORECAP_PF_KTHREAD) {
		corecap_error("PID %d is a kernel thread (%s); only user-space processes can be "
			      "recorded",
			      (int)pid, st.comm);
		ret = -EINVAL;
		goto out;
	}
	if (st.state == 'Z' || st.state == 'X') {
		corecap_error("PID %d (%s) has exited (it is a zombie)", (int)pid, st.comm);
		ret = -ESRCH;
		goto out;
	}
	if (status_field(pid, "Tgid", &tgid) == 0 && tgid > 0 && tgid != pid) {
		corecap_note("PID %d is a thread of process %ld; recording process %ld", (int)pid,
			     tgid, tgid);
		ret = corecap_target_open(t, (pid_t)tgid);
		goto out;
	}
	status_field(pid, "Uid", &uid);
	t->pid = pid;
	t->uid = (uid_t)uid;
	t->starttime_ticks = st.starttime_ticks;
	snprintf(t->comm, sizeof(t->comm), "%s", st.comm);

	/* environ needs the ptrace read permission: the check that matters. */
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	n = read_all(path, &t->environ);
	if (n < 0) {
		ret = (int)n;
		if (ret == -ENOENT || ret == -ESRCH)
			corecap_error("no process with PID %d", (int)pid);
		else
			no_permission(pid, t->uid, -ret);
		goto out_release;
	}
	t->environ_len = (size_t)n;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	n = read_all(path, &t->cmdline);
	if (n < 0) {
		ret = (int)n;
		corecap_error("cannot read the command line of PID %d: %s", (int)pid,
			      strerror(-ret));
		goto out_release;
	}
	t->cmdline_len = (size_t)n;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, t->exe, sizeof(t->exe) - 1);
	t->exe[n > 0 ? n : 0] = '\0';
	ret = 0;
	goto out;

out_release:
	corecap_target_release(t);
out:
	return ret;
}

void corecap_target_release(struct corecap_target *t)
{
	free(t->cmdline);
	free(t->environ);
	t->cmdline = t->environ = NULL;
	t->cmdline_len = t->environ_len = 0;
}

/* Whether some thread of the process is not a zombie: a leader that called
 * pthread_exit() is a zombie while its threads run on. */
static bool any_live_thread(pid_t pid)
{
	struct corecap_proc_stat st;
	struct dirent *de;
	char path[300];
	bool live = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return false;
	while (!live && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/stat", de->d_name);
		live = corecap_proc_stat_read(dirfd(d), path, &st) == 0 && st.state != 'Z' &&
		       st.state != 'X';
	}
	closedir(d);
	return live;
}

bool corecap_target_alive(const struct corecap_target *t)
{
	struct corecap_proc_stat st;
	char path[64];
	bool alive = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)t->pid);
	if (corecap_proc_stat_read(AT_FDCWD, path, &st) < 0 ||
	    st.starttime_ticks != t->starttime_ticks)
		goto out;
	alive = st.state != 'Z' && st.state != 'X' ? true : any_live_thread(t->pid);
out:
	return alive;
}

const char *corecap_target_getenv(const struct corecap_target *t, const char *name, char *buf,
				  size_t size)
{
	size_t n = strlen(name);
	const char *p = t->environ;
	const char *end = t->environ + t->environ_len;

	while (p && p < end) {
		size_t len = strnlen(p, (size_t)(end - p));
		/* Compare with the first byte's top bit cleared. */
		bool match = len > n && p[n] == '=' && ((p[0] & 0x7f) == name[0]) &&
			     strncmp(p + 1, name + 1, n - 1) == 0;

		if (match) {
			snprintf(buf, size, "%.*s", (int)(len - n - 1), p + n + 1);
			buf[0] = (char)(buf[0] & 0x7f);
			return buf;
		}
		p += len + 1;
	}
	return NULL;
}
