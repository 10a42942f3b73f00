/*
 * hosts_build: a run of several hosts (read/hosts_run.h) into the struct
 * hosts_report its renderers read (render/hosts_report.h): each host's
 * run built as any run (pass/report_build.h; a host of several daemons'
 * as a run of several daemons, pass/multi_build.h), then the system's
 * verdict: the host whose daemon binds first.
 */
#ifndef CORECAP_HOSTS_BUILD_H
#define CORECAP_HOSTS_BUILD_H

#include "pass/multi_build.h"
#include "pass/report_build.h"
#include "read/hosts_run.h"
#include "render/hosts_report.h"

struct hosts_build {
	struct hosts_run run;
	struct run *runs;
	struct report_build *b;
	struct report *r;
	struct hosts_section *s;
	struct multi_build *mb; /* a host of several daemons' (mb_built[i]) */
	bool *mb_built;
	struct hosts_report view;
};

/*
 * Builds the run of several hosts dir; 0 with *out valid until
 * corecap_hosts_build_release(), or a negative errno (printed). A host
 * whose run cannot be built is left out of the verdict, and said.
 */
int corecap_hosts_build(struct hosts_build *hb, const char *dir, const char *symfs,
			const struct report_opts *o, const struct hosts_report **out);
void corecap_hosts_build_release(struct hosts_build *hb);

#endif
