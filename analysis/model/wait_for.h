/*
 * wait_for: the critical path's wait-for graph between pools (see
 * critical_path.h): the edges the replay (cp_replay.c) records as the
 * daemon's sleeps end, each a sleeper's thread -> its waker (a thread, or
 * one of the pseudo wakers below) by what it slept in, clipped to the
 * window; and the graph read from them: pools, the profiler's edges,
 * knots. The graph's queries are declared in critical_path.h with the
 * rest of the critical path's interface.
 */
#ifndef CORECAP_WAIT_FOR_H
#define CORECAP_WAIT_FOR_H

#include <stdbool.h>
#include <stdint.h>

struct critical_path;
struct cp_thread;

#define WAIT_KEY(from, to, kind) (((uint64_t)(from) << 34) | ((uint64_t)(to) << 4) | (kind))
#define WAIT_TO_MASK		 ((1u << 30) - 1)
/*
 * The waker of a sleep that no daemon thread ended, as wPerf's pseudo
 * threads: an interrupt (the network's softirq, a timer's expiry) or
 * another process (a client writing to a loopback socket): indices no
 * thread has.
 */
#define WAIT_TO_IRQ	  WAIT_TO_MASK
#define WAIT_TO_OTHER	  (WAIT_TO_MASK - 1)
#define WAIT_TO_NOT_WOKEN (WAIT_TO_MASK - 2) /* still asleep when the window ended */

/*
 * A thread of unknown state that a window is clipped to (first seen being
 * woken, or never scheduled): asleep since the window's start, in no futex
 * wait known. False when there is no window to start from.
 */
bool corecap_wait_for_asleep_since_window(const struct critical_path *cp,
					  const struct cp_thread *th);
/* th slept from corecap_cp_blocked_since until `to` (a thread's index, or WAIT_TO_*)
 * woke it at t: an edge th -> to; for WAIT_TO_OTHER, foreign_tid is the
 * other process's waking thread. 0 or -ENOMEM. */
int corecap_wait_for_add(struct critical_path *cp, const struct cp_thread *th, uint32_t to,
			 uint64_t t, int32_t foreign_tid);
/* The sleeps the window's end cut, as edges to WAIT_TO_NOT_WOKEN (once). 0 or -ENOMEM. */
int corecap_wait_for_close_sleeps(struct critical_path *cp);

#endif
