#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lttng/lttng.h>

#include <corecap/diag.h>
#include "lttng_session.h"
#include "util/proc_stat.h"
#include "util/run_dir.h"
#include <corecap/run_format.h>

const char *const corecap_lttng_default_events[] = {
	"corecap_op:*",
	"corecap_lock:*",
	"corecap_io:*",
	"corecap_thread:*",
};
const size_t corecap_lttng_n_default_events =
	sizeof(corecap_lttng_default_events) / sizeof(corecap_lttng_default_events[0]);

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Starts `lttng-sessiond --daemonize` and waits until it answers. */
static int start_sessiond(struct corecap_lttng_session *s)
{
	int status = 0;
	int ret = 0;
	pid_t child;

	child = fork();
	if (child < 0) {
		ret = -errno;
		corecap_cause("cannot start lttng-sessiond: %s", strerror(errno));
		goto out;
	}
	if (child == 0) {
		int null = open("/dev/null", O_RDWR);
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		execlp("lttng-sessiond", "lttng-sessiond", "--daemonize", (char *)NULL);
		fprintf(stderr, "%s: cannot run lttng-sessiond: %s\n", corecap_diag_prefix(),
			strerror(errno));
		_exit(127);
	}
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		corecap_cause("lttng-sessiond --daemonize failed (status %d)",
			      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		ret = -ECHILD;
		goto out;
	}
	for (int i = 0; i < 100 && lttng_session_daemon_alive() != 1; i++)
		sleep_ms(50);
	if (lttng_session_daemon_alive() != 1) {
		corecap_cause("lttng-sessiond was started but does not answer");
		ret = -ETIMEDOUT;
		goto out;
	}
	s->started_sessiond = true;
	corecap_note("no LTTng session daemon was running: started lttng-sessiond (it keeps "
		     "running)");
out:
	return ret;
}

/*
 * The collector of a session named corecap-<pid>-<stamp>-s<start>-<collector
 * pid> (or, before the start time was added, ...-<stamp>-<collector pid>):
 * false when the name is not one of ours.
 */
static bool session_owner(const char *name, pid_t *pid, uint64_t *start_ticks)
{
	const char *dash = strrchr(name, '-');
	const char *prev;
	char *end;
	long owner;

	if (strncmp(name, "corecap-", 8) != 0 || !dash)
		return false;
	owner = strtol(dash + 1, &end, 10);
	if (*end || owner <= 0 || end == dash + 1)
		return false;
	*pid = (pid_t)owner;
	*start_ticks = 0;
	for (prev = dash - 1; prev > name && *prev != '-'; prev--)
		;
	if (*prev == '-' && prev[1] == 's') {
		unsigned long long v = strtoull(prev + 2, &end, 10);

		if (end == dash && end != prev + 2)
			*start_ticks = v;
	}
	return true;
}

/* Whether the collector PID that started at start_ticks (0: unknown) is gone. */
static bool collector_gone(pid_t pid, uint64_t start_ticks)
{
	struct corecap_proc_stat st;
	char path[64];

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (corecap_proc_stat_read(AT_FDCWD, path, &st) < 0)
		return false; /* not ours to judge (another PID namespace): left alone */
	/* The PID now names another process: ours died and the number was reused. */
	return start_ticks && st.starttime_ticks != start_ticks;
}

/*
 * Marks the run directory a stale session wrote into (its output is
 * <run>/trace), when that is a run this collector's user made and its
 * mark names the dead collector: the trace may hold events past the
 * manifest's window.
 */
static bool mark_orphaned(const char *trace_path, const char *session, pid_t pid,
			  uint64_t start_ticks, char *dir, size_t size)
{
	char line[512];
	const char *slash;
	bool marked = false;
	int dirfd, fd;
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32];
	int n;

	slash = strrchr(trace_path, '/');
	if (!slash || strcmp(slash + 1, CORECAP_RUN_TRACE) != 0 || slash == trace_path ||
	    (size_t)(slash - trace_path) >= size)
		return false;
	memcpy(dir, trace_path, (size_t)(slash - trace_path));
	dir[slash - trace_path] = '\0';
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0)
		return false;
	if (!corecap_run_dir_marked(dirfd, pid, start_ticks))
		goto out_close_dirfd;
	fd = openat(dirfd, CORECAP_RUN_ORPHANED,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		goto out_close_dirfd;
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	n = snprintf(line, sizeof(line),
		     "LTTng session '%s' was still recording after its collector (PID %d) died; "
		     "a later corecap (PID %d) stopped and destroyed it at %s: the trace may "
		     "hold events past the manifest's window\n",
		     session, (int)pid, (int)getpid(), stamp);
	marked = corecap_write_all(fd, line, (size_t)n) == 0;
	close(fd);
out_close_dirfd:
	close(dirfd);
	return marked;
}

