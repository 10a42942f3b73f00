/*
 * export_build: a run into `export --chrome`'s writer (render/chrome_trace.h):
 * the trace pass (the CTF reader's events, with the ops of a daemon that
 * marks none detected, op_detect.h), the threads threads.tsv names and
 * each pool's CPU as counters, and the kernel's thread states
 * (kernel_chrome.h). cmd_export.c opens the run, sets the writer's span
 * and finishes the document; this is the wiring between.
 *
 * The profiler's own threads (LTTng-UST's, the shim's, by the names
 * threads.tsv gives them) and their pools are left out unless
 * keep_profiler (--keep-profiler).
 *
 * What a run lacks (no trace/, no threads.tsv, a trace cut short) is
 * warned on stderr and left out; what cannot be read is an error, printed
 * here, and its negative errno returned.
 */
#ifndef CORECAP_EXPORT_BUILD_H
#define CORECAP_EXPORT_BUILD_H

#include <signal.h>
#include <stdint.h>

#include "pass/op_detect.h"
#include "read/run.h"
#include "render/chrome_trace.h"

struct export_build {
	struct run *run;
	const char *run_name; /* the run as the user named it, for messages */
	struct chrome_trace *trace;
	uint64_t start_ns, end_ns; /* the exported span; 0, 0: the whole trace */
	uint64_t bin_ns;	   /* the pool CPU counters' step */
	/* Set (by a signal handler): the trace pass stops with -EINTR. */
	const volatile sig_atomic_t *stop;
	struct op_detect det;
	/* The profiler's threads (profiler_own.h) are left out unless keep_profiler. */
	bool keep_profiler;
	struct profiler_own prof;
	bool has_prof;
};

void corecap_export_build_init(struct export_build *b, struct run *run, const char *run_name,
			       struct chrome_trace *t, uint64_t start_ns, uint64_t end_ns,
			       uint64_t bin_ns, const volatile sig_atomic_t *stop);
/* Writes the run's events into the trace; 0, -EINTR when stopped, or a negative errno. */
int corecap_export_build_run(struct export_build *b);
void corecap_export_build_release(struct export_build *b);

#endif
