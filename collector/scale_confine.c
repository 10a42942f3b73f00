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
#include "cpu_list.h"
#include "cpu_quota.h"
#include "proc_stat.h"

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

/* A cgroup file beneath the v2 mount, opened for reading and writing, never through a link. */
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

static int write_cpu_max(int root, const char *rel, const char *text)
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

/* Both the collector's and the guard's: every present thread and the quota back. */
static int restore(struct scale_shared *sh, int procfd, int cgroot)
{
	int ret = 0;

	if (procfd >= 0)
		ret = each_task(procfd, restore_one, sh);
	if (sh->quota_set && cgroot >= 0) {
		int err = write_cpu_max(cgroot, sh->cpu_max_rel, sh->cpu_max_orig);

		if (err == 0)
			sh->quota_set = 0;
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
static void guard(struct scale_shared *sh, pid_t collector, int procfd, int cgroot)
{
	struct timespec tick = {.tv_nsec = GUARD_POLL_MS * 1000000l};

	while (getppid() == collector)
		nanosleep(&tick, NULL);
	restore(sh, procfd, cgroot);
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
		guard(c->sh, collector, c->procfd, c->cgroot);
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
				sizeof(c->cgroup)) == 0 &&
	    !v1)
		c->cgroot = corecap_cgroup_open(false, "");
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

int scale_confine_quota_check(struct scale_confine *c, char *why, size_t size)
{
	char self[CORECAP_CGROUP_FILE_MAX], mine[1024], hier[64], buf[128];
	struct scale_shared *sh = c->sh;
	bool v1 = false;
	ssize_t n;
	int fd;

	if (c->cgroot < 0 || !c->cgroup[0]) {
		snprintf(why, size,
			 "its cgroup is not on a cgroup v2 hierarchy with the cpu "
			 "controller");
		return -ENOTSUP;
	}
	if (strcmp(c->cgroup, "/") == 0) {
		snprintf(why, size, "it is in the root cgroup, which has no cpu.max");
		return -ENOTSUP;
	}
	if (corecap_read_small_file(AT_FDCWD, "/proc/self/cgroup", self, sizeof(self)) > 0 &&
	    corecap_cgroup_line(self, "cpu", &v1, hier, sizeof(hier), mine, sizeof(mine)) == 0 &&
	    !v1 &&
	    (strcmp(mine, c->cgroup) == 0 || (strncmp(mine, c->cgroup, strlen(c->cgroup)) == 0 &&
					      mine[strlen(c->cgroup)] == '/'))) {
		snprintf(why, size,
			 "its cgroup %s also holds corecap and the benchmark, which its cpu.max "
			 "would throttle too",
			 c->cgroup);
		return -EBUSY;
	}
	snprintf(sh->cpu_max_rel, sizeof(sh->cpu_max_rel), "%s/cpu.max", c->cgroup + 1);
	fd = open_beneath(c->cgroot, sh->cpu_max_rel, O_RDWR);
	if (fd < 0) {
		snprintf(why, size, "cannot open %s/%s for writing: %s", CGROUP_ROOT,
			 sh->cpu_max_rel,
			 fd == -ENOENT ? "no cpu controller there (its parent's "
					 "cgroup.subtree_control)"
				       : strerror(-fd));
		return fd;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || (size_t)n >= sizeof(sh->cpu_max_orig)) {
		snprintf(why, size, "cannot read %s/%s", CGROUP_ROOT, sh->cpu_max_rel);
		return -EIO;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	/* Only the first check keeps the original: a later one may read our own quota. */
	if (!sh->cpu_max_orig[0])
		memcpy(sh->cpu_max_orig, buf, (size_t)n + 1);
	return 0;
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

		if (!c->sh->cpu_max_orig[0] || c->cgroot < 0) {
			corecap_error(
				"cannot set a CPU quota: the daemon's cgroup was not checked");
			return -EINVAL;
		}
		snprintf(text, sizeof(text), "%llu %u",
			 (unsigned long long)llround(quota_cpus * QUOTA_PERIOD_US),
			 QUOTA_PERIOD_US);
		c->sh->quota_set = 1; /* before the write: the guard restores either way */
		ret = write_cpu_max(c->cgroot, c->sh->cpu_max_rel, text);
		if (ret) {
			corecap_error("cannot write '%s' to %s/%s: %s", text, CGROUP_ROOT,
				      c->sh->cpu_max_rel, strerror(-ret));
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
	ret = restore(c->sh, c->procfd, c->cgroot);
	if (ret && ret != -ESRCH)
		corecap_error("cannot restore the daemon's CPU quota (%s/%s: '%s'): %s",
			      CGROUP_ROOT, c->sh->cpu_max_rel, c->sh->cpu_max_orig, strerror(-ret));
	return ret;
}

void scale_confine_release(struct scale_confine *c)
{
	if (c->sh)
		restore(c->sh, c->procfd, c->cgroot);
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
