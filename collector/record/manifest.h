/*
 * struct corecap_manifest: RUN/manifest.json, the description of a run
 * (format: docs/run-directory.md, version 2).
 *
 * Guarantees: corecap_manifest_write() writes manifest.json.tmp and renames
 * it, so a reader sees either no manifest or a whole one. A recording
 * writes it first as a checkpoint ("partial", the window ending at the
 * checkpoint) when its window starts and once a second during it, and a
 * last time, complete or partial, after everything else. Pointers to sources that were not recorded
 * are NULL and their "sources" entry is false.
 */
#ifndef CORECAP_COLLECTOR_MANIFEST_H
#define CORECAP_COLLECTOR_MANIFEST_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <corecap/run_format.h> /* CORECAP_RUN_FORMAT, CORECAP_RUN_VERSION */

#include "workload/bench_parse.h"

struct corecap_run_dir;
struct corecap_target;
struct corecap_lttng_session;
struct corecap_proc_sampler;
struct corecap_wall_sampler;
struct corecap_stats_snapshot;
struct corecap_cpu_profile;
struct corecap_maps_buildid;
struct corecap_bench_runner;
struct corecap_watchdog_page;
struct corecap_kernel_events;

/* One daemon of a run of several (version CORECAP_RUN_VERSION_MULTI). */
struct corecap_manifest_daemon {
	int pid;
	const char *comm;
	const char *dir;	    /* its single-daemon run, relative: daemons/<pid> */
	const char *ceph_asok;	    /* --ceph-osds: its admin socket; else NULL */
	int ceph_osd_id;	    /* --ceph-osds: N of osd.N; else -1 */
	const char *status;	    /* "complete", "partial", or "missing" (no run written) */
	const char *partial_reason; /* NULL when complete */
	int exit_status;	    /* its collector's; -1 while it runs */
};

struct corecap_manifest {
	bool complete;
	char partial_reason[256];
	uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC */
	struct timespec start_realtime;
	int64_t realtime_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC at the start */
	char **record_argv;	    /* how corecap record was called */
	int record_argc;
	unsigned threads_hz;
	const struct corecap_target *target;
	const struct corecap_lttng_session *lttng; /* NULL: --no-trace */
	const struct corecap_proc_sampler *threads;
	const struct corecap_wall_sampler *wall;    /* NULL: no --wallclock */
	const struct corecap_stats_snapshot *stats; /* NULL or !present: no shim */
	const struct corecap_cpu_profile *cpu_prof; /* NULL or no bytes: none */
	const struct corecap_maps_buildid *maps;    /* NULL: maps not saved */
	const struct corecap_bench_runner *bench;   /* NULL: no benchmark */
	const struct corecap_kernel_events *kernel; /* NULL: no kernel events */
	char **bench_argv;
	const struct corecap_bench_summary *summary;
	const struct corecap_watchdog_page *watchdog; /* NULL: no ptrace watchdog */
	bool quiet_errors;     /* a checkpoint: the caller reports a failure once; else a cause
				  (corecap/diag.h) */
	double machine_busy_s; /* all CPUs' busy time over the window; < 0 unknown */
	double machine_steal_s; /* of which the hypervisor's steal; < 0 unknown */
	double bench_cpu_s;    /* the benchmark's CPU time (user + sys); < 0 unknown */
	double wake_ns;	       /* corecap_wake_probe_ns(); < 0 unknown */
	const struct corecap_device_window *devices; /* NULL: not read (a checkpoint) */
	/* A run of several daemons: target is NULL, these are listed instead. */
	const struct corecap_manifest_daemon *daemons;
	size_t n_daemons;
};

int corecap_manifest_write(const struct corecap_manifest *m, struct corecap_run_dir *rd);

#endif
