/*
 * futex_loop: a workload whose every iteration hits the kernel source's
 * tracepoints a known way, for bench/kernel_record_cost.sh. It runs for
 * SECONDS and prints, every 100 ms, the CLOCK_MONOTONIC time (ns), the
 * iterations so far and the process' CPU time so far (ns), one line each,
 * so that the script can take the CPU per iteration over any span.
 *
 *   wake      FUTEX_WAKE of a private word nobody waits on: one
 *             sys_enter_futex and one sys_exit_futex per iteration, no
 *             switch;
 *   pingpong  two threads pinned to one CPU hand a token back and forth
 *             through a futex: per iteration (one round trip) two
 *             switches, two wakings and four futex calls;
 *   pingpong2 the same with the threads pinned to CPUs 0 and 1: each
 *             hand-over wakes a thread on the other CPU, so the
 *             scheduler's hooks run on both CPUs in turn (and each sleep
 *             and waking switches to and from the idle task).
 *
 * usage: futex_loop wake|pingpong|pingpong2 SECONDS
 */
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static _Atomic int turn; /* 1: the partner's move, 0: main's */

static long futex(_Atomic int *w, int op, int v)
{
	return syscall(SYS_futex, (int *)w, op, v, NULL, NULL, 0);
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) < 0)
		perror("futex_loop: sched_setaffinity");
}

/* arg: the CPU to move to, or NULL to stay on main's. */
static void *partner(void *arg)
{
	if (arg)
		pin(*(const int *)arg);
	for (;;) {
		while (atomic_load(&turn) != 1)
			futex(&turn, FUTEX_WAIT_PRIVATE, 0);
		atomic_store(&turn, 0);
		futex(&turn, FUTEX_WAKE_PRIVATE, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const int second_cpu = 1;
	_Atomic int word = 0;
	bool pingpong, two_cpus;
	double secs;
	uint64_t end, next, n = 0;
	pthread_t t;

	if (argc != 3 ||
	    (strcmp(argv[1], "wake") && strcmp(argv[1], "pingpong") &&
	     strcmp(argv[1], "pingpong2")) ||
	    (secs = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: futex_loop wake|pingpong|pingpong2 SECONDS\n");
		return 2;
	}
	two_cpus = !strcmp(argv[1], "pingpong2");
	pingpong = two_cpus || !strcmp(argv[1], "pingpong");
	/* One CPU: the ping-pong then switches on every hand-over. With
	 * two, the partner moves itself to CPU 1 (it inherits CPU 0). */
	pin(0);
	if (pingpong && pthread_create(&t, NULL, partner, two_cpus ? (void *)&second_cpu : NULL)) {
		fprintf(stderr, "futex_loop: cannot start a thread\n");
		return 1;
	}
	next = now_ns(CLOCK_MONOTONIC);
	end = next + (uint64_t)(secs * 1e9);
	for (;;) {
		uint64_t t_ns = now_ns(CLOCK_MONOTONIC);

		if (t_ns >= next) {
			printf("%llu %llu %llu\n", (unsigned long long)t_ns, (unsigned long long)n,
			       (unsigned long long)now_ns(CLOCK_PROCESS_CPUTIME_ID));
			fflush(stdout);
			next += 100000000ull;
		}
		if (t_ns >= end)
			break;
		for (int i = 0; i < 256; i++, n++) {
			if (!pingpong) {
				futex(&word, FUTEX_WAKE_PRIVATE, 1);
				continue;
			}
			atomic_store(&turn, 1);
			futex(&turn, FUTEX_WAKE_PRIVATE, 1);
			while (atomic_load(&turn) != 0)
				futex(&turn, FUTEX_WAIT_PRIVATE, 1);
		}
	}
	return 0;
}
