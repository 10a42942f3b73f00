/*
 * Tracepoint definitions of the three shim providers. Defined here with
 * hidden visibility (LTTNG_UST_TRACEPOINT_HIDDEN_DEFINITION, set for the
 * whole target) and registered by this object's constructor; the probes
 * come from libcorecap-tp.so, which the shim links.
 */
#define LTTNG_UST_TRACEPOINT_DEFINE
#include <corecap/corecap_io_tp.h>
#include <corecap/corecap_lock_tp.h>
#include <corecap/corecap_thread_tp.h>

#include <string.h>

#include "events.h"
#include "stats_shm.h"
#include "util.h"

void events_lock_contended(const void *lock, int kind, uint64_t site, uint64_t wait_ns,
			   bool acquired, const uint64_t *stack, uint32_t depth)
{
	lttng_ust_tracepoint(corecap_lock, contended, lock, kind, site, wait_ns, acquired, stack,
			     depth);
}

void events_lock_hold(const void *lock, int kind, uint64_t site, uint64_t hold_ns)
{
	lttng_ust_tracepoint(corecap_lock, hold, lock, kind, site, hold_ns);
}

void events_cond_wait(const void *cond, const void *mutex, uint64_t site, uint64_t wait_ns,
		      bool timed_out)
{
	lttng_ust_tracepoint(corecap_lock, cond_wait, cond, mutex, site, wait_ns, timed_out);
}

void events_cond_wake(const void *cond, uint64_t site, bool broadcast)
{
	lttng_ust_tracepoint(corecap_lock, cond_wake, cond, site, broadcast);
}

void events_io(int call, int fd, int io_class, int64_t bytes, uint64_t dur_ns, const uint8_t *hdr,
	       size_t hdr_len)
{
	lttng_ust_tracepoint(corecap_io, syscall, call, fd, io_class, bytes, dur_ns, hdr, hdr_len);
}

void events_aio(int call, int fd, int io_class, int64_t bytes, uint64_t dur_ns, const void *iocb)
{
	lttng_ust_tracepoint(corecap_io, aio, call, fd, io_class, bytes, dur_ns, iocb);
}

void events_thread_name(int tid, const char *name)
{
	lttng_ust_tracepoint(corecap_thread, name, tid, name);
}

void events_thread_start(int tid, int parent_tid)
{
	lttng_ust_tracepoint(corecap_thread, start, tid, parent_tid);
}

void events_thread_exit(int tid)
{
	lttng_ust_tracepoint(corecap_thread, exit, tid);
}

int events_names_seen_enabled;

void events_poll_names_slow(void)
{
	int on = lttng_ust_tracepoint_enabled(corecap_thread, name) ? 1 : 0;
	int seen = __atomic_load_n(&events_names_seen_enabled, __ATOMIC_RELAXED);
	uint32_t used;

	if (on == seen)
		return;
	if (!__atomic_compare_exchange_n(&events_names_seen_enabled, &seen, on, false,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED) ||
	    !on || !stats_shm_ready(&g_stats))
		return;
	used = __atomic_load_n(&g_stats.next_free_thread, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < used; i++) {
		struct corecap_stats_thread *t = stats_shm_thread(&g_stats, i);
		char name[CORECAP_STATS_NAME_LEN];

		if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != CORECAP_THREAD_LIVE)
			continue;
		memcpy(name, t->name, sizeof(name));
		name[sizeof(name) - 1] = '\0';
		events_thread_name(t->tid, name);
	}
}
