/*
 * projection: the daemon's throughput at N cores, from one run, and the
 * two verdicts the ceiling keeps apart (docs/methodology.md, "Projection"):
 *
 *  - the daemon's own limit: each resource r that one op needs D_r of
 *    (a lock's hold time per op, one thread's CPU time per op, a pool's
 *    CPU time per op spread over its k threads) saturates at
 *    X_r = k_r / D_r; the one with the smallest X_r binds first when the
 *    cores are not the limit;
 *  - on this machine: the cores, at X_cores(N) = N / D_cpu for the
 *    daemon's CPU per op D_cpu, with the shares of the cores the daemon,
 *    the benchmark client and other processes took (when the run
 *    recorded the machine's CPU).
 * X(N) = min(X_cores(N), min_r X_r) for N = 1..PROJECTION_MAX_CORES, with
 * what binds at each N. A saturated lock is handed from holder to waiter
 * at each acquisition, and the waiter, asleep, must first be woken on
 * its core: a lock's D_r is its hold per op plus its acquisitions per op
 * times the machine's cross-core wake-up (the run's machine.wake_ns),
 * which a run on one CPU cannot show. Only for a lock held longer than a
 * wake-up on average: a lock held briefly is taken in the gap by a
 * running thread that barges in (glibc's mutexes allow it), so its
 * hand-offs cost the lock nothing (docs/methodology.md, "Projection").
 * Where the benchmark client ran on the same machine, each point also
 * says the throughput with the client on the same N cores (X_cores = N /
 * (D_cpu + D_client)): what a measurement on a single box sees. Relief:
 * for each candidate, the throughput gain at this machine's cores if its
 * bound were lifted (the next bound's X minus the current one; zero for a
 * resource that does not bind).
 *
 * The closed loop: a benchmark that keeps one op in flight (its IOPS x
 * its mean latency, Little's law, under PROJECTION_LOOP_MAX) waits for
 * each reply before it sends the next, so X <= 1 / R for its latency R,
 * whatever the cores. With the ops' critical paths, R at more cores than
 * here is R less the paths' run-queue wait (a CPU another thread held):
 * the point at N takes the smaller of the two, and names the loop when
 * it binds.
 */
#ifndef CORECAP_PROJECTION_H
#define CORECAP_PROJECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ceiling.h"
#include "model.h"
#include "pool_table.h"
#include "scaling_fit.h"

#define PROJECTION_MAX_CORES 64
#define PROJECTION_RESOURCES 8
/* A benchmark with fewer ops in flight than this keeps one: its ops' paths are their own. */
#define PROJECTION_LOOP_MAX 1.5
/*
 * What one run's projection assumes, said where it is printed: the demand
 * per op measured here holds at every core count. On a real OSD it grows
 * with the cores (cross-core wake-ups, lock hand-offs, cache traffic: a
 * ceph-osd's CPU per op went from 126 us on one CPU to 206 us on two), so
 * the points past this run's cores are an upper bound; `corecap scale`
 * measures the curve (docs/methodology.md, "Scaling").
 */
#define PROJECTION_ASSUMPTION                                                                      \
	"it assumes each op's demand (CPU, holds, disk) stays what this run measured at every "    \
	"core count; on a real daemon it grows with the cores, so the points past this "           \
	"machine's are an upper bound ('corecap scale' measures the curve)"
/*
 * With a scale run's fit (`corecap scale`: the daemon measured at several
 * core counts, model/scaling_fit.h), the points at other core counts than
 * this run's take the fit's throughput where it is below the one-run
 * figure, and name it as their bound; this run's own point stays what it
 * measured.
 */
#define PROJECTION_FIT_ASSUMPTION                                                                  \
	"the points at other core counts than this run's take the scale run's fit (Universal "     \
	"Scalability Law, measured at several core counts) where it is below this run's "          \
	"constant-demand figure"
#define PROJECTION_FIT_BOUND "the scale fit"
/* The bound a point names when the closed loop binds. */
#define PROJECTION_LOOP_BOUND "the closed loop (one op in flight)"

/*
 * One of the daemon's disks over the window. Its use, when it can be told,
 * makes it a resource (kind DEVICE, one server, D_r = use / the measured
 * throughput) whatever the cores: the I/O limit its cgroup sets there
 * (the cgroup's I/Os per second, or bytes, over the limit), or its busy
 * time (iostat's %util) when it serves about one I/O at a time
 * (PROJECTION_DISK_SERIAL in flight on average at most); a disk that
 * serves several at once can be busy all the time and not full, so its
 * busy time is not its use. Where the ops have critical paths, a disk is a
 * resource only when they spend PROJECTION_DISK_PATH_IO of their latency
 * or more in io: a disk the ops do not wait on (a log written behind
 * them) does not cap them, however full.
 */
#define PROJECTION_DISK_SERIAL	1.5
#define PROJECTION_DISK_PATH_IO 0.10
struct projection_disk {
	const char *name;    /* as /proc/diskstats names it */
	double busy;	     /* the share of the window with an I/O in flight; < 0 unknown */
	double in_flight;    /* I/Os in flight on average while busy; < 0 unknown */
	double ios_per_s;    /* completed, reads and writes, by anyone */
	double limit_use;    /* its cgroup's I/O rate over its tightest limit there; < 0 none */
	char limit_what[64]; /* that limit: "write_iops 120" */
	const char *limit_file, *limit_cgroup;
	double limit_rate; /* the cgroup's rate of that kind (per second) */
};
#define PROJECTION_DISKS 8

