#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu_profile.h"
#include <corecap/diag.h>
#include "util/proc_stat.h"
#include "util/run_dir.h"
#include "target.h"
#include "toggle_thread.h"
#include "util/mono_clock.h"
#include <corecap/run_format.h>

#define POLL_NS 2000000ull /* how often the window's loop looks for the switch-on */

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Where the daemon has libprofiler's code mapped (lo 0: nowhere). */
static struct corecap_toggle_range profiler_code(pid_t pid)
{
	struct corecap_toggle_range r = {0, 0};

	if (corecap_toggle_profiler_code(pid, &r, 1) <= 0)
		r.lo = r.hi = 0;
	return r;
}

/*
 * Whether the daemon exec'd since init: its libprofiler's code moved (the
 * new image maps it elsewhere, address space randomization on). The old
 * image's profile file stays open across the exec (libprofiler does not
 * open it close-on-exec), so the file alone cannot tell.
 */
static bool execd(const struct corecap_cpu_profile *cp)
{
	struct corecap_toggle_range r = profiler_code(cp->pid);

	return r.lo != cp->code_lo;
}

/* Whether target is BASE.<digits>. */
static bool is_profile(const char *target, const void *base)
{
	size_t blen = strlen(base);

	return strncmp(target, base, blen) == 0 && target[blen] == '.' && target[blen + 1] &&
	       strspn(target + blen + 1, "0123456789") == strlen(target + blen + 1);
}

/*
 * Whether the daemon holds a CPUPROFILE.<n> open, i.e. its profiler is
 * on; the file's path into file (may be NULL).
 */
static bool profiler_on(const struct corecap_cpu_profile *cp, char *file, size_t size)
{
	char link[PATH_MAX];
	bool on = corecap_proc_fd_find(cp->pid, is_profile, cp->base, link, sizeof(link));

	if (on && file)
		snprintf(file, size, "%s", link);
	return on;
}

/*
 * The target's file system credentials (/proc/PID/status: the fs uid and
 * gid, the supplementary groups): every path under CPUPROFILE is the
 * target's choice, so the collector opens, creates and removes it only
 * as the target would (as_target()), never with its own rights.
 */
static int read_creds(struct corecap_cpu_profile *cp)
{
	char path[64], line[1024];
	unsigned long ids[4];
	bool have_uid = false, have_gid = false;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)cp->pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid:\t%lu\t%lu\t%lu\t%lu", &ids[0], &ids[1], &ids[2], &ids[3]) ==
		    4) {
			cp->uid = (uid_t)ids[3];
			have_uid = true;
		} else if (sscanf(line, "Gid:\t%lu\t%lu\t%lu\t%lu", &ids[0], &ids[1], &ids[2],
				  &ids[3]) == 4) {
			cp->gid = (gid_t)ids[3];
			have_gid = true;
		} else if (strncmp(line, "Groups:", 7) == 0) {
			char *p = line + 7, *end;

			cp->n_groups = 0;
			for (;;) {
				unsigned long g = strtoul(p, &end, 10);

				if (end == p)
					break;
				if (cp->n_groups == CORECAP_CPU_PROFILE_MAX_GROUPS) {
					ret = -E2BIG;
					break;
				}
				cp->groups[cp->n_groups++] = (gid_t)g;
				p = end;
			}
		}
	}
	fclose(f);
	if (!ret && (!have_uid || !have_gid))
		ret = -EPROTO;
	return ret;
}

enum as_target_op { AS_TARGET_OPEN, AS_TARGET_UNLINK };

/* In the child: become the target (root only may; else we must be it already). */
static int become_target(const struct corecap_cpu_profile *cp)
{
	if (geteuid() != 0)
		return geteuid() == cp->uid ? 0 : -EPERM;
	/* Raw system calls: this thread only, no glibc set*id broadcast after fork. */
	if (syscall(SYS_setgroups, (size_t)cp->n_groups, cp->groups) < 0 ||
	    syscall(SYS_setresgid, cp->gid, cp->gid, cp->gid) < 0 ||
	    syscall(SYS_setresuid, cp->uid, cp->uid, cp->uid) < 0)
		return -errno;
	return 0;
}

