#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cpu_list.h"
#include "record_opts.h"
#include <corecap/opt_table.h>
#include <corecap/run_format.h>

const char corecap_record_usage[] =
	"usage: corecap record -p PID[,PID...] | --ceph-osds[=DIR]\n"
	"                      [-o RUN] [-d SECONDS] [--wallclock[=HZ]]\n"
	"                      [--wallclock-threads NAMES] [--no-trace]\n"
	"                      [--wallclock-via auto|kernel|ptrace]\n"
	"                      [--event NAME]... [--threads-hz HZ] [-q] [--force]\n"
	"                      [--ceph-asok PATH | --no-ceph] [--ceph-history drain|end]\n"
	"                      [--no-cpu-profile]\n"
	"                      [--kernel | --no-kernel] [--kernel-via auto|bpf|perf]\n"
	"                      [--collector-cpus LIST] [--oncpu-hz HZ]\n"
	"                      [-- BENCHMARK ARGS...]\n"
	"       corecap record --hosts FILE [--rsh CMD] [--corecap-path PATH]\n"
	"                      [--record-opt OPT]... [-o RUN] [-d SECONDS] [--force]\n"
	"                      [--relayd-url URL | --no-relayd]\n"
	"                      [-- BENCHMARK ARGS...]\n"
	"\n"
	"Records the running process PID for a window: the benchmark's run, or -d\n"
	"seconds, or until Ctrl-C; the window ends at whichever comes first.\n"
	"\n";

enum {
	OPT_WALLCLOCK = 256,
	OPT_NO_TRACE,
	OPT_EVENT,
	OPT_FORCE,
	OPT_THREADS_HZ,
	OPT_CEPH_ASOK,
	OPT_NO_CEPH,
	OPT_CEPH_HISTORY,
	OPT_WALL_THREADS,
	OPT_NO_CPU_PROFILE,
	OPT_KERNEL,
	OPT_NO_KERNEL,
	OPT_KERNEL_VIA,
	OPT_CEPH_OSDS,
	OPT_SYNC_FDS,
	OPT_RELAYD_URL,
	OPT_COLLECTOR_CPUS,
	OPT_ONCPU_HZ,
	OPT_WALL_VIA,
};

