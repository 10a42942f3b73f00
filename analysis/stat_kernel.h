/*
 * stat_kernel: `corecap stat`'s view from kernel events, for a daemon the
 * shim does not see (or with --kernel): every interval, one run directory
 * of kernel events from the caller's source (corecap/analysis.h's struct
 * corecap_stat_kernel_source), modelled as `report` models RUN/kernel/
 * (model/kernel_states.h: each thread's running, runnable, futex and
 * other blocked time, which sum to its span; model/futex_locks.h: the
 * futex words waited on) and printed as text or one JSON object.
 */
#ifndef CORECAP_STAT_KERNEL_H
#define CORECAP_STAT_KERNEL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <corecap/analysis.h>

struct stat_kernel_opts {
	pid_t pid;
	const char *comm;
	double duration_s, interval_s;
	bool once, json, redraw;
	bool interactive;   /* redrawn and stdin a terminal: keys (render/stat_view.h) */
	bool no_shim;	    /* chosen because the daemon has no shim segment */
	bool keep_profiler; /* --keep-profiler: its threads and locks stay in the tables */
	int top;
};

/* The source cli/ gave, or NULL. */
const struct corecap_stat_kernel_source *corecap_stat_kernel_source(void);
/*
 * Runs the kernel view until the duration, *stop, --once or the daemon's
 * exit; returns the exit status (0, or 1 with the error printed).
 */
int corecap_stat_kernel_run(const struct stat_kernel_opts *o, const volatile sig_atomic_t *stop);

#endif
