/*
 * lock_track, known answer: threads contend one mutex with a known busy
 * hold, from two call sites. The shim's figures must match the test's own
 * clock: total wait within 20%, mean hold within 10%, every hold of the
 * hot lock counted, the two sites apart with their exact acquisition
 * counts. Runs with the shim in LD_PRELOAD, as two CTest tests:
 *
 *  - case "exact", with CORECAP_HOLD_TIME=1 (every hold tracked): the
 *    above;
 *  - case "sampled", with the default CORECAP_HOLD_TIME (8): of a hot
 *    lock's uncontended holds, 1 in 8 drawn at random is tracked and
 *    stands for 8. The published counts must be within 4.5 standard
 *    deviations of the true ones (binomial: sd = sqrt(n (N - 1))), and
 *    the hold time within 20% of the test's own clock, even when the long
 *    holds come in a fixed period that a countdown would alias with.
 *
 * Both cases also check that a thread about to block publishes what it
 * batched: workers take a hot lock a few times (fewer than a batch), sleep
 * past the shim's pre-block interval, then block (a condition wait, a
 * contended mutex, a read of an empty pipe); while they are blocked the
 * stats file must show every hold (exactly with CORECAP_HOLD_TIME=1,
 * within 4.5 standard deviations with 8). A shim that publishes only at
 * the next event or at exit shows one batch's worth less per thread.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "stats_probe.h"

#include "check_run.h"

#define THREADS 4
#define ITERS	60	/* per thread, half at each site */
#define HOLD_NS 1000000 /* long enough that a preemption is noise */

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static uint64_t test_wait_ns[THREADS], test_hold_ns[THREADS];

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The two call sites (exported, so the test can find them by name). */
__attribute__((noinline)) int known_answer_site_a(pthread_mutex_t *l)
{
	int r = pthread_mutex_lock(l);

	__asm__ volatile("" : "+r"(r)); /* no tail call: the site stays here */
	return r;
}

__attribute__((noinline)) int known_answer_site_b(pthread_mutex_t *l)
{
	int r = pthread_mutex_lock(l);

	__asm__ volatile("" : "+r"(r));
	return r;
}

static void *worker(void *p)
{
	int id = (int)(intptr_t)p;

	for (int k = 0; k < ITERS; k++) {
		uint64_t t0 = now(), t1, t2;

		if (k % 2)
			known_answer_site_a(&m);
		else
			known_answer_site_b(&m);
		t1 = now();
		do
			t2 = now();
		while (t2 - t1 < HOLD_NS);
		pthread_mutex_unlock(&m);
		test_wait_ns[id] += t1 - t0;
		test_hold_ns[id] += t2 - t1;
		usleep(100); /* let the others in: glibc lets a releaser barge */
	}
	return NULL;
}

#define SAMPLED_HOLDS 32000
#define LONG_EVERY    8	    /* one long hold in 8, always in the same place */
#define LONG_HOLD_NS  20000 /* busy */

static pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
static uint64_t sampled_test_hold_ns;

/* In a thread of its own: its batches are published when it exits. */
static void *periodic_holds(void *unused)
{
	for (int k = 0; k < SAMPLED_HOLDS; k++) {
		uint64_t t1, t2;

		if (k % 2)
			known_answer_site_a(&m2);
		else
			known_answer_site_b(&m2);
		t1 = now();
		if (k % LONG_EVERY == 3)
			do
				t2 = now();
			while (t2 - t1 < LONG_HOLD_NS);
		else
			t2 = now();
		pthread_mutex_unlock(&m2);
		sampled_test_hold_ns += t2 - t1;
	}
	return unused;
}

/*
 * Threads that take a hot lock, then block. BLOCK_SLEEP_US is longer
 * than the shim's pre-block interval (1 ms, lock_track.c) and shorter
 * than its 10 ms deadline, so the holds are published only if the
 * blocking call publishes them.
 */
#define BLOCK_SLEEP_US	 2000
#define BLOCKERS	 4
#define BLOCK_TIMEOUT_MS 5000

enum block_how { BLOCK_COND, BLOCK_MUTEX, BLOCK_READ };

static pthread_mutex_t blk_hot[3] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
				     PTHREAD_MUTEX_INITIALIZER};
static pthread_mutex_t blk_gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t blk_cv = PTHREAD_COND_INITIALIZER;
static bool blk_go;
static int blk_pipe[2];

struct blocker {
	pthread_t t;
	enum block_how how;
	int holds;
	int tid;	    /* set before it blocks */
	int about_to_block; /* 1 once only the blocking call is left */
};

