/*
 * pthread_spin_*: try first; a busy spin lock is timed around the real
 * spinning call. Spin locks cannot fail, so every wait ends acquired.
 *
 * Bootstrap (see real.h): glibc's spin lock is one int, 0 when free,
 * taken by an atomic exchange; the fallbacks below speak the same
 * protocol, so a lock taken by one is released by the other correctly.
 */
#include <errno.h>
#include <pthread.h>

#include "lock_track.h"
#include "real.h"
#include "tick_clock.h"
#include "tstate.h"
#include "util.h"

#define SITE ((uint64_t)(uintptr_t)__builtin_return_address(0))

static int boot_trylock(pthread_spinlock_t *s)
{
	return __atomic_exchange_n((int *)s, 1, __ATOMIC_ACQUIRE) ? EBUSY : 0;
}

static int boot_lock(pthread_spinlock_t *s)
{
	while (boot_trylock(s))
		while (__atomic_load_n((int *)s, __ATOMIC_RELAXED))
			;
	return 0;
}

static int boot_unlock(pthread_spinlock_t *s)
{
	__atomic_store_n((int *)s, 0, __ATOMIC_RELEASE);
	return 0;
}

static int call_lock(pthread_spinlock_t *s)
{
	return real_pthread_spin_lock ? real_pthread_spin_lock(s) : boot_lock(s);
}

static int call_try(pthread_spinlock_t *s)
{
	return real_pthread_spin_trylock ? real_pthread_spin_trylock(s) : boot_trylock(s);
}

static __attribute__((noinline)) int spin_slow(struct tstate *ts, pthread_spinlock_t *s,
					       uint64_t site)
{
	struct wait_ctx w;
	int r;

	if (lock_track_bypass(ts, site))
		return call_lock(s);
	lock_track_wait_begin(&w, ts, (const void *)s, CORECAP_KIND_SPIN, site);
	r = call_lock(s);
	lock_track_wait_end(&w, r == 0 ? WAIT_ACQUIRED : WAIT_FAILED);
	return r;
}

static inline void acquired_fast(struct tstate *ts, pthread_spinlock_t *s, uint64_t site)
{
	enum lock_track_due due;

	own_add(&ts->slot->c.acquisitions, 1);
	due = lock_track_due((const void *)s);
	if (unlikely(due))
		lock_track_acquired(ts, (const void *)s, CORECAP_KIND_SPIN, site, due);
}

CORECAP_EXPORT int pthread_spin_lock(pthread_spinlock_t *s)
{
	struct tstate *ts = &corecap_tstate;
	int r;

	if (unlikely(!real_pthread_spin_unlock))
		load_functions();
	if (unlikely(ts->guard))
		return call_lock(s);
	r = call_try(s);
	if (likely(r == 0)) {
		acquired_fast(ts, s, SITE);
		return 0;
	}
	if (r != EBUSY)
		return r;
	return spin_slow(ts, s, SITE);
}

CORECAP_EXPORT int pthread_spin_trylock(pthread_spinlock_t *s)
{
	struct tstate *ts = &corecap_tstate;
	int r;

	if (unlikely(!real_pthread_spin_unlock))
		load_functions();
	r = call_try(s);
	if (unlikely(ts->guard))
		return r;
	if (r == 0) {
		acquired_fast(ts, s, SITE);
	} else if (r == EBUSY) {
		own_add(&ts->slot->c.trylock_busy, 1);
	}
	return r;
}

CORECAP_EXPORT int pthread_spin_unlock(pthread_spinlock_t *s)
{
	struct tstate *ts = &corecap_tstate;

	if (unlikely(!real_pthread_spin_unlock)) {
		load_functions();
		if (!real_pthread_spin_unlock)
			return boot_unlock(s);
	}
	if (unlikely(lock_track_unlock_wanted(ts))) {
		/* A hold ends now; the bookkeeping waits until the lock is free. */
		uint64_t now = lock_track_unlock_time(ts, (const void *)s);
		int r = real_pthread_spin_unlock(s);

		if (r == 0)
			lock_track_unlocked(ts, (const void *)s, now);
		return r;
	}
	return real_pthread_spin_unlock(s);
}
