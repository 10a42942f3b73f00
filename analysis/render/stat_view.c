/*
 * stat_view: `corecap stat`'s sort keys' names, keys and terminal
 * (stat_view.h).
 */
#include "stat_view.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const sort_names[STAT_SORT__COUNT] = {
	[STAT_SORT_LOCK] = "LOCK%", [STAT_SORT_CPU] = "CPU%", [STAT_SORT_RUNQ] = "RUNQ%",
	[STAT_SORT_COND] = "COND%", [STAT_SORT_IO] = "IO%",   [STAT_SORT_NAME] = "THREAD",
};

const char *corecap_stat_sort_name(enum stat_sort s)
{
	return (unsigned)s < STAT_SORT__COUNT ? sort_names[s] : "?";
}

enum stat_sort corecap_stat_sort_step(enum stat_sort s, int dir)
{
	int n = STAT_SORT__COUNT, v = ((int)s % n + n) % n;

	v += dir > 0 ? 1 : dir < 0 ? -1 : 0;
	return (enum stat_sort)((v % n + n) % n);
}

enum stat_key corecap_stat_key_of(int c)
{
	switch (c) {
	case 'q':
	case 'Q':
		return STAT_KEY_QUIT;
	case 's':
	case '>':
		return STAT_KEY_SORT_NEXT;
	case '<':
		return STAT_KEY_SORT_PREV;
	default:
		return STAT_KEY_NONE;
	}
}

/*
 * SIGCONT after Ctrl-Z: the shell gave the terminal back in its own
 * (canonical) modes; the waiting loop puts the view's back, at once (the
 * signal interrupts its poll).
 */
static volatile sig_atomic_t continued;

static void on_cont(int sig)
{
	(void)sig;
	continued = 1;
}

static int term_raw(struct stat_term *t)
{
	struct termios raw = t->saved;

	/* Keys without Enter and without echo; ISIG stays, so Ctrl-C is SIGINT. */
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	return tcsetattr(t->fd, TCSANOW, &raw) < 0 ? -errno : 0;
}

int corecap_stat_term_enter(struct stat_term *t)
{
	struct sigaction sa = {.sa_handler = on_cont};
	int ret;

	t->fd = STDIN_FILENO;
	t->raw = false;
	if (!isatty(t->fd))
		return -ENOTTY;
	if (tcgetattr(t->fd, &t->saved) < 0)
		return -errno;
	ret = term_raw(t);
	if (ret)
		return ret;
	t->raw = true;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCONT, &sa, NULL);
	return 0;
}

void corecap_stat_term_restore(struct stat_term *t)
{
	if (!t->raw)
		return;
	/* TCSAFLUSH would drop what the user typed ahead for the shell; TCSANOW keeps it. */
	tcsetattr(t->fd, TCSANOW, &t->saved);
	t->raw = false;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

enum stat_key corecap_stat_wait_key(struct stat_term *t, uint64_t deadline_ns,
				    const volatile sig_atomic_t *stop)
{
	while (!*stop) {
		uint64_t now = mono_ns();
		struct pollfd p = {.fd = t ? t->fd : -1, .events = POLLIN};
		int ms, n;
		unsigned char c;

		if (continued && t && t->raw) {
			continued = 0;
			term_raw(t);
		}
		if (now >= deadline_ns)
			break;
		/* Rounded up: a poll that wakes early only loops. */
		ms = (int)((deadline_ns - now + 999999) / 1000000);
		n = poll(&p, t && t->raw ? 1 : 0, ms);
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		if (p.revents & (POLLHUP | POLLERR | POLLNVAL)) {
			/* The terminal went away: sleep out the interval without it. */
			t->raw = false;
			continue;
		}
		if (read(t->fd, &c, 1) == 1 && corecap_stat_key_of(c) != STAT_KEY_NONE)
			return corecap_stat_key_of(c);
	}
	return STAT_KEY_NONE;
}

const char *corecap_stat_elapsed(uint64_t ns, char *buf, size_t cap)
{
	uint64_t s = ns / 1000000000u;

	snprintf(buf, cap, "%" PRIu64 ":%02u:%02u", s / 3600, (unsigned)(s / 60 % 60),
		 (unsigned)(s % 60));
	return buf;
}