/* The workers' site (exported, so the test finds it by name). */
__attribute__((noinline)) int blocked_holds_site(pthread_mutex_t *l)
{
	int r = pthread_mutex_lock(l);

	__asm__ volatile("" : "+r"(r));
	return r;
}

static void *blocker(void *p)
{
	struct blocker *b = p;
	char c;

	for (int k = 0; k < b->holds; k++) {
		blocked_holds_site(&blk_hot[b->how]);
		pthread_mutex_unlock(&blk_hot[b->how]);
	}
	usleep(BLOCK_SLEEP_US);
	__atomic_store_n(&b->tid, (int)syscall(SYS_gettid), __ATOMIC_RELAXED);
	switch (b->how) {
	case BLOCK_COND:
		pthread_mutex_lock(&blk_gate);
		__atomic_store_n(&b->about_to_block, 1, __ATOMIC_RELEASE);
		while (!blk_go)
			pthread_cond_wait(&blk_cv, &blk_gate);
		pthread_mutex_unlock(&blk_gate);
		break;
	case BLOCK_MUTEX: /* the test holds blk_gate */
		__atomic_store_n(&b->about_to_block, 1, __ATOMIC_RELEASE);
		pthread_mutex_lock(&blk_gate);
		pthread_mutex_unlock(&blk_gate);
		break;
	case BLOCK_READ:
		__atomic_store_n(&b->about_to_block, 1, __ATOMIC_RELEASE);
		if (read(blk_pipe[0], &c, 1) != 1)
			abort();
		break;
	}
	return NULL;
}

/* Is the thread asleep in the kernel (state S in /proc)? */
static bool task_sleeping(int tid)
{
	char path[64], buf[512], *close_paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	close_paren = strrchr(buf, ')');
	return close_paren && close_paren[1] == ' ' && close_paren[2] == 'S';
}

/* Waits until every blocker sleeps in its blocking call. */
static void wait_blocked(struct blocker *b, int n)
{
	for (int i = 0; i < n; i++) {
		int ms = 0;

		while (!__atomic_load_n(&b[i].about_to_block, __ATOMIC_ACQUIRE) ||
		       !task_sleeping(__atomic_load_n(&b[i].tid, __ATOMIC_RELAXED))) {
			ck_assert_msg(ms++ < BLOCK_TIMEOUT_MS, "blocker %d never blocked", i);
			usleep(1000);
		}
	}
}

/*
 * BLOCKERS threads take blk_hot[how] `holds` times each, then block by
 * `how`; while they are blocked, the published holds and acquisitions of
 * the lock and of the site must be BLOCKERS x holds, within `sds`
 * standard deviations of the CORECAP_HOLD_TIME draw (0: exactly).
 */
static void assert_published_before_blocking(enum block_how how, int holds, double sds)
{
	const struct corecap_stats_header *h = probe_stats();
	const struct corecap_stats_site *site;
	const struct corecap_stats_lock *hot;
	struct blocker b[BLOCKERS];
	uint64_t holds0, acq0, site_acq0, site_holds0, got[4], want;
	uint32_t every = h->hold_time_every;
	double sd;

	hot = probe_make_hot(&blk_hot[how]);
	ck_assert_ptr_nonnull(hot);
	site = probe_site_in(h, "blocked_holds_site", CORECAP_KIND_MUTEX);
	site_acq0 = site ? site->acquisitions : 0;
	site_holds0 = site ? site->holds : 0;
	holds0 = hot->holds;
	acq0 = hot->acquisitions;
	blk_go = false;
	if (how == BLOCK_MUTEX)
		pthread_mutex_lock(&blk_gate);
	if (how == BLOCK_READ)
		ck_assert_int_eq(pipe(blk_pipe), 0);
	memset(b, 0, sizeof(b));
	for (int i = 0; i < BLOCKERS; i++) {
		b[i].how = how;
		b[i].holds = holds;
		pthread_create(&b[i].t, NULL, blocker, &b[i]);
	}
	wait_blocked(b, BLOCKERS);

	site = probe_site_in(h, "blocked_holds_site", CORECAP_KIND_MUTEX);
	ck_assert_ptr_nonnull(site);
	got[0] = hot->holds - holds0;
	got[1] = hot->acquisitions - acq0;
	got[2] = site->holds - site_holds0;
	got[3] = site->acquisitions - site_acq0;

	/* Let them go. */
	if (how == BLOCK_COND) {
		pthread_mutex_lock(&blk_gate);
		blk_go = true;
		pthread_cond_broadcast(&blk_cv);
		pthread_mutex_unlock(&blk_gate);
	} else if (how == BLOCK_MUTEX) {
		pthread_mutex_unlock(&blk_gate);
	} else {
		for (int i = 0; i < BLOCKERS; i++)
			ck_assert_int_eq(write(blk_pipe[1], "x", 1), 1);
	}
	for (int i = 0; i < BLOCKERS; i++)
		pthread_join(b[i].t, NULL);
	if (how == BLOCK_READ) {
		close(blk_pipe[0]);
		close(blk_pipe[1]);
	}

	want = (uint64_t)BLOCKERS * (uint64_t)holds;
	sd = sqrt((double)want * (every - 1));
	for (int i = 0; i < 4; i++) {
		static const char *const what[] = {"lock holds", "lock acquisitions", "site holds",
						   "site acquisitions"};
		double off = fabs((double)got[i] - (double)want);

		ck_assert_msg(off <= sds * sd,
			      "blocked by %s: %s %llu published while blocked, %llu true (sd %.0f)",
			      how == BLOCK_COND	   ? "a cond wait"
			      : how == BLOCK_MUTEX ? "a mutex"
						   : "a read",
			      what[i], (unsigned long long)got[i], (unsigned long long)want, sd);
	}
}

