/*
 * scale_render: a scale directory's result (`corecap scale`) as text or as
 * JSON (format "corecap-scale", docs/report-json.md): each point's
 * throughput and CPU per op from its run's report, the Universal
 * Scalability Law's fit (model/scaling_fit.h), and its terms beside what
 * the runs measured: the contention term beside what the diagnosis of the
 * largest run names (model/diagnosis.h), the coherency term beside the
 * growth of CPU per op between the smallest and largest points.
 */
#ifndef CORECAP_SCALE_RENDER_H
#define CORECAP_SCALE_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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
	char prepare[1024];   /* --prepare's command, or "" */
	size_t n;
	struct {
		double cores, quota_cpus; /* quota 0: none */
		char cpus[256], client_cpus[256], run[128];
		char status[16];   /* ok, interrupted, failed (the record's), prepare_failed */
		int prepare_exit;  /* --prepare's exit status; -1: none ran */
		double prepare_s;  /* how long it ran; < 0: none ran */
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


int scale_render_text(const struct scale_view *v, FILE *out);
int scale_render_json(const struct scale_view *v, FILE *out);

#endif
