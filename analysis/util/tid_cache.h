/*
 * tid_cache: the object last found for each tid % TID_CACHE_SLOTS, in
 * front of a map's lookup. A daemon's handful of busy threads hit it on
 * almost every kernel record; the modules that follow threads through
 * the records (kernel states, futex locks, critical path) each keep one.
 * Objects must not move or go while cached.
 */
#ifndef CORECAP_TID_CACHE_H
#define CORECAP_TID_CACHE_H

#include <stdint.h>

#define TID_CACHE_SLOTS 64

struct tid_cache {
	int32_t tid[TID_CACHE_SLOTS];
	void *obj[TID_CACHE_SLOTS];
};

/* tid's object, or NULL when its slot holds another (or none). */
static inline void *corecap_tid_cache_get(const struct tid_cache *c, int32_t tid)
{
	uint32_t s = (uint32_t)tid % TID_CACHE_SLOTS;

	return c->tid[s] == tid ? c->obj[s] : NULL;
}

static inline void *corecap_tid_cache_put(struct tid_cache *c, int32_t tid, void *obj)
{
	uint32_t s = (uint32_t)tid % TID_CACHE_SLOTS;

	c->tid[s] = tid;
	c->obj[s] = obj;
	return obj;
}

#endif
