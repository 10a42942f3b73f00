/*
 * pthread_rwlock_*: the same try-first scheme as mutexes, read and write
 * side apart (kinds RWLOCK_RD and RWLOCK_WR). A tryrdlock can fail with
 * EBUSY when a writer holds or (writer-preferring locks) waits; either
 * way the real blocking call decides, so glibc's policy is kept.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "lock_track.h"
#include "real.h"
#include "tick_clock.h"
#include "tstate.h"
#include "util.h"

#define SITE ((uint64_t)(uintptr_t)__builtin_return_address(0))

enum rw_call { CALL_LOCK, CALL_TIMED, CALL_CLOCK };

static void resolve(void)
{
	load_functions();
}

/* The real blocking call; see wrap_mutex.c for the NULL case. */
static int call_real(pthread_rwlock_t *l, bool write, enum rw_call call, clockid_t clk,
		     const struct timespec *abstime)
{
	if (write) {
		if (call == CALL_TIMED && real_pthread_rwlock_timedwrlock)
			return real_pthread_rwlock_timedwrlock(l, abstime);
		if (call == CALL_CLOCK && real_pthread_rwlock_clockwrlock)
			return real_pthread_rwlock_clockwrlock(l, clk, abstime);
		return real_pthread_rwlock_wrlock ? real_pthread_rwlock_wrlock(l)
						  : bootstrap_rwlock_wrlock(l);
	}
	if (call == CALL_TIMED && real_pthread_rwlock_timedrdlock)
		return real_pthread_rwlock_timedrdlock(l, abstime);
	if (call == CALL_CLOCK && real_pthread_rwlock_clockrdlock)
		return real_pthread_rwlock_clockrdlock(l, clk, abstime);
	return real_pthread_rwlock_rdlock ? real_pthread_rwlock_rdlock(l)
					  : bootstrap_rwlock_rdlock(l);
}

static int call_try(pthread_rwlock_t *l, bool write)
{
	if (write)
		return real_pthread_rwlock_trywrlock ? real_pthread_rwlock_trywrlock(l)
						     : bootstrap_rwlock_trywrlock(l);
	return real_pthread_rwlock_tryrdlock ? real_pthread_rwlock_tryrdlock(l)
					     : bootstrap_rwlock_tryrdlock(l);
}

static inline void acquired_fast(struct tstate *ts, pthread_rwlock_t *l, uint32_t kind,
				 uint64_t site)
{
	enum lock_track_due due;

	own_add(&ts->slot->c.acquisitions, 1);
	due = lock_track_due(l);
	if (unlikely(due))
		lock_track_acquired(ts, l, kind, site, due);
}

static __attribute__((noinline)) int rw_slow(struct tstate *ts, pthread_rwlock_t *l, bool write,
					     enum rw_call call, clockid_t clk,
					     const struct timespec *abstime, uint64_t site)
{
	struct wait_ctx w;
	int r;

	if (lock_track_bypass(ts, site))
		return call_real(l, write, call, clk, abstime);
	lock_track_wait_begin(&w, ts, l, write ? CORECAP_KIND_RWLOCK_WR : CORECAP_KIND_RWLOCK_RD,
			      site);
	r = call_real(l, write, call, clk, abstime);
	lock_track_wait_end(&w, r == 0		 ? WAIT_ACQUIRED
				: r == ETIMEDOUT ? WAIT_TIMED_OUT
						 : WAIT_FAILED);
	return r;
}

static inline int rw_acquire(pthread_rwlock_t *l, bool write, enum rw_call call, clockid_t clk,
			     const struct timespec *abstime, uint64_t site)
{
	struct tstate *ts = &corecap_tstate;
	int r;

	if (unlikely(!real_pthread_rwlock_unlock))
		resolve();
	if (unlikely(ts->guard))
		return call_real(l, write, call, clk, abstime);
	r = call_try(l, write);
	if (likely(r == 0)) {
		acquired_fast(ts, l, write ? CORECAP_KIND_RWLOCK_WR : CORECAP_KIND_RWLOCK_RD, site);
		return 0;
	}
	if (r != EBUSY)
		return r; /* EAGAIN (reader count), EDEADLK, EINVAL: as glibc's */
	return rw_slow(ts, l, write, call, clk, abstime, site);
}

CORECAP_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	return rw_acquire(l, false, CALL_LOCK, CLOCK_REALTIME, NULL, SITE);
}

CORECAP_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	return rw_acquire(l, true, CALL_LOCK, CLOCK_REALTIME, NULL, SITE);
}

CORECAP_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abstime)
{
	return rw_acquire(l, false, CALL_TIMED, CLOCK_REALTIME, abstime, SITE);
}

CORECAP_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abstime)
{
	return rw_acquire(l, true, CALL_TIMED, CLOCK_REALTIME, abstime, SITE);
}

CORECAP_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clk,
					      const struct timespec *abstime)
{
	return rw_acquire(l, false, CALL_CLOCK, clk, abstime, SITE);
}

CORECAP_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clk,
					      const struct timespec *abstime)
{
	return rw_acquire(l, true, CALL_CLOCK, clk, abstime, SITE);
}

static inline int rw_try(pthread_rwlock_t *l, bool write, uint64_t site)
{
	struct tstate *ts = &corecap_tstate;
	int r;

	if (unlikely(!real_pthread_rwlock_unlock))
		resolve();
	r = call_try(l, write);
	if (unlikely(ts->guard))
		return r;
	if (r == 0)
		acquired_fast(ts, l, write ? CORECAP_KIND_RWLOCK_WR : CORECAP_KIND_RWLOCK_RD, site);
	else if (r == EBUSY)
		own_add(&ts->slot->c.trylock_busy, 1);
	return r;
}

CORECAP_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	return rw_try(l, false, SITE);
}

CORECAP_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
	return rw_try(l, true, SITE);
}

CORECAP_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	struct tstate *ts = &corecap_tstate;

	if (unlikely(!real_pthread_rwlock_unlock)) {
		resolve();
		if (!real_pthread_rwlock_unlock)
			return bootstrap_rwlock_unlock(l);
	}
	if (unlikely(lock_track_unlock_wanted(ts))) {
		/* A hold ends now; the bookkeeping waits until the lock is free. */
		uint64_t now = lock_track_unlock_time(ts, l);
		int r = real_pthread_rwlock_unlock(l);

		if (r == 0)
			lock_track_unlocked(ts, l, now);
		return r;
	}
	return real_pthread_rwlock_unlock(l);
}
