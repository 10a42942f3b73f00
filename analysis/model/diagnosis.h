/*
 * diagnosis: the one answer of a report (docs/methodology.md, "The
 * diagnosis"): what caps the daemon's throughput in this run, the
 * evidence, how much more throughput before it binds, the limit after it,
 * and what to do. Every renderer prints this struct first and nothing
 * that contradicts it; the ceiling's candidates and the projection stay
 * as detail.
 *
 * It is computed from the projection (projection.h) and the pools, so
 * that the two agree by construction: the headroom is the throughput the
 * projection gives at this machine's cores (what binds there) over the
 * measured one, for every kind but a closed loop the projection could not
 * model. The rules:
 *  - a resource's utilization is its running share (a lock's: held, with
 *    its hand-offs); a thread's time waiting for a CPU is evidence that
 *    the cores bind, never that the thread does;
 *  - the cores bind when the daemon's runnable demand (its threads
 *    running plus waiting for a CPU, plus what others ran on the CPUs it
 *    may use) reaches the CPUs it may use: its affinity (nproc when the
 *    run did not record it, said as missing evidence), or its cgroup's
 *    CPU quota (cpu.max) when that is less and the daemon ran it;
 *  - a disk of the daemon's is a resource when its use can be told
 *    (projection.h, struct projection_disk);
 *  - among the saturated resources (utilization >= CEILING_SATURATED, the
 *    cores as above) the one with the smallest saturation throughput
 *    binds; with none saturated, a benchmark with under
 *    PROJECTION_LOOP_MAX ops in flight is bound by its closed loop, else
 *    nothing measured is saturated (kind none, with what was not
 *    measured).
 * Evidence a run lacks is listed with what would provide it; a figure
 * that needs it is never shown as measured.
 */
#ifndef CORECAP_DIAGNOSIS_H
#define CORECAP_DIAGNOSIS_H

#include <stdbool.h>
#include <stddef.h>

#include "ceiling.h"
#include "model.h"
#include "pool_table.h"
#include "projection.h"

enum diag_kind { DIAG_NONE, DIAG_LOCK, DIAG_THREAD, DIAG_POOL, DIAG_CORES, DIAG_LOOP, DIAG_DEVICE };

#define DIAG_EVIDENCE 12
#define DIAG_MISSING  8

/* One line of evidence: a defined term, its figure, and what it means. */
struct diag_evidence {
	char term[32];
	char value[160];
	char meaning[200];
};

struct diagnosis {
	enum diag_kind kind;
	char name[CORECAP_LOCK_LABEL_MAX]; /* the lock's label, the thread, the pool; "" for the others */
	char site[CORECAP_LOCK_LABEL_MAX]; /* a lock's site as the report prints it; "" when none */
	char *headline;	 /* one sentence */
	double running;	 /* the headline's running share (a lock's: held); < 0 unknown */
	double waiting;	 /* its waiting-for-a-CPU share; < 0 unknown or not applicable */
	double iops;	 /* the measured throughput; 0 unknown */
	double headroom; /* at most this times iops before it binds; 0 unknown */
	struct {
		enum diag_kind kind; /* DIAG_NONE: no next limit known */
		char name[CORECAP_LOCK_LABEL_MAX];
		double iops;
	} next;
	char *action;	      /* in words */
	char *verify_command; /* for a lock with a site and a benchmark; else NULL */
	/* The cores: what the daemon may use and who took them; < 0 unknown. */
	int cpus_allowed, machine_cpus;
	bool cpus_from_nproc; /* the run did not record the daemon's affinity */
	/* Its cgroup's CPU quota in CPUs (0: none); cpus_usable: the smaller of it and
	 * cpus_allowed, what the cores' test and candidate use. */
	double cpu_quota, cpus_usable;
	bool quota_binds; /* cpu_quota < cpus_allowed, and the daemon ran it (QUOTA_FULL) */
	char quota_cgroup[128];
	const char *quota_file; /* "cpu.max" or "cpu.cfs_quota_us" (static); NULL: none */
	double daemon_running, daemon_waiting, bench_cores, other_cores, stolen_cores,
		profiler_cores;
	double runnable; /* the runnable demand on the allowed CPUs, in CPUs; < 0 unknown */
	bool cores_saturated;
	struct diag_evidence evidence[DIAG_EVIDENCE];
	size_t n_evidence;
	/* "what: what would provide it", one each (static strings). */
	const char *missing[DIAG_MISSING];
	size_t n_missing;
};

struct diagnosis_inputs {
	const struct model *model;
	const struct pool_table *pools;
	const struct projection *projection;
	int cpus_allowed;	   /* the daemon's affinity; 0: not recorded */
	int nproc;		   /* the machine's CPUs; 0: unknown */
	double cpu_quota;	   /* its cgroup's CPU quota, in CPUs; 0: none or not recorded */
	const char *quota_cgroup;  /* where it is set; NULL unknown */
	const char *quota_file;	   /* the cgroup file that sets it; NULL unknown */
	double profiler_cpu_s;	   /* the collector's CPU time; < 0 unknown */
	bool has_bench;		   /* the benchmark's summary (IOPS, latency) */
	bool partial;		   /* the run is partial */
	int pid;		   /* the daemon's, for verify; <= 0 unknown */
	const char *bench_command; /* the benchmark's command line, shell-quoted; NULL unknown */
};

int corecap_diagnosis_compute(struct diagnosis *d, const struct diagnosis_inputs *in);
void corecap_diagnosis_release(struct diagnosis *d);
/* "none", "lock", "thread", "pool", "cores", "closed_loop", "device". */
const char *corecap_diag_kind_name(enum diag_kind kind);

#endif
