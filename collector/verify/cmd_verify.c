/*
 * corecap verify: a causal check of the ceiling on a live daemon. Rounds
 * of the user's benchmark alternate between no delay, a delay of every
 * hold at SITE and (optionally) the same delay at a control site, through
 * the shim's runtime delay control; the measured change of throughput
 * per us of delay is set against the model's (docs/methodology.md,
 * "verify").
 *
 * One benchmark run per round: the benchmark's own summary gives the
 * round's throughput (refbench, rados bench, fio: collector/workload/bench_parse),
 * so the figure is the one the user reads, and a round's delay covers the
 * whole run.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <corecap/collector.h>

#include "workload/bench_parse.h"
#include "delay_control.h"
#include <corecap/diag.h>
#include <corecap/opt_table.h>
#include <corecap/manifest_keys.h>
#include "util/proc_stat.h"
#include "util/mono_clock.h"
#include "site_spec.h"
#include "verify_verdict.h"

const char corecap_verify_usage[] =
	"usage: corecap verify -p PID --site SITE [--control SITE] [--delay-ns D]\n"
	"                      [--rounds N] [--binding-util U] -- BENCH [ARGS...]\n"
	"\n"
	"Checks that SITE's lock bounds the throughput of process PID (running under\n"
	"the corecap shim): each round runs BENCH three times, with no delay, with\n"
	"every hold taken at SITE lengthened by D ns, and with the same delay at the\n"
	"control site, and compares the throughput change per us of delay with the\n"
	"model's prediction, and ends with a verdict: confirmed, not confirmed or\n"
	"inconclusive. The delay is always switched off on exit (also on\n"
	"SIGINT, SIGTERM, SIGHUP); if corecap verify is killed, the shim drops it by\n"
	"itself within a few seconds.\n"
	"\n";

enum { OPT_SITE = 256, OPT_CONTROL, OPT_DELAY, OPT_ROUNDS, OPT_BINDING };

enum { COND_BASE, COND_SITE, COND_CONTROL, N_COND };
static const char *const cond_name[N_COND] = {"none", "site", "control"};

struct verify_opts {
	pid_t pid;
	const char *site_spec;
	const char *control_spec;
	uint64_t site, control;
	uint64_t delay_ns;
	unsigned rounds;
	double binding_util;
	char **bench;
};

/* The options, in the help's order; getopt_long's array and string come from it. */
static const struct corecap_opt verify_options[] = {
	CORECAP_OPT_ARG('p', 'p', "pid", "PID", "the daemon"),
	CORECAP_OPT_STR(OPT_SITE, 0, "site", "SITE", struct verify_opts, site_spec,
			"the site to delay, as corecap report prints a lock's\n"
			"site (FUNCTION+0xOFF), as corecap stats-dump prints\n"
			"it (MODULE+0xOFF), or 0xADDR; or a lock's name as\n"
			"report and stat print it (d.osd.big_lock): the site\n"
			"of its first contention, which stat prints beside it"),
	CORECAP_OPT_STR(OPT_CONTROL, 0, "control", "SITE", struct verify_opts, control_spec,
			"a site expected not to bound throughput"),
	CORECAP_OPT_ARG(OPT_DELAY, 0, "delay-ns", "D",
			"delay per hold, 1-10000000 (default 20000): at most\n"
			"10 ms, as perf lock -J; the shim drops a larger one"),
	CORECAP_OPT_ARG(OPT_ROUNDS, 0, "rounds", "N", "rounds, 1-100 (default 5)"),
	CORECAP_OPT_ARG(OPT_BINDING, 0, "binding-util", "U",
			"hold utilization from which the model treats the\n"
			"lock as binding (default 0.7)"),
	CORECAP_OPT_FLAG('h', 'h', "help", "this text"),
};

