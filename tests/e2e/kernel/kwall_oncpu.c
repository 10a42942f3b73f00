/*
 * kernel_kwall_oncpu: a known answer for the kernel's on-CPU stacks (the
 * default record's wall-clock samples, collector/kernel/kernel_events.h).
 *
 *   kernel_kwall_oncpu SECONDS
 *	two threads spin for SECONDS: "mixed" spends 3 ms of its own CPU
 *	time in log_format_entry() (a logger's name) for every 1 ms in
 *	crunch_numbers(); "worker" spins in crunch_numbers() only. The shares
 *	are of each thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so they hold
 *	however the machine's load shares the CPUs out: on-CPU samples of
 *	"mixed" are 3/4 in log_format_entry, those of "worker" none.
 *
 * Prints "pid P" and "ready", waits for SIGUSR1 (the recording has
 * started), runs, prints "thread TID NAME" per thread and "done", and
 * stays until it is killed, so that a recording's window ends by its
 * benchmark. Built without frame pointers: the stacks unwind by CFI only.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t go;
static uint64_t end_ns;
static volatile uint64_t sink;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spins until the calling thread has used us more microseconds of CPU. */
#define SPIN_BODY(us, mul)                                                                         \
	do {                                                                                       \
		uint64_t until = clock_ns(CLOCK_THREAD_CPUTIME_ID) + (uint64_t)(us)*1000u,         \
			 x = sink;                                                                 \
		while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < until)                                  \
			for (int i = 0; i < 20000; i++)                                            \
				x = x * (mul) + (uint64_t)i;                                       \
		sink = x;                                                                          \
	} while (0)

__attribute__((noinline, noclone)) static void log_format_entry(unsigned us)
{
	SPIN_BODY(us, 6364136223846793005ull);
}

__attribute__((noinline, noclone)) static void crunch_numbers(unsigned us)
{
	SPIN_BODY(us, 2862933555777941757ull);
}

static void *mixed_main(void *arg)
{
	pid_t *tid = arg;

	*tid = gettid();
	pthread_setname_np(pthread_self(), "mixed");
	while (clock_ns(CLOCK_MONOTONIC) < end_ns) {
		log_format_entry(3000);
		crunch_numbers(1000);
	}
	return NULL;
}

static void *worker_main(void *arg)
{
	pid_t *tid = arg;

	*tid = gettid();
	pthread_setname_np(pthread_self(), "worker");
	while (clock_ns(CLOCK_MONOTONIC) < end_ns)
		crunch_numbers(4000);
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

int main(int argc, char **argv)
{
	pthread_t th[2];
	pid_t tids[2] = {0, 0};
	double seconds = argc == 2 ? atof(argv[1]) : 0;
	sigset_t mask, old;

	if (seconds <= 0 || seconds > 60) {
		fprintf(stderr, "usage: kernel_kwall_oncpu SECONDS (0-60]\n");
		return 2;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, &old);
	signal(SIGUSR1, on_usr1);
	printf("pid %d\nready\n", (int)getpid());
	fflush(stdout);
	while (!go)
		sigsuspend(&old);
	end_ns = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);
	if (pthread_create(&th[0], NULL, mixed_main, &tids[0]) ||
	    pthread_create(&th[1], NULL, worker_main, &tids[1])) {
		fprintf(stderr, "kernel_kwall_oncpu: cannot create a thread\n");
		return 1;
	}
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	printf("thread %d mixed\nthread %d worker\ndone\n", (int)tids[0], (int)tids[1]);
	fflush(stdout);
	for (;;)
		pause();
}