/* In the child: the operation itself, its result and descriptor sent to sock. */
static void as_target_child(const struct corecap_cpu_profile *cp, int sock, enum as_target_op op,
			    const char *path, int flags)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov;
	struct msghdr msg;
	struct stat st;
	int err, fd = -1;

	/* Nothing of the collector's (its run, its session) stays open in a process of the target's
	 * uid. */
	if (sock > 3)
		syscall(SYS_close_range, 3u, (unsigned)sock - 1, 0u);
	syscall(SYS_close_range, (unsigned)sock + 1, ~0u, 0u);
	err = become_target(cp);
	if (err == 0 && op == AS_TARGET_UNLINK) {
		if (unlink(path) < 0)
			err = -errno;
	} else if (err == 0) {
		/* O_NONBLOCK: a FIFO planted at the name must not hang us. */
		fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
		if (fd < 0)
			err = -errno;
		else if (fstat(fd, &st) < 0)
			err = -errno;
		else if (!S_ISREG(st.st_mode))
			err = -EINVAL;
	}
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = &err;
	iov.iov_len = sizeof(err);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (err == 0 && fd >= 0) {
		struct cmsghdr *c;

		memset(cbuf, 0, sizeof(cbuf));
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	_exit(sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)sizeof(err) ? 0 : 1);
}

/*
 * Does op on path in a short-lived child that has the target's
 * credentials: open (a regular file only; its descriptor in *fd_out, with
 * O_NONBLOCK cleared) or unlink. 0 or -errno (-EINVAL: not a regular file,
 * -EPERM: the collector may not take the target's credentials).
 */
static int as_target(const struct corecap_cpu_profile *cp, enum as_target_op op, const char *path,
		     int flags, int *fd_out)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov;
	struct msghdr msg;
	int sv[2], err = -EPROTO, status;
	ssize_t n;
	pid_t child;

	if (fd_out)
		*fd_out = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	child = fork();
	if (child < 0) {
		err = -errno;
		goto out_close;
	}
	if (child == 0) {
		close(sv[0]);
		as_target_child(cp, sv[1], op, path, flags);
	}
	close(sv[1]);
	sv[1] = -1;
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = &err;
	iov.iov_len = sizeof(err);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	do
		n = recvmsg(sv[0], &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(err))
		err = n < 0 ? -errno : -EPROTO;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); n > 0 && c; c = CMSG_NXTHDR(&msg, c)) {
		int fd;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
		if (err == 0 && fd_out && *fd_out < 0) {
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
			*fd_out = fd;
		} else {
			close(fd);
		}
	}
	if (err == 0 && op == AS_TARGET_OPEN && (!fd_out || *fd_out < 0))
		err = -EPROTO;
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
out_close:
	close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	return err;
}

void corecap_cpu_profile_init(struct corecap_cpu_profile *cp, const struct corecap_target *t)
{
	char sig[32], base[4096], cwd[PATH_MAX];
	char *end;
	long v;
	int ret;

	memset(cp, 0, sizeof(*cp));
	cp->pid = t->pid;
	cp->owner_fd = -1;
	if (!corecap_target_getenv(t, "CPUPROFILESIGNAL", sig, sizeof(sig)) ||
	    !corecap_target_getenv(t, "CPUPROFILE", base, sizeof(base)) || !base[0])
		return;
	v = strtol(sig, &end, 10);
	if (*end || v < 1 || v >= NSIG) {
		corecap_warn(
			"PID %d has CPUPROFILESIGNAL='%s', not a signal number; no CPU profile",
			(int)t->pid, sig);
		return;
	}
	cp->code_lo = profiler_code(t->pid).lo;
	if (!cp->code_lo) {
		corecap_warn("PID %d sets CPUPROFILESIGNAL but has no libprofiler mapped; no CPU "
			     "profile",
			     (int)t->pid);
		return;
	}
	if (base[0] != '/') {
		/* The daemon opens it relative to its own working directory. */
		char link[64];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/%d/cwd", (int)t->pid);
		n = readlink(link, cwd, sizeof(cwd) - 1);
		if (n <= 0) {
			corecap_warn("cannot resolve PID %d's CPUPROFILE='%s': %s; no CPU profile",
				     (int)t->pid, base, strerror(errno));
			return;
		}
		cwd[n] = '\0';
		snprintf(cp->base, sizeof(cp->base), "%.2047s/%.2047s", cwd, base);
	} else {
		snprintf(cp->base, sizeof(cp->base), "%s", base);
	}
	ret = read_creds(cp);
	if (ret < 0) {
		corecap_warn("cannot read PID %d's credentials: %s; no CPU profile", (int)t->pid,
			     strerror(-ret));
		return;
	}
	cp->signal = (int)v;
	cp->available = true;
}

/* The PID named in an owner file, or 0. */
static pid_t owner_pid(int fd)
{
	char buf[64];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long v;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "collector %ld", &v) != 1 || v <= 0 || v > INT_MAX)
		return 0;
	return (pid_t)v;
}

