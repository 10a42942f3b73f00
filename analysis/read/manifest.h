/*
 * manifest: the run directory's manifest.json (docs/run-directory.md),
 * format versions 1 and 2 (2: the trace's events carry vtid alone and may
 * be the paired corecap_op events; docs/events.md). Loading refuses
 * another version, a file that is not
 * JSON, and a window that is empty, each with an error naming the file.
 * Optional keys absent from the file read as "unknown" (has_* false, or
 * NULL), never as zero. So does an optional key of the wrong JSON type
 * or out of its range (a string for benchmark.command, nproc -2^31): it
 * is skipped with a sentence in warnings, never trusted, never an abort.
 * The parsed JSON stays owned by the struct, so the JSON renderer can
 * pass the benchmark summary (an object) through unchanged.
 */
#ifndef CORECAP_MANIFEST_H
#define CORECAP_MANIFEST_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include <corecap/run_format.h> /* CORECAP_RUN_VERSION(_OLDEST): the versions it reads */
#include <corecap/manifest_keys.h>

struct bench_summary {
	bool has_iops, has_lat, has_ops, has_time, has_p99;
	double iops_avg, lat_avg_s, ops, total_time_s, lat_p99_s;
};

/* The manifest's cap on devices: the collector's (CORECAP_DEVICES_MAX). */
#define MANIFEST_MAX_DEVICES 8

/*
 * One of the daemon's disks over the window (manifest "devices"): its
 * counters' differences, and the I/O limits its cgroup sets there with the
 * cgroup's own I/Os. has_ false: absent (unknown, not zero).
 */
struct run_device {
	const char *name;
	bool has_counts;
	uint64_t ios[2], bytes[2]; /* [0] reads, [1] writes */
	uint64_t busy_ms, queue_ms;
	const char *limit_file, *limit_cgroup; /* NULL: no limit there */
	uint64_t limit_iops[2], limit_bps[2];  /* 0: none of that kind */
	bool has_cgroup_counts;
	uint64_t cgroup_ios[2], cgroup_bytes[2];
};

