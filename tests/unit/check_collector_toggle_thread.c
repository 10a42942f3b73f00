/* collector/sources/toggle_thread.c: which thread may take gperftools' toggle signal. */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sources/toggle_thread.h"

#include "check_run.h"

/* SIGUSR2 (12) neither blocked nor ignored; SIGINT (2) blocked; SIGPIPE (13) ignored. */
static const char status_text[] = "Name:\tmsgr-worker-0\n"
				  "State:\tS (sleeping)\n"
				  "SigPnd:\t0000000000000000\n"
				  "SigBlk:\t0000000000000002\n"
				  "SigIgn:\t0000000000001000\n"
				  "SigCgt:\t0000000180000800\n";

static void line_of(char *buf, size_t size, long nr)
{
	snprintf(buf, size, "%ld 0xb 0x7f1e2c0 0x40 0xffffffff 0x0 0x0 0x7f1e2a8 0x7f3a0e41cf36\n",
		 nr);
}

static enum corecap_toggle_verdict judge(const char *line, int sig)
{
	uint64_t sp = 0;

	return corecap_toggle_thread_judge(line, status_text, sig, &sp);
}

START_TEST(a_quiet_call_is_safe)
{
	char line[128];

	line_of(line, sizeof(line), SYS_epoll_wait);
	ck_assert_int_eq(judge(line, SIGUSR2), CORECAP_TOGGLE_YES);
	line_of(line, sizeof(line), SYS_rt_sigtimedwait);
	ck_assert_int_eq(judge(line, SIGUSR2), CORECAP_TOGGLE_YES);
	line_of(line, sizeof(line), SYS_accept4);
	ck_assert_int_eq(judge(line, SIGUSR2), CORECAP_TOGGLE_YES);
}
END_TEST

/* The SIGPROF handler's spin lock sleeps in futex or nanosleep: those need the stack. */
START_TEST(futex_needs_its_stack_looked_at)
{
	char line[128];
	uint64_t sp = 0;

	line_of(line, sizeof(line), SYS_futex);
	ck_assert_int_eq(corecap_toggle_thread_judge(line, status_text, SIGUSR2, &sp),
			 CORECAP_TOGGLE_IF_STACK_CLEAN);
	ck_assert_uint_eq(sp, 0x7f1e2a8);
	line_of(line, sizeof(line), SYS_nanosleep);
	ck_assert_int_eq(judge(line, SIGUSR2), CORECAP_TOGGLE_IF_STACK_CLEAN);
	/* A futex line cut short has no stack pointer to look at. */
	ck_assert_int_eq(judge("202 0xb 0x7f1e2c0\n", SIGUSR2), CORECAP_TOGGLE_NO);
}
END_TEST

START_TEST(running_and_other_calls_are_not)
{
	char line[128];

	line_of(line, sizeof(line), SYS_write);
	ck_assert_int_eq(judge(line, SIGUSR2), CORECAP_TOGGLE_NO);
	ck_assert_int_eq(judge("running\n", SIGUSR2), CORECAP_TOGGLE_NO);
	ck_assert_int_eq(judge("-1 0x7ffd1 0x7f3a0e\n", SIGUSR2), CORECAP_TOGGLE_NO);
	ck_assert_int_eq(judge("", SIGUSR2), CORECAP_TOGGLE_NO);
	ck_assert_int_eq(judge("232x 0x1\n", SIGUSR2), CORECAP_TOGGLE_NO);
}
END_TEST

/* A word in libprofiler's code anywhere in the words makes the stack unclean. */
START_TEST(a_profiler_address_on_the_stack)
{
	const struct corecap_toggle_range code[] = {{0x7f00001000, 0x7f00009000},
						    {0x7f10000000, 0x7f10001000}};
	uint64_t words[] = {0, 0x7f00000fff, 0x7f00009000, 0x55d1a2700b50, 0x7f10000fff};

	ck_assert(corecap_toggle_stack_clean(words, 4, code, 2));
	ck_assert(!corecap_toggle_stack_clean(words, 5, code, 2));
	words[0] = 0x7f00001000;
	ck_assert(!corecap_toggle_stack_clean(words, 1, code, 2));
	ck_assert(corecap_toggle_stack_clean(words, 1, code, 0));
}
END_TEST

START_TEST(a_blocked_or_ignored_signal_is_not)
{
	char line[128];

	uint64_t sp;

	line_of(line, sizeof(line), SYS_epoll_wait);
	ck_assert_int_eq(judge(line, SIGINT), CORECAP_TOGGLE_NO);
	ck_assert_int_eq(judge(line, SIGPIPE), CORECAP_TOGGLE_NO);
	ck_assert_int_eq(judge(line, 0), CORECAP_TOGGLE_NO);
	ck_assert_int_eq(judge(line, 65), CORECAP_TOGGLE_NO);
	/* A status without the masks is taken as blocking everything. */
	ck_assert_int_eq(corecap_toggle_thread_judge(line, "Name:\tx\n", SIGUSR2, &sp),
			 CORECAP_TOGGLE_NO);
}
END_TEST

static void *sleep_in_epoll(void *arg)
{
	struct epoll_event ev;
	int fd = epoll_create1(0);

	(void)arg;
	epoll_wait(fd, &ev, 1, 5000);
	close(fd);
	return NULL;
}

/* This process: the thread asleep in epoll_wait is found, not the running one. */
START_TEST(finds_the_thread_in_epoll_wait)
{
	pthread_t t;
	pid_t tid = 0;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	ck_assert_int_eq(pthread_create(&t, NULL, sleep_in_epoll, NULL), 0);
	for (int i = 0; i < 500 && tid == 0; i++) {
		usleep(2000);
		tid = corecap_toggle_thread_find(getpid(), SIGUSR2);
	}
	ck_assert_int_gt(tid, 0);
	ck_assert_int_ne(tid, (pid_t)syscall(SYS_gettid));
	pthread_cancel(t);
	pthread_join(t, NULL);
	ck_assert_int_eq(corecap_toggle_thread_find(999999999, SIGUSR2), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/toggle_thread");
	TCase *tc = tcase_create("choice");

	tcase_add_test(tc, a_quiet_call_is_safe);
	tcase_add_test(tc, futex_needs_its_stack_looked_at);
	tcase_add_test(tc, running_and_other_calls_are_not);
	tcase_add_test(tc, a_profiler_address_on_the_stack);
	tcase_add_test(tc, a_blocked_or_ignored_signal_is_not);
	tcase_add_test(tc, finds_the_thread_in_epoll_wait);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
