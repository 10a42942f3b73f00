/*
 * `corecap scale`: the daemon recorded at several core counts, one run per
 * point in one scale directory (docs/run-directory.md, "Scale
 * directories"), then the fit (analysis/model/scaling_fit.h) rendered by
 * the analysis, which cli/ hands to this command (corecap_scale_set_report):
 * the collector does not link the analysis.
 *
 * Each point is `corecap record -p PID -o DIR/cores-N [-d SEC] -- BENCH`,
 * run as a child of this same executable (/proc/self/exe) in its own
 * process group, while scale_confine.h holds the daemon on the point's
 * CPUs; the child gets SIGTERM if corecap dies (PR_SET_PDEATHSIG). With
 * --prepare, the command runs before each record, the daemon already held
 * to the point's CPUs: outside the point's window.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <corecap/collector.h>
#include <corecap/diag.h>
#include <corecap/opt_table.h>
#include "util/cpu_list.h"
#include "util/proc_stat.h"
#include "util/run_dir.h"
#include "workload/bench_runner.h"
#include "scale_confine.h"

#define SCALE_MAX_POINTS 32
#define PASS_MS		 100

const char corecap_scale_usage[] =
	"usage: corecap scale -p PID [--cores LIST] [-d SECONDS] [-o DIR]\n"
	"                     [--client-cpus LIST] [--record-opt OPT]...\n"
	"                     [--prepare CMD]\n"
	"                     [--json | --html]\n"
	"                     [-- BENCHMARK ARGS...]\n"
	"       corecap scale --report DIR [--json | --html]\n"
	"\n"
	"Records the daemon PID while the benchmark runs, once per point of LIST with\n"
	"every thread of the daemon confined to that many CPUs, and fits the Universal\n"
	"Scalability Law to the points: throughput and CPU per op at each, the\n"
	"contention and coherency terms with their intervals, the projection to 4,\n"
	"8, 16 and 32 cores and where throughput peaks (docs/methodology.md,\n"
	"\"Scaling\"). The daemon's affinity (and CPU quota) is restored after each\n"
	"point, on error, on a signal, and by a guard process if corecap is killed.\n"
	"\n";

enum { OPT_CORES = 256, OPT_CLIENT, OPT_JSON, OPT_HTML, OPT_REPORT, OPT_RECORD, OPT_PREPARE };

#define SCALE_RECORD_OPTS 16

struct scale_cmd {
	pid_t pid;
	double points[SCALE_MAX_POINTS];
	int n_points;
	const char *cores_arg;
	const char *duration;
	const char *out;
	const char *client_arg;
	cpu_set_t client;
	int format; /* CORECAP_SCALE_TEXT, _JSON, _HTML */
	const char *report;
	char **bench;
	int n_bench;
	char *record_opts[SCALE_RECORD_OPTS];
	int n_record_opts;
	const char *prepare; /* --prepare's shell command, or NULL */
	/* The running scale. */
	struct scale_confine conf;
	struct corecap_run_dir rd;
	bool have_rd;
	json_object *doc, *jpoints;
};

