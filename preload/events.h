/*
 * events.h: the shim's LTTng-UST events (providers corecap_lock,
 * corecap_io, corecap_thread; docs/events.md). The tracepoints are
 * defined in events.c (hidden, so the shim exports none of LTTng's
 * symbols) and their probes live in libcorecap-tp.so. Each emitter
 * checks that its event is enabled and costs one load when it is not.
 * Callers hold tstate.guard: LTTng-UST may take locks and write to a
 * pipe while it records, and those calls must not come back here.
 */
#ifndef CORECAP_PRELOAD_EVENTS_H
#define CORECAP_PRELOAD_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <corecap/corecap_io_tp.h>
#include <corecap/corecap_lock_tp.h>
#include <corecap/corecap_thread_tp.h>

#include "util.h"

/* Values of the corecap_io `call` field: enum corecap_io_call (run_format.h). */

void events_lock_contended(const void *lock, int kind, uint64_t site, uint64_t wait_ns,
			   bool acquired, const uint64_t *stack, uint32_t depth);
void events_lock_hold(const void *lock, int kind, uint64_t site, uint64_t hold_ns);
void events_cond_wait(const void *cond, const void *mutex, uint64_t site, uint64_t wait_ns,
		      bool timed_out);
/* One load each: callers test before they prepare an event. */
static inline bool events_cond_wake_enabled(void)
{
	return lttng_ust_tracepoint_enabled(corecap_lock, cond_wake);
}

static inline bool events_io_enabled(void)
{
	return lttng_ust_tracepoint_enabled(corecap_io, syscall);
}

static inline bool events_aio_enabled(void)
{
	return lttng_ust_tracepoint_enabled(corecap_io, aio);
}

void events_cond_wake(const void *cond, uint64_t site, bool broadcast);
/* hdr: the first hdr_len bytes the call moved (a net call's; 0 otherwise). */
void events_io(int call, int fd, int io_class, int64_t bytes, uint64_t dur_ns, const uint8_t *hdr,
	       size_t hdr_len);
void events_aio(int call, int fd, int io_class, int64_t bytes, uint64_t dur_ns, const void *iocb);
void events_thread_name(int tid, const char *name);
void events_thread_start(int tid, int parent_tid);
void events_thread_exit(int tid);

/*
 * A session that starts mid-run must still learn every thread's name.
 * The shim has no callback for "event enabled", so the slow paths call
 * this: when corecap_thread:name turns from disabled to enabled, the
 * first thread to notice emits a name event for every live slot.
 */
void events_poll_names_slow(void);

extern int events_names_seen_enabled;

static inline void events_poll_names(void)
{
	if (unlikely((lttng_ust_tracepoint_enabled(corecap_thread, name) ? 1 : 0) !=
		     __atomic_load_n(&events_names_seen_enabled, __ATOMIC_RELAXED)))
		events_poll_names_slow();
}

#endif /* CORECAP_PRELOAD_EVENTS_H */
