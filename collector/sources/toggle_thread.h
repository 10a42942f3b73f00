/*
 * The thread of a gperftools-profiled daemon that takes its
 * CPUPROFILESIGNAL toggle.
 *
 * libprofiler starts and stops the profiler inside the toggle's signal
 * handler, and both take ProfileHandler's signal lock. Its SIGPROF handler
 * holds that lock while it takes a sample, so a toggle that lands on a
 * thread inside the SIGPROF handler makes that thread wait for itself
 * forever (seen on refosd under load: the finisher stuck in
 * SpinLock::SlowLock under CpuProfiler::Stop under
 * ProfileHandler::SignalHandler, and the profiler on for good). A
 * process-directed kill() lets the kernel choose the thread, most likely a
 * running one, which is where SIGPROF lands too.
 *
 * So the toggle goes to one thread with tgkill(): a thread that neither
 * blocks nor ignores the signal and is asleep in a system call outside
 * that handler:
 * - one the handler never makes (epoll_wait, poll, select, accept,
 *   sigtimedwait, wait, pause), or
 * - futex or nanosleep (which the handler's spin lock uses too) when the
 *   top of the thread's stack (CORECAP_TOGGLE_STACK_BYTES above its stack
 *   pointer, from /proc/PID/mem) holds no address in libprofiler's code:
 *   a thread inside the handler has the handler's own return addresses
 *   there. A stale word can only make a thread look unsafe, never safe.
 * A sleeping thread does not take the process's SIGPROF (the profiling
 * timer signals the thread that is running); if one were queued to it at
 * the same time, the kernel delivers the lower signal number first, so the
 * SIGPROF handler runs to its end on top of the toggle's frame before the
 * toggle's handler runs.
 */
#ifndef CORECAP_COLLECTOR_TOGGLE_THREAD_H
#define CORECAP_COLLECTOR_TOGGLE_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CORECAP_TOGGLE_STACK_BYTES 2048u

enum corecap_toggle_verdict {
	CORECAP_TOGGLE_NO,
	CORECAP_TOGGLE_YES,
	CORECAP_TOGGLE_IF_STACK_CLEAN, /* asleep in futex or nanosleep: look at its stack */
};

/* An address range of code, [lo, hi). */
struct corecap_toggle_range {
	uint64_t lo, hi;
};

/*
 * Whether a thread may take signal sig, from its /proc/PID/task/TID/syscall
 * line and the text of its /proc/PID/task/TID/status; *sp is its user
 * stack pointer when the verdict is CORECAP_TOGGLE_IF_STACK_CLEAN.
 */
enum corecap_toggle_verdict corecap_toggle_thread_judge(const char *syscall_line,
							const char *status, int sig, uint64_t *sp);
/* Whether none of the n words falls in one of the nr ranges. */
bool corecap_toggle_stack_clean(const uint64_t *words, size_t n,
				const struct corecap_toggle_range *r, size_t nr);
/* The most executable mappings of libprofiler looked at. */
#define CORECAP_TOGGLE_MAX_RANGES 8
/*
 * The executable mappings of libprofiler (or libtcmalloc_and_profiler) in
 * pid's /proc/PID/maps, at most max of them into r; how many (0: none, or
 * the maps are unreadable).
 */
size_t corecap_toggle_profiler_code(pid_t pid, struct corecap_toggle_range *r, size_t max);
/* A thread of pid that may take sig now, or 0 when none may. */
pid_t corecap_toggle_thread_find(pid_t pid, int sig);

#endif
