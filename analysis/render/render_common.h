/*
 * Views shared by the renderers: the same order in every format.
 */
#ifndef CORECAP_RENDER_COMMON_H
#define CORECAP_RENDER_COMMON_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"

/* Locks by hold time, then wait time, then address; *out is malloc'd.
 * All of them: the shim's (trace and counters), then the futex table's. */
size_t corecap_render_sorted_locks(const struct report *r, const struct model_lock ***out);
/* The locks of one source: the shim's by hold time; the futex table's
 * words waited on with FUTEX_WAIT or PI (mutexes) before those waited on
 * with WAIT_BITSET (mostly condition variables), each by busy time (held
 * or waited for); then wait time, then address. */
size_t corecap_render_sorted_locks_from(const struct report *r, enum lock_source source,
					const struct model_lock ***out);
/* Threads by busy fraction, then CPU time, then tid; *out is malloc'd. */
size_t corecap_render_sorted_threads(const struct report *r, const struct model_thread ***out);
const char *corecap_render_frame_name(const struct report *r, uint64_t addr);
/* The inline chain of a return address (report.frame_sources), or 0. */
size_t corecap_render_frame_sources(const struct report *r, uint64_t addr, struct report_frame *out,
				    size_t max);

/* A JSON number printed with at most `decimals` decimals, trailing zeros dropped. */
json_object *corecap_render_json_num(double v, int decimals);

#endif
