/*
 * `corecap host-record` (internal): a host's end of `corecap record
 * --hosts` (host_record.h, docs/hosts.md), started through the remote
 * shell. It records the daemons of this host with this program's own
 * `record -p PID[,PID...] -o TMP/run --sync-fds R,W` (or `--ceph-osds`:
 * then, as with several PIDs, a run of several daemons,
 * record_multi.h) in a private directory it
 * makes (mkdtemp, mode 0700), relays the record's ready/started to the
 * recording host and the go and the window's end (EOF on stdin) to the
 * record, then sends the run back as a ustar stream on stdout and removes
 * its directory.
 *
 * Protocol on stdout, lines of at most CORECAP_HOST_LINE_MAX_PROTO bytes:
 *   "corecap-host 1", "ready PID", "started", then at the end either
 *   "done STATUS" followed by the stream, or "failed STATUS" (no run).
 * On stdin: "go" (start the window); EOF ends it (or abandons the record
 * before the go). A recording host that dies closes stdin by dying, so
 * the record still ends its window and the daemon is left running.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <corecap/collector.h>
#include <corecap/diag.h>
#include <corecap/opt_table.h>

#include "host_record.h"
#include "host_relayd.h"
#include "host_spec.h"
#include "util/proc_stat.h"

const char corecap_host_record_usage[] =
	"usage: corecap host-record (--pid PID[,PID...] | --comm NAME | --ceph-osds[=DIR])\n"
	"                           [--record-opt OPT]...\n"
	"                           [--relayd-url net://[ADDR]:CTRL:DATA/PATH]\n"
	"\n"
	"Internal: a host's end of 'corecap record --hosts' (docs/hosts.md), run\n"
	"through the remote shell. Records its daemons into a private directory,\n"
	"driven by lines on stdin, and sends the run back as a ustar stream.\n";

/* The options (internal: none in the help); getopt_long's array and string come from it. */
static const struct corecap_opt host_record_options[] = {
	CORECAP_OPT_HIDDEN('p', 0, "pid", required_argument),
	CORECAP_OPT_HIDDEN('c', 0, "comm", required_argument),
	CORECAP_OPT_HIDDEN('O', 0, "ceph-osds", optional_argument),
	CORECAP_OPT_HIDDEN('r', 0, "record-opt", required_argument),
	CORECAP_OPT_HIDDEN('u', 0, "relayd-url", required_argument),
	CORECAP_OPT_HIDDEN('h', 'h', "help", no_argument),
};

static CORECAP_OPT_TABLE(host_record_help, corecap_host_record_usage, host_record_options, NULL,
			 .shorts = CORECAP_SHORTS_HIDDEN);

static int say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int say(const char *fmt, ...)
{
	char line[CORECAP_HOST_LINE_MAX_PROTO + 2];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return write(STDOUT_FILENO, line, (size_t)n) == n ? 0 : -1;
}

/* find_comm's walk over /proc: the processes named comm in own_net. */
struct comm_walk {
	const char *comm;
	char own_net[64];
	pid_t found;
	int n;
};

static bool comm_one(pid_t pid, int dirfd, void *ctx)
{
	struct comm_walk *w = ctx;
	char net[64];
	ssize_t len;

	if (!corecap_proc_comm_is(dirfd, w->comm))
		return false;
	len = readlinkat(dirfd, "ns/net", net, sizeof(net) - 1);
	if (len <= 0)
		return false;
	net[len] = '\0';
	if (strcmp(net, w->own_net) == 0) {
		w->found = pid;
		w->n++;
	}
	return false;
}

/*
 * The one process named comm (its /proc/PID/comm) in this host's network
 * namespace (the remote shell's): hosts that share a kernel (containers,
 * the tests' namespaces) see each other's processes, and a daemon is its
 * host's by the network it serves on. 0 and a message if not one.
 */
static pid_t find_comm(const char *comm)
{
	struct comm_walk w = {.comm = comm};
	ssize_t l = readlink("/proc/self/ns/net", w.own_net, sizeof(w.own_net) - 1);
	int ret;

	w.own_net[l > 0 ? l : 0] = '\0';
	if ((ret = corecap_proc_each(comm_one, &w)) < 0) {
		corecap_error("cannot list '/proc': %s", strerror(-ret));
		return 0;
	}
	if (w.n == 1)
		return w.found;
	if (w.n == 0)
		corecap_error("no process named '%s' in this host's network namespace", comm);
	else
		corecap_error(
			"%d processes named '%s' in this host's network namespace: give its PID",
			w.n, comm);
	return 0;
}

