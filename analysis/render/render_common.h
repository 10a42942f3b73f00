/*
 * Views shared by the renderers: the same order in every format.
 */
#ifndef CORECAP_RENDER_COMMON_H
#define CORECAP_RENDER_COMMON_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"

/* The rows of one lock table, in r->lock_sort order (model/lock_rows.h):
 * the shim's (source shim) or the kernel's futex words. 0 or -ENOMEM. */
int corecap_render_lock_rows(const struct report *r, enum lock_source source,
			     struct lock_rows *rows);
/* Threads by busy fraction, then CPU time, then tid; *out is malloc'd. */
size_t corecap_render_sorted_threads(const struct report *r, const struct model_thread ***out);
const char *corecap_render_frame_name(const struct report *r, uint64_t addr);
/* A nameless row's object by type and member at its top site (report.object_name), or NULL. */
const char *corecap_render_lock_object(const struct report *r, const struct lock_row *row);
/* The inline chain of a return address (report.frame_sources), or 0. */
size_t corecap_render_frame_sources(const struct report *r, uint64_t addr, struct report_frame *out,
				    size_t max);

/* "benchmark  CMD ARGS (exit N)\n": the manifest's benchmark command, which it must have. */
void corecap_render_bench_line(const struct run_manifest *mf, FILE *out);

/* A JSON number printed with at most `decimals` decimals, trailing zeros dropped. */
json_object *corecap_render_json_num(double v, int decimals);
/*
 * A report's JSON out: root printed pretty and spaced, with a newline,
 * unless ret (an error while building it) is set; root put in all cases.
 * ret, or -EIO when writing failed.
 */
int corecap_render_json_out(json_object *root, int ret, FILE *out);
/*
 * The head of the JSON of a run of several (daemons, hosts): format,
 * version 1, run, partial, partial_reason, window.duration_s and benchmark
 * {command, exit_status, summary}, from its manifest mf.
 */
json_object *corecap_render_json_runs_head(const char *format, const char *run_dir,
					   const struct run_manifest *mf, double window_s);

#endif
