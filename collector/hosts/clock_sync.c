/* clock_sync: a remote host's monotonic clock against ours (clock_sync.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock_sync.h"
#include "util/mono_clock.h"

int corecap_clock_estimate(const struct corecap_clock_exchange *x, size_t n,
			   struct corecap_clock_estimate *out)
{
	uint64_t rtt_min = UINT64_MAX, keep_below, rtt_kept = 0;
	size_t valid = 0, used = 0, best = 0;
	/* Offsets are summed relative to the best exchange's, so no sum overflows. */
	long double sum = 0;
	int64_t base;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		if (x[i].recv_ns < x[i].send_ns)
			continue;
		valid++;
		if (x[i].recv_ns - x[i].send_ns < rtt_min) {
			rtt_min = x[i].recv_ns - x[i].send_ns;
			best = i;
		}
	}
	if (!valid)
		return -EINVAL;
	keep_below = rtt_min + rtt_min * CORECAP_CLOCK_KEEP_PCT / 100;
	if (keep_below < rtt_min + 1000)
		keep_below = rtt_min + 1000;
	/* remote - (send + recv) / 2, without overflowing the sum of two times. */
	base = (int64_t)(x[best].remote_ns - x[best].send_ns) - (int64_t)(rtt_min / 2);
	for (size_t i = 0; i < n; i++) {
		uint64_t rtt;
		int64_t off;

		if (x[i].recv_ns < x[i].send_ns)
			continue;
		rtt = x[i].recv_ns - x[i].send_ns;
		if (rtt > keep_below)
			continue;
		off = (int64_t)(x[i].remote_ns - x[i].send_ns) - (int64_t)(rtt / 2);
		sum += (long double)(off - base);
		if (rtt > rtt_kept)
			rtt_kept = rtt;
		used++;
	}
	out->offset_ns = base + (int64_t)(sum / (long double)used);
	out->bound_ns = (rtt_kept + 1) / 2;
	out->rtt_min_ns = rtt_min;
	out->at_ns = x[best].send_ns + rtt_min / 2;
	out->used = used;
	out->valid = valid;
	return 0;
}

double corecap_clock_drift_ppm(const struct corecap_clock_estimate *start,
			       const struct corecap_clock_estimate *end, double *bound_ppm)
{
	double span_ns;

	*bound_ppm = 0;
	if (end->at_ns <= start->at_ns)
		return 0;
	span_ns = (double)(end->at_ns - start->at_ns);
	*bound_ppm = (double)(start->bound_ns + end->bound_ns) / span_ns * 1e6;
	return (double)(end->offset_ns - start->offset_ns) / span_ns * 1e6;
}

/* A decimal number of at most 20 digits, no sign, no leading zeros but "0". */
static int parse_u64(const char **p, uint64_t max, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	size_t digits = 0;

	while (*s >= '0' && *s <= '9') {
		unsigned d = (unsigned)(*s - '0');

		if (v > (max - d) / 10)
			return -EPROTO;
		v = v * 10 + d;
		s++;
		digits++;
	}
	if (!digits || (digits > 1 && **p == '0'))
		return -EPROTO;
	*p = s;
	*out = v;
	return 0;
}

int corecap_clock_parse_reply(const char *line, uint32_t *seq, uint64_t *ns)
{
	uint64_t s;

	if (strlen(line) > CORECAP_CLOCK_LINE_MAX || line[0] != 't' || line[1] != ' ')
		return -EPROTO;
	line += 2;
	if (parse_u64(&line, UINT32_MAX, &s) < 0 || *line++ != ' ' ||
	    parse_u64(&line, INT64_MAX, ns) < 0 || *line)
		return -EPROTO;
	*seq = (uint32_t)s;
	return 0;
}

_Static_assert(CORECAP_CLOCK_LINE_MAX == CORECAP_LINE_IN_MAX, "the pings' lines");