/* The options, in the help's order; getopt_long's array and string come from it. */
static const struct corecap_opt scale_options[] = {
	CORECAP_OPT_ARG('p', 'p', "pid", "PID", "the daemon"),
	CORECAP_OPT_ARG(OPT_CORES, 0, "cores", "LIST",
			"the points, comma-separated: core counts, ranges A-B,\n"
			"and fractions (1.5: a CPU quota of 1.5 CPUs over 2\n"
			"CPUs, its cgroup's cpu.max or cpu.cfs_quota_us; a\n"
			"daemon in the root cgroup is moved into one of its own\n"
			"for the scale); a point given twice is run twice\n"
			"(default: 1 up to the CPUs the daemon may use)"),
	CORECAP_OPT_ARG('d', 'd', "duration", "SEC",
			"each point's window (default: the benchmark's run)"),
	CORECAP_OPT_STR('o', 'o', "output", "DIR", struct scale_cmd, out,
			"the scale directory (default\n"
			"./corecap-COMM-scalePID-YYYYmmdd-HHMMSS); each point's\n"
			"run is DIR/cores-N"),
	CORECAP_OPT_ARG(OPT_CLIENT, 0, "client-cpus", "LIST",
			"run the benchmark (and each point's recorder) on these\n"
			"CPUs; the daemon's points take the others first\n"
			"(default: corecap's own CPUs, stated in the output)"),
	CORECAP_OPT_ARG(OPT_RECORD, 0, "record-opt", "OPT",
			"pass OPT to each point's corecap record (repeatable;\n"
			"--record-opt=--no-kernel records lighter: what the\n"
			"recorder takes of the daemon's CPUs is in the points)"),
	CORECAP_OPT_ARG(OPT_PREPARE, 0, "prepare", "CMD",
			"run CMD (sh -c, as the benchmark is run) before each\n"
			"point's record, the daemon already on the point's\n"
			"CPUs: outside the window (a fresh pool, say); its\n"
			"output in DIR/cores-N.prepare.log; CORECAP_SCALE_CORES\n"
			"and CORECAP_SCALE_POINT tell it the point; its failure\n"
			"stops the scale"),
	CORECAP_OPT_FLAG(OPT_JSON, 0, "json",
			 "print the result as JSON (format corecap-scale,\n"
			 "docs/report-json.md)"),
	CORECAP_OPT_FLAG(OPT_HTML, 0, "html",
			 "print the result as an HTML page with its chart (the\n"
			 "points, the fit and its band, the peak)"),
	CORECAP_OPT_STR(OPT_REPORT, 0, "report", "DIR", struct scale_cmd, report,
			"print the result of a finished scale directory again"),
	CORECAP_OPT_FLAG('h', 'h', "help", "this text"),
};

CORECAP_OPT_TABLE(corecap_scale_help, corecap_scale_usage, scale_options,
		  "\n"
		  "See also corecap-scale(1).\n",
		  .help_col = 24, .shorts = CORECAP_SHORTS_ALIGNED);

static corecap_scale_report_fn scale_report;
static volatile sig_atomic_t stop_signal;

