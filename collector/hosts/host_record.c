/* host_record: `corecap record --hosts FILE` (host_record.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include <corecap/diag.h>
#include <corecap/opt_table.h>
#include <corecap/manifest_keys.h>
#include <corecap/run_format.h>

#include "clock_sync.h"
#include "host_record.h"
#include "line_in.h"
#include "host_spec.h"
#include "host_tar.h"
#include "host_relayd.h"
#include "util/mono_clock.h"
#include "util/run_dir.h"

const char corecap_record_hosts_usage[] =
	"usage: corecap record --hosts FILE [--rsh CMD] [--corecap-path PATH] [-o DIR]\n"
	"                      [-d SECONDS] [--force] [--record-opt OPT]...\n"
	"                      [--relayd-url net://IPV4[:CTRL:DATA] | net6://[IPV6][:CTRL:DATA]\n"
	"                       | --no-relayd]\n"
	"                      [-- BENCHMARK ARGS...]\n"
	"\n"
	"Records the daemons of several hosts in one window: each host of FILE\n"
	"(lines 'NAME REACH pid=PID[,PID...]', 'NAME REACH comm=NAME' or\n"
	"'NAME REACH ceph-osds[=DIR]') runs its own\n"
	"corecap record, reached as 'CMD REACH PATH ...'; the runs come back\n"
	"into DIR/hosts/NAME/, with each host's clock against this one's\n"
	"(offset, bound, drift) in DIR/" CORECAP_RUN_MANIFEST ". The benchmark runs here.\n"
	"The hosts' LTTng traces come through the lttng-relayd that runs here (one\n"
	"of corecap's user, read plainly), or one corecap starts.\n"
	"\n"
	"options:\n";

/* Waits, each bounded: the remote shell's connection and the record's preparation. */
#define READY_TIMEOUT_MS   120000
#define STARTED_TIMEOUT_MS 30000
#define DONE_TIMEOUT_MS	   300000
#define STREAM_TIMEOUT_MS  60000
#define RUN_MAX_BYTES	   (8ull << 30)
/* A host's messages kept in hosts/NAME.log: the remote could say without end. */
#define LOG_MAX_BYTES (1 << 20)

enum host_stage { HOST_FAILED, HOST_STARTING, HOST_READY, HOST_STARTED, HOST_DONE };

struct host_run {
	const struct corecap_host *spec;
	enum host_stage stage;
	int log_fd;
	int log_w;    /* the remote shells' stderr: the keeper's pipe */
	pid_t keeper; /* copies it into log_fd, at most LOG_MAX_BYTES */
	struct corecap_clock_sync cs;
	bool have_clock, have_end, cs_open;
	struct corecap_clock_estimate start, end;
	pid_t agent;
	int to_fd, from_fd;
	struct line_in in; /* from_fd's lines, a byte at a time (the tar stream follows) */
	int remote_status;
	char sub_status[16];
	char sub_reason[256]; /* the sub-run's partial_reason, shown safely */
	char reason[512];
	const char *trace_via;	/* "relayd", "stream", or NULL: no trace came */
	char trace_reason[600]; /* why "stream" when the relayd was asked for */
};

struct hosts_record {
	struct corecap_host_spec spec;
	struct host_run hosts[CORECAP_HOSTS_MAX];
	struct corecap_run_dir rd;
	int hosts_fd;
	const char *rsh, *path, *output;
	const char *opts[CORECAP_HOST_RECORD_OPTS_MAX];
	size_t n_opts;
	double duration_s;
	bool force, quiet;
	char **bench;
	int bench_status;
	uint64_t window_start_ns, window_end_ns;
	const char *relayd_url;
	bool no_relayd, have_relayd;
	struct corecap_relayd relayd;
	bool relayd_used, relayd_reused; /* for the manifest, once it is released */
	int relayd_pid;
	char relayd_error[600]; /* why there is no relayd, when one was wanted */
};

/* The options, in the help's order; getopt_long's array and string come from it. */
static const struct corecap_opt record_hosts_options[] = {
	CORECAP_OPT_ARG('H', 0, "hosts", "FILE", "the hosts (docs/hosts.md)"),
	CORECAP_OPT_STR('r', 0, "rsh", "CMD", struct hosts_record, rsh,
			"the remote shell, split at blanks (default: ssh)"),
	CORECAP_OPT_STR('P', 0, "corecap-path", "PATH", struct hosts_record, path,
			"corecap on the hosts (default: corecap)"),
	CORECAP_OPT_STR('o', 'o', "output", "DIR", struct hosts_record, output,
			"the run directory (default ./corecap-hosts-DATE)"),
	CORECAP_OPT_ARG('d', 'd', "duration", "S", "the window without a benchmark, or its limit"),
	CORECAP_OPT_SET('f', 0, "force", struct hosts_record, force,
			"replace DIR if it is a run corecap wrote"),
	CORECAP_OPT_ARG('R', 0, "record-opt", "OPT",
			"an option for every host's record (e.g. --no-kernel)"),
	CORECAP_OPT_STR('U', 0, "relayd-url", "URL", struct hosts_record, relayd_url,
			"net://IPV4[:CTRL:DATA] or net6://[IPV6][:CTRL:DATA]:\n"
			"the address the hosts reach this one by (and the\n"
			"relayd's ports); default: each host's ssh client\n"
			"address, free ports"),
	CORECAP_OPT_SET('N', 0, "no-relayd", struct hosts_record, no_relayd,
			"the traces come over the remote shell, as the runs"),
	CORECAP_OPT_SET('q', 'q', "quiet", struct hosts_record, quiet, "no progress"),
	CORECAP_OPT_HIDDEN('h', 'h', "help", no_argument),
};

static CORECAP_OPT_TABLE(record_hosts_help, corecap_record_hosts_usage, record_hosts_options,
			 "\n"
			 "See also: corecap-record(1), docs/hosts.md.\n",
			 .help_col = 23, .shorts = CORECAP_SHORTS_INLINE);

static volatile sig_atomic_t interrupted;

/* A manifest key's value, named from corecap/manifest_keys.h's list. */
static void put(json_object *o, enum corecap_manifest_key key, json_object *v)
{
	json_object_object_add(o, corecap_mk(key), v);
}

static void on_signal(int sig)
{
	interrupted = sig;
}

bool corecap_record_hosts_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--hosts") == 0 || strncmp(argv[i], "--hosts=", 8) == 0)
			return true;
	return false;
}

