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
/* Returns a pointer to the value of `key`, or NULL if absent. */
uint64_t *corecap_u64map_find(const struct u64map *m, uint64_t key);
/*
 * Returns a pointer to the value of `key`, inserting it with value 0 if
 * absent (then *inserted is true); NULL when out of memory. The pointer is
 * valid until the next insertion or removal.
 */
uint64_t *corecap_u64map_upsert(struct u64map *m, uint64_t key, bool *inserted);
bool corecap_u64map_remove(struct u64map *m, uint64_t key);
/* Iteration: for (size_t i = 0; corecap_u64map_next(m, &i, &k, &v); ) */
bool corecap_u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val);

#endif