void corecap_scale_set_report(corecap_scale_report_fn fn)
{
	scale_report = fn;
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* "1,2,4", "1-4", "1,1.5,2": into s->points. 0, or a usage error printed (2). */
static int parse_cores(struct scale_cmd *s, const char *arg)
{
	const char *p = arg;

	s->n_points = 0;
	while (*p) {
		char *end;
		double a, b;

		errno = 0;
		a = strtod(p, &end);
		if (end == p || errno || !isfinite(a) || a <= 0 || *p == '-' || *p == '+')
			goto bad;
		b = a;
		if (*end == '-') {
			const char *q = end + 1;

			b = strtod(q, &end);
			if (end == q || b < a || a != floor(a) || b != floor(b))
				goto bad;
		}
		if (b > CPU_SETSIZE)
			goto bad;
		for (double v = a; v <= b; v += 1) {
			if (s->n_points >= SCALE_MAX_POINTS)
				return corecap_usage_error(corecap_scale_usage,
							   "--cores: more than %d points",
							   SCALE_MAX_POINTS);
			s->points[s->n_points++] = v;
		}
		if (*end == ',' && end[1])
			p = end + 1;
		else if (*end)
			goto bad;
		else
			p = end;
	}
	if (!s->n_points)
		goto bad;
	return 0;
bad:
	return corecap_usage_error(
		corecap_scale_usage,
		"--cores: '%s' is not a list of core counts (1,2,4; 1-4; 1,1.5,2)", arg);
}

static int parse_args(struct scale_cmd *s, int argc, char **argv)
{
	struct corecap_getopt g;
	char why[256];
	int c;

	corecap_opts_start(&g, &corecap_scale_help, "+", s);
	while ((c = corecap_opts_next(&g, argc, argv)) != -1) {
		switch (c) {
		case 'p': {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v <= 0 || v > 0x7fffffff)
				return corecap_usage_error(corecap_scale_usage,
							   "-p: '%s' is not a process id", optarg);
			s->pid = (pid_t)v;
			break;
		}
		case OPT_CORES:
			s->cores_arg = optarg;
			if (parse_cores(s, optarg))
				return 2;
			break;
		case 'd': {
			char *end;
			double v;

			errno = 0;
			v = strtod(optarg, &end);
			if (errno || *end || end == optarg || !(v > 0) || v > 86400)
				return corecap_usage_error(corecap_scale_usage,
							   "-d: '%s' is not a duration in seconds",
							   optarg);
			s->duration = optarg;
			break;
		}
		case OPT_CLIENT:
			if (corecap_cpu_list_parse(optarg, &s->client, why, sizeof(why)))
				return corecap_usage_error(corecap_scale_usage,
							   "invalid --client-cpus: %s", why);
			s->client_arg = optarg;
			break;
		case OPT_JSON:
		case OPT_HTML:
			if (s->format)
				return corecap_usage_error(corecap_scale_usage,
							   "--json and --html exclude each other");
			s->format = c == OPT_JSON ? CORECAP_SCALE_JSON : CORECAP_SCALE_HTML;
			break;
		case OPT_RECORD: {
			/* scale's own options, or a second window or daemon: not record's to take.
			 */
			static const char *const owned[] = {"-p",	"--pid",       "-o",
							    "--output", "-d",	       "--duration",
							    "--force",	"--ceph-osds", "--"};
			size_t len = strcspn(optarg, "=");

			for (size_t k = 0; k < sizeof(owned) / sizeof(owned[0]); k++)
				if ((strncmp(optarg, owned[k], len) == 0 &&
				     owned[k][len] == '\0') ||
				    (owned[k][1] != '-' && strncmp(optarg, owned[k], 2) == 0))
					return corecap_usage_error(
						corecap_scale_usage,
						"--record-opt: '%s' is corecap scale's to set",
						optarg);
			if (optarg[0] != '-')
				return corecap_usage_error(corecap_scale_usage,
							   "--record-opt: '%s' is not an option "
							   "(--record-opt=--no-kernel)",
							   optarg);
			if (s->n_record_opts >= SCALE_RECORD_OPTS)
				return corecap_usage_error(corecap_scale_usage,
							   "--record-opt: more than %d",
							   SCALE_RECORD_OPTS);
			s->record_opts[s->n_record_opts++] = optarg;
			break;
		}
		case OPT_PREPARE:
			if (!optarg[0] || strspn(optarg, " \t\n") == strlen(optarg))
				return corecap_usage_error(corecap_scale_usage,
							   "--prepare: the command is empty");
			s->prepare = optarg;
			break;
		case 'h':
			corecap_cmd_help(stdout, &corecap_scale_help);
			return 1; /* caller: exit 0 */
		default:
			return corecap_usage_hint(corecap_scale_usage);
		}
	}
	if (optind < argc && strcmp(argv[optind - 1], "--") != 0)
		return corecap_usage_error(corecap_scale_usage,
					   "unexpected '%s': the benchmark follows '--'",
					   argv[optind]);
	s->bench = argv + optind;
	s->n_bench = argc - optind;
	if (s->report) {
		if (s->pid || s->n_bench || s->cores_arg || s->out || s->duration ||
		    s->client_arg || s->n_record_opts || s->prepare)
			return corecap_usage_error(corecap_scale_usage,
						   "--report DIR prints a finished scale: no -p, "
						   "--cores, -d, -o, --client-cpus, --prepare or "
						   "benchmark");
		return 0;
	}
	if (!s->pid)
		return corecap_usage_error(corecap_scale_usage, "no daemon: -p PID is required");
	if (!s->n_bench && !s->duration)
		return corecap_usage_error(corecap_scale_usage,
					   "no window: give a benchmark after '--', or -d SECONDS");
	return 0;
}

static void point_name(const struct scale_cmd *s, int i, char *buf, size_t size)
{
	int rep = 1;

	for (int j = 0; j < i; j++)
		rep += s->points[j] == s->points[i];
	if (rep > 1)
		snprintf(buf, size, "cores-%g-r%d", s->points[i], rep);
	else
		snprintf(buf, size, "cores-%g", s->points[i]);
}

/* The point's CPUs: the daemon's own, those the client does not use first. */
static void point_cpus(const struct scale_cmd *s, double v, cpu_set_t *out)
{
	const cpu_set_t *base = scale_confine_base(&s->conf);
	int want = (int)ceil(v), got = 0;

	CPU_ZERO(out);
	for (int pass = 0; pass < 2; pass++)
		for (int cpu = 0; cpu < CPU_SETSIZE && got < want; cpu++) {
			bool client = s->client_arg && CPU_ISSET(cpu, &s->client);

			if (!CPU_ISSET(cpu, base) || CPU_ISSET(cpu, out) || client != (pass == 1))
				continue;
			CPU_SET(cpu, out);
			got++;
		}
}