struct projection_resource {
	enum ceiling_kind kind; /* LOCK, THREAD, POOL, CORES or DEVICE */
	char name[CORECAP_LOCK_LABEL_MAX];
	double demand_s_per_op; /* D_r */
	double servers;		/* k_r: 1, the pool's threads, or the cores N */
	double iops;		/* X_r (for CORES: at this machine's cores) */
};

struct projection_point {
	int cores;
	double iops;
	char bound_by[CORECAP_LOCK_LABEL_MAX + 16]; /* "lock X", "thread Y", "cores" */
	/* With the benchmark client on the same cores; iops < 0: its CPU unknown. */
	double iops_with_client;
	char bound_with_client[160];
	double one_run_iops; /* constant demand, before the scale fit; = iops without one */
	double fit_iops, fit_lo, fit_hi; /* the scale fit's X(N) and its band; 0: none */
};

struct projection {
	bool valid; /* false: no ops or no CPU figures (why_not says) */
	const char *why_not;
	double iops_measured;
	/* "trace" (finished ops), "benchmark", or "perf counters" (a Ceph OSD's own) */
	const char *iops_source;
	int cores_here;	  /* the daemon's CPUs (its affinity), else the machine's */
	int machine_cpus; /* the machine's */
	double wake_s;	  /* the hand-off charged per lock acquisition; 0: unknown */
	double daemon_cores, bench_cores, other_cores; /* < 0: unknown */
	double stolen_cores;  /* the hypervisor's steal, in cores; < 0: unknown */
	bool cores_bind_here; /* the cores term is the smallest at cores_here */
	struct projection_resource res[PROJECTION_RESOURCES]; /* daemon resources, X ascending */
	size_t n_res;
	double cpu_s_per_op;
	double client_s_per_op; /* the benchmark client's CPU per op; < 0 unknown */
	struct projection_point at[PROJECTION_MAX_CORES];
	struct {
		char resource[CORECAP_LOCK_LABEL_MAX + 16];
		double iops_gain;
	} relief[PROJECTION_RESOURCES + 1];
	size_t n_relief;
	/* The benchmark's closed loop; valid false: why_not says why it is not modelled. */
	struct {
		bool valid;
		const char *why_not;
		double in_flight;	   /* the benchmark's ops in flight: IOPS x mean latency */
		double client_lat_s;	   /* the benchmark's mean latency */
		double path_lat_s, runq_s; /* per op on the critical paths */
		double lat_more_s;	   /* the client's latency at more cores than here */
		double iops_here, iops_more; /* in_flight over each latency */
	} loop;
	const struct projection_disk *disks; /* the inputs' (borrowed), at most PROJECTION_DISKS */
	size_t n_disks;
	/* The ops' share of latency in io on their critical paths; < 0: no paths. */
	double path_io_share;
	/* The scale run's fit, when the inputs had one (PROJECTION_FIT_ASSUMPTION). */
	bool fitted;
	struct scaling_fit fit;
	char fit_dir[256];
	char machine_verdict[512];			   /* on this machine */
	char daemon_verdict[CORECAP_LOCK_LABEL_MAX + 512]; /* the daemon's own limit */
};

struct projection_inputs {
	const struct model *model;
	const struct pool_table *pools;
	int cores_available; /* the daemon's CPUs; 0: unknown */
	int machine_cpus;    /* the machine's; 0: as cores_available */
	double bench_iops;   /* the benchmark's own figure; 0: none */
	/* A Ceph OSD's ops in the window by its perf counters, client ops and
	 * replica sub-ops (op + subop): its throughput where neither the trace
	 * nor a benchmark gives one (a host of a run across hosts, whose
	 * benchmark ran on another); 0: none. */
	double osd_ops;
	double machine_busy_cpu_s;  /* < 0: unknown */
	double machine_steal_cpu_s; /* of it, the hypervisor's steal; < 0: unknown */
	double bench_cpu_s;	    /* < 0: unknown */
	double wake_ns;		    /* a cross-core wake-up; < 0: unknown */
	double bench_lat_s;	    /* the benchmark's mean latency; 0: none */
	/* The ops' critical paths, summed over the op types; path_ops 0: none. */
	uint64_t path_ops, path_latency_ns, path_runq_ns, path_io_ns;
	const struct projection_disk *disks; /* the daemon's; NULL: not recorded */
	size_t n_disks;
	const struct scaling_fit *fit; /* a scale run's, valid; NULL: none */
	const char *fit_dir;	       /* where it was measured */
};

void corecap_projection_compute(struct projection *p, const struct projection_inputs *in);
/* A disk's use, when it can be told (above); < 0 when it cannot. */
double corecap_projection_disk_use(const struct projection_disk *d);
/* The disk of that name among the projection's; NULL if none. */
const struct projection_disk *corecap_projection_disk(const struct projection *p, const char *name);

#endif
