/*
 * corecap/run_format.h: the run directory's contract, written once.
 *
 * The collector writes a run directory, the analysis reads it, the shim
 * and the tracepoints emit the events whose values end up in it. Every
 * name and value they share is defined here and nowhere else:
 *  - the manifest's format name and version;
 *  - the name of every file and directory the collector may leave in a
 *    run directory (RUN/<name>), and corecap_run_files(), the table of
 *    them all, which a test checks every recorded run against;
 *  - the values (and labels) of the enumerations the events carry:
 *    lock kinds, I/O classes, I/O calls.
 * docs/run-directory.md describes each file; docs/events.md each event.
 * The layouts of the binary files have their own headers beside this one
 * (stats_layout.h, kernel_format.h), which include it.
 *
 * This header needs only the C library; it has no link-time dependency,
 * so the tracepoints (the bottom of the component graph) may include it.
 */
#ifndef CORECAP_RUN_FORMAT_H
#define CORECAP_RUN_FORMAT_H

#include <stddef.h>
#include <string.h>

/*
 * manifest.json: "format" and "version"; a reader refuses a version outside
 * [CORECAP_RUN_VERSION_OLDEST, CORECAP_RUN_VERSION]. 2: the trace's events
 * carry vtid alone (no vpid, procname) and may be the paired corecap_op
 * events (begin_enter, phase_enter, end_exit), which a reader of version 1
 * would not know.
 */
#define CORECAP_RUN_FORMAT	   "corecap-run"
#define CORECAP_RUN_VERSION	   2
#define CORECAP_RUN_VERSION_OLDEST 1
/*
 * A run of several daemons (`corecap record -p PID1,PID2` or --ceph-osds):
 * its manifest says version 3 and lists "daemons", each a complete
 * single-daemon run (version CORECAP_RUN_VERSION) under daemons/<pid>/.
 * A reader of single-daemon runs refuses it, naming the way to one daemon.
 */
#define CORECAP_RUN_VERSION_MULTI 3
/*
 * A run of several hosts (`corecap record --hosts`, docs/hosts.md): its
 * manifest says version 4 and lists "hosts", each with its clock against
 * the recording host's and its sub-run under hosts/<name>/, a complete
 * run of that host (read as any). A reader of one run refuses it, naming
 * the way to one host's run.
 */
#define CORECAP_RUN_VERSION_HOSTS 4
#define CORECAP_RUN_HOSTS_DIR	  "hosts"

/* Files and directories under the run directory. */
#define CORECAP_RUN_MANIFEST	 "manifest.json"
#define CORECAP_RUN_MANIFEST_TMP "manifest.json.tmp" /* only while it is written */
#define CORECAP_RUN_TRACE	 "trace"	     /* LTTng's CTF output (a tree) */
#define CORECAP_RUN_THREADS	 "threads.tsv"
#define CORECAP_RUN_STATS_BEGIN	 "stats-begin"
#define CORECAP_RUN_STATS_END	 "stats-end"
#define CORECAP_RUN_MAPS	 "maps"
#define CORECAP_RUN_BUILDIDS	 "buildids.tsv"
#define CORECAP_RUN_VDSO	 "vdso.so" /* the target's [vdso] image, as mapped */
#define CORECAP_RUN_WALL	 "wall.samples"
/* manifest wallclock.sampler: who wrote wall.samples. ptrace: every
 * thread stopped in turn, each state sampled (record --wallclock);
 * kernel-oncpu: cpu-clock samples of the threads on a CPU only, no thread
 * stopped (kernel events without --wallclock). */
#define CORECAP_WALL_SAMPLER_PTRACE	  "ptrace"
#define CORECAP_WALL_SAMPLER_KERNEL_ONCPU "kernel-oncpu"
/* kernel-oncpu+offcpu-iter (record --wallclock with kernel events): the
 * cpu-clock samples for the threads on a CPU and a task iterator's rounds
 * at the same rate for the others, runnable or blocked: every state
 * sampled, no thread stopped. */
#define CORECAP_WALL_SAMPLER_KERNEL_OFFCPU "kernel-oncpu+offcpu-iter"
#define CORECAP_RUN_CPU_PROF	 "cpu.prof"
#define CORECAP_RUN_BENCH_OUT	 "bench.out"
/* A run of several hosts: the benchmark's own record of its ops (refbench
 * writes it where CORECAP_CLIENT_OPS points), docs/run-directory.md. */
#define CORECAP_RUN_CLIENT_OPS	 "client-ops.tsv"
#define CORECAP_CLIENT_OPS_ENV	 "CORECAP_CLIENT_OPS"

#define CORECAP_KERNEL_DIR	   "kernel"
#define CORECAP_KERNEL_EVENTS_FILE "kernel/events.bin"
#define CORECAP_KERNEL_STACKS_FILE "kernel/stacks.bin"
/* Raw user-stack copies, only while recording (removed once unwound). */
#define CORECAP_KERNEL_RAW_FILE "kernel/stacks.raw"

