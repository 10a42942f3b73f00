/*
 * kernel_workload: known answers for the kernel source's tests.
 *
 *   kernel_workload mutex N HOLD_US SECONDS
 *	N threads take one mutex in turn, hold it HOLD_US (sleeping), for
 *	SECONDS; each thread times its own pthread_mutex_lock calls.
 *   kernel_workload pingpong SECONDS
 *	two threads hand a turn to each other through one futex word for
 *	SECONDS: each waits (FUTEX_WAIT) until the word is its own, sets it
 *	to the other's and wakes it (FUTEX_WAKE); prints "pair TID
 *	PARTNER_TID woken W" per thread, W its waits that slept and were
 *	woken (returned 0): each is one waking by its partner.
 *   kernel_workload spin SECONDS
 *	two threads spin for SECONDS (run it under taskset on one CPU), then
 *	block for good (they stay, for the recording's last /proc sample).
 *
 * Prints "pid P", "mutex 0xADDR" and "ready", then waits for SIGUSR1 (the
 * recording has started), runs, prints "thread TID wait_ns W locks L" per
 * thread, "total_wait_ns W" and "done", and stays until it is killed, so
 * that a recording's window ends by its benchmark, not by the exit.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t the_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned hold_us;
static uint64_t end_ns;
static volatile sig_atomic_t go;

struct worker {
	pthread_t th;
	pid_t tid;
	uint64_t wait_ns, locks;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_us(unsigned us)
{
	struct timespec ts = {.tv_sec = us / 1000000u, .tv_nsec = (long)(us % 1000000u) * 1000};

	nanosleep(&ts, NULL);
}

static void *mutex_worker(void *arg)
{
	struct worker *w = arg;

	w->tid = gettid();
	while (now_ns() < end_ns) {
		uint64_t t0 = now_ns(), t1;

		pthread_mutex_lock(&the_mutex);
		t1 = now_ns();
		w->wait_ns += t1 - t0;
		w->locks++;
		sleep_us(hold_us);
		pthread_mutex_unlock(&the_mutex);
		sleep_us(50);
	}
	return NULL;
}

static void *spin_worker(void *arg)
{
	struct worker *w = arg;
	volatile uint64_t x = 0;

	w->tid = gettid();
	while (now_ns() < end_ns)
		for (int i = 0; i < 10000; i++)
			x++;
	w->locks = x;
	/* Stay, blocked: the recording's last /proc sample still sees the thread. */
	for (;;)
		pause();
	return NULL;
}

static int turn_word; /* pingpong: whose turn, 0 or 1 */
static struct worker *pair;

static void *pingpong_worker(void *arg)
{
	struct worker *w = arg;
	int me = (int)(w - pair);
	bool stop = false;

	w->tid = gettid();
	while (!stop) {
		int t;

		while ((t = __atomic_load_n(&turn_word, __ATOMIC_ACQUIRE)) != me) {
			if (t == 2) /* the other has stopped */
				return NULL;
			if (syscall(SYS_futex, &turn_word, FUTEX_WAIT_PRIVATE, t, NULL, NULL, 0) ==
			    0)
				w->locks++;
		}
		stop = now_ns() >= end_ns;
		__atomic_store_n(&turn_word, stop ? 2 : !me, __ATOMIC_RELEASE);
		syscall(SYS_futex, &turn_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

int main(int argc, char **argv)
{
	bool spin = argc == 3 && strcmp(argv[1], "spin") == 0;
	bool pingpong = argc == 3 && strcmp(argv[1], "pingpong") == 0;
	unsigned n = 2;
	double secs;
	struct worker *w;
	uint64_t total = 0;
	sigset_t none;

	if (!spin && !pingpong && !(argc == 5 && strcmp(argv[1], "mutex") == 0)) {
		fprintf(stderr,
			"usage: kernel_workload mutex N HOLD_US SECONDS | pingpong SECONDS | "
			"spin SECONDS\n");
		return 2;
	}
	if (!spin && !pingpong) {
		n = (unsigned)atoi(argv[2]);
		hold_us = (unsigned)atoi(argv[3]);
	}
	secs = atof(argv[spin || pingpong ? 2 : 4]);
	if (n < 1 || n > 64 || secs <= 0)
		return 2;
	w = calloc(n, sizeof(*w));
	signal(SIGUSR1, on_usr1);
	printf("pid %d\nmutex %p\nready\n", (int)getpid(), (void *)&the_mutex);
	fflush(stdout);
	sigemptyset(&none);
	while (!go)
		sigsuspend(&none);
	end_ns = now_ns() + (uint64_t)(secs * 1e9);
	if (pingpong) {
		pair = w;
		for (unsigned i = 0; i < 2; i++)
			pthread_create(&w[i].th, NULL, pingpong_worker, &w[i]);
		for (unsigned i = 0; i < 2; i++)
			pthread_join(w[i].th, NULL);
		for (unsigned i = 0; i < 2; i++)
			printf("pair %d %d woken %llu\n", (int)w[i].tid, (int)w[!i].tid,
			       (unsigned long long)w[i].locks);
		printf("done\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	for (unsigned i = 0; i < n; i++)
		pthread_create(&w[i].th, NULL, spin ? spin_worker : mutex_worker, &w[i]);
	if (spin) {
		while (now_ns() < end_ns + 50000000u)
			sleep_us(10000);
		for (unsigned i = 0; i < n; i++)
			printf("thread %d\n", (int)w[i].tid);
		printf("done\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	for (unsigned i = 0; i < n; i++) {
		pthread_join(w[i].th, NULL);
		printf("thread %d wait_ns %llu locks %llu\n", (int)w[i].tid,
		       (unsigned long long)w[i].wait_ns, (unsigned long long)w[i].locks);
		total += w[i].wait_ns;
	}
	printf("total_wait_ns %llu\ndone\n", (unsigned long long)total);
	fflush(stdout);
	for (;;)
		pause();
}