static int write_doc(struct scale_cmd *s)
{
	const char *text = json_object_to_json_string_ext(
		s->doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	int fd, ret;

	unlinkat(s->rd.dirfd, "scale.json.tmp", 0);
	ret = corecap_run_dir_create_file(&s->rd, "scale.json.tmp", &fd);
	if (ret)
		return ret;
	ret = corecap_write_all(fd, text, strlen(text));
	if (!ret)
		ret = corecap_write_all(fd, "\n", 1);
	if (close(fd) && !ret)
		ret = -errno;
	if (ret) {
		corecap_error("cannot write %s/scale.json: %s", s->rd.path, strerror(-ret));
		unlinkat(s->rd.dirfd, "scale.json.tmp", 0);
		return ret;
	}
	return corecap_run_dir_rename(&s->rd, "scale.json.tmp", "scale.json");
}

static json_object *cpus_json(const cpu_set_t *set)
{
	char buf[1024];

	corecap_cpu_list_format(set, buf, sizeof(buf));
	return json_object_new_string(buf);
}

/* The last line of a point's log, for the error. */
static void last_line(int dirfd, const char *name, char *buf, size_t size)
{
	char text[8192];
	ssize_t n = corecap_read_small_file(dirfd, name, text, sizeof(text));
	char *end, *start;

	buf[0] = '\0';
	if (n <= 0)
		return;
	end = text + n;
	while (end > text && end[-1] == '\n')
		*--end = '\0';
	start = strrchr(text, '\n');
	start = start ? start + 1 : text;
	n = (ssize_t)strlen(start);
	if ((size_t)n >= size)
		n = (ssize_t)size - 1;
	memcpy(buf, start, (size_t)n);
	buf[n] = '\0';
}

static pid_t spawn_record(struct scale_cmd *s, const char *run, int logfd)
{
	pid_t parent = getpid(), pid;
	char pidbuf[24];
	char *args[32 + 1024];
	int n = 0;

	if (s->n_bench > 1000) {
		corecap_error("the benchmark has more than 1000 arguments");
		return -E2BIG;
	}
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)s->pid);
	args[n++] = "corecap";
	args[n++] = "record";
	args[n++] = "-q";
	args[n++] = "-p";
	args[n++] = pidbuf;
	args[n++] = "-o";
	args[n++] = (char *)run;
	if (s->duration) {
		args[n++] = "-d";
		args[n++] = (char *)s->duration;
	}
	for (int k = 0; k < s->n_record_opts; k++)
		args[n++] = s->record_opts[k];
	if (s->n_bench) {
		args[n++] = "--";
		for (int i = 0; i < s->n_bench; i++)
			args[n++] = s->bench[i];
	}
	args[n] = NULL;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		corecap_error("cannot start corecap record: %s", strerror(-err));
		return err;
	}
	if (pid == 0) {
		struct sigaction dfl = {.sa_handler = SIG_DFL};
		sigset_t none;

		/* Its own group: a Ctrl-C reaches it once, through us. */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		sigaction(SIGINT, &dfl, NULL);
		sigaction(SIGTERM, &dfl, NULL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (s->client_arg && sched_setaffinity(0, sizeof(s->client), &s->client) != 0) {
			dprintf(logfd, "corecap scale: cannot put the benchmark on CPUs %s: %s\n",
				s->client_arg, strerror(errno));
			_exit(126);
		}
		dup2(logfd, STDOUT_FILENO);
		dup2(logfd, STDERR_FILENO);
		close(logfd);
		execv("/proc/self/exe", args);
		dprintf(STDERR_FILENO, "corecap scale: cannot run /proc/self/exe: %s\n",
			strerror(errno));
		_exit(127);
	}
	return pid;
}

/*
 * The point's --prepare command, `sh -c CMD`, started as record starts the
 * benchmark (bench_runner.h: our user and environment, default signals, the
 * client's CPUs when set) with CORECAP_SCALE_CORES and CORECAP_SCALE_POINT
 * added, its output into DIR/LOG. The daemon is held to the point's CPUs
 * meanwhile (threads born during it too); no record runs yet. Its exit
 * status as a shell shows it (128 + signal), or -errno if it could not start.
 */
