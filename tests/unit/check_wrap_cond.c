/*
 * wrap_cond under the shim: timed waits time out with ETIMEDOUT and the
 * mutex owned again, pthread_cond_clockwait (what libstdc++'s
 * std::condition_variable uses) included; signals wake waiters; the
 * waits are counted once each, and the mutex's hold stops while its
 * thread waits (the mistake a shim makes when it misses a wait flavour).
 * The GLIBC_2.2.5 cond ABI, which old binaries bind to, is wrapped and
 * forwarded to its own implementation. Runs with the shim in LD_PRELOAD.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
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

static void init_errorcheck(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	ck_assert_int_eq(pthread_mutex_init(m, &a), 0);
	pthread_mutexattr_destroy(&a);
}

/* Owned by this thread: another thread's trylock fails, our unlock works. */
static void *try_from_other(void *m)
{
	return (void *)(intptr_t)pthread_mutex_trylock(m);
}

static void assert_owned_by_me(pthread_mutex_t *m)
{
	pthread_t t;
	void *r;

	pthread_create(&t, NULL, try_from_other, m);
	pthread_join(t, &r);
	ck_assert_int_eq((int)(intptr_t)r, EBUSY);
	ck_assert_int_eq(pthread_mutex_unlock(m), 0);
}

START_TEST(shim_is_loaded)
{
	ck_assert_msg(probe_shim_loaded(), "libcorecap-preload.so is not in LD_PRELOAD");
	ck_assert_ptr_nonnull(probe_stats());
}
END_TEST

START_TEST(timedwait_times_out_with_the_mutex_owned)
{
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	pthread_mutex_t m;
	struct timespec until;
	uint64_t waits = probe_self()->c.cond_waits;

	init_errorcheck(&m);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	until = in_ms(CLOCK_REALTIME, 20);
	ck_assert_int_eq(pthread_cond_timedwait(&c, &m, &until), ETIMEDOUT);
	assert_owned_by_me(&m);
	ck_assert_uint_eq(probe_self()->c.cond_waits, waits + 1);
	ck_assert_uint_ge(probe_self()->c.cond_wait_ns, 15000000u);
}
END_TEST

__attribute__((noinline)) int cond_test_clockwait_site(pthread_cond_t *c, pthread_mutex_t *m,
						       const struct timespec *until)
{
	int r = pthread_cond_clockwait(c, m, CLOCK_MONOTONIC, until);

	__asm__ volatile("" : "+r"(r)); /* no tail call: the site stays here */
	return r;
}

static pthread_mutex_t hot_m;

/*
 * The shim publishes a running thread's hot-lock holds in batches, at the
 * latest at its next condition wait or hold that comes 10 ms after the
 * last publication (docs/shim.md): wait for that, then make one.
 */
static void publish_pending(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct timespec past = {0, 0};

	usleep(11000);
	pthread_mutex_lock(&m);
	pthread_cond_timedwait(&c, &m, &past);
	pthread_mutex_unlock(&m);
}

START_TEST(clockwait_monotonic_times_out_owned_and_counted_consistently)
{
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	const struct corecap_stats_lock *hot;
	const struct corecap_stats_site *site;
	uint64_t holds, hold_ns;
	struct timespec until;

	init_errorcheck(&hot_m);
	hot = probe_make_hot(&hot_m);
	ck_assert_ptr_nonnull(hot);
	holds = hot->holds;
	hold_ns = hot->hold_ns;
	ck_assert_int_eq(pthread_mutex_lock(&hot_m), 0);
	until = in_ms(CLOCK_MONOTONIC, 50);
	ck_assert_int_eq(cond_test_clockwait_site(&c, &hot_m, &until), ETIMEDOUT);
	assert_owned_by_me(&hot_m);
	publish_pending();
	/* Two holds (before and after the wait), and the 50 ms wait is in
	 * neither: the mutex was free while this thread waited. */
	ck_assert_uint_eq(hot->holds, holds + 2);
	ck_assert_uint_lt(hot->hold_ns - hold_ns, 20000000u);
	site = probe_site_in(probe_stats(), "cond_test_clockwait_site", CORECAP_KIND_COND);
	ck_assert_ptr_nonnull(site);
	ck_assert_uint_eq(site->contentions, 1);
	ck_assert_uint_eq(site->timeouts, 1);
	ck_assert_uint_ge(site->wait_ns, 45000000u);
}
END_TEST

