/*
 * stat_view: what makes `corecap stat` a top on a terminal, apart from
 * its figures: the threads' sort keys and how `s`, `<` and `>` step
 * through them, the keys read while the view waits for its next
 * interval, the terminal in non-canonical mode while the view is
 * interactive (and restored on every way out), and each thread's CPU and
 * run-queue time from /proc (schedstat), which the shim does not count.
 */
#ifndef CORECAP_STAT_VIEW_H
#define CORECAP_STAT_VIEW_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <termios.h>

/* The threads' sort keys, in the order `s` steps through them. */
enum stat_sort {
	STAT_SORT_LOCK, /* lock wait (the default, and the only order off a terminal) */
	STAT_SORT_CPU,	/* on a CPU (schedstat's run time) */
	STAT_SORT_RUNQ, /* runnable, waiting for a CPU (schedstat's run delay) */
	STAT_SORT_COND, /* condition waits */
	STAT_SORT_IO,	/* I/O calls */
	STAT_SORT_NAME, /* thread name, then tid */
	STAT_SORT__COUNT,
};

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

/*
 * /proc/PID/task/TID/schedstat's line: time on a CPU and time runnable
 * waiting for one (run delay), in ns. false when it is not that line.
 */
bool corecap_stat_parse_schedstat(const char *line, uint64_t *run_ns, uint64_t *delay_ns);
/* /proc/PID/task/TID/stat's line: utime + stime, in clock ticks. */
bool corecap_stat_parse_task_cpu(const char *line, uint64_t *ticks);
/*
 * The thread's CPU and run-queue time so far, in ns: schedstat's where the
 * kernel has it; else CPU time from stat (utime + stime, tick resolution)
 * and *has_runq false. 0, or -errno (the thread is gone: -ENOENT).
 */
int corecap_stat_task_times(pid_t pid, pid_t tid, uint64_t *cpu_ns, uint64_t *runq_ns,
			    bool *has_runq);

/* "H:MM:SS" of ns, into buf. */
const char *corecap_stat_elapsed(uint64_t ns, char *buf, size_t cap);

#endif