/* A Ceph daemon's admin-socket output; the names inside ceph/ come bare too. */
#define CORECAP_RUN_CEPH_DIR	      "ceph"
#define CORECAP_CEPH_PERF_BEGIN	      "perf-begin.json"
#define CORECAP_CEPH_PERF_END	      "perf-end.json"
#define CORECAP_CEPH_HISTORIC_OPS     "historic_ops.json"
/* The same zstd-compressed (one zstd frame), as the collector writes it
 * since events.bin's version 3; earlier runs have the plain file. */
#define CORECAP_CEPH_HISTORIC_OPS_ZST "historic_ops.json.zst"
#define CORECAP_CEPH_CONFIG	      "config.json" /* `config show` at the start */
#define CORECAP_RUN_CEPH_PERF_BEGIN   CORECAP_RUN_CEPH_DIR "/" CORECAP_CEPH_PERF_BEGIN
#define CORECAP_RUN_CEPH_PERF_END     CORECAP_RUN_CEPH_DIR "/" CORECAP_CEPH_PERF_END
#define CORECAP_RUN_CEPH_HISTORIC_OPS CORECAP_RUN_CEPH_DIR "/" CORECAP_CEPH_HISTORIC_OPS
#define CORECAP_RUN_CEPH_HISTORIC_OPS_ZST CORECAP_RUN_CEPH_DIR "/" CORECAP_CEPH_HISTORIC_OPS_ZST
/* Written aside, then renamed to the above once whole. */
#define CORECAP_RUN_CEPH_HISTORIC_OPS_TMP CORECAP_RUN_CEPH_HISTORIC_OPS_ZST ".tmp"
#define CORECAP_RUN_CEPH_CONFIG	      CORECAP_RUN_CEPH_DIR "/" CORECAP_CEPH_CONFIG

/* A run of several daemons: one single-daemon run per daemon, daemons/<pid>/. */
#define CORECAP_RUN_DAEMONS_DIR "daemons"

/*
 * corecap's mark on a run directory it created, written first: its first
 * line is CORECAP_RUN_MARK_MAGIC, its second "collector PID STARTTIME"
 * (the collector's PID and /proc/PID/stat start time). `record --force`
 * replaces only a directory that holds it and a manifest.
 */
#define CORECAP_RUN_MARK       ".corecap-run"
#define CORECAP_RUN_MARK_MAGIC "corecap run directory 1\n"
/*
 * Written by a later corecap command that found this run's LTTng session
 * still running after its collector (and its watchdog) died, and stopped
 * and destroyed it: the trace may hold events past the manifest's window.
 */
#define CORECAP_RUN_ORPHANED "session-orphaned"

/* A temporary file beside its final name while it is written, renamed on success. */
#define CORECAP_RUN_TMP_SUFFIX ".tmp"

/* corecap_run_file.flags */
#define CORECAP_RUN_F_DIR	0x1u /* a directory; its entries are listed on their own */
#define CORECAP_RUN_F_TREE	0x2u /* a directory whose contents its writer owns (LTTng) */
#define CORECAP_RUN_F_TRANSIENT 0x4u /* only while recording, or left by a killed collector */

struct corecap_run_file {
	const char *name; /* relative to the run directory */
	unsigned flags;	  /* CORECAP_RUN_F_* */
};

/* Every name the collector may leave in a run directory; *n gets their count. */
static inline const struct corecap_run_file *corecap_run_files(size_t *n)
{
	static const struct corecap_run_file files[] = {
		{CORECAP_RUN_MARK, 0},
		{CORECAP_RUN_ORPHANED, 0},
		{CORECAP_RUN_MANIFEST, 0},
		{CORECAP_RUN_MANIFEST_TMP, CORECAP_RUN_F_TRANSIENT},
		{CORECAP_RUN_TRACE, CORECAP_RUN_F_DIR | CORECAP_RUN_F_TREE},
		{CORECAP_RUN_THREADS, 0},
		{CORECAP_RUN_STATS_BEGIN, 0},
		{CORECAP_RUN_STATS_END, 0},
		{CORECAP_RUN_MAPS, 0},
		{CORECAP_RUN_BUILDIDS, 0},
		{CORECAP_RUN_VDSO, 0},
		{CORECAP_RUN_WALL, 0},
		{CORECAP_RUN_CPU_PROF, 0},
		{CORECAP_RUN_BENCH_OUT, 0},
		{CORECAP_RUN_CLIENT_OPS, 0},
		{CORECAP_KERNEL_DIR, CORECAP_RUN_F_DIR},
		{CORECAP_KERNEL_EVENTS_FILE, 0},
		{CORECAP_KERNEL_STACKS_FILE, 0},
		{CORECAP_KERNEL_RAW_FILE, CORECAP_RUN_F_TRANSIENT},
		{CORECAP_RUN_CEPH_DIR, CORECAP_RUN_F_DIR},
		{CORECAP_RUN_CEPH_PERF_BEGIN, 0},
		{CORECAP_RUN_CEPH_PERF_END, 0},
		{CORECAP_RUN_CEPH_HISTORIC_OPS, 0},
		{CORECAP_RUN_CEPH_HISTORIC_OPS_ZST, 0},
		{CORECAP_RUN_CEPH_HISTORIC_OPS_TMP, CORECAP_RUN_F_TRANSIENT},
		{CORECAP_RUN_CEPH_CONFIG, 0},
		/* A run of several daemons: each entry a run of its own (checked alike). */
		{CORECAP_RUN_DAEMONS_DIR, CORECAP_RUN_F_DIR | CORECAP_RUN_F_TREE},
	};

	*n = sizeof(files) / sizeof(files[0]);
	return files;
}

