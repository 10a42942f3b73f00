/*
 * corecap/annotate.h: mark a daemon's ops so corecap can split each op's
 * latency into CPU, lock waits, logging, I/O and queueing.
 *
 * Use:
 *   - In exactly one .c file of the program, before including this header:
 *       #define CORECAP_ANNOTATE_DEFINE
 *   - Link with what `pkg-config --libs corecap-annotate` prints (-ldl).
 *   - Call corecap_op_begin() when an op is decoded, corecap_op_enter() /
 *     corecap_op_exit() around each thread's part of it, corecap_op_phase()
 *     when it is handed on (queued, dequeued, committed), corecap_op_end()
 *     when its reply is sent; corecap_log_enter() / corecap_log_exit()
 *     around the code that builds and submits log entries.
 *
 * Guarantees: the program does not link LTTng. The probes live in
 * libcorecap-tp.so, which `corecap run` preloads (with the shim, or alone
 * with --no-shim); a program linked against it directly works as well.
 * Until the probes are loaded and a session enables the events, each
 * annotation is one load and one predicted branch and evaluates none of
 * its arguments. Defining CORECAP_NO_ANNOTATE compiles them out entirely.
 * op_id must be unique among ops in flight in the process.
 */
#ifndef CORECAP_ANNOTATE_H
#define CORECAP_ANNOTATE_H

#include <stdint.h>

#ifdef CORECAP_NO_ANNOTATE

#define corecap_op_begin(op_id, type, bytes) ((void)0)
#define corecap_op_phase(op_id, name)        ((void)0)
#define corecap_op_end(op_id, result)        ((void)0)
#define corecap_op_enter(op_id)              ((void)0)
#define corecap_op_exit(op_id)               ((void)0)
#define corecap_op_begin_enter(op_id, type, bytes) ((void)0)
#define corecap_op_phase_enter(op_id, name)  ((void)0)
#define corecap_op_end_exit(op_id, result)   ((void)0)
#define corecap_log_enter()                  ((void)0)
#define corecap_log_exit()                   ((void)0)

#else

#ifdef CORECAP_ANNOTATE_DEFINE
#define LTTNG_UST_TRACEPOINT_DEFINE
#endif
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include <corecap/corecap_op_tp.h>

#define corecap_op_begin(op_id, type, bytes)                                                    \
	lttng_ust_tracepoint(corecap_op, begin, (uint64_t)(op_id), (type), (uint64_t)(bytes))
#define corecap_op_phase(op_id, name) lttng_ust_tracepoint(corecap_op, phase, (uint64_t)(op_id), (name))
#define corecap_op_end(op_id, result)                                                           \
	lttng_ust_tracepoint(corecap_op, end, (uint64_t)(op_id), (int64_t)(result))
#define corecap_op_enter(op_id) lttng_ust_tracepoint(corecap_op, enter, (uint64_t)(op_id))
#define corecap_op_exit(op_id)  lttng_ust_tracepoint(corecap_op, exit, (uint64_t)(op_id))
/* begin + enter, phase + enter, end + exit back to back, in one event each. */
#define corecap_op_begin_enter(op_id, type, bytes)                                              \
	lttng_ust_tracepoint(corecap_op, begin_enter, (uint64_t)(op_id), (type), (uint64_t)(bytes))
#define corecap_op_phase_enter(op_id, name)                                                     \
	lttng_ust_tracepoint(corecap_op, phase_enter, (uint64_t)(op_id), (name))
#define corecap_op_end_exit(op_id, result)                                                      \
	lttng_ust_tracepoint(corecap_op, end_exit, (uint64_t)(op_id), (int64_t)(result))
#define corecap_log_enter()     lttng_ust_tracepoint(corecap_op, log_enter)
#define corecap_log_exit()      lttng_ust_tracepoint(corecap_op, log_exit)

#endif /* CORECAP_NO_ANNOTATE */

#endif /* CORECAP_ANNOTATE_H */
