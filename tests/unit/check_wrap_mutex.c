/*
 * wrap_mutex under the shim: every pthread_mutex_* result is glibc's own
 * (EBUSY, ETIMEDOUT, EDEADLK, EPERM, EOWNERDEAD, recursion counts), errno
 * is left alone, and the shim counted what happened. Runs with the shim
 * in LD_PRELOAD (tests/unit/preload.cmake); fails if it is not loaded.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "stats_probe.h"

#include "check_run.h"

static struct timespec in_ms(clockid_t clk, long ms)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	ts.tv_nsec += (ms % 1000) * 1000000L;
	ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return ts;
}

static double elapsed_ms(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* Another thread that takes a mutex and keeps it until released. */
struct holder {
	pthread_mutex_t *m;
	sem_t locked, release;
	int lock_result, unlock_result;
	bool exit_holding; /* for robust mutexes: die with it */
	pthread_t thread;
};

static void *holder_main(void *p)
{
	struct holder *h = p;

	h->lock_result = pthread_mutex_lock(h->m);
	sem_post(&h->locked);
	if (h->exit_holding)
		return NULL;
	sem_wait(&h->release);
	h->unlock_result = pthread_mutex_unlock(h->m);
	return NULL;
}

static void holder_start(struct holder *h, pthread_mutex_t *m, bool exit_holding)
{
	h->m = m;
	h->exit_holding = exit_holding;
	sem_init(&h->locked, 0, 0);
	sem_init(&h->release, 0, 0);
	ck_assert_int_eq(pthread_create(&h->thread, NULL, holder_main, h), 0);
	sem_wait(&h->locked);
	ck_assert_int_eq(h->lock_result, 0);
}

static void holder_finish(struct holder *h)
{
	sem_post(&h->release);
	pthread_join(h->thread, NULL);
}

START_TEST(shim_is_loaded_and_counting)
{
	ck_assert_msg(probe_shim_loaded(), "libcorecap-preload.so is not in LD_PRELOAD");
	ck_assert_msg(probe_stats() != NULL, "no stats file for this process");
	ck_assert_int_eq(((const struct corecap_stats_header *)probe_stats())->pid, getpid());
}
END_TEST

START_TEST(trylock_on_held_mutex_is_ebusy)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct holder h;
	uint64_t busy_before;

	holder_start(&h, &m, false);
	busy_before = probe_self()->c.trylock_busy;
	ck_assert_int_eq(pthread_mutex_trylock(&m), EBUSY);
	ck_assert_uint_eq(probe_self()->c.trylock_busy, busy_before + 1);
	holder_finish(&h);
	ck_assert_int_eq(h.unlock_result, 0);
	ck_assert_int_eq(pthread_mutex_trylock(&m), 0);
	ck_assert_int_eq(pthread_mutex_trylock(&m), EBUSY); /* a normal mutex, held by us */
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
}
END_TEST

START_TEST(timedlock_times_out_with_etimedout)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct timespec t0, t1, until;
	struct holder h;

	holder_start(&h, &m, false);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	until = in_ms(CLOCK_REALTIME, 50);
	ck_assert_int_eq(pthread_mutex_timedlock(&m, &until), ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_double_ge(elapsed_ms(&t0, &t1), 45.0);
	holder_finish(&h);
	/* Not held after the timeout: the holder's unlock worked, we can lock. */
	ck_assert_int_eq(h.unlock_result, 0);
	until = in_ms(CLOCK_REALTIME, 50);
	ck_assert_int_eq(pthread_mutex_timedlock(&m, &until), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
}
END_TEST

START_TEST(clocklock_monotonic_times_out)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct timespec until;
	struct holder h;

	holder_start(&h, &m, false);
	until = in_ms(CLOCK_MONOTONIC, 30);
	ck_assert_int_eq(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &until), ETIMEDOUT);
	holder_finish(&h);
	until = in_ms(CLOCK_MONOTONIC, 30);
	ck_assert_int_eq(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &until), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
}
END_TEST

START_TEST(timedlock_invalid_abstime_is_einval_when_it_must_wait)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct timespec bad = {0, -1};
	struct holder h;

	holder_start(&h, &m, false);
	ck_assert_int_eq(pthread_mutex_timedlock(&m, &bad), EINVAL);
	holder_finish(&h);
}
END_TEST

static void init_typed(pthread_mutex_t *m, int type)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, type);
	ck_assert_int_eq(pthread_mutex_init(m, &a), 0);
	pthread_mutexattr_destroy(&a);
}

START_TEST(errorcheck_relock_is_edeadlk)
{
	pthread_mutex_t m;

	init_typed(&m, PTHREAD_MUTEX_ERRORCHECK);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_mutex_lock(&m), EDEADLK);
	ck_assert_int_eq(pthread_mutex_trylock(&m), EBUSY);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), EPERM);
	pthread_mutex_destroy(&m);
}
END_TEST