/* The table's entry for a relative name, or NULL: a name the analysis does not know. */
static inline const struct corecap_run_file *corecap_run_file_find(const char *name)
{
	size_t n;
	const struct corecap_run_file *f = corecap_run_files(&n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return &f[i];
	return NULL;
}

/*
 * Enumerations the events carry, as X-lists (X(SUFFIX, "label", value)) so
 * the C enums here and the tracepoints' CTF enumerations come from the
 * same lines (CORECAP_TP_ENUM_VALUE_ in a tracepoint header).
 */

/* corecap_lock's `kind`; the shim's stats add CORECAP_KIND_COND. */
#define CORECAP_LOCK_KIND_LIST(X)                                                                  \
	X(MUTEX, "mutex", 0)                                                                       \
	X(RWLOCK_RD, "rwlock_rd", 1)                                                               \
	X(RWLOCK_WR, "rwlock_wr", 2)                                                               \
	X(SPIN, "spin", 3)

/* corecap_io's `class`. */
#define CORECAP_IO_CLASS_LIST(X)                                                                   \
	X(OTHER, "other", 0)                                                                       \
	X(LOG, "log", 1)                                                                           \
	X(DATA, "data", 2)                                                                         \
	X(NET, "net", 3)                                                                           \
	X(JOURNAL, "journal", 4) /* journal, WAL and DB files (CORECAP_IO_JOURNAL patterns) */

/* corecap_io's `call`. */
#define CORECAP_IO_CALL_LIST(X)                                                                    \
	X(READ, "read", 0)                                                                         \
	X(WRITE, "write", 1)                                                                       \
	X(FSYNC, "fsync", 2)                                                                       \
	X(SEND, "send", 3)                                                                         \
	X(RECV, "recv", 4)                                                                         \
	X(AIO_SUBMIT, "aio_submit", 5)

/*
 * corecap_io:syscall's `hdr`: how many of the first bytes of a net call
 * the event carries: a read's 24 (an XRootD request header), a write's 8
 * (a response header). The field replaced `head` (a u32 of the first 4
 * bytes, big-endian) within run format 2: a reader takes `hdr` when the
 * trace has it, else the 4 bytes of `head` (docs/events.md).
 */
#define CORECAP_IO_HDR_IN  24
#define CORECAP_IO_HDR_OUT 8

#define CORECAP_ENUM_KIND_(id, label, v)  CORECAP_KIND_##id = (v),
#define CORECAP_ENUM_CLASS_(id, label, v) CORECAP_IO_##id = (v),
#define CORECAP_ENUM_CALL_(id, label, v)  CORECAP_IO_CALL_##id = (v),
#define CORECAP_ENUM_LABEL_(id, label, v) [v] = label,

/* Kind of a lock event, of a stats site or lock. */
enum corecap_stats_kind {
	CORECAP_LOCK_KIND_LIST(CORECAP_ENUM_KIND_) CORECAP_KIND_COND = 4, /* a cond-wait site */
	CORECAP_KIND_COUNT = 5,
};

enum corecap_io_class { CORECAP_IO_CLASS_LIST(CORECAP_ENUM_CLASS_) CORECAP_IO_CLASSES = 5 };

enum corecap_io_call { CORECAP_IO_CALL_LIST(CORECAP_ENUM_CALL_) CORECAP_IO_CALLS = 6 };

/* The enumerations' labels, as the events name them; "?" out of range. */
static inline const char *corecap_io_class_name(unsigned c)
{
	static const char *const names[CORECAP_IO_CLASSES] = {
		CORECAP_IO_CLASS_LIST(CORECAP_ENUM_LABEL_)};

	return c < CORECAP_IO_CLASSES && names[c] ? names[c] : "?";
}

static inline const char *corecap_lock_kind_label(unsigned k)
{
	static const char *const names[CORECAP_KIND_COND] = {
		CORECAP_LOCK_KIND_LIST(CORECAP_ENUM_LABEL_)};

	return k < CORECAP_KIND_COND && names[k] ? names[k] : "?";
}

#endif /* CORECAP_RUN_FORMAT_H */
