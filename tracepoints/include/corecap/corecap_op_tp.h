/*
 * corecap_op: the op lifecycle a daemon marks through corecap/annotate.h.
 *
 * An op is the unit whose latency corecap explains. It lives from `begin`
 * to `end`; between them, `enter`/`exit` bracket the stretches during
 * which the calling thread works on it, and `phase` labels where it waits
 * when no thread has it. `log_enter`/`log_exit` bracket the calling
 * thread's time inside log calls (building and submitting log entries),
 * which analysis charges to the `logging` category. Field reference:
 * docs/events.md.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER corecap_op

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE <corecap/corecap_op_tp.h>

#if !defined(CORECAP_OP_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define CORECAP_OP_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

/*
 * begin, phase and end each have a second instance that also stands for
 * the calling thread's enter or exit at the same instant, for the calls a
 * daemon makes back to back: begin_enter where an op arrives, phase_enter
 * where a thread picks an op up, end_exit where the op is done (the
 * analysis reads each as the two events).
 */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(corecap_op, op_begin,
	LTTNG_UST_TP_ARGS(uint64_t, op_id, const char *, type, uint64_t, bytes),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, op_id, op_id)
		lttng_ust_field_string(type, type)
		lttng_ust_field_integer(uint64_t, bytes, bytes)
	)
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(corecap_op, op_begin, corecap_op, begin,
	LTTNG_UST_TP_ARGS(uint64_t, op_id, const char *, type, uint64_t, bytes))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(corecap_op, op_begin, corecap_op, begin_enter,
	LTTNG_UST_TP_ARGS(uint64_t, op_id, const char *, type, uint64_t, bytes))

LTTNG_UST_TRACEPOINT_EVENT_CLASS(corecap_op, op_named,
	LTTNG_UST_TP_ARGS(uint64_t, op_id, const char *, name),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, op_id, op_id)
		lttng_ust_field_string(name, name)
	)
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(corecap_op, op_named, corecap_op, phase,
	LTTNG_UST_TP_ARGS(uint64_t, op_id, const char *, name))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(corecap_op, op_named, corecap_op, phase_enter,
	LTTNG_UST_TP_ARGS(uint64_t, op_id, const char *, name))

LTTNG_UST_TRACEPOINT_EVENT_CLASS(corecap_op, op_end,
	LTTNG_UST_TP_ARGS(uint64_t, op_id, int64_t, result),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, op_id, op_id)
		lttng_ust_field_integer(int64_t, result, result)
	)
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(corecap_op, op_end, corecap_op, end,
	LTTNG_UST_TP_ARGS(uint64_t, op_id, int64_t, result))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(corecap_op, op_end, corecap_op, end_exit,
	LTTNG_UST_TP_ARGS(uint64_t, op_id, int64_t, result))

LTTNG_UST_TRACEPOINT_EVENT_CLASS(corecap_op, op_only,
	LTTNG_UST_TP_ARGS(uint64_t, op_id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, op_id, op_id)
	)
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(corecap_op, op_only, corecap_op, enter,
	LTTNG_UST_TP_ARGS(uint64_t, op_id))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(corecap_op, op_only, corecap_op, exit,
	LTTNG_UST_TP_ARGS(uint64_t, op_id))
/* The op's reply leaves now (just before its send): its client waits no longer on the daemon. */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(corecap_op, op_only, corecap_op, reply,
	LTTNG_UST_TP_ARGS(uint64_t, op_id))

/*
 * The op's identity at its client, carried on the wire (for refosd, its
 * request's tag under PROTO_FLAG_OP_ID): emitted after begin, it lets the
 * analysis match the daemon's op with the client's record of it.
 */
LTTNG_UST_TRACEPOINT_EVENT(corecap_op, client,
	LTTNG_UST_TP_ARGS(uint64_t, op_id, uint64_t, client_op),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, op_id, op_id)
		lttng_ust_field_integer(uint64_t, client_op, client_op)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_CLASS(corecap_op, no_args,
	LTTNG_UST_TP_ARGS(void),
	LTTNG_UST_TP_FIELDS()
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(corecap_op, no_args, corecap_op, log_enter,
	LTTNG_UST_TP_ARGS(void))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(corecap_op, no_args, corecap_op, log_exit,
	LTTNG_UST_TP_ARGS(void))

#endif /* CORECAP_OP_TP_H */

#include <lttng/tracepoint-event.h>