/* The profile file a previous owner had on (its second line), or "". */
static void owner_file(int fd, char *file, size_t size)
{
	char buf[4400], *nl, *p;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	file[0] = '\0';
	if (n <= 0)
		return;
	buf[n] = '\0';
	p = strstr(buf, "\nprofile ");
	if (!p)
		return;
	p += 9;
	nl = strchr(p, '\n');
	if (nl)
		*nl = '\0';
	snprintf(file, size, "%s", p);
}

static int write_owner(struct corecap_cpu_profile *cp)
{
	char buf[4400];
	int n;

	n = snprintf(buf, sizeof(buf), "collector %d\nprofile %s\n", (int)getpid(), cp->file);
	if (ftruncate(cp->owner_fd, 0) < 0 || pwrite(cp->owner_fd, buf, (size_t)n, 0) != n)
		return -errno;
	return 0;
}

/*
 * Sends the toggle to a thread that may take it (toggle_thread.h), waiting
 * up to CORECAP_CPU_PROFILE_SWITCH_MS for one: 0, -EAGAIN when none came,
 * or kill's error.
 */
static int send_toggle(struct corecap_cpu_profile *cp)
{
	for (unsigned waited = 0; waited < CORECAP_CPU_PROFILE_SWITCH_MS; waited += 2) {
		pid_t tid = corecap_toggle_thread_find(cp->pid, cp->signal);

		if (tid > 0) {
			if (syscall(SYS_tgkill, cp->pid, tid, cp->signal) == 0)
				return 0;
			if (errno != ESRCH)
				return -errno;
		} else if (kill(cp->pid, 0) < 0) {
			return -errno;
		}
		sleep_ms(2);
	}
	return -EAGAIN;
}

/* Sends the toggle and waits until the profiler's state is `on`; false on timeout. */
static bool toggle_and_wait(struct corecap_cpu_profile *cp, bool on)
{
	if (send_toggle(cp) < 0)
		return false;
	for (unsigned waited = 0; waited < CORECAP_CPU_PROFILE_SWITCH_MS; waited += 2) {
		if (profiler_on(cp, NULL, 0) == on)
			return true;
		sleep_ms(2);
	}
	return false;
}

/* A profiler on without a live owner: switch it off, remove a dead owner's file. */
static int repair(struct corecap_cpu_profile *cp, pid_t dead, const char *dead_file)
{
	char file[4200];

	if (!profiler_on(cp, file, sizeof(file)))
		return 0;
	/* Its start toggle may still be running in the daemon: keep the spacing. */
	sleep_ms(CORECAP_CPU_PROFILE_MIN_ON_MS);
	if (!toggle_and_wait(cp, false)) {
		corecap_error("PID %d's CPU profiler is on and did not switch off within %u ms",
			      (int)cp->pid, CORECAP_CPU_PROFILE_SWITCH_MS);
		return -ETIMEDOUT;
	}
	/* A dead owner that had not seen it on yet did not write the name down. */
	if (dead && (!dead_file[0] || strcmp(file, dead_file) == 0)) {
		as_target(cp, AS_TARGET_UNLINK, file, 0, NULL);
		corecap_note("switched off PID %d's CPU profiler, left on by corecap record PID %d "
			     "that died, and removed its '%s'",
			     (int)cp->pid, (int)dead, file);
	} else {
		corecap_warn("PID %d's CPU profiler was on (writing '%s', not switched on by a "
			     "corecap record): switched it off to profile the window",
			     (int)cp->pid, file);
	}
	return 0;
}

