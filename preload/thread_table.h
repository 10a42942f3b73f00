/*
 * thread_table.h: the per-thread slots of the stats file. A slot is
 * claimed by its thread when it attaches and written only by that thread
 * afterwards (its counters, plain stores); everything that changes the
 * identity of a slot (claiming, reusing, renaming) happens under the
 * region lock and inside a seq bracket, so a reader's copy is never torn.
 * Exited threads keep their slot (state EXITED) until the table is full;
 * then the oldest-found exited slot is folded into header.retired and
 * reused, so process totals never shrink.
 */
#ifndef CORECAP_PRELOAD_THREAD_TABLE_H
#define CORECAP_PRELOAD_THREAD_TABLE_H

#include <corecap/stats_layout.h>

#include "stats_shm.h"

/* NULL when the table is full of live threads (counted in threads_dropped). */
struct corecap_stats_thread *thread_table_claim(struct stats_shm *s, int tid, uint64_t pthread_id,
						const char *name, uint64_t now);

void thread_table_release(struct stats_shm *s, struct corecap_stats_thread *slot, uint64_t now);

/* Renames a slot; any thread may do it (pthread_setname_np on another). */
void thread_table_set_name(struct stats_shm *s, struct corecap_stats_thread *slot,
			   const char *name);

/* The live slot of a pthread_t, or NULL. */
struct corecap_stats_thread *thread_table_find(struct stats_shm *s, uint64_t pthread_id);

#endif /* CORECAP_PRELOAD_THREAD_TABLE_H */
