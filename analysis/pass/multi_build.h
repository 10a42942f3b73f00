/*
 * multi_build: a run of several daemons (read/multi_run.h) into the
 * struct multi_report its renderers read (render/multi_report.h): each
 * daemon's run built as any run (pass/report_build.h), then the merged
 * view: the pools of one name summed across daemons, the daemons' cores
 * summed, the box's busy and idle cores, and what caps the box (its cores
 * when at least MULTI_BOX_CORES_BUSY of them were busy, else the most
 * utilized resource of any daemon's ceiling, else none).
 */
#ifndef CORECAP_MULTI_BUILD_H
#define CORECAP_MULTI_BUILD_H

#include "pass/report_build.h"
#include "read/multi_run.h"
#include "render/multi_report.h"

struct multi_build {
	struct multi_run run;
	struct run *runs;
	struct report_build *b;
	struct report *r;
	struct multi_section *s;
	struct multi_report view;
};

/*
 * Builds the run of several daemons dir; 0 with *out valid until
 * corecap_multi_build_release(), or a negative errno (printed). A daemon
 * whose run cannot be built is left out of the merged view, and said.
 */
int corecap_multi_build(struct multi_build *mb, const char *dir, const char *symfs,
			const struct report_opts *o, const struct multi_report **out);
void corecap_multi_build_release(struct multi_build *mb);

#endif