START_TEST(errorcheck_foreign_unlock_is_eperm)
{
	pthread_mutex_t m;
	struct holder h;

	init_typed(&m, PTHREAD_MUTEX_ERRORCHECK);
	holder_start(&h, &m, false);
	ck_assert_int_eq(pthread_mutex_unlock(&m), EPERM);
	holder_finish(&h);
	ck_assert_int_eq(h.unlock_result, 0);
	pthread_mutex_destroy(&m);
}
END_TEST

START_TEST(recursive_mutex_counts_its_depth)
{
	pthread_mutex_t m;
	struct holder h;

	init_typed(&m, PTHREAD_MUTEX_RECURSIVE);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_mutex_trylock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), EPERM);
	/* Free again: another thread can take it. */
	holder_start(&h, &m, false);
	ck_assert_int_eq(pthread_mutex_trylock(&m), EBUSY);
	holder_finish(&h);
	pthread_mutex_destroy(&m);
}
END_TEST

static void init_robust(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	ck_assert_int_eq(pthread_mutex_init(m, &a), 0);
	pthread_mutexattr_destroy(&a);
}

START_TEST(robust_mutex_of_dead_owner_is_eownerdead)
{
	pthread_mutex_t m;
	struct holder h;

	init_robust(&m);
	holder_start(&h, &m, true);
	pthread_join(h.thread, NULL);
	ck_assert_int_eq(pthread_mutex_lock(&m), EOWNERDEAD);
	ck_assert_int_eq(pthread_mutex_consistent(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	pthread_mutex_destroy(&m);
}
END_TEST

START_TEST(robust_trylock_of_dead_owner_is_eownerdead)
{
	pthread_mutex_t m;
	struct holder h;

	init_robust(&m);
	holder_start(&h, &m, true);
	pthread_join(h.thread, NULL);
	ck_assert_int_eq(pthread_mutex_trylock(&m), EOWNERDEAD);
	/* Not made consistent: unlocking leaves it unrecoverable. */
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_lock(&m), ENOTRECOVERABLE);
	pthread_mutex_destroy(&m);
}
END_TEST

/* A lock that blocks for `ms` while another thread holds it. */
static void *release_after(void *p)
{
	struct holder *h = p;

	usleep(20000);
	sem_post(&h->release);
	return NULL;
}

START_TEST(errno_is_left_alone)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct holder h;
	pthread_t t;

	errno = 1234;
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_mutex_trylock(&m), EBUSY);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(errno, 1234);
	/* The contended (timed, counted, traced) path as well. */
	holder_start(&h, &m, false);
	pthread_create(&t, NULL, release_after, &h);
	errno = 4321;
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(errno, 4321);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(errno, 4321);
	pthread_join(t, NULL);
	pthread_join(h.thread, NULL);
}
END_TEST

START_TEST(a_contended_lock_is_counted_and_turns_hot)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	const struct corecap_stats_lock *hot;
	uint64_t contentions, wait_ns;
	struct holder h;
	pthread_t t;

	contentions = probe_self()->c.contentions;
	wait_ns = probe_self()->c.lock_wait_ns;
	ck_assert_ptr_null(probe_lock(probe_stats(), &m));
	holder_start(&h, &m, false);
	pthread_create(&t, NULL, release_after, &h);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	pthread_join(t, NULL);
	pthread_join(h.thread, NULL);
	ck_assert_uint_eq(probe_self()->c.contentions, contentions + 1);
	/* The holder kept it ~20 ms. */
	ck_assert_uint_ge(probe_self()->c.lock_wait_ns - wait_ns, 10000000u);
	hot = probe_lock(probe_stats(), &m);
	ck_assert_ptr_nonnull(hot);
	ck_assert_uint_eq(hot->contentions, 1);
	/* Hot from our contended acquisition on: its hold is the first measured. */
	ck_assert_uint_eq(hot->acquisitions, 1);
	ck_assert_uint_eq(hot->holds, 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("wrap_mutex");
	TCase *tc = tcase_create("conformance");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, shim_is_loaded_and_counting);
	tcase_add_test(tc, trylock_on_held_mutex_is_ebusy);
	tcase_add_test(tc, timedlock_times_out_with_etimedout);
	tcase_add_test(tc, clocklock_monotonic_times_out);
	tcase_add_test(tc, timedlock_invalid_abstime_is_einval_when_it_must_wait);
	tcase_add_test(tc, errorcheck_relock_is_edeadlk);
	tcase_add_test(tc, errorcheck_foreign_unlock_is_eperm);
	tcase_add_test(tc, recursive_mutex_counts_its_depth);
	tcase_add_test(tc, robust_mutex_of_dead_owner_is_eownerdead);
	tcase_add_test(tc, robust_trylock_of_dead_owner_is_eownerdead);
	tcase_add_test(tc, errno_is_left_alone);
	tcase_add_test(tc, a_contended_lock_is_counted_and_turns_hot);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return corecap_check_run(suite());
}
