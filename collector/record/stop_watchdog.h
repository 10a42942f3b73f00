/*
 * struct corecap_stop_watchdog: a process beside the collector that keeps
 * the daemon from staying in a ptrace stop when the collector cannot end
 * it (the collector is SIGSTOPped, or hangs).
 *
 * While the wall-clock sampler has the daemon's threads seized, every
 * signal the daemon gets stops the receiving thread until the collector
 * resumes it, and a sample holds a thread until its unwind is done: a
 * stopped collector would freeze the daemon. The watchdog is a forked
 * child in its own process group (a terminal's Ctrl-Z does not reach it)
 * that holds none of the collector's files. Every 10 ms, while the
 * collector says it is attached and its heartbeat is older than
 * CORECAP_WATCHDOG_HOLD_MS, it looks for a daemon thread in a tracing stop
 * ('t'); finding one, it sends SIGCONT to a stopped collector, which then
 * resumes the thread; a collector that is running but has not beaten for
 * CORECAP_WATCHDOG_HANG_MS gets SIGKILL, after which the kernel detaches
 * every thread. So no thread of the daemon is held longer than about
 * HOLD_MS by a stopped collector, or HANG_MS by a hung one. What it did is
 * counted in the shared page, for the manifest.
 *
 * When the collector dies without stopping it (SIGKILL), the watchdog
 * destroys the collector's LTTng session, if it has one, removes the
 * temporary file the collector was writing in the run directory at that
 * moment, if any (manifest.json.tmp: named in the page only between its
 * creation and its rename, so nothing else is ever removed), and exits:
 * the run's trace is then flushed and whole, not left growing by a live
 * session; and it puts back a Ceph daemon's OpTracker settings that the
 * collector changed (its history's size, 0 between the drain's slices). A collector that ends normally stops the watchdog first. One
 * killed together with it leaves the session recording: the next
 * `corecap record` ends it (corecap_lttng_reap_orphans, lttng_session.h).
 * The run directory named here is the one being written: with --force
 * over an old run, the new one aside (run_dir.h), never the old run.
 */
#ifndef CORECAP_COLLECTOR_STOP_WATCHDOG_H
#define CORECAP_COLLECTOR_STOP_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define CORECAP_WATCHDOG_HOLD_MS 200u
#define CORECAP_WATCHDOG_HANG_MS 10000u

struct corecap_watchdog_page {
	volatile uint64_t beat_ns;     /* the collector's last heartbeat (CLOCK_MONOTONIC) */
	volatile int attached;	       /* the collector has threads seized */
	volatile uint64_t continued;   /* SIGCONTs sent to a stopped collector */
	volatile uint64_t held_ns_max; /* longest hold of a thread seen with no heartbeat */
	volatile int killed;	       /* SIGKILL sent to a hung collector */
	volatile char session[256];    /* the collector's LTTng session, or "" */
	volatile char run_dir[4096];   /* the run directory (absolute), or "" */
	volatile char tmp[64];	       /* a temporary file of ours being written in it, or "" */
	/* A Ceph daemon's settings to put back (ceph_asok.h): its admin
	 * socket ("" none) and the OpTracker history's size and duration. */
	volatile char ceph_asok[108];
	volatile char ceph_size[32], ceph_duration[32];
};

struct corecap_stop_watchdog {
	pid_t pid; /* the watchdog; 0: not running */
	struct corecap_watchdog_page *page;
};

/* Starts the watchdog over the daemon `daemon`; -errno (printed) on failure. */
/* The Ceph daemon's settings to put back if the collector dies: its socket, NULL: none. */
void corecap_stop_watchdog_ceph(struct corecap_stop_watchdog *wd, const char *asok,
				const char *size, const char *duration);
int corecap_stop_watchdog_start(struct corecap_stop_watchdog *wd, pid_t daemon);
void corecap_stop_watchdog_beat(struct corecap_stop_watchdog *wd);
/* The LTTng session to destroy if the collector dies (NULL: none). */
void corecap_stop_watchdog_session(struct corecap_stop_watchdog *wd, const char *name);
void corecap_stop_watchdog_attached(struct corecap_stop_watchdog *wd, bool attached);
/* The run directory, where the collector's temporary files are. */
void corecap_stop_watchdog_run_dir(struct corecap_stop_watchdog *wd, const char *abs_path);
/* A temporary file (a name in the run directory) the collector now writes; NULL: none. */
void corecap_stop_watchdog_tmp(struct corecap_stop_watchdog *wd, const char *name);
bool corecap_stop_watchdog_owns(const struct corecap_stop_watchdog *wd, pid_t pid);
/* Stops the watchdog (it cleans up nothing then) and unmaps its page. */
void corecap_stop_watchdog_release(struct corecap_stop_watchdog *wd);

#endif