START_TEST(clockwait_with_a_bad_clock_is_einval)
{
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct timespec until = in_ms(CLOCK_MONOTONIC, 10);

	pthread_mutex_lock(&m);
	ck_assert_int_eq(pthread_cond_clockwait(&c, &m, CLOCK_PROCESS_CPUTIME_ID, &until), EINVAL);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
}
END_TEST

static pthread_cond_t sig_c = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t sig_m = PTHREAD_MUTEX_INITIALIZER;
static int sig_flag;

static void *signal_later(void *broadcast)
{
	usleep(10000);
	pthread_mutex_lock(&sig_m);
	sig_flag = 1;
	if (broadcast)
		pthread_cond_broadcast(&sig_c);
	else
		pthread_cond_signal(&sig_c);
	pthread_mutex_unlock(&sig_m);
	return NULL;
}

START_TEST(signal_and_broadcast_wake_waiters)
{
	for (int b = 0; b < 2; b++) {
		uint64_t waits = probe_self()->c.cond_waits;
		pthread_t t;

		sig_flag = 0;
		pthread_create(&t, NULL, signal_later, (void *)(intptr_t)b);
		pthread_mutex_lock(&sig_m);
		while (!sig_flag)
			ck_assert_int_eq(pthread_cond_wait(&sig_c, &sig_m), 0);
		pthread_mutex_unlock(&sig_m);
		pthread_join(t, NULL);
		ck_assert_uint_ge(probe_self()->c.cond_waits, waits + 1);
	}
}
END_TEST

/*
 * The LinuxThreads-era ABI, bound by version as an old binary would.
 * Its cond objects must only meet functions of the same version.
 */
extern int old_cond_init(pthread_cond_t *, const pthread_condattr_t *);
extern int old_cond_destroy(pthread_cond_t *);
extern int old_cond_wait(pthread_cond_t *, pthread_mutex_t *);
extern int old_cond_timedwait(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
extern int old_cond_signal(pthread_cond_t *);
__asm__(".symver old_cond_init, pthread_cond_init@GLIBC_2.2.5");
__asm__(".symver old_cond_destroy, pthread_cond_destroy@GLIBC_2.2.5");
__asm__(".symver old_cond_wait, pthread_cond_wait@GLIBC_2.2.5");
__asm__(".symver old_cond_timedwait, pthread_cond_timedwait@GLIBC_2.2.5");
__asm__(".symver old_cond_signal, pthread_cond_signal@GLIBC_2.2.5");

static pthread_cond_t old_c;

static void *old_signal_later(void *unused)
{
	usleep(10000);
	pthread_mutex_lock(&sig_m);
	sig_flag = 1;
	old_cond_signal(&old_c);
	pthread_mutex_unlock(&sig_m);
	return unused;
}

START_TEST(old_abi_conds_are_wrapped_and_work)
{
	uint64_t waits = probe_self()->c.cond_waits;
	struct timespec until;
	pthread_t t;

	ck_assert_int_eq(old_cond_init(&old_c, NULL), 0);
	pthread_mutex_lock(&sig_m);
	until = in_ms(CLOCK_REALTIME, 10);
	ck_assert_int_eq(old_cond_timedwait(&old_c, &sig_m, &until), ETIMEDOUT);
	sig_flag = 0;
	pthread_create(&t, NULL, old_signal_later, NULL);
	while (!sig_flag)
		ck_assert_int_eq(old_cond_wait(&old_c, &sig_m), 0);
	pthread_mutex_unlock(&sig_m);
	pthread_join(t, NULL);
	ck_assert_uint_ge(probe_self()->c.cond_waits, waits + 2);
	ck_assert_int_eq(old_cond_destroy(&old_c), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("wrap_cond");
	TCase *tc = tcase_create("conformance");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, shim_is_loaded);
	tcase_add_test(tc, timedwait_times_out_with_the_mutex_owned);
	tcase_add_test(tc, clockwait_monotonic_times_out_owned_and_counted_consistently);
	tcase_add_test(tc, clockwait_with_a_bad_clock_is_einval);
	tcase_add_test(tc, signal_and_broadcast_wake_waiters);
	tcase_add_test(tc, old_abi_conds_are_wrapped_and_work);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return corecap_check_run(suite());
}
