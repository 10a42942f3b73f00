/*
 * The kernel events of a process one interval at a time
 * (corecap/kernel_capture.h): each interval a kernel source of its own
 * (collector/kernel/kernel_events.h) opened, run for the interval and closed,
 * into TMP/run.N, a run directory with only kernel/. A new source per
 * interval keeps every interval's files whole and independent (one header,
 * one window) and reuses record's code as it is; opening the perf events
 * costs a few milliseconds, between intervals.
 */
#include <corecap/kernel_capture.h>

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <corecap/diag.h>
#include <corecap/kernel_format.h>
#include <corecap/run_format.h>

#include "kernel_events.h"
#include "util/mono_clock.h"
#include "util/run_dir.h"

#define CAPTURE_POLL_NS 20000000ull /* how often an interval looks at *stop */

struct corecap_kernel_capture {
	pid_t pid;
	char tmp[4096];	 /* the temporary directory, made by mkdtemp */
	char path[4160]; /* the current interval's run directory */
	struct corecap_run_dir rd;
	bool have_rd;
	unsigned seq;
};

/* Removes the current interval's run directory, if any. */
static void drop_interval(struct corecap_kernel_capture *c)
{
	if (c->have_rd)
		corecap_run_dir_remove(&c->rd);
	c->have_rd = false;
}

int corecap_kernel_capture_open(struct corecap_kernel_capture **out, pid_t pid, char *why,
				size_t why_size)
{
	struct corecap_kernel_capture *c;
	const char *tmpdir = getenv("TMPDIR");
	int ret;

	*out = NULL;
	if (!corecap_kernel_events_permitted(why, why_size))
		return -EPERM;
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(why, why_size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	c->pid = pid;
	if (!tmpdir || tmpdir[0] != '/' || strlen(tmpdir) > 3000)
		tmpdir = "/tmp";
	snprintf(c->tmp, sizeof(c->tmp), "%s/corecap-stat.%d.XXXXXX", tmpdir, (int)pid);
	if (!mkdtemp(c->tmp)) {
		ret = -errno;
		snprintf(why, why_size, "cannot create a temporary directory in '%s': %s", tmpdir,
			 strerror(-ret));
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}

/* Sleeps until deadline_ns or until *stop; false when stopped. */
static bool wait_until(uint64_t deadline_ns, const volatile sig_atomic_t *stop)
{
	for (;;) {
		uint64_t now = corecap_now_ns(), step;
		struct timespec ts;

		if (stop && *stop)
			return false;
		if (now >= deadline_ns)
			return true;
		step = deadline_ns - now < CAPTURE_POLL_NS ? deadline_ns - now : CAPTURE_POLL_NS;
		ts.tv_sec = (time_t)(step / 1000000000u);
		ts.tv_nsec = (long)(step % 1000000000u);
		nanosleep(&ts, NULL); /* EINTR: look at *stop again */
	}
}

int corecap_kernel_capture_interval(struct corecap_kernel_capture *c, uint64_t duration_ns,
				    const volatile sig_atomic_t *stop, const char **run_dir,
				    uint64_t *ws_ns, uint64_t *we_ns, char *why, size_t why_size)
{
	struct corecap_kernel_events k;
	uint64_t ws, we;
	bool full;
	int ret;

	drop_interval(c);
	snprintf(c->path, sizeof(c->path), "%s/run.%u", c->tmp, c->seq++);
	ret = corecap_run_dir_create(&c->rd, c->path, false);
	if (ret < 0) {
		snprintf(why, why_size, "cannot create '%s': %s", c->path, strerror(-ret));
		return ret;
	}
	c->have_rd = true;
	ret = corecap_kernel_events_init(&k, c->pid, &c->rd, CORECAP_KERNEL_VIA_AUTO, why,
					 why_size);
	if (ret < 0)
		goto out_drop;
	ret = corecap_kernel_events_start(&k);
	if (ret < 0) {
		snprintf(why, why_size, "cannot start the kernel events' reader: %s",
			 strerror(-ret));
		corecap_kernel_events_release(&k);
		goto out_drop;
	}
	ws = corecap_now_ns();
	corecap_kernel_events_window(&k, CORECAP_KWINDOW_START, ws);
	full = wait_until(ws + duration_ns, stop);
	we = corecap_now_ns();
	corecap_kernel_events_stop(&k);
	corecap_kernel_events_window(&k, CORECAP_KWINDOW_END, we);
	/* The stacks are unwound from /proc/PID; when the process has exited
	 * they are left out (removed with the directory), its events stay. */
	if (full && !(kill(c->pid, 0) < 0 && errno == ESRCH)) {
		ret = corecap_kernel_events_unwind(&k, true);
		if (ret < 0)
			snprintf(why, why_size, "cannot write '%s/%s': %s", c->path,
				 CORECAP_KERNEL_STACKS_FILE, strerror(-ret));
	}
	if (corecap_kernel_events_release(&k) < 0 && ret == 0) {
		ret = -EIO;
		snprintf(why, why_size, "'%s/%s' could not be written whole", c->path,
			 CORECAP_KERNEL_EVENTS_FILE);
	}
	if (!full)
		ret = -EINTR;
	if (ret < 0)
		goto out_drop;
	*run_dir = c->path;
	*ws_ns = ws;
	*we_ns = we;
	return 0;
out_drop:
	drop_interval(c);
	return ret;
}

void corecap_kernel_capture_close(struct corecap_kernel_capture *c)
{
	if (!c)
		return;
	drop_interval(c);
	if (rmdir(c->tmp) < 0)
		corecap_error("cannot remove '%s': %s", c->tmp, strerror(errno));
	free(c);
}
