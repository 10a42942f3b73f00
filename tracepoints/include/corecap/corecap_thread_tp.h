/*
 * corecap_thread: thread identity. `name` is emitted when a thread names
 * itself (pthread_setname_np, prctl(PR_SET_NAME)) and, for every live
 * thread the shim knows, when a tracing session starts listening, so a
 * trace started mid-run still has names. `tid` is explicit because the
 * name of one thread can be set from another. Field reference:
 * docs/events.md.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER corecap_thread

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE <corecap/corecap_thread_tp.h>

#if !defined(CORECAP_THREAD_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define CORECAP_THREAD_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

LTTNG_UST_TRACEPOINT_EVENT(corecap_thread, name,
	LTTNG_UST_TP_ARGS(int, tid, const char *, name),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int32_t, tid, tid)
		lttng_ust_field_string(name, name)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(corecap_thread, start,
	LTTNG_UST_TP_ARGS(int, tid, int, parent_tid),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int32_t, tid, tid)
		lttng_ust_field_integer(int32_t, parent_tid, parent_tid)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(corecap_thread, exit,
	LTTNG_UST_TP_ARGS(int, tid),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int32_t, tid, tid)
	)
)

#endif /* CORECAP_THREAD_TP_H */

#include <lttng/tracepoint-event.h>
