/*
 * warn.h: the shim's only way to talk: one line to stderr, written with a
 * raw write(2) syscall so that it goes through no stdio buffer, no lock
 * and none of the shim's own wrappers. Used at init, for bad settings and
 * for degraded modes; never on a hot path.
 */
#ifndef CORECAP_PRELOAD_WARN_H
#define CORECAP_PRELOAD_WARN_H

#include <stddef.h>

/* Prints "corecap: <message>\n" (truncated to one line of 512 bytes). */
void warn_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Writes all of buf to fd with raw syscalls, retrying on EINTR. */
int write_all(int fd, const char *buf, size_t len);

#endif /* CORECAP_PRELOAD_WARN_H */
