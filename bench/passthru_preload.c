/*
 * passthru_preload: an LD_PRELOAD library that interposes the pthread
 * mutex and rwlock calls the shim interposes and does nothing but call
 * glibc's own. Preloaded in place of the shim (CORECAP_PRELOAD_LIB for
 * `corecap run`, which adds LTTng-UST's fork helper and so LTTng-UST
 * itself), it measures what interposing alone costs a daemon: the extra
 * call through the PLT into another library and back, and the presence
 * of LTTng-UST, without any of the shim's bookkeeping. A benchmark tool
 * (docs/ceph.md, "The shim's cost in write IOPS"), not part of corecap.
 *
 * glibc's implementations are reached through their GLIBC_2.2.5 aliases
 * (as the shim's bootstrap does), which needs no dlsym at all.
 */
#include <pthread.h>

#define EXPORT __attribute__((visibility("default")))

extern int pt_mutex_lock(pthread_mutex_t *m);
extern int pt_mutex_trylock(pthread_mutex_t *m);
extern int pt_mutex_unlock(pthread_mutex_t *m);
extern int pt_rwlock_rdlock(pthread_rwlock_t *l);
extern int pt_rwlock_wrlock(pthread_rwlock_t *l);
extern int pt_rwlock_tryrdlock(pthread_rwlock_t *l);
extern int pt_rwlock_trywrlock(pthread_rwlock_t *l);
extern int pt_rwlock_unlock(pthread_rwlock_t *l);
__asm__(".symver pt_mutex_lock, __pthread_mutex_lock@GLIBC_2.2.5");
__asm__(".symver pt_mutex_trylock, __pthread_mutex_trylock@GLIBC_2.2.5");
__asm__(".symver pt_mutex_unlock, __pthread_mutex_unlock@GLIBC_2.2.5");
__asm__(".symver pt_rwlock_rdlock, __pthread_rwlock_rdlock@GLIBC_2.2.5");
__asm__(".symver pt_rwlock_wrlock, __pthread_rwlock_wrlock@GLIBC_2.2.5");
__asm__(".symver pt_rwlock_tryrdlock, __pthread_rwlock_tryrdlock@GLIBC_2.2.5");
__asm__(".symver pt_rwlock_trywrlock, __pthread_rwlock_trywrlock@GLIBC_2.2.5");
__asm__(".symver pt_rwlock_unlock, __pthread_rwlock_unlock@GLIBC_2.2.5");

EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	return pt_mutex_lock(m);
}

EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	return pt_mutex_trylock(m);
}

EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	return pt_mutex_unlock(m);
}

EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	return pt_rwlock_rdlock(l);
}

EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	return pt_rwlock_wrlock(l);
}

EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	return pt_rwlock_tryrdlock(l);
}

EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
	return pt_rwlock_trywrlock(l);
}

EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	return pt_rwlock_unlock(l);
}
