/*
 * corecap_lock: what the shim saw of lock contention. Emitted only for
 * contended acquisitions (and timed attempts that waited, then gave up:
 * acquired = 0), cond waits, sampled hold times and wake edges towards a
 * waiting thread; an uncontended lock operation emits nothing. `site` is
 * the return address of the call into pthread (the caller's code);
 * `stack` holds return addresses, innermost (= site) first, for the
 * sampled subset of waits (empty otherwise). Field reference:
 * docs/events.md.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER corecap_lock

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE <corecap/corecap_lock_tp.h>

#if !defined(CORECAP_LOCK_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define CORECAP_LOCK_TP_H

#include <corecap/run_format.h>
#include <lttng/tracepoint.h>
#include <stdint.h>

#undef CORECAP_TP_ENUM_VALUE_
#define CORECAP_TP_ENUM_VALUE_(id, label, v) lttng_ust_field_enum_value(label, v)

/* Values of the `kind` field (run_format.h); analysis reads the integer. */
LTTNG_UST_TRACEPOINT_ENUM(corecap_lock, kind,
	LTTNG_UST_TP_ENUM_VALUES(CORECAP_LOCK_KIND_LIST(CORECAP_TP_ENUM_VALUE_))
)

LTTNG_UST_TRACEPOINT_EVENT(corecap_lock, contended,
	LTTNG_UST_TP_ARGS(const void *, lock, int, kind, uint64_t, site, uint64_t, wait_ns,
		int, acquired, const uint64_t *, stack, uint32_t, depth),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, lock, (uint64_t)(uintptr_t)lock)
		lttng_ust_field_enum(corecap_lock, kind, uint8_t, kind, kind)
		lttng_ust_field_integer_hex(uint64_t, site, site)
		lttng_ust_field_integer(uint64_t, wait_ns, wait_ns)
		lttng_ust_field_integer(uint8_t, acquired, acquired)
		lttng_ust_field_sequence_hex(uint64_t, stack, stack, uint32_t, depth)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(corecap_lock, hold,
	LTTNG_UST_TP_ARGS(const void *, lock, int, kind, uint64_t, site, uint64_t, hold_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, lock, (uint64_t)(uintptr_t)lock)
		lttng_ust_field_enum(corecap_lock, kind, uint8_t, kind, kind)
		lttng_ust_field_integer_hex(uint64_t, site, site)
		lttng_ust_field_integer(uint64_t, hold_ns, hold_ns)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(corecap_lock, cond_wait,
	LTTNG_UST_TP_ARGS(const void *, cond, const void *, mutex, uint64_t, site, uint64_t,
		wait_ns, int, timed_out),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, cond, (uint64_t)(uintptr_t)cond)
		lttng_ust_field_integer_hex(uint64_t, mutex, (uint64_t)(uintptr_t)mutex)
		lttng_ust_field_integer_hex(uint64_t, site, site)
		lttng_ust_field_integer(uint64_t, wait_ns, wait_ns)
		lttng_ust_field_integer(uint8_t, timed_out, timed_out)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(corecap_lock, cond_wake,
	LTTNG_UST_TP_ARGS(const void *, cond, uint64_t, site, int, broadcast),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, cond, (uint64_t)(uintptr_t)cond)
		lttng_ust_field_integer_hex(uint64_t, site, site)
		lttng_ust_field_integer(uint8_t, broadcast, broadcast)
	)
)

#endif /* CORECAP_LOCK_TP_H */

#include <lttng/tracepoint-event.h>
