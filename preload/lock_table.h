/*
 * lock_table.h: the hot locks, i.e. lock addresses that have been
 * contended at least once. From the first contention on, every
 * acquisition of such a lock measures its hold time, which is what makes
 * the hold utilization of the locks that matter known while never-
 * contended locks cost nothing.
 *
 * The entries live in the stats file (open addressing, key published
 * last, never removed). The fast path does not probe them: it tests one
 * bit of a private 32768-bit filter, set when a lock turns hot. A false
 * positive costs one probe of the table; a lock freed and its memory
 * reused for another lock inherits the hot mark (it is then measured,
 * harmlessly, under the old entry).
 */
#ifndef CORECAP_PRELOAD_LOCK_TABLE_H
#define CORECAP_PRELOAD_LOCK_TABLE_H

#include <corecap/stats_layout.h>
#include <stdbool.h>
#include <stdint.h>

#include "stats_shm.h"
#include "util.h"

#define LOCK_FILTER_BITS 15

extern CORECAP_HIDDEN uint64_t lock_filter[(1u << LOCK_FILTER_BITS) / 64];

/* Might this lock be hot? One load, no call: the fast path's test. */
static inline bool lock_table_maybe_hot(const void *lock)
{
	uint32_t b = addr_hash((uint64_t)(uintptr_t)lock, LOCK_FILTER_BITS);

	return (__atomic_load_n(&lock_filter[b >> 6], __ATOMIC_RELAXED) >> (b & 63)) & 1;
}

/* The hot entry of lock, or NULL. */
struct corecap_stats_lock *lock_table_find(struct stats_shm *s, const void *lock);

/* Makes lock hot (or returns its entry); NULL if the table is full. */
struct corecap_stats_lock *lock_table_mark_hot(struct stats_shm *s, const void *lock, uint32_t kind,
					       uint64_t site, uint64_t now);

/* Fork child: the new region has no hot locks. */
void lock_table_reset_filter(void);

#endif /* CORECAP_PRELOAD_LOCK_TABLE_H */
