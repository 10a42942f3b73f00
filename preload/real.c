#include <dlfcn.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "libc_225.h"
#include "real.h"
#include "tstate.h"
#include "util.h"

#define CORECAP_DEFINE_REAL(fn) __typeof__(&fn) real_##fn;
CORECAP_REAL_FUNCTIONS(CORECAP_DEFINE_REAL)
#undef CORECAP_DEFINE_REAL

struct real_cond_abi real_cond_current;
struct real_cond_abi real_cond_old;

/* The bootstrap path to the real lock functions: libc_225.h. */
#define CORECAP_DEFINE_BOOTSTRAP(name, type)                                                       \
	int bootstrap_##name(type *l)                                                              \
	{                                                                                          \
		return libc_##name##_225(l);                                                       \
	}
CORECAP_LIBC_225(CORECAP_DEFINE_BOOTSTRAP)
#undef CORECAP_DEFINE_BOOTSTRAP

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