static int run_prepare(struct scale_cmd *s, double v, const char *name, const char *log,
		       double *took_s)
{
	char *argv[] = {"/bin/sh", "-c", (char *)s->prepare, NULL};
	struct timespec t0, t1, signalled;
	struct corecap_bench_runner b;
	bool forwarded = false;
	char cores[32];
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = corecap_bench_runner_init_file(&b, &s->rd, log, "the prepare command", false);
	if (ret)
		return ret; /* said by the run directory */
	/* A signal to stop reaches the whole command (its sleep, its ceph CLI). */
	b.own_group = true;
	if (s->client_arg)
		corecap_bench_runner_set_cpus(&b, &s->client);
	snprintf(cores, sizeof(cores), "%g", v);
	setenv("CORECAP_SCALE_CORES", cores, 1);
	setenv("CORECAP_SCALE_POINT", name, 1);
	ret = corecap_bench_runner_start(&b, argv);
	unsetenv("CORECAP_SCALE_CORES");
	unsetenv("CORECAP_SCALE_POINT");
	if (ret)
		goto out_release;
	while (!b.exited) {
		struct pollfd pfd = {.fd = b.out_fd, .events = POLLIN};
		int status;
		pid_t w;

		if (stop_signal && !forwarded) {
			corecap_bench_runner_signal(&b, SIGINT);
			clock_gettime(CLOCK_MONOTONIC, &signalled);
			forwarded = true;
		} else if (forwarded) {
			/* Two seconds to stop on SIGINT, then SIGKILL to its group. */
			clock_gettime(CLOCK_MONOTONIC, &t1);
			if (t1.tv_sec - signalled.tv_sec >= 2)
				corecap_bench_runner_signal(&b, SIGKILL);
		}
		if (poll(&pfd, 1, PASS_MS) > 0)
			corecap_bench_runner_pump(&b);
		do
			w = waitpid(b.pid, &status, WNOHANG);
		while (w < 0 && errno == EINTR);
		if (w == b.pid)
			corecap_bench_runner_exited(&b, status);
		else if (w < 0)
			break; /* not ours to reap any more: release kills what is left */
		scale_confine_pass(&s->conf);
	}
	corecap_bench_runner_finish(&b, 1000);
	ret = b.exited ? corecap_bench_runner_exit_code(&b) : -ECHILD;
out_release:
	corecap_bench_runner_release(&b);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*took_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return ret;
}

/*
 * One point: confine, prepare, record, restore. 0, 1 (the point or its
 * prepare command failed, or a signal stopped it) or -errno.
 */
