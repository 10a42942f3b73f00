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
 * So the toggle goes to one thread with tgkill(): a thread asleep in a
 * system call that libprofiler's SIGPROF path never makes (epoll_wait,
 * poll, select, accept, sigtimedwait, wait, pause; never futex or
 * nanosleep, which its spin lock uses), and that neither blocks nor
 * ignores the signal. A sleeping thread does not take the process's
 * SIGPROF (the profiling timer signals the thread that is running); if
 * one were queued to it at the same time, the kernel delivers the lower
 * signal number first, so the SIGPROF handler runs to its end on top of
 * the toggle's frame before the toggle's handler runs.
 */
#ifndef CORECAP_COLLECTOR_TOGGLE_THREAD_H
#define CORECAP_COLLECTOR_TOGGLE_THREAD_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Whether a thread may take signal sig, from its /proc/PID/task/TID/syscall
 * line and the text of its /proc/PID/task/TID/status.
 */
bool corecap_toggle_thread_safe(const char *syscall_line, const char *status, int sig);
/* A thread of pid that may take sig now, or 0 when none may. */
pid_t corecap_toggle_thread_find(pid_t pid, int sig);

#endif
