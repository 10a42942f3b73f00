/*
 * real.h: the functions the shim wraps, as the next object in lookup
 * order (normally glibc) defines them: real_<fn>. load_functions() fills
 * them; it is idempotent and cheap once done, and every wrapper calls it
 * when its pointer is still NULL, because another library's constructor
 * may call a wrapper before the shim's constructor has run.
 *
 * While load_functions() runs in a thread, that thread's wrappers pass
 * straight through (tstate.guard) and, if the pointer they need is not
 * resolved yet, use the bootstrap entries below: glibc's
 * __pthread_mutex_* / __pthread_rwlock_* aliases, which the dynamic
 * linker binds at load time without dlsym, and raw syscalls for I/O.
 * That is the whole bootstrap: the shim does not interpose malloc, so a
 * dlsym that allocates (glibc < 2.34, or a failed lookup) reaches the
 * daemon's own allocator, and when that allocator takes a pthread lock
 * it lands here and is served without recursion.
 */
#ifndef CORECAP_PRELOAD_REAL_H
#define CORECAP_PRELOAD_REAL_H

#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util.h"

/* Fortified entry points, declared here because glibc only declares them
 * when _FORTIFY_SOURCE is on, and the shim is built with it off. */
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags, struct sockaddr *addr,
		       socklen_t *addrlen);
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

/* Every wrapped function of the default symbol version: X(name). */
#define CORECAP_REAL_FUNCTIONS(X)                                                                  \
	X(pthread_mutex_lock)                                                                      \
	X(pthread_mutex_trylock)                                                                   \
	X(pthread_mutex_unlock)                                                                    \
	X(pthread_mutex_timedlock)                                                                 \
	X(pthread_mutex_clocklock)                                                                 \
	X(pthread_rwlock_rdlock)                                                                   \
	X(pthread_rwlock_wrlock)                                                                   \
	X(pthread_rwlock_tryrdlock)                                                                \
	X(pthread_rwlock_trywrlock)                                                                \
	X(pthread_rwlock_timedrdlock)                                                              \
	X(pthread_rwlock_timedwrlock)                                                              \
	X(pthread_rwlock_clockrdlock)                                                              \
	X(pthread_rwlock_clockwrlock)                                                              \
	X(pthread_rwlock_unlock)                                                                   \
	X(pthread_spin_lock)                                                                       \
	X(pthread_spin_trylock)                                                                    \
	X(pthread_spin_unlock)                                                                     \
	X(pthread_cond_clockwait)                                                                  \
	X(pthread_create)                                                                          \
	X(pthread_setname_np)                                                                      \
	X(prctl)                                                                                   \
	X(fork)                                                                                    \
	X(write)                                                                                   \
	X(writev)                                                                                  \
	X(pwrite)                                                                                  \
	X(pwrite64)                                                                                \
	X(pwritev)                                                                                 \
	X(pwritev64)                                                                               \
	X(read)                                                                                    \
	X(readv)                                                                                   \
	X(pread)                                                                                   \
	X(pread64)                                                                                 \
	X(preadv)                                                                                  \
	X(preadv64)                                                                                \
	X(__read_chk)                                                                              \
	X(__pread_chk)                                                                             \
	X(__pread64_chk)                                                                           \
	X(fsync)                                                                                   \
	X(fdatasync)                                                                               \
	X(sync_file_range)                                                                         \
	X(send)                                                                                    \
	X(sendto)                                                                                  \
	X(sendmsg)                                                                                 \
	X(recv)                                                                                    \
	X(recvfrom)                                                                                \
	X(recvmsg)                                                                                 \
	X(__recv_chk)                                                                              \
	X(__recvfrom_chk)                                                                          \
	X(open)                                                                                    \
	X(open64)                                                                                  \
	X(__open_2)                                                                                \
	X(__open64_2)                                                                              \
	X(openat)                                                                                  \
	X(openat64)                                                                                \
	X(__openat_2)                                                                              \
	X(__openat64_2)                                                                            \
	X(creat)                                                                                   \
	X(creat64)                                                                                 \
	X(socket)                                                                                  \
	X(accept)                                                                                  \
	X(accept4)                                                                                 \
	X(dup)                                                                                     \
	X(dup2)                                                                                    \
	X(dup3)                                                                                    \
	X(close)

#define CORECAP_DECLARE_REAL(fn) extern CORECAP_HIDDEN __typeof__(&fn) real_##fn;
CORECAP_REAL_FUNCTIONS(CORECAP_DECLARE_REAL)
#undef CORECAP_DECLARE_REAL

/*
 * The condition variable functions exist in two ABIs on x86_64: the
 * current one (GLIBC_2.3.2, the default) and the LinuxThreads-era one
 * (GLIBC_2.2.5) that old binaries still bind to. Each is wrapped under
 * its own version and forwards to its own implementation.
 */
typedef int (*cond_wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*cond_timedwait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*cond_wake_fn)(pthread_cond_t *);

struct real_cond_abi {
	cond_wait_fn wait;
	cond_timedwait_fn timedwait;
	cond_wake_fn signal;
	cond_wake_fn broadcast;
};

extern struct real_cond_abi real_cond_current; /* GLIBC_2.3.2 */
extern struct real_cond_abi real_cond_old;     /* GLIBC_2.2.5 */

void load_functions(void);

/* Bootstrap entries (see the top of this file). */
int bootstrap_mutex_lock(pthread_mutex_t *m);
int bootstrap_mutex_trylock(pthread_mutex_t *m);
int bootstrap_mutex_unlock(pthread_mutex_t *m);
int bootstrap_rwlock_rdlock(pthread_rwlock_t *l);
int bootstrap_rwlock_wrlock(pthread_rwlock_t *l);
int bootstrap_rwlock_tryrdlock(pthread_rwlock_t *l);
int bootstrap_rwlock_trywrlock(pthread_rwlock_t *l);
int bootstrap_rwlock_unlock(pthread_rwlock_t *l);

#endif /* CORECAP_PRELOAD_REAL_H */