int corecap_lttng_reap_orphans(void)
{
	struct lttng_session *sessions = NULL;
	int reaped = 0;
	int n;

	if (lttng_session_daemon_alive() != 1)
		return 0;
	n = lttng_list_sessions(&sessions);
	for (int i = 0; i < n; i++) {
		const char *name = sessions[i].name;
		char dir[PATH_MAX];
		uint64_t start;
		pid_t owner;
		bool marked;

		if (!session_owner(name, &owner, &start) || owner == getpid() ||
		    !collector_gone(owner, start))
			continue;
		/* Stopped first (waiting for its data), so the trace ends whole. */
		lttng_stop_tracing(name);
		if (lttng_destroy_session(name) != 0)
			continue;
		reaped++;
		marked = mark_orphaned(sessions[i].path, name, owner, start, dir, sizeof(dir));
		corecap_note("destroyed LTTng session '%s' left by a collector that died%s%s%s",
			     name, marked ? " (its run '" : "", marked ? dir : "",
			     marked ? "' is marked " CORECAP_RUN_ORPHANED ")" : "");
	}
	free(sessions);
	return reaped;
}

/* The daemon's PID in its own PID namespace: the one LTTng-UST sees. */
static pid_t namespace_pid(pid_t pid)
{
	char path[64], buf[4096];
	const char *p;
	pid_t vpid = pid;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (corecap_read_small_file(AT_FDCWD, path, buf, sizeof(buf)) < 0)
		return pid;
	p = strstr(buf, "\nNSpid:");
	if (!p)
		return pid;
	p += 7;
	for (;;) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		vpid = (pid_t)v;
		p = end;
	}
	return vpid;
}

static void check_registration(struct corecap_lttng_session *s, pid_t pid, pid_t vpid)
{
	/*
	 * An app learns of a new session daemon when it wakes the apps' wait
	 * futex, mostly within moments; but lttng-ust sleeps 5 s before it
	 * retries when a connection failed after such a wake (its listener's
	 * failure / wait / failure sequence), so wait past that. A run of
	 * 2026-12-04's CI gave up after 3 s with the daemon not yet there.
	 */
	int tries = s->started_sessiond ? 70 : 1;

	for (int t = 0; t < tries && !s->target_has_probes; t++) {
		struct lttng_event *evs = NULL;
		int n;

		if (t)
			sleep_ms(100);
		n = lttng_list_tracepoints(s->handle, &evs);
		for (int i = 0; i < n; i++) {
			if (evs[i].pid != pid && evs[i].pid != vpid)
				continue;
			s->target_registered = true;
			if (strncmp(evs[i].name, "corecap_", 8) == 0)
				s->target_has_probes = true;
		}
		free(evs);
	}
	if (!s->target_registered)
		corecap_warn(
			"PID %d is not registered with LTTng (not started with `corecap run`, "
			"or it does not load lttng-ust): the trace will hold no events from it",
			(int)pid);
	else if (!s->target_has_probes)
		corecap_warn(
			"PID %d has no corecap tracepoints loaded (start it with `corecap run`): "
			"the trace will hold only the events of other providers",
			(int)pid);
}

/* A cause of the error the caller prints (corecap/diag.h): setting up the session. */
static int lttng_cause(int code, const char *what, const char *session)
{
	corecap_cause("cannot %s of LTTng session '%s': %s", what, session,
		      lttng_strerror(code < 0 ? code : -code));
	return -EIO;
}

static int lttng_fail(int code, const char *what, const char *session)
{
	corecap_error("cannot %s of LTTng session '%s': %s", what, session,
		      lttng_strerror(code < 0 ? code : -code));
	return -EIO;
}

/* Creates the session: streamed to relayd_url when given, else written to trace_dir. */
static int create(struct corecap_lttng_session *s, const char *trace_dir, const char *relayd_url)
{
	struct lttng_session_descriptor *desc;
	enum lttng_error_code code;

	if (relayd_url) {
		desc = lttng_session_descriptor_network_create(s->name, relayd_url, NULL);
		code = desc ? lttng_create_session_ext(desc) : LTTNG_ERR_INVALID;
		lttng_session_descriptor_destroy(desc);
		if (code != LTTNG_OK) {
			corecap_cause("cannot create LTTng session '%s': %s", s->name,
				      lttng_strerror(-(int)code));
			return -EIO;
		}
		s->streamed = true;
		return 0;
	}
	desc = lttng_session_descriptor_local_create(s->name, trace_dir);
	if (!desc) {
		corecap_cause("cannot describe LTTng session '%s'", s->name);
		return -ENOMEM;
	}
	code = lttng_create_session_ext(desc);
	lttng_session_descriptor_destroy(desc);
	if (code != LTTNG_OK) {
		corecap_cause("cannot create LTTng session '%s': %s", s->name,
			      lttng_strerror(-(int)code));
		return -EIO;
	}
	return 0;
}

