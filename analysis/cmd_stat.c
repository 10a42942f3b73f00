/*
 * `corecap stat -p PID`: a live, top-like view of a daemon running under
 * the shim (`corecap run`). A leaf over the analysis' rooms: it parses
 * the options, opens the shim's segment (read/stat_snapshot.h) and the
 * symbolizer over /proc/PID/maps, and every interval takes a copy, builds
 * what the interval did from the last two (pass/stat_build.h into
 * model/stat_interval.h) and renders it (render/stat_render.h; keys and
 * terminal: render/stat_view.h). It lives in analysis/ rather than
 * collector/ because what it does is the analysis' (deltas of the stats
 * layout, symbols); the only live thing it touches is a read-only mapping
 * of the shim's memfd (docs/architecture.md). A daemon without the shim,
 * or any with --kernel, gets the kernel view instead (stat_kernel.h).
 */
#include <corecap/analysis.h>
#include <corecap/diag.h>
#include <corecap/stats_layout.h>
#include <corecap/stats_path.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "model/stat_interval.h"
#include "pass/stat_build.h"
#include "read/stat_snapshot.h"
#include "read/symbolizer.h"
#include "render/stat_render.h"
#include "render/stat_view.h"
#include "stat_kernel.h"
#include <corecap/opt_table.h>

const char corecap_stat_usage[] =
	"usage: corecap stat -p PID [-d S] [-i S] [--once] [--json] [--top N]\n"
	"                    [--kernel] [--keep-profiler]\n"
	"\n"
	"A live view of a daemon running under the shim ('corecap run'): every interval,\n"
	"the hot locks and lock call sites by the time threads waited for them in that\n"
	"interval, and the threads by lock, condition-variable and I/O time, named from\n"
	"the daemon's symbols. Figures are differences between two copies of the shim's\n"
	"counters (read from the daemon itself), not totals since the daemon started.\n"
	"A daemon without the shim (or any with --kernel) is watched through kernel\n"
	"events instead (root and tracefs): its threads by running, runnable, futex\n"
	"wait and other blocked time, and the futex words waited on most.\n"
	"\n";

struct stat_opts {
	pid_t pid;
	double duration_s, interval_s;
	bool once, json, kernel, keep_profiler;
	int top;
};

/* The options, in the help's order; getopt_long's array and string come from it. */
static const struct corecap_opt stat_options[] = {
	CORECAP_OPT_ARG('p', 'p', "pid", "PID", "the daemon"),
	CORECAP_OPT_ARG('d', 'd', "duration", "S",
			"stop after S seconds (default: until interrupted)"),
	CORECAP_OPT_ARG('i', 'i', "interval", "S", "seconds per interval (default 1)"),
	CORECAP_OPT_SET('O', 0, "once", struct stat_opts, once, "print one interval and exit"),
	CORECAP_OPT_SET('J', 0, "json", struct stat_opts, json,
			"one JSON object per interval and line, every hot lock,\n"
			"site and thread (keys: corecap-stat(1))"),
	CORECAP_OPT_ARG('T', 0, "top", "N", "rows per table in the text view (default 10)"),
	CORECAP_OPT_SET('K', 0, "kernel", struct stat_opts, kernel,
			"kernel events even when the daemon runs under the shim"),
	CORECAP_OPT_SET('P', 0, "keep-profiler", struct stat_opts, keep_profiler,
			"kernel view: keep the profiler's own threads and locks\n"
			"(LTTng-UST's, the shim's, corecap's), left out by default"),
	CORECAP_OPT_HIDDEN('h', 'h', "help", no_argument),
};

CORECAP_OPT_TABLE(corecap_stat_help, corecap_stat_usage, stat_options,
		  "\n"
		  "Threads also show their share of the interval on a CPU (CPU%) and runnable,\n"
		  "waiting for one (RUNQ%), from /proc/PID/task/TID/schedstat. ops/s counts the\n"
		  "ops the daemon's annotations end (corecap_op_end, corecap/annotate.h), per\n"
		  "interval and since the shim started; for a daemon without annotations it\n"
		  "counts the replies the shim sees, 'ops/s: N detected' (a socket write after\n"
		  "a read on the same connection: report's rule for detected ops).\n"
		  "\n"
		  "On a terminal the view is redrawn in place, with the time since stat started\n"
		  "and keys: s or >/< cycle the threads' sort key (LOCK%, CPU%, RUNQ%, COND%,\n"
		  "IO%, THREAD), q quits (the terminal restored); otherwise intervals follow each\n"
		  "other. See also corecap-stat(1), corecap-run(1), corecap-record(1).\n",
		  .help_col = 21, .min_gap = 2, .overflow_gap = 2,
		  .shorts = CORECAP_SHORTS_ALIGNED);

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 1e7)
		return false;
	*out = v;
	return true;
}

