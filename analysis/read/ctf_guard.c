/*
 * ctf_guard: the CTF reader's guard around libbabeltrace2 (ctf_reader.h
 * says why the library is not trusted with hostile input): while the
 * library works, its error log is captured, a watchdog thread ends the
 * process when it makes no progress, and an abort inside it ends the
 * process with the library's message; afterwards the captured log's
 * errors join the reader's cause chain, or the log of a step that went
 * well reaches the user.
 */
#include "ctf_reader.h"
#include "exit_unlink.h"

#include <corecap/diag.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/*
 * The guard around the library: its error log captured in r->log_fd (fd 2
 * points there while it works), a watchdog thread, and an abort handler.
 * One reader at a time per process (the commands read their traces one
 * after another), so the handler's state is a static.
 */
static struct {
	int stderr_fd;	  /* the real stderr while fd 2 is the log */
	int log_fd;	  /* the captured log, for the abort handler */
	const char *what; /* the trace being read */
	struct sigaction old_abrt;
	pthread_t watchdog;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop, running;
	const uint64_t *progress;
	const bool *in_consumer;
	unsigned stall_s;
} guard = {.stderr_fd = -1, .log_fd = -1, .mu = PTHREAD_MUTEX_INITIALIZER};

/* Writes s whole to fd, from a signal handler too. */
static void put_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t k = write(fd, s, n);

		if (k <= 0)
			return;
		s += k;
		n -= (size_t)k;
	}
}

static void put_str(int fd, const char *s)
{
	put_all(fd, s, strlen(s));
}

/* The last 4 KiB of the captured log (the library's message) to the real stderr. */
static void replay_log_tail(void)
{
	char buf[4096];
	off_t end;
	ssize_t k;

	if (guard.log_fd < 0 || guard.stderr_fd < 0)
		return;
	end = lseek(guard.log_fd, 0, SEEK_END);
	if (end < 0)
		return;
	k = pread(guard.log_fd, buf, sizeof(buf),
		  end > (off_t)sizeof(buf) ? end - (off_t)sizeof(buf) : 0);
	if (k > 0)
		put_all(guard.stderr_fd, buf, (size_t)k);
}

static void on_abort(int sig)
{
	(void)sig;
	replay_log_tail();
	put_str(guard.stderr_fd >= 0 ? guard.stderr_fd : 2, "corecap: cannot read trace '");
	put_str(guard.stderr_fd >= 0 ? guard.stderr_fd : 2, guard.what ? guard.what : "?");
	put_str(guard.stderr_fd >= 0 ? guard.stderr_fd : 2,
		"': libbabeltrace2 aborted on it (its message is above): the trace is one "
		"this version cannot read\n");
	corecap_exit_unlink_run(); /* a -o FILE's temporary file */
	_exit(1);
}

static unsigned stall_limit_s(void)
{
	const char *s = getenv("CORECAP_TRACE_STALL_S");
	char *end;
	unsigned long v;

	if (!s || !*s)
		return 60;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > 86400 || *s == '-') {
		corecap_warn("CORECAP_TRACE_STALL_S='%s' is not a number of "
			     "seconds (1-86400): 60 s",
			     s);
		return 60;
	}
	return (unsigned)v;
}

/* Ends the process when the library makes no progress for guard.stall_s seconds. */
static void *watchdog_main(void *arg)
{
	uint64_t seen = __atomic_load_n(guard.progress, __ATOMIC_RELAXED), now;
	unsigned idle_s = 0;
	char msg[512];

	(void)arg;
	pthread_mutex_lock(&guard.mu);
	while (!guard.stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		if (pthread_cond_timedwait(&guard.cv, &guard.mu, &ts) == 0 || guard.stop)
			continue;
		now = __atomic_load_n(guard.progress, __ATOMIC_RELAXED);
		idle_s = now == seen && !__atomic_load_n(guard.in_consumer, __ATOMIC_RELAXED)
				 ? idle_s + 1
				 : 0;
		seen = now;
		if (idle_s < guard.stall_s)
			continue;
		replay_log_tail();
		snprintf(
			msg, sizeof(msg),
			"corecap: cannot read trace '%s': libbabeltrace2 made no progress for %u s "
			"(a trace it cannot leave, such as metadata cut short): giving up "
			"(CORECAP_TRACE_STALL_S sets the limit)\n",
			guard.what ? guard.what : "?", guard.stall_s);
		put_str(guard.stderr_fd >= 0 ? guard.stderr_fd : 2, msg);
		corecap_exit_unlink_run(); /* a -o FILE's temporary file */
		_exit(1);
	}
	pthread_mutex_unlock(&guard.mu);
	return NULL;
}

