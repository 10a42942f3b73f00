/*
 * wrap_rwlock under the shim: readers share, writers exclude, timed and
 * clock variants time out with ETIMEDOUT, a writer relocking gets
 * EDEADLK, as with glibc alone; contended read and write acquisitions are
 * counted under their own kinds. Runs with the shim in LD_PRELOAD.
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

struct holder {
	pthread_rwlock_t *l;
	bool write;
	sem_t locked, release;
	int result;
	pthread_t thread;
};

static void *holder_main(void *p)
{
	struct holder *h = p;

	h->result = h->write ? pthread_rwlock_wrlock(h->l) : pthread_rwlock_rdlock(h->l);
	sem_post(&h->locked);
	sem_wait(&h->release);
	pthread_rwlock_unlock(h->l);
	return NULL;
}

static void holder_start(struct holder *h, pthread_rwlock_t *l, bool write)
{
	h->l = l;
	h->write = write;
	sem_init(&h->locked, 0, 0);
	sem_init(&h->release, 0, 0);
	ck_assert_int_eq(pthread_create(&h->thread, NULL, holder_main, h), 0);
	sem_wait(&h->locked);
	ck_assert_int_eq(h->result, 0);
}

static void holder_finish(struct holder *h)
{
	sem_post(&h->release);
	pthread_join(h->thread, NULL);
}

static void *release_after_20ms(void *p)
{
	usleep(20000);
	holder_finish(p);
	return NULL;
}

START_TEST(shim_is_loaded)
{
	ck_assert_msg(probe_shim_loaded(), "libcorecap-preload.so is not in LD_PRELOAD");
	ck_assert_ptr_nonnull(probe_stats());
}
END_TEST

START_TEST(readers_share_writers_exclude)
{
	pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
	struct holder h;

	holder_start(&h, &l, false);
	ck_assert_int_eq(pthread_rwlock_tryrdlock(&l), 0);
	ck_assert_int_eq(pthread_rwlock_rdlock(&l), 0);
	ck_assert_int_eq(pthread_rwlock_trywrlock(&l), EBUSY);
	ck_assert_int_eq(pthread_rwlock_unlock(&l), 0);
	ck_assert_int_eq(pthread_rwlock_unlock(&l), 0);
	holder_finish(&h);
	holder_start(&h, &l, true);
	ck_assert_int_eq(pthread_rwlock_tryrdlock(&l), EBUSY);
	ck_assert_int_eq(pthread_rwlock_trywrlock(&l), EBUSY);
	holder_finish(&h);
	ck_assert_int_eq(pthread_rwlock_trywrlock(&l), 0);
	ck_assert_int_eq(pthread_rwlock_unlock(&l), 0);
}
END_TEST

START_TEST(timed_and_clock_variants_time_out)
{
	pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
	struct timespec until;
	struct holder h;

	holder_start(&h, &l, true);
	until = in_ms(CLOCK_REALTIME, 20);
	ck_assert_int_eq(pthread_rwlock_timedrdlock(&l, &until), ETIMEDOUT);
	until = in_ms(CLOCK_REALTIME, 20);
	ck_assert_int_eq(pthread_rwlock_timedwrlock(&l, &until), ETIMEDOUT);
	until = in_ms(CLOCK_MONOTONIC, 20);
	ck_assert_int_eq(pthread_rwlock_clockrdlock(&l, CLOCK_MONOTONIC, &until), ETIMEDOUT);
	until = in_ms(CLOCK_MONOTONIC, 20);
	ck_assert_int_eq(pthread_rwlock_clockwrlock(&l, CLOCK_MONOTONIC, &until), ETIMEDOUT);
	holder_finish(&h);
	until = in_ms(CLOCK_MONOTONIC, 20);
	ck_assert_int_eq(pthread_rwlock_clockwrlock(&l, CLOCK_MONOTONIC, &until), 0);
	ck_assert_int_eq(pthread_rwlock_unlock(&l), 0);
}
END_TEST

START_TEST(writer_relock_is_edeadlk)
{
	pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;

	ck_assert_int_eq(pthread_rwlock_wrlock(&l), 0);
	ck_assert_int_eq(pthread_rwlock_wrlock(&l), EDEADLK);
	ck_assert_int_eq(pthread_rwlock_rdlock(&l), EDEADLK);
	ck_assert_int_eq(pthread_rwlock_unlock(&l), 0);
}
END_TEST

/* Call sites with names (exported), so the test can find their entries. */
__attribute__((noinline)) int rwlock_test_read_site(pthread_rwlock_t *l)
{
	int r = pthread_rwlock_rdlock(l);

	__asm__ volatile("" : "+r"(r)); /* no tail call: the site stays here */
	return r;
}

__attribute__((noinline)) int rwlock_test_write_site(pthread_rwlock_t *l)
{
	int r = pthread_rwlock_wrlock(l);

	__asm__ volatile("" : "+r"(r)); /* no tail call: the site stays here */
	return r;
}

START_TEST(contended_reads_and_writes_are_counted_apart)
{
	pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
	const struct corecap_stats_site *rd, *wr;
	const struct corecap_stats_lock *hot;
	uint64_t contentions = probe_self()->c.contentions;
	struct holder h;
	pthread_t t;

	holder_start(&h, &l, true);
	pthread_create(&t, NULL, release_after_20ms, &h);
	ck_assert_int_eq(rwlock_test_read_site(&l), 0);
	ck_assert_int_eq(pthread_rwlock_unlock(&l), 0);
	pthread_join(t, NULL);
	holder_start(&h, &l, false);
	pthread_create(&t, NULL, release_after_20ms, &h);
	ck_assert_int_eq(rwlock_test_write_site(&l), 0);
	ck_assert_int_eq(pthread_rwlock_unlock(&l), 0);
	pthread_join(t, NULL);
	ck_assert_uint_eq(probe_self()->c.contentions, contentions + 2);
	hot = probe_lock(probe_stats(), &l);
	ck_assert_ptr_nonnull(hot);
	ck_assert_uint_eq(hot->kind, CORECAP_KIND_RWLOCK_WR);
	ck_assert_uint_eq(hot->contentions, 2);
	/* Our read hold and our write hold; the holder's second (read)
	 * acquisition came after the lock was hot. */
	ck_assert_uint_eq(hot->holds, 1);
	ck_assert_uint_ge(hot->shared_holds, 1);
	rd = probe_site_in(probe_stats(), "rwlock_test_read_site", CORECAP_KIND_RWLOCK_RD);
	wr = probe_site_in(probe_stats(), "rwlock_test_write_site", CORECAP_KIND_RWLOCK_WR);
	ck_assert_ptr_nonnull(rd);
	ck_assert_ptr_nonnull(wr);
	ck_assert_uint_eq(rd->contentions, 1);
	ck_assert_uint_eq(wr->contentions, 1);
	ck_assert_uint_ge(rd->wait_ns, 10000000u);
	ck_assert_uint_ge(wr->wait_ns, 10000000u);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("wrap_rwlock");
	TCase *tc = tcase_create("conformance");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, shim_is_loaded);
	tcase_add_test(tc, readers_share_writers_exclude);
	tcase_add_test(tc, timed_and_clock_variants_time_out);
	tcase_add_test(tc, writer_relock_is_edeadlk);
	tcase_add_test(tc, contended_reads_and_writes_are_counted_apart);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return corecap_check_run(suite());
}
