/*
 * libc_225.h: glibc's GLIBC_2.2.5 aliases of the mutex and rwlock
 * functions (__pthread_mutex_lock@GLIBC_2.2.5, ...), as libc_<name>_225().
 * glibc keeps them for binaries of the LinuxThreads era; binding them by
 * version at link time reaches the real lock functions with no dlsym,
 * which the shim's bootstrap needs (real.c) and which a preload that only
 * passes through needs too (bench/passthru_preload.c).
 *
 * CORECAP_LIBC_225(X) lists them as X(name, lock type).
 */
#ifndef CORECAP_PRELOAD_LIBC_225_H
#define CORECAP_PRELOAD_LIBC_225_H

#include <pthread.h>

#define CORECAP_LIBC_225(X)                                                                        \
	X(mutex_lock, pthread_mutex_t)                                                             \
	X(mutex_trylock, pthread_mutex_t)                                                          \
	X(mutex_unlock, pthread_mutex_t)                                                           \
	X(rwlock_rdlock, pthread_rwlock_t)                                                         \
	X(rwlock_wrlock, pthread_rwlock_t)                                                         \
	X(rwlock_tryrdlock, pthread_rwlock_t)                                                      \
	X(rwlock_trywrlock, pthread_rwlock_t)                                                      \
	X(rwlock_unlock, pthread_rwlock_t)

#define CORECAP_LIBC_225_DECLARE(name, type)                                                       \
	extern int libc_##name##_225(type *l);                                                     \
	__asm__(".symver libc_" #name "_225, __pthread_" #name "@GLIBC_2.2.5");
CORECAP_LIBC_225(CORECAP_LIBC_225_DECLARE)
#undef CORECAP_LIBC_225_DECLARE

#endif /* CORECAP_PRELOAD_LIBC_225_H */
