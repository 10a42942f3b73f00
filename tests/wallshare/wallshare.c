/*
 * wallshare: threads that spend known shares of any window on a CPU,
 * runnable and blocked, for the wall-clock samplers' accuracy test
 * (tests/e2e/wall_share.sh).
 *
 *   wallshare PAIR_CPU OTHER_CPU
 *
 * Threads (by name) and their shares of the window:
 * - ws-spin-a, ws-spin-b: pinned together to PAIR_CPU, spinning all the
 *   time: each about 50% on that CPU and 50% runnable, 100% in
 *   spin_until;
 * - ws-duty, pinned to OTHER_CPU: cycles of a random length (20-60 ms, so
 *   that no sampling rate locks onto them), each 25% in spin_until, 25% in
 *   sleep_until (clock_nanosleep), 50% in futex_wait_until (a futex wait
 *   nobody ends, timed out at the cycle's end); it wakes ws-waiter at each
 *   cycle's start;
 * - ws-waiter, pinned to OTHER_CPU: 100% in futex_wait_woken (woken
 *   once a cycle, it runs a few microseconds and waits again; blocked,
 *   but for the few milliseconds it may wait after each wake-up for
 *   ws-duty to leave the CPU, still in the futex call);
 * - the main thread (wallshare), pinned to OTHER_CPU: 100% in
 *   main_wait (sigwait) until SIGTERM or SIGINT.
 *
 * Every phase ends at an absolute time (CLOCK_MONOTONIC), so a stop by a
 * sampler or a wait for a CPU does not lengthen it: the shares hold
 * whatever the samplers do. Prints "pid N" and "ready" when its threads
 * run.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static atomic_uint duty_word;	/* nobody changes it: ws-duty's timed waits */
static atomic_uint waiter_word; /* ws-duty bumps it once a cycle */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct timespec ts_of(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};

	return ts;
}

/* Runs until the time `end` (on a CPU, or runnable waiting for one). */
static NOINLINE void spin_until(uint64_t end)
{
	while (now_ns() < end)
		__asm__ volatile("" ::: "memory");
}

/* Blocked in clock_nanosleep until `end`. */
static NOINLINE void sleep_until(uint64_t end)
{
	struct timespec ts = ts_of(end);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	__asm__ volatile("" ::: "memory");
}

/* Blocked in a futex wait that nobody ends, timed out at `end`. */
static NOINLINE void futex_wait_until(uint64_t end)
{
	struct timespec ts = ts_of(end);

	while (now_ns() < end)
		syscall(SYS_futex, &duty_word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 0, &ts, NULL,
			FUTEX_BITSET_MATCH_ANY);
	__asm__ volatile("" ::: "memory");
}

/* Blocked in a futex wait until the word moves on from `seen`. */
static NOINLINE void futex_wait_woken(unsigned seen)
{
	while (atomic_load(&waiter_word) == seen)
		syscall(SYS_futex, &waiter_word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, seen, NULL, NULL,
			0);
	__asm__ volatile("" ::: "memory");
}

static NOINLINE int main_wait(const sigset_t *set)
{
	int sig = 0;

	while (sigwait(set, &sig) != 0)
		;
	__asm__ volatile("" ::: "memory");
	return sig;
}

static int pin(pthread_t t, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(t, sizeof(set), &set);
}

static void *spin_main(void *arg)
{
	(void)arg;
	for (;;)
		spin_until(now_ns() + 100000000ull);
	return NULL;
}

static void *duty_main(void *arg)
{
	uint64_t x = 0x9e3779b97f4a7c15ull, t = now_ns();

	(void)arg;
	for (;;) {
		uint64_t len;

		/* xorshift64: cycle lengths 20-60 ms, uniform to 1 us. */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		len = 20000000ull + (x % 40000) * 1000ull;
		atomic_fetch_add(&waiter_word, 1);
		syscall(SYS_futex, &waiter_word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
		spin_until(t + len / 4);
		sleep_until(t + len / 2);
		futex_wait_until(t + len);
		t += len;
	}
	return NULL;
}

static void *waiter_main(void *arg)
{
	(void)arg;
	for (;;)
		futex_wait_woken(atomic_load(&waiter_word));
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void *(*fn)(void *);
		int pair;
	} threads[] = {
		{"ws-spin-a", spin_main, 1},
		{"ws-spin-b", spin_main, 1},
		{"ws-duty", duty_main, 0},
		{"ws-waiter", waiter_main, 0},
	};
	int pair_cpu, other_cpu, sig;
	sigset_t set;

	if (argc != 3) {
		fprintf(stderr, "usage: wallshare PAIR_CPU OTHER_CPU\n");
		return 2;
	}
	pair_cpu = atoi(argv[1]);
	other_cpu = atoi(argv[2]);
	/* Blocked in every thread: only main_wait takes them. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pin(pthread_self(), other_cpu) != 0) {
		fprintf(stderr, "wallshare: cannot pin to CPU %d\n", other_cpu);
		return 1;
	}
	for (size_t i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
		pthread_t t;
		int cpu = threads[i].pair ? pair_cpu : other_cpu;

		if (pthread_create(&t, NULL, threads[i].fn, NULL) != 0) {
			fprintf(stderr, "wallshare: cannot start thread '%s'\n", threads[i].name);
			return 1;
		}
		pthread_setname_np(t, threads[i].name);
		if (pin(t, cpu) != 0) {
			fprintf(stderr, "wallshare: cannot pin '%s' to CPU %d\n", threads[i].name,
				cpu);
			return 1;
		}
	}
	printf("pid %d\nready\n", (int)getpid());
	fflush(stdout);
	sig = main_wait(&set);
	printf("signal %d\n", sig);
	return 0;
}
