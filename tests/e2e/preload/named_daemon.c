/*
 * named_daemon: a daemon that names its threads the ways Ceph does:
 * each worker names itself with pthread_setname_np ("tp_osd_tp-N"), the
 * main thread names one thread from outside ("msgr-worker-0"), and one
 * thread uses prctl(PR_SET_NAME) ("finisher"). It prints "ready" when
 * all are named, then on each SIGUSR1 makes every thread write a byte to
 * /dev/null (a slow path of the shim, where it notices a tracing session
 * that started meanwhile), and exits on SIGTERM.
 */
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define WORKERS 3

static sem_t named, poke[WORKERS + 2];
static int devnull;

static void *worker(void *p)
{
	int id = (int)(intptr_t)p;
	char name[16];

	if (id < WORKERS) {
		snprintf(name, sizeof(name), "tp_osd_tp-%d", id % 10);
		pthread_setname_np(pthread_self(), name);
	} else if (id == WORKERS + 1) {
		prctl(PR_SET_NAME, "finisher", 0, 0, 0);
	} /* id == WORKERS is named by main */
	sem_post(&named);
	for (;;) {
		sem_wait(&poke[id]);
		if (write(devnull, "x", 1) != 1)
			return NULL;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[WORKERS + 2];
	sigset_t s;
	int sig;

	sigemptyset(&s);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	devnull = open("/dev/null", O_WRONLY);
	sem_init(&named, 0, 0);
	for (int i = 0; i < WORKERS + 2; i++) {
		sem_init(&poke[i], 0, 0);
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	}
	pthread_setname_np(t[WORKERS], "msgr-worker-0");
	for (int i = 0; i < WORKERS + 2; i++)
		sem_wait(&named);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		sigwait(&s, &sig);
		if (sig == SIGTERM)
			break;
		for (int i = 0; i < WORKERS + 2; i++)
			sem_post(&poke[i]);
	}
	return 0;
}
