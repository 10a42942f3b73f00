/*
 * A daemon that re-executes itself in place, for e2e.security_profile_exec.
 *
 * usage: security_profile_reexec DIR [GENERATION] | --exit
 * --exit only exits (normally: the shim's exit dump runs), for
 * e2e.security_profile_dump.
 * Generation 0 prints "ready PID", then sleeps in poll() (where corecap's
 * profiler toggle may be taken) until DIR/go exists, burns 50 ms of CPU
 * and execs /proc/self/exe DIR 1. Generation 1 burns 300 ms of CPU, ten
 * and more periods of gperftools' ITIMER_PROF (a timer left armed across
 * the exec would kill it with SIGPROF), creates DIR/survived and sleeps
 * in poll() until it is killed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void burn(double s)
{
	volatile unsigned long x = 0;
	double end = cpu_s() + s;

	while (cpu_s() < end)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i * 7;
}

int main(int argc, char **argv)
{
	char path[4096];
	int gen = argc > 2 ? atoi(argv[2]) : 0;

	if (argc == 2 && strcmp(argv[1], "--exit") == 0)
		return 0;
	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR [GENERATION]\n", argv[0]);
		return 2;
	}
	if (gen == 0) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		snprintf(path, sizeof(path), "%s/go", argv[1]);
		while (access(path, F_OK) < 0)
			poll(NULL, 0, 20);
		burn(0.05);
		execl("/proc/self/exe", argv[0], argv[1], "1", (char *)NULL);
		fprintf(stderr, "cannot exec /proc/self/exe: %s\n", strerror(errno));
		return 1;
	}
	burn(0.3);
	snprintf(path, sizeof(path), "%s/survived", argv[1]);
	close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	for (;;)
		poll(NULL, 0, 1000);
}