static int run_point(struct scale_cmd *s, int i)
{
	struct timespec tick = {.tv_nsec = PASS_MS * 1000000l};
	char name[64], run[4200], log[80], prep_log[96], line[512];
	double v = s->points[i], quota = v != floor(v) ? v : 0, prep_s = 0;
	bool forwarded = false, gone = false, recorded = false;
	json_object *jp, *jr;
	int status = 0, fd, ret, prep = 0;
	cpu_set_t cpus, client;
	pid_t child;

	point_name(s, i, name, sizeof(name));
	snprintf(run, sizeof(run), "%s/%s", s->rd.path, name);
	snprintf(log, sizeof(log), "%s.log", name);
	snprintf(prep_log, sizeof(prep_log), "%s.prepare.log", name);
	point_cpus(s, v, &cpus);
	if (s->client_arg)
		client = s->client;
	else if (sched_getaffinity(0, sizeof(client), &client) != 0)
		CPU_ZERO(&client);
	fprintf(stderr, "corecap scale: %g core%s (CPUs ", v, v == 1 ? "" : "s");
	{
		char b[256];

		corecap_cpu_list_format(&cpus, b, sizeof(b));
		fprintf(stderr, "%s%s): %s%s\n", b, quota ? ", CPU quota" : "",
			s->prepare ? "preparing, then recording into " : "recording into ", run);
	}
	ret = scale_confine_begin(&s->conf, &cpus, quota);
	if (ret)
		return ret;
	if (s->prepare) {
		prep = run_prepare(s, v, name, prep_log, &prep_s);
		if (prep < 0) {
			scale_confine_end(&s->conf);
			return prep;
		}
	}
	if (prep == 0 && !stop_signal) {
		ret = corecap_run_dir_create_file(&s->rd, log, &fd);
		if (ret) {
			scale_confine_end(&s->conf);
			return ret;
		}
		child = spawn_record(s, run, fd);
		close(fd);
		if (child < 0) {
			scale_confine_end(&s->conf);
			return child;
		}
		recorded = true;
		for (;;) {
			pid_t w = waitpid(child, &status, WNOHANG);

			if (w == child)
				break;
			if (w < 0 && errno != EINTR) {
				status = 1 << 8;
				break;
			}
			if (stop_signal && !forwarded) {
				kill(child, SIGINT);
				forwarded = true;
			}
			if (!gone && scale_confine_pass(&s->conf) == -ESRCH)
				gone = true;
			nanosleep(&tick, NULL);
		}
	}
	scale_confine_end(&s->conf);

	jp = json_object_new_object();
	json_object_object_add(jp, "cores", json_object_new_double(v));
	json_object_object_add(jp, "cpus", cpus_json(&cpus));
	json_object_object_add(jp, "quota_cpus", quota ? json_object_new_double(quota) : NULL);
	json_object_object_add(jp, "run", recorded ? json_object_new_string(name) : NULL);
	json_object_object_add(jp, "log", recorded ? json_object_new_string(log) : NULL);
	json_object_object_add(jp, "prepare_log",
			       s->prepare ? json_object_new_string(prep_log) : NULL);
	json_object_object_add(jp, "prepare_exit", s->prepare ? json_object_new_int(prep) : NULL);
	json_object_object_add(jp, "prepare_s", s->prepare ? json_object_new_double(prep_s) : NULL);
	json_object_object_add(jp, "client_cpus", cpus_json(&client));
	CPU_AND(&client, &client, &cpus);
	json_object_object_add(jp, "client_shares_cpus", json_object_new_int(CPU_COUNT(&client)));
	json_object_object_add(jp, "threads", json_object_new_int((int)s->conf.threads));
	json_object_object_add(jp, "threads_born", json_object_new_int((int)s->conf.new_threads));
	json_object_object_add(jp, "affinity_resets", json_object_new_int((int)s->conf.resets));
	jr = json_object_new_array();
	for (unsigned k = 0; k < s->conf.resets && k < SCALE_RESET_NAMED; k++)
		json_object_array_add(jr, json_object_new_int(s->conf.reset_tids[k]));
	json_object_object_add(jp, "affinity_reset_tids", jr);
	ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	json_object_object_add(jp, "record_exit", recorded ? json_object_new_int(ret) : NULL);
	if (!recorded)
		ret = stop_signal ? 130 : -1;
	json_object_object_add(jp, "status",
			       json_object_new_string(ret == 0	   ? "ok"
						      : ret == 130 ? "interrupted"
						      : recorded   ? "failed"
								   : "prepare_failed"));
	json_object_array_add(s->jpoints, jp);
	if (write_doc(s))
		return -EIO;
	if (s->conf.resets)
		corecap_warn("%u thread(s) of the daemon left the CPUs of the point at %g cores "
			     "(their own affinity reset); the point is marked",
			     s->conf.resets, v);
	if (ret == 0)
		return 0;
	if (ret == 130 && stop_signal)
		return 1; /* interrupted: said by the caller */
	if (!recorded) {
		last_line(s->rd.dirfd, prep_log, line, sizeof(line));
		corecap_error("the prepare command of the point at %g cores failed: '%s' exited %d "
			      "(%s/%s%s%s); the scale stops",
			      v, s->prepare, prep, s->rd.path, prep_log, line[0] ? ": " : "", line);
		return 1;
	}
	last_line(s->rd.dirfd, log, line, sizeof(line));
	corecap_error("the point at %g cores failed: corecap record exited %d (%s/%s%s%s)", v, ret,
		      s->rd.path, log, line[0] ? ": " : "", line);
	return 1;
}

static int check_points(struct scale_cmd *s)
{
	const cpu_set_t *base = scale_confine_base(&s->conf);
	int allowed = CPU_COUNT(base);
	char list[256], why[512];
	bool fractional = false;

	corecap_cpu_list_format(base, list, sizeof(list));
	if (!s->cores_arg) {
		s->n_points = 0;
		for (int n = 1; n <= allowed && n <= SCALE_MAX_POINTS; n++)
			s->points[s->n_points++] = n;
	}
	for (int i = 0; i < s->n_points; i++) {
		if (ceil(s->points[i]) > allowed) {
			corecap_error(
				"--cores: %g is more than the %d CPU%s process %d may use (%s)",
				s->points[i], allowed, allowed > 1 ? "s" : "", (int)s->pid, list);
			return -EINVAL;
		}
		fractional |= s->points[i] != floor(s->points[i]);
	}
	if (fractional && scale_confine_quota_check(&s->conf, why, sizeof(why))) {
		corecap_error("--cores: a fractional point needs a CPU quota on the daemon's "
			      "cgroup, and %s",
			      why);
		return -ENOTSUP;
	}
	return 0;
}

