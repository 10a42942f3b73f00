#include "scale_confine.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <corecap/diag.h>
#include "util/cpu_list.h"
#include "sources/cpu_quota.h"
#include "util/proc_stat.h"

#define CGROUP_ROOT   "/sys/fs/cgroup"
#define GUARD_POLL_MS 10
/* cpu.max's period for the quotas set here (the kernel's default). */
#define QUOTA_PERIOD_US 100000u

static struct scale_task *find_task(struct scale_shared *sh, pid_t tid)
{
	for (int i = 0; i < sh->ntasks; i++)
		if (sh->tasks[i].tid == tid)
			return &sh->tasks[i];
	return NULL;
}

/*
 * Calls fn on each present task of the daemon (through its /proc
 * directory descriptor: a dead daemon's listing fails). 0 or -ESRCH.
 */
static int each_task(int procfd, void (*fn)(void *ctx, pid_t tid), void *ctx)
{
	int fd = openat(procfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return -ESRCH;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ESRCH;
	}
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (de->d_name[0] >= '0' && de->d_name[0] <= '9' && !*end && tid > 0)
			fn(ctx, (pid_t)tid);
	}
	closedir(d);
	return 0;
}

/* A cgroup file beneath the hierarchy's mount, opened as flags say, never through a link. */
static int open_beneath(int root, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	int fd = (int)syscall(SYS_openat2, root, rel, &how, sizeof(how));

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* One write of text to a cgroup file beneath root. */
static int write_file(int root, const char *rel, const char *text)
{
	int fd = open_beneath(root, rel, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return fd;
	n = write(fd, text, strlen(text));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

static void restore_one(void *ctx, pid_t tid)
{
	struct scale_shared *sh = ctx;
	struct scale_task *t = find_task(sh, tid);

	sched_setaffinity(tid, sizeof(cpu_set_t), t ? &t->orig : &sh->base);
}

/* The thread (v1: a cgroup's tasks) or the process (v2: cgroup.procs) into the cgroup at dir. */
static int move_into(const struct scale_shared *sh, int cgroot, const char *dir, pid_t id)
{
	char rel[sizeof(sh->moved_to) + 32], text[24];

	snprintf(rel, sizeof(rel), "%s%s%s", dir, dir[0] ? "/" : "",
		 sh->v1 ? "tasks" : "cgroup.procs");
	snprintf(text, sizeof(text), "%d", (int)id);
	return write_file(cgroot, rel, text);
}

struct move_ctx {
	const struct scale_shared *sh;
	int cgroot;
	const char *dir;
	int err;
};

static void move_one(void *ctx, pid_t tid)
{
	struct move_ctx *m = ctx;
	int err = move_into(m->sh, m->cgroot, m->dir, tid);

	if (err && err != -ESRCH && !m->err)
		m->err = err;
}

/* Every present thread of the daemon (v1) or the daemon (v2) into dir ("" the root). */
static int move_all(const struct scale_shared *sh, int procfd, int cgroot, const char *dir,
		    pid_t pid)
{
	struct move_ctx m = {.sh = sh, .cgroot = cgroot, .dir = dir};

	if (!sh->v1)
		return move_into(sh, cgroot, dir, pid);
	if (each_task(procfd, move_one, &m))
		return -ESRCH;
	return m.err;
}

/*
 * Both the collector's and the guard's: every present thread and the
 * quota back, and with uncgroup a moved daemon back in the root cgroup.
 */
static int restore(struct scale_shared *sh, int procfd, int cgroot, pid_t pid, bool uncgroup)
{
	int ret = 0;

	if (procfd >= 0)
		ret = each_task(procfd, restore_one, sh);
	if (sh->quota_set && cgroot >= 0) {
		int err = write_file(cgroot, sh->quota_rel, sh->quota_orig);

		if (err == 0)
			sh->quota_set = 0;
		else if (!ret)
			ret = err;
	}
	if (uncgroup && sh->moved && cgroot >= 0) {
		int err = procfd >= 0 ? move_all(sh, procfd, cgroot, "", pid) : 0;

		/* A thread born meanwhile is in it still: once more, then remove it. */
		if (unlinkat(cgroot, sh->moved_to, AT_REMOVEDIR) != 0 && procfd >= 0) {
			move_all(sh, procfd, cgroot, "", pid);
			if (unlinkat(cgroot, sh->moved_to, AT_REMOVEDIR) != 0 && !err)
				err = -errno;
		}
		if (err == 0 || err == -ESRCH)
			sh->moved = 0;
		else if (!ret)
			ret = err;
	}
	return ret;
}

static void snapshot_one(void *ctx, pid_t tid)
{
	struct scale_shared *sh = ctx;
	struct scale_task *t;

	if (find_task(sh, tid) || sh->ntasks >= SCALE_MAX_TASKS)
		return;
	t = &sh->tasks[sh->ntasks];
	t->tid = tid;
	t->confined = false;
	if (sched_getaffinity(tid, sizeof(t->orig), &t->orig) != 0)
		return; /* gone meanwhile */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	sh->ntasks++;
}

/* Whether we may set the threads' affinity: each set to its own mask (no change). */
static void probe_one(void *ctx, pid_t tid)
{
	struct scale_confine *c = ctx;
	struct scale_task *t = find_task(c->sh, tid);

	if (t && !c->confine_errno && sched_setaffinity(tid, sizeof(t->orig), &t->orig) != 0 &&
	    errno != ESRCH) {
		c->confine_errno = errno;
		c->confine_tid = tid;
	}
}

/* The guard: restores when the collector is gone without releasing it. */
static void guard(struct scale_shared *sh, pid_t collector, int procfd, int cgroot, pid_t pid)
{
	struct timespec tick = {.tv_nsec = GUARD_POLL_MS * 1000000l};

	while (getppid() == collector)
		nanosleep(&tick, NULL);
	restore(sh, procfd, cgroot, pid, true);
	_exit(0);
}

static int start_guard(struct scale_confine *c)
{
	pid_t collector = getpid();
	pid_t pid = fork();

	if (pid < 0) {
		int err = -errno;

		corecap_error("cannot start the affinity guard: %s", strerror(-err));
		return err;
	}
	if (pid == 0) {
		struct sigaction dfl = {.sa_handler = SIG_DFL}, ign = {.sa_handler = SIG_IGN};
		int lo = c->procfd < c->cgroot ? c->procfd : c->cgroot;
		int hi = c->procfd < c->cgroot ? c->cgroot : c->procfd;
		sigset_t none;

		if (getppid() != collector)
			_exit(0);
		/* Out of the terminal's job control (Ctrl-C, Ctrl-Z), holding none of our files. */
		setpgid(0, 0);
		if (lo < 0) {
			close_range(3, (unsigned)hi - 1, 0);
			close_range((unsigned)hi + 1, ~0u, 0);
		} else {
			close_range(3, (unsigned)lo - 1, 0);
			if (hi > lo + 1)
				close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
			close_range((unsigned)hi + 1, ~0u, 0);
		}
		for (int sig = 1; sig < NSIG; sig++)
			sigaction(sig, &dfl, NULL);
		sigaction(SIGINT, &ign, NULL);
		sigaction(SIGHUP, &ign, NULL);
		sigaction(SIGTERM, &ign, NULL);
		sigaction(SIGPIPE, &ign, NULL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		guard(c->sh, collector, c->procfd, c->cgroot, c->pid);
	}
	c->guard = pid;
	return 0;
}

int scale_confine_open(struct scale_confine *c, pid_t pid)
{
	char path[64], text[CORECAP_CGROUP_FILE_MAX], hier[64];
	bool v1 = false;
	int ret;

	memset(c, 0, sizeof(*c));
	c->pid = pid;
	c->cgroot = -1;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	c->procfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->procfd < 0) {
		ret = -errno;
		corecap_error("cannot open process %d: %s", (int)pid,
			      ret == -ENOENT ? "no such process" : strerror(-ret));
		return ret;
	}
	c->sh = mmap(NULL, sizeof(*c->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		     0);
	if (c->sh == MAP_FAILED) {
		ret = -errno;
		c->sh = NULL;
		corecap_error("cannot keep the daemon's affinity: %s", strerror(-ret));
		goto fail;
	}
	if (sched_getaffinity(pid, sizeof(c->sh->base), &c->sh->base) != 0) {
		ret = -errno;
		corecap_error("cannot read the affinity of process %d: %s", (int)pid,
			      strerror(-ret));
		goto fail;
	}
	ret = each_task(c->procfd, snapshot_one, c->sh);
	if (ret || !c->sh->ntasks) {
		ret = -ESRCH;
		corecap_error("cannot list the threads of process %d: it is gone", (int)pid);
		goto fail;
	}
	each_task(c->procfd, probe_one, c);
	if (c->confine_errno) {
		ret = -c->confine_errno;
		corecap_error("cannot set the CPU affinity of thread %d of process %d: %s%s",
			      (int)c->confine_tid, (int)pid, strerror(-ret),
			      ret == -EPERM ? " (it takes the daemon's user, or CAP_SYS_NICE)"
					    : "");
		goto fail;
	}
	/* The cgroup, for fractional points (checked by scale_confine_quota_check). */
	if (corecap_read_small_file(c->procfd, "cgroup", text, sizeof(text)) > 0 &&
	    corecap_cgroup_line(text, "cpu", &v1, hier, sizeof(hier), c->cgroup,
				sizeof(c->cgroup)) == 0) {
		c->sh->v1 = v1;
		c->cgroot = corecap_cgroup_open(v1, hier);
	}
	if (c->cgroot < 0)
		c->cgroot = -1;
	ret = start_guard(c);
	if (ret)
		goto fail;
	return 0;
fail:
	scale_confine_release(c);
	return ret;
}

const cpu_set_t *scale_confine_base(const struct scale_confine *c)
{
	return &c->sh->base;
}

/* The quota's file of the cgroup at dir, its original text and (v1) its period. */
static int quota_file(struct scale_shared *sh, int cgroot, const char *dir, char *why, size_t size)
{
	char buf[128];
	const char *end;
	ssize_t n;

	snprintf(sh->quota_rel, sizeof(sh->quota_rel), "%s/%s", dir,
		 sh->v1 ? "cpu.cfs_quota_us" : "cpu.max");
	sh->period_us = QUOTA_PERIOD_US;
	if (sh->v1) {
		char rel[sizeof(sh->quota_rel)];
		uint64_t period;

		snprintf(rel, sizeof(rel), "%s/cpu.cfs_period_us", dir);
		n = corecap_cgroup_read(cgroot, rel, buf, sizeof(buf));
		if (n <= 0 || !corecap_cgroup_u64(buf, &end, &period) || !period) {
			snprintf(why, size, "cannot read %s/cpu/%s", CGROUP_ROOT, rel);
			return n < 0 ? (int)n : -EIO;
		}
		sh->period_us = period;
	}
	n = corecap_cgroup_read(cgroot, sh->quota_rel, buf, sizeof(buf));
	if (n <= 0 || (size_t)n >= sizeof(sh->quota_orig)) {
		snprintf(why, size, "cannot read the quota file %s under %s: %s", sh->quota_rel,
			 CGROUP_ROOT, n < 0 ? strerror((int)-n) : "empty or too long");
		return n < 0 ? (int)n : -EIO;
	}
	buf[strcspn(buf, "\n")] = '\0';
	/* Only the first check keeps the original: a later one may read our own quota. */
	if (!sh->quota_orig[0])
		snprintf(sh->quota_orig, sizeof(sh->quota_orig), "%.63s", buf);
	/* Writable by us: opened for writing, nothing written. */
	{
		int fd = open_beneath(cgroot, sh->quota_rel, O_WRONLY);

		if (fd < 0) {
			snprintf(why, size, "cannot open %s for writing under %s: %s",
				 sh->quota_rel, CGROUP_ROOT, strerror(-fd));
			return fd;
		}
		close(fd);
	}
	return 0;
}

/*
 * A daemon in the root cgroup, which takes no quota, into a cgroup of
 * ours: made here (never one that exists), marked moved before the first
 * thread goes, so that restore() (ours or the guard's) brings them back.
 */
static int move_out_of_root(struct scale_confine *c, char *why, size_t size)
{
	struct scale_shared *sh = c->sh;
	int err;

	snprintf(sh->moved_to, sizeof(sh->moved_to), "corecap-scale-%d", (int)c->pid);
	if (mkdirat(c->cgroot, sh->moved_to, 0755) != 0) {
		err = -errno;
		snprintf(why, size,
			 "it is in the root cgroup, which takes no quota, and its own cgroup "
			 "%s/%s%s cannot be made: %s%s",
			 CGROUP_ROOT, sh->v1 ? "cpu/" : "", sh->moved_to, strerror(-err),
			 err == -EEXIST ? " (another scale of it runs, or one was killed with "
					  "its guard: remove it once no process is in it)"
					: "");
		return err;
	}
	sh->moved = 1;
	err = move_all(sh, c->procfd, c->cgroot, sh->moved_to, c->pid);
	if (err) {
		snprintf(why, size, "cannot move its threads into %s/%s%s: %s", CGROUP_ROOT,
			 sh->v1 ? "cpu/" : "", sh->moved_to, strerror(-err));
		restore(sh, c->procfd, c->cgroot, c->pid, true);
		return err;
	}
	return 0;
}

int scale_confine_quota_check(struct scale_confine *c, char *why, size_t size)
{
	char self[CORECAP_CGROUP_FILE_MAX], mine[1024], hier[64];
	struct scale_shared *sh = c->sh;
	bool v1 = false;
	int err;

	if (c->cgroot < 0 || !c->cgroup[0]) {
		snprintf(why, size,
			 "its cgroup has no cpu controller corecap can reach (a cgroup v2 "
			 "hierarchy with it, or a cgroup v1 cpu hierarchy)");
		return -ENOTSUP;
	}
	if (strcmp(c->cgroup, "/") == 0) {
		if (!sh->moved && (err = move_out_of_root(c, why, size)))
			return err;
		return quota_file(sh, c->cgroot, sh->moved_to, why, size);
	}
	if (corecap_read_small_file(AT_FDCWD, "/proc/self/cgroup", self, sizeof(self)) > 0 &&
	    corecap_cgroup_line(self, "cpu", &v1, hier, sizeof(hier), mine, sizeof(mine)) == 0 &&
	    v1 == (bool)sh->v1 &&
	    (strcmp(mine, c->cgroup) == 0 || (strncmp(mine, c->cgroup, strlen(c->cgroup)) == 0 &&
					      mine[strlen(c->cgroup)] == '/'))) {
		snprintf(why, size,
			 "its cgroup %s also holds corecap and the benchmark, which its quota "
			 "would throttle too",
			 c->cgroup);
		return -EBUSY;
	}
	return quota_file(sh, c->cgroot, c->cgroup + 1, why, size);
}

static void confine_one(void *ctx, pid_t tid)
{
	struct scale_confine *c = ctx;
	struct scale_task *t = find_task(c->sh, tid);
	cpu_set_t now;

	if (!t) {
		/* Born during the scale: its original is the main thread's. */
		if (c->sh->ntasks >= SCALE_MAX_TASKS)
			return;
		t = &c->sh->tasks[c->sh->ntasks];
		t->tid = tid;
		t->confined = false;
		t->orig = c->sh->base;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		c->sh->ntasks++;
		c->new_threads++;
	}
	if (sched_getaffinity(tid, sizeof(now), &now) != 0)
		return; /* gone meanwhile */
	if (!t->confined)
		c->threads++;
	if (t->confined && !CPU_EQUAL(&now, &c->cur)) {
		bool named = false;

		for (unsigned i = 0; i < c->resets && i < SCALE_RESET_NAMED; i++)
			named |= c->reset_tids[i] == tid;
		if (!named) {
			if (c->resets < SCALE_RESET_NAMED)
				c->reset_tids[c->resets] = tid;
			c->resets++;
		}
	}
	if (!CPU_EQUAL(&now, &c->cur) && sched_setaffinity(tid, sizeof(c->cur), &c->cur) != 0 &&
	    errno != ESRCH && !c->confine_errno) {
		c->confine_errno = errno;
		c->confine_tid = tid;
	}
	t->confined = true;
}

int scale_confine_pass(struct scale_confine *c)
{
	return each_task(c->procfd, confine_one, c);
}

int scale_confine_begin(struct scale_confine *c, const cpu_set_t *cpus, double quota_cpus)
{
	int ret;

	c->cur = *cpus;
	c->resets = c->threads = c->new_threads = 0;
	c->confine_errno = 0;
	for (int i = 0; i < c->sh->ntasks; i++)
		c->sh->tasks[i].confined = false;
	if (quota_cpus > 0) {
		char text[64];

		if (!c->sh->quota_orig[0] || c->cgroot < 0) {
			corecap_error(
				"cannot set a CPU quota: the daemon's cgroup was not checked");
			return -EINVAL;
		}
		if (c->sh->v1)
			snprintf(text, sizeof(text), "%llu",
				 (unsigned long long)llround(quota_cpus * c->sh->period_us));
		else
			snprintf(text, sizeof(text), "%llu %llu",
				 (unsigned long long)llround(quota_cpus * c->sh->period_us),
				 c->sh->period_us);
		c->sh->quota_set = 1; /* before the write: the guard restores either way */
		ret = write_file(c->cgroot, c->sh->quota_rel, text);
		if (ret) {
			corecap_error("cannot write '%s' to %s: %s (under %s)", text,
				      c->sh->quota_rel, strerror(-ret), CGROUP_ROOT);
			scale_confine_end(c);
			return ret;
		}
	}
	ret = scale_confine_pass(c);
	if (ret) {
		corecap_error("cannot confine process %d: it is gone", (int)c->pid);
		scale_confine_end(c);
	} else if (c->confine_errno) {
		char list[256];

		ret = -c->confine_errno;
		corecap_cpu_list_format(cpus, list, sizeof(list));
		corecap_error("cannot confine thread %d of process %d to CPUs %s: %s",
			      (int)c->confine_tid, (int)c->pid, list, strerror(-ret));
		scale_confine_end(c);
	}
	return ret;
}

int scale_confine_end(struct scale_confine *c)
{
	int ret;

	scale_confine_pass(c);
	/* A moved daemon stays in its cgroup until the release. */
	ret = restore(c->sh, c->procfd, c->cgroot, c->pid, false);
	if (ret && ret != -ESRCH)
		corecap_error("cannot restore the daemon's CPU quota (%s: '%s', under %s): %s",
			      c->sh->quota_rel, c->sh->quota_orig, CGROUP_ROOT, strerror(-ret));
	return ret;
}

void scale_confine_release(struct scale_confine *c)
{
	if (c->sh && restore(c->sh, c->procfd, c->cgroot, c->pid, true) && c->sh->moved)
		corecap_error("cannot move process %d back out of %s%s%s: remove it by hand once "
			      "its threads are back in the root cgroup",
			      (int)c->pid, CGROUP_ROOT, c->sh->v1 ? "/cpu/" : "/", c->sh->moved_to);
	if (c->guard > 0) {
		kill(c->guard, SIGKILL);
		while (waitpid(c->guard, NULL, 0) < 0 && errno == EINTR)
			;
	}
	c->guard = 0;
	if (c->sh)
		munmap(c->sh, sizeof(*c->sh));
	c->sh = NULL;
	if (c->procfd >= 0)
		close(c->procfd);
	if (c->cgroot >= 0)
		close(c->cgroot);
	c->procfd = c->cgroot = -1;
}
