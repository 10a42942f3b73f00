/*
 * thread_churn: rounds of threads that take one mutex together (so that,
 * in a tracing session, each emits events and LTTng-UST registers it with
 * its RCU registry), then leave together: their thread-exit destructors
 * then contend on LTTng-UST's registry lock from the daemon's threads.
 * A shim that traces that contention re-enters LTTng-UST under the lock
 * and deadlocks; this program must simply finish.
 *
 * usage: thread_churn ROUNDS THREADS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start, leave;
static volatile long sink;

static void *worker(void *unused)
{
	pthread_barrier_wait(&start);
	for (int i = 0; i < 50; i++) {
		pthread_mutex_lock(&m);
		for (int k = 0; k < 1000; k++)
			sink += k;
		pthread_mutex_unlock(&m);
	}
	pthread_barrier_wait(&leave);
	return unused;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20, threads = argc > 2 ? atoi(argv[2]) : 8;
	pthread_t t[64];

	if (rounds < 1 || threads < 1 || threads > 64)
		return 2;
	for (int r = 0; r < rounds; r++) {
		pthread_barrier_init(&start, NULL, (unsigned)threads);
		pthread_barrier_init(&leave, NULL, (unsigned)threads);
		for (int i = 0; i < threads; i++)
			pthread_create(&t[i], NULL, worker, NULL);
		for (int i = 0; i < threads; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&start);
		pthread_barrier_destroy(&leave);
	}
	printf("thread_churn: done\n");
	return 0;
}
