/*
 * fd_table.h: the I/O class of each file descriptor (log, data, net,
 * journal, other), so that I/O time can be charged per class.
 *
 * One byte per descriptor below FD_TABLE_SIZE: 0 means "not known yet",
 * otherwise class + 1. open/openat/creat mark a path that matches a log
 * pattern as log, one that matches a journal pattern (and no log one) as
 * journal; socket/accept mark net; dup* copy; close forgets.
 * Anything still unknown at its first I/O is classified then, once:
 * fstat (sockets are net, regular files and block devices data, unless
 * their path, read back from /proc/self/fd, matches a log or journal
 * pattern: a symlink's target counts then, its name at open),
 * descriptors 1 and 2 are log, the rest other. Because that lazy path
 * looks at the descriptor itself, a stale or missed entry heals on the
 * next close. Descriptors at or above FD_TABLE_SIZE are classified on
 * every call (rare, and correct).
 *
 * The tracer's own descriptors are never classified: the shim's files
 * use raw syscalls, and LTTng-UST's threads run with the guard up.
 *
 * Beside the class, one byte per socket says whether a request is
 * waiting for its reply: a read that moved bytes sets it, the next write
 * that moves bytes takes it, and that write is a reply (the shim's reply
 * counter, corecap/stats_layout.h's thread.replies). Opening, closing
 * and dup-ing a descriptor clear it. Descriptors at or above
 * FD_TABLE_SIZE have no byte: their replies are not counted.
 */
#ifndef CORECAP_PRELOAD_FD_TABLE_H
#define CORECAP_PRELOAD_FD_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "settings.h"

#define FD_TABLE_SIZE 65536

struct fd_table {
	uint8_t cls[FD_TABLE_SIZE];	 /* 0 unknown, else enum corecap_io_class + 1 */
	uint8_t request[FD_TABLE_SIZE];	 /* 1: bytes read since the socket's last reply */
	const struct settings *settings; /* log patterns */
};

extern struct fd_table g_fds;

void fd_table_init(struct fd_table *t, const struct settings *s);

/* fd_table_class's slow path: classifies fd and remembers it. */
int fd_table_classify(struct fd_table *t, int fd);

/*
 * The class of fd (enum corecap_io_class), classifying it if needed.
 * Inline: every wrapped I/O call asks, and the answer is nearly always
 * the remembered byte (a call to fetch it was 0.3% of xrootd's CPU).
 */
static inline int fd_table_class(struct fd_table *t, int fd)
{
	if (fd >= 0 && fd < FD_TABLE_SIZE) {
		int c = __atomic_load_n(&t->cls[fd], __ATOMIC_RELAXED);

		if (__builtin_expect(c != 0, 1))
			return c - 1;
	}
	return fd_table_classify(t, fd);
}

/* A read on the socket fd moved bytes: a request waits for its reply. */
static inline void fd_table_request(struct fd_table *t, int fd)
{
	if (fd >= 0 && fd < FD_TABLE_SIZE && !__atomic_load_n(&t->request[fd], __ATOMIC_RELAXED))
		__atomic_store_n(&t->request[fd], 1, __ATOMIC_RELAXED);
}

/*
 * A write on fd is about to start: takes the request waiting on it, if
 * any (true). Taken before the write, not after it returns: the client
 * can read the reply and send its next request, which the daemon reads,
 * before the write returns, and that request must not be taken by this
 * reply. Two threads writing at once: only one takes it. Inline: every
 * write asks; only a request's first reply writes.
 */
static inline bool fd_table_take_request(struct fd_table *t, int fd)
{
	uint8_t *b;

	if (fd < 0 || fd >= FD_TABLE_SIZE)
		return false;
	b = &t->request[fd];
	return __atomic_load_n(b, __ATOMIC_RELAXED) && __atomic_exchange_n(b, 0, __ATOMIC_RELAXED);
}

void fd_table_set(struct fd_table *t, int fd, int io_class);
void fd_table_forget(struct fd_table *t, int fd);
void fd_table_copy(struct fd_table *t, int from, int to);

/* A descriptor was opened on path: log if the path matches, else later. */
void fd_table_opened(struct fd_table *t, int fd, const char *path);

/* Does the path match one of the log patterns? */
bool fd_table_is_log_path(const struct fd_table *t, const char *path);

/* CORECAP_IO_LOG or CORECAP_IO_JOURNAL when the path matches a pattern, else -1. */
int fd_table_path_class(const struct fd_table *t, const char *path);

/* Shell-style match of '*' and '?' ('*' also matches '/'), no allocation. */
bool glob_match(const char *pattern, const char *text);

#endif /* CORECAP_PRELOAD_FD_TABLE_H */