static void doc_start(struct scale_cmd *s)
{
	char comm[16] = "", path[64];
	json_object *jb = json_object_new_array();

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)s->pid);
	corecap_read_comm(path, comm);
	s->doc = json_object_new_object();
	json_object_object_add(s->doc, "format",
			       json_object_new_string(CORECAP_SCALE_POINTS_FORMAT));
	json_object_object_add(s->doc, "version", json_object_new_int(1));
	json_object_object_add(s->doc, "pid", json_object_new_int(s->pid));
	json_object_object_add(s->doc, "comm", json_object_new_string(comm));
	json_object_object_add(s->doc, "machine_cpus",
			       json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_object_add(s->doc, "daemon_cpus", cpus_json(scale_confine_base(&s->conf)));
	json_object_object_add(s->doc, "client_cpus_set",
			       s->client_arg ? json_object_new_string(s->client_arg) : NULL);
	json_object_object_add(s->doc, "duration_s",
			       s->duration ? json_object_new_double(atof(s->duration)) : NULL);
	for (int i = 0; i < s->n_bench; i++)
		json_object_array_add(jb, json_object_new_string(s->bench[i]));
	json_object_object_add(s->doc, "benchmark", jb);
	jb = json_object_new_array();
	for (int i = 0; i < s->n_record_opts; i++)
		json_object_array_add(jb, json_object_new_string(s->record_opts[i]));
	json_object_object_add(s->doc, "record_opts", jb);
	json_object_object_add(s->doc, "prepare",
			       s->prepare ? json_object_new_string(s->prepare) : NULL);
	s->jpoints = json_object_new_array();
	json_object_object_add(s->doc, "points", s->jpoints);
}

static int run_scale(struct scale_cmd *s)
{
	struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
	char def[4200], comm[16] = "", path[64], tag[32];
	int ret = 0;

	if (kill(s->pid, 0) != 0 && errno == ESRCH) {
		corecap_error("cannot scale process %d: no such process", (int)s->pid);
		return 1;
	}
	if (scale_confine_open(&s->conf, s->pid))
		return 1;
	if (check_points(s)) {
		scale_confine_release(&s->conf);
		return 1;
	}
	if (!s->out) {
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)s->pid);
		corecap_read_comm(path, comm);
		snprintf(tag, sizeof(tag), "scale%d", (int)s->pid);
		corecap_run_dir_default_name(comm[0] ? comm : "daemon", tag, def, sizeof(def));
		s->out = def;
	}
	if (corecap_run_dir_create(&s->rd, s->out, false)) {
		scale_confine_release(&s->conf);
		return 1;
	}
	s->have_rd = true;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	doc_start(s);
	if (write_doc(s))
		ret = 1;
	for (int i = 0; !ret && i < s->n_points && !stop_signal; i++) {
		int r = run_point(s, i);

		if (r)
			ret = 1;
	}
	scale_confine_release(&s->conf);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	json_object_put(s->doc);
	if (stop_signal) {
		fprintf(stderr, "corecap scale: interrupted; the points so far are in %s\n",
			s->rd.path);
		corecap_run_dir_release(&s->rd);
		return 130;
	}
	if (ret) {
		corecap_run_dir_release(&s->rd);
		return 1;
	}
	if (scale_report && scale_report(s->rd.path, s->format, stdout) != 0)
		ret = 1;
	corecap_run_dir_release(&s->rd);
	return ret;
}

int corecap_cmd_scale(int argc, char **argv)
{
	struct scale_cmd s = {0};
	int ret = parse_args(&s, argc, argv);

	if (ret)
		return ret == 1 ? 0 : ret;
	if (s.report) {
		if (!scale_report) {
			corecap_error("this corecap was built without the analysis");
			return 1;
		}
		return scale_report(s.report, s.format, stdout) ? 1 : 0;
	}
	return run_scale(&s);
}
