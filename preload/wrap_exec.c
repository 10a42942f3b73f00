/*
 * The exec family: ITIMER_PROF is switched off across the exec and put
 * back if the exec fails.
 *
 * Why: ITIMER_PROF survives execve, but signal handlers do not. A daemon
 * whose gperftools profiler is on (a corecap record's window) and that
 * re-executes itself (an in-place upgrade) starts its new image with the
 * timer armed and SIGPROF's default action, which is to terminate; the
 * new image's libprofiler installs no SIGPROF handler until it is switched
 * on. The new image starts with the profiler off, so disarming the timer
 * ends nothing it would have used.
 *
 * The wrappers are transparent: same arguments to the real function, same
 * return value and errno. They touch no thread state and take no lock, so
 * that a vfork child (whose timers are its own and zero) may call them.
 * The real functions are resolved by this file's constructor (dlsym under
 * the guard, as load_functions() does), or at the first call if another
 * library's constructor execs first.
 */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "tstate.h"
#include "util.h"

int execvpe(const char *file, char *const argv[], char *const envp[]);
int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags);

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

static execve_fn real_execve, real_execvpe;
static execv_fn real_execv, real_execvp;
static fexecve_fn real_fexecve;
static execveat_fn real_execveat;

static void resolve_exec(void)
{
	struct tstate *ts = &corecap_tstate;

	ts->guard++;
	real_execve = (execve_fn)dlsym(RTLD_NEXT, "execve");
	real_execvpe = (execve_fn)dlsym(RTLD_NEXT, "execvpe");
	real_execv = (execv_fn)dlsym(RTLD_NEXT, "execv");
	real_execvp = (execv_fn)dlsym(RTLD_NEXT, "execvp");
	real_fexecve = (fexecve_fn)dlsym(RTLD_NEXT, "fexecve");
	real_execveat = (execveat_fn)dlsym(RTLD_NEXT, "execveat");
	ts->guard--;
}

__attribute__((constructor)) static void wrap_exec_init(void)
{
	int saved_errno = errno;

	if (!real_execve)
		resolve_exec();
	errno = saved_errno;
}

#define ENSURE_RESOLVED(fn)                                                                        \
	do {                                                                                       \
		if (unlikely(!real_##fn))                                                          \
			resolve_exec();                                                            \
		if (unlikely(!real_##fn)) {                                                        \
			errno = ENOSYS;                                                            \
			return -1;                                                                 \
		}                                                                                  \
	} while (0)

/* ITIMER_PROF as it was before the exec; armed: we switched it off. */
struct prof_timer {
	struct itimerval saved;
	bool armed;
};

static void prof_timer_disarm(struct prof_timer *pt)
{
	static const struct itimerval zero;
	int saved_errno = errno;

	pt->armed = false;
	if (syscall(SYS_getitimer, ITIMER_PROF, &pt->saved) == 0 &&
	    (pt->saved.it_value.tv_sec || pt->saved.it_value.tv_usec))
		pt->armed = syscall(SYS_setitimer, ITIMER_PROF, &zero, NULL) == 0;
	if (pt->armed) {
		sigset_t pending;

		/*
		 * A SIGPROF the timer raised just before is still on its way to
		 * a thread with the handler; it would survive the exec as
		 * pending and kill the new image. Let it land (bounded: a
		 * thread blocking it keeps it, blocked, across the exec too).
		 */
		for (int i = 0; i < 100; i++) {
			if (sigpending(&pending) < 0 || !sigismember(&pending, SIGPROF))
				break;
			sched_yield();
		}
	}
	errno = saved_errno;
}

/* After a failed exec: the profiler's timer as it was; errno kept. */
static void prof_timer_restore(const struct prof_timer *pt)
{
	int saved_errno = errno;

	if (pt->armed)
		syscall(SYS_setitimer, ITIMER_PROF, &pt->saved, NULL);
	errno = saved_errno;
}

CORECAP_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	struct prof_timer pt;
	int r;

	ENSURE_RESOLVED(execve);
	prof_timer_disarm(&pt);
	r = real_execve(path, argv, envp);
	prof_timer_restore(&pt);
	return r;
}

CORECAP_EXPORT int execv(const char *path, char *const argv[])
{
	struct prof_timer pt;
	int r;

	ENSURE_RESOLVED(execv);
	prof_timer_disarm(&pt);
	r = real_execv(path, argv);
	prof_timer_restore(&pt);
	return r;
}

CORECAP_EXPORT int execvp(const char *file, char *const argv[])
{
	struct prof_timer pt;
	int r;

	ENSURE_RESOLVED(execvp);
	prof_timer_disarm(&pt);
	r = real_execvp(file, argv);
	prof_timer_restore(&pt);
	return r;
}

CORECAP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	struct prof_timer pt;
	int r;

	ENSURE_RESOLVED(execvpe);
	prof_timer_disarm(&pt);
	r = real_execvpe(file, argv, envp);
	prof_timer_restore(&pt);
	return r;
}

CORECAP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	struct prof_timer pt;
	int r;

	ENSURE_RESOLVED(fexecve);
	prof_timer_disarm(&pt);
	r = real_fexecve(fd, argv, envp);
	prof_timer_restore(&pt);
	return r;
}

CORECAP_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
			    int flags)
{
	struct prof_timer pt;
	int r;

	ENSURE_RESOLVED(execveat);
	prof_timer_disarm(&pt);
	r = real_execveat(dirfd, path, argv, envp, flags);
	prof_timer_restore(&pt);
	return r;
}

/*
 * The list forms build argv on the stack, as glibc does, and go through
 * the vector forms above. n counts the arguments up to the NULL.
 */
static size_t count_args(const char *arg, va_list *ap)
{
	va_list aq;
	size_t n = 0;

	va_copy(aq, *ap);
	for (const char *a = arg; a; a = va_arg(aq, const char *))
		n++;
	va_end(aq);
	return n;
}

static void fill_args(char **argv, size_t n, const char *arg, va_list *ap)
{
	argv[0] = (char *)arg;
	for (size_t i = 1; i < n; i++)
		argv[i] = va_arg(*ap, char *);
	argv[n] = NULL;
}

CORECAP_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, arg);
	n = count_args(arg, &ap);
	{
		char *argv[n + 1];

		fill_args(argv, n, arg, &ap);
		va_end(ap);
		return execv(path, argv);
	}
}

CORECAP_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, arg);
	n = count_args(arg, &ap);
	{
		char *argv[n + 1];

		fill_args(argv, n, arg, &ap);
		va_end(ap);
		return execvp(file, argv);
	}
}

CORECAP_EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	char *const *envp;
	size_t n;

	va_start(ap, arg);
	n = count_args(arg, &ap);
	{
		char *argv[n + 1];

		fill_args(argv, n, arg, &ap);
		(void)va_arg(ap, char *); /* the NULL that ends the arguments */
		envp = va_arg(ap, char *const *);
		va_end(ap);
		return execve(path, argv, envp);
	}
}
