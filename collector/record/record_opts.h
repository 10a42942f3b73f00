/*
 * struct corecap_record_opts: the parsed command line of `corecap record`.
 *
 * Guarantees after corecap_record_opts_parse() returns 0: pid > 0 (the
 * first of n_pids distinct PIDs), or --ceph-osds and pid 0;
 * duration_s is 0 (no limit) or in [CORECAP_RECORD_MIN_DURATION_S, 86400]
 * (a shorter window measures little, and gperftools' profiler needs its
 * two toggles apart: see cpu_profile.h); wall_hz is 0 (off) or in
 * [1, 1000]; threads_hz in [1, 1000]; bench_argv is NULL or a
 * NULL-terminated slice of the caller's argv (not copied); events holds
 * the extra --event names (pointers into argv). On a usage error it
 * returns -EINVAL and leaves the reason in `error` for the caller to print
 * with the usage text; --help returns 1.
 */
#ifndef CORECAP_COLLECTOR_RECORD_OPTS_H
#define CORECAP_COLLECTOR_RECORD_OPTS_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum { CORECAP_RECORD_MAX_EVENTS = 32, CORECAP_RECORD_MAX_PIDS = 64 };

#define CORECAP_RECORD_WALL_HZ_DEFAULT	  50
#define CORECAP_RECORD_THREADS_HZ_DEFAULT 10
/* On-CPU stacks per second of CPU time (kernel events, no --wallclock):
 * enough for the critical path's logging share on Ceph's op threads in a
 * 2 s window (docs/methodology.md, "Logging in the caller"). */
#define CORECAP_RECORD_ONCPU_HZ_DEFAULT 199
#define CORECAP_STR_(x)			#x
#define CORECAP_STR(x)			CORECAP_STR_(x)
#define CORECAP_RECORD_MIN_DURATION_S	0.1

/* The kernel source: on when permitted (default), required, or off. */
enum corecap_record_kernel {
	CORECAP_RECORD_KERNEL_AUTO,
	CORECAP_RECORD_KERNEL_REQUIRE,
	CORECAP_RECORD_KERNEL_OFF,
};

struct corecap_record_opts {
	pid_t pid; /* the first of pids (or 0 with --ceph-osds) */
	/* -p PID1,PID2,...: every daemon, distinct, in the order given. */
	pid_t pids[CORECAP_RECORD_MAX_PIDS];
	size_t n_pids;
	bool ceph_osds;		   /* --ceph-osds[=DIR]: every OSD with an admin socket */
	const char *ceph_osds_dir; /* its DIR, or NULL: the Ceph configuration's */
	int sync_rfd, sync_wfd;	   /* --sync-fds R,W (a multi-daemon child's, a host's); -1 */
	const char *relayd_url;	   /* --relayd-url (a host of record --hosts), or NULL */
	const char *output;	   /* NULL: ./corecap-<comm>-<pid>-<YYYYmmdd-HHMMSS> */
	double duration_s;
	unsigned wall_hz;
	const char *wall_threads; /* --wallclock-threads globs, or NULL: every thread */
	unsigned threads_hz;
	unsigned oncpu_hz; /* --oncpu-hz: 0 (none) to 1000 */
	bool trace;	   /* false with --no-trace */
	bool quiet;
	bool force;
	size_t n_events;
	const char *events[CORECAP_RECORD_MAX_EVENTS];
	const char *ceph_asok; /* --ceph-asok PATH, or NULL (auto-detected for ceph-osd) */
	bool no_ceph;	       /* --no-ceph */
	bool ceph_history_end; /* --ceph-history end: one dump at the window's end */
	bool no_cpu_profile;   /* --no-cpu-profile */
	enum corecap_record_kernel kernel; /* --kernel / --no-kernel */
	const char *kernel_via;		   /* --kernel-via: "auto" (default), "bpf" or "perf" */
	const char *wall_via; /* --wallclock-via: "auto" (default), "kernel" or "ptrace" */
	const char *collector_cpus;	   /* --collector-cpus LIST, or NULL: where it may */
	cpu_set_t collector_set;	   /* its CPUs, when collector_cpus */
	cpu_set_t bench_set; /* record's CPUs before it kept itself on those: the benchmark's */
	char **bench_argv;
	char error[256];
};

/* The usage (usage errors print its first line) and --help's table around it. */
extern const char corecap_record_usage[];
struct corecap_opt_table;
extern const struct corecap_opt_table corecap_record_help;

int corecap_record_opts_parse(struct corecap_record_opts *o, int argc, char **argv);

#endif
