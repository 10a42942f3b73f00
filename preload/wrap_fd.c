/*
 * Descriptor bookkeeping for the I/O classes (fd_table.h): opens mark log
 * paths, sockets mark net, dups copy, close forgets. None of these are
 * timed. Under the guard (the shim's or a tracer's own calls) nothing is
 * classified, but a close always forgets: a number the tracer closes may
 * be reused by the daemon.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <corecap/stats_layout.h>

#include "fd_table.h"
#include "real.h"
#include "tstate.h"
#include "util.h"

/* open's mode argument exists only with O_CREAT or O_TMPFILE. */
#define OPEN_MODE(flags, mode)                                                                     \
	do {                                                                                       \
		if ((flags)&O_CREAT || ((flags)&O_TMPFILE) == O_TMPFILE) {                         \
			va_list ap;                                                                \
			va_start(ap, flags);                                                       \
			mode = va_arg(ap, mode_t);                                                 \
			va_end(ap);                                                                \
		}                                                                                  \
	} while (0)

static void opened(int fd, const char *path)
{
	struct tstate *ts = &corecap_tstate;

	if (fd >= 0 && !ts->guard)
		fd_table_opened(&g_fds, fd, path);
}

static void classified(int fd, int io_class)
{
	struct tstate *ts = &corecap_tstate;

	if (fd >= 0 && !ts->guard)
		fd_table_set(&g_fds, fd, io_class);
}

#define ENSURE_LOADED(fn)                                                                          \
	do {                                                                                       \
		if (unlikely(!real_##fn))                                                          \
			load_functions();                                                          \
	} while (0)

CORECAP_EXPORT int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	int fd;

	OPEN_MODE(flags, mode);
	ENSURE_LOADED(open);
	fd = real_open ? real_open(path, flags, mode)
		       : (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
	opened(fd, path);
	return fd;
}

CORECAP_EXPORT int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	int fd;

	OPEN_MODE(flags, mode);
	ENSURE_LOADED(open64);
	fd = real_open64 ? real_open64(path, flags, mode)
			 : (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
	opened(fd, path);
	return fd;
}

CORECAP_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	int fd;

	OPEN_MODE(flags, mode);
	ENSURE_LOADED(openat);
	fd = real_openat ? real_openat(dirfd, path, flags, mode)
			 : (int)syscall(SYS_openat, dirfd, path, flags, mode);
	opened(fd, path);
	return fd;
}

CORECAP_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	int fd;

	OPEN_MODE(flags, mode);
	ENSURE_LOADED(openat64);
	fd = real_openat64 ? real_openat64(dirfd, path, flags, mode)
			   : (int)syscall(SYS_openat, dirfd, path, flags, mode);
	opened(fd, path);
	return fd;
}

/* The _FORTIFY_SOURCE forms, called when flags are not constant. */
CORECAP_EXPORT int __open_2(const char *path, int flags)
{
	int fd;

	ENSURE_LOADED(__open_2);
	fd = real___open_2 ? real___open_2(path, flags)
			   : (int)syscall(SYS_openat, AT_FDCWD, path, flags, 0);
	opened(fd, path);
	return fd;
}

CORECAP_EXPORT int __open64_2(const char *path, int flags)
{
	int fd;

	ENSURE_LOADED(__open64_2);
	fd = real___open64_2 ? real___open64_2(path, flags)
			     : (int)syscall(SYS_openat, AT_FDCWD, path, flags, 0);
	opened(fd, path);
	return fd;
}

CORECAP_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	int fd;

	ENSURE_LOADED(__openat_2);
	fd = real___openat_2 ? real___openat_2(dirfd, path, flags)
			     : (int)syscall(SYS_openat, dirfd, path, flags, 0);
	opened(fd, path);
	return fd;
}

CORECAP_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	int fd;

	ENSURE_LOADED(__openat64_2);
	fd = real___openat64_2 ? real___openat64_2(dirfd, path, flags)
			       : (int)syscall(SYS_openat, dirfd, path, flags, 0);
	opened(fd, path);
	return fd;
}

CORECAP_EXPORT int creat(const char *path, mode_t mode)
{
	int fd;

	ENSURE_LOADED(creat);
	fd = real_creat
		     ? real_creat(path, mode)
		     : (int)syscall(SYS_openat, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
	opened(fd, path);
	return fd;
}

CORECAP_EXPORT int creat64(const char *path, mode_t mode)
{
	int fd;

	ENSURE_LOADED(creat64);
	fd = real_creat64
		     ? real_creat64(path, mode)
		     : (int)syscall(SYS_openat, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
	opened(fd, path);
	return fd;
}

CORECAP_EXPORT int socket(int domain, int type, int protocol)
{
	int fd;

	ENSURE_LOADED(socket);
	fd = real_socket ? real_socket(domain, type, protocol)
			 : (int)syscall(SYS_socket, domain, type, protocol);
	classified(fd, CORECAP_IO_NET);
	return fd;
}

CORECAP_EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	int nfd;

	ENSURE_LOADED(accept);
	nfd = real_accept ? real_accept(fd, addr, len) : (int)syscall(SYS_accept, fd, addr, len);
	classified(nfd, CORECAP_IO_NET);
	return nfd;
}

CORECAP_EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	int nfd;

	ENSURE_LOADED(accept4);
	nfd = real_accept4 ? real_accept4(fd, addr, len, flags)
			   : (int)syscall(SYS_accept4, fd, addr, len, flags);
	classified(nfd, CORECAP_IO_NET);
	return nfd;
}

CORECAP_EXPORT int dup(int fd)
{
	int nfd;

	ENSURE_LOADED(dup);
	nfd = real_dup ? real_dup(fd) : (int)syscall(SYS_dup, fd);
	if (nfd >= 0)
		fd_table_copy(&g_fds, fd, nfd);
	return nfd;
}

CORECAP_EXPORT int dup2(int fd, int to)
{
	int r;

	ENSURE_LOADED(dup2);
	r = real_dup2 ? real_dup2(fd, to) : (int)syscall(SYS_dup2, fd, to);
	if (r >= 0 && r != fd)
		fd_table_copy(&g_fds, fd, r);
	return r;
}

CORECAP_EXPORT int dup3(int fd, int to, int flags)
{
	int r;

	ENSURE_LOADED(dup3);
	r = real_dup3 ? real_dup3(fd, to, flags) : (int)syscall(SYS_dup3, fd, to, flags);
	if (r >= 0)
		fd_table_copy(&g_fds, fd, r);
	return r;
}

CORECAP_EXPORT int close(int fd)
{
	int r;

	ENSURE_LOADED(close);
	r = real_close ? real_close(fd) : (int)syscall(SYS_close, fd);
	/* Forget even on EINTR: Linux has released the number anyway. */
	if (r == 0 || errno == EINTR)
		fd_table_forget(&g_fds, fd);
	return r;
}
