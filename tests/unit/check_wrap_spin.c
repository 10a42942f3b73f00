/*
 * wrap_spin under the shim: lock, trylock (EBUSY when held) and unlock
 * behave as glibc's; a busy spin lock's wait is measured and counted
 * under kind spin. Runs with the shim in LD_PRELOAD.
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

static pthread_spinlock_t spin;
static sem_t taken;

static void busy_ms(long ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

static void *hold_10ms(void *unused)
{
	pthread_spin_lock(&spin);
	sem_post(&taken);
	busy_ms(10);
	pthread_spin_unlock(&spin);
	return unused;
}

__attribute__((noinline)) int spin_test_site(pthread_spinlock_t *s)
{
	int r = pthread_spin_lock(s);

	__asm__ volatile("" : "+r"(r)); /* no tail call: the site stays here */
	return r;
}

START_TEST(shim_is_loaded)
{
	ck_assert_msg(probe_shim_loaded(), "libcorecap-preload.so is not in LD_PRELOAD");
	ck_assert_ptr_nonnull(probe_stats());
}
END_TEST

START_TEST(spin_lock_trylock_unlock_keep_their_results)
{
	ck_assert_int_eq(pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE), 0);
	ck_assert_int_eq(pthread_spin_lock(&spin), 0);
	ck_assert_int_eq(pthread_spin_trylock(&spin), EBUSY);
	ck_assert_int_eq(pthread_spin_unlock(&spin), 0);
	ck_assert_int_eq(pthread_spin_trylock(&spin), 0);
	ck_assert_int_eq(pthread_spin_unlock(&spin), 0);
	ck_assert_int_eq(pthread_spin_destroy(&spin), 0);
}
END_TEST

START_TEST(a_busy_spin_lock_is_timed)
{
	const struct corecap_stats_site *site;
	pthread_t t;

	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	sem_init(&taken, 0, 0);
	pthread_create(&t, NULL, hold_10ms, NULL);
	sem_wait(&taken);
	ck_assert_int_eq(spin_test_site(&spin), 0);
	ck_assert_int_eq(pthread_spin_unlock(&spin), 0);
	pthread_join(t, NULL);
	site = probe_site_in(probe_stats(), "spin_test_site", CORECAP_KIND_SPIN);
	ck_assert_ptr_nonnull(site);
	ck_assert_uint_eq(site->contentions, 1);
	/* Held 10 ms from just before `taken`; allow for scheduling. */
	ck_assert_uint_ge(site->wait_ns, 3000000u);
	ck_assert_ptr_nonnull(probe_lock(probe_stats(), (const void *)&spin));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("wrap_spin");
	TCase *tc = tcase_create("conformance");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, shim_is_loaded);
	tcase_add_test(tc, spin_lock_trylock_unlock_keep_their_results);
	tcase_add_test(tc, a_busy_spin_lock_is_timed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return corecap_check_run(suite());
}
