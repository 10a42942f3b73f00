#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lttng/lttng.h>

#include <corecap/diag.h>
#include "util/proc_stat.h"
#include "stop_watchdog.h"
#include "sources/asok_client.h"
#include "util/mono_clock.h"

#define POLL_MS 10u

/* The state letter of /proc/PID/stat (or of a task under DIRFD), or 0. */
static char state_of(int dirfd, const char *path)
{
	char buf[1024];
	const char *p;

	if (corecap_read_small_file(dirfd, path, buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Whether a thread of the daemon is in a tracing stop. */
static bool thread_held(DIR *tasks)
{
	struct dirent *de;
	bool held = false;

	rewinddir(tasks);
	while (!held && (de = readdir(tasks))) {
		char path[300];

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/stat", de->d_name);
		held = state_of(dirfd(tasks), path) == 't';
	}
	return held;
}

static void watch(struct corecap_watchdog_page *pg, pid_t collector, pid_t daemon)
{
	struct timespec tick = {.tv_nsec = POLL_MS * 1000000l};
	uint64_t hold_ns = (uint64_t)CORECAP_WATCHDOG_HOLD_MS * 1000000u;
	uint64_t hang_ns = (uint64_t)CORECAP_WATCHDOG_HANG_MS * 1000000u;
	uint64_t held_since = 0;
	char path[64], cpath[64];
	DIR *tasks;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)daemon);
	snprintf(cpath, sizeof(cpath), "/proc/%d/stat", (int)collector);
	tasks = opendir(path);
	while (getppid() == collector) {
		uint64_t t, beat;
		char cstate;

		nanosleep(&tick, NULL);
		t = corecap_now_ns();
		beat = pg->beat_ns;
		if (!tasks || !pg->attached || t < beat + hold_ns || !thread_held(tasks)) {
			held_since = 0;
			continue;
		}
		if (!held_since)
			held_since = t;
		if (t - held_since > pg->held_ns_max)
			pg->held_ns_max = t - held_since;
		cstate = state_of(AT_FDCWD, cpath);
		if (cstate == 'T' || cstate == 't') {
			/* Stopped (SIGSTOP, a debugger): only it can resume the thread. */
			kill(collector, SIGCONT);
			pg->continued++;
		} else if (t >= beat + hang_ns) {
			/* Hung: the kernel detaches a dead tracer's threads. */
			pg->killed = 1;
			kill(collector, SIGKILL);
		}
	}
	/*
	 * The collector is gone without destroying its session: destroy it
	 * now, which flushes the buffers and closes the streams, so the run's
	 * trace is whole up to the collector's end and stops growing.
	 */
	if (pg->session[0]) {
		char name[sizeof(pg->session)];

		memcpy(name, (const char *)pg->session, sizeof(name));
		name[sizeof(name) - 1] = '\0';
		lttng_stop_tracing(name);
		lttng_destroy_session(name);
	}
	/* A Ceph daemon's OpTracker settings, changed by the collector. */
	if (pg->ceph_asok[0]) {
		char asok[sizeof(pg->ceph_asok)];

		memcpy(asok, (const char *)pg->ceph_asok, sizeof(asok));
		asok[sizeof(asok) - 1] = '\0';
		if (pg->ceph_size[0])
			corecap_asok_config_set(asok, "osd_op_history_size",
						(const char *)pg->ceph_size, true);
		if (pg->ceph_duration[0])
			corecap_asok_config_set(asok, "osd_op_history_duration",
						(const char *)pg->ceph_duration, true);
	}
	/* The collector's own temporary file, cut off mid-write. */
	if (pg->run_dir[0] && pg->tmp[0]) {
		char tmp[sizeof(pg->run_dir) + sizeof(pg->tmp) + 1];

		snprintf(tmp, sizeof(tmp), "%s/%s", (const char *)pg->run_dir,
			 (const char *)pg->tmp);
		unlink(tmp);
	}
	_exit(0);
}

int corecap_stop_watchdog_start(struct corecap_stop_watchdog *wd, pid_t daemon)
{
	pid_t collector = getpid();
	int ret = 0;
	pid_t pid;

	wd->pid = 0;
	wd->page = mmap(NULL, sizeof(*wd->page), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			-1, 0);
	if (wd->page == MAP_FAILED) {
		ret = -errno;
		wd->page = NULL;
		corecap_error("cannot start the ptrace watchdog: %s", strerror(-ret));
		goto out;
	}
	memset((void *)wd->page, 0, sizeof(*wd->page));
	wd->page->beat_ns = corecap_now_ns();
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		corecap_error("cannot start the ptrace watchdog: %s", strerror(-ret));
		goto out_unmap;
	}
	if (pid == 0) {
		struct sigaction dfl = {.sa_handler = SIG_DFL}, ign = {.sa_handler = SIG_IGN};
		sigset_t none;

		if (getppid() != collector)
			_exit(0);
		/* Out of the terminal's job control, and holding none of our files or locks. */
		setpgid(0, 0);
		close_range(3, ~0u, 0);
		for (int sig = 1; sig < NSIG; sig++)
			sigaction(sig, &dfl, NULL);
		sigaction(SIGINT, &ign, NULL);
		sigaction(SIGHUP, &ign, NULL);
		sigaction(SIGPIPE, &ign, NULL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		watch(wd->page, collector, daemon);
	}
	wd->pid = pid;
	goto out;

out_unmap:
	munmap((void *)wd->page, sizeof(*wd->page));
	wd->page = NULL;
out:
	return ret;
}

void corecap_stop_watchdog_beat(struct corecap_stop_watchdog *wd)
{
	if (wd->page)
		wd->page->beat_ns = corecap_now_ns();
}

void corecap_stop_watchdog_session(struct corecap_stop_watchdog *wd, const char *name)
{
	if (wd->page)
		snprintf((char *)wd->page->session, sizeof(wd->page->session), "%s",
			 name ? name : "");
}

void corecap_stop_watchdog_attached(struct corecap_stop_watchdog *wd, bool attached)
{
	if (!wd->page)
		return;
	wd->page->beat_ns = corecap_now_ns();
	wd->page->attached = attached;
}

void corecap_stop_watchdog_run_dir(struct corecap_stop_watchdog *wd, const char *abs_path)
{
	if (wd->page && strlen(abs_path) < sizeof(wd->page->run_dir))
		memcpy((char *)wd->page->run_dir, abs_path, strlen(abs_path) + 1);
}

void corecap_stop_watchdog_tmp(struct corecap_stop_watchdog *wd, const char *name)
{
	if (!wd->page)
		return;
	if (!name || strlen(name) >= sizeof(wd->page->tmp)) {
		__atomic_store_n(&wd->page->tmp[0], '\0', __ATOMIC_SEQ_CST);
		return;
	}
	memcpy((char *)wd->page->tmp, name, strlen(name) + 1);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void corecap_stop_watchdog_ceph(struct corecap_stop_watchdog *wd, const char *asok,
				const char *size, const char *duration)
{
	if (!wd->page)
		return;
	__atomic_store_n(&wd->page->ceph_asok[0], '\0', __ATOMIC_SEQ_CST);
	if (!asok || strlen(asok) >= sizeof(wd->page->ceph_asok))
		return;
	snprintf((char *)wd->page->ceph_size, sizeof(wd->page->ceph_size), "%s", size ? size : "");
	snprintf((char *)wd->page->ceph_duration, sizeof(wd->page->ceph_duration), "%s",
		 duration ? duration : "");
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	memcpy((char *)wd->page->ceph_asok, asok, strlen(asok) + 1);
}

bool corecap_stop_watchdog_owns(const struct corecap_stop_watchdog *wd, pid_t pid)
{
	return wd->pid > 0 && pid == wd->pid;
}

void corecap_stop_watchdog_release(struct corecap_stop_watchdog *wd)
{
	if (wd->pid > 0) {
		kill(wd->pid, SIGKILL);
		while (waitpid(wd->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	wd->pid = 0;
	if (wd->page)
		munmap((void *)wd->page, sizeof(*wd->page));
	wd->page = NULL;
}
