/*
 * vdso_spin: a program whose one worker thread spends its time in the
 * vDSO (clock_gettime and gettimeofday, which glibc answers there without
 * a system call), for e2e.format_vdso. Prints "pid N" and "ready", then
 * spins until killed.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static void *spin(void *arg)
{
	(void)arg;
	for (;;) {
		struct timespec ts;
		struct timeval tv;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		gettimeofday(&tv, NULL);
		sink += (uint64_t)ts.tv_nsec + (uint64_t)tv.tv_usec;
	}
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, spin, NULL) != 0) {
		perror("vdso_spin: pthread_create");
		return 1;
	}
	printf("pid %d\nready\n", (int)getpid());
	fflush(stdout);
	pause();
	return 0;
}
