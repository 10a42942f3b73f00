/*
 * pthread_mutex_*: try first. An acquisition that succeeds at once reads
 * no clock and makes no syscall: it bumps the thread's counter and tests
 * one filter bit (is this lock hot?). Only a trylock that says EBUSY
 * takes the timed path, which then calls the real blocking function, so
 * every mutex type keeps glibc's own semantics: error-checking relock
 * (EDEADLK), recursive counts, robust owner death (EOWNERDEAD, returned
 * from the trylock as well), priority inheritance.
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

static inline void acquired_fast(struct tstate *ts, pthread_mutex_t *m, uint64_t site)
{
	enum lock_track_due due;

	own_add(&ts->slot->c.acquisitions, 1);
	due = lock_track_due(m);
	if (unlikely(due))
		lock_track_acquired(ts, m, CORECAP_KIND_MUTEX, site, due);
}

static int (*resolve_trylock(void))(pthread_mutex_t *)
{
	load_functions();
	return real_pthread_mutex_trylock ? real_pthread_mutex_trylock : bootstrap_mutex_trylock;
}

/* Which blocking call the slow path makes. */
enum mutex_call { CALL_LOCK, CALL_TIMED, CALL_CLOCK };

/*
 * The real blocking call. A NULL pointer is only possible while
 * load_functions() runs in this thread; the timed forms then degrade to
 * a plain lock rather than crash.
 */
static int call_real(pthread_mutex_t *m, enum mutex_call call, clockid_t clk,
		     const struct timespec *abstime)
{
	if (call == CALL_TIMED && real_pthread_mutex_timedlock)
		return real_pthread_mutex_timedlock(m, abstime);
	if (call == CALL_CLOCK && real_pthread_mutex_clocklock)
		return real_pthread_mutex_clocklock(m, clk, abstime);
	return real_pthread_mutex_lock ? real_pthread_mutex_lock(m) : bootstrap_mutex_lock(m);
}

static __attribute__((noinline)) int mutex_slow(struct tstate *ts, pthread_mutex_t *m,
						enum mutex_call call, clockid_t clk,
						const struct timespec *abstime, uint64_t site)
{
	struct wait_ctx w;
	int r;

	if (lock_track_bypass(ts, site))
		return call_real(m, call, clk, abstime);
	lock_track_wait_begin(&w, ts, m, CORECAP_KIND_MUTEX, site);
	r = call_real(m, call, clk, abstime);
	lock_track_wait_end(&w, r == 0 || r == EOWNERDEAD ? WAIT_ACQUIRED
				: r == ETIMEDOUT	  ? WAIT_TIMED_OUT
							  : WAIT_FAILED);
	return r;
}

/* What the trylock of mutex_acquire() did not settle: out of line, so
 * that the fast path saves few registers. */
static __attribute__((noinline)) int mutex_not_acquired(int r, pthread_mutex_t *m,
							enum mutex_call call, clockid_t clk,
							const struct timespec *abstime,
							uint64_t site)
{
	struct tstate *ts = &corecap_tstate;

	if (r == EOWNERDEAD) {
		/* Robust mutex of a dead owner: acquired, the caller repairs it. */
		acquired_fast(ts, m, site);
		return r;
	}
	if (r != EBUSY)
		return r;
	return mutex_slow(ts, m, call, clk, abstime, site);
}

/*
 * Inlined in each wrapper, so SITE is the wrapper's return address, read
 * where it is used rather than kept in a register across the trylock.
 */
static inline __attribute__((always_inline)) int mutex_acquire(pthread_mutex_t *m,
							       enum mutex_call call, clockid_t clk,
							       const struct timespec *abstime)
{
	struct tstate *ts = &corecap_tstate;
	int (*trylock)(pthread_mutex_t *) = real_pthread_mutex_trylock;
	int r;

	if (unlikely(!trylock))
		trylock = resolve_trylock();
	if (unlikely(ts->guard))
		return call_real(m, call, clk, abstime); /* the shim's own or a tracer thread */
	r = trylock(m);
	if (likely(r == 0)) {
		acquired_fast(ts, m, SITE);
		return 0;
	}
	return mutex_not_acquired(r, m, call, clk, abstime, SITE);
}

CORECAP_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	return mutex_acquire(m, CALL_LOCK, CLOCK_REALTIME, NULL);
}

CORECAP_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	return mutex_acquire(m, CALL_TIMED, CLOCK_REALTIME, abstime);
}

CORECAP_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk,
					   const struct timespec *abstime)
{
	return mutex_acquire(m, CALL_CLOCK, clk, abstime);
}

CORECAP_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	struct tstate *ts = &corecap_tstate;
	int (*trylock)(pthread_mutex_t *) = real_pthread_mutex_trylock;
	int r;

	if (unlikely(!trylock))
		trylock = resolve_trylock();
	r = trylock(m);
	if (unlikely(ts->guard))
		return r;
	if (r == 0 || r == EOWNERDEAD)
		acquired_fast(ts, m, SITE);
	else if (r == EBUSY)
		own_add(&ts->slot->c.trylock_busy, 1);
	return r;
}

/* An unlock with a tracked hold on the thread's stack or a condition
 * wait to settle: out of line, so that the common unlock is a tail call. */
static __attribute__((noinline)) int mutex_unlock_tracked(struct tstate *ts, pthread_mutex_t *m)
{
	/* A hold ends now; the bookkeeping waits until the lock is free. */
	uint64_t now = lock_track_unlock_time(ts, m);
	int r = real_pthread_mutex_unlock(m);

	if (r == 0)
		lock_track_unlocked(ts, m, now);
	return r;
}

/* An unlock before the real functions are known. */
static __attribute__((noinline)) int mutex_unlock_unresolved(pthread_mutex_t *m)
{
	struct tstate *ts = &corecap_tstate;

	load_functions();
	if (!real_pthread_mutex_unlock)
		return bootstrap_mutex_unlock(m);
	if (lock_track_unlock_wanted(ts))
		return mutex_unlock_tracked(ts, m);
	return real_pthread_mutex_unlock(m);
}

CORECAP_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	struct tstate *ts = &corecap_tstate;

	if (unlikely(!real_pthread_mutex_unlock))
		return mutex_unlock_unresolved(m);
	if (unlikely(lock_track_unlock_wanted(ts)))
		return mutex_unlock_tracked(ts, m);
	return real_pthread_mutex_unlock(m);
}
