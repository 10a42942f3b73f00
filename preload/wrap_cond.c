/*
 * pthread_cond_*: every wait flavour is timed (a wait blocks anyway, so
 * two clock reads are free), charged to the thread and to the wait's
 * site, and the hold of its mutex is paused across it. The clock variant
 * pthread_cond_clockwait is what libstdc++'s std::condition_variable
 * calls; missing it would count every such wait as hold time of the
 * mutex (mutrace's "inconsistent mutex use").
 *
 * glibc exports two ABIs of the cond functions on x86_64: GLIBC_2.3.2
 * (default) and GLIBC_2.2.5 (old binaries). Each is wrapped under its own
 * version with .symver (see corecap-preload.map) and forwards to the
 * implementation of the same version, found with dlvsym.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "lock_track.h"
#include "real.h"
#include "tstate.h"
#include "util.h"

#define SITE ((uint64_t)(uintptr_t)__builtin_return_address(0))

/* Implementations behind the versioned names: default visibility so the
 * versioned aliases are exported; the map makes these names local. */
#define VERSIONED __attribute__((visibility("default")))

enum cond_call { CALL_WAIT, CALL_TIMED, CALL_CLOCK };

static int call_real(const struct real_cond_abi *abi, pthread_cond_t *c, pthread_mutex_t *m,
		     enum cond_call call, clockid_t clk, const struct timespec *abstime)
{
	switch (call) {
	case CALL_WAIT:
		return abi->wait ? abi->wait(c, m) : ENOSYS;
	case CALL_TIMED:
		return abi->timedwait ? abi->timedwait(c, m, abstime) : ENOSYS;
	default:
		return real_pthread_cond_clockwait ? real_pthread_cond_clockwait(c, m, clk, abstime)
						   : ENOSYS;
	}
}

static int cond_wait_common(const struct real_cond_abi *abi, pthread_cond_t *c, pthread_mutex_t *m,
			    enum cond_call call, clockid_t clk, const struct timespec *abstime,
			    uint64_t site)
{
	struct tstate *ts = &corecap_tstate;
	struct wait_ctx w;
	int r;

	if (unlikely(!abi->wait))
		load_functions();
	if (unlikely(lock_track_bypass(ts, site)))
		return call_real(abi, c, m, call, clk, abstime);
	lock_track_cond_begin(&w, ts, c, m, site);
	r = call_real(abi, c, m, call, clk, abstime);
	lock_track_cond_end(&w, r);
	return r;
}

static int cond_wake_common(const struct real_cond_abi *abi, pthread_cond_t *c, bool broadcast,
			    uint64_t site)
{
	struct tstate *ts = &corecap_tstate;
	cond_wake_fn fn;

	if (unlikely(!abi->signal))
		load_functions();
	fn = broadcast ? abi->broadcast : abi->signal;
	if (unlikely(!fn))
		return ENOSYS;
	if (likely(!lock_track_bypass(ts, site)))
		lock_track_cond_wake(ts, c, site, broadcast);
	return fn(c);
}

VERSIONED int corecap_cond_wait_current(pthread_cond_t *c, pthread_mutex_t *m)
{
	return cond_wait_common(&real_cond_current, c, m, CALL_WAIT, CLOCK_REALTIME, NULL, SITE);
}

VERSIONED int corecap_cond_timedwait_current(pthread_cond_t *c, pthread_mutex_t *m,
					     const struct timespec *abstime)
{
	return cond_wait_common(&real_cond_current, c, m, CALL_TIMED, CLOCK_REALTIME, abstime,
				SITE);
}

VERSIONED int corecap_cond_signal_current(pthread_cond_t *c)
{
	return cond_wake_common(&real_cond_current, c, false, SITE);
}

VERSIONED int corecap_cond_broadcast_current(pthread_cond_t *c)
{
	return cond_wake_common(&real_cond_current, c, true, SITE);
}

__asm__(".symver corecap_cond_wait_current, pthread_cond_wait@@GLIBC_2.3.2");
__asm__(".symver corecap_cond_timedwait_current, pthread_cond_timedwait@@GLIBC_2.3.2");
__asm__(".symver corecap_cond_signal_current, pthread_cond_signal@@GLIBC_2.3.2");
__asm__(".symver corecap_cond_broadcast_current, pthread_cond_broadcast@@GLIBC_2.3.2");

VERSIONED int corecap_cond_wait_old(pthread_cond_t *c, pthread_mutex_t *m)
{
	return cond_wait_common(&real_cond_old, c, m, CALL_WAIT, CLOCK_REALTIME, NULL, SITE);
}

VERSIONED int corecap_cond_timedwait_old(pthread_cond_t *c, pthread_mutex_t *m,
					 const struct timespec *abstime)
{
	return cond_wait_common(&real_cond_old, c, m, CALL_TIMED, CLOCK_REALTIME, abstime, SITE);
}

VERSIONED int corecap_cond_signal_old(pthread_cond_t *c)
{
	return cond_wake_common(&real_cond_old, c, false, SITE);
}

VERSIONED int corecap_cond_broadcast_old(pthread_cond_t *c)
{
	return cond_wake_common(&real_cond_old, c, true, SITE);
}

__asm__(".symver corecap_cond_wait_old, pthread_cond_wait@GLIBC_2.2.5");
__asm__(".symver corecap_cond_timedwait_old, pthread_cond_timedwait@GLIBC_2.2.5");
__asm__(".symver corecap_cond_signal_old, pthread_cond_signal@GLIBC_2.2.5");
__asm__(".symver corecap_cond_broadcast_old, pthread_cond_broadcast@GLIBC_2.2.5");

/* Only one ABI (GLIBC_2.30, default GLIBC_2.34: the same code). */
CORECAP_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
					  const struct timespec *abstime)
{
	return cond_wait_common(&real_cond_current, c, m, CALL_CLOCK, clk, abstime, SITE);
}
