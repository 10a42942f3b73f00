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
 *     when its reply is sent; corecap_op_client() after the begin when the
 *     request carries the client's own id of the op, and then
 *     corecap_op_reply() just before its reply is sent; corecap_log_enter() / corecap_log_exit()
 *     around the code that builds and submits log entries.
 *
 * Guarantees: the program does not link LTTng. The probes live in
 * libcorecap-tp.so, which `corecap run` preloads (with the shim, or alone
 * with --no-shim); a program linked against it directly works as well.
 * Until the probes are loaded and a session enables the events, each
 * annotation is one load and one predicted branch and evaluates none of
 * its arguments. Defining CORECAP_NO_ANNOTATE compiles them out entirely.
 *
 * Op counter: under the shim (libcorecap-preload.so), corecap_op_end()
 * and corecap_op_end_exit() also count the op in the shim's live counters,
 * which `corecap stat` shows as ops/s whether or not a trace is recorded.
 * The file that defines CORECAP_ANNOTATE_DEFINE looks the shim up once at
 * start (dlsym of corecap_shim_op_hook, in a constructor); without the
 * shim the pointer stays NULL and the count costs one load and one
 * predicted branch. Under the shim it is one relaxed atomic add to the
 * thread's own counter: safe in any thread and in a signal handler.
 * op_id must be unique among ops in flight in the process.
 */
#ifndef CORECAP_ANNOTATE_H
#define CORECAP_ANNOTATE_H

#include <stdint.h>

#ifdef CORECAP_NO_ANNOTATE

#define corecap_op_begin(op_id, type, bytes)	   ((void)0)
#define corecap_op_phase(op_id, name)		   ((void)0)
#define corecap_op_end(op_id, result)		   ((void)0)
#define corecap_op_enter(op_id)			   ((void)0)
#define corecap_op_exit(op_id)			   ((void)0)
#define corecap_op_begin_enter(op_id, type, bytes) ((void)0)
#define corecap_op_phase_enter(op_id, name)	   ((void)0)
#define corecap_op_end_exit(op_id, result)	   ((void)0)
#define corecap_op_client(op_id, client_op)	   ((void)0)
#define corecap_op_reply(op_id)			   ((void)0)
#define corecap_log_enter()			   ((void)0)
#define corecap_log_exit()			   ((void)0)

#else

#ifdef CORECAP_ANNOTATE_DEFINE
#define LTTNG_UST_TRACEPOINT_DEFINE
#endif
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include <corecap/corecap_op_tp.h>

#define corecap_op_begin(op_id, type, bytes)                                                       \
	lttng_ust_tracepoint(corecap_op, begin, (uint64_t)(op_id), (type), (uint64_t)(bytes))
#define corecap_op_phase(op_id, name)                                                              \
	lttng_ust_tracepoint(corecap_op, phase, (uint64_t)(op_id), (name))
#ifdef __cplusplus
extern "C" {
#endif
/* The shim's op counter, or NULL (set by the constructor below). */
extern void (*corecap_annotate_op_end_fn)(void);
#ifdef __cplusplus
}
#endif

static inline void corecap_annotate_count_end(void)
{
	void (*fn)(void) = __atomic_load_n(&corecap_annotate_op_end_fn, __ATOMIC_RELAXED);

	if (__builtin_expect(fn != 0, 0))
		fn();
}

#ifdef CORECAP_ANNOTATE_DEFINE
#include <dlfcn.h>
#ifdef __cplusplus
extern "C" {
#endif
void (*corecap_annotate_op_end_fn)(void);
#ifdef __cplusplus
}
#endif

/* RTLD_DEFAULT without asking the includer for _GNU_SOURCE: glibc's value. */
#ifdef RTLD_DEFAULT
#define CORECAP_ANNOTATE_RTLD_DEFAULT RTLD_DEFAULT
#else
#define CORECAP_ANNOTATE_RTLD_DEFAULT ((void *)0)
#endif

/* Runs after the preloaded shim's own constructor; abi 1: void (*)(void) per op end. */
static void __attribute__((constructor)) corecap_annotate_find_shim(void)
{
	typedef void (*corecap_op_end_fn_t)(void);
	typedef corecap_op_end_fn_t (*corecap_hook_t)(unsigned);
	void *sym = dlsym(CORECAP_ANNOTATE_RTLD_DEFAULT, "corecap_shim_op_hook");
	corecap_hook_t hook;

	if (!sym)
		return;
	__builtin_memcpy(&hook, &sym, sizeof(hook));
	__atomic_store_n(&corecap_annotate_op_end_fn, hook(1), __ATOMIC_RELAXED);
}
#endif /* CORECAP_ANNOTATE_DEFINE */

#define corecap_op_end(op_id, result)                                                              \
	do {                                                                                       \
		corecap_annotate_count_end();                                                      \
		lttng_ust_tracepoint(corecap_op, end, (uint64_t)(op_id), (int64_t)(result));       \
	} while (0)
#define corecap_op_enter(op_id) lttng_ust_tracepoint(corecap_op, enter, (uint64_t)(op_id))
#define corecap_op_exit(op_id)	lttng_ust_tracepoint(corecap_op, exit, (uint64_t)(op_id))
/* begin + enter, phase + enter, end + exit back to back, in one event each. */
#define corecap_op_begin_enter(op_id, type, bytes)                                                 \
	lttng_ust_tracepoint(corecap_op, begin_enter, (uint64_t)(op_id), (type), (uint64_t)(bytes))
#define corecap_op_phase_enter(op_id, name)                                                        \
	lttng_ust_tracepoint(corecap_op, phase_enter, (uint64_t)(op_id), (name))
#define corecap_op_end_exit(op_id, result)                                                         \
	do {                                                                                       \
		corecap_annotate_count_end();                                                      \
		lttng_ust_tracepoint(corecap_op, end_exit, (uint64_t)(op_id), (int64_t)(result));  \
	} while (0)
/* The op's identity at its client (after begin): docs/events.md, corecap_op:client. */
#define corecap_op_client(op_id, client_op)                                                        \
	lttng_ust_tracepoint(corecap_op, client, (uint64_t)(op_id), (uint64_t)(client_op))
/* The op's reply leaves now: docs/events.md, corecap_op:reply. */
#define corecap_op_reply(op_id) lttng_ust_tracepoint(corecap_op, reply, (uint64_t)(op_id))
#define corecap_log_enter()	lttng_ust_tracepoint(corecap_op, log_enter)
#define corecap_log_exit()  lttng_ust_tracepoint(corecap_op, log_exit)

#endif /* CORECAP_NO_ANNOTATE */

#endif /* CORECAP_ANNOTATE_H */
