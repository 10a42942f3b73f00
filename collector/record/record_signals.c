/*
 * record_signals: the signals of `corecap record` (record_signals.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <corecap/diag.h>

#include "record_signals.h"

volatile sig_atomic_t corecap_record_got_signal;
static volatile sig_atomic_t signal_count;
volatile sig_atomic_t corecap_record_forward_signal;
static int wake_pipe[2] = {-1, -1};
/* Caught: they end the window (SIGCHLD also when a ptrace stop wakes us). */
static const int caught[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP};
/* Ignored while recording: job control would stop us, and a stopped
 * collector holds the daemon. */
static const int job_control[] = {SIGTSTP, SIGTTIN, SIGTTOU};

/* Sets the action of every signal in sigs. */
static void set_all(const int *sigs, size_t n, const struct sigaction *sa)
{
	for (size_t i = 0; i < n; i++)
		sigaction(sigs[i], sa, NULL);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)uc;
	if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
		if (!corecap_record_got_signal)
			corecap_record_got_signal = sig;
		signal_count++;
		/* Ctrl-C reaches the benchmark too (same process group); anything else does not. */
		if (si->si_code == SI_USER || si->si_code == SI_QUEUE || sig != SIGINT)
			corecap_record_forward_signal = 1;
		if (signal_count >= 3) {
			/* The kernel detaches our tracees when we exit; nothing stays stopped. */
			static const char msg[] = "corecap: forced exit\n";

			if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
				_exit(128 + sig);
			_exit(128 + sig);
		}
	}
	if (wake_pipe[1] >= 0 && write(wake_pipe[1], "x", 1) < 0)
		errno = saved;
	errno = saved;
}

int corecap_record_signals_install(void)
{
	struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART};
	struct sigaction ign = {.sa_handler = SIG_IGN};
	int ret = 0;

	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		ret = -errno;
		corecap_error("cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	corecap_record_got_signal = 0;
	signal_count = 0;
	corecap_record_forward_signal = 0;
	sigemptyset(&sa.sa_mask);
	/* No SA_NOCLDSTOP: ptrace stops of the daemon must wake us too. */
	set_all(caught, sizeof(caught) / sizeof(caught[0]), &sa);
	sigaction(SIGPIPE, &ign, NULL);
	set_all(job_control, sizeof(job_control) / sizeof(job_control[0]), &ign);
out:
	return ret;
}

void corecap_record_signals_restore(void)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};

	set_all(caught, sizeof(caught) / sizeof(caught[0]), &dfl);
	set_all(job_control, sizeof(job_control) / sizeof(job_control[0]), &dfl);
	for (int i = 0; i < 2; i++) {
		if (wake_pipe[i] >= 0)
			close(wake_pipe[i]);
		wake_pipe[i] = -1;
	}
}

int corecap_record_wake_fd(void)
{
	return wake_pipe[0];
}

void corecap_record_signals_drain(void)
{
	char buf[256];

	while (read(wake_pipe[0], buf, sizeof(buf)) > 0)
		;
}
