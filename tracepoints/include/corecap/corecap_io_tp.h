/*
 * corecap_io: one I/O syscall the shim timed and chose to report (by
 * default every log-class I/O, every fsync-like call, and any call slower
 * than the threshold; with CORECAP_NET_EVENTS=on every socket call that
 * moved bytes, with `hdr`, its first bytes: a read's 24, a write's 8). Emitted when the call
 * returns; it began `dur_ns` earlier. corecap_io:aio: one asynchronous
 * I/O (libaio) reaped, emitted by the thread that reaped it; it was
 * submitted `dur_ns` earlier. Field reference: docs/events.md.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER corecap_io

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE <corecap/corecap_io_tp.h>

#if !defined(CORECAP_IO_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define CORECAP_IO_TP_H

#include <corecap/run_format.h>
#include <lttng/tracepoint.h>
#include <stdint.h>

#undef CORECAP_TP_ENUM_VALUE_
#define CORECAP_TP_ENUM_VALUE_(id, label, v) lttng_ust_field_enum_value(label, v)

/* Values of `class` and `call`: run_format.h. */
LTTNG_UST_TRACEPOINT_ENUM(corecap_io, class,
	LTTNG_UST_TP_ENUM_VALUES(CORECAP_IO_CLASS_LIST(CORECAP_TP_ENUM_VALUE_))
)

LTTNG_UST_TRACEPOINT_ENUM(corecap_io, call,
	LTTNG_UST_TP_ENUM_VALUES(CORECAP_IO_CALL_LIST(CORECAP_TP_ENUM_VALUE_))
)

LTTNG_UST_TRACEPOINT_EVENT(corecap_io, syscall,
	LTTNG_UST_TP_ARGS(int, call, int, fd, int, io_class, int64_t, bytes, uint64_t, dur_ns,
			  const uint8_t *, hdr, size_t, hdr_len),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_enum(corecap_io, call, uint8_t, call, call)
		lttng_ust_field_integer(int32_t, fd, fd)
		lttng_ust_field_enum(corecap_io, class, uint8_t, class, io_class)
		lttng_ust_field_integer(int64_t, bytes, bytes)
		lttng_ust_field_integer(uint64_t, dur_ns, dur_ns)
		lttng_ust_field_sequence_hex(uint8_t, hdr, hdr, uint8_t, hdr_len)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(corecap_io, aio,
	LTTNG_UST_TP_ARGS(int, call, int, fd, int, io_class, int64_t, bytes, uint64_t, dur_ns,
		const void *, iocb),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_enum(corecap_io, call, uint8_t, call, call)
		lttng_ust_field_integer(int32_t, fd, fd)
		lttng_ust_field_enum(corecap_io, class, uint8_t, class, io_class)
		lttng_ust_field_integer(int64_t, bytes, bytes)
		lttng_ust_field_integer(uint64_t, dur_ns, dur_ns)
		lttng_ust_field_integer_hex(uint64_t, iocb, (uint64_t)(uintptr_t)iocb)
	)
)

#endif /* CORECAP_IO_TP_H */

#include <lttng/tracepoint-event.h>