int corecap_cpu_profile_claim(struct corecap_cpu_profile *cp)
{
	char path[4200], dead_file[4200];
	struct stat a, b;
	pid_t dead;
	int ret = 0;
	int fd = -1, again;

	if (!cp->available)
		goto out;
	snprintf(path, sizeof(path), "%s.owner", cp->base);
	for (int tries = 0;; tries++) {
		/*
		 * A refusal costs the profile, not the run: the path is the
		 * daemon's choice, and may be one it could never write itself.
		 */
		ret = as_target(cp, AS_TARGET_OPEN, path, O_RDWR | O_CREAT, &fd);
		if (ret < 0) {
			corecap_warn("cannot open '%s' (the owner of PID %d's CPU profiler) as its "
				     "uid %u: %s; no CPU profile",
				     path, (int)cp->pid, (unsigned)cp->uid,
				     ret == -EINVAL ? "not a regular file" : strerror(-ret));
			cp->available = false;
			ret = 0;
			goto out;
		}
		/* Planted by someone else (a shared directory): its lock is not ours to wait for.
		 */
		if (fstat(fd, &a) < 0 || a.st_uid != cp->uid || a.st_nlink != 1) {
			corecap_warn(
				"'%s' (the owner of PID %d's CPU profiler) belongs to uid %u with "
				"%u links, not to the daemon's uid %u alone: refused; no CPU "
				"profile",
				path, (int)cp->pid, (unsigned)a.st_uid, (unsigned)a.st_nlink,
				(unsigned)cp->uid);
			cp->available = false;
			ret = 0;
			goto out_close;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			pid_t owner = owner_pid(fd);

			ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
			if (ret == -EBUSY)
				corecap_error(
					"PID %d's CPU profiler is in use by another corecap "
					"record (PID %d): one recording at a time per "
					"profiled daemon (--no-cpu-profile records without it)",
					(int)cp->pid, (int)owner);
			else
				corecap_error("cannot lock '%s': %s", path, strerror(-ret));
			goto out_close;
		}
		/* The previous owner may have removed the file between our open and flock. */
		ret = as_target(cp, AS_TARGET_OPEN, path, O_RDONLY, &again);
		if (ret == 0 && fstat(again, &b) == 0 && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev) {
			close(again);
			break;
		}
		if (again >= 0)
			close(again);
		ret = 0;
		close(fd);
		fd = -1;
		if (tries == 10) {
			ret = -EAGAIN;
			corecap_error("cannot take '%s': it keeps being replaced", path);
			goto out;
		}
	}
	/* A file with content that nobody holds: its collector died without cleaning up. */
	dead = owner_pid(fd);
	owner_file(fd, dead_file, sizeof(dead_file));
	ret = repair(cp, dead, dead_file);
	if (ret < 0)
		goto out_close;
	cp->owner_fd = fd;
	ret = write_owner(cp);
	if (ret < 0) {
		corecap_error("cannot write '%s': %s", path, strerror(-ret));
		cp->owner_fd = -1;
		goto out_close;
	}
	goto out;

out_close:
	close(fd);
out:
	return ret;
}

int corecap_cpu_profile_start(struct corecap_cpu_profile *cp)
{
	int ret = 0;

	if (!cp->available)
		goto out;
	ret = send_toggle(cp);
	if (ret < 0) {
		if (ret == -EAGAIN)
			corecap_warn(
				"no thread of PID %d was asleep in a system call where its CPU "
				"profiler may be toggled safely within %u ms (or its "
				"/proc/PID/task/TID/syscall is not readable); no CPU profile",
				(int)cp->pid, CORECAP_CPU_PROFILE_SWITCH_MS);
		else
			corecap_warn("cannot signal PID %d to start its CPU profile: %s",
				     (int)cp->pid, strerror(-ret));
		cp->available = false;
		goto out;
	}
	cp->sent_ns = corecap_now_ns();
	cp->state = CPU_PROFILE_STARTING;
	cp->next_poll_ns = cp->sent_ns + POLL_NS;
out:
	return ret;
}

void corecap_cpu_profile_poll(struct corecap_cpu_profile *cp)
{
	uint64_t t;

	if (cp->state != CPU_PROFILE_STARTING)
		return;
	t = corecap_now_ns();
	if (t < cp->next_poll_ns)
		return;
	cp->next_poll_ns = t + POLL_NS;
	if (!profiler_on(cp, cp->file, sizeof(cp->file)))
		return;
	cp->state = CPU_PROFILE_ON;
	cp->on_ns = t;
	/* A collector killed from here on leaves the name for the next one to clean up. */
	if (cp->owner_fd >= 0)
		write_owner(cp);
}