/* The options, in the help's order; getopt_long's array and string come from it. */
static const struct corecap_opt record_opts[] = {
	CORECAP_OPT_ARG('p', 'p', "pid", "PID",
			"the daemon to record; PID1,PID2,... several daemons in\n"
			"one window, one run (RUN/" CORECAP_RUN_DAEMONS_DIR "/PID/ each)"),
	CORECAP_OPT_OPTARG(OPT_CEPH_OSDS, 0, "ceph-osds", "DIR",
			   "every ceph-osd whose admin socket is in DIR (default: the\n"
			   "directory of the Ceph configuration's 'admin socket',\n"
			   "CEPH_CONF honoured, else /var/run/ceph)"),
	/* --hosts and its options are host_record.c's (corecap_record_hosts_wanted). */
	CORECAP_OPT_DOC("hosts", required_argument, "FILE",
			"the daemon of each host of FILE, each host recording its\n"
			"own through a remote shell, one run (RUN/hosts/NAME/\n"
			"each; docs/hosts.md)"),
	CORECAP_OPT_DOC("rsh", required_argument, "CMD",
			"with --hosts: the remote shell, split at blanks (ssh)"),
	CORECAP_OPT_DOC("corecap-path", required_argument, "PATH",
			"with --hosts: corecap on the hosts (default corecap)"),
	CORECAP_OPT_DOC("record-opt", required_argument, "OPT",
			"with --hosts: an option for every host's record"),
	CORECAP_OPT_DOC("relayd-url", required_argument, "URL",
			"with --hosts: start an lttng-relayd of ours on URL,\n"
			"net://IPV4[:CTRL:DATA] or net6://[IPV6][:CTRL:DATA], the\n"
			"address the hosts reach this one by (default: reuse one\n"
			"running as this user, else start one on every address)"),
	CORECAP_OPT_DOC("no-relayd", no_argument, NULL,
			"with --hosts: the hosts' traces come over the remote shell"),
	CORECAP_OPT_ARG('o', 'o', "output", "RUN",
			"run directory (default ./corecap-COMM-PID-YYYYmmdd-HHMMSS)"),
	CORECAP_OPT_ARG('d', 'd', "duration", "SEC",
			"window length in seconds (a benchmark is interrupted then)"),
	CORECAP_OPT_OPTARG(OPT_WALLCLOCK, 0, "wallclock", "HZ",
			   "sample every thread's stack HZ times a second, on a CPU\n"
			   "or off it (default 50 Hz): by the kernel with kernel\n"
			   "events (no thread stopped), else with ptrace"),
	CORECAP_OPT_ARG(OPT_WALL_THREADS, 0, "wallclock-threads", "NAMES",
			"sample only threads whose name matches one of these\n"
			"comma-separated globs (implies --wallclock; ptrace)"),
	CORECAP_OPT_ARG(OPT_WALL_VIA, 0, "wallclock-via", "auto|kernel|ptrace",
			"--wallclock's sampler: the kernel's (cpu-clock samples and\n"
			"a BPF task iterator's rounds: kernel), ptrace's (each\n"
			"thread stopped in turn: ptrace), or the kernel's where\n"
			"it loads, else ptrace's (auto, the default)"),
	CORECAP_OPT_FLAG(OPT_NO_TRACE, 0, "no-trace",
			 "no LTTng session (no " CORECAP_RUN_TRACE "/ in the run)"),
	CORECAP_OPT_ARG(OPT_EVENT, 0, "event", "NAME",
			"also enable this LTTng-UST event (repeatable; globs allowed)"),
	CORECAP_OPT_ARG(OPT_THREADS_HZ, 0, "threads-hz", "HZ",
			"per-thread /proc sampling rate (default 10)"),
	CORECAP_OPT_ARG(OPT_ONCPU_HZ, 0, "oncpu-hz", "HZ",
			"with kernel events and without --wallclock: the\n"
			"daemon's stacks on a CPU, sampled by the kernel (a\n"
			"cpu-clock perf event, no thread stopped) HZ times per\n"
			"second of CPU time, as the run's wall-clock samples\n"
			"(default " CORECAP_STR(CORECAP_RECORD_ONCPU_HZ_DEFAULT) "; 0: none)"),
	CORECAP_OPT_SET('q', 'q', "quiet", struct corecap_record_opts, quiet,
			"no progress, no benchmark echo on stdout"),
	CORECAP_OPT_SET(OPT_FORCE, 0, "force", struct corecap_record_opts, force,
			"replace RUN if it exists and holds a corecap run"),
	CORECAP_OPT_ARG(OPT_CEPH_ASOK, 0, "ceph-asok", "PATH",
			"a Ceph daemon's admin socket: OpTracker history and perf\n"
			"dumps into RUN/" CORECAP_RUN_CEPH_DIR
			"/ (found by itself for a ceph-osd)"),
	CORECAP_OPT_SET(OPT_NO_CEPH, 0, "no-ceph", struct corecap_record_opts, no_ceph,
			"do not use a Ceph daemon's admin socket"),
	CORECAP_OPT_ARG(OPT_CEPH_HISTORY, 0, "ceph-history", "drain|end",
			"the OpTracker history: drained in slices during the\n"
			"window, a few ms of the OSD's lock each (default), or\n"
			"dumped once at its end (every op up to 10000, the OSD's\n"
			"lock held while it formats them all)"),
	CORECAP_OPT_SET(OPT_NO_CPU_PROFILE, 0, "no-cpu-profile", struct corecap_record_opts,
			no_cpu_profile, "leave the daemon's gperftools profiler alone"),
	CORECAP_OPT_FLAG(OPT_KERNEL, 0, "kernel",
			 "require the kernel events (scheduler, futex; on by default\n"
			 "when permitted: root or CAP_PERFMON, tracefs)"),
	CORECAP_OPT_FLAG(OPT_NO_KERNEL, 0, "no-kernel",
			 "no kernel events (no " CORECAP_KERNEL_DIR "/ in the run)"),
	CORECAP_OPT_ARG(OPT_KERNEL_VIA, 0, "kernel-via", "auto|bpf|perf",
			"how: eBPF programs (bpf: a fifth of perf's cost per\n"
			"record), perf_event_open's tracepoint samples (perf),\n"
			"or eBPF where it loads, else perf (auto, the default)"),
	CORECAP_OPT_ARG(OPT_COLLECTOR_CPUS, 0, "collector-cpus", "LIST",
			"keep corecap's own threads on these CPUs (taskset's\n"
			"form: 0,2-3), off the daemon's; the benchmark is not\n"
			"confined (see corecap-record(1) for the trade-off)"),
	CORECAP_OPT_FLAG('h', 'h', "help", "this text"),
	/* How a multi-daemon record talks to its children. */
	CORECAP_OPT_HIDDEN(OPT_SYNC_FDS, 0, "sync-fds", required_argument),
	/* How a host of record --hosts streams its trace (collector/hosts/host_agent.c). */
	CORECAP_OPT_HIDDEN(OPT_RELAYD_URL, 0, "relayd-url", required_argument),
};

