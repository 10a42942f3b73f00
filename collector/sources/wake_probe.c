#include "wake_probe.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/mono_clock.h"

#define ROUNDS	  300
#define GAP_NS	  50000 /* both threads asleep between round trips */
#define BALL_HOME 0
#define BALL_AWAY 1

struct probe {
	int ball; /* BALL_HOME: the prober's turn; BALL_AWAY: the peer's */
	int cpus[2];
	int rounds;
	bool peer_unpinned; /* the peer could not be pinned: no figure */
};

static long futex(int *addr, int op, int val)
{
	return syscall(SYS_futex, addr, op, val, NULL, NULL, 0);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* Waits until the ball is `want`, then throws it back. */
static void catch_and_throw(struct probe *p, int want, int back)
{
	while (__atomic_load_n(&p->ball, __ATOMIC_ACQUIRE) != want)
		futex(&p->ball, FUTEX_WAIT_PRIVATE, !want);
	__atomic_store_n(&p->ball, back, __ATOMIC_RELEASE);
	futex(&p->ball, FUTEX_WAKE_PRIVATE, 1);
}

static void *peer(void *arg)
{
	struct probe *p = arg;

	/* Unpinned, it still plays every round: the prober waits for it. */
	p->peer_unpinned = pin(p->cpus[1]) != 0;
	for (int i = 0; i < p->rounds; i++)
		catch_and_throw(p, BALL_AWAY, BALL_HOME);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

double corecap_wake_probe_ns(void)
{
	struct probe p = {.ball = BALL_HOME, .rounds = ROUNDS};
	uint64_t rt[ROUNDS];
	cpu_set_t mine, old;
	pthread_t th;
	int n = 0;

	if (sched_getaffinity(0, sizeof(mine), &mine) != 0)
		return -1;
	old = mine;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &mine))
			p.cpus[n++] = c;
	if (n < 2 || pin(p.cpus[0]) != 0)
		return -1;
	if (pthread_create(&th, NULL, peer, &p) != 0) {
		pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
		return -1;
	}
	for (int i = 0; i < ROUNDS; i++) {
		struct timespec gap = {0, GAP_NS};
		uint64_t t0 = corecap_now_ns();

		__atomic_store_n(&p.ball, BALL_AWAY, __ATOMIC_RELEASE);
		futex(&p.ball, FUTEX_WAKE_PRIVATE, 1);
		while (__atomic_load_n(&p.ball, __ATOMIC_ACQUIRE) != BALL_HOME)
			futex(&p.ball, FUTEX_WAIT_PRIVATE, BALL_AWAY);
		rt[i] = corecap_now_ns() - t0;
		nanosleep(&gap, NULL);
	}
	pthread_join(th, NULL);
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	if (p.peer_unpinned)
		return -1;
	qsort(rt, ROUNDS, sizeof(rt[0]), cmp_u64);
	return (double)rt[ROUNDS / 2] / 2;
}
