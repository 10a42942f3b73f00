/*
 * wrap_thread under the shim: threads get slots with their names
 * (pthread_setname_np on itself or another thread, prctl(PR_SET_NAME)),
 * exited threads are marked so, and fork gives the child counters and a
 * stats file of its own: it locks, execs, and leaves no file behind,
 * while the parent's counters stay the parent's. Runs with the shim in
 * LD_PRELOAD.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stats_probe.h"

#include "check_run.h"

START_TEST(shim_is_loaded)
{
	ck_assert_msg(probe_shim_loaded(), "libcorecap-preload.so is not in LD_PRELOAD");
	ck_assert_ptr_nonnull(probe_stats());
}
END_TEST

static sem_t go, named;
static int other_tid;

static void *idle_until_go(void *unused)
{
	other_tid = (int)gettid();
	sem_post(&named);
	sem_wait(&go);
	return unused;
}

START_TEST(names_reach_the_slots)
{
	const struct corecap_stats_thread *t;
	pthread_t other;

	ck_assert_int_eq(pthread_setname_np(pthread_self(), "tp_osd_tp"), 0);
	ck_assert_str_eq(probe_self()->name, "tp_osd_tp");
	ck_assert_int_eq(prctl(PR_SET_NAME, "finisher", 0, 0, 0), 0);
	ck_assert_str_eq(probe_self()->name, "finisher");
	/* Too long: glibc's ERANGE, and the name stays. */
	ck_assert_int_eq(pthread_setname_np(pthread_self(), "a-name-longer-than-15"), ERANGE);
	ck_assert_str_eq(probe_self()->name, "finisher");

	sem_init(&go, 0, 0);
	sem_init(&named, 0, 0);
	pthread_create(&other, NULL, idle_until_go, NULL);
	sem_wait(&named);
	ck_assert_int_eq(pthread_setname_np(other, "msgr-worker-0"), 0);
	t = probe_thread(probe_stats(), other_tid);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t->name, "msgr-worker-0");
	ck_assert_uint_eq(t->state, CORECAP_THREAD_LIVE);
	sem_post(&go);
	pthread_join(other, NULL);
	ck_assert_uint_eq(t->state, CORECAP_THREAD_EXITED);
	ck_assert_uint_gt(t->exit_ns, t->start_ns);
}
END_TEST

START_TEST(a_new_thread_inherits_the_name_it_starts_with)
{
	const struct corecap_stats_thread *t;
	pthread_t other;

	prctl(PR_SET_NAME, "parent-name", 0, 0, 0);
	sem_init(&go, 0, 0);
	sem_init(&named, 0, 0);
	pthread_create(&other, NULL, idle_until_go, NULL);
	sem_wait(&named);
	t = probe_thread(probe_stats(), other_tid);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t->name, "parent-name"); /* Linux copies comm at clone */
	sem_post(&go);
	pthread_join(other, NULL);
}
END_TEST

START_TEST(fork_lock_exec)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	const struct corecap_stats_header *parent = probe_stats();
	uint64_t parent_acq, parent_acq_after;
	char path[512];
	pid_t pid, waited;
	int status;

	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	parent_acq = probe_self()->c.acquisitions;
	pid = fork();
	/* No ck_assert in the child before the count: Check takes a mutex. */
	if (pid == 0) {
		const struct corecap_stats_header *h;

		/* Exit codes name what failed in the child. */
		if (pthread_mutex_lock(&m) != 0 || pthread_mutex_unlock(&m) != 0)
			_exit(10);
		/* Its own segment (often at the parent's address: h->pid tells). */
		h = probe_stats();
		if (!h)
			_exit(11);
		if (h->pid != getpid() || h->ppid != getppid() ||
		    !(h->flags & CORECAP_STATS_F_CHILD))
			_exit(12);
		if (!probe_self() || probe_self()->c.acquisitions != 1)
			_exit(13);
		execl("/bin/sh", "sh", "-c", "exit 7", (char *)NULL);
		_exit(14);
	}
	/* Read the parent's count before any ck_assert (each takes a lock). */
	waited = waitpid(pid, &status, 0);
	parent_acq_after = probe_self()->c.acquisitions;
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waited, pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 7);
	/* The child's locks did not count here. */
	ck_assert_uint_eq(parent_acq_after, parent_acq);
	ck_assert_int_eq(parent->pid, getpid());
	/* The exec'd shell ran under the shim with the same pid and left
	 * no file behind: its counters were a memfd, gone with it. */
	snprintf(path, sizeof(path), "/dev/shm/corecap.%d", (int)pid);
	ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("wrap_thread");
	TCase *tc = tcase_create("threads_and_fork");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, shim_is_loaded);
	tcase_add_test(tc, names_reach_the_slots);
	tcase_add_test(tc, a_new_thread_inherits_the_name_it_starts_with);
	tcase_add_test(tc, fork_lock_exec);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return corecap_check_run(suite());
}
