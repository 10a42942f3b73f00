/*
 * multi_report: what a rendering of a run of several daemons needs,
 * gathered by pass/multi_build.h: each daemon's own report (render/report.h,
 * rendered as for a single-daemon run) and the merged view of the box:
 * pools across daemons (by name), the cores the daemons used (the sum of
 * each one's, from its threads.tsv), the box's cores busy and idle (its
 * /proc/stat over the window), and the verdict for the box: what caps it.
 */
#ifndef CORECAP_MULTI_REPORT_H
#define CORECAP_MULTI_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../read/multi_run.h"
#include "report.h"

#define MULTI_BOX_CORES_BUSY 0.90 /* the box's cores cap it from this busy fraction */
#define MULTI_MAX_EVIDENCE   6

/* One pool name across daemons: the sums of each daemon's pool of that name. */
struct multi_pool {
	char name[32];
	size_t n_daemons, n_threads;
	uint64_t span_ns, cpu_ns, runq_ns, lock_wait_ns, cond_wait_ns, logging_ns;
	uint64_t io_ns[CORECAP_IO_CLASSES];
	bool waits; /* some daemon measured its waits */
};

struct multi_section {
	const struct multi_daemon *d;
	const struct report *r; /* NULL: not analysed (why_not) */
	const char *why_not;
	double cores_used; /* its threads' CPU over its window; < 0 unknown */
	double runq_threads;
};

struct multi_report {
	const char *run_dir;
	const struct multi_run *run;
	struct multi_section *s;
	size_t n, n_analysed;
	struct multi_pool *pools; /* by CPU, heaviest first */
	size_t n_pools;
	double window_s;		 /* the run's window; 0 unknown */
	int nproc;			 /* the box's CPUs; 0 unknown */
	double cores_used, runq_threads; /* the daemons', summed */
	/* The box over the window, in cores; < 0 unknown. */
	double busy_cores, bench_cores, other_cores, idle_cores;
	/* What caps the box: "cores", or a daemon's "lock", "thread", "pool", or "none". */
	const char *cap_kind;
	char cap_name[CORECAP_LOCK_LABEL_MAX];
	int cap_pid; /* the daemon of cap_name; 0 for cores and none */
	double cap_utilization;
	char verdict[CORECAP_LOCK_LABEL_MAX + 512];
	char evidence[MULTI_MAX_EVIDENCE][256];
	size_t n_evidence;
};

/* Both return 0, or a negative errno (-EIO when writing failed). */
int corecap_render_multi_text(const struct multi_report *m, FILE *out);
int corecap_render_multi_json(const struct multi_report *m, FILE *out);
/* The JSON's object (a run of several hosts nests a host of several daemons'); *ret as above. */
struct json_object;
struct json_object *corecap_render_multi_json_object(const struct multi_report *m, int *ret);
struct html_report;

/*
 * A page of the merged view and, per daemon, the single page's CPU chart
 * with its gap marks and top table (pages[i]: the series and the cpu and
 * wall stacks of m->s[i]; pages NULL or a pages[i].report NULL: none)
 * and its report (text); its own page: html RUN:PID.
 */
int corecap_render_multi_html(const struct multi_report *m, const struct html_report *pages,
			      FILE *out);

#endif
