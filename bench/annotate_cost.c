/*
 * annotate_cost: what one corecap/annotate.h annotation costs, in ns, in
 * the three situations a daemon meets:
 *   unloaded  - the probes (libcorecap-tp.so) are not in the process;
 *   idle      - the probes are loaded but no session enables the events;
 *   tracing   - an LTTng session records corecap_op events.
 * Each is compared against an empty loop measured in the same run, over
 * several alternating repetitions, and the medians are printed. This is a
 * benchmark, not a test: it prints figures and exits 0 unless it cannot
 * measure at all.
 */
#define CORECAP_ANNOTATE_DEFINE
#include <corecap/annotate.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REPS  7
#define ITERS 200000 /* annotations per repetition: ~10 MB of events when tracing */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The baseline: the same loop shape without an annotation. */
static double loop_empty(void)
{
	double t0 = now_ns();

	for (uint64_t i = 0; i < ITERS; i++)
		__asm__ volatile("" : : "r"(i) : "memory");
	return (now_ns() - t0) / ITERS;
}

/* One annotation per iteration, alternating the two cheapest kinds. */
static double loop_annotated(void)
{
	double t0 = now_ns();

	for (uint64_t i = 0; i < ITERS; i++) {
		__asm__ volatile("" : : "r"(i) : "memory");
		if (i & 1)
			corecap_op_exit(i);
		else
			corecap_op_enter(i);
	}
	return (now_ns() - t0) / ITERS;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* Alternates baseline and annotated loops; returns the medians. */
static void measure(const char *label, double *empty_ns, double *ann_ns)
{
	double e[REPS], a[REPS];

	for (int r = 0; r < REPS; r++) {
		e[r] = loop_empty();
		a[r] = loop_annotated();
	}
	*empty_ns = median(e, REPS);
	*ann_ns = median(a, REPS);
	printf("%-9s  %8.2f ns/annotation  (loop alone %.2f ns, annotation adds %.2f ns)\n",
	       label, *ann_ns, *empty_ns, *ann_ns - *empty_ns);
}

static int run(const char *cmd)
{
	int rc = system(cmd);

	if (rc != 0)
		fprintf(stderr, "annotate_cost: '%s' failed (status %d)\n", cmd, rc);
	return rc == 0 ? 0 : -1;
}

static int wait_enabled(int want)
{
	for (int i = 0; i < 500; i++) {
		if (!!lttng_ust_tracepoint_enabled(corecap_op, enter) == want)
			return 0;
		usleep(10000);
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *tp_lib = argc > 1 ? argv[1] : CORECAP_TP_LIB;
	char dir[] = "/tmp/corecap-annotate-bench.XXXXXX";
	char cmd[1024], session[64];
	double e_unl, a_unl, e_idle, a_idle, e_tr, a_tr;
	int rc = 1;

	measure("unloaded", &e_unl, &a_unl);

	if (!dlopen(tp_lib, RTLD_NOW | RTLD_GLOBAL)) {
		fprintf(stderr, "annotate_cost: cannot load probes '%s': %s\n", tp_lib, dlerror());
		return 1;
	}
	measure("idle", &e_idle, &a_idle);

	if (!mkdtemp(dir)) {
		fprintf(stderr, "annotate_cost: cannot create '%s': %s\n", dir, strerror(errno));
		return 1;
	}
	snprintf(session, sizeof(session), "corecap-annbench-%d", (int)getpid());
	snprintf(cmd, sizeof(cmd),
		 "lttng -q create %s --output=%s/trace && "
		 "lttng -q enable-channel -u -s %s --subbuf-size=4M --num-subbuf=8 ch && "
		 "lttng -q enable-event -u -s %s -c ch 'corecap_op:*' && "
		 "lttng -q add-context -u -s %s -c ch -t vtid && lttng -q start %s",
		 session, dir, session, session, session, session);
	if (run(cmd) < 0 || wait_enabled(1) < 0) {
		fprintf(stderr, "annotate_cost: no LTTng session could be started "
				"(is lttng-sessiond running? scripts/sessiond-start)\n");
		goto out_destroy;
	}
	measure("tracing", &e_tr, &a_tr);
	rc = 0;

	printf("\nannotation cost over the bare loop: unloaded %.2f ns, idle %.2f ns, tracing %.2f ns\n",
	       a_unl - e_unl, a_idle - e_idle, a_tr - e_tr);
	printf("ratio tracing/idle per annotated iteration: %.1fx\n", a_tr / a_idle);

out_destroy:
	snprintf(cmd, sizeof(cmd), "lttng -q destroy %s >/dev/null 2>&1; rm -rf %s", session, dir);
	if (system(cmd) != 0)
		fprintf(stderr, "annotate_cost: cleanup of '%s' failed\n", dir);
	return rc;
}