/* Fewer than a batch (32) per thread: nothing publishes them but the block. */
#define EXACT_BLOCKED_HOLDS 20
/* About 20 tracked per thread of 160 (1 in 8): below a batch too. */
#define SAMPLED_BLOCKED_HOLDS 160

START_TEST(exact_holds_are_published_before_blocking)
{
	ck_assert_uint_eq(((const struct corecap_stats_header *)probe_stats())->hold_time_every, 1);
	assert_published_before_blocking((enum block_how)_i, EXACT_BLOCKED_HOLDS, 0);
}
END_TEST

START_TEST(sampled_holds_are_published_before_blocking)
{
	ck_assert_uint_eq(((const struct corecap_stats_header *)probe_stats())->hold_time_every, 8);
	assert_published_before_blocking((enum block_how)_i, SAMPLED_BLOCKED_HOLDS, 4.5);
}
END_TEST

START_TEST(shim_is_loaded)
{
	ck_assert_msg(probe_shim_loaded(), "libcorecap-preload.so is not in LD_PRELOAD");
	ck_assert_ptr_nonnull(probe_stats());
}
END_TEST

START_TEST(contended_mutex_matches_the_tests_own_clock)
{
	const struct corecap_stats_site *a, *b;
	const struct corecap_stats_lock *hot;
	uint64_t holds0, hold0, wait0, cont0, wait = 0, hold = 0;
	double shim_mean_hold, test_mean_hold;
	pthread_t t[THREADS];

	/* Make the lock hot first, so that every worker hold is measured. */
	hot = probe_make_hot(&m);
	ck_assert_ptr_nonnull(hot);
	holds0 = hot->holds;
	hold0 = hot->hold_ns;
	wait0 = hot->wait_ns;
	cont0 = hot->contentions;

	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < THREADS; i++) {
		wait += test_wait_ns[i];
		hold += test_hold_ns[i];
	}

	ck_assert_uint_eq(((const struct corecap_stats_header *)probe_stats())->hold_time_every, 1);
	ck_assert_uint_gt(hot->contentions - cont0, 0);
	ck_assert_uint_eq(hot->holds - holds0, THREADS * ITERS);
	ck_assert_msg((double)(hot->wait_ns - wait0) > 0.8 * (double)wait &&
			      (double)(hot->wait_ns - wait0) < 1.2 * (double)wait,
		      "shim wait %llu ns, test's own %llu ns",
		      (unsigned long long)(hot->wait_ns - wait0), (unsigned long long)wait);
	shim_mean_hold = (double)(hot->hold_ns - hold0) / (double)(hot->holds - holds0);
	test_mean_hold = (double)hold / (THREADS * ITERS);
	ck_assert_msg(shim_mean_hold > 0.9 * test_mean_hold &&
			      shim_mean_hold < 1.1 * test_mean_hold,
		      "shim mean hold %.0f ns, test's own %.0f ns", shim_mean_hold, test_mean_hold);

	a = probe_site_in(probe_stats(), "known_answer_site_a", CORECAP_KIND_MUTEX);
	b = probe_site_in(probe_stats(), "known_answer_site_b", CORECAP_KIND_MUTEX);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_ne(a, b);
	ck_assert_uint_eq(a->acquisitions, THREADS * ITERS / 2);
	ck_assert_uint_eq(b->acquisitions, THREADS * ITERS / 2);
	ck_assert_uint_gt(a->contentions, 0);
	ck_assert_uint_gt(b->contentions, 0);
	ck_assert_uint_eq(a->holds + b->holds, THREADS * ITERS);
	ck_assert_uint_gt(a->stack_depth, 0); /* the first wait at a site is sampled */
	ck_assert_uint_eq(a->stack[0], a->addr);
}
END_TEST