static int write_str(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t w = write(fd, s, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		s += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The cause of a failed read, in the user's words. */
static void read_failed(struct corecap_clock_sync *cs, int err, const char *line)
{
	if (err == -EPIPE)
		snprintf(cs->error, sizeof(cs->error),
			 "the remote shell closed the connection (no corecap there, or it failed)");
	else if (err == -ETIMEDOUT)
		snprintf(cs->error, sizeof(cs->error), "no answer in time");
	else if (err == -EPROTO && line) {
		char shown[CORECAP_CLOCK_LINE_MAX + 1];
		size_t i;

		/* The remote's bytes, never its terminal escapes. */
		for (i = 0; line[i] && i < CORECAP_CLOCK_LINE_MAX; i++)
			shown[i] = line[i] >= 0x20 && line[i] < 0x7f ? line[i] : '?';
		shown[i] = '\0';
		snprintf(cs->error, sizeof(cs->error), "not corecap's clock protocol: '%s'", shown);
	} else if (err == -EPROTO)
		snprintf(cs->error, sizeof(cs->error), "a reply line over %d bytes",
			 CORECAP_CLOCK_LINE_MAX);
	else
		snprintf(cs->error, sizeof(cs->error), "%s", strerror(-err));
}

int corecap_clock_sync_open(struct corecap_clock_sync *cs, char *const argv[], int err_fd)
{
	int to[2], from[2], ret;
	bool got_hello;
	char line[CORECAP_CLOCK_LINE_MAX + 1];

	memset(cs, 0, sizeof(*cs));
	cs->pid = -1;
	cs->to_fd = cs->from_fd = -1;
	if (pipe2(to, O_CLOEXEC) < 0)
		goto out_errno;
	if (pipe2(from, O_CLOEXEC) < 0) {
		ret = -errno;
		close(to[0]);
		close(to[1]);
		goto out_err;
	}
	cs->pid = fork();
	if (cs->pid == 0) {
		/* The remote shell: our pipes as its stdin and stdout. */
		if (dup2(to[0], STDIN_FILENO) < 0 || dup2(from[1], STDOUT_FILENO) < 0 ||
		    (err_fd >= 0 && dup2(err_fd, STDERR_FILENO) < 0))
			_exit(255);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "corecap: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(255);
	}
	ret = cs->pid < 0 ? -errno : 0;
	close(to[0]);
	close(from[1]);
	cs->to_fd = to[1];
	cs->from_fd = from[0];
	cs->in = (struct line_in){.fd = from[0]};
	if (ret < 0) {
		cs->pid = -1;
		goto out_err;
	}
	ret = corecap_line_in_read(&cs->in, CORECAP_CLOCK_HELLO_TIMEOUT_MS, line);
	got_hello = ret == 0;
	if (ret == 0 && strcmp(line, CORECAP_CLOCK_HELLO) != 0)
		ret = -EPROTO;
	if (ret < 0) {
		read_failed(cs, ret, got_hello ? line : NULL);
		return ret;
	}
	return 0;
out_errno:
	ret = -errno;
out_err:
	snprintf(cs->error, sizeof(cs->error), "cannot start '%s': %s", argv[0], strerror(-ret));
	return ret;
}

int corecap_clock_sync_burst(struct corecap_clock_sync *cs, size_t n,
			     struct corecap_clock_estimate *out)
{
	struct corecap_clock_exchange *x = calloc(n ? n : 1, sizeof(*x));
	char line[CORECAP_CLOCK_LINE_MAX + 1], req[32];
	int ret = 0;

	if (!x)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint32_t seq;
		bool got_line;
		int len = snprintf(req, sizeof(req), "p %" PRIu32 "\n", ++cs->seq);

		x[i].send_ns = corecap_now_ns();
		ret = write_str(cs->to_fd, req, (size_t)len);
		if (ret < 0) {
			snprintf(cs->error, sizeof(cs->error),
				 "cannot write to the remote shell: %s", strerror(-ret));
			goto out_free;
		}
		ret = corecap_line_in_read(&cs->in, CORECAP_CLOCK_REPLY_TIMEOUT_MS, line);
		x[i].recv_ns = corecap_now_ns();
		got_line = ret == 0;
		if (ret == 0 &&
		    (corecap_clock_parse_reply(line, &seq, &x[i].remote_ns) < 0 || seq != cs->seq))
			ret = -EPROTO;
		if (ret < 0) {
			read_failed(cs, ret, got_line ? line : NULL);
			goto out_free;
		}
	}
	ret = corecap_clock_estimate(x, n, out);
	if (ret < 0)
		snprintf(cs->error, sizeof(cs->error), "no well-formed exchange in %zu pings", n);
out_free:
	free(x);
	return ret;
}

int corecap_clock_sync_release(struct corecap_clock_sync *cs)
{
	int status = -1, wstatus = 0;
	bool reaped = false;

	if (cs->to_fd >= 0)
		close(cs->to_fd);
	if (cs->from_fd >= 0)
		close(cs->from_fd);
	cs->to_fd = cs->from_fd = -1;
	if (cs->pid > 0) {
		/* The remote ends at EOF; a remote shell that hangs gets 5 s. */
		for (int i = 0; i < 500; i++) {
			pid_t w = waitpid(cs->pid, &wstatus, WNOHANG);

			if (w == cs->pid) {
				reaped = true;
				break;
			}
			if (w < 0 && errno != EINTR)
				break;
			if (i == 499) {
				kill(cs->pid, SIGKILL);
				reaped = waitpid(cs->pid, &wstatus, 0) == cs->pid;
				break;
			}
			usleep(10000);
		}
		if (reaped && WIFEXITED(wstatus))
			status = WEXITSTATUS(wstatus);
		else if (reaped && WIFSIGNALED(wstatus))
			status = 128 + WTERMSIG(wstatus);
		cs->pid = -1;
	}
	return status;
}

int corecap_clock_serve(int in_fd, int out_fd)
{
	char buf[CORECAP_CLOCK_LINE_MAX + 1], reply[CORECAP_CLOCK_LINE_MAX + 1];
	size_t len = 0;
	int ret;

	ret = write_str(out_fd, CORECAP_CLOCK_HELLO "\n", sizeof(CORECAP_CLOCK_HELLO));
	while (ret == 0) {
		char *nl = memchr(buf, '\n', len);
		ssize_t got;

		if (nl) {
			const char *p = buf + 2;
			uint64_t seq, now = corecap_now_ns();
			size_t n = (size_t)(nl - buf);
			int rlen;

			*nl = '\0';
			if (buf[0] != 'p' || buf[1] != ' ' || parse_u64(&p, UINT32_MAX, &seq) < 0 ||
			    *p)
				return -EPROTO;
			rlen = snprintf(reply, sizeof(reply), "t %" PRIu64 " %" PRIu64 "\n", seq,
					now);
			ret = write_str(out_fd, reply, (size_t)rlen);
			len -= n + 1;
			memmove(buf, buf + n + 1, len);
			continue;
		}
		if (len >= CORECAP_CLOCK_LINE_MAX)
			return -EPROTO;
		got = read(in_fd, buf + len, CORECAP_CLOCK_LINE_MAX - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			return len ? -EPROTO : 0;
		len += (size_t)got;
	}
	return ret;
}