static int setup(struct corecap_lttng_session *s, pid_t pid, const char *trace_dir,
		 const char *relayd_url, const char *const *extra, size_t n_extra)
{
	struct lttng_domain domain = {.type = LTTNG_DOMAIN_UST, .buf_type = LTTNG_BUFFER_PER_UID};
	struct lttng_process_attr_tracker_handle *tracker = NULL;
	/*
	 * vtid only: procname (17 bytes) and vpid (4) were 21 of about 47
	 * bytes per event on refosd (13.5 events per op). The session traces
	 * the daemon's pid alone (the process tracker), so every event is the
	 * daemon's; the analysis names threads from corecap_thread events,
	 * threads.tsv and the kernel's records (procname was the last resort
	 * of those), and still reads both contexts in older runs.
	 */
	static const enum lttng_event_context_type contexts[] = {
		LTTNG_EVENT_CONTEXT_VTID,
	};
	struct lttng_channel *chan = NULL;
	pid_t vpid = namespace_pid(pid);
	enum lttng_error_code code;
	int ret;
	int r;

	ret = create(s, trace_dir, relayd_url);
	if (ret < 0)
		goto out;
	s->created = true;
	s->handle = lttng_create_handle(s->name, &domain);
	if (!s->handle) {
		ret = -ENOMEM;
		goto out;
	}
	chan = lttng_channel_create(&domain);
	if (!chan) {
		ret = -ENOMEM;
		goto out;
	}
	snprintf(chan->name, sizeof(chan->name), "%s", CORECAP_LTTNG_CHANNEL);
	chan->attr.overwrite = 0;
	chan->attr.subbuf_size = CORECAP_LTTNG_SUBBUF_BYTES;
	chan->attr.num_subbuf = CORECAP_LTTNG_NUM_SUBBUF;
	r = lttng_enable_channel(s->handle, chan);
	if (r < 0) {
		ret = lttng_cause(r, "create the channel", s->name);
		goto out_destroy_chan;
	}
	for (size_t i = 0; i < corecap_lttng_n_default_events + n_extra; i++) {
		const char *name = i < corecap_lttng_n_default_events
					   ? corecap_lttng_default_events[i]
					   : extra[i - corecap_lttng_n_default_events];
		struct lttng_event *ev = lttng_event_create();

		if (!ev || s->n_events == CORECAP_LTTNG_MAX_EVENTS) {
			lttng_event_destroy(ev);
			ret = -ENOMEM;
			goto out_destroy_chan;
		}
		ev->type = LTTNG_EVENT_TRACEPOINT;
		ev->loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
		snprintf(ev->name, sizeof(ev->name), "%s", name);
		r = lttng_enable_event_with_exclusions(s->handle, ev, CORECAP_LTTNG_CHANNEL, NULL,
						       0, NULL);
		lttng_event_destroy(ev);
		if (r < 0) {
			corecap_cause("cannot enable event '%s' in LTTng session '%s': %s", name,
				      s->name, lttng_strerror(r));
			ret = -EIO;
			goto out_destroy_chan;
		}
		s->events[s->n_events] = strdup(name);
		if (s->events[s->n_events])
			s->n_events++;
	}
	for (size_t i = 0; i < sizeof(contexts) / sizeof(contexts[0]); i++) {
		struct lttng_event_context ctx;

		memset(&ctx, 0, sizeof(ctx));
		ctx.ctx = contexts[i];
		r = lttng_add_context(s->handle, &ctx, NULL, CORECAP_LTTNG_CHANNEL);
		if (r < 0) {
			ret = lttng_cause(r, "add a context", s->name);
			goto out_destroy_chan;
		}
	}
	/* Only the daemon is traced: other lttng-ust apps stay out of the buffers. */
	code = lttng_session_get_tracker_handle(s->name, LTTNG_DOMAIN_UST,
						LTTNG_PROCESS_ATTR_VIRTUAL_PROCESS_ID, &tracker);
	if (code != LTTNG_OK ||
	    lttng_process_attr_tracker_handle_set_tracking_policy(
		    tracker, LTTNG_TRACKING_POLICY_INCLUDE_SET) !=
		    LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK ||
	    lttng_process_attr_virtual_process_id_tracker_handle_add_pid(tracker, vpid) !=
		    LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK) {
		corecap_cause("cannot limit LTTng session '%s' to PID %d", s->name, (int)pid);
		ret = -EIO;
		goto out_destroy_tracker;
	}
	check_registration(s, pid, vpid);
out_destroy_tracker:
	lttng_process_attr_tracker_handle_destroy(tracker);
out_destroy_chan:
	lttng_channel_destroy(chan);
out:
	return ret;
}