/* An estimate of n events from 1 in every_n of them, weighted: within
 * 4.5 standard deviations of n. */
static void assert_estimate(const char *what, uint64_t got, uint64_t n, uint32_t every_n)
{
	double sd = sqrt((double)n * (every_n - 1)), off = fabs((double)got - (double)n);

	ck_assert_msg(off <= 4.5 * sd, "%s: %llu estimated, %llu true (sd %.0f)", what,
		      (unsigned long long)got, (unsigned long long)n, sd);
}

/*
 * One round of SAMPLED_HOLDS periodic holds: asserts the estimated counts,
 * returns whether the estimated hold time is within 20% of the test's own.
 */
static bool sampled_round(const struct corecap_stats_header *h, const struct corecap_stats_lock *hot)
{
	const struct corecap_stats_site *a, *b;
	uint64_t holds0, hold0, a0, b0;
	double shim_ns;
	pthread_t t;

	a = probe_site_in(h, "known_answer_site_a", CORECAP_KIND_MUTEX);
	b = probe_site_in(h, "known_answer_site_b", CORECAP_KIND_MUTEX);
	a0 = a ? a->acquisitions : 0;
	b0 = b ? b->acquisitions : 0;
	holds0 = hot->holds;
	hold0 = hot->hold_ns;
	sampled_test_hold_ns = 0;

	pthread_create(&t, NULL, periodic_holds, NULL);
	pthread_join(t, NULL);

	assert_estimate("holds", hot->holds - holds0, SAMPLED_HOLDS, 8);
	a = probe_site_in(h, "known_answer_site_a", CORECAP_KIND_MUTEX);
	b = probe_site_in(h, "known_answer_site_b", CORECAP_KIND_MUTEX);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	assert_estimate("site a acquisitions", a->acquisitions - a0, SAMPLED_HOLDS / 2, 8);
	assert_estimate("site b acquisitions", b->acquisitions - b0, SAMPLED_HOLDS / 2, 8);
	/* ~500 long holds timed: a 20% bound is over 4 standard errors. */
	shim_ns = (double)(hot->hold_ns - hold0);
	if (shim_ns > 0.8 * (double)sampled_test_hold_ns &&
	    shim_ns < 1.2 * (double)sampled_test_hold_ns)
		return true;
	fprintf(stderr, "shim hold time %.0f ns, test's own %llu ns\n", shim_ns,
		(unsigned long long)sampled_test_hold_ns);
	return false;
}

/*
 * A preemption inside a hold (the hypervisor's steal on this VM comes in
 * bursts of seconds) counts 8 times in the shim's sum if the shim tracked
 * that hold and not at all if not: a round gets up to ROUNDS tries, a
 * second apart, and one of them must be within the bound. A shim that
 * misjudges the time is off in all of them.
 */
#define ROUNDS 4

START_TEST(sampled_holds_estimate_counts_and_time)
{
	const struct corecap_stats_header *h = probe_stats();
	const struct corecap_stats_lock *hot;
	bool ok = false;

	ck_assert_uint_eq(h->hold_time_every, 8);
	hot = probe_make_hot(&m2);
	ck_assert_ptr_nonnull(hot);
	for (int r = 0; r < ROUNDS && !ok; r++) {
		if (r)
			sleep(1);
		ok = sampled_round(h, hot);
	}
	ck_assert_msg(ok, "the shim's hold time was off by more than 20%% in %d rounds", ROUNDS);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("lock_track");
	TCase *exact = tcase_create("exact"), *sampled = tcase_create("sampled");

	tcase_set_timeout(exact, 30);
	tcase_add_test(exact, shim_is_loaded);
	tcase_add_test(exact, contended_mutex_matches_the_tests_own_clock);
	tcase_add_loop_test(exact, exact_holds_are_published_before_blocking, BLOCK_COND,
			    BLOCK_READ + 1);
	suite_add_tcase(s, exact);
	tcase_set_timeout(sampled, 30);
	tcase_add_test(sampled, shim_is_loaded);
	tcase_add_test(sampled, sampled_holds_estimate_counts_and_time);
	tcase_add_loop_test(sampled, sampled_holds_are_published_before_blocking, BLOCK_COND,
			    BLOCK_READ + 1);
	suite_add_tcase(s, sampled);
	return s;
}

int main(void)
{
	return corecap_check_run(suite());
}
