#include <string.h>

#include "lock_table.h"

#define LOCK_BITS      12 /* 4096 entries */
#define LOCK_MAX_PROBE 64

_Static_assert((1u << LOCK_BITS) == CORECAP_STATS_MAX_LOCKS, "lock hash covers the table");

uint64_t lock_filter[(1u << LOCK_FILTER_BITS) / 64];

struct corecap_stats_lock *lock_table_find(struct stats_shm *s, const void *lock)
{
	uint64_t key = (uint64_t)(uintptr_t)lock;
	uint32_t h = addr_hash(key, LOCK_BITS);

	for (uint32_t i = 0; i < LOCK_MAX_PROBE; i++) {
		struct corecap_stats_lock *e =
			stats_shm_lock_entry(s, (h + i) & (CORECAP_STATS_MAX_LOCKS - 1));
		uint64_t a = __atomic_load_n(&e->addr, __ATOMIC_ACQUIRE);

		if (a == 0)
			break;
		if (a == key)
			return e;
	}
	return NULL;
}

struct corecap_stats_lock *lock_table_mark_hot(struct stats_shm *s, const void *lock, uint32_t kind,
					       uint64_t site, uint64_t now)
{
	uint64_t key = (uint64_t)(uintptr_t)lock;
	uint32_t h = addr_hash(key, LOCK_BITS);
	uint32_t b = addr_hash(key, LOCK_FILTER_BITS);
	struct corecap_stats_lock *e = lock_table_find(s, lock);

	if (e)
		return e;
	if (!stats_shm_lock(s)) {
		shared_add(&s->hdr->locks_dropped, 1);
		return NULL;
	}
	for (uint32_t i = 0; i < LOCK_MAX_PROBE; i++) {
		struct corecap_stats_lock *c =
			stats_shm_lock_entry(s, (h + i) & (CORECAP_STATS_MAX_LOCKS - 1));

		if (c->addr == key) {
			e = c;
			break;
		}
		if (c->addr == 0) {
			c->kind = kind == CORECAP_KIND_RWLOCK_RD ? CORECAP_KIND_RWLOCK_WR : kind;
			c->first_site = site;
			c->hot_since_ns = now;
			__atomic_store_n(&c->addr, key, __ATOMIC_RELEASE);
			e = c;
			break;
		}
	}
	if (e)
		__atomic_fetch_or(&lock_filter[b >> 6], UINT64_C(1) << (b & 63), __ATOMIC_RELEASE);
	else
		shared_add(&s->hdr->locks_dropped, 1);
	stats_shm_unlock(s);
	return e;
}

void lock_table_reset_filter(void)
{
	memset(lock_filter, 0, sizeof(lock_filter));
}
