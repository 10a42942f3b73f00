/*
 * record_multi: several daemons in one record (record_multi.h says how).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include <corecap/diag.h>
#include <corecap/manifest_keys.h>
#include <corecap/run_format.h>

#include "workload/bench_label.h"
#include "workload/bench_parse.h"
#include "workload/bench_runner.h"
#include "sources/ceph_asok.h"
#include "manifest.h"
#include "util/mono_clock.h"
#include "util/proc_stat.h"
#include "record_multi.h"
#include "record_signals.h"
#include "util/run_dir.h"
#include "sources/target.h"
#include "sources/wake_probe.h"

#define BENCH_GRACE_MS	 5000u
#define CHILD_END_WAIT_S 600 /* a child's finish (unwinding kernel stacks) before SIGTERM */
#define BENCH_OUT_MAX	 (64u << 20)

struct daemon {
	struct corecap_target target;
	bool have_target;
	char dir[64]; /* daemons/<pid> */
	struct corecap_ceph_osd osd;
	bool is_osd;
	pid_t child;
	int go_fd, said_fd; /* our ends: we write go_fd, read said_fd */
	bool ready, started, ended;
	int exit_status; /* the child's, once reaped; -1 before */
	uint64_t ended_ns;
	char reason[256]; /* why it ended early, or its run's partial reason */
	char status[16];
};

struct multi {
	const struct corecap_record_opts *o;
	int argc;
	char **argv;
	struct daemon *d;
	size_t n;
	struct corecap_run_dir rd;
	bool have_rd;
	struct corecap_bench_runner bench;
	bool have_bench;
	struct corecap_bench_summary summary;
	struct rusage bench_ru;
	bool have_bench_ru;
	uint64_t start_ns, end_ns;
	struct timespec start_realtime;
	int64_t realtime_offset_ns;
	double busy0_s, busy1_s;
	double steal0_s, steal1_s; /* of which the hypervisor's steal */
	double wake_ns; /* after the window (wake_probe.h); < 0 unknown */
	bool complete, interrupted;
	char partial_reason[256];
};

