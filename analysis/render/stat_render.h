/*
 * stat_render: `corecap stat`'s shim view of one interval
 * (model/stat_interval.h), named by the symbolizer over the daemon's maps:
 * the text view (the process's figures, then the hot locks, the sites and
 * the threads, --top rows each; redrawn in place on a terminal with the
 * elapsed time and the sort key) and one JSON object per interval and
 * line (every lock, site and thread; keys in corecap-stat(1)).
 */
#ifndef CORECAP_RENDER_STAT_RENDER_H
#define CORECAP_RENDER_STAT_RENDER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <corecap/stats_layout.h>
#include <json-c/json.h>

#include "../model/stat_interval.h"
#include "../read/symbolizer.h"

/* Whose view it is, and the rows per table of the text view. */
struct stat_view_of {
	pid_t pid;
	const char *comm;
	int top;
};

/*
 * The live view's second header line (redrawn on a terminal): the time
 * since stat started, the threads' sort key, and the keys where they are
 * read (stdin a terminal too: interactive).
 */
struct stat_live {
	bool redraw, interactive;
	uint64_t elapsed_ns;
	enum stat_sort sort;
};

/* h: the header of the interval's last copy (its flags and dropped counts). */
void corecap_stat_render_text(const struct stat_view_of *o, const struct stat_interval *iv,
			      struct symbolizer *sym, const struct corecap_stats_header *h,
			      const struct stat_live *lv);
/* end_ns: when the last copy was taken (CLOCK_MONOTONIC). */
void corecap_stat_render_json(const struct stat_view_of *o, const struct stat_interval *iv,
			      struct symbolizer *sym, const struct corecap_stats_header *h,
			      uint64_t end_ns);

/* v as a JSON string "0x..." (an address), for both of stat's views. */
json_object *corecap_stat_json_hex(uint64_t v);

#endif
