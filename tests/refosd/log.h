/*
 * log: a logging subsystem shaped like Ceph's.
 *
 * Threads build entries in their own context (log_submitf: timestamp,
 * thread id, level, subsystem and the message, formatted with snprintf
 * into a struct log_entry), then append each entry to one queue under
 * queue_mutex and signal cond_flusher. The thread named "log" takes the
 * whole queue at once and writes it with writev(2), one call per batch of
 * up to IOV_MAX entries, so that its own cost stays small and the cost of
 * logging lands in the threads that log. At most max_new entries wait in
 * the queue; a thread that finds it full waits on cond_loggers (Ceph's
 * log_max_new).
 *
 * Guarantees: an entry is written iff its level <= the configured level;
 * entries from one thread are written in the order submitted; log_stop()
 * returns after every entry submitted before it was written. Every
 * function here is named log_*, so that a profiler can tell logging code
 * by its symbols (docs/refosd.md).
 */
#ifndef REFOSD_LOG_H
#define REFOSD_LOG_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define LOG_LINE_MAX	320
#define LOG_MAX_NEW_DEF 1000

struct log_entry {
	struct log_entry *next;
	struct timespec stamp;
	pid_t tid;
	int level;
	const char *subsys;
	unsigned len;		 /* bytes in line, newline included */
	char line[LOG_LINE_MAX]; /* the formatted line written to the file */
};

struct log {
	int fd;
	bool own_fd;
	int level;
	unsigned max_new;
	pthread_mutex_t queue_mutex; /* guards everything below */
	pthread_cond_t cond_flusher; /* the log thread waits here for entries */
	pthread_cond_t cond_loggers; /* submitters wait here while the queue is full */
	struct log_entry *head, *tail;
	unsigned queued;
	unsigned loggers_waiting;
	bool stop;
	bool running;
	pthread_t thread;
	/* Written by the log thread only; read after log_stop(). */
	uint64_t entries_written;
	unsigned cpu_us; /* the log thread burns this per entry written (--log-cpu-us) */
	uint64_t bytes_written;
	int write_error; /* first write error, as a negative errno */
};

/*
 * Open path for appending (NULL: /dev/null) and set the level (entries
 * above it are not built) and the queue bound (0: LOG_MAX_NEW_DEF).
 * Returns 0 or the negative errno of open(2).
 */
int log_init(struct log *lg, const char *path, int level, unsigned max_new);

/* Start the "log" thread. Returns 0 or a negative errno. */
int log_start(struct log *lg);

/* Write out everything submitted so far and stop the log thread. Returns its first write error. */
int log_stop(struct log *lg);

/* Close the file and free what is left; call after log_stop(). */
void log_release(struct log *lg);

/* Would an entry at this level be written? */
static inline bool log_enabled(const struct log *lg, int level)
{
	return level <= lg->level;
}

/* Build one entry and queue it (nothing if level is above the configured one). */
void log_submitf(struct log *lg, int level, const char *subsys, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* REFOSD_LOG_H */
