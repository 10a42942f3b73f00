/*
 * Views shared by the renderers: the same order in every format.
 */
#ifndef CORECAP_RENDER_COMMON_H
#define CORECAP_RENDER_COMMON_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"

/* Locks by hold time, then wait time, then address; *out is malloc'd. */
size_t corecap_render_sorted_locks(const struct report *r, const struct model_lock ***out);
/* Threads by busy fraction, then CPU time, then tid; *out is malloc'd. */
size_t corecap_render_sorted_threads(const struct report *r, const struct model_thread ***out);
const char *corecap_render_frame_name(const struct report *r, uint64_t addr);
/* A JSON number printed with at most `decimals` decimals, trailing zeros dropped. */
json_object *corecap_render_json_num(double v, int decimals);

#endif
