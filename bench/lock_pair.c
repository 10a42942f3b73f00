/*
 * lock_pair: ns per uncontended pthread_mutex_lock + pthread_mutex_unlock
 * pair, for bare glibc, the corecap shim and LTTng-UST's pthread wrapper
 * (no session), side by side in one run. The program re-executes itself
 * once per configuration with LD_PRELOAD set accordingly, alternating the
 * configurations over several rounds, and prints the median of each and
 * its ratio to bare glibc. A benchmark, not a test: it prints figures and
 * exits 0 unless it cannot measure at all.
 *
 * Every configuration is measured with one extra, idle thread in the
 * process. glibc's pthread_mutex_lock skips its atomic instruction while
 * a process has a single thread (__libc_single_threaded); a daemon never
 * does, and neither does any process with the shim or LTTng-UST loaded
 * (their listener threads), so comparing against the single-threaded
 * shortcut would compare two different glibc paths. That shortcut is
 * still printed, for information.
 *
 * usage: lock_pair [-r ROUNDS] [-n PAIRS] [--shim PATH]
 * The budget (DESIGN.md): the shim at most 1.5x bare glibc.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CORECAP_PRELOAD_LIB
#define CORECAP_PRELOAD_LIB "libcorecap-preload.so"
#endif
#define LTTNG_WRAPPER "/usr/lib/x86_64-linux-gnu/liblttng-ust-pthread-wrapper.so"
#define INNER_REPS    25

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void *idle_thread(void *unused)
{
	for (;;)
		pause();
	return unused;
}

/* The measurement, in the re-executed child: median of INNER_REPS runs. */
static int child(long pairs, int threaded)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	double reps[INNER_REPS];
	pthread_t t;

	if (threaded && pthread_create(&t, NULL, idle_thread, NULL) != 0)
		return 1;

	for (long i = 0; i < pairs / 10; i++) { /* warm caches and lazy binding */
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
	}
	for (int r = 0; r < INNER_REPS; r++) {
		double t0 = now_ns();

		for (long i = 0; i < pairs; i++) {
			pthread_mutex_lock(&m);
			pthread_mutex_unlock(&m);
		}
		reps[r] = (now_ns() - t0) / (double)pairs;
	}
	printf("%.3f\n", median(reps, INNER_REPS));
	return 0;
}

/* Runs one configuration; returns ns per pair, or a negative value. */
static double run(const char *self, const char *preload, long pairs, int threaded)
{
	char arg[32];
	char buf[64] = "";
	int pfd[2], status;
	ssize_t n;
	pid_t pid;

	snprintf(arg, sizeof(arg), "%ld", pairs);
	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		if (preload)
			setenv("LD_PRELOAD", preload, 1);
		else
			unsetenv("LD_PRELOAD");
		setenv("CORECAP_DUMP", "off", 1);
		execl(self, self, threaded ? "--child" : "--child-single", arg, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	n = read(pfd[0], buf, sizeof(buf) - 1);
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return strtod(buf, NULL);
}

int main(int argc, char **argv)
{
	const char *shim =
		getenv("CORECAP_PRELOAD_LIB") ? getenv("CORECAP_PRELOAD_LIB") : CORECAP_PRELOAD_LIB;
	const char *names[4] = {"glibc", "corecap shim", "lttng-ust pthread wrapper",
				"glibc single-threaded"};
	const char *libs[4];
	double v[4][64];
	int rounds = 3, have_lttng;
	long pairs = 400000;

	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child(atol(argv[2]), 1);
	if (argc == 3 && strcmp(argv[1], "--child-single") == 0)
		return child(atol(argv[2]), 0);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			pairs = atol(argv[++i]);
		else if (strcmp(argv[i], "--shim") == 0 && i + 1 < argc)
			shim = argv[++i];
		else {
			fprintf(stderr, "usage: lock_pair [-r ROUNDS] [-n PAIRS] [--shim PATH]\n");
			return 2;
		}
	}
	if (rounds < 1 || rounds > 64 || pairs < 1000) {
		fprintf(stderr, "lock_pair: ROUNDS must be 1-64 and PAIRS at least 1000\n");
		return 2;
	}
	if (access(shim, R_OK) != 0) {
		fprintf(stderr, "lock_pair: cannot read the shim '%s': %s\n", shim,
			strerror(errno));
		return 1;
	}
	have_lttng = access(LTTNG_WRAPPER, R_OK) == 0;
	libs[0] = NULL;
	libs[1] = shim;
	libs[2] = LTTNG_WRAPPER;
	libs[3] = NULL;
	printf("lock_pair: %ld uncontended lock+unlock pairs x %d, median of each child; "
	       "%d alternating rounds; one idle extra thread in every process; thread CPU time\n",
	       pairs, INNER_REPS, rounds);
	for (int r = 0; r < rounds; r++) {
		for (int c = 0; c < 4; c++) {
			if (c == 2 && !have_lttng)
				continue;
			v[c][r] = run("/proc/self/exe", libs[c], pairs, c != 3);
			if (v[c][r] < 0) {
				fprintf(stderr, "lock_pair: the %s run failed\n", names[c]);
				return 1;
			}
			printf("  round %d  %-26s %7.2f ns/pair\n", r + 1, names[c], v[c][r]);
		}
	}
	{
		double base = median(v[0], rounds);

		printf("median: %-26s %7.2f ns/pair\n", names[0], base);
		for (int c = 1; c < 4; c++) {
			double m;

			if (c == 2 && !have_lttng) {
				printf("median: %-26s (not installed: %s)\n", names[c],
				       LTTNG_WRAPPER);
				continue;
			}
			m = median(v[c], rounds);
			printf("median: %-26s %7.2f ns/pair  ratio %.2fx%s\n", names[c], m,
			       m / base,
			       c == 1	? (m / base <= 1.5 ? "  (budget 1.5x: met)"
							   : "  (budget 1.5x: NOT met)")
			       : c == 3 ? "  (no atomic: not a daemon's case)"
					: "");
		}
	}
	return 0;
}