static int parse_args(struct stat_opts *o, int argc, char **argv)
{
	struct corecap_getopt g;
	char *end;
	long v;
	int c;

	*o = (struct stat_opts){.interval_s = 1.0, .top = 10};
	opterr = 0;
	corecap_opts_start(&g, &corecap_stat_help, ":", o);
	while ((c = corecap_opts_next(&g, argc, argv)) != -1) {
		switch (c) {
		case 'p':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v <= 0 || v > INT32_MAX) {
				corecap_error("-p '%s': not a process id", optarg);
				return 2;
			}
			o->pid = (pid_t)v;
			break;
		case 'd':
			if (!parse_seconds(optarg, &o->duration_s)) {
				corecap_error("-d '%s': expected a positive number of seconds",
					      optarg);
				return 2;
			}
			break;
		case 'i':
			if (!parse_seconds(optarg, &o->interval_s)) {
				corecap_error(
					"--interval '%s': expected a positive number of seconds",
					optarg);
				return 2;
			}
			break;
		case 'T':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v <= 0 || v > 100000) {
				corecap_error("--top '%s': expected a positive number of rows",
					      optarg);
				return 2;
			}
			o->top = (int)v;
			break;
		case 'h':
			corecap_cmd_help(stdout, &corecap_stat_help);
			return -1;
		case ':':
			return corecap_usage_error(corecap_stat_usage, "option '%s' needs a value",
						   argv[optind - 1]);
		default:
			return corecap_usage_error(corecap_stat_usage, "unrecognized option '%s'",
						   argv[optind - 1]);
		}
	}
	if (optind < argc) {
		return corecap_usage_error(corecap_stat_usage, "unexpected argument '%s'",
					   argv[optind]);
	}
	if (!o->pid) {
		return corecap_usage_error(corecap_stat_usage, "-p PID is required");
	}
	return 0;
}

/*
 * Maps the shim's counters of o->pid read-only (read/stat_snapshot.h):
 * reached through the process itself and checked (corecap/stats_path.h:
 * sealed against shrinking, owned by the process's user or root; a
 * bounded size). 0, or 1 with the error printed: no such process, no shim
 * segment, not allowed, or not this process's.
 */
static int open_segment(const struct stat_opts *o, int found, const char *what, const char *why,
			size_t bytes, const void **map, size_t *len)
{
	char comm[64] = "";
	int32_t seg_pid = 0;
	uint32_t seg_version = 0;
	int fd = found, ret;

	if (!corecap_stat_process_comm(o->pid, comm, sizeof(comm))) {
		corecap_error("no process with PID %d", (int)o->pid);
		return 1;
	}
	if (fd == -ENOENT) {
		corecap_error("process %d (%s) has no shim segment (no '" CORECAP_STATS_LINK_FMT
			      "' in '%s')",
			      (int)o->pid, comm, (int)o->pid, what);
		corecap_note("stat reads the counters of corecap's shim: start the daemon under "
			     "it (corecap run -- DAEMON ARGS); without the shim, 'corecap stat "
			     "--kernel -p %d' shows its threads' states and futex waits from the "
			     "kernel's events",
			     (int)o->pid);
		return 1;
	}
	if (fd < 0) {
		corecap_error("cannot read the shim's counters of process %d (%s): cannot open "
			      "'%s': %s",
			      (int)o->pid, comm, what, why);
		if (fd == -EACCES) {
			uid_t ruid = 0, euid = 0;

			/* Named with the uids: the segment may well be there, unreadable. */
			if (corecap_stats_proc_uids(o->pid, &ruid, &euid) && euid == geteuid())
				corecap_note(
					"permission denied although stat runs as the daemon's "
					"user (uid %u): the daemon is not dumpable (it set "
					"PR_SET_DUMPABLE 0 or changed its credentials), so only "
					"root may read its descriptors",
					(unsigned)euid);
			else
				corecap_note(
					"permission denied: stat runs as uid %u; it reads the "
					"shim's counters of a daemon started with corecap run as "
					"the daemon's user (uid %u) or as root; "
					"kernel events (--kernel) need root or CAP_PERFMON",
					(unsigned)geteuid(), (unsigned)euid);
		}
		return 1;
	}
	*len = bytes;
	ret = corecap_stat_segment_map(o->pid, fd, bytes, map, &seg_pid, &seg_version);
	if (ret == -EPROTO) {
		corecap_error("'%s': not a corecap stats segment", what);
		return 1;
	}
	if (ret == -EPROTONOSUPPORT) {
		corecap_error("'%s': the shim segment of process %d (%s) has layout version %u; "
			      "this corecap reads versions %d to %d",
			      what, (int)o->pid, comm, (unsigned)seg_version,
			      CORECAP_STATS_VERSION_OLDEST, CORECAP_STATS_VERSION);
		corecap_note("the daemon runs under another release's shim: watch it with that "
			     "release's corecap, or restart it under this one's (corecap run)");
		return 1;
	}
	if (ret == -ESRCH) {
		corecap_error("'%s' is the shim segment of PID %d, not of process %d (%s)", what,
			      (int)seg_pid, (int)o->pid, comm);
		return 1;
	}
	if (ret) {
		corecap_error("cannot map '%s': %s", what, strerror(-ret));
		return 1;
	}
	return 0;
}

