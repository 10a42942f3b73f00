#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_runner.h"
#include <corecap/diag.h>
#include "util/run_dir.h"
#include <corecap/run_format.h>

int corecap_bench_runner_init_file(struct corecap_bench_runner *b, struct corecap_run_dir *rd,
				   const char *name, const char *what, bool echo)
{
	memset(b, 0, sizeof(*b));
	b->out_fd = -1;
	b->echo = echo;
	b->what = what;
	b->out_name = name;
	return corecap_run_dir_create_file(rd, name, &b->file_fd);
}

int corecap_bench_runner_init(struct corecap_bench_runner *b, struct corecap_run_dir *rd, bool echo)
{
	return corecap_bench_runner_init_file(b, rd, CORECAP_RUN_BENCH_OUT, "the benchmark", echo);
}

void corecap_bench_runner_set_cpus(struct corecap_bench_runner *b, const cpu_set_t *cpus)
{
	b->cpus = *cpus;
	b->has_cpus = true;
}

int corecap_bench_runner_start(struct corecap_bench_runner *b, char **argv)
{
	int fds[2], errfds[2];
	int child_errno = 0;
	int ret = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		ret = -errno;
		corecap_error("cannot start %s: %s", b->what, strerror(errno));
		goto out;
	}
	/* The child's exec error comes back here; a successful exec closes it. */
	if (pipe2(errfds, O_CLOEXEC) < 0) {
		ret = -errno;
		corecap_error("cannot start %s: %s", b->what, strerror(errno));
		goto out_close_pipe;
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		corecap_error("cannot start %s '%s': %s", b->what, argv[0], strerror(errno));
		goto out_close_errpipe;
	}
	if (pid == 0) {
		struct sigaction dfl = {.sa_handler = SIG_DFL};
		sigset_t none;
		int e;

		for (int sig = 1; sig < NSIG; sig++)
			sigaction(sig, &dfl, NULL);
		if (b->own_group)
			setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		/* Not confined with the collector (record checked the set when it pinned itself). */
		if (b->has_cpus)
			sched_setaffinity(0, sizeof(b->cpus), &b->cpus);
		execvp(argv[0], argv);
		e = errno;
		fprintf(stderr, "%s: cannot run %s '%s': %s\n", corecap_diag_prefix(), b->what,
			argv[0], strerror(e));
		if (write(errfds[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	/* Also here: a signal to the group may come before the child's own setpgid. */
	if (b->own_group)
		setpgid(pid, pid);
	close(fds[1]);
	close(errfds[1]);
	do
		n = read(errfds[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(errfds[0]);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	b->out_fd = fds[0];
	b->pid = pid;
	if (n == sizeof(child_errno)) {
		b->start_errno = child_errno;
		corecap_error("cannot run %s '%s': %s", b->what, argv[0], strerror(child_errno));
	}
	goto out;

out_close_errpipe:
	close(errfds[0]);
	close(errfds[1]);
out_close_pipe:
	close(fds[0]);
	close(fds[1]);
out:
	return ret;
}

static void track_lines(struct corecap_bench_runner *b, const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = buf[i];

		if (c == '\n' || c == '\r') {
			if (b->partial_len > 0) {
				memcpy(b->last_line, b->partial, b->partial_len);
				b->last_line[b->partial_len] = '\0';
			}
			b->partial_len = 0;
		} else if (b->partial_len < sizeof(b->partial) - 1) {
			b->partial[b->partial_len++] = c;
		}
	}
}

void corecap_bench_runner_pump(struct corecap_bench_runner *b)
{
	char buf[65536];

	while (b->out_fd >= 0) {
		ssize_t n = read(b->out_fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break; /* EAGAIN: nothing more for now */
		if (n == 0) {
			close(b->out_fd);
			b->out_fd = -1;
			break;
		}
		if (!b->write_errno) {
			int r = corecap_write_all(b->file_fd, buf, (size_t)n);

			if (r < 0) {
				b->write_errno = -r;
				corecap_error("cannot write %s: %s", b->out_name, strerror(-r));
			}
		}
		if (b->echo && corecap_write_all(STDOUT_FILENO, buf, (size_t)n) < 0)
			b->echo = false; /* our stdout is gone; bench.out still gets it */
		b->bytes += (size_t)n;
		track_lines(b, buf, (size_t)n);
	}
}

void corecap_bench_runner_exited(struct corecap_bench_runner *b, int status)
{
	b->status = status;
	b->exited = true;
	b->pid = -1;
}

void corecap_bench_runner_signal(struct corecap_bench_runner *b, int sig)
{
	if (b->pid > 0 && !b->exited && kill(b->own_group ? -b->pid : b->pid, sig) == 0)
		b->signalled = true;
}

static bool reap(struct corecap_bench_runner *b, int flags)
{
	int status;
	pid_t r;

	if (b->pid <= 0)
		return true;
	do
		r = waitpid(b->pid, &status, flags);
	while (r < 0 && errno == EINTR);
	if (r == b->pid)
		corecap_bench_runner_exited(b, status);
	return r == b->pid || (r < 0 && errno == ECHILD);
}

void corecap_bench_runner_finish(struct corecap_bench_runner *b, unsigned grace_ms)
{
	struct timespec tick = {.tv_nsec = 10 * 1000000};

	for (unsigned waited = 0; b->pid > 0 && !reap(b, WNOHANG); waited += 10) {
		if (waited >= grace_ms) {
			corecap_warn("%s (PID %d) did not stop; killing it", b->what, (int)b->pid);
			kill(b->own_group ? -b->pid : b->pid, SIGKILL);
			b->signalled = true;
			reap(b, 0);
			break;
		}
		corecap_bench_runner_pump(b);
		nanosleep(&tick, NULL);
	}
	/* What the child printed last; a grandchild holding the pipe gets a second. */
	for (int i = 0; i < 100 && b->out_fd >= 0; i++) {
		struct pollfd pfd = {.fd = b->out_fd, .events = POLLIN};

		if (poll(&pfd, 1, 10) > 0)
			corecap_bench_runner_pump(b);
	}
	if (b->partial_len > 0) {
		memcpy(b->last_line, b->partial, b->partial_len);
		b->last_line[b->partial_len] = '\0';
	}
}

int corecap_bench_runner_release(struct corecap_bench_runner *b)
{
	int ret = 0;

	if (b->pid > 0) {
		kill(b->own_group ? -b->pid : b->pid, SIGKILL);
		b->signalled = true;
		reap(b, 0);
	}
	if (b->out_fd >= 0)
		close(b->out_fd);
	b->out_fd = -1;
	if (b->file_fd >= 0 && close(b->file_fd) < 0)
		ret = -errno;
	b->file_fd = -1;
	return ret;
}

int corecap_bench_runner_exit_code(const struct corecap_bench_runner *b)
{
	if (!b->exited)
		return -1;
	if (WIFEXITED(b->status))
		return WEXITSTATUS(b->status);
	if (WIFSIGNALED(b->status))
		return 128 + WTERMSIG(b->status);
	return -1;
}

int corecap_bench_runner_killed_by(const struct corecap_bench_runner *b)
{
	return b->exited && WIFSIGNALED(b->status) ? WTERMSIG(b->status) : 0;
}
