/*
 * Threads and processes: pthread_create (so each thread gets its slot
 * and a start event, and LTTng-UST's own threads are fenced off),
 * pthread_setname_np and prctl(PR_SET_NAME) (names for the slot and the
 * corecap_thread:name event), fork (the child gets its own counters),
 * _exit and _Exit (which skip destructors, so the stats file would stay).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "events.h"
#include "real.h"
#include "shim.h"
#include "stats_shm.h"
#include "thread_table.h"
#include "tracer_ranges.h"
#include "tstate.h"
#include "util.h"

struct start_arg {
	void *(*fn)(void *);
	void *arg;
	int parent_tid;
	bool tracer;
};

static void *start_thread(void *p)
{
	struct start_arg sa = *(struct start_arg *)p;
	struct tstate *ts = &corecap_tstate;

	free(p);
	if (sa.tracer) {
		/* LTTng-UST's listener threads (or the shim's own): they
		 * call pthread functions while the tracer's locks are held;
		 * nothing of theirs may reach a tracepoint. */
		ts->flags |= TS_TRACER;
		ts->guard = 1;
	} else {
		ts->guard++;
		tstate_attach(ts);
		events_thread_start(ts->tid, sa.parent_tid);
		/* Its name so far (inherited, or set by its creator already). */
		if (ts->slot != &tstate_scratch_slot)
			events_thread_name(ts->tid, ts->slot->name);
		ts->guard--;
	}
	return sa.fn(sa.arg);
}

/*
 * Is fn the start routine of a thread LTTng-UST creates for itself?
 * LTTng-UST starts its listener threads from its own constructor, which
 * may run before the shim's: the ranges are then made here. (Not dladdr:
 * it takes the loader lock, which a dlopen holds while constructors run.)
 */
static bool is_tracer_routine(void *(*fn)(void *))
{
	tracer_ranges_ensure(&g_tracer_ranges);
	return tracer_ranges_contain(&g_tracer_ranges, (uint64_t)(uintptr_t)fn);
}

CORECAP_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
				  void *(*fn)(void *), void *arg)
{
	struct tstate *ts = &corecap_tstate;
	struct start_arg *sa;
	int saved_errno = errno, r;

	if (unlikely(!real_pthread_create))
		load_functions();
	if (unlikely(!real_pthread_create))
		return EAGAIN;
	ts->guard++;
	sa = malloc(sizeof(*sa));
	if (sa) {
		sa->fn = fn;
		sa->arg = arg;
		sa->parent_tid = ts->tid ? ts->tid : (int)syscall(SYS_gettid);
		/* Created by the shim or by a tracer thread: a tracer thread. */
		sa->tracer = ts->guard > 1 || is_tracer_routine(fn);
	}
	ts->guard--;
	errno = saved_errno;
	if (!sa)
		return real_pthread_create(thread, attr, fn, arg);
	r = real_pthread_create(thread, attr, start_thread, sa);
	if (r != 0)
		free(sa);
	errno = saved_errno;
	return r;
}

/* Records a new name for a slot (any thread's) and emits it. */
static void named(struct tstate *ts, struct corecap_stats_thread *slot, int tid, const char *name)
{
	if (slot && slot != &tstate_scratch_slot && stats_shm_ready(&g_stats))
		thread_table_set_name(&g_stats, slot, name);
	events_thread_name(tid, name);
	(void)ts;
}

CORECAP_EXPORT int pthread_setname_np(pthread_t thread, const char *name)
{
	struct tstate *ts = &corecap_tstate;
	struct corecap_stats_thread *slot;
	int saved_errno = errno, r;

	if (unlikely(!real_pthread_setname_np))
		load_functions();
	if (unlikely(!real_pthread_setname_np))
		return ENOSYS;
	r = real_pthread_setname_np(thread, name);
	if (r != 0 || ts->guard)
		return r;
	ts->guard++;
	if (pthread_equal(thread, pthread_self())) {
		if (tstate_needs_attach(ts))
			tstate_attach(ts);
		named(ts, ts->slot, ts->tid, name);
	} else if (stats_shm_ready(&g_stats)) {
		slot = thread_table_find(&g_stats, (uint64_t)thread);
		if (slot)
			named(ts, slot, slot->tid, name);
	}
	ts->guard--;
	errno = saved_errno;
	return r;
}

CORECAP_EXPORT int prctl(int option, ...)
{
	struct tstate *ts = &corecap_tstate;
	unsigned long a2, a3, a4, a5;
	va_list ap;
	int saved_errno, r;

	/* prctl takes up to four more arguments; the kernel ignores the
	 * unused ones, so forwarding all four is what glibc does too. */
	va_start(ap, option);
	a2 = va_arg(ap, unsigned long);
	a3 = va_arg(ap, unsigned long);
	a4 = va_arg(ap, unsigned long);
	a5 = va_arg(ap, unsigned long);
	va_end(ap);
	if (unlikely(!real_prctl))
		load_functions();
	r = real_prctl ? real_prctl(option, a2, a3, a4, a5)
		       : (int)syscall(SYS_prctl, option, a2, a3, a4, a5);
	if (option != PR_SET_NAME || r != 0 || ts->guard)
		return r;
	saved_errno = errno;
	ts->guard++;
	if (tstate_needs_attach(ts))
		tstate_attach(ts);
	{
		char name[CORECAP_STATS_NAME_LEN];

		/* The kernel truncates to 15 bytes; read back what it kept. */
		if (syscall(SYS_prctl, PR_GET_NAME, name, 0, 0, 0) == 0) {
			name[sizeof(name) - 1] = '\0';
			named(ts, ts->slot, ts->tid, name);
		}
	}
	ts->guard--;
	errno = saved_errno;
	return r;
}

CORECAP_EXPORT pid_t fork(void)
{
	struct tstate *ts = &corecap_tstate;
	int saved_errno;
	pid_t pid;

	if (unlikely(!real_fork))
		load_functions();
	if (unlikely(!real_fork))
		return (pid_t)syscall(SYS_fork);
	/* Nothing may count into the parent's shared counters from the
	 * child, not even other libraries' atfork handlers: guard up. */
	ts->guard++;
	pid = real_fork();
	saved_errno = errno;
	if (pid == 0)
		shim_after_fork_child(true);
	ts->guard--;
	errno = saved_errno;
	return pid;
}

CORECAP_EXPORT void _exit(int status)
{
	shim_before_exit_now();
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

CORECAP_EXPORT void _Exit(int status)
{
	shim_before_exit_now();
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}