int corecap_record_multi_say(int fd, char c)
{
	ssize_t n;

	do
		n = write(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -errno;
}

static void set_partial(struct multi *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_partial(struct multi *m, const char *fmt, ...)
{
	va_list ap;

	if (!m->complete)
		return;
	m->complete = false;
	va_start(ap, fmt);
	vsnprintf(m->partial_reason, sizeof(m->partial_reason), fmt, ap);
	va_end(ap);
}

static double at_s(const struct multi *m, uint64_t t)
{
	return m->start_ns && t > m->start_ns ? (double)(t - m->start_ns) / 1e9 : 0;
}

/* The daemons: -p's PIDs, or the OSDs --ceph-osds finds; each opened (errors name the PID). */
static int find_daemons(struct multi *m)
{
	const struct corecap_record_opts *o = m->o;
	struct corecap_ceph_osd osds[CORECAP_RECORD_MAX_PIDS];
	char dir[PATH_MAX];
	int n = 0;

	if (o->ceph_osds) {
		if (o->ceph_osds_dir)
			snprintf(dir, sizeof(dir), "%s", o->ceph_osds_dir);
		else
			corecap_ceph_asok_default_dir(dir, sizeof(dir));
		n = corecap_ceph_osds_find(dir, osds, CORECAP_RECORD_MAX_PIDS);
		if (n < 0) {
			corecap_error("--ceph-osds: cannot read /proc/net/unix: %s", strerror(-n));
			return -1;
		}
		if (n == 0) {
			corecap_error("--ceph-osds: no running ceph-osd listens on an admin socket "
				      "in '%s' (name the directory: --ceph-osds=DIR)",
				      dir);
			return -1;
		}
	} else {
		n = (int)o->n_pids;
	}
	m->d = calloc((size_t)n, sizeof(*m->d));
	if (!m->d) {
		corecap_error("out of memory");
		return -1;
	}
	m->n = (size_t)n;
	for (size_t i = 0; i < m->n; i++) {
		struct daemon *d = &m->d[i];
		pid_t pid = o->ceph_osds ? osds[i].pid : o->pids[i];

		d->go_fd = d->said_fd = -1;
		d->exit_status = -1;
		if (o->ceph_osds) {
			d->osd = osds[i];
			d->is_osd = true;
		}
		if (pid == getpid()) {
			corecap_error("PID %d is corecap itself", (int)pid);
			return -1;
		}
		if (corecap_target_open(&d->target, pid) < 0)
			return -1;
		d->have_target = true;
		for (size_t j = 0; j < i; j++)
			if (m->d[j].target.pid == d->target.pid) {
				/* Two TIDs of one process: the same daemon twice. */
				corecap_error("PID %d and PID %d are one process (PID %d)",
					      (int)(o->ceph_osds ? osds[j].pid : o->pids[j]),
					      (int)pid, (int)d->target.pid);
				return -1;
			}
		snprintf(d->dir, sizeof(d->dir), CORECAP_RUN_DAEMONS_DIR "/%d", (int)d->target.pid);
	}
	return 0;
}

/* ./corecap-<comm>-x<N>-<YYYYmmdd-HHMMSS>: the first daemon's comm, the count. */
static void default_output(const struct multi *m, char *buf, size_t size)
{
	char tag[24];

	snprintf(tag, sizeof(tag), "x%zu", m->n);
	corecap_run_dir_default_name(m->d[0].target.comm, tag, buf, size);
}

static void add_arg(char **a, size_t *n, const char *s)
{
	a[(*n)++] = (char *)s;
}

/* The child's command line: this program's `record` of one daemon, the options passed on. */
static void child_argv(const struct multi *m, const struct daemon *d, char **a, char *pid,
		       char *out, char *fds, char *hz, char *wall, char *asok_opt, char *url,
		       int rfd, int wfd)
{
	const struct corecap_record_opts *o = m->o;
	size_t n = 0;

	snprintf(pid, 16, "%d", (int)d->target.pid);
	snprintf(out, PATH_MAX, "%s/%s", m->rd.abs_path, d->dir);
	snprintf(fds, 32, "%d,%d", rfd, wfd);
	snprintf(hz, 16, "%u", o->threads_hz);
	add_arg(a, &n, "corecap");
	add_arg(a, &n, "record");
	add_arg(a, &n, "-q");
	add_arg(a, &n, "-p");
	add_arg(a, &n, pid);
	add_arg(a, &n, "-o");
	add_arg(a, &n, out);
	add_arg(a, &n, "--sync-fds");
	add_arg(a, &n, fds);
	add_arg(a, &n, "--threads-hz");
	add_arg(a, &n, hz);
	if (o->wall_hz) {
		snprintf(wall, 32, "--wallclock=%u", o->wall_hz);
		add_arg(a, &n, wall);
	}
	if (o->wall_threads) {
		add_arg(a, &n, "--wallclock-threads");
		add_arg(a, &n, o->wall_threads);
	}
	if (!o->trace)
		add_arg(a, &n, "--no-trace");
	if (o->relayd_url) {
		/* A host of record --hosts: each daemon's trace under its own path, URL/PID. */
		snprintf(url, PATH_MAX, "%s/%d", o->relayd_url, (int)d->target.pid);
		add_arg(a, &n, "--relayd-url");
		add_arg(a, &n, url);
	}
	for (size_t i = 0; i < o->n_events; i++) {
		add_arg(a, &n, "--event");
		add_arg(a, &n, o->events[i]);
	}
	if (d->is_osd) {
		snprintf(asok_opt, PATH_MAX, "--ceph-asok=%s", d->osd.asok);
		add_arg(a, &n, asok_opt);
	}
	if (o->no_ceph)
		add_arg(a, &n, "--no-ceph");
	if (o->ceph_history_end)
		add_arg(a, &n, "--ceph-history=end");
	if (o->no_cpu_profile)
		add_arg(a, &n, "--no-cpu-profile");
	if (o->kernel == CORECAP_RECORD_KERNEL_REQUIRE)
		add_arg(a, &n, "--kernel");
	if (o->kernel == CORECAP_RECORD_KERNEL_OFF)
		add_arg(a, &n, "--no-kernel");
	add_arg(a, &n, "--kernel-via");
	add_arg(a, &n, o->kernel_via);
	add_arg(a, &n, "--wallclock-via");
	add_arg(a, &n, o->wall_via);
	a[n] = NULL;
}

static int start_child(struct multi *m, struct daemon *d)
{
	char pid[16], out[PATH_MAX], fds[32], hz[16], wall[32], asok[PATH_MAX], self[PATH_MAX];
	char url[PATH_MAX];
	char *args[34 + 2 * CORECAP_RECORD_MAX_EVENTS];
	int go[2], said[2];
	ssize_t len;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0) {
		corecap_error("cannot find this program ('/proc/self/exe'): %s", strerror(errno));
		return -1;
	}
	self[len] = '\0';
	if (pipe2(go, O_CLOEXEC) < 0) {
		corecap_error("cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(said, O_CLOEXEC) < 0) {
		corecap_error("cannot create a pipe: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		return -1;
	}
	child_argv(m, d, args, pid, out, fds, hz, wall, asok, url, go[0], said[1]);
	d->child = fork();
	if (d->child < 0) {
		corecap_error("cannot start the collector of PID %d: %s", (int)d->target.pid,
			      strerror(errno));
		close(go[0]);
		close(go[1]);
		close(said[0]);
		close(said[1]);
		return -1;
	}
	if (d->child == 0) {
		int null = open("/dev/null", O_WRONLY);

		/* Its own ends survive the exec; its stdout (the run's path) is ours to print. */
		fcntl(go[0], F_SETFD, 0);
		fcntl(said[1], F_SETFD, 0);
		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		signal(SIGPIPE, SIG_DFL);
		execv(self, args);
		_exit(127);
	}
	close(go[0]);
	close(said[1]);
	d->go_fd = go[1];
	d->said_fd = said[0];
	fcntl(d->said_fd, F_SETFL, O_NONBLOCK);
	return 0;
}

static void reap(struct multi *m)
{
	struct rusage ru;
	int status;
	pid_t pid;

	while ((pid = wait4(-1, &status, WNOHANG, &ru)) > 0) {
		if (m->have_bench && pid == m->bench.pid) {
			m->bench_ru = ru;
			m->have_bench_ru = true;
			corecap_bench_runner_exited(&m->bench, status);
			continue;
		}
		for (size_t i = 0; i < m->n; i++)
			if (m->d[i].child == pid) {
				m->d[i].exit_status = WIFEXITED(status) ? WEXITSTATUS(status)
									: 128 + WTERMSIG(status);
				m->d[i].child = 0;
			}
	}
}

/* Reads what child d says; false when it closed its end (it ended). */
static bool hear(struct daemon *d)
{
	char buf[8];
	ssize_t n;

	while ((n = read(d->said_fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == CORECAP_MULTI_READY)
				d->ready = true;
			else if (buf[i] == CORECAP_MULTI_STARTED)
				d->started = true;
		}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		close(d->said_fd);
		d->said_fd = -1;
		return false;
	}
	return true;
}

/*
 * Waits until every child has said `what` (ready, started); false when
 * one ended first (it printed why) or a signal came.
 */
static bool wait_all(struct multi *m, bool started)
{
	struct pollfd *pfd = calloc(m->n + 1, sizeof(*pfd));
	bool ok = false;

	if (!pfd)
		return false;
	for (;;) {
		size_t waiting = 0;

		pfd[0] = (struct pollfd){.fd = corecap_record_wake_fd(), .events = POLLIN};
		for (size_t i = 0; i < m->n; i++) {
			bool done = started ? m->d[i].started : m->d[i].ready;

			pfd[i + 1] = (struct pollfd){.fd = done ? -1 : m->d[i].said_fd,
						     .events = POLLIN};
			waiting += !done;
		}
		if (!waiting) {
			ok = true;
			break;
		}
		if (poll(pfd, m->n + 1, -1) > 0 && (pfd[0].revents & POLLIN))
			corecap_record_signals_drain();
		if (corecap_record_got_signal) {
			corecap_error("interrupted");
			break;
		}
		for (size_t i = 0; i < m->n; i++)
			if (pfd[i + 1].revents && !hear(&m->d[i])) {
				corecap_error("cannot record PID %d (%s): its collector stopped "
					      "before the window (its error is above)",
					      (int)m->d[i].target.pid, m->d[i].target.comm);
				goto out;
			}
	}
out:
	free(pfd);
	return ok;
}

/*
 * Driven by a host-record (--sync-fds, collector/hosts/host_agent.c), as a
 * single daemon's record is: once every child is ready, says so and waits
 * for the go. 0 on the go; -1 when the driver gave up or a signal came.
 */
static int driver_go(struct multi *m)
{
	const struct corecap_record_opts *o = m->o;
	char c = 0;

	if (o->sync_rfd < 0)
		return 0;
	if (corecap_record_multi_say(o->sync_wfd, CORECAP_MULTI_READY) < 0)
		return -1;
	while (!corecap_record_got_signal) {
		struct pollfd pfd[2] = {{.fd = corecap_record_wake_fd(), .events = POLLIN},
					{.fd = o->sync_rfd, .events = POLLIN}};

		if (poll(pfd, 2, 1000) > 0 && (pfd[0].revents & POLLIN))
			corecap_record_signals_drain();
		reap(m);
		if (pfd[1].revents)
			return read(o->sync_rfd, &c, 1) == 1 && c == CORECAP_MULTI_GO ? 0 : -1;
	}
	return -1;
}

/* Ends every child's window, at once: each sees its pipe closed. */
static void end_windows(struct multi *m)
{
	for (size_t i = 0; i < m->n; i++) {
		if (m->d[i].go_fd >= 0)
			close(m->d[i].go_fd);
		m->d[i].go_fd = -1;
	}
}

/* Ends every child's window (end_windows) and waits for them all to finish. */
static void end_children(struct multi *m)
{
	uint64_t give_up = corecap_now_ns() + (uint64_t)CHILD_END_WAIT_S * 1000000000ull;
	bool termed = false;

	end_windows(m);
	for (;;) {
		size_t running = 0;

		reap(m);
		for (size_t i = 0; i < m->n; i++)
			running += m->d[i].child > 0;
		if (!running)
			break;
		if (!termed && corecap_now_ns() > give_up) {
			corecap_warn(
				"the collectors still running after %d s are stopped (SIGTERM)",
				CHILD_END_WAIT_S);
			for (size_t i = 0; i < m->n; i++)
				if (m->d[i].child > 0)
					kill(m->d[i].child, SIGTERM);
			termed = true;
		}
		poll(&(struct pollfd){.fd = corecap_record_wake_fd(), .events = POLLIN}, 1, 100);
		corecap_record_signals_drain();
	}
	for (size_t i = 0; i < m->n; i++)
		if (m->d[i].said_fd >= 0) {
			close(m->d[i].said_fd);
			m->d[i].said_fd = -1;
		}
}

/* The window: until the benchmark ends, -d elapses, a signal, or every daemon ended. */
static void run_window(struct multi *m)
{
	const struct corecap_record_opts *o = m->o;
	uint64_t end_at =
		o->duration_s > 0 ? m->start_ns + (uint64_t)(o->duration_s * 1e9) : UINT64_MAX;
	struct pollfd *pfd = calloc(m->n + 3, sizeof(*pfd));

	if (!pfd)
		return;
	for (;;) {
		uint64_t t = corecap_now_ns();
		size_t live = 0;
		bool told_end;
		int timeout = end_at == UINT64_MAX ? 1000
			      : end_at > t	   ? (int)((end_at - t + 999999) / 1000000)
						   : 0;

		pfd[0] = (struct pollfd){.fd = corecap_record_wake_fd(), .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = m->have_bench ? m->bench.out_fd : -1,
					 .events = POLLIN};
		for (size_t i = 0; i < m->n; i++)
			pfd[i + 2] = (struct pollfd){.fd = m->d[i].said_fd, .events = POLLIN};
		/* Driven by a host-record (--sync-fds): its pipe's end ends the window. */
		pfd[m->n + 2] = (struct pollfd){.fd = o->sync_rfd, .events = POLLIN};
		if (poll(pfd, m->n + 3, timeout > 1000 ? 1000 : timeout) > 0 &&
		    (pfd[0].revents & POLLIN))
			corecap_record_signals_drain();
		told_end = o->sync_rfd >= 0 && pfd[m->n + 2].revents;
		reap(m);
		if (m->have_bench && pfd[1].revents)
			corecap_bench_runner_pump(&m->bench);
		t = corecap_now_ns();
		for (size_t i = 0; i < m->n; i++) {
			struct daemon *d = &m->d[i];

			if (pfd[i + 2].revents && !hear(d) && !d->ended) {
				d->ended = true;
				d->ended_ns = t;
				if (!corecap_target_alive(&d->target))
					snprintf(d->reason, sizeof(d->reason),
						 "PID %d (%s) exited at +%.1f s",
						 (int)d->target.pid, d->target.comm, at_s(m, t));
				else
					snprintf(d->reason, sizeof(d->reason),
						 "the collector of PID %d (%s) ended at +%.1f s",
						 (int)d->target.pid, d->target.comm, at_s(m, t));
				corecap_error("%s; the other daemons' recording goes on",
					      d->reason);
				set_partial(m, "%s; the other daemons' data is kept", d->reason);
			}
			live += !d->ended;
		}
		if (corecap_record_got_signal) {
			m->interrupted = true;
			break;
		}
		if (!live || (m->have_bench && m->bench.exited) || t >= end_at || told_end)
			break;
	}
	free(pfd);
	m->end_ns = corecap_now_ns();
	if (m->busy0_s < 0 || corecap_machine_busy_s(&m->busy1_s, &m->steal1_s) < 0)
		m->busy0_s = m->busy1_s = -1;
	m->wake_ns = corecap_wake_probe_ns();
}

static void finish_bench(struct multi *m)
{
	int sig;

	if (!m->have_bench)
		return;
	if (!m->bench.exited)
		corecap_bench_runner_signal(&m->bench, SIGINT);
	corecap_bench_runner_finish(&m->bench, BENCH_GRACE_MS);
	reap(m);
	corecap_bench_summary_read(m->rd.dirfd, BENCH_OUT_MAX, &m->summary);
	sig = corecap_bench_runner_killed_by(&m->bench);
	if (m->bench.start_errno)
		set_partial(m, "the benchmark could not start: cannot run '%s': %s",
			    m->o->bench_argv[0], strerror(m->bench.start_errno));
	else if (sig && !m->bench.signalled)
		set_partial(m, "the benchmark was killed by signal %d (%s)", sig, strsignal(sig));
	else if (corecap_bench_runner_exit_code(&m->bench) > 0 && !m->interrupted && !sig)
		corecap_error("the benchmark '%s' exited with status %d", m->o->bench_argv[0],
			      corecap_bench_runner_exit_code(&m->bench));
	if (m->bench.write_errno)
		set_partial(m, CORECAP_RUN_BENCH_OUT " could not be written: %s",
			    strerror(m->bench.write_errno));
}

/* Each daemon's run as its own manifest says: complete, partial (why), or missing. */
static void read_daemon_runs(struct multi *m)
{
	for (size_t i = 0; i < m->n; i++) {
		struct daemon *d = &m->d[i];
		char path[PATH_MAX];
		struct json_object *root, *v;

		snprintf(path, sizeof(path), "%s/%s/" CORECAP_RUN_MANIFEST, m->rd.abs_path, d->dir);
		root = json_object_from_file(path);
		if (!root) {
			snprintf(d->status, sizeof(d->status), "missing");
			if (!d->reason[0])
				snprintf(d->reason, sizeof(d->reason),
					 "no run of PID %d was written (its collector's status %d)",
					 (int)d->target.pid, d->exit_status);
			set_partial(m, "%s", d->reason);
			continue;
		}
		v = json_object_object_get(root, corecap_mk(CORECAP_MK_STATUS));
		snprintf(d->status, sizeof(d->status), "%s",
			 v && json_object_is_type(v, json_type_string) ? json_object_get_string(v)
								       : "partial");
		v = json_object_object_get(root, corecap_mk(CORECAP_MK_PARTIAL_REASON));
		if (strcmp(d->status, "complete") != 0) {
			if (!d->reason[0])
				snprintf(d->reason, sizeof(d->reason), "PID %d: %s",
					 (int)d->target.pid,
					 v && json_object_is_type(v, json_type_string)
						 ? json_object_get_string(v)
						 : "its run is partial");
			set_partial(m, "%s", d->reason);
		} else if (d->reason[0]) {
			snprintf(d->status, sizeof(d->status), "partial");
		}
		json_object_put(root);
	}
}

static int write_manifest(struct multi *m, bool checkpoint)
{
	struct corecap_manifest_daemon *md = calloc(m->n ? m->n : 1, sizeof(*md));
	struct corecap_manifest mf = {
		.complete = m->complete && !checkpoint,
		.start_ns = m->start_ns,
		.end_ns = checkpoint && m->start_ns ? corecap_now_ns() : m->end_ns,
		.start_realtime = m->start_realtime,
		.realtime_offset_ns = m->realtime_offset_ns,
		.record_argv = m->argv,
		.record_argc = m->argc,
		.threads_hz = m->o->threads_hz,
		.bench = m->have_bench ? &m->bench : NULL,
		.bench_argv = m->o->bench_argv,
		.summary = m->have_bench && !checkpoint ? &m->summary : NULL,
		.quiet_errors = checkpoint,
		.machine_busy_s = !checkpoint && m->busy0_s >= 0 ? m->busy1_s - m->busy0_s : -1,
		.machine_steal_s = !checkpoint && m->busy0_s >= 0 ? m->steal1_s - m->steal0_s : -1,
		.wake_ns = checkpoint ? -1 : m->wake_ns,
		.bench_cpu_s = m->have_bench_ru
				       ? (double)m->bench_ru.ru_utime.tv_sec +
						 (double)m->bench_ru.ru_utime.tv_usec / 1e6 +
						 (double)m->bench_ru.ru_stime.tv_sec +
						 (double)m->bench_ru.ru_stime.tv_usec / 1e6
				       : -1,
		.daemons = md,
		.n_daemons = m->n,
	};
	int ret;

	if (!md)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		const struct daemon *d = &m->d[i];

		md[i] = (struct corecap_manifest_daemon){
			.pid = (int)d->target.pid,
			.comm = d->target.comm,
			.dir = d->dir,
			.ceph_asok = d->is_osd ? d->osd.asok : NULL,
			.ceph_osd_id = d->is_osd ? d->osd.id : -1,
			.status = checkpoint || !d->status[0] ? "partial" : d->status,
			.partial_reason = d->reason[0] ? d->reason : NULL,
			.exit_status = d->exit_status,
		};
	}
	if (checkpoint && !m->start_ns)
		snprintf(mf.partial_reason, sizeof(mf.partial_reason),
			 "the window never started: the collector was killed, or stopped, while "
			 "preparing it");
	else if (checkpoint && m->complete)
		snprintf(mf.partial_reason, sizeof(mf.partial_reason),
			 "cut short: the collector's last checkpoint was at +%.1f s (it was "
			 "killed, or the machine stopped)",
			 at_s(m, mf.end_ns));
	else
		snprintf(mf.partial_reason, sizeof(mf.partial_reason), "%s", m->partial_reason);
	ret = corecap_manifest_write(&mf, &m->rd);
	free(md);
	return ret;
}

/* Stops what started before the window (children, the directory): nothing is kept. */
static void abandon(struct multi *m)
{
	end_children(m);
	if (m->have_bench)
		corecap_bench_runner_release(&m->bench);
	m->have_bench = false;
	if (m->have_rd)
		corecap_run_dir_remove(&m->rd);
	m->have_rd = false;
}

static int start_window(struct multi *m)
{
	if (corecap_machine_busy_s(&m->busy0_s, &m->steal0_s) < 0)
		m->busy0_s = -1;
	m->wake_ns = -1;
	m->start_ns = corecap_now_ns();
	clock_gettime(CLOCK_REALTIME, &m->start_realtime);
	m->realtime_offset_ns = corecap_realtime_offset_ns();
	if (m->have_bench && corecap_bench_runner_start(&m->bench, m->o->bench_argv) < 0)
		return -1;
	write_manifest(m, true);
	if (!m->o->quiet) {
		char pids[512];
		size_t len = 0;

		pids[0] = '\0';
		for (size_t i = 0; i < m->n && len < sizeof(pids) - 16; i++)
			len += (size_t)snprintf(pids + len, sizeof(pids) - len, "%s%d",
						i ? "," : "", (int)m->d[i].target.pid);
		if (m->have_bench)
			corecap_note("recording %zu daemons (PID %s) while '%s' runs, into '%s'",
				     m->n, pids, corecap_bench_label(m->o->bench_argv), m->rd.path);
		else
			corecap_note("recording %zu daemons (PID %s) into '%s'%s", m->n, pids,
				     m->rd.path,
				     m->o->duration_s > 0 ? "" : "; Ctrl-C ends the window");
	}
	return 0;
}

static int record(struct multi *m)
{
	const struct corecap_record_opts *o = m->o;
	char output[PATH_MAX];
	int status = 1;
	int ret;

	if (find_daemons(m) < 0)
		return 1;
	if (!o->output)
		default_output(m, output, sizeof(output));
	if (corecap_run_dir_create(&m->rd, o->output ? o->output : output, o->force) < 0)
		return 1;
	m->have_rd = true;
	if (mkdirat(m->rd.dirfd, CORECAP_RUN_DAEMONS_DIR, 0700) < 0) {
		corecap_error("cannot create '%s/" CORECAP_RUN_DAEMONS_DIR "': %s", m->rd.path,
			      strerror(errno));
		abandon(m);
		return 1;
	}
	write_manifest(m, true);
	if (o->bench_argv) {
		if (corecap_bench_runner_init(&m->bench, &m->rd, !o->quiet) < 0) {
			abandon(m);
			return 1;
		}
		m->have_bench = true;
		if (o->collector_cpus)
			corecap_bench_runner_set_cpus(&m->bench, &o->bench_set);
	}
	for (size_t i = 0; i < m->n; i++)
		if (start_child(m, &m->d[i]) < 0) {
			abandon(m);
			return 1;
		}
	if (!wait_all(m, false) || driver_go(m) < 0) {
		abandon(m);
		return corecap_record_got_signal ? 128 + corecap_record_got_signal : 1;
	}
	for (size_t i = 0; i < m->n; i++)
		corecap_record_multi_say(m->d[i].go_fd, CORECAP_MULTI_GO);
	if (!wait_all(m, true) || start_window(m) < 0) {
		abandon(m);
		return corecap_record_got_signal ? 128 + corecap_record_got_signal : 1;
	}
	if (o->sync_wfd >= 0)
		corecap_record_multi_say(o->sync_wfd, CORECAP_MULTI_STARTED);
	run_window(m);
	if (m->interrupted) {
		corecap_error("interrupted");
		if (m->have_bench || o->duration_s > 0)
			set_partial(m, "interrupted at +%.1f s", at_s(m, m->end_ns));
	}
	/* The windows end with the parent's; the benchmark stops before the children finish. */
	end_windows(m);
	finish_bench(m);
	end_children(m);
	read_daemon_runs(m);
	ret = write_manifest(m, false);
	/* Written aside with --force over an old run: swapped in now that the children are done. */
	if (corecap_run_dir_place(&m->rd) < 0)
		return 1;
	if (ret < 0) {
		corecap_error("the run in '%s' keeps its last checkpoint manifest: it is partial",
			      m->rd.path);
		return 1;
	}
	if (!o->quiet || !m->complete)
		corecap_note("wrote %s run of %zu daemons '%s' (%.2f s window)",
			     m->complete ? "complete" : "partial", m->n, m->rd.path,
			     at_s(m, m->end_ns));
	printf("%s\n", m->rd.path);
	fflush(stdout);
	if (m->interrupted || corecap_record_got_signal)
		status = 128 + (corecap_record_got_signal ? corecap_record_got_signal : SIGINT);
	else if (!m->complete)
		status = 1;
	else if (m->have_bench && corecap_bench_runner_exit_code(&m->bench) != 0)
		status = 1;
	else
		status = 0;
	return status;
}

int corecap_record_multi(const struct corecap_record_opts *o, int argc, char **argv)
{
	struct multi m = {.o = o, .argc = argc, .argv = argv, .complete = true, .busy0_s = -1};
	int status;

	if (corecap_record_signals_install() < 0)
		return 1;
	/* A host-record's pipes are ours: the children and the benchmark get their own. */
	if (o->sync_rfd >= 0)
		fcntl(o->sync_rfd, F_SETFD, FD_CLOEXEC);
	if (o->sync_wfd >= 0)
		fcntl(o->sync_wfd, F_SETFD, FD_CLOEXEC);
	status = record(&m);
	if (m.have_bench)
		corecap_bench_runner_release(&m.bench);
	if (m.have_rd)
		corecap_run_dir_release(&m.rd);
	for (size_t i = 0; i < m.n; i++)
		if (m.d[i].have_target)
			corecap_target_release(&m.d[i].target);
	free(m.d);
	corecap_record_signals_restore();
	return status;
}
