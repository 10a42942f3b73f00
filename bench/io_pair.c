/*
 * io_pair: ns per request and reply over a UNIX socket pair, in one
 * thread (no wake-up, no context switch: the calls' own cost and the
 * shim's around them): write a byte on one end, read it on the other,
 * write it back, read it again; four socket calls and, under the shim,
 * two replies counted (each end writes after it read). Bare glibc and
 * one or two shims (--shim PATH, twice to set two side by side: the
 * reply counter's cost is the second over the first when the first is a
 * shim built without it), alternating over rounds; the program re-runs
 * itself with LD_PRELOAD per configuration. Prints each configuration's
 * median ns per round trip, and for each shim the median of its per-round
 * ratio to bare glibc (and of the second to the first) with a
 * distribution-free 95% interval of that median (order statistics).
 * A benchmark, not a test: it exits 0 unless it cannot measure at all.
 *
 * Times are the thread's CPU time (the calls run in the kernel on it).
 *
 * usage: io_pair [-r ROUNDS] [-n TRIPS] [--shim PATH [--shim PATH]]
 * Pin it (taskset -c 1) on a shared machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_stats.h"

#ifndef CORECAP_PRELOAD_LIB
#define CORECAP_PRELOAD_LIB "libcorecap-preload.so"
#endif
#define MAX_CONF   3
#define MAX_ROUNDS 101

/* The child: n round trips, ns per trip on stdout. */
static int measure(long n)
{
	int sv[2];
	char c = 'x';
	double t0;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
		perror("io_pair: socketpair");
		return 1;
	}
	for (int warm = 0; warm < 2; warm++) {
		long reps = warm ? n : n / 10;

		t0 = bench_cpu_ns();
		for (long i = 0; i < reps; i++) {
			if (write(sv[0], &c, 1) != 1 || read(sv[1], &c, 1) != 1 ||
			    write(sv[1], &c, 1) != 1 || read(sv[0], &c, 1) != 1) {
				perror("io_pair: a socket call");
				return 1;
			}
		}
	}
	printf("%.3f\n", (bench_cpu_ns() - t0) / (double)n);
	return 0;
}

/* One configuration's run: the child's ns per trip, or a negative value. */
static double run_one(const char *self, const char *preload, long n)
{
	char cmd[4096], out[64] = "";
	FILE *p;

	/* The shim's summary at exit goes to stderr: not the benchmark's. */
	snprintf(cmd, sizeof(cmd), "env %s%s '%s' --child %ld 2>/dev/null",
		 preload ? "LD_PRELOAD=" : "", preload ? preload : "", self, n);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (!fgets(out, sizeof(out), p))
		out[0] = '\0';
	if (pclose(p) != 0 || !out[0])
		return -1;
	return atof(out);
}

/* A 95% interval of the median of v[0..n) (which it sorts): [*lo, *hi]. */
static void median_interval(double *v, int n, double *lo, double *hi)
{
	int k = bench_median_k(n);

	bench_median(v, n);
	*lo = v[k - 1];
	*hi = v[n - k];
}

int main(int argc, char **argv)
{
	const char *conf[MAX_CONF] = {NULL};
	static double ns[MAX_CONF][MAX_ROUNDS], ratio[MAX_CONF][MAX_ROUNDS];
	int rounds = 11, nconf = 1;
	long trips = 200000;

	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return measure(atol(argv[2]));
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			trips = atol(argv[++i]);
		else if (strcmp(argv[i], "--shim") == 0 && i + 1 < argc && nconf < MAX_CONF)
			conf[nconf++] = argv[++i];
		else {
			fprintf(stderr, "usage: io_pair [-r ROUNDS] [-n TRIPS] [--shim PATH "
					"[--shim PATH]]\n");
			return 2;
		}
	}
	if (nconf == 1)
		conf[nconf++] = CORECAP_PRELOAD_LIB;
	if (rounds < 6 || rounds > MAX_ROUNDS || trips < 1000) {
		fprintf(stderr, "io_pair: -r takes 6-%d, -n at least 1000\n", MAX_ROUNDS);
		return 2;
	}
	for (int r = 0; r < rounds; r++) {
		/* Alternate the order: even rounds forward, odd ones backward. */
		for (int j = 0; j < nconf; j++) {
			int c = r % 2 ? nconf - 1 - j : j;

			ns[c][r] = run_one(argv[0], conf[c], trips);
			if (ns[c][r] <= 0) {
				fprintf(stderr, "io_pair: the run with %s failed\n",
					conf[c] ? conf[c] : "bare glibc");
				return 1;
			}
		}
		for (int c = 1; c < nconf; c++)
			ratio[c][r] = ns[c][r] / ns[0][r];
		if (nconf == 3)
			ratio[0][r] = ns[2][r] / ns[1][r];
	}
	printf("%d rounds of %ld round trips (4 socket calls, 2 replies each)\n", rounds, trips);
	for (int c = 0; c < nconf; c++) {
		double v[MAX_ROUNDS];

		memcpy(v, ns[c], sizeof(double) * (size_t)rounds);
		printf("%-12s %9.1f ns per round trip (median)  %s\n", c ? "shim" : "bare glibc",
		       bench_median(v, rounds), c ? conf[c] : "");
	}
	for (int c = 1; c < nconf + (nconf == 3); c++) {
		int which = c < nconf ? c : 0;
		double lo, hi, m;

		m = bench_median(ratio[which], rounds);
		median_interval(ratio[which], rounds, &lo, &hi);
		printf("%-24s %.4fx  [%.4f, %.4f] (95%% interval of the median)\n",
		       which ? (which == 1 ? "shim 1 / bare" : "shim 2 / bare") : "shim 2 / shim 1",
		       m, lo, hi);
	}
	return 0;
}