/* A line on stdin, at most 16 bytes; 1 for "go", 0 at EOF, -1 for anything else. */
static int read_go(void)
{
	char buf[17];
	size_t len = 0;

	while (len < sizeof(buf) - 1) {
		ssize_t got = read(STDIN_FILENO, buf + len, 1);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return 0;
		if (buf[len] == '\n') {
			buf[len] = '\0';
			return strcmp(buf, "go") == 0 ? 1 : -1;
		}
		len++;
	}
	return -1;
}

/* Waits for one byte from the record (or its exit: -1); stdin's EOF too when watch_in. */
static int wait_record(int said_fd, bool watch_in, char *c)
{
	for (;;) {
		struct pollfd pfd[2] = {{.fd = said_fd, .events = POLLIN},
					{.fd = watch_in ? STDIN_FILENO : -1, .events = POLLIN}};

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (pfd[0].revents)
			return read(said_fd, c, 1) == 1 ? 0 : -1;
		if (pfd[1].revents) {
			char junk[16];
			ssize_t got = read(STDIN_FILENO, junk, sizeof(junk));

			if (got <= 0)
				return -2; /* the recording host ended (or gave up) */
		}
	}
}

static int wait_status(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 255;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Runs argv with stdout as ours (the stream) and stdin closed; its status. */
static int run(char *const argv[])
{
	pid_t pid = fork();

	if (pid < 0)
		return 255;
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null >= 0)
			dup2(null, STDIN_FILENO);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		_exit(127);
	}
	return wait_status(pid);
}