CORECAP_OPT_TABLE(corecap_verify_help, corecap_verify_usage, verify_options,
		  "\n"
		  "BENCH must print a summary corecap parses (rados bench, refbench, fio): its\n"
		  "average IOPS is the round's throughput. See also corecap-verify(1).\n",
		  .help_col = 24, .shorts = CORECAP_SHORTS_ALIGNED);

/* One benchmark run under one condition. */
struct round_result {
	double iops;
	double wall_s;
	struct corecap_site_counters c0, c1; /* the measured site's, before and after */
	struct corecap_site_counters k0, k1; /* the control site's */
	double daemon_cores;		     /* the daemon's CPU over the run, in cores */
	double machine_cores;		     /* all CPUs' busy time, in cores */
};

/* The daemon's utime + stime and the machine's busy time, in seconds. */
static void cpu_now(pid_t pid, double *daemon_s, double *machine_s)
{
	struct corecap_proc_stat st;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	*daemon_s =
		corecap_proc_stat_read(AT_FDCWD, path, &st) == 0
			? (double)(st.utime_ticks + st.stime_ticks) / (double)sysconf(_SC_CLK_TCK)
			: 0;
	if (corecap_machine_busy_s(machine_s, NULL) < 0)
		*machine_s = 0;
}

static struct corecap_delay_control *g_dc; /* for the signal handler */
static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
	if (g_dc)
		corecap_delay_control_clear(g_dc);
	g_stop = sig;
}

static int install_signals(void)
{
	struct sigaction sa;
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return -errno;
	return 0;
}

static double now_s(void)
{
	return (double)corecap_now_ns() / 1e9;
}

/*
 * Runs the benchmark, collecting what it prints (at most 4 MiB) into
 * *out, renewing the delay's lease while it runs. Returns its exit code,
 * or -1 if it could not run; stops it on a signal.
 */
static int run_bench(char **argv, struct corecap_delay_control *dc, char **out)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	int pfd[2], status = 0, ret = -1;
	double renewed = now_s();
	bool killed = false;
	pid_t child;

	*out = NULL;
	if (!buf || pipe2(pfd, O_CLOEXEC) < 0) {
		corecap_error("cannot run the benchmark: %s", strerror(errno));
		free(buf);
		return -1;
	}
	child = fork();
	if (child < 0) {
		corecap_error("cannot fork the benchmark: %s", strerror(errno));
		goto out_close;
	}
	if (child == 0) {
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(SIGINT, &dfl, NULL);
		sigaction(SIGTERM, &dfl, NULL);
		sigaction(SIGHUP, &dfl, NULL);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: cannot run '%s': %s\n", corecap_diag_prefix(), argv[0],
			strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	pfd[1] = -1;
	for (;;) {
		struct pollfd p = {.fd = pfd[0], .events = POLLIN};
		int n = poll(&p, 1, 500);
		ssize_t r;

		if (g_stop && !killed) {
			kill(child, SIGTERM);
			killed = true;
		}
		if (now_s() - renewed > 0.5) {
			corecap_delay_control_renew(dc);
			renewed = now_s();
		}
		if (n <= 0)
			continue;
		if (len + 4096 > cap && cap < (4u << 20)) {
			char *nb = realloc(buf, cap * 2);

			if (nb) {
				buf = nb;
				cap *= 2;
			}
		}
		if (len + 4096 > cap) {
			char sink[4096];

			r = read(pfd[0], sink, sizeof(sink)); /* over 4 MiB: dropped */
		} else {
			r = read(pfd[0], buf + len, cap - len - 1);
			if (r > 0)
				len += (size_t)r;
		}
		if (r == 0 || (r < 0 && errno != EINTR))
			break;
	}
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	buf[len] = '\0';
	*out = buf;
	buf = NULL;
	ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out_close:
	close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	free(buf);
	return ret;
}