bool corecap_host_record_opt_ok(const char *opt)
{
	static const char *const refused[] = {
		"-p",	      "--pid",	 "-o",	       "--output",	 "-d",
		"--duration", "--force", "--sync-fds", "--ceph-osds",	 "--hosts",
		"--rsh",      "--help",	 "-h",	       "--corecap-path", "--relayd-url"};

	if (opt[0] != '-' || strlen(opt) > 128)
		return false;
	/* A short option alone: "-qp5" would be -q and -p 5 to getopt. */
	if (opt[1] != '-' && opt[1] && opt[2])
		return false;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		size_t n = strlen(refused[i]);

		if (strncmp(opt, refused[i], n) == 0 &&
		    (opt[n] == '\0' || opt[n] == '=' || (refused[i][1] != '-' && opt[n])))
			return false;
	}
	return true;
}

/* The last size - 1 bytes of the host's log into buf, ended by a NUL: their count, <= 0 none. */
static ssize_t log_tail(const struct host_run *h, char *buf, size_t size)
{
	off_t end = lseek(h->log_fd, 0, SEEK_END);
	ssize_t got;

	if (end <= 0)
		return 0;
	got = pread(h->log_fd, buf, size - 1, end > (off_t)size - 1 ? end - (off_t)size + 1 : 0);
	if (got > 0)
		buf[got] = '\0';
	return got;
}

/* The last line of the host's log (its remote's stderr), shown safely. */
static void last_log_line(struct host_run *h, char *out, size_t size)
{
	char buf[1024];
	ssize_t got = log_tail(h, buf, sizeof(buf));
	char *line, *p;

	*out = '\0';
	if (got <= 0)
		return;
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
		buf[--got] = '\0';
	line = strrchr(buf, '\n');
	line = line ? line + 1 : buf;
	for (p = line; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	snprintf(out, size, "%.200s", line);
}

/*
 * The keeper of a host's log: a child reading the remote shells' stderr
 * from a pipe and writing at most LOG_MAX_BYTES of it to the log (then a
 * line saying so; the rest is read and dropped, so the remote never
 * blocks on it). It holds nothing else of ours open: a pipe end it kept
 * would hide another host's EOF.
 */
static int start_log(struct host_run *h)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	h->keeper = fork();
	if (h->keeper == 0) {
		static const char cut[] = "[corecap: the rest of this host's messages is left out: "
					  "over 1 MiB]\n";
		size_t kept = 0;
		char buf[4096];
		ssize_t got;

		if (dup2(p[0], STDIN_FILENO) < 0 || dup2(h->log_fd, STDOUT_FILENO) < 0)
			_exit(1);
		close_range(3, ~0u, 0);
		signal(SIGINT, SIG_IGN);
		while ((got = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0)
				break;
			if (kept < LOG_MAX_BYTES) {
				size_t n = (size_t)got < LOG_MAX_BYTES - kept
						   ? (size_t)got
						   : LOG_MAX_BYTES - kept;

				if (write(STDOUT_FILENO, buf, n) != (ssize_t)n)
					break;
				kept += n;
				if (kept == LOG_MAX_BYTES &&
				    write(STDOUT_FILENO, cut, sizeof(cut) - 1) < 0)
					break;
			}
		}
		_exit(0);
	}
	close(p[0]);
	if (h->keeper < 0) {
		close(p[1]);
		return -errno;
	}
	h->log_w = p[1];
	return 0;
}

static int reap(pid_t pid, int timeout_ms);

/*
 * Ends everything of a host's but its run: its connections (its record
 * ends its window, or abandons it before the go), the remote shells
 * (killed after a bounded wait) and the log's keeper, so the log is whole
 * when read.
 */
static void host_end(struct host_run *h, int agent_timeout_ms)
{
	if (h->cs_open) {
		corecap_clock_sync_release(&h->cs);
		h->cs_open = false;
	}
	if (h->to_fd >= 0)
		close(h->to_fd);
	if (h->from_fd >= 0)
		close(h->from_fd);
	h->to_fd = h->from_fd = -1;
	if (h->agent > 0)
		reap(h->agent, agent_timeout_ms);
	h->agent = -1;
	if (h->log_w >= 0)
		close(h->log_w);
	h->log_w = -1;
	if (h->keeper > 0)
		reap(h->keeper, 2000);
	h->keeper = -1;
}

