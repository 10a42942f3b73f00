/*
 * report_bench: what `corecap report` costs against reading the same
 * trace with babeltrace2's dummy sink (`babeltrace2 TRACE -c
 * sink.utils.dummy`, the floor for any libbabeltrace2 reader), on traces
 * of growing size made by corecap_tracegen --fast in a blocking LTTng
 * session (no event discarded). For each size it runs both, alternating,
 * REPS times, and prints the medians of wall time, CPU time (user + sys)
 * and peak RSS, all from wait4's rusage, and the ratios. The targets:
 * report <= 1.1x the dummy read in CPU (the first version's bar was 1.3x),
 * run pinned to one CPU (taskset -c 0: this VM's vCPUs differ), and RSS flat as the trace
 * grows (memory bounded by threads + locks + ops in flight).
 *
 * usage: corecap_report_bench [OPS_PER_THREAD...]   (default 8000 32000 65000,
 *        about 0.26, 1 and 2.1 million events; needs an LTTng session daemon)
 * A benchmark, not a test: it prints figures and exits 0 unless it cannot
 * measure at all.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REPS 3

struct sample {
	double wall_s, cpu_s;
	long maxrss_kb;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs argv with stdout to /dev/null; fills *s from wait4. -1 if it failed. */
static int measure(char *const argv[], struct sample *s)
{
	struct rusage ru;
	double t0 = now_s();
	int status, fd;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		execvp(argv[0], argv);
		fprintf(stderr, "report_bench: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return -1;
	s->wall_s = now_s() - t0;
	s->cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		   (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	s->maxrss_kb = ru.ru_maxrss;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "report_bench: '%s' failed (status %d)\n", argv[0], status);
		return -1;
	}
	return 0;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	r = system(cmd);
	if (r != 0)
		fprintf(stderr, "report_bench: failed: %s\n", cmd);
	return r;
}

/*
 * A run directory (trace only: a partial run) of tracegen --fast's events.
 * The filter keeps the events of tracegen's threads only: on a shared
 * machine other annotated processes would swell the trace unevenly.
 */
static int make_trace(const char *run, unsigned long ops)
{
	char session[64];

	snprintf(session, sizeof(session), "corecap-report-bench-%d", (int)getpid());
	if (sh("rm -rf '%s' && mkdir -p '%s'", run, run) ||
	    sh("lttng -q create %s --output='%s/trace' >/dev/null", session, run))
		return -1;
	if (sh("lttng -q enable-channel -u -s %s --subbuf-size=4M --num-subbuf=8 "
	       "--blocking-timeout=inf big && "
	       "lttng -q enable-event -u -s %s -c big "
	       "'corecap_op:*,corecap_lock:*,corecap_io:*,corecap_thread:*' "
	       "--filter '$ctx.procname == \"tg-worker-*\"' && "
	       "lttng -q add-context -u -s %s -c big -t vtid -t vpid -t procname && "
	       "lttng -q start %s && "
	       "LTTNG_UST_ALLOW_BLOCKING=1 '%s' --fast -t 2 -n %lu >/dev/null && "
	       "lttng -q stop %s",
	       session, session, session, session, CORECAP_TRACEGEN, ops, session)) {
		sh("lttng -q destroy %s", session);
		return -1;
	}
	return sh("lttng -q destroy %s", session);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static long count_events(const char *run)
{
	char cmd[1024], line[64];
	long n = -1;
	FILE *p;

	/* The report counts them; --json's quality.events. */
	snprintf(cmd, sizeof(cmd),
		 "'%s' report --json '%s' 2>/dev/null | python3 -c \"import json,sys; "
		 "print(json.load(sys.stdin)['quality']['events'])\"",
		 CORECAP_BIN, run);
	p = popen(cmd, "r");
	if (p && fgets(line, sizeof(line), p))
		n = strtol(line, NULL, 10);
	if (p)
		pclose(p);
	return n;
}

int main(int argc, char **argv)
{
	unsigned long sizes[8] = {8000, 32000, 65000};
	int n_sizes = 3;
	char run[] = "/tmp/corecap-report-bench.XXXXXX", trace[600];

	if (argc > 1) {
		n_sizes = 0;
		for (int i = 1; i < argc && n_sizes < 8; i++)
			sizes[n_sizes++] = strtoul(argv[i], NULL, 10);
	}
	if (!mkdtemp(run)) {
		perror("report_bench: mkdtemp");
		return 1;
	}
	snprintf(trace, sizeof(trace), "%s/trace", run);
	printf("%10s %9s %9s %9s %9s %7s %7s %10s %10s\n", "events", "dummy_s", "report_s",
	       "dummy_cpu", "rep_cpu", "wall_x", "cpu_x", "dummy_rss", "report_rss");
	for (int s = 0; s < n_sizes; s++) {
		char *dummy[] = {"babeltrace2", trace, "-c", "sink.utils.dummy", NULL};
		char *report[] = {CORECAP_BIN, "report", "--json", run, NULL};
		double dw[REPS], rw[REPS], dc[REPS], rc[REPS], md, mr, mdc, mrc;
		long drss = 0, rrss = 0, events;

		if (make_trace(run, sizes[s]))
			return 1;
		events = count_events(run);
		for (int r = 0; r < REPS; r++) {
			struct sample a, b;

			if (measure(dummy, &a) || measure(report, &b))
				return 1;
			dw[r] = a.wall_s;
			dc[r] = a.cpu_s;
			rw[r] = b.wall_s;
			rc[r] = b.cpu_s;
			drss = a.maxrss_kb > drss ? a.maxrss_kb : drss;
			rrss = b.maxrss_kb > rrss ? b.maxrss_kb : rrss;
		}
		md = median(dw, REPS);
		mr = median(rw, REPS);
		mdc = median(dc, REPS);
		mrc = median(rc, REPS);
		printf("%10ld %9.3f %9.3f %9.3f %9.3f %7.2f %7.2f %8ldKB %8ldKB\n", events, md, mr,
		       mdc, mrc, mr / md, mrc / mdc, drss, rrss);
		fflush(stdout);
	}
	printf("target: report <= 1.1x the dummy read in CPU (cpu_x; the first version's bar "
	       "was 1.3x); report_rss flat as events grow\n");
	sh("rm -rf '%s'", run);
	return 0;
}