/* Sleeps until deadline_ns (CLOCK_MONOTONIC) or a signal asks to stop. */
static void sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = {(time_t)(deadline_ns / 1000000000u),
			      (long)(deadline_ns % 1000000000u)};

	while (!stop_requested &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* The kernel view (stat_kernel.h), for a daemon without the shim or with --kernel. */
static int run_kernel(const struct stat_opts *o, const char *comm, bool no_shim)
{
	struct sigaction sa = {.sa_handler = on_signal};
	struct stat_kernel_opts k = {.pid = o->pid,
				     .comm = comm,
				     .duration_s = o->duration_s,
				     .interval_s = o->interval_s,
				     .once = o->once,
				     .json = o->json,
				     .redraw = !o->json && !o->once && isatty(STDOUT_FILENO),
				     .interactive = !o->json && !o->once && isatty(STDOUT_FILENO) &&
						    isatty(STDIN_FILENO),
				     .no_shim = no_shim,
				     .keep_profiler = o->keep_profiler,
				     .top = o->top};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return corecap_stat_kernel_run(&k, &stop_requested);
}

static int run_stat(const struct stat_opts *o)
{
	struct stat_snap snaps[2] = {{0}, {0}};
	struct symbolizer sym;
	const void *map = NULL;
	char comm[64] = "", maps[64], seg[CORECAP_STATS_PATH_MAX], why[256], *err = NULL;
	size_t len = 0, bytes = 0;
	uid_t owner;
	int found;
	uint64_t start_ns, step_ns = (uint64_t)(o->interval_s * 1e9), next_ns;
	bool redraw = !o->json && !o->once && isatty(STDOUT_FILENO), sym_ok, have_last = false;
	int ret, cur = 0, status = 0;
	struct sigaction sa = {.sa_handler = on_signal};
	struct stat_term term = {.fd = -1};
	struct stat_interval last = {0};
	/* The threads' order: lock wait, unless a key chose another (interactive only). */
	struct stat_live lv = {.redraw = redraw, .sort = STAT_SORT_LOCK};
	struct stat_view_of of = {.pid = o->pid, .comm = comm, .top = o->top};

	if (!corecap_stat_process_comm(o->pid, comm, sizeof(comm))) {
		corecap_error("no process with PID %d", (int)o->pid);
		return 1;
	}
	if (o->kernel)
		return run_kernel(o, comm, false);
	if (corecap_stats_legacy_file(o->pid, seg, sizeof(seg), &owner))
		corecap_warn("ignoring '%s' (owner uid %u): corecap reads the shim's counters from "
			     "process %d itself, never from a file",
			     seg, (unsigned)owner, (int)o->pid);
	found = corecap_stats_open(o->pid, O_RDONLY, &bytes, seg, sizeof(seg), why, sizeof(why));
	if (found == -ENOENT && corecap_stat_kernel_source())
		return run_kernel(o, comm, true);
	if (open_segment(o, found, seg, why, bytes, &map, &len))
		return 1;
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)o->pid);
	ret = corecap_symbolizer_init(&sym, maps, NULL, NULL, &err);
	sym_ok = ret == 0 || ret == -ENOENT;
	if (!sym_ok) {
		/* Addresses then print as hex; the figures stay right. */
		corecap_warn("symbols: %s", err ? err : "cannot read the process's maps");
		free(err);
		corecap_symbolizer_init(&sym, "/nonexistent/maps", NULL, NULL, &err);
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (step_ns < 1000000)
		step_ns = 1000000;
	/* Keys only where the view is redrawn and read from a terminal; every
	 * way out of the loop below passes the restore after it. */
	lv.interactive = redraw && corecap_stat_term_enter(&term) == 0;
	ret = corecap_stat_snap_take(o->pid, map, len, &snaps[cur]);
	start_ns = snaps[cur].t_ns;
	next_ns = start_ns + step_ns;
	while (ret == 0 && !stop_requested) {
		struct stat_interval iv;
		const struct corecap_stats_header *h;
		bool gone;

		if (lv.interactive) {
			enum stat_key k = corecap_stat_wait_key(&term, next_ns, &stop_requested);

			if (k == STAT_KEY_QUIT)
				break;
			if (k == STAT_KEY_SORT_NEXT || k == STAT_KEY_SORT_PREV) {
				/* Redrawn at once in the new order, as top does. */
				lv.sort = corecap_stat_sort_step(lv.sort,
								 k == STAT_KEY_SORT_NEXT ? 1 : -1);
				if (have_last) {
					corecap_stat_interval_sort_threads(&last, lv.sort);
					lv.elapsed_ns = now_ns() - start_ns;
					corecap_stat_render_text(&of, &last, &sym, snaps[cur].buf,
								 &lv);
				}
				continue;
			}
		} else {
			sleep_until(next_ns);
		}
		if (stop_requested)
			break;
		ret = corecap_stat_snap_take(o->pid, map, len, &snaps[!cur]);
		if (ret)
			break;
		cur = !cur;
		next_ns += step_ns;
		if (corecap_stat_build(&iv, &snaps[!cur], &snaps[cur], &sym, lv.sort)) {
			ret = -ENOMEM;
			break;
		}
		h = snaps[cur].buf;
		lv.elapsed_ns = snaps[cur].t_ns - start_ns;
		if (o->json)
			corecap_stat_render_json(&of, &iv, &sym, h, snaps[cur].t_ns);
		else
			corecap_stat_render_text(&of, &iv, &sym, h, &lv);
		/* The interactive view keeps it, to redraw it in another order. */
		if (have_last)
			corecap_stat_interval_release(&last);
		last = iv;
		have_last = true;
		gone = kill(o->pid, 0) < 0 && errno == ESRCH;
		if (gone || h->flags & CORECAP_STATS_F_EXITING) {
			corecap_note("process %d %s", (int)o->pid,
				     gone ? "exited" : "is exiting; its counters are final");
			break;
		}
		if (o->once || (o->duration_s > 0 &&
				(double)(snaps[cur].t_ns - start_ns) >= o->duration_s * 1e9 - 1e6))
			break;
		if (!o->json && !redraw)
			printf("\n");
	}
	corecap_stat_term_restore(&term);
	if (have_last)
		corecap_stat_interval_release(&last);
	if (ret == -EAGAIN)
		corecap_error("the shim segment of PID %d never held still for a copy",
			      (int)o->pid);
	else if (ret == -EINVAL)
		corecap_error("the shim segment of PID %d is no longer a valid stats file",
			      (int)o->pid);
	else if (ret)
		corecap_error("%s", strerror(-ret));
	status = ret ? 1 : 0;
	corecap_symbolizer_release(&sym);
	for (int i = 0; i < 2; i++)
		corecap_stat_snap_release(&snaps[i]);
	munmap((void *)(uintptr_t)map, len);
	return status;
}

int corecap_cmd_stat(int argc, char **argv)
{
	struct stat_opts o;
	int ret = parse_args(&o, argc, argv);

	if (ret)
		return ret < 0 ? 0 : ret;
	return run_stat(&o);
}
