/*
 * u64map: an open-addressing hash map from a 64-bit key to a 64-bit value
 * (an integer or a pointer). Linear probing with backward-shift deletion,
 * so lookups never wade through tombstones; the table doubles at 1/2 load.
 * Every key is valid, 0 included. Memory is proportional to the number of
 * live entries, which is what keeps the analysis bounded by threads, locks
 * and ops in flight rather than by trace length.
 */
#ifndef CORECAP_U64MAP_H
#define CORECAP_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A key and its value side by side: a lookup that hits reads one cache line. */
struct u64map_slot {
	uint64_t key, val;
};

struct u64map {
	struct u64map_slot *slots;
	uint8_t *used;
	size_t cap; /* a power of two, or 0 before the first insertion */
	size_t len;
};

void corecap_u64map_init(struct u64map *m);
void corecap_u64map_release(struct u64map *m);

/* The home slot of key in a table of cap slots. */
static inline size_t corecap_u64map_slot_of(uint64_t key, size_t cap)
{
	/* Fibonacci hashing spreads clustered keys (addresses, sequential ids). */
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

/* Returns a pointer to the value of `key`, or NULL if absent. Inline, as
 * are upsert's lookups: the analysis makes several per kernel record. */
static inline uint64_t *corecap_u64map_find(const struct u64map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = corecap_u64map_slot_of(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->slots[i].key == key)
			return &m->slots[i].val;
	return NULL;
}

/* Inserts `key`, absent from m, with value 0: a pointer to its value, or
 * NULL when out of memory. */
uint64_t *corecap_u64map_insert(struct u64map *m, uint64_t key);

/*
 * Returns a pointer to the value of `key`, inserting it with value 0 if
 * absent (then *inserted is true); NULL when out of memory. The pointer is
 * valid until the next insertion or removal.
 */
static inline uint64_t *corecap_u64map_upsert(struct u64map *m, uint64_t key, bool *inserted)
{
	uint64_t *v = corecap_u64map_find(m, key);
	bool added = false;

	if (!v)
		added = (v = corecap_u64map_insert(m, key)) != NULL;
	if (inserted)
		*inserted = added;
	return v;
}
bool corecap_u64map_remove(struct u64map *m, uint64_t key);
/* Iteration: for (size_t i = 0; corecap_u64map_next(m, &i, &k, &v); ) */
bool corecap_u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val);

#endif
