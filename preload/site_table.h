/*
 * site_table.h: the call sites of the stats file, an open-addressed
 * table keyed by (return address, kind). Entries are inserted under the
 * region lock and never removed; the key is published last, so lookups
 * take no lock and a reader never sees a half-made entry. Counters are
 * updated with atomic adds: they change only on contended or tracked
 * (hot-lock) paths, which already cost far more than an atomic, and
 * atomics keep the file directly readable (no per-thread merge).
 */
#ifndef CORECAP_PRELOAD_SITE_TABLE_H
#define CORECAP_PRELOAD_SITE_TABLE_H

#include <corecap/stats_layout.h>
#include <stdbool.h>

#include "stats_shm.h"

/* The entry of (addr, kind), inserted if missing; NULL if the table is full. */
struct corecap_stats_site *site_table_get(struct stats_shm *s, uint64_t addr, uint32_t kind);

/* Only looks: NULL if absent. */
struct corecap_stats_site *site_table_find(struct stats_shm *s, uint64_t addr, uint32_t kind);

/* One wait at the site: contentions, totals, max, histogram, timeouts. */
void site_table_add_wait(struct corecap_stats_site *e, uint64_t wait_ns, bool timed_out);

/* One measured hold of a lock acquired at the site. */
void site_table_add_hold(struct corecap_stats_site *e, uint64_t hold_ns);

/*
 * Claims the right to store the site's representative stack: true for
 * exactly one caller, who must then call site_table_publish_stack().
 */
bool site_table_claim_stack(struct corecap_stats_site *e);
void site_table_publish_stack(struct corecap_stats_site *e, const uint64_t *frames, uint32_t n);

#endif /* CORECAP_PRELOAD_SITE_TABLE_H */