CORECAP_OPT_TABLE(corecap_record_help, corecap_record_usage, record_opts,
		  "\n"
		  "The run directory format is described in docs/run-directory.md;\n"
		  "see also corecap-record(1).\n",
		  .help_col = 24, .shorts = CORECAP_SHORTS_ALIGNED);

static int fail(struct corecap_record_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct corecap_record_opts *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->error, sizeof(o->error), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < CORECAP_RECORD_MIN_DURATION_S || v > 86400)
		return false;
	*out = v;
	return true;
}

/* -p PID[,PID...]: distinct PIDs, each named in its error. */
static int parse_pids(struct corecap_record_opts *o, const char *arg)
{
	const char *p = arg;
	unsigned long v;

	if (o->n_pids)
		return fail(o, "-p given twice (list several daemons as -p PID1,PID2)");
	for (;;) {
		char one[32];
		size_t len = strcspn(p, ",");

		if (len == 0 || len >= sizeof(one))
			return fail(o, "invalid PID list '%s' (expected PID1,PID2,...)", arg);
		memcpy(one, p, len);
		one[len] = '\0';
		if (!parse_ulong(one, 1, INT_MAX, &v))
			return fail(o, "invalid PID '%s'", one);
		for (size_t i = 0; i < o->n_pids; i++)
			if (o->pids[i] == (pid_t)v)
				return fail(o, "PID %lu is given twice in '%s'", v, arg);
		if (o->n_pids == CORECAP_RECORD_MAX_PIDS)
			return fail(o, "too many PIDs (at most %d)", CORECAP_RECORD_MAX_PIDS);
		o->pids[o->n_pids++] = (pid_t)v;
		if (!p[len])
			break;
		p += len + 1;
	}
	o->pid = o->pids[0];
	return 0;
}

/* One option's value into o (the ones the table stores are not seen here):
 * 0, 1 for --help, or -EINVAL with the message in o->error. */
static int take_option(struct corecap_record_opts *o, int c, char **argv)
{
	unsigned long v;

	switch (c) {
	case 'p':
		return parse_pids(o, optarg);
	case OPT_CEPH_OSDS:
		if (optarg && !*optarg)
			return fail(o, "empty --ceph-osds directory");
		o->ceph_osds = true;
		o->ceph_osds_dir = optarg;
		break;
	case OPT_SYNC_FDS: {
		int rfd, wfd, n = -1;

		if (sscanf(optarg, "%d,%d%n", &rfd, &wfd, &n) != 2 || n < 0 || optarg[n] ||
		    rfd < 0 || wfd < 0)
			return fail(o, "invalid --sync-fds '%s'", optarg);
		o->sync_rfd = rfd;
		o->sync_wfd = wfd;
		break;
	}
	case OPT_RELAYD_URL:
		if (strncmp(optarg, "net://", 6) != 0 && strncmp(optarg, "net6://", 7) != 0)
			return fail(o, "invalid --relayd-url '%s'", optarg);
		o->relayd_url = optarg;
		break;
	case 'o':
		if (!*optarg)
			return fail(o, "empty run directory name");
		o->output = optarg;
		break;
	case 'd':
		if (!parse_seconds(optarg, &o->duration_s))
			return fail(o,
				    "invalid duration '%s' (seconds, at least %g, at most "
				    "86400)",
				    optarg, CORECAP_RECORD_MIN_DURATION_S);
		break;
	case OPT_WALLCLOCK:
		if (!optarg) {
			o->wall_hz = CORECAP_RECORD_WALL_HZ_DEFAULT;
		} else if (parse_ulong(optarg, 1, 1000, &v)) {
			o->wall_hz = (unsigned)v;
		} else {
			return fail(o, "invalid --wallclock rate '%s' (1 to 1000 Hz)", optarg);
		}
		break;
	case OPT_ONCPU_HZ:
		if (!parse_ulong(optarg, 0, 1000, &v))
			return fail(o, "invalid --oncpu-hz rate '%s' (0 to 1000 Hz)", optarg);
		o->oncpu_hz = (unsigned)v;
		break;
	case OPT_WALL_THREADS:
		if (!*optarg || strspn(optarg, ",") == strlen(optarg))
			return fail(o,
				    "invalid --wallclock-threads '%s' (thread name globs, "
				    "comma-separated)",
				    optarg);
		o->wall_threads = optarg;
		break;
	case OPT_THREADS_HZ:
		if (!parse_ulong(optarg, 1, 1000, &v))
			return fail(o, "invalid --threads-hz rate '%s' (1 to 1000 Hz)", optarg);
		o->threads_hz = (unsigned)v;
		break;
	case OPT_NO_TRACE:
		o->trace = false;
		break;
	case OPT_EVENT:
		if (!*optarg)
			return fail(o, "empty --event name");
		if (o->n_events == CORECAP_RECORD_MAX_EVENTS)
			return fail(o, "too many --event options (at most %d)",
				    CORECAP_RECORD_MAX_EVENTS);
		o->events[o->n_events++] = optarg;
		break;
	case OPT_CEPH_ASOK:
		if (!*optarg)
			return fail(o, "empty --ceph-asok path");
		o->ceph_asok = optarg;
		break;
	case OPT_CEPH_HISTORY:
		if (strcmp(optarg, "drain") && strcmp(optarg, "end"))
			return fail(o, "invalid --ceph-history '%s': expected drain or end",
				    optarg);
		o->ceph_history_end = strcmp(optarg, "end") == 0;
		break;
	case OPT_KERNEL:
	case OPT_NO_KERNEL:
		if (o->kernel != CORECAP_RECORD_KERNEL_AUTO &&
		    o->kernel != (c == OPT_KERNEL ? CORECAP_RECORD_KERNEL_REQUIRE
						  : CORECAP_RECORD_KERNEL_OFF))
			return fail(o, "--kernel and --no-kernel exclude each other");
		o->kernel =
			c == OPT_KERNEL ? CORECAP_RECORD_KERNEL_REQUIRE : CORECAP_RECORD_KERNEL_OFF;
		break;
	case OPT_WALL_VIA:
		if (strcmp(optarg, "auto") && strcmp(optarg, "kernel") && strcmp(optarg, "ptrace"))
			return fail(o, "--wallclock-via takes auto, kernel or ptrace, not '%s'",
				    optarg);
		o->wall_via = optarg;
		break;
	case OPT_KERNEL_VIA:
		if (strcmp(optarg, "auto") && strcmp(optarg, "perf") && strcmp(optarg, "bpf"))
			return fail(o, "--kernel-via takes perf, bpf or auto, not '%s'", optarg);
		o->kernel_via = optarg;
		break;
	case OPT_COLLECTOR_CPUS: {
		char why[160];

		if (corecap_cpu_list_parse(optarg, &o->collector_set, why, sizeof(why)))
			return fail(o, "invalid --collector-cpus: %s", why);
		o->collector_cpus = optarg;
		break;
	}
	case 'h':
		return 1;
	case ':':
		return fail(o, "option '%s' needs an argument", argv[optind - 1]);
	default:
		if (optopt)
			return fail(o, "unknown option '-%c'", optopt);
		return fail(o, "unknown option '%s'", argv[optind - 1]);
	}
	return 0;
}

