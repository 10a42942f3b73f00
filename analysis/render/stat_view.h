/*
 * stat_view: what makes `corecap stat` a top on a terminal, apart from
 * its figures: the sort keys' names (the keys themselves order the
 * model's threads: model/stat_interval.h) and how `s`, `<` and `>` step
 * through them, the keys read while the view waits for its next
 * interval, the terminal in non-canonical mode while the view is
 * interactive (and restored on every way out), and the elapsed time as
 * the view prints it. The threads' CPU and run-queue times from /proc are
 * read by read/stat_snapshot.h.
 */
#ifndef CORECAP_RENDER_STAT_VIEW_H
#define CORECAP_RENDER_STAT_VIEW_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <termios.h>

#include "../model/stat_interval.h"

/* The column a sort key sorts by, as the header names it ("CPU%", "THREAD"). */
const char *corecap_stat_sort_name(enum stat_sort s);
/* The next key (dir > 0) or the previous one (dir < 0), wrapping around. */
enum stat_sort corecap_stat_sort_step(enum stat_sort s, int dir);

enum stat_key {
	STAT_KEY_NONE,
	STAT_KEY_QUIT,	    /* q, Q */
	STAT_KEY_SORT_NEXT, /* s, > */
	STAT_KEY_SORT_PREV, /* < */
};

/* What a byte read from the terminal asks for. */
enum stat_key corecap_stat_key_of(int c);

/*
 * The terminal of an interactive view: stdin in non-canonical mode
 * without echo (signals stay on, so Ctrl-C still interrupts) between
 * enter and restore. restore is idempotent and async-signal-safe.
 */
struct stat_term {
	int fd;
	bool raw;
	struct termios saved;
};

/* 0, or -errno (stdin no terminal: -ENOTTY) with the terminal untouched. */
int corecap_stat_term_enter(struct stat_term *t);
void corecap_stat_term_restore(struct stat_term *t);
/*
 * Waits until deadline_ns (CLOCK_MONOTONIC), *stop or a key that asks for
 * something; returns that key, or STAT_KEY_NONE at the deadline or stop.
 * Without a raw terminal it only sleeps.
 */
enum stat_key corecap_stat_wait_key(struct stat_term *t, uint64_t deadline_ns,
				    const volatile sig_atomic_t *stop);

/* "H:MM:SS" of ns, into buf. */
const char *corecap_stat_elapsed(uint64_t ns, char *buf, size_t cap);

#endif