int corecap_cpu_profile_stop(struct corecap_cpu_profile *cp)
{
	uint64_t spacing_ns = (uint64_t)CORECAP_CPU_PROFILE_MIN_ON_MS * 1000000u;
	uint64_t t;
	int ret = 0;

	if (cp->state == CPU_PROFILE_STARTING) {
		for (unsigned waited = 0;
		     cp->state == CPU_PROFILE_STARTING && waited < CORECAP_CPU_PROFILE_SWITCH_MS;
		     waited += 2) {
			cp->next_poll_ns = 0;
			corecap_cpu_profile_poll(cp);
			if (cp->state == CPU_PROFILE_STARTING)
				sleep_ms(2);
		}
		if (cp->state == CPU_PROFILE_STARTING) {
			/* Never a blind second toggle: the next record repairs a late switch-on. */
			corecap_warn("PID %d's CPU profiler did not switch on within %u ms; no CPU "
				     "profile",
				     (int)cp->pid, CORECAP_CPU_PROFILE_SWITCH_MS);
			cp->state = CPU_PROFILE_OFF;
			ret = -ETIMEDOUT;
			goto out;
		}
	}
	if (cp->state != CPU_PROFILE_ON)
		goto out;
	t = corecap_now_ns();
	if (t < cp->on_ns + spacing_ns)
		sleep_ms((unsigned)((cp->on_ns + spacing_ns - t) / 1000000u) + 1);
	/*
	 * Off already: the daemon exec'd (its new image starts with the
	 * profiler off) or someone else switched it. Our toggle would switch
	 * it on for good.
	 */
	if (!profiler_on(cp, NULL, 0) || execd(cp)) {
		corecap_warn("PID %d's CPU profiler was switched off before the window's end (did "
			     "it exec?); no CPU profile",
			     (int)cp->pid);
		/* What it wrote of our window is incomplete, and nobody else's. */
		as_target(cp, AS_TARGET_UNLINK, cp->file, 0, NULL);
		cp->state = CPU_PROFILE_OFF;
		ret = -ESRCH;
		goto out;
	}
	if (!toggle_and_wait(cp, false)) {
		ret = -ETIMEDOUT;
		corecap_warn("PID %d's CPU profiler did not switch off within %u ms; no CPU "
			     "profile",
			     (int)cp->pid, CORECAP_CPU_PROFILE_SWITCH_MS);
		cp->state = CPU_PROFILE_OFF;
		goto out;
	}
	cp->state = CPU_PROFILE_STOPPED;
out:
	return ret;
}

int corecap_cpu_profile_collect(struct corecap_cpu_profile *cp, struct corecap_run_dir *rd)
{
	char buf[65536];
	struct stat st;
	size_t left;
	int ret = 0;
	int in, out;

	if (!cp->available)
		goto out;
	if (cp->state != CPU_PROFILE_STOPPED) {
		ret = -ENOENT;
		goto out;
	}
	/* Read as the daemon: the name is its choice, and so is what is there. */
	ret = as_target(cp, AS_TARGET_OPEN, cp->file, O_RDONLY, &in);
	if (ret < 0) {
		corecap_warn("cannot read the CPU profile '%s' as PID %d's uid %u: %s", cp->file,
			     (int)cp->pid, (unsigned)cp->uid,
			     ret == -EINVAL ? "not a regular file" : strerror(-ret));
		goto out;
	}
	if (fstat(in, &st) < 0 || (uint64_t)st.st_size > CORECAP_CPU_PROFILE_MAX_BYTES) {
		ret = -EFBIG;
		corecap_warn("the CPU profile '%s' is larger than %llu bytes; not copied", cp->file,
			     (unsigned long long)CORECAP_CPU_PROFILE_MAX_BYTES);
		goto out_close_in;
	}
	left = (size_t)st.st_size;
	ret = corecap_run_dir_create_file(rd, CORECAP_RUN_CPU_PROF, &out);
	if (ret < 0)
		goto out_close_in;
	/* No more than the size seen: a file that grows is not followed. */
	while (left) {
		ssize_t n = read(in, buf, left < sizeof(buf) ? left : sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				ret = -errno;
			break;
		}
		ret = corecap_write_all(out, buf, (size_t)n);
		if (ret < 0)
			break;
		cp->bytes += (size_t)n;
		left -= (size_t)n;
	}
	if (close(out) < 0 && ret == 0)
		ret = -errno;
	if (ret < 0)
		corecap_error("cannot copy the CPU profile '%s' to '%s/" CORECAP_RUN_CPU_PROF
			      "': %s",
			      cp->file, rd->path, strerror(-ret));
	else
		as_target(cp, AS_TARGET_UNLINK, cp->file, 0, NULL);
	if (!ret && !cp->bytes)
		corecap_warn("PID %d's CPU profile '%s' is empty", (int)cp->pid, cp->file);
out_close_in:
	close(in);
out:
	return ret;
}

void corecap_cpu_profile_release(struct corecap_cpu_profile *cp)
{
	char path[4200];

	if (cp->owner_fd < 0)
		return;
	/* Removed while still locked: a waiter re-checks the inode and starts afresh. */
	snprintf(path, sizeof(path), "%s.owner", cp->base);
	if (cp->state == CPU_PROFILE_OFF || cp->state == CPU_PROFILE_STOPPED)
		as_target(cp, AS_TARGET_UNLINK, path, 0, NULL);
	close(cp->owner_fd);
	cp->owner_fd = -1;
}
