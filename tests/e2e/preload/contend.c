/*
 * contend: a small known workload for the shim's end-to-end tests.
 * THREADS threads take one mutex ITERS times each (at the exported site
 * contend_lock_site) and hold it HOLD_US microseconds; each iteration
 * also mallocs and frees (so an allocator such as tcmalloc is exercised
 * from every thread), and with --log FILE writes one line to FILE.
 * With one thread the main thread does the work itself: nothing can be
 * contended. Prints "contend: done" and, when
 * the shim is loaded, what its live counters say about the mutex.
 *
 * usage: contend THREADS ITERS HOLD_US [--log FILE] [--wait-sigterm]
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stats_probe.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int threads, iters, hold_us, log_fd = -1, finished;

static void busy_us(int us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

__attribute__((noinline)) int contend_lock_site(pthread_mutex_t *l)
{
	int r = pthread_mutex_lock(l);

	__asm__ volatile("" : "+r"(r)); /* no tail call: the site stays here */
	return r;
}

static void *worker(void *p)
{
	char line[64];

	for (int i = 0; i < iters; i++) {
		void *mem = malloc(64 + (size_t)(i % 512));
		int n;

		if (!mem)
			abort();
		memset(mem, i, 64);
		contend_lock_site(&m);
		busy_us(hold_us);
		pthread_mutex_unlock(&m);
		free(mem);
		if (log_fd >= 0) {
			n = snprintf(line, sizeof(line), "worker %ld iteration %d\n",
				     (long)(intptr_t)p, i);
			if (write(log_fd, line, (size_t)n) != n)
				abort();
		}
	}
	pthread_mutex_lock(&m);
	finished++;
	pthread_cond_broadcast(&done_cond);
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(int argc, char **argv)
{
	bool wait_sigterm = false;
	pthread_t t[64];

	if (argc < 4) {
		fprintf(stderr,
			"usage: contend THREADS ITERS HOLD_US [--log FILE] [--wait-sigterm]\n");
		return 2;
	}
	threads = atoi(argv[1]);
	iters = atoi(argv[2]);
	hold_us = atoi(argv[3]);
	if (threads < 1 || threads > 64)
		return 2;
	for (int i = 4; i < argc; i++) {
		if (strcmp(argv[i], "--log") == 0 && i + 1 < argc) {
			log_fd = open(argv[++i], O_WRONLY | O_CREAT | O_APPEND, 0644);
			if (log_fd < 0) {
				perror("contend: open");
				return 1;
			}
		} else if (strcmp(argv[i], "--wait-sigterm") == 0) {
			wait_sigterm = true;
		}
	}
	if (threads == 1) {
		worker(NULL);
	} else {
		for (int i = 0; i < threads; i++)
			pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
		/* Main waits on a condition variable: cond waits for the trace. */
		pthread_mutex_lock(&m);
		while (finished < threads)
			pthread_cond_wait(&done_cond, &m);
		pthread_mutex_unlock(&m);
		for (int i = 0; i < threads; i++)
			pthread_join(t[i], NULL);
	}
	printf("contend: done\n");
	if (probe_shim_loaded() && probe_stats()) {
		const struct corecap_stats_lock *l = probe_lock(probe_stats(), &m);
		const struct corecap_stats_site *site =
			probe_site_in(probe_stats(), "contend_lock_site", CORECAP_KIND_MUTEX);
		const struct corecap_stats_thread *self = probe_self();

		printf("contend: shim lock contentions=%llu wait_ns=%llu holds=%llu hold_ns=%llu "
		       "cond_waits=%llu\n",
		       l ? (unsigned long long)l->contentions : 0ULL,
		       l ? (unsigned long long)l->wait_ns : 0ULL,
		       l ? (unsigned long long)l->holds : 0ULL,
		       l ? (unsigned long long)l->hold_ns : 0ULL,
		       self ? (unsigned long long)self->c.cond_waits : 0ULL);
		printf("contend: shim site holds=%llu hold_ns=%llu\n",
		       site ? (unsigned long long)site->holds : 0ULL,
		       site ? (unsigned long long)site->hold_ns : 0ULL);
	}
	fflush(stdout);
	if (wait_sigterm) {
		sigset_t s;
		int sig;

		sigemptyset(&s);
		sigaddset(&s, SIGTERM);
		pthread_sigmask(SIG_BLOCK, &s, NULL);
		sigwait(&s, &sig);
	}
	return 0;
}
