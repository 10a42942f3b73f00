#include <dlfcn.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "real.h"
#include "tstate.h"
#include "util.h"

#define CORECAP_DEFINE_REAL(fn) __typeof__(&fn) real_##fn;
CORECAP_REAL_FUNCTIONS(CORECAP_DEFINE_REAL)
#undef CORECAP_DEFINE_REAL

struct real_cond_abi real_cond_current;
struct real_cond_abi real_cond_old;

/*
 * glibc keeps these aliases for binaries of the LinuxThreads era; binding
 * them by version at link time gives the shim a path to the real lock
 * functions that needs no dlsym.
 */
extern int libc_mutex_lock_225(pthread_mutex_t *m);
extern int libc_mutex_trylock_225(pthread_mutex_t *m);
extern int libc_mutex_unlock_225(pthread_mutex_t *m);
extern int libc_rwlock_rdlock_225(pthread_rwlock_t *l);
extern int libc_rwlock_wrlock_225(pthread_rwlock_t *l);
extern int libc_rwlock_tryrdlock_225(pthread_rwlock_t *l);
extern int libc_rwlock_trywrlock_225(pthread_rwlock_t *l);
extern int libc_rwlock_unlock_225(pthread_rwlock_t *l);
__asm__(".symver libc_mutex_lock_225, __pthread_mutex_lock@GLIBC_2.2.5");
__asm__(".symver libc_mutex_trylock_225, __pthread_mutex_trylock@GLIBC_2.2.5");
__asm__(".symver libc_mutex_unlock_225, __pthread_mutex_unlock@GLIBC_2.2.5");
__asm__(".symver libc_rwlock_rdlock_225, __pthread_rwlock_rdlock@GLIBC_2.2.5");
__asm__(".symver libc_rwlock_wrlock_225, __pthread_rwlock_wrlock@GLIBC_2.2.5");
__asm__(".symver libc_rwlock_tryrdlock_225, __pthread_rwlock_tryrdlock@GLIBC_2.2.5");
__asm__(".symver libc_rwlock_trywrlock_225, __pthread_rwlock_trywrlock@GLIBC_2.2.5");
__asm__(".symver libc_rwlock_unlock_225, __pthread_rwlock_unlock@GLIBC_2.2.5");

int bootstrap_mutex_lock(pthread_mutex_t *m)
{
	return libc_mutex_lock_225(m);
}

int bootstrap_mutex_trylock(pthread_mutex_t *m)
{
	return libc_mutex_trylock_225(m);
}

int bootstrap_mutex_unlock(pthread_mutex_t *m)
{
	return libc_mutex_unlock_225(m);
}

int bootstrap_rwlock_rdlock(pthread_rwlock_t *l)
{
	return libc_rwlock_rdlock_225(l);
}

int bootstrap_rwlock_wrlock(pthread_rwlock_t *l)
{
	return libc_rwlock_wrlock_225(l);
}

int bootstrap_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	return libc_rwlock_tryrdlock_225(l);
}

int bootstrap_rwlock_trywrlock(pthread_rwlock_t *l)
{
	return libc_rwlock_trywrlock_225(l);
}

int bootstrap_rwlock_unlock(pthread_rwlock_t *l)
{
	return libc_rwlock_unlock_225(l);
}

static void resolve_cond_abi(struct real_cond_abi *abi, const char *version)
{
	abi->wait = (cond_wait_fn)dlvsym(RTLD_NEXT, "pthread_cond_wait", version);
	abi->timedwait = (cond_timedwait_fn)dlvsym(RTLD_NEXT, "pthread_cond_timedwait", version);
	abi->signal = (cond_wake_fn)dlvsym(RTLD_NEXT, "pthread_cond_signal", version);
	abi->broadcast = (cond_wake_fn)dlvsym(RTLD_NEXT, "pthread_cond_broadcast", version);
}

void load_functions(void)
{
	static int loaded;
	struct tstate *ts = &corecap_tstate;

	if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE) || ts->resolving)
		return;
	ts->resolving = 1;
	ts->guard++;
	/*
	 * Several threads may get here at once before `loaded` is set; they
	 * store the same values, so no lock is needed (and none could be
	 * taken: the lock functions are what is being resolved).
	 */
#define CORECAP_RESOLVE(fn)                                                                        \
	if (!real_##fn)                                                                            \
		real_##fn = (__typeof__(&fn))dlsym(RTLD_NEXT, #fn);
	CORECAP_REAL_FUNCTIONS(CORECAP_RESOLVE)
#undef CORECAP_RESOLVE
	resolve_cond_abi(&real_cond_current, "GLIBC_2.3.2");
	resolve_cond_abi(&real_cond_old, "GLIBC_2.2.5");
	ts->guard--;
	ts->resolving = 0;
	__atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
}
