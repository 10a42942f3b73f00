/*
 * util.h: the few primitives every shim module uses. Counters in the
 * stats file are written with the helpers below so that a concurrent
 * reader never sees a torn 64-bit value: single-writer counters (a
 * thread's own slot) use a relaxed load and store, shared ones (sites,
 * hot locks) an atomic add.
 */
#ifndef CORECAP_PRELOAD_UTIL_H
#define CORECAP_PRELOAD_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* What the shim interposes or publishes; everything else is hidden. */
#define CORECAP_EXPORT __attribute__((visibility("default")))

/* On the declaration of a variable the fast paths read: hidden there
 * too, the compiler addresses it directly (one load) instead of through
 * the GOT. */
#define CORECAP_HIDDEN __attribute__((visibility("hidden")))

/* CLOCK_MONOTONIC through the vDSO: no syscall, the clock LTTng uses. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A counter only its owner thread writes. */
static inline void own_add(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

/* A counter several threads write. */
static inline void shared_add(uint64_t *p, uint64_t v)
{
	__atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

static inline void shared_max(uint64_t *p, uint64_t v)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (cur < v &&
	       !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Fibonacci hashing of an address to `bits` bits. */
static inline uint32_t addr_hash(uint64_t addr, unsigned bits)
{
	return (uint32_t)((addr * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits));
}

#endif /* CORECAP_PRELOAD_UTIL_H */