static void host_fail(struct host_run *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void host_fail(struct host_run *h, const char *fmt, ...)
{
	char remote[256];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(h->reason, sizeof(h->reason), fmt, ap);
	va_end(ap);
	/* A failed host is done with: its log is then whole. */
	host_end(h, 5000);
	last_log_line(h, remote, sizeof(remote));
	n = strlen(h->reason);
	if (*remote && n < sizeof(h->reason))
		snprintf(h->reason + n, sizeof(h->reason) - n, " (the host said: %s)", remote);
	h->stage = HOST_FAILED;
	corecap_error("host '%s' (%s): %s", h->spec->name, h->spec->reach, h->reason);
}

_Static_assert(CORECAP_HOST_LINE_MAX_PROTO == CORECAP_LINE_IN_MAX, "the agent's lines");

/* Ctrl-C before the window gives up waiting; after it, the runs still come. */
static bool give_up(void *ctx)
{
	const struct host_run *h = ctx;

	return interrupted && h->stage < HOST_STARTED;
}

static const char *line_error(int err)
{
	return err == -EPIPE	   ? "the remote shell closed the connection"
	       : err == -ETIMEDOUT ? "no answer in time"
	       : err == -EPROTO	   ? "a reply that is not corecap's host protocol"
	       : err == -EINTR	   ? "interrupted"
				   : strerror(-err);
}

/* "WORD N" with N a small decimal; 0 or -EPROTO. */
static int word_num(const char *line, const char *word, int *n)
{
	size_t w = strlen(word);
	const char *p = line + w + 1;
	long v = 0;

	if (strncmp(line, word, w) != 0 || line[w] != ' ' || *p < '0' || *p > '9' ||
	    (*p == '0' && p[1]))
		return -EPROTO;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((v = v * 10 + (*p - '0')) > 0x7fffffff)
			return -EPROTO;
	if (*p)
		return -EPROTO;
	*n = (int)v;
	return 0;
}

static int spawn(char *const argv[], int err_fd, int *to_fd, int *from_fd, pid_t *pid)
{
	int to[2], from[2];

	if (pipe2(to, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(from, O_CLOEXEC) < 0) {
		close(to[0]);
		close(to[1]);
		return -errno;
	}
	*pid = fork();
	if (*pid == 0) {
		if (dup2(to[0], STDIN_FILENO) < 0 || dup2(from[1], STDOUT_FILENO) < 0 ||
		    dup2(err_fd, STDERR_FILENO) < 0)
			_exit(255);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_IGN); /* Ctrl-C ends the window through us, in order. */
		execvp(argv[0], argv);
		fprintf(stderr, "corecap: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(255);
	}
	close(to[0]);
	close(from[1]);
	if (*pid < 0) {
		close(to[1]);
		close(from[0]);
		return -errno;
	}
	*to_fd = to[1];
	*from_fd = from[0];
	return 0;
}

/* Reaps a remote shell, killing it after timeout_ms; its status (128+sig), -1 if none. */
static int reap(pid_t pid, int timeout_ms)
{
	int st = 0;

	for (int i = 0;; i++) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -1;
		if (i >= timeout_ms / 10) {
			kill(pid, SIGKILL);
			if (waitpid(pid, &st, 0) != pid)
				return -1;
			break;
		}
		usleep(10000);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int parse_args(struct hosts_record *r, int argc, char **argv)
{
	struct corecap_getopt g;
	const char *file = NULL;
	char *end;
	int c;

	r->rsh = "ssh";
	r->path = "corecap";
	corecap_opts_start(&g, &record_hosts_help, "+", r);
	opterr = 0; /* our own message, one line, then the usage */
	while ((c = corecap_opts_next(&g, argc, argv)) != -1) {
		switch (c) {
		case 'H':
			file = optarg;
			break;
		case 'd':
			errno = 0;
			r->duration_s = strtod(optarg, &end);
			if (errno || *end || !(r->duration_s >= 0.1 && r->duration_s <= 86400))
				return corecap_usage_error(corecap_record_hosts_usage,
							   "bad -d '%s': 0.1 to 86400 seconds",
							   optarg);
			break;
		case 'R':
			if (r->n_opts == CORECAP_HOST_RECORD_OPTS_MAX ||
			    !corecap_host_record_opt_ok(optarg))
				return corecap_usage_error(
					corecap_record_hosts_usage,
					"refused --record-opt '%s' (the hosts' "
					"daemon, output and window are record's own)",
					optarg);
			r->opts[r->n_opts++] = optarg;
			break;
		case 'h':
			corecap_cmd_help(stdout, &record_hosts_help);
			return 0;
		default:
			return corecap_usage_error(corecap_record_hosts_usage,
						   "unknown option or missing value: '%s'",
						   argv[optind - 1]);
		}
	}
	if (optind < argc && strcmp(argv[optind - 1], "--") != 0)
		return corecap_usage_error(corecap_record_hosts_usage, "unexpected '%s'",
					   argv[optind]);
	if (optind < argc)
		r->bench = argv + optind;
	if (!r->bench && r->duration_s == 0)
		return corecap_usage_error(corecap_record_hosts_usage,
					   "expected -d SECONDS or -- BENCHMARK");
	if (corecap_host_spec_load(&r->spec, file) < 0) {
		corecap_error("cannot read hosts file '%s': %s", file, r->spec.error);
		return 1;
	}
	return -1; /* go on */
}

static int host_argv(struct hosts_record *r, struct host_run *h, const char *const cmd[],
		     char **copy, char *words[], size_t max)
{
	int ret = corecap_rsh_argv(r->rsh, h->spec->reach, cmd, copy, words, max);

	if (ret < 0)
		host_fail(h, "bad --rsh '%s': empty or too many words", r->rsh);
	return ret;
}

/* The clock session and its first burst; the host fails with the cause. */
static void start_clock(struct hosts_record *r, struct host_run *h)
{
	const char *cmd[] = {r->path, "clock-serve", NULL};
	char *words[CORECAP_RSH_WORDS_MAX + 8], *copy = NULL;

	if (host_argv(r, h, cmd, &copy, words, sizeof(words) / sizeof(words[0])) == 0) {
		int ret = corecap_clock_sync_open(&h->cs, words, h->log_w);

		h->cs_open = true;
		if (ret < 0 ||
		    corecap_clock_sync_burst(&h->cs, CORECAP_CLOCK_PINGS_DEFAULT, &h->start) < 0) {
			int st = corecap_clock_sync_release(&h->cs);

			h->cs_open = false;

			if (st > 0 && st < 128)
				host_fail(
					h,
					"unreachable: %s (the remote shell exited with status %d)",
					h->cs.error, st);
			else
				host_fail(h, "unreachable: %s", h->cs.error);
		} else {
			h->have_clock = true;
		}
	}
	free(copy);
}

static void start_agent(struct hosts_record *r, struct host_run *h)
{
	const char *cmd[10 + 2 * CORECAP_HOST_RECORD_OPTS_MAX];
	char *words[CORECAP_RSH_WORDS_MAX + 10 + 2 * CORECAP_HOST_RECORD_OPTS_MAX], *copy = NULL;
	char pid[CORECAP_HOST_PIDS_MAX * 8 + 1], url[300], osds[CORECAP_HOST_OSD_DIR_MAX + 16];
	size_t n = 0;
	int ret;

	cmd[n++] = r->path;
	cmd[n++] = "host-record";
	if (h->spec->n_pids) {
		corecap_host_pids_arg(h->spec, pid, sizeof(pid));
		cmd[n++] = "--pid";
		cmd[n++] = pid;
	} else if (h->spec->ceph_osds) {
		snprintf(osds, sizeof(osds), "--ceph-osds%s%s", *h->spec->ceph_osds_dir ? "=" : "",
			 h->spec->ceph_osds_dir);
		cmd[n++] = osds;
	} else {
		cmd[n++] = "--comm";
		cmd[n++] = h->spec->comm;
	}
	if (r->have_relayd) {
		corecap_relayd_host_url(&r->relayd, h->spec->name, url, sizeof(url));
		cmd[n++] = "--relayd-url";
		cmd[n++] = url;
	}
	for (size_t i = 0; i < r->n_opts; i++) {
		/* One word each: "--record-opt=OPT" survives a remote shell's word split. */
		cmd[n++] = "--record-opt";
		cmd[n++] = r->opts[i];
	}
	cmd[n] = NULL;
	if (host_argv(r, h, cmd, &copy, words, sizeof(words) / sizeof(words[0])) < 0)
		goto out_free;
	ret = spawn(words, h->log_w, &h->to_fd, &h->from_fd, &h->agent);
	h->in = (struct line_in){.fd = h->from_fd, .bytewise = true, .give_up = give_up, .ctx = h};
	if (ret < 0)
		host_fail(h, "cannot start '%s': %s", words[0], strerror(-ret));
	else
		h->stage = HOST_STARTING;
out_free:
	free(copy);
}

static void wait_ready(struct host_run *h)
{
	char line[CORECAP_HOST_LINE_MAX_PROTO + 1];
	int ret, n;

	ret = corecap_line_in_read(&h->in, READY_TIMEOUT_MS, line);
	if (ret == 0 && strcmp(line, CORECAP_HOST_HELLO) != 0)
		ret = -EPROTO;
	if (ret == 0)
		ret = corecap_line_in_read(&h->in, READY_TIMEOUT_MS, line);
	if (ret == 0 && word_num(line, "ready", &n) == 0) {
		h->stage = HOST_READY;
		return;
	}
	if (ret == 0 && word_num(line, "failed", &n) == 0)
		host_fail(h, "its record failed before the window (status %d)", n);
	else
		host_fail(h, "no record: %s", ret ? line_error(ret) : line_error(-EPROTO));
}

/* The go: sent to every ready host first, then each one's start awaited. */
static void go(struct host_run *h)
{
	if (write(h->to_fd, "go\n", 3) != 3)
		host_fail(h, "its record did not start its window: %s", line_error(-EPIPE));
}

static void wait_started(struct host_run *h)
{
	char line[CORECAP_HOST_LINE_MAX_PROTO + 1];
	int ret = corecap_line_in_read(&h->in, STARTED_TIMEOUT_MS, line);

	if (ret == 0 && strcmp(line, "started") == 0)
		h->stage = HOST_STARTED;
	else
		host_fail(h, "its record did not start its window: %s",
			  ret ? line_error(ret) : line_error(-EPROTO));
}

/* The sub-run's status as its own manifest says (bounded read, no links). */
static void sub_run_status(struct hosts_record *r, struct host_run *h)
{
	char path[CORECAP_HOST_NAME_MAX + 32], *text = NULL;
	json_object *root = NULL, *v;
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/" CORECAP_RUN_MANIFEST, h->spec->name);
	fd = openat(r->hosts_fd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20))
		goto out;
	text = calloc(1, (size_t)st.st_size + 1);
	if (!text || read(fd, text, (size_t)st.st_size) != st.st_size)
		goto out;
	root = json_tokener_parse(text);
	if (root && json_object_object_get_ex(root, corecap_mk(CORECAP_MK_STATUS), &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(h->sub_status, sizeof(h->sub_status), "%s", json_object_get_string(v));
	if (root && json_object_object_get_ex(root, corecap_mk(CORECAP_MK_PARTIAL_REASON), &v) &&
	    json_object_is_type(v, json_type_string)) {
		/* The host's words: printable only, bounded. */
		snprintf(h->sub_reason, sizeof(h->sub_reason), "%s", json_object_get_string(v));
		for (char *p = h->sub_reason; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
	}
out:
	if (!*h->sub_status)
		snprintf(h->sub_status, sizeof(h->sub_status), "missing");
	json_object_put(root);
	free(text);
	if (fd >= 0)
		close(fd);
}

static void collect(struct hosts_record *r, struct host_run *h)
{
	char line[CORECAP_HOST_LINE_MAX_PROTO + 1];
	struct corecap_host_tar t = {0};
	int ret, n, dir;

	ret = corecap_line_in_read(&h->in, DONE_TIMEOUT_MS, line);
	if (ret == 0 && word_num(line, "failed", &n) == 0) {
		host_fail(h, "its record failed (status %d)", n);
		return;
	}
	if (ret < 0 || word_num(line, "done", &h->remote_status) < 0) {
		host_fail(h, "no run came back: %s", ret ? line_error(ret) : line_error(-EPROTO));
		return;
	}
	if (mkdirat(r->hosts_fd, h->spec->name, 0700) < 0 ||
	    (dir = openat(r->hosts_fd, h->spec->name,
			  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		host_fail(h, "cannot make '%s/" CORECAP_RUN_HOSTS_DIR "/%s': %s", r->rd.path,
			  h->spec->name, strerror(errno));
		return;
	}
	/* Bytes the line reader took past "done" are none: it reads one at a time. */
	t.in_fd = h->from_fd;
	t.dir_fd = dir;
	t.top = CORECAP_HOST_RUN_TOP;
	t.max_bytes = RUN_MAX_BYTES;
	t.timeout_ms = STREAM_TIMEOUT_MS;
	ret = corecap_host_tar_extract(&t);
	close(dir);
	if (ret < 0) {
		host_fail(h, "its run came back broken: %s (what came is kept)", t.error);
		return;
	}
	h->stage = HOST_DONE;
	sub_run_status(r, h);
	if (h->remote_status != 0)
		corecap_warn("host '%s': its record exited with status %d", h->spec->name,
			     h->remote_status);
}

/* An estimate under the keys of its end of the window (start or end). */
static json_object *estimate_json(const struct corecap_clock_estimate *e, bool at_end)
{
	static const enum corecap_manifest_key keys[2][5] = {
		{CORECAP_MK_HOSTS_CLOCK_START_OFFSET_NS, CORECAP_MK_HOSTS_CLOCK_START_BOUND_NS,
		 CORECAP_MK_HOSTS_CLOCK_START_RTT_MIN_NS, CORECAP_MK_HOSTS_CLOCK_START_AT_NS,
		 CORECAP_MK_HOSTS_CLOCK_START_PINGS_USED},
		{CORECAP_MK_HOSTS_CLOCK_END_OFFSET_NS, CORECAP_MK_HOSTS_CLOCK_END_BOUND_NS,
		 CORECAP_MK_HOSTS_CLOCK_END_RTT_MIN_NS, CORECAP_MK_HOSTS_CLOCK_END_AT_NS,
		 CORECAP_MK_HOSTS_CLOCK_END_PINGS_USED}};
	const enum corecap_manifest_key *k = keys[at_end];
	json_object *o = json_object_new_object();

	put(o, k[0], json_object_new_int64(e->offset_ns));
	put(o, k[1], json_object_new_int64((int64_t)e->bound_ns));
	put(o, k[2], json_object_new_int64((int64_t)e->rtt_min_ns));
	put(o, k[3], json_object_new_int64((int64_t)e->at_ns));
	put(o, k[4], json_object_new_int64((int64_t)e->used));
	return o;
}

static const char *host_status(const struct host_run *h)
{
	if (h->stage != HOST_DONE)
		return "failed";
	return strcmp(h->sub_status, "complete") == 0 ? "complete" : "partial";
}

static int write_manifest(struct hosts_record *r, bool *partial)
{
	json_object *root = json_object_new_object(), *hosts = json_object_new_array(), *w, *b;
	char reason[1024] = "";
	const char *text;
	int fd, ret;

	*partial = false;
	for (size_t i = 0; i < r->spec.n; i++) {
		struct host_run *h = &r->hosts[i];
		json_object *o = json_object_new_object(), *c;
		size_t n = strlen(reason);

		put(o, CORECAP_MK_HOSTS_NAME, json_object_new_string(h->spec->name));
		put(o, CORECAP_MK_HOSTS_REACH, json_object_new_string(h->spec->reach));
		if (h->spec->n_pids == 1) {
			put(o, CORECAP_MK_HOSTS_PID, json_object_new_int(h->spec->pids[0]));
		} else if (h->spec->n_pids) {
			json_object *pids = json_object_new_array();

			for (size_t k = 0; k < h->spec->n_pids; k++)
				json_object_array_add(pids, json_object_new_int(h->spec->pids[k]));
			put(o, CORECAP_MK_HOSTS_PIDS, pids);
		} else if (h->spec->ceph_osds) {
			put(o, CORECAP_MK_HOSTS_CEPH_OSDS,
			    json_object_new_string(h->spec->ceph_osds_dir));
		} else
			put(o, CORECAP_MK_HOSTS_COMM, json_object_new_string(h->spec->comm));
		put(o, CORECAP_MK_HOSTS_STATUS, json_object_new_string(host_status(h)));
		if (strcmp(host_status(h), "complete") != 0) {
			char done_why[400];
			const char *why = h->reason;

			if (h->stage == HOST_DONE) {
				snprintf(done_why, sizeof(done_why),
					 "its run is %s (its record exited with status %d)%s%s",
					 h->sub_status, h->remote_status,
					 *h->sub_reason ? ": " : "", h->sub_reason);
				why = done_why;
			}

			*partial = true;
			put(o, CORECAP_MK_HOSTS_PARTIAL_REASON, json_object_new_string(why));
			snprintf(reason + n, sizeof(reason) - n, "%shost '%s': %s", n ? "; " : "",
				 h->spec->name, why);
		}
		if (h->stage == HOST_DONE) {
			char run[CORECAP_HOST_NAME_MAX + 8];

			snprintf(run, sizeof(run), CORECAP_RUN_HOSTS_DIR "/%s", h->spec->name);
			put(o, CORECAP_MK_HOSTS_DIR, json_object_new_string(run));
			put(o, CORECAP_MK_HOSTS_COLLECTOR_EXIT_STATUS,
			    json_object_new_int(h->remote_status));
		}
		{
			char log[CORECAP_HOST_NAME_MAX + 16];

			snprintf(log, sizeof(log), CORECAP_RUN_HOSTS_DIR "/%s.log", h->spec->name);
			put(o, CORECAP_MK_HOSTS_LOG, json_object_new_string(log));
		}
		if (h->trace_via)
			put(o, CORECAP_MK_HOSTS_TRACE_VIA, json_object_new_string(h->trace_via));
		if (*h->trace_reason)
			put(o, CORECAP_MK_HOSTS_TRACE_VIA_REASON,
			    json_object_new_string(h->trace_reason));
		if (h->have_clock) {
			c = json_object_new_object();
			put(c, CORECAP_MK_HOSTS_CLOCK_START, estimate_json(&h->start, false));
			if (h->have_end) {
				double bound,
					drift = corecap_clock_drift_ppm(&h->start, &h->end, &bound);

				put(c, CORECAP_MK_HOSTS_CLOCK_END, estimate_json(&h->end, true));
				put(c, CORECAP_MK_HOSTS_CLOCK_DRIFT_PPM,
				    json_object_new_double(drift));
				put(c, CORECAP_MK_HOSTS_CLOCK_DRIFT_BOUND_PPM,
				    json_object_new_double(bound));
			}
			put(o, CORECAP_MK_HOSTS_CLOCK, c);
		}
		json_object_array_add(hosts, o);
	}
	put(root, CORECAP_MK_FORMAT, json_object_new_string(CORECAP_RUN_FORMAT));
	put(root, CORECAP_MK_VERSION, json_object_new_int(CORECAP_RUN_VERSION_HOSTS));
	put(root, CORECAP_MK_TOOL_VERSION, json_object_new_string(CORECAP_VERSION));
	put(root, CORECAP_MK_STATUS, json_object_new_string(*partial ? "partial" : "complete"));
	if (*partial)
		put(root, CORECAP_MK_PARTIAL_REASON, json_object_new_string(reason));
	put(root, CORECAP_MK_CLOCK, json_object_new_string("CLOCK_MONOTONIC"));
	w = json_object_new_object();
	put(w, CORECAP_MK_WINDOW_START_NS, json_object_new_int64((int64_t)r->window_start_ns));
	put(w, CORECAP_MK_WINDOW_END_NS, json_object_new_int64((int64_t)r->window_end_ns));
	put(root, CORECAP_MK_WINDOW, w);
	if (r->bench) {
		json_object *argv = json_object_new_array();

		b = json_object_new_object();
		for (char **a = r->bench; *a; a++)
			json_object_array_add(argv, json_object_new_string(*a));
		put(b, CORECAP_MK_BENCHMARK_COMMAND, argv);
		put(b, CORECAP_MK_BENCHMARK_EXIT_STATUS, json_object_new_int(r->bench_status));
		put(root, CORECAP_MK_BENCHMARK, b);
	}
	put(root, CORECAP_MK_HOSTS, hosts);
	if (r->relayd_used) {
		json_object *o = json_object_new_object();

		put(o, CORECAP_MK_RELAYD_HOW,
		    json_object_new_string(r->relayd_reused ? "reused" : "started"));
		put(o, CORECAP_MK_RELAYD_PID, json_object_new_int(r->relayd_pid));
		put(o, CORECAP_MK_RELAYD_CONTROL_PORT,
		    json_object_new_int((int)r->relayd.ctrl_port));
		put(o, CORECAP_MK_RELAYD_DATA_PORT, json_object_new_int((int)r->relayd.data_port));
		if (r->relayd_reused)
			put(o, CORECAP_MK_RELAYD_OUTPUT, json_object_new_string(r->relayd.output));
		if (r->relayd.cpu_user_s >= 0) {
			put(o, CORECAP_MK_RELAYD_CPU_USER_S,
			    json_object_new_double(r->relayd.cpu_user_s));
			put(o, CORECAP_MK_RELAYD_CPU_SYS_S,
			    json_object_new_double(r->relayd.cpu_sys_s));
		}
		put(root, CORECAP_MK_RELAYD, o);
	}
	text = json_object_to_json_string_ext(root,
					      JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
	ret = corecap_run_dir_create_file(&r->rd, CORECAP_RUN_MANIFEST_TMP, &fd);
	if (ret == 0) {
		ret = corecap_write_all(fd, text, strlen(text));
		if (ret == 0)
			ret = corecap_write_all(fd, "\n", 1);
		if (fsync(fd) < 0 && ret == 0)
			ret = -errno;
		close(fd);
		if (ret < 0)
			corecap_error("cannot write '%s/" CORECAP_RUN_MANIFEST "': %s", r->rd.path,
				      strerror(-ret));
		else
			ret = corecap_run_dir_rename(&r->rd, CORECAP_RUN_MANIFEST_TMP,
						     CORECAP_RUN_MANIFEST);
	}
	json_object_put(root);
	return ret;
}

/* The last line of the host's log holding word (the host's own words: shown safely). */
static void log_line_with(struct host_run *h, const char *word, char *out, size_t size)
{
	static char buf[65536];
	char *line, *save = NULL;

	*out = '\0';
	if (log_tail(h, buf, sizeof(buf)) <= 0)
		return;
	for (char *p = buf; *p; p++)
		if (((unsigned char)*p < 0x20 && *p != '\n') || *p == 0x7f)
			*p = '?';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strstr(line, word))
			snprintf(out, size, "%.400s", line);
}

/* The hosts record without a trace (--record-opt --no-trace). */
static bool no_trace(const struct hosts_record *r)
{
	for (size_t i = 0; i < r->n_opts; i++)
		if (strcmp(r->opts[i], "--no-trace") == 0)
			return true;
	return false;
}

/* A daemon's directory name in a run of several daemons: its PID, digits only (0 if not). */
static int daemon_pid(const char *name)
{
	size_t n = strspn(name, "0123456789");
	long v;

	if (!n || n > 7 || name[n] || name[0] == '0')
		return 0;
	v = strtol(name, NULL, 10);
	return v <= 4194304 ? (int)v : 0;
}

/*
 * A host of several daemons (its run has daemons/): each daemon's trace
 * from the relayd's output under the host's PID into
 * hosts/NAME/daemons/PID/trace (each daemon's record streamed to URL/PID),
 * or the one its stream brought. Counts what came which way.
 */
static void place_daemon_traces(struct hosts_record *r, struct host_run *h, int daemons_fd,
				size_t *via_relayd, size_t *via_stream)
{
	DIR *dir = fdopendir(daemons_fd);
	struct dirent *e;

	if (!dir) {
		close(daemons_fd);
		return;
	}
	while ((e = readdir(dir))) {
		int pid = daemon_pid(e->d_name), dd, ret;

		if (!pid)
			continue;
		dd = openat(dirfd(dir), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dd < 0)
			continue;
		if (faccessat(dd, CORECAP_RUN_TRACE, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
			++*via_stream;
		} else if (r->have_relayd) {
			ret = corecap_relayd_take_daemon(&r->relayd, h->spec->name, pid, dd,
							 CORECAP_RUN_TRACE, RUN_MAX_BYTES);
			if (ret == 0) {
				++*via_relayd;
			} else if (ret != -ENOENT || !no_trace(r)) {
				snprintf(h->sub_status, sizeof(h->sub_status), "partial");
				snprintf(h->sub_reason, sizeof(h->sub_reason),
					 "the trace of its PID %d through lttng-relayd is missing: "
					 "%.160s",
					 pid, r->relayd.error);
				corecap_error("host '%s': %s", h->spec->name, h->sub_reason);
			}
		}
		close(dd);
	}
	closedir(dir);
}

/* Why a host's trace came over the stream although a relayd was wanted; warned. */
static void stream_reason(struct hosts_record *r, struct host_run *h)
{
	char said[450];

	if (r->have_relayd) {
		log_line_with(h, "lttng-relayd", said, sizeof(said));
		snprintf(h->trace_reason, sizeof(h->trace_reason),
			 "its record could not stream to lttng-relayd%s%s", *said ? ": " : "",
			 said);
	} else if (*r->relayd_error) {
		snprintf(h->trace_reason, sizeof(h->trace_reason), "%s", r->relayd_error);
	}
	if (*h->trace_reason)
		corecap_warn("host '%s': its trace came over the stream, not "
			     "through lttng-relayd (%s)",
			     h->spec->name, h->trace_reason);
}

/*
 * Once every host is done and the relayd stopped: each host's trace from
 * the relayd's output into hosts/NAME/trace (a host of several daemons:
 * each daemon's into hosts/NAME/daemons/PID/trace), or the one its stream
 * brought, and the manifest told which.
 */
static void place_traces(struct hosts_record *r)
{
	for (size_t i = 0; i < r->spec.n; i++) {
		struct host_run *h = &r->hosts[i];
		int dir, daemons, ret;

		if (h->stage != HOST_DONE)
			continue;
		dir = openat(r->hosts_fd, h->spec->name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dir < 0)
			continue;
		daemons = openat(dir, CORECAP_RUN_DAEMONS_DIR,
				 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (daemons >= 0) {
			size_t via_relayd = 0, via_stream = 0;

			place_daemon_traces(r, h, daemons, &via_relayd, &via_stream);
			/* "stream" when any came so: the relayd was not the whole way. */
			if (via_stream) {
				h->trace_via = "stream";
				stream_reason(r, h);
			} else if (via_relayd) {
				h->trace_via = "relayd";
			}
		} else if (faccessat(dir, CORECAP_RUN_TRACE, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
			h->trace_via = "stream";
			stream_reason(r, h);
		} else if (r->have_relayd) {
			ret = corecap_relayd_take(&r->relayd, h->spec->name, dir, CORECAP_RUN_TRACE,
						  RUN_MAX_BYTES);
			if (ret == 0) {
				h->trace_via = "relayd";
			} else if (ret != -ENOENT || !no_trace(r)) {
				/* A record with a session wrote a trace: it is missing. */
				snprintf(h->sub_status, sizeof(h->sub_status), "partial");
				snprintf(h->sub_reason, sizeof(h->sub_reason),
					 "its trace through lttng-relayd is missing: %.180s",
					 r->relayd.error);
				corecap_error("host '%s': %s", h->spec->name, h->sub_reason);
			}
		}
		close(dir);
	}
}

/*
 * The relayd the hosts stream their traces to: one that runs here already
 * when it can be trusted (host_relayd.h), else ours; without one, the
 * traces come over the stream. --relayd-url names ours.
 */
static void start_relayd(struct hosts_record *r)
{
	int log_fd, ret;

	if (!r->relayd_url) {
		ret = corecap_relayd_reuse(&r->relayd);
		if (ret == 0) {
			r->have_relayd = true;
			if (!r->quiet)
				fprintf(stderr,
					"%s: reusing lttng-relayd (pid %d), ports %u (control) and "
					"%u (data), output '%s'\n",
					corecap_diag_prefix(), (int)r->relayd.pid,
					r->relayd.ctrl_port, r->relayd.data_port, r->relayd.output);
			return;
		}
		if (ret != -ENOENT)
			corecap_warn("not reusing %s; starting one of ours", r->relayd.error);
	}
	ret = corecap_run_dir_create_file(&r->rd, CORECAP_RELAYD_LOG, &log_fd);
	if (ret < 0) {
		snprintf(r->relayd_error, sizeof(r->relayd_error),
			 "cannot keep lttng-relayd's log: %s", strerror(-ret));
	} else {
		ret = corecap_relayd_start(&r->relayd, r->relayd_url, r->rd.dirfd, r->rd.abs_path,
					   log_fd);
		close(log_fd);
		if (ret < 0)
			snprintf(r->relayd_error, sizeof(r->relayd_error), "%s", r->relayd.error);
	}
	if (ret < 0) {
		corecap_warn("no lttng-relayd: %s; the hosts' traces come over the remote shell",
			     r->relayd_error);
		return;
	}
	r->have_relayd = true;
	if (!r->quiet)
		fprintf(stderr,
			"%s: lttng-relayd (pid %d) on %s, ports %u (control) and %u (data)\n",
			corecap_diag_prefix(), (int)r->relayd.pid, r->relayd.listen,
			r->relayd.ctrl_port, r->relayd.data_port);
}

/*
 * RUN/client-ops.tsv, empty, for the benchmark to append its ops to (a
 * client that knows CORECAP_CLIENT_OPS, as refbench does): its absolute
 * path in buf. 0, or a negative errno (said).
 */
static int client_ops_create(struct hosts_record *r, char *buf, size_t size)
{
	int fd, ret;

	if ((size_t)snprintf(buf, size, "%s/%s", r->rd.abs_path, CORECAP_RUN_CLIENT_OPS) >= size) {
		corecap_error("run directory path too long: '%s'", r->rd.abs_path);
		return -ENAMETOOLONG;
	}
	ret = corecap_run_dir_create_file(&r->rd, CORECAP_RUN_CLIENT_OPS, &fd);
	if (ret == 0)
		close(fd);
	return ret;
}

/* A benchmark that wrote no op there leaves no file. */
static void client_ops_drop_empty(struct hosts_record *r)
{
	struct stat st;

	if (fstatat(r->rd.dirfd, CORECAP_RUN_CLIENT_OPS, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode) && st.st_size == 0)
		unlinkat(r->rd.dirfd, CORECAP_RUN_CLIENT_OPS, 0);
}

/* The window: the benchmark here (its output in RUN/bench.out), or -d. */
static void run_window(struct hosts_record *r)
{
	uint64_t end =
		r->duration_s > 0 ? corecap_now_ns() + (uint64_t)(r->duration_s * 1e9) : UINT64_MAX;
	pid_t bench = -1;
	int out = -1, st;
	char client_ops[PATH_MAX];

	if (r->bench) {
		if (corecap_run_dir_create_file(&r->rd, CORECAP_RUN_BENCH_OUT, &out) < 0 ||
		    client_ops_create(r, client_ops, sizeof(client_ops)) < 0) {
			r->bench_status = 127;
			return;
		}
		bench = fork();
		if (bench == 0) {
			setenv(CORECAP_CLIENT_OPS_ENV, client_ops, 1);
			dup2(out, STDOUT_FILENO);
			dup2(out, STDERR_FILENO);
			signal(SIGPIPE, SIG_DFL);
			execvp(r->bench[0], r->bench);
			fprintf(stderr, "corecap: cannot run '%s': %s\n", r->bench[0],
				strerror(errno));
			_exit(127);
		}
		close(out);
		if (bench < 0) {
			corecap_error("cannot start the benchmark '%s': %s", r->bench[0],
				      strerror(errno));
			r->bench_status = 127;
			return;
		}
	}
	while (!interrupted && corecap_now_ns() < end) {
		if (bench > 0) {
			pid_t w = waitpid(bench, &st, WNOHANG);

			if (w == bench) {
				r->bench_status =
					WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
				bench = -1;
				break;
			}
		}
		usleep(10000);
	}
	if (bench > 0) {
		/* The window's limit (or Ctrl-C) ends the benchmark. */
		kill(bench, SIGTERM);
		r->bench_status = reap(bench, 5000);
	}
	if (r->bench)
		client_ops_drop_empty(r);
}

static void default_output(char *buf, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(buf, size, "corecap-hosts-%Y%m%d-%H%M%S", &tm);
}

int corecap_record_hosts(int argc, char **argv)
{
	struct hosts_record *r = calloc(1, sizeof(*r));
	struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
	char output[64];
	bool partial = false;
	int status = 1, ret;
	size_t ready = 0;

	if (!r) {
		corecap_error("cannot allocate: %s", strerror(ENOMEM));
		return 1;
	}
	r->hosts_fd = -1;
	r->relayd.pid = r->relayd.dir_fd = -1;
	ret = parse_args(r, argc, argv);
	if (ret >= 0) {
		status = ret;
		goto out_free;
	}
	corecap_diag_quiet = r->quiet;
	if (!r->output) {
		default_output(output, sizeof(output));
		r->output = output;
	}
	if (corecap_run_dir_create(&r->rd, r->output, r->force) < 0)
		goto out_free;
	if (mkdirat(r->rd.dirfd, CORECAP_RUN_HOSTS_DIR, 0700) < 0 ||
	    (r->hosts_fd = openat(r->rd.dirfd, CORECAP_RUN_HOSTS_DIR,
				  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		corecap_error("cannot make '%s/" CORECAP_RUN_HOSTS_DIR "': %s", r->rd.path,
			      strerror(errno));
		corecap_run_dir_remove(&r->rd);
		goto out_release;
	}
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	/* Our writes to a remote shell that died must fail, not kill us mid-run. */
	signal(SIGPIPE, SIG_IGN);
	if (!r->no_relayd && !no_trace(r))
		start_relayd(r);
	for (size_t i = 0; i < r->spec.n; i++) {
		struct host_run *h = &r->hosts[i];
		char log[CORECAP_HOST_NAME_MAX + 8];

		h->spec = &r->spec.hosts[i];
		h->to_fd = h->from_fd = h->log_fd = h->log_w = -1;
		h->agent = h->keeper = -1;
		snprintf(log, sizeof(log), "%s.log", h->spec->name);
		h->log_fd =
			openat(r->hosts_fd, log,
			       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_APPEND, 0600);
		if (h->log_fd < 0 || (ret = start_log(h)) < 0) {
			snprintf(h->reason, sizeof(h->reason), "cannot keep its log: %s",
				 strerror(h->log_fd < 0 ? errno : -ret));
			corecap_error("host '%s': %s", h->spec->name, h->reason);
			continue;
		}
		h->stage = HOST_STARTING;
		start_clock(r, h);
		if (h->stage != HOST_FAILED)
			start_agent(r, h);
	}
	/* The records prepare at once; each is waited for in turn. */
	for (size_t i = 0; i < r->spec.n; i++)
		if (r->hosts[i].stage == HOST_STARTING && !interrupted)
			wait_ready(&r->hosts[i]);
	for (size_t i = 0; i < r->spec.n; i++)
		if (r->hosts[i].stage == HOST_READY && !interrupted)
			go(&r->hosts[i]);
	for (size_t i = 0; i < r->spec.n; i++)
		if (r->hosts[i].stage == HOST_READY)
			wait_started(&r->hosts[i]);
	for (size_t i = 0; i < r->spec.n; i++)
		ready += r->hosts[i].stage == HOST_STARTED;
	r->window_start_ns = corecap_now_ns();
	if (ready && !interrupted) {
		if (!r->quiet)
			fprintf(stderr, "%s: window started on %zu of %zu hosts\n",
				corecap_diag_prefix(), ready, r->spec.n);
		run_window(r);
	}
	r->window_end_ns = corecap_now_ns();
	for (size_t i = 0; i < r->spec.n; i++) {
		struct host_run *h = &r->hosts[i];

		if (h->cs_open) {
			h->have_end = corecap_clock_sync_burst(&h->cs, CORECAP_CLOCK_PINGS_DEFAULT,
							       &h->end) == 0;
			if (!h->have_end)
				corecap_warn("host '%s': no clock at the window's end: %s",
					     h->spec->name, h->cs.error);
			corecap_clock_sync_release(&h->cs);
			h->cs_open = false;
		}
	}
	/*
	 * EOF on its stdin ends a host's window: every host's at once, before
	 * any run is brought back (a host's record takes a while to finish,
	 * which must not stretch the next host's window).
	 */
	for (size_t i = 0; i < r->spec.n; i++) {
		struct host_run *h = &r->hosts[i];

		if (h->stage == HOST_STARTED && h->to_fd >= 0) {
			close(h->to_fd);
			h->to_fd = -1;
		}
	}
	for (size_t i = 0; i < r->spec.n; i++) {
		struct host_run *h = &r->hosts[i];

		if (h->stage == HOST_STARTED)
			collect(r, h);
		/* A record not started (Ctrl-C before the go) abandons its run. */
		host_end(h, 30000);
	}
	/* Every host's record has ended its session: the relayd has all it will get. */
	if (r->have_relayd) {
		r->relayd_pid = (int)r->relayd.pid;
		if (corecap_relayd_stop(&r->relayd) == -ETIMEDOUT)
			corecap_warn("%s: taking what it wrote so far", r->relayd.error);
	}
	place_traces(r); /* it quotes the hosts' logs */
	r->relayd_used = r->have_relayd;
	r->relayd_reused = r->relayd.reused;
	corecap_relayd_release(&r->relayd, r->rd.dirfd);
	for (size_t i = 0; i < r->spec.n; i++)
		if (r->hosts[i].log_fd >= 0)
			close(r->hosts[i].log_fd);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (write_manifest(r, &partial) < 0 || corecap_run_dir_place(&r->rd) < 0)
		goto out_release;
	for (size_t i = 0; i < r->spec.n; i++) {
		struct host_run *h = &r->hosts[i];

		if (h->have_clock && !r->quiet)
			fprintf(stderr, "%s: host '%s': clock offset %+.9f s, bound %.1f us, %s\n",
				corecap_diag_prefix(), h->spec->name,
				(double)h->start.offset_ns / 1e9, (double)h->start.bound_ns / 1e3,
				host_status(h));
	}
	printf("%s\n", r->rd.path);
	fflush(stdout);
	if (interrupted) {
		corecap_error("interrupted: the run in '%s' holds what the hosts recorded",
			      r->rd.path);
		status = 128 + interrupted;
	} else if (partial) {
		corecap_error("the run in '%s' is partial: see its manifest's partial_reason",
			      r->rd.path);
		status = 1;
	} else {
		status = 0;
	}
out_release:
	corecap_relayd_release(&r->relayd, r->rd.dirfd);
	if (r->hosts_fd >= 0)
		close(r->hosts_fd);
	corecap_run_dir_release(&r->rd);
out_free:
	free(r);
	return status;
}