/* From here to corecap_ctf_guard_end, the library works under the guard. */
void corecap_ctf_guard_begin(struct ctf_reader *r, const char *what)
{
	struct sigaction sa = {.sa_handler = on_abort};

	guard.what = what;
	guard.stall_s = stall_limit_s(); /* its warning still reaches the real stderr */
	if (r->log_fd < 0)
		r->log_fd = memfd_create("corecap-babeltrace2-log", MFD_CLOEXEC);
	fflush(stderr);
	if (r->log_fd >= 0 && (guard.stderr_fd = fcntl(2, F_DUPFD_CLOEXEC, 3)) >= 0 &&
	    dup2(r->log_fd, 2) < 0) {
		close(guard.stderr_fd);
		guard.stderr_fd = -1;
	}
	guard.log_fd = r->log_fd;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGABRT, &sa, &guard.old_abrt);
	guard.progress = &r->progress;
	guard.in_consumer = &r->in_consumer;
	guard.stop = false;
	pthread_cond_init(&guard.cv, NULL);
	guard.running = pthread_create(&guard.watchdog, NULL, watchdog_main, NULL) == 0;
}

void corecap_ctf_guard_end(void)
{
	if (guard.running) {
		pthread_mutex_lock(&guard.mu);
		guard.stop = true;
		pthread_cond_signal(&guard.cv);
		pthread_mutex_unlock(&guard.mu);
		pthread_join(guard.watchdog, NULL);
		guard.running = false;
	}
	pthread_cond_destroy(&guard.cv);
	sigaction(SIGABRT, &guard.old_abrt, NULL);
	fflush(stderr);
	if (guard.stderr_fd >= 0) {
		dup2(guard.stderr_fd, 2);
		close(guard.stderr_fd);
		guard.stderr_fd = -1;
	}
	guard.log_fd = -1;
	guard.what = NULL;
}

/*
 * The captured log's errors (level E or F), appended to r->error as the
 * innermost causes: "At line 3 in metadata stream: syntax error". A log
 * line reads "MM-DD HH:MM:SS.mmm PID TID L TAG func@file:line message".
 */
void corecap_ctf_guard_log_causes(struct ctf_reader *r)
{
	char *buf, *line, *save = NULL, *msg;
	off_t end;
	ssize_t k;
	int n = 0;

	if (r->log_fd < 0 || (end = lseek(r->log_fd, 0, SEEK_END)) <= 0)
		return;
	if (end > 65536)
		end = 65536;
	buf = malloc((size_t)end + 1);
	if (!buf)
		return;
	k = pread(r->log_fd, buf, (size_t)end, 0);
	buf[k > 0 ? k : 0] = '\0';
	for (line = strtok_r(buf, "\n", &save); line && n < 8; line = strtok_r(NULL, "\n", &save)) {
		char level = 0, tag[64] = "", where[128] = "";
		int off = 0;

		if (sscanf(line, "%*s %*s %*d %*d %c %63s %127s %n", &level, tag, where, &off) <
			    3 ||
		    !off || (level != 'E' && level != 'F') || !strchr(where, '@'))
			continue;
		if (asprintf(&msg, "%s\n  caused by [%s] %s", r->error ? r->error : "", tag,
			     line + off) < 0)
			break;
		free(r->error);
		r->error = msg;
		n++;
	}
	free(buf);
}

/* The log of a step that went well still reaches the user. */
void corecap_ctf_guard_replay_log(struct ctf_reader *r)
{
	char buf[4096];
	off_t pos = 0;
	ssize_t k;

	if (r->log_fd < 0)
		return;
	while ((k = pread(r->log_fd, buf, sizeof(buf), pos)) > 0) {
		fwrite(buf, 1, (size_t)k, stderr);
		pos += k;
	}
	if (ftruncate(r->log_fd, 0) == 0)
		lseek(r->log_fd, 0, SEEK_SET);
}