int corecap_lttng_session_init(struct corecap_lttng_session *s, pid_t pid, const char *trace_dir,
			       const char *const *extra_events, size_t n_extra)
{
	return corecap_lttng_session_init_url(s, pid, trace_dir, NULL, extra_events, n_extra);
}

int corecap_lttng_session_init_url(struct corecap_lttng_session *s, pid_t pid,
				   const char *trace_dir, const char *relayd_url,
				   const char *const *extra_events, size_t n_extra)
{
	struct corecap_proc_stat self;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	/* The collector's start time tells a later corecap that a reused PID is not ours. */
	if (corecap_proc_stat_read(AT_FDCWD, "/proc/self/stat", &self) < 0)
		self.starttime_ticks = 0;
	snprintf(s->name, sizeof(s->name), "corecap-%d-%s-s%llu-%d", (int)pid, stamp,
		 (unsigned long long)self.starttime_ticks, (int)getpid());
	if (lttng_session_daemon_alive() != 1) {
		ret = start_sessiond(s);
		if (ret < 0)
			goto out;
	}
	corecap_lttng_reap_orphans();
	ret = setup(s, pid, trace_dir, relayd_url, extra_events, n_extra);
	if (ret < 0 && relayd_url) {
		char why[1024];

		/*
		 * The session daemon reaches the relayd only when the channel is
		 * made: any step may be the one that fails. Then the trace is
		 * written here, as without a relayd (the host's log carries this
		 * line to the recording host, docs/hosts.md).
		 */
		corecap_cause_take(why, sizeof(why));
		corecap_lttng_session_release(s);
		s->streamed = false;
		corecap_warn("cannot stream the trace to lttng-relayd at '%s': %s; writing it "
			     "into the run instead",
			     relayd_url, *why ? why : "no cause given");
		ret = setup(s, pid, trace_dir, NULL, extra_events, n_extra);
	}
	if (ret < 0)
		corecap_lttng_session_release(s);
out:
	return ret;
}

int corecap_lttng_session_start(struct corecap_lttng_session *s)
{
	int r = lttng_start_tracing(s->name);

	if (r < 0)
		return lttng_fail(r, "start the tracing", s->name);
	s->started = true;
	return 0;
}

int corecap_lttng_session_stop(struct corecap_lttng_session *s)
{
	struct lttng_channel *chans = NULL;
	int ret = 0;
	int n, r;

	if (!s->started)
		goto out;
	/*
	 * lttng_stop_tracing() waits for the data by asking every 200 ms; a
	 * session streamed to a relayd is never done at the first ask, so
	 * that wait was 200 ms or more of every record's end: asked every
	 * 5 ms here instead (at most 60 s, as long as a drain may take).
	 */
	r = lttng_stop_tracing_no_wait(s->name);
	if (r < 0) {
		ret = lttng_fail(r, "stop the tracing", s->name);
		goto out;
	}
	for (int i = 0; i < 12000 && (r = lttng_data_pending(s->name)) == 1; i++)
		sleep_ms(5);
	if (r < 0)
		corecap_warn("cannot tell whether LTTng session '%s' has written all its data: %s",
			     s->name, lttng_strerror(r));
	s->started = false;
	n = lttng_list_channels(s->handle, &chans);
	for (int i = 0; i < n; i++) {
		if (strcmp(chans[i].name, CORECAP_LTTNG_CHANNEL) != 0)
			continue;
		if (lttng_channel_get_discarded_event_count(&chans[i], &s->discarded_events) == 0 &&
		    lttng_channel_get_lost_packet_count(&chans[i], &s->lost_packets) == 0)
			s->counts_known = true;
	}
	free(chans);
	if (s->discarded_events || s->lost_packets)
		corecap_warn("LTTng discarded %llu events and lost %llu packets (buffers too small "
			     "for the event rate)",
			     (unsigned long long)s->discarded_events,
			     (unsigned long long)s->lost_packets);
out:
	return ret;
}

void corecap_lttng_session_release(struct corecap_lttng_session *s)
{
	if (s->started)
		lttng_stop_tracing(s->name);
	s->started = false;
	if (s->handle)
		lttng_destroy_handle(s->handle);
	s->handle = NULL;
	if (s->created) {
		int r = lttng_destroy_session(s->name);

		if (r < 0)
			corecap_warn("cannot destroy LTTng session '%s': %s", s->name,
				     lttng_strerror(r));
	}
	s->created = false;
	for (size_t i = 0; i < s->n_events; i++)
		free(s->events[i]);
	s->n_events = 0;
}
