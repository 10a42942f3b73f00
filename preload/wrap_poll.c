/*
 * epoll_wait, epoll_pwait, poll, ppoll: not timed nor counted (an event
 * loop's idle wait says little about a daemon), only passed through; but
 * a messenger thread sleeps in them whenever it is idle, so a thread
 * about to wait with a timeout other than zero first publishes the lock
 * batches it holds back (lock_track_block_due), as a thread about to
 * block on a lock, a condition or a read does. Return values and errno
 * are the real call's.
 */
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lock_track.h"
#include "real.h"
#include "tick_clock.h"
#include "tracer_ranges.h"
#include "tstate.h"
#include "util.h"

/* The kernel's sigset size for the raw syscalls (glibc's sigset_t is larger). */
#define KERNEL_SIGSET_BYTES (_NSIG / 8)

/* Before a wait that may sleep (may_sleep: its timeout is not zero). */
static inline void before_wait(bool may_sleep, const void *ra)
{
	struct tstate *ts = &corecap_tstate;

	if (!may_sleep || ts->guard ||
	    tracer_ranges_contain(&g_tracer_ranges, (uint64_t)(uintptr_t)ra))
		return;
	if (unlikely(lock_track_block_due(ticks())))
		lock_track_block_flush(ts);
}

CORECAP_EXPORT int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout)
{
	if (unlikely(!real_epoll_wait))
		load_functions();
	if (unlikely(!real_epoll_wait))
		return (int)syscall(SYS_epoll_wait, epfd, events, maxevents, timeout);
	before_wait(timeout != 0, __builtin_return_address(0));
	return real_epoll_wait(epfd, events, maxevents, timeout);
}

CORECAP_EXPORT int epoll_pwait(int epfd, struct epoll_event *events, int maxevents, int timeout,
			       const sigset_t *sigmask)
{
	if (unlikely(!real_epoll_pwait))
		load_functions();
	if (unlikely(!real_epoll_pwait))
		return (int)syscall(SYS_epoll_pwait, epfd, events, maxevents, timeout, sigmask,
				    KERNEL_SIGSET_BYTES);
	before_wait(timeout != 0, __builtin_return_address(0));
	return real_epoll_pwait(epfd, events, maxevents, timeout, sigmask);
}

CORECAP_EXPORT int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	if (unlikely(!real_poll))
		load_functions();
	if (unlikely(!real_poll))
		return (int)syscall(SYS_poll, fds, nfds, timeout);
	before_wait(timeout != 0, __builtin_return_address(0));
	return real_poll(fds, nfds, timeout);
}

CORECAP_EXPORT int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *tmo,
			 const sigset_t *sigmask)
{
	if (unlikely(!real_ppoll))
		load_functions();
	if (unlikely(!real_ppoll)) {
		/* The raw syscall writes the time left back: into a copy. */
		struct timespec left = tmo ? *tmo : (struct timespec){0};

		return (int)syscall(SYS_ppoll, fds, nfds, tmo ? &left : NULL, sigmask,
				    KERNEL_SIGSET_BYTES);
	}
	before_wait(!tmo || tmo->tv_sec || tmo->tv_nsec, __builtin_return_address(0));
	return real_ppoll(fds, nfds, tmo, sigmask);
}