static int run_round(const struct verify_opts *o, struct corecap_delay_control *dc, int cond,
		     struct round_result *res)
{
	uint64_t site = cond == COND_CONTROL ? o->control : o->site;
	uint64_t ns = cond == COND_BASE ? 0 : o->delay_ns;
	struct corecap_bench_summary sum;
	double t0, dcpu0, dcpu1, mcpu0, mcpu1;
	uint64_t set_seq;
	char *text;
	int rc;

	/* The baseline tracks every hold at SITE too (delay 0): the same bookkeeping cost. */
	rc = corecap_delay_control_set(dc, site, ns);
	set_seq = corecap_delay_control_seq(dc);
	if (rc < 0) {
		corecap_error("cannot set the delay of process %d: %s", (int)o->pid,
			      rc == -EBUSY ? "another controller owns it" : strerror(-rc));
		return -1;
	}
	/*
	 * The shim takes the control on its slow paths, which an idle daemon
	 * does not run: the benchmark starts first, and this round's control
	 * (or a renewal of it) must have been taken by the time it ends (its
	 * first ms may run without).
	 */
	corecap_site_counters_read(dc, o->site, &res->c0);
	corecap_site_counters_read(dc, o->control, &res->k0);
	cpu_now(o->pid, &dcpu0, &mcpu0);
	t0 = now_s();
	rc = run_bench(o->bench, dc, &text);
	res->wall_s = now_s() - t0;
	cpu_now(o->pid, &dcpu1, &mcpu1);
	corecap_site_counters_read(dc, o->site, &res->c1);
	corecap_site_counters_read(dc, o->control, &res->k1);
	res->daemon_cores = res->wall_s > 0 ? (dcpu1 - dcpu0) / res->wall_s : 0;
	res->machine_cores = res->wall_s > 0 ? (mcpu1 - mcpu0) / res->wall_s : 0;
	if (rc == 0 && !g_stop &&
	    (corecap_delay_control_wait_applied(dc, set_seq, 1000) < 0 ||
	     __atomic_load_n(&dc->ctl->active_site, __ATOMIC_RELAXED) != site ||
	     __atomic_load_n(&dc->ctl->active_ns, __ATOMIC_RELAXED) != ns)) {
		corecap_error("process %d did not apply the delay (%" PRIu64 " ns at 0x%" PRIx64
			      ") during the benchmark: %s",
			      (int)o->pid, ns, site,
			      __atomic_load_n(&dc->ctl->refused, __ATOMIC_RELAXED)
				      ? "it refused it"
				      : "no contended or condition wait ran");
		free(text);
		return -1;
	}
	if (rc != 0 || g_stop) {
		if (!g_stop)
			corecap_error("the benchmark '%s' exited %d:\n%s", o->bench[0], rc,
				      text ? text : "");
		free(text);
		return -1;
	}
	corecap_bench_summary_init(&sum);
	if (corecap_bench_parse(text, &sum) < 0 ||
	    !corecap_bench_summary_get(&sum, corecap_mk(CORECAP_MK_BENCHMARK_SUMMARY_IOPS_AVG),
				       &res->iops)) {
		corecap_error(
			"cannot read the throughput of '%s': no summary corecap parses (rados "
			"bench, refbench, fio) in its output",
			o->bench[0]);
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * The model's throughput with a delay of d_s per hold at a site
 * (docs/methodology.md, "verify"): every resource the delay lengthens
 * must keep up, X(d) = X0 / max(1, lock term, CPU term).
 *  - The lock: its busy time per second grows from U to U + lambda*d
 *    (lambda = the site's holds per second at baseline); a lock that
 *    binds (U >= the binding threshold) keeps its handoff gaps, so its
 *    term is 1 + lambda*d; one that does not binds once U + lambda*d
 *    passes 1.
 *  - The CPU: the delay is a busy wait, so the machine's busy CPU per
 *    second grows from M to M + lambda*d. When the CPUs were all busy
 *    already (idle under 0.1 CPU) the daemon keeps its share C of them:
 *    the term is 1 + lambda*d / C; otherwise the delay binds once
 *    M + lambda*d passes the CPUs' count.
 */
struct site_stats {
	double x0, util, lambda, hold_ns, cores, machine;
};

static double model_iops(const struct site_stats *s, double d_s, double binding, double ncpu)
{
	double lock = (s->util >= binding ? 1.0 : s->util) + s->lambda * d_s;
	double cpu = 0;

	if (s->cores > 0)
		cpu = s->machine >= ncpu - 0.1 ? 1.0 + s->lambda * d_s / s->cores
					       : (s->machine + s->lambda * d_s) / ncpu;
	if (cpu > lock)
		lock = cpu;
	return s->x0 / (lock > 1.0 ? lock : 1.0);
}

static void baseline_stats(const struct round_result *b, struct site_stats *s)
{
	double holds = (double)(b->c1.holds - b->c0.holds);
	double hold_ns = (double)(b->c1.hold_ns - b->c0.hold_ns);

	s->x0 = b->iops;
	s->util = b->wall_s > 0 ? hold_ns / 1e9 / b->wall_s : 0;
	s->lambda = b->wall_s > 0 ? holds / b->wall_s : 0;
	s->hold_ns = holds > 0 ? hold_ns / holds : 0;
	s->cores = b->daemon_cores;
	s->machine = b->machine_cores;
}

/* The model's slopes (IOPS per us) from one round's baseline: the site's, and the control's. */
static void predicted_slopes(const struct verify_opts *o, const struct round_result *round,
			     double ncpu, double *site, double *control)
{
	const struct round_result *b = &round[COND_BASE];
	double d_us = (double)o->delay_ns / 1e3, d_s = (double)o->delay_ns / 1e9;
	double holds = (double)(b->k1.holds - b->k0.holds);
	struct site_stats s, cs;

	baseline_stats(b, &s);
	*site = (model_iops(&s, d_s, o->binding_util, ncpu) - s.x0) / d_us;
	*control = 0;
	if (!o->control)
		return;
	cs = s;
	cs.util = b->wall_s > 0 ? (double)(b->k1.hold_ns - b->k0.hold_ns) / 1e9 / b->wall_s : 0;
	cs.lambda = b->wall_s > 0 ? holds / b->wall_s : 0;
	*control = (model_iops(&cs, d_s, o->binding_util, ncpu) - s.x0) / d_us;
}

static void report(const struct verify_opts *o, struct round_result (*res)[N_COND], unsigned n)
{
	double d_us = (double)o->delay_ns / 1e3;
	double *pred = calloc(n, sizeof(double)), *meas = calloc(n, sizeof(double));
	double *ctl = calloc(n, sizeof(double)), *x0 = calloc(n, sizeof(double));
	double *util = calloc(n, sizeof(double)), *hold = calloc(n, sizeof(double));
	double *cpred = calloc(n, sizeof(double)), *cores = calloc(n, sizeof(double));
	double ratio_lo = 0, ratio_hi = 0;
	bool have_ratio = false;
	struct corecap_verify_verdict_in v = {.rounds = n, .control = o->control != 0};
	double *xb = calloc(n, sizeof(double)), *xs = calloc(n, sizeof(double));
	const char *word;
	char why[640];
	double ncpu = (double)sysconf(_SC_NPROCESSORS_ONLN), pm, mm, cm = 0, cpm = 0;

	if (!pred || !meas || !ctl || !x0 || !util || !hold || !cpred || !cores) {
		corecap_error("out of memory");
		goto out;
	}
	printf("# round\tcondition\tdelay_ns\tiops\tsite_holds_per_s\tsite_hold_util\tdaemon_"
	       "cores\tmachine_cores\n");
	for (unsigned r = 0; r < n; r++) {
		struct site_stats s;

		for (int c = 0; c < N_COND; c++) {
			const struct round_result *x = &res[r][c];

			if (c == COND_CONTROL && !o->control)
				continue;
			baseline_stats(x, &s);
			printf("%u\t%s\t%" PRIu64 "\t%.1f\t%.1f\t%.3f\t%.2f\t%.2f\n", r + 1,
			       cond_name[c], c == COND_BASE ? (uint64_t)0 : o->delay_ns, x->iops,
			       s.lambda, s.util, x->daemon_cores, x->machine_cores);
		}
		baseline_stats(&res[r][COND_BASE], &s);
		x0[r] = s.x0;
		util[r] = s.util;
		hold[r] = s.hold_ns;
		cores[r] = s.cores;
		predicted_slopes(o, res[r], ncpu, &pred[r], &cpred[r]);
		meas[r] = (res[r][COND_SITE].iops - s.x0) / d_us;
		if (pred[r] != 0) {
			double q = meas[r] / pred[r];

			ratio_lo = !have_ratio || q < ratio_lo ? q : ratio_lo;
			ratio_hi = !have_ratio || q > ratio_hi ? q : ratio_hi;
			have_ratio = true;
		}
		if (o->control)
			ctl[r] = (res[r][COND_CONTROL].iops - s.x0) / d_us;
	}
	printf("\nsite %s (0x%" PRIx64 "), delay %" PRIu64 " ns per hold, %u rounds "
	       "(median [min, max] over rounds)\n",
	       o->site_spec, o->site, o->delay_ns, n);
	{
		double xm = median(x0, n), um = median(util, n), hm = median(hold, n);
		double cm0 = median(cores, n);

		printf("  baseline: %.1f IOPS [%.1f, %.1f]; site hold %.0f ns, utilization %.3f "
		       "[%.3f, %.3f] (%s); daemon %.2f cores of %.0f\n",
		       xm, x0[0], x0[n - 1], hm, um, util[0], util[n - 1],
		       um >= o->binding_util ? "binding" : "not binding", cm0, ncpu);
	}
	pm = median(pred, n);
	mm = median(meas, n);
	printf("  predicted slope: %.2f IOPS per us [%.2f, %.2f]\n", pm, pred[0], pred[n - 1]);
	printf("  measured slope:  %.2f IOPS per us [%.2f, %.2f]\n", mm, meas[0], meas[n - 1]);
	if (pm != 0)
		printf("  measured / predicted: %.2f\n", mm / pm);
	else
		printf("  measured / predicted: - (the model predicts no change)\n");
	if (o->control) {
		cm = median(ctl, n);
		cpm = median(cpred, n);
		printf("control %s (0x%" PRIx64 "):\n", o->control_spec, o->control);
		printf("  predicted slope: %.2f IOPS per us [%.2f, %.2f]\n", cpm, cpred[0],
		       cpred[n - 1]);
		printf("  measured slope:  %.2f IOPS per us [%.2f, %.2f]", cm, ctl[0], ctl[n - 1]);
		if (mm != 0)
			printf(" (%.2f of the site's)", cm / mm);
		printf("\n");
	}
	v.pm = pm;
	v.mm = mm;
	v.cpm = cpm;
	v.cm = cm;
	v.ratio_lo = ratio_lo;
	v.ratio_hi = ratio_hi;
	for (unsigned r = 0; r < n && xb && xs; r++) {
		xb[r] = res[r][COND_BASE].iops;
		xs[r] = res[r][COND_SITE].iops;
	}
	v.r2 = xb && xs ? corecap_verify_r2(xb, xs, n) : 0;
	free(xb);
	free(xs);
	word = corecap_verify_verdict(&v, why, sizeof(why));
	printf("\n%s: %s\n", word, why);
	/* For scripts: one line per site, predicted and measured medians. */
	printf("\n# slope\twhich\tpredicted_iops_per_us\tmeasured_iops_per_us\n");
	printf("slope\tsite\t%.3f\t%.3f\n", pm, mm);
	if (o->control)
		printf("slope\tcontrol\t%.3f\t%.3f\n", cpm, cm);
	printf("# verdict\tword\tratio\tratio_min\tratio_max\tr2\n");
	printf("verdict\t%s\t%.3f\t%.3f\t%.3f\t%.3f\n", word, pm != 0 ? mm / pm : 0, ratio_lo,
	       ratio_hi, v.r2);
out:
	free(pred);
	free(meas);
	free(ctl);
	free(x0);
	free(util);
	free(hold);
	free(cpred);
	free(cores);
}

static int parse_u64(const char *text, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!text[0] || text[0] == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static corecap_verify_lock_site_fn lock_site;

void corecap_verify_set_lock_site(corecap_verify_lock_site_fn fn)
{
	lock_site = fn;
}

/*
 * A lock's name as report and stat print it ("d.osd.big_lock") has no
 * offset: a text that is neither a site nor an address is looked up
 * among the daemon's contended locks, and stands for the site stat
 * prints beside the lock, that of its first contention.
 */
static int resolve_lock(pid_t pid, const char *what, const char *text, uint64_t *addr,
			const char *site_why)
{
	char why[768];
	uint64_t lock = 0;
	int rc;

	if (!lock_site || strchr(text, '+') || strncmp(text, "0x", 2) == 0)
		return -EINVAL;
	rc = lock_site(pid, text, &lock, addr, why, sizeof(why));
	if (rc == 0) {
		corecap_note("%s '%s' is the lock at 0x%" PRIx64 ": its holds taken at 0x%" PRIx64
			     ", the site of its first contention (as stat prints it), are "
			     "delayed",
			     what, text, lock, *addr);
		return 0;
	}
	if (rc == -ENOENT)
		corecap_error("bad %s '%s': neither a call site nor a lock's name: %s; and process "
			      "%d has no contended lock of that name ('corecap stat -p %d' names "
			      "them)",
			      what, text, site_why, (int)pid, (int)pid);
	else
		corecap_error("bad %s '%s': %s", what, text, why);
	return rc;
}

static int resolve(pid_t pid, const char *what, const char *text, uint64_t *addr)
{
	struct site_spec spec;
	char why[768];
	int rc = corecap_site_spec_parse(text, &spec, why, sizeof(why));

	if (rc == 0)
		rc = corecap_site_spec_resolve(pid, &spec, addr, why, sizeof(why));
	else if (lock_site && !strchr(text, '+') && strncmp(text, "0x", 2) != 0)
		return resolve_lock(pid, what, text, addr, why);
	if (rc < 0)
		corecap_error("bad %s '%s': %s", what, text, why);
	return rc;
}

static int parse_opts(int argc, char **argv, struct verify_opts *o)
{
	struct corecap_getopt g;
	uint64_t v;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->delay_ns = 20000;
	o->rounds = 5;
	o->binding_util = 0.7;
	corecap_opts_start(&g, &corecap_verify_help, "+", o);
	opterr = 0;
	while ((c = corecap_opts_next(&g, argc, argv)) != -1) {
		switch (c) {
		case 'p':
			if (parse_u64(optarg, 1, INT32_MAX, &v) < 0) {
				corecap_error("bad pid '%s': expected a process id", optarg);
				return 2;
			}
			o->pid = (pid_t)v;
			break;
		case OPT_DELAY:
			if (parse_u64(optarg, 1, CORECAP_STATS_CONTROL_MAX_NS, &o->delay_ns) < 0) {
				corecap_error("bad --delay-ns '%s': expected 1-%" PRIu64, optarg,
					      CORECAP_STATS_CONTROL_MAX_NS);
				return 2;
			}
			break;
		case OPT_ROUNDS:
			if (parse_u64(optarg, 1, 100, &v) < 0) {
				corecap_error("bad --rounds '%s': expected 1-100", optarg);
				return 2;
			}
			o->rounds = (unsigned)v;
			break;
		case OPT_BINDING:
			errno = 0;
			o->binding_util = strtod(optarg, &end);
			if (errno || *end || !(o->binding_util > 0 && o->binding_util <= 1)) {
				corecap_error(
					"bad --binding-util '%s': expected a number in (0, 1]",
					optarg);
				return 2;
			}
			break;
		case 'h':
			corecap_cmd_help(stdout, &corecap_verify_help);
			return 0;
		default:
			corecap_error("unknown option '%s'", argv[optind - 1]);
			return 2;
		}
	}
	if (!o->pid || !o->site_spec || optind >= argc) {
		corecap_error("%s", !o->pid	    ? "no daemon: -p PID is required"
				    : !o->site_spec ? "no site: --site SITE is required"
						    : "no benchmark: give it after --");
		return 2;
	}
	o->bench = &argv[optind];
	if (resolve(o->pid, "--site", o->site_spec, &o->site) < 0 ||
	    (o->control_spec && resolve(o->pid, "--control", o->control_spec, &o->control) < 0))
		return 1;
	if (o->control == o->site && o->control_spec) {
		corecap_error("--control '%s' is the site itself", o->control_spec);
		return 2;
	}
	return -1;
}

/*
 * Said after the first round, not only in the verdict: a control the
 * model predicts to slow the daemon as much as the site cannot tell them
 * apart, and the user may stop and choose another.
 */
static void warn_useless_control(const struct verify_opts *o, const struct round_result *round)
{
	double site, control;

	predicted_slopes(o, round, (double)sysconf(_SC_NPROCESSORS_ONLN), &site, &control);
	if (site != 0 && fabs(control - site) <= VERIFY_SLOPE_TOLERANCE * fabs(site))
		corecap_warn("the control '%s' is predicted to slow the daemon as much as the site "
			     "(%.2f against %.2f IOPS per us): it cannot tell them apart, and the "
			     "verdict will be inconclusive; choose a control taken less than once "
			     "per op whose lock does not bind",
			     o->control_spec, control, site);
}

int corecap_cmd_verify(int argc, char **argv)
{
	struct corecap_delay_control dc;
	struct round_result(*res)[N_COND] = NULL;
	struct verify_opts o;
	int ret = parse_opts(argc, argv, &o);

	if (ret >= 0) {
		if (ret == 2)
			corecap_usage_hint(corecap_verify_usage);
		return ret;
	}
	ret = 1;
	if (corecap_delay_control_open(&dc, o.pid) < 0)
		return 1;
	res = calloc(o.rounds, sizeof(*res));
	if (!res) {
		corecap_error("out of memory");
		goto out;
	}
	g_dc = &dc;
	if (install_signals() < 0) {
		corecap_error("cannot install signal handlers: %s", strerror(errno));
		goto out;
	}
	for (unsigned r = 0; r < o.rounds; r++) {
		for (int c = 0; c < N_COND; c++) {
			if (c == COND_CONTROL && !o.control)
				continue;
			if (kill(o.pid, 0) < 0 && errno == ESRCH) {
				corecap_error("process %d exited during round %u", (int)o.pid,
					      r + 1);
				goto out;
			}
			corecap_note("round %u/%u: %s", r + 1, o.rounds, cond_name[c]);
			if (run_round(&o, &dc, c, &res[r][c]) < 0)
				goto out;
		}
		if (r == 0 && o.control)
			warn_useless_control(&o, res[0]);
	}
	corecap_delay_control_clear(&dc);
	report(&o, res, o.rounds);
	ret = 0;
out:
	g_dc = NULL;
	corecap_delay_control_close(&dc);
	free(res);
	if (g_stop) {
		corecap_error("interrupted by signal %d; the delay is off", (int)g_stop);
		ret = 128 + g_stop;
	}
	return ret;
}