int corecap_cmd_host_record(int argc, char **argv)
{
	struct corecap_getopt g;
	char tmp[] = "/tmp/corecap-host.XXXXXX", out[64], self[PATH_MAX], fds[32];
	char pidarg[CORECAP_HOST_PIDS_MAX * 8 + 1], osds[CORECAP_HOST_OSD_DIR_MAX + 16];
	const char *comm = NULL, *extra[CORECAP_HOST_RECORD_OPTS_MAX], *url = NULL;
	struct corecap_host daemons = {0};
	char url_buf[300];
	char *args[16 + CORECAP_HOST_RECORD_OPTS_MAX];
	size_t n_extra = 0, n = 0;
	int go[2], said[2], c, status = 1, rstatus;
	pid_t pid = 0, child;
	ssize_t len;
	char b;

	corecap_opts_start(&g, &host_record_help, "+", NULL);
	opterr = 0; /* our own message, one line, then the usage */
	while ((c = corecap_opts_next(&g, argc, argv)) != -1) {
		switch (c) {
		case 'p':
			/* N or N,N,...; repeated, they add up (host_spec.h's rules). */
			if (corecap_host_pids_parse(&daemons, optarg) < 0)
				return corecap_usage_error(corecap_host_record_usage,
							   "bad --pid '%s'", optarg);
			break;
		case 'c':
			comm = optarg;
			break;
		case 'O':
			if (optarg && !corecap_host_osd_dir_ok(optarg))
				return corecap_usage_error(corecap_host_record_usage,
							   "bad --ceph-osds '%s'", optarg);
			daemons.ceph_osds = true;
			snprintf(daemons.ceph_osds_dir, sizeof(daemons.ceph_osds_dir), "%s",
				 optarg ? optarg : "");
			break;
		case 'u':
			if (corecap_relayd_url_complete(optarg, getenv("SSH_CONNECTION"), url_buf,
							sizeof(url_buf)) < 0)
				return corecap_usage_error(corecap_host_record_usage,
							   "bad --relayd-url '%s'", optarg);
			url = url_buf;
			break;
		case 'r':
			if (n_extra == CORECAP_HOST_RECORD_OPTS_MAX ||
			    !corecap_host_record_opt_ok(optarg))
				return corecap_usage_error(corecap_host_record_usage,
							   "refused --record-opt '%s'", optarg);
			extra[n_extra++] = optarg;
			break;
		case 'h':
			corecap_cmd_help(stdout, &host_record_help);
			return 0;
		default:
			return corecap_usage_error(corecap_host_record_usage,
						   "unknown option or missing value: '%s'",
						   argv[optind - 1]);
		}
	}
	if (optind != argc || (daemons.n_pids > 0) + !!comm + daemons.ceph_osds != 1)
		return corecap_usage_error(corecap_host_record_usage,
					   "expected one of --pid, --comm and --ceph-osds");
	/* The stream is our stdout: a recording host that went away is an error, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	if (say(CORECAP_HOST_HELLO "\n") < 0)
		return 1;
	if (comm && (pid = find_comm(comm)) > 0)
		daemons.pids[daemons.n_pids++] = pid;
	if (daemons.n_pids)
		pid = daemons.pids[0];
	if (!pid && !daemons.ceph_osds) {
		say("failed %d\n", 1);
		return 1;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0 || !mkdtemp(tmp)) {
		corecap_error("cannot %s: %s",
			      len < 0 ? "find this program" : "make a private directory",
			      strerror(errno));
		say("failed %d\n", 1);
		return 1;
	}
	self[len] = '\0';
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(said, O_CLOEXEC) < 0) {
		corecap_error("cannot create a pipe: %s", strerror(errno));
		say("failed %d\n", 1);
		goto out_rmdir;
	}
	snprintf(out, sizeof(out), "%s/" CORECAP_HOST_RUN_TOP, tmp);
	corecap_host_pids_arg(&daemons, pidarg, sizeof(pidarg));
	snprintf(osds, sizeof(osds), "--ceph-osds%s%s", *daemons.ceph_osds_dir ? "=" : "",
		 daemons.ceph_osds_dir);
	snprintf(fds, sizeof(fds), "%d,%d", go[0], said[1]);
	args[n++] = self;
	args[n++] = "record";
	args[n++] = "-q";
	if (daemons.ceph_osds) {
		args[n++] = osds;
	} else {
		/* Several: a record of several daemons, the host's run one of them. */
		args[n++] = "-p";
		args[n++] = pidarg;
	}
	args[n++] = "-o";
	args[n++] = out;
	args[n++] = "--sync-fds";
	args[n++] = fds;
	if (url) {
		/* The trace goes there, not into the run (docs/hosts.md); several daemons'
		 * each to URL/PID (record_multi.c). */
		args[n++] = "--relayd-url";
		args[n++] = url_buf;
	}
	for (size_t i = 0; i < n_extra; i++)
		args[n++] = (char *)extra[i];
	args[n] = NULL;
	child = fork();
	if (child < 0) {
		corecap_error("cannot start the record: %s", strerror(errno));
		say("failed %d\n", 1);
		goto out_rmdir;
	}
	if (child == 0) {
		int null = open("/dev/null", O_RDWR);

		fcntl(go[0], F_SETFD, 0);
		fcntl(said[1], F_SETFD, 0);
		/* Its stdout (the run's path) is not the stream; its stderr is the host's messages.
		 */
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		signal(SIGPIPE, SIG_DFL);
		execv(self, args);
		_exit(127);
	}
	close(go[0]);
	close(said[1]);
	if (wait_record(said[0], true, &b) < 0 || b != 'r') {
		/* The record failed to prepare, or the recording host gave up: no run. */
		close(go[1]);
		say("failed %d\n", wait_status(child));
		goto out_rmdir;
	}
	say("ready %d\n", (int)pid);
	if (read_go() != 1 || write(go[1], "g", 1) != 1 || wait_record(said[0], false, &b) < 0 ||
	    b != 's') {
		close(go[1]);
		rstatus = wait_status(child);
		say("failed %d\n", rstatus ? rstatus : 1);
		goto out_rmdir;
	}
	say("started\n");
	/* The window: until the recording host ends it, or the record ends (its daemon exited). */
	wait_record(said[0], true, &b);
	close(go[1]);
	rstatus = wait_status(child);
	say("done %d\n", rstatus);
	{
		char *tar[] = {"tar", "--format=ustar",	    "-C", tmp, "-cf",
			       "-",   CORECAP_HOST_RUN_TOP, NULL};

		if (access(out, F_OK) == 0 && run(tar) != 0)
			corecap_error("cannot send the run: tar failed");
		else
			status = rstatus;
	}
out_rmdir : {
	char *rm[] = {"rm", "-rf", "--one-file-system", "--", tmp, NULL};
	int null = open("/dev/null", O_WRONLY), saved = dup(STDOUT_FILENO);

	/* rm prints nothing, but the stream must not risk it. */
	if (null >= 0 && saved >= 0) {
		dup2(null, STDOUT_FILENO);
		run(rm);
		dup2(saved, STDOUT_FILENO);
	}
	if (null >= 0)
		close(null);
	if (saved >= 0)
		close(saved);
}
	return status;
}