/* What the options say together, and the benchmark after "--": 0 or -EINVAL. */
static int check_together(struct corecap_record_opts *o, int argc, char **argv)
{
	if (optind < argc) {
		/* getopt consumed a "--" if there was one; anything left is the benchmark. */
		if (strcmp(argv[optind - 1], "--") != 0)
			return fail(o, "unexpected argument '%s' (put the benchmark after '--')",
				    argv[optind]);
		o->bench_argv = &argv[optind];
	} else if (optind > 0 && optind == argc && strcmp(argv[optind - 1], "--") == 0) {
		return fail(o, "no benchmark command after '--'");
	}
	if (o->ceph_osds && o->n_pids)
		return fail(o, "-p and --ceph-osds exclude each other");
	if (o->ceph_osds && o->ceph_asok)
		return fail(o, "--ceph-osds finds each OSD's admin socket: no --ceph-asok");
	if (o->ceph_osds && o->no_ceph)
		return fail(o, "--ceph-osds and --no-ceph exclude each other");
	if (o->n_pids > 1 && o->ceph_asok)
		return fail(o, "--ceph-asok names one daemon's socket: not with several PIDs");
	if (o->pid == 0 && !o->ceph_osds)
		return fail(o, "missing -p PID");
	if (o->wall_threads && !o->wall_hz)
		o->wall_hz = CORECAP_RECORD_WALL_HZ_DEFAULT;
	return 0;
}

int corecap_record_opts_parse(struct corecap_record_opts *o, int argc, char **argv)
{
	struct corecap_getopt g;
	int ret;
	int c;

	memset(o, 0, sizeof(*o));
	o->sync_rfd = o->sync_wfd = -1;
	o->kernel_via = "auto";
	o->wall_via = "auto";
	o->trace = true;
	o->threads_hz = CORECAP_RECORD_THREADS_HZ_DEFAULT;
	o->oncpu_hz = CORECAP_RECORD_ONCPU_HZ_DEFAULT;
	corecap_opts_start(&g, &corecap_record_help, "+:", o);
	opterr = 0;
	while ((c = corecap_opts_next(&g, argc, argv)) != -1) {
		ret = take_option(o, c, argv);
		if (ret)
			return ret;
	}
	return check_together(o, argc, argv);
}