struct run_manifest {
	json_object *root;
	int version;
	/* Set before corecap_manifest_load: a run of several daemons (version
	 * CORECAP_RUN_VERSION_MULTI) is read too (read/multi_run.h), not refused. */
	bool accept_multi;
	/* The same for a run of several hosts (CORECAP_RUN_VERSION_HOSTS, read/hosts_run.h). */
	bool accept_hosts;
	bool partial;
	const char *partial_reason;
	int32_t pid;	       /* -1 if absent */
	int32_t collector_pid; /* collector.pid: the recording corecap's; 0 if absent */
	/* collector.cpu_user_s + cpu_sys_s: its CPU over its whole run (setup
	 * and writing out included), all its threads; has_: both present. */
	bool has_collector_cpu;
	double collector_cpu_s;
	const char *comm, *exe, *host, *kernel, *tool_version;
	int nproc;    /* 0 if absent; else 1 .. MANIFEST_MAX_NPROC */
	long clk_tck; /* 0 if absent */
	bool has_window;
	uint64_t window_start_ns, window_end_ns;
	/* CLOCK_REALTIME - CLOCK_MONOTONIC at the window's start: the wall
	 * clock of a daemon's own stamps (Ceph's OpTracker) from the window's. */
	bool has_realtime_offset;
	int64_t realtime_offset_ns;
	/* The machine's CPU over the window (manifest "machine"), when recorded. */
	bool has_machine_busy, has_machine_steal, has_bench_cpu, has_wake;
	double machine_busy_cpu_s, bench_cpu_s;
	double machine_steal_cpu_s; /* of busy: the hypervisor's steal (machine.steal_cpu_s) */
	double wake_ns; /* machine.wake_ns: a cross-core wake-up, measured after the window */
	int daemon_cpus;      /* the CPUs its affinity allowed; 0 if absent */
	/* Its cgroup's CPU quota (machine.daemon_cpu_quota_us / _period_us): the
	 * tightest of its cgroup's and parents'; has_ false when none or absent. */
	bool has_cpu_quota;
	double cpu_quota;			       /* in CPUs: quota / period */
	const char *cpu_quota_cgroup, *cpu_quota_file; /* NULL if absent */
	/* The daemon's disks (manifest "devices"); has_devices false: not recorded. */
	bool has_devices;
	struct run_device devices[MANIFEST_MAX_DEVICES];
	size_t n_devices;
	double wall_hz;	      /* the wall-clock sampler's rate; 0: not recorded */
	/* wallclock.sampler (NULL: a run before it was written, ptrace's);
	 * wall_oncpu_only: the kernel's cpu-clock samples, of threads on a
	 * CPU only (no sample stands for a thread off its CPU). */
	const char *wall_sampler;
	bool wall_oncpu_only;
	/* kernel-oncpu: stack copies kept, lost in the kernel, not unwound. */
	uint64_t wall_oncpu_taken, wall_oncpu_lost, wall_oncpu_failed;
	uint64_t wall_rounds; /* its rounds over the window */
	/*
	 * Its samples: taken (wallclock.samples) of due, and what became of
	 * the others (docs/run-directory.md); has_wall_due false when the
	 * manifest predates these keys (unknown, not zero).
	 */
	bool has_wall_due;
	uint64_t wall_samples, wall_due, wall_skipped, wall_abandoned, wall_rationed;
	uint64_t wall_late_rounds, wall_lost_rounds;
	bool has_wall_starved; /* wallclock.threads_starved */
	uint64_t wall_threads_starved, wall_threads_counted;
	uint64_t wall_stop_budget_ns; /* 0 if absent */
	/* Each thread's samples taken per mille of its due: the lowest, the highest. */
	bool has_wall_coverage;
	uint64_t wall_coverage_min_pm, wall_coverage_max_pm;
	bool src_trace, src_threads, src_stats, src_maps;
	bool src_kernel; /* sources.kernel: kernel/events.bin covers the window */
	/* kernel_events.lost.total, when the manifest has it */
	bool has_kernel_lost;
	uint64_t kernel_lost;
	/* kernel_events.bytes.events and .stacks: the sizes the collector wrote
	 * (a file shorter than that was cut after the recording) */
	bool has_kernel_bytes;
	uint64_t kernel_events_bytes, kernel_stacks_bytes;
	uint64_t kernel_records; /* the sum of kernel_events.records.*, 0 if absent */
	/* lttng.target_registered: false when the session recorded nothing of the daemon */
	bool has_target_registered, target_registered;
	bool has_lttng_loss;
	uint64_t lttng_discarded_events, lttng_lost_packets;
	json_object *benchmark;	    /* borrowed from root, or NULL */
	json_object *bench_command; /* array of strings, or NULL */
	int bench_exit_status;	    /* -1 if absent */
	json_object *summary;	    /* borrowed, or NULL */
	struct bench_summary bench;
	char **warnings; /* keys skipped, one sentence each */
	size_t n_warnings;
};

#define MANIFEST_MAX_NPROC 65536

void corecap_manifest_init(struct run_manifest *m);
/*
 * Loads path. 0; -ENOENT when the file does not exist (a partial run);
 * another negative errno with *err (malloc'd, naming the file) otherwise.
 */
int corecap_manifest_load(struct run_manifest *m, const char *path, char **err);
void corecap_manifest_release(struct run_manifest *m);

/*
 * o's member of key, by its name in corecap/manifest_keys.h (the list the
 * collector writes them by); NULL when o is no object or the member is
 * absent or null. For the readers of the manifests of several daemons and
 * hosts too.
 */
json_object *corecap_manifest_member(json_object *o, enum corecap_manifest_key key);
/* The same member's text when it is a string, else NULL. */
const char *corecap_manifest_member_str(json_object *o, enum corecap_manifest_key key);

#endif
