/*
 * scale_build: a scale directory (`corecap scale`, docs/run-directory.md)
 * read into its view: scale.json's points, each point's run built into its
 * report as `corecap report` does (its throughput, the daemon's CPU per op
 * and the diagnosis come from there, never computed again here), and the
 * fit (model/scaling_fit.h). What `corecap scale --report` renders, and
 * what a report of one of its points (or of a run given `--scale DIR`)
 * takes its projection past the run's cores from.
 */
#ifndef CORECAP_SCALE_BUILD_H
#define CORECAP_SCALE_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/ceiling.h"
#include "../model/scaling_fit.h"

#define SCALE_VIEW_POINTS SCALING_MAX_POINTS

struct scale_view {
	const char *dir;
	int pid, machine_cpus;
	char comm[32];
	char daemon_cpus[256];
	char client_set[256]; /* --client-cpus, or "" */
	char benchmark[1024]; /* its command line, or "" */
	size_t n;
	struct {
		double cores, quota_cpus; /* quota 0: none */
		char cpus[256], client_cpus[256], run[128];
		char status[16];   /* ok, interrupted, failed (the record's) */
		int client_shared; /* CPUs the client shared with the daemon */
		int resets;	   /* threads that reset their affinity */
		int reset_tids[8];
		int n_reset_tids;
		bool measured;	   /* its report gave the figures below */
		char why_not[256]; /* when !measured */
		double iops, cpu_s_per_op, daemon_cores, bench_cores, other_cores; /* < 0 unknown */
		const char *iops_source;
		char diag_kind[16];
		char diag_name[CORECAP_LOCK_LABEL_MAX];
		double diag_running; /* < 0 unknown */
		/* The daemon's own wakings per op, and of them those across cores
		 * (kernel.wakes_daemon, wakes_cross_cpu); < 0: no kernel records. */
		double wakes_per_op, xwakes_per_op;
	} pt[SCALE_VIEW_POINTS];
	struct scaling_fit fit;
	char path[4096]; /* dir's copy, when corecap_scale_for_run found it */
	int largest, smallest; /* the measured points with the most and the fewest cores; -1 */
};

/*
 * Reads DIR/scale.json (never through a link, bounded) and builds each
 * point's report. 0; -EINVAL when DIR is not a scale directory (said on
 * stderr, naming it). A point whose report gives no figures is kept with
 * why_not, and left out of the fit.
 */
int corecap_scale_build(struct scale_view *v, const char *dir);
/*
 * The scale directory RUN is a point of: RUN's parent when its scale.json
 * names RUN's last component as a point's run. true, and the parent in
 * out; false when RUN is no point of one (nothing said).
 */
bool corecap_scale_dir_of_run(const char *run, char *out, size_t size);
/*
 * The scale run a report of RUN takes its projection's fit from: DIR when
 * given (-EINVAL, said naming it, when it is no scale directory), else the
 * scale directory RUN is a point of, else none. 0 with *v NULL (none) or
 * a view to free(); -errno.
 */
int corecap_scale_for_run(struct scale_view **v, const char *run, const char *dir);

#endif
