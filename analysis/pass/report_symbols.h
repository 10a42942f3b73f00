/*
 * report_symbols: how the report names code: the run's symbolizer and the
 * logging rule (--log-symbols: fnmatch patterns over the function holding
 * a call site), as the callbacks the model (model_config.site_is_logging),
 * the lock tables (corecap_lock_table_symbolize) and the renderers
 * (report.frame_name, report.frame_sources) take, with a struct
 * report_symbols as their ctx. Without symbols, addresses are in hex and
 * no site is logging code.
 */
#ifndef CORECAP_REPORT_SYMBOLS_H
#define CORECAP_REPORT_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/lock_table.h"
#include "read/symbolizer.h"
#include "render/report.h"

struct report_symbols {
	struct symbolizer *sym; /* borrowed; NULL: none */
	char **log_patterns;
	size_t n_log_patterns;
};

/* log_symbols: the comma-separated patterns; 0 or -ENOMEM. */
int corecap_report_symbols_init(struct report_symbols *s, struct symbolizer *sym,
				const char *log_symbols);
void corecap_report_symbols_release(struct report_symbols *s);

/* The logging rule: does the function holding this call site match a pattern? */
bool corecap_report_site_is_logging(void *ctx, uint64_t site);
/* A code or data address's name, malloc'd. */
char *corecap_report_name_address(void *ctx, uint64_t addr, bool code);
/* A stack frame's name (valid until the next call without symbols). */
const char *corecap_report_frame_name(void *ctx, uint64_t addr);
/* report.object_name: what the call at site passes first, by type and member; or NULL. */
const char *corecap_report_object_name(void *ctx, uint64_t site);
/* The frames of a return address, innermost first, into out[0..max). */
size_t corecap_report_frame_sources(void *ctx, uint64_t addr, struct report_frame *out, size_t max);
/* Cuts the frames of the shim and LTTng-UST from t's sampled wait stacks. */
void corecap_report_cut_shim_frames(const struct report_symbols *s, struct lock_table *t);

#endif
