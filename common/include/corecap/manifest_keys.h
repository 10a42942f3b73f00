/*
 * corecap/manifest_keys.h: the names of manifest.json's keys, written once.
 *
 * The collector writes RUN/manifest.json (collector/record/manifest.c, the
 * benchmark's figures from collector/workload/bench_parse.c); the analysis reads it
 * (analysis/read/manifest.c, read/multi_run.c) and so does a several-daemon
 * record reading each daemon's run (collector/record/record_multi.c); the
 * hosts' keys are written by collector/hosts/host_record.c and read by
 * analysis/read/hosts_run.c. Every key
 * either side names comes from CORECAP_MANIFEST_KEY_LIST below, nested keys
 * included, so a name cannot drift between the writer and a reader. Tests:
 * unit.check_manifest_keys writes manifests through the writer with every
 * source on and reads each value back through the readers, every key of
 * the list written; e2e.format_manifest_keys checks that every key of a
 * recorded manifest is in the list and that the writer and readers spell
 * none of them as a string. Each key's comment says what it holds;
 * docs/run-directory.md says it at length (units, when null or absent).
 *
 * X(ID, PARENT, "name", flags): CORECAP_MK_<ID> names the key "name" inside
 * the object CORECAP_MK_<PARENT> (ROOT: the document itself). ID is the
 * key's path in capitals, "." and "[]" made "_": machine.daemon_cpus is
 * MACHINE_DAEMON_CPUS, devices[].limit.file DEVICES_LIMIT_FILE. The list
 * is in the order the collector writes a single daemon's keys (a run of
 * several daemons writes daemons[] before benchmark, the kernel's on-CPU
 * sampler wallclock.samples before taken). Flags:
 *   CORECAP_MK_F_OBJ    an object, whose keys are those with it as PARENT;
 *   CORECAP_MK_F_ARRAY  an array of such objects (path "name[].key");
 *   CORECAP_MK_F_OPEN   an object that may also hold keys not listed: the
 *                       benchmark's own figures, each percentile it prints
 *                       as lat_p<digits>_s (corecap_manifest_key_open_ok()).
 * The format's name and version (the values of "format" and "version") are
 * run_format.h's.
 *
 * This header needs only the C library; it has no link-time dependency.
 */
#ifndef CORECAP_MANIFEST_KEYS_H
#define CORECAP_MANIFEST_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define CORECAP_MK_F_OBJ   0x1u
#define CORECAP_MK_F_ARRAY 0x2u
#define CORECAP_MK_F_OPEN  0x4u

#define CORECAP_MANIFEST_KEY_LIST(X)                                                               \
	/* CORECAP_RUN_FORMAT, "corecap-run": what the directory is */                             \
	X(FORMAT, ROOT, "format", 0)                                                               \
	/* the run format's version: 1 or 2 one daemon, 3 several daemons, 4 several hosts */      \
	X(VERSION, ROOT, "version", 0)                                                             \
	/* the recording corecap's version */                                                      \
	X(TOOL_VERSION, ROOT, "tool_version", 0)                                                   \
	/* "complete", or "partial": the window did not cover what was asked */                    \
	X(STATUS, ROOT, "status", 0)                                                               \
	/* why it is partial, a sentence; null when complete */                                    \
	X(PARTIAL_REASON, ROOT, "partial_reason", 0)                                               \
	/* the daemon's PID */                                                                     \
	X(PID, ROOT, "pid", 0)                                                                     \
	/* the daemon's name (/proc/PID/comm) */                                                   \
	X(COMM, ROOT, "comm", 0)                                                                   \
	/* the daemon's arguments, an array of strings */                                          \
	X(CMDLINE, ROOT, "cmdline", 0)                                                             \
	/* the daemon's executable (/proc/PID/exe); "" when the link could not be read */          \
	X(EXE, ROOT, "exe", 0)                                                                     \
	/* the daemon's real uid */                                                                \
	X(UID, ROOT, "uid", 0)                                                                     \
	/* the recording host's name */                                                            \
	X(HOST, ROOT, "host", 0)                                                                   \
	/* the CPUs online on the recording host */                                                \
	X(NPROC, ROOT, "nproc", 0)                                                                 \
	/* the kernel's release (uname -r) */                                                      \
	X(KERNEL, ROOT, "kernel", 0)                                                               \
	/* clock ticks per second: the unit of threads.tsv's /proc times */                        \
	X(CLK_TCK, ROOT, "clk_tck", 0)                                                             \
	/* "monotonic": every time of the run is CLOCK_MONOTONIC ns */                             \
	X(CLOCK, ROOT, "clock", 0)                                                                 \
	/* the measurement window; absent before it started */                                     \
	X(WINDOW, ROOT, "window", CORECAP_MK_F_OBJ)                                                \
	/* its start, CLOCK_MONOTONIC ns */                                                        \
	X(WINDOW_START_NS, WINDOW, "start_ns", 0)                                                  \
	/* its end (the last checkpoint's time in a checkpoint) */                                 \
	X(WINDOW_END_NS, WINDOW, "end_ns", 0)                                                      \
	/* end_ns - start_ns, in seconds */                                                        \
	X(WINDOW_DURATION_S, WINDOW, "duration_s", 0)                                              \
	/* its start in UTC, "2026-11-29T19:40:00Z" */                                             \
	X(WINDOW_START_REALTIME, WINDOW, "start_realtime", 0)                                      \
	/* CLOCK_REALTIME - CLOCK_MONOTONIC at the start, ns */                                    \
	X(WINDOW_REALTIME_OFFSET_NS, WINDOW, "realtime_offset_ns", 0)                              \
	/* corecap record's arguments, an array of strings */                                      \
	X(RECORD_COMMAND, ROOT, "record_command", 0)                                               \
	/* the recording corecap itself */                                                         \
	X(COLLECTOR, ROOT, "collector", CORECAP_MK_F_OBJ)                                          \
	/* its PID */                                                                              \
	X(COLLECTOR_PID, COLLECTOR, "pid", 0)                                                      \
	/* the CPUs it ran on, a list ("0-1,3") */                                                 \
	X(COLLECTOR_CPUS, COLLECTOR, "cpus", 0)                                                    \
	/* its user CPU time over its whole run, s */                                              \
	X(COLLECTOR_CPU_USER_S, COLLECTOR, "cpu_user_s", 0)                                        \
	/* its system CPU time over its whole run, s */                                            \
	X(COLLECTOR_CPU_SYS_S, COLLECTOR, "cpu_sys_s", 0)                                          \
	/* the machine's CPU over the window; each key null if unknown */                          \
	X(MACHINE, ROOT, "machine", CORECAP_MK_F_OBJ)                                              \
	/* all CPUs' busy time (/proc/stat), s */                                                  \
	X(MACHINE_BUSY_CPU_S, MACHINE, "busy_cpu_s", 0)                                            \
	/* of busy_cpu_s, the hypervisor's steal, s */                                             \
	X(MACHINE_STEAL_CPU_S, MACHINE, "steal_cpu_s", 0)                                          \
	/* the benchmark's CPU time (its rusage), s */                                             \
	X(MACHINE_BENCH_CPU_S, MACHINE, "bench_cpu_s", 0)                                          \
	/* the median cross-core wake-up, ns, measured after the window */                         \
	X(MACHINE_WAKE_NS, MACHINE, "wake_ns", 0)                                                  \
	/* the CPUs the daemon's affinity allows */                                                \
	X(MACHINE_DAEMON_CPUS, MACHINE, "daemon_cpus", 0)                                          \
	/* its cgroup's tightest CFS quota, us per period */                                       \
	X(MACHINE_DAEMON_CPU_QUOTA_US, MACHINE, "daemon_cpu_quota_us", 0)                          \
	/* that quota's period, us */                                                              \
	X(MACHINE_DAEMON_CPU_PERIOD_US, MACHINE, "daemon_cpu_period_us", 0)                        \
	/* the cgroup that sets it, as /proc/PID/cgroup names it */                                \
	X(MACHINE_DAEMON_CPU_QUOTA_CGROUP, MACHINE, "daemon_cpu_quota_cgroup", 0)                  \
	/* the file it was read from: "cpu.max", or v1's */                                        \
	X(MACHINE_DAEMON_CPU_QUOTA_FILE, MACHINE, "daemon_cpu_quota_file", 0)                      \
	/* which files a reader can use, a boolean each */                                         \
	X(SOURCES, ROOT, "sources", CORECAP_MK_F_OBJ)                                              \
	/* trace/: the LTTng session recorded */                                                   \
	X(SOURCES_TRACE, SOURCES, "trace", 0)                                                      \
	/* threads.tsv has rows */                                                                 \
	X(SOURCES_THREADS, SOURCES, "threads", 0)                                                  \
	/* stats-begin and stats-end were both written */                                          \
	X(SOURCES_STATS, SOURCES, "stats", 0)                                                      \
	/* maps was saved */                                                                       \
	X(SOURCES_MAPS, SOURCES, "maps", 0)                                                        \
	/* buildids.tsv was saved */                                                               \
	X(SOURCES_BUILDIDS, SOURCES, "buildids", 0)                                                \
	/* wall.samples was written */                                                             \
	X(SOURCES_WALL, SOURCES, "wall", 0)                                                        \
	/* cpu.prof is not empty */                                                                \
	X(SOURCES_CPU_PROF, SOURCES, "cpu_prof", 0)                                                \
	/* a benchmark ran: bench.out */                                                           \
	X(SOURCES_BENCH, SOURCES, "bench", 0)                                                      \
	/* kernel/events.bin covers the whole window */                                            \
	X(SOURCES_KERNEL, SOURCES, "kernel", 0)                                                    \
	/* the daemon's disks (at most 8), each over the window */                                 \
	X(DEVICES, ROOT, "devices", CORECAP_MK_F_ARRAY)                                            \
	/* as /proc/diskstats names it ("loop0") */                                                \
	X(DEVICES_NAME, DEVICES, "name", 0)                                                        \
	/* its major number */                                                                     \
	X(DEVICES_MAJOR, DEVICES, "major", 0)                                                      \
	/* its minor number */                                                                     \
	X(DEVICES_MINOR, DEVICES, "minor", 0)                                                      \
	/* completed reads; null when a reading failed */                                          \
	X(DEVICES_READS, DEVICES, "reads", 0)                                                      \
	/* completed writes */                                                                     \
	X(DEVICES_WRITES, DEVICES, "writes", 0)                                                    \
	/* bytes read */                                                                           \
	X(DEVICES_READ_BYTES, DEVICES, "read_bytes", 0)                                            \
	/* bytes written */                                                                        \
	X(DEVICES_WRITE_BYTES, DEVICES, "write_bytes", 0)                                          \
	/* time with an I/O in flight (io_ticks), ms */                                            \
	X(DEVICES_BUSY_MS, DEVICES, "busy_ms", 0)                                                  \
	/* the I/Os' time in flight, summed, ms */                                                 \
	X(DEVICES_QUEUE_MS, DEVICES, "queue_ms", 0)                                                \
	/* the I/O limits of the daemon's cgroup there; null for none */                           \
	X(DEVICES_LIMIT, DEVICES, "limit", CORECAP_MK_F_OBJ)                                       \
	/* "io.max", or v1's "blkio.throttle" */                                                   \
	X(DEVICES_LIMIT_FILE, DEVICES_LIMIT, "file", 0)                                            \
	/* the cgroup where the tightest limit was found */                                        \
	X(DEVICES_LIMIT_CGROUP, DEVICES_LIMIT, "cgroup", 0)                                        \
	/* reads per second; null for no limit */                                                  \
	X(DEVICES_LIMIT_READ_IOPS, DEVICES_LIMIT, "read_iops", 0)                                  \
	/* writes per second; null for no limit */                                                 \
	X(DEVICES_LIMIT_WRITE_IOPS, DEVICES_LIMIT, "write_iops", 0)                                \
	/* read bytes per second; null for no limit */                                             \
	X(DEVICES_LIMIT_READ_BPS, DEVICES_LIMIT, "read_bps", 0)                                    \
	/* written bytes per second; null for no limit */                                          \
	X(DEVICES_LIMIT_WRITE_BPS, DEVICES_LIMIT, "write_bps", 0)                                  \
	/* the daemon's cgroup's reads there (io.stat) */                                          \
	X(DEVICES_LIMIT_CGROUP_READS, DEVICES_LIMIT, "cgroup_reads", 0)                            \
	/* its writes there */                                                                     \
	X(DEVICES_LIMIT_CGROUP_WRITES, DEVICES_LIMIT, "cgroup_writes", 0)                          \
	/* its bytes read there */                                                                 \
	X(DEVICES_LIMIT_CGROUP_READ_BYTES, DEVICES_LIMIT, "cgroup_read_bytes", 0)                  \
	/* its bytes written there */                                                              \
	X(DEVICES_LIMIT_CGROUP_WRITE_BYTES, DEVICES_LIMIT, "cgroup_write_bytes", 0)                \
	/* the LTTng session; absent with --no-trace */                                            \
	X(LTTNG, ROOT, "lttng", CORECAP_MK_F_OBJ)                                                  \
	/* its name */                                                                             \
	X(LTTNG_SESSION, LTTNG, "session", 0)                                                      \
	/* the events enabled, an array ("corecap_op:*", ...) */                                   \
	X(LTTNG_EVENTS, LTTNG, "events", 0)                                                        \
	/* the contexts added, an array ("vtid") */                                                \
	X(LTTNG_CONTEXTS, LTTNG, "contexts", 0)                                                    \
	/* the channel's name */                                                                   \
	X(LTTNG_CHANNEL, LTTNG, "channel", 0)                                                      \
	/* "per-uid" */                                                                            \
	X(LTTNG_BUFFERS, LTTNG, "buffers", 0)                                                      \
	/* the size of a sub-buffer */                                                             \
	X(LTTNG_SUBBUF_BYTES, LTTNG, "subbuf_bytes", 0)                                            \
	/* sub-buffers per buffer */                                                               \
	X(LTTNG_NUM_SUBBUF, LTTNG, "num_subbuf", 0)                                                \
	/* the daemon was seen registered with the session daemon */                               \
	X(LTTNG_TARGET_REGISTERED, LTTNG, "target_registered", 0)                                  \
	/* ... with corecap's providers loaded */                                                  \
	X(LTTNG_TARGET_HAS_PROBES, LTTNG, "target_has_probes", 0)                                  \
	/* events the channel discarded; null if unread */                                         \
	X(LTTNG_DISCARDED_EVENTS, LTTNG, "discarded_events", 0)                                    \
	/* packets the channel lost; null if unread */                                             \
	X(LTTNG_LOST_PACKETS, LTTNG, "lost_packets", 0)                                            \
	/* the collector started the session daemon */                                             \
	X(LTTNG_STARTED_SESSIOND, LTTNG, "started_sessiond", 0)                                    \
	/* threads.tsv's rounds per second */                                                      \
	X(THREADS_HZ, ROOT, "threads_hz", 0)                                                       \
	/* threads.tsv */                                                                          \
	X(THREADS, ROOT, "threads", CORECAP_MK_F_OBJ)                                              \
	/* its rounds */                                                                           \
	X(THREADS_ROUNDS, THREADS, "rounds", 0)                                                    \
	/* its rows */                                                                             \
	X(THREADS_ROWS, THREADS, "rows", 0)                                                        \
	/* /proc's schedstat was read (run_ns, wait_ns) */                                         \
	X(THREADS_SCHEDSTAT, THREADS, "schedstat", 0)                                              \
	/* wall.samples' sampler; absent when none wrote it */                                     \
	X(WALLCLOCK, ROOT, "wallclock", CORECAP_MK_F_OBJ)                                          \
	/* samples per second (per thread; kernel-oncpu: per CPU second) */                        \
	X(WALLCLOCK_HZ, WALLCLOCK, "hz", 0)                                                        \
	/* "ptrace", "kernel-oncpu" or "kernel-oncpu+offcpu-iter" (run_format.h) */                \
	X(WALLCLOCK_SAMPLER, WALLCLOCK, "sampler", 0)                                              \
	/* kernel-oncpu: stack copies kept */                                                      \
	X(WALLCLOCK_TAKEN, WALLCLOCK, "taken", 0)                                                  \
	/* kernel-oncpu: copies the kernel could not make */                                       \
	X(WALLCLOCK_LOST, WALLCLOCK, "lost", 0)                                                    \
	/* kernel-oncpu: copies not unwound one frame */                                           \
	X(WALLCLOCK_FAILED, WALLCLOCK, "failed", 0)                                                \
	/* offcpu-iter: the iterator's rounds (each sample stands for 1/hz s) */                   \
	X(WALLCLOCK_OFFCPU_ROUNDS, WALLCLOCK, "offcpu_rounds", 0)                                  \
	/* offcpu-iter: rounds a whole period late or more */                                      \
	X(WALLCLOCK_OFFCPU_LATE_ROUNDS, WALLCLOCK, "offcpu_late_rounds", 0)                        \
	/* offcpu-iter: rounds that waited at SCHED_FIFO (began at their due time) */              \
	X(WALLCLOCK_OFFCPU_FIFO_ROUNDS, WALLCLOCK, "offcpu_fifo_rounds", 0)                        \
	/* offcpu-iter: of taken, the iterator's copies (off a CPU) */                             \
	X(WALLCLOCK_OFFCPU_TAKEN, WALLCLOCK, "offcpu_taken", 0)                                    \
	/* offcpu-iter: of those, of threads runnable */                                           \
	X(WALLCLOCK_OFFCPU_RUNNABLE, WALLCLOCK, "offcpu_runnable", 0)                              \
	/* offcpu-iter: visits that found the thread on a CPU */                                   \
	X(WALLCLOCK_OFFCPU_ON_CPU, WALLCLOCK, "offcpu_on_cpu", 0)                                  \
	/* offcpu-iter: stacks the kernel could not read */                                        \
	X(WALLCLOCK_OFFCPU_FAILED, WALLCLOCK, "offcpu_failed", 0)                                  \
	/* offcpu-iter: copies dropped, their thread ran meanwhile */                              \
	X(WALLCLOCK_OFFCPU_MOVED, WALLCLOCK, "offcpu_moved", 0)                                    \
	/* offcpu-iter: of offcpu_taken, threads not run since their last copy */                  \
	X(WALLCLOCK_OFFCPU_SAME, WALLCLOCK, "offcpu_same", 0)                                      \
	/* offcpu-iter: samples not kept (no room, their copy lost) */                             \
	X(WALLCLOCK_OFFCPU_UNKEPT, WALLCLOCK, "offcpu_unkept", 0)                                  \
	/* offcpu-iter: runnable behind the round on its CPU: left to cpu-clock */                 \
	X(WALLCLOCK_OFFCPU_DISPLACED, WALLCLOCK, "offcpu_displaced", 0)                            \
	/* offcpu-iter: periods a round over 1 s late did not stand for */                         \
	X(WALLCLOCK_OFFCPU_DROPPED_PERIODS, WALLCLOCK, "offcpu_dropped_periods", 0)                \
	/* offcpu-iter: ns per round (the collector's clock) */                                    \
	X(WALLCLOCK_ROUND_NS_MEAN, WALLCLOCK, "round_ns_mean", 0)                                  \
	/* offcpu-iter: the longest round, ns */                                                   \
	X(WALLCLOCK_ROUND_NS_MAX, WALLCLOCK, "round_ns_max", 0)                                    \
	/* offcpu-iter: the collector's CPU in rounds, ns, all rounds */                           \
	X(WALLCLOCK_ROUND_CPU_NS, WALLCLOCK, "round_cpu_ns", 0)                                    \
	/* the --wallclock-threads globs; null: every thread */                                    \
	X(WALLCLOCK_THREADS, WALLCLOCK, "threads", 0)                                              \
	/* rounds over the window */                                                               \
	X(WALLCLOCK_ROUNDS, WALLCLOCK, "rounds", 0)                                                \
	/* lines in wall.samples */                                                                \
	X(WALLCLOCK_SAMPLES, WALLCLOCK, "samples", 0)                                              \
	/* samples the rate asked for: one per thread per round */                                 \
	X(WALLCLOCK_DUE, WALLCLOCK, "due", 0)                                                      \
	/* due samples not tried: the sampler was behind */                                        \
	X(WALLCLOCK_SKIPPED, WALLCLOCK, "skipped", 0)                                              \
	/* turns skipped: the thread had spent its share in our stops */                           \
	X(WALLCLOCK_RATIONED, WALLCLOCK, "rationed", 0)                                            \
	/* stops ended without a line: over stop_budget_ns */                                      \
	X(WALLCLOCK_ABANDONED, WALLCLOCK, "abandoned", 0)                                          \
	/* the most threads one round skipped */                                                   \
	X(WALLCLOCK_SKIPPED_ROUND_MAX, WALLCLOCK, "skipped_round_max", 0)                          \
	/* threads a round found still on their way to an earlier stop */                          \
	X(WALLCLOCK_MISSED, WALLCLOCK, "missed", 0)                                                \
	/* rounds that ran out of time before every thread */                                      \
	X(WALLCLOCK_LATE_ROUNDS, WALLCLOCK, "late_rounds", 0)                                      \
	/* ticks that never came (the collector busy elsewhere) */                                 \
	X(WALLCLOCK_LOST_ROUNDS, WALLCLOCK, "lost_rounds", 0)                                      \
	/* threads that did not stop within the budget */                                          \
	X(WALLCLOCK_SLOW_STOPS, WALLCLOCK, "slow_stops", 0)                                        \
	/* stops with no frame at all */                                                           \
	X(WALLCLOCK_UNWIND_ERRORS, WALLCLOCK, "unwind_errors", 0)                                  \
	/* signals the daemon received while traced */                                             \
	X(WALLCLOCK_SIGNALS_PASSED, WALLCLOCK, "signals_passed", 0)                                \
	/* samples that held their thread 100 ms or more */                                        \
	X(WALLCLOCK_LONG_STOPS, WALLCLOCK, "long_stops", 0)                                        \
	/* the most threads one round had to sample */                                             \
	X(WALLCLOCK_MAX_THREADS, WALLCLOCK, "max_threads", 0)                                      \
	/* threads due 5 samples or more */                                                        \
	X(WALLCLOCK_THREADS_COUNTED, WALLCLOCK, "threads_counted", 0)                              \
	/* of them, those that got none */                                                         \
	X(WALLCLOCK_THREADS_STARVED, WALLCLOCK, "threads_starved", 0)                              \
	/* of them, the fewest samples of a thread */                                              \
	X(WALLCLOCK_THREAD_SAMPLES_MIN, WALLCLOCK, "thread_samples_min", 0)                        \
	/* of them, the most samples of a thread */                                                \
	X(WALLCLOCK_THREAD_SAMPLES_MAX, WALLCLOCK, "thread_samples_max", 0)                        \
	/* the lowest of a thread's samples per mille of its due */                                \
	X(WALLCLOCK_THREAD_COVERAGE_MIN_PM, WALLCLOCK, "thread_coverage_min_pm", 0)                \
	/* the highest of a thread's samples per mille of its due */                               \
	X(WALLCLOCK_THREAD_COVERAGE_MAX_PM, WALLCLOCK, "thread_coverage_max_pm", 0)                \
	/* the most time one thread spent in our stops, ns */                                      \
	X(WALLCLOCK_THREAD_STOP_NS_MAX, WALLCLOCK, "thread_stop_ns_max", 0)                        \
	/* the longest from a stop's report to the thread's resume, ns */                          \
	X(WALLCLOCK_HOLD_NS_MAX, WALLCLOCK, "hold_ns_max", 0)                                      \
	/* a stop's budget from its interrupt, ns */                                               \
	X(WALLCLOCK_STOP_BUDGET_NS, WALLCLOCK, "stop_budget_ns", 0)                                \
	/* the share of its period a round may spend, % */                                         \
	X(WALLCLOCK_ROUND_SHARE_PCT, WALLCLOCK, "round_share_pct", 0)                              \
	/* the share of the window a thread may spend stopped, % */                                \
	X(WALLCLOCK_THREAD_STOP_SHARE_PCT, WALLCLOCK, "thread_stop_share_pct", 0)                  \
	/* the samples' stop_ns: the median */                                                     \
	X(WALLCLOCK_STOP_NS_MEDIAN, WALLCLOCK, "stop_ns_median", 0)                                \
	/* ... the 99th percentile */                                                              \
	X(WALLCLOCK_STOP_NS_P99, WALLCLOCK, "stop_ns_p99", 0)                                      \
	/* ... the largest */                                                                      \
	X(WALLCLOCK_STOP_NS_MAX, WALLCLOCK, "stop_ns_max", 0)                                      \
	/* the kernel source; absent with --no-kernel or not permitted */                          \
	X(KERNEL_EVENTS, ROOT, "kernel_events", CORECAP_MK_F_OBJ)                                  \
	/* its files, relative to the run */                                                       \
	X(KERNEL_EVENTS_FILES, KERNEL_EVENTS, "files", CORECAP_MK_F_OBJ)                           \
	/* "kernel/events.bin" */                                                                  \
	X(KERNEL_EVENTS_FILES_EVENTS, KERNEL_EVENTS_FILES, "events", 0)                            \
	/* "kernel/stacks.bin" */                                                                  \
	X(KERNEL_EVENTS_FILES_STACKS, KERNEL_EVENTS_FILES, "stacks", 0)                            \
	/* their format's version (kernel_format.h) */                                             \
	X(KERNEL_EVENTS_FORMAT_VERSION, KERNEL_EVENTS, "format_version", 0)                        \
	/* the tracepoints, an array ("sched:sched_switch", ...) */                                \
	X(KERNEL_EVENTS_TRACEPOINTS, KERNEL_EVENTS, "tracepoints", 0)                              \
	/* "bpf" (the eBPF programs) or "perf" (perf_event_open) */                                \
	X(KERNEL_EVENTS_PRODUCER, KERNEL_EVENTS, "producer", 0)                                    \
	/* "kernel": filtered in the kernel; "reader": by the collector */                         \
	X(KERNEL_EVENTS_FILTER, KERNEL_EVENTS, "filter", 0)                                        \
	/* the CPUs configured */                                                                  \
	X(KERNEL_EVENTS_CPUS, KERNEL_EVENTS, "cpus", 0)                                            \
	/* perf: a CPU's ring; bpf: the one ring */                                                \
	X(KERNEL_EVENTS_RING_BYTES, KERNEL_EVENTS, "ring_bytes", 0)                                \
	/* added to the kernel's stamps: the time namespace's offset */                            \
	X(KERNEL_EVENTS_CLOCK_OFFSET_NS, KERNEL_EVENTS, "clock_offset_ns", 0)                      \
	/* records in events.bin, by type */                                                       \
	X(KERNEL_EVENTS_RECORDS, KERNEL_EVENTS, "records", CORECAP_MK_F_OBJ)                       \
	/* sched_switch */                                                                         \
	X(KERNEL_EVENTS_RECORDS_SWITCH, KERNEL_EVENTS_RECORDS, "switch", 0)                        \
	/* sched_waking */                                                                         \
	X(KERNEL_EVENTS_RECORDS_WAKING, KERNEL_EVENTS_RECORDS, "waking", 0)                        \
	/* futex calls entered */                                                                  \
	X(KERNEL_EVENTS_RECORDS_FUTEX_ENTER, KERNEL_EVENTS_RECORDS, "futex_enter", 0)              \
	/* futex calls returned */                                                                 \
	X(KERNEL_EVENTS_RECORDS_FUTEX_EXIT, KERNEL_EVENTS_RECORDS, "futex_exit", 0)                \
	/* sched_process_fork */                                                                   \
	X(KERNEL_EVENTS_RECORDS_FORK, KERNEL_EVENTS_RECORDS, "fork", 0)                            \
	/* sched_process_exit */                                                                   \
	X(KERNEL_EVENTS_RECORDS_EXIT, KERNEL_EVENTS_RECORDS, "exit", 0)                            \
	/* TRACK records: threads followed */                                                      \
	X(KERNEL_EVENTS_RECORDS_TRACK, KERNEL_EVENTS_RECORDS, "track", 0)                          \
	/* HOLDER records: other processes' threads on a CPU */                                    \
	X(KERNEL_EVENTS_RECORDS_HOLDER, KERNEL_EVENTS_RECORDS, "holder", 0)                        \
	/* records lost */                                                                         \
	X(KERNEL_EVENTS_LOST, KERNEL_EVENTS, "lost", CORECAP_MK_F_OBJ)                             \
	/* in all */                                                                               \
	X(KERNEL_EVENTS_LOST_TOTAL, KERNEL_EVENTS_LOST, "total", 0)                                \
	/* per CPU, an array */                                                                    \
	X(KERNEL_EVENTS_LOST_PER_CPU, KERNEL_EVENTS_LOST, "per_cpu", 0)                            \
	/* nothing lost or cut: else the counts are lower bounds */                                \
	X(KERNEL_EVENTS_COMPLETE, KERNEL_EVENTS, "complete", 0)                                    \
	/* perf: event sets replaced on a CPU; bpf: 0 */                                           \
	X(KERNEL_EVENTS_SET_SWAPS, KERNEL_EVENTS, "set_swaps", 0)                                  \
	/* perf: hits both overlapping sets recorded, kept once */                                 \
	X(KERNEL_EVENTS_DUPLICATES_DROPPED, KERNEL_EVENTS, "duplicates_dropped", 0)                \
	/* user stacks copied with the records */                                                  \
	X(KERNEL_EVENTS_STACKS, KERNEL_EVENTS, "stacks", CORECAP_MK_F_OBJ)                         \
	/* the bytes of stack a copy takes */                                                      \
	X(KERNEL_EVENTS_STACKS_STACK_USER_BYTES, KERNEL_EVENTS_STACKS, "stack_user_bytes", 0)      \
	/* at most this many futex-wait copies a second */                                         \
	X(KERNEL_EVENTS_STACKS_MAX_FUTEX_HZ, KERNEL_EVENTS_STACKS, "max_futex_hz", 0)              \
	/* at most this many switch-out copies a second */                                         \
	X(KERNEL_EVENTS_STACKS_MAX_SWITCH_HZ, KERNEL_EVENTS_STACKS, "max_switch_hz", 0)            \
	/* copies taken */                                                                         \
	X(KERNEL_EVENTS_STACKS_TAKEN, KERNEL_EVENTS_STACKS, "taken", 0)                            \
	/* of them, joined to their event record */                                                \
	X(KERNEL_EVENTS_STACKS_MATCHED, KERNEL_EVENTS_STACKS, "matched", 0)                        \
	/* of them, unwound past the IP */                                                         \
	X(KERNEL_EVENTS_STACKS_UNWOUND, KERNEL_EVENTS_STACKS, "unwound", 0)                        \
	/* of unwound, stopped: the next frame beyond the copy */                                  \
	X(KERNEL_EVENTS_STACKS_TRUNCATED, KERNEL_EVENTS_STACKS, "truncated", 0)                    \
	/* of unwound, stopped: no CFI for an address (JIT, unknown) */                            \
	X(KERNEL_EVENTS_STACKS_NO_CFI, KERNEL_EVENTS_STACKS, "no_cfi", 0)                          \
	/* of them, not unwound at all */                                                          \
	X(KERNEL_EVENTS_STACKS_FAILED, KERNEL_EVENTS_STACKS, "failed", 0)                          \
	/* bpf: copies the kernel could not read */                                                \
	X(KERNEL_EVENTS_STACKS_UNREADABLE, KERNEL_EVENTS_STACKS, "unreadable", 0)                  \
	/* sizes written */                                                                        \
	X(KERNEL_EVENTS_BYTES, KERNEL_EVENTS, "bytes", CORECAP_MK_F_OBJ)                           \
	/* events.bin's */                                                                         \
	X(KERNEL_EVENTS_BYTES_EVENTS, KERNEL_EVENTS_BYTES, "events", 0)                            \
	/* stacks.bin's */                                                                         \
	X(KERNEL_EVENTS_BYTES_STACKS, KERNEL_EVENTS_BYTES, "stacks", 0)                            \
	/* the raw copies', before they were unwound and removed */                                \
	X(KERNEL_EVENTS_BYTES_RAW_STACKS, KERNEL_EVENTS_BYTES, "raw_stacks", 0)                    \
	/* the shim's counters (stats-begin, stats-end); absent without it */                      \
	X(STATS, ROOT, "stats", CORECAP_MK_F_OBJ)                                                  \
	/* what was read: /proc/PID/fd/N */                                                        \
	X(STATS_FILE, STATS, "file", 0)                                                            \
	/* a copy's size */                                                                        \
	X(STATS_BYTES, STATS, "bytes", 0)                                                          \
	/* copies written (2: both) */                                                             \
	X(STATS_COPIES, STATS, "copies", 0)                                                        \
	/* copies abandoned: the shim kept changing them */                                        \
	X(STATS_TORN, STATS, "torn", 0)                                                            \
	/* gperftools' CPU profile; absent without libprofiler */                                  \
	X(CPU_PROF, ROOT, "cpu_prof", CORECAP_MK_F_OBJ)                                            \
	/* the signal that toggles it */                                                           \
	X(CPU_PROF_SIGNAL, CPU_PROF, "signal", 0)                                                  \
	/* the daemon's CPUPROFILE, absolute */                                                    \
	X(CPU_PROF_CPUPROFILE, CPU_PROF, "cpuprofile", 0)                                          \
	/* cpu.prof's size */                                                                      \
	X(CPU_PROF_BYTES, CPU_PROF, "bytes", 0)                                                    \
	/* maps, buildids.tsv and vdso.so */                                                       \
	X(MAPS, ROOT, "maps", CORECAP_MK_F_OBJ)                                                    \
	/* distinct mapped files */                                                                \
	X(MAPS_FILES, MAPS, "files", 0)                                                            \
	/* of them, with a build-id */                                                             \
	X(MAPS_BUILD_IDS, MAPS, "build_ids", 0)                                                    \
	/* vdso.so's size; 0 when not saved */                                                     \
	X(MAPS_VDSO_BYTES, MAPS, "vdso_bytes", 0)                                                  \
	/* the benchmark; null without one */                                                      \
	X(BENCHMARK, ROOT, "benchmark", CORECAP_MK_F_OBJ)                                          \
	/* its arguments, an array of strings */                                                   \
	X(BENCHMARK_COMMAND, BENCHMARK, "command", 0)                                              \
	/* its exit status, 128+N killed by signal N; null if it never ended */                    \
	X(BENCHMARK_EXIT_STATUS, BENCHMARK, "exit_status", 0)                                      \
	/* N when signal N killed it, else null */                                                 \
	X(BENCHMARK_EXIT_SIGNAL, BENCHMARK, "exit_signal", 0)                                      \
	/* why it could not be started (strerror), else null */                                    \
	X(BENCHMARK_START_ERROR, BENCHMARK, "start_error", 0)                                      \
	/* bench.out's size */                                                                     \
	X(BENCHMARK_OUTPUT_BYTES, BENCHMARK, "output_bytes", 0)                                    \
	/* "rados" (rados bench, refbench), "fio", or null */                                      \
	X(BENCHMARK_PARSER, BENCHMARK, "parser", 0)                                                \
	/* the figures it printed (workload/bench_parse.c) */                                      \
	X(BENCHMARK_SUMMARY, BENCHMARK, "summary", CORECAP_MK_F_OBJ | CORECAP_MK_F_OPEN)           \
	/* its run time, s */                                                                      \
	X(BENCHMARK_SUMMARY_TOTAL_TIME_S, BENCHMARK_SUMMARY, "total_time_s", 0)                    \
	/* operations made */                                                                      \
	X(BENCHMARK_SUMMARY_OPS, BENCHMARK_SUMMARY, "ops", 0)                                      \
	/* an operation's size */                                                                  \
	X(BENCHMARK_SUMMARY_OP_BYTES, BENCHMARK_SUMMARY, "op_bytes", 0)                            \
	/* an object's size */                                                                     \
	X(BENCHMARK_SUMMARY_OBJECT_BYTES, BENCHMARK_SUMMARY, "object_bytes", 0)                    \
	/* bandwidth, MB (2^20 bytes) a second */                                                  \
	X(BENCHMARK_SUMMARY_BANDWIDTH_MB_S, BENCHMARK_SUMMARY, "bandwidth_mb_s", 0)                \
	/* its standard deviation */                                                               \
	X(BENCHMARK_SUMMARY_BANDWIDTH_STDDEV_MB_S, BENCHMARK_SUMMARY, "bandwidth_stddev_mb_s", 0)  \
	/* its largest */                                                                          \
	X(BENCHMARK_SUMMARY_BANDWIDTH_MAX_MB_S, BENCHMARK_SUMMARY, "bandwidth_max_mb_s", 0)        \
	/* its smallest */                                                                         \
	X(BENCHMARK_SUMMARY_BANDWIDTH_MIN_MB_S, BENCHMARK_SUMMARY, "bandwidth_min_mb_s", 0)        \
	/* operations a second, the mean */                                                        \
	X(BENCHMARK_SUMMARY_IOPS_AVG, BENCHMARK_SUMMARY, "iops_avg", 0)                            \
	/* its standard deviation */                                                               \
	X(BENCHMARK_SUMMARY_IOPS_STDDEV, BENCHMARK_SUMMARY, "iops_stddev", 0)                      \
	/* its largest */                                                                          \
	X(BENCHMARK_SUMMARY_IOPS_MAX, BENCHMARK_SUMMARY, "iops_max", 0)                            \
	/* its smallest */                                                                         \
	X(BENCHMARK_SUMMARY_IOPS_MIN, BENCHMARK_SUMMARY, "iops_min", 0)                            \
	/* an operation's latency, the mean, s */                                                  \
	X(BENCHMARK_SUMMARY_LAT_AVG_S, BENCHMARK_SUMMARY, "lat_avg_s", 0)                          \
	/* its standard deviation */                                                               \
	X(BENCHMARK_SUMMARY_LAT_STDDEV_S, BENCHMARK_SUMMARY, "lat_stddev_s", 0)                    \
	/* its largest */                                                                          \
	X(BENCHMARK_SUMMARY_LAT_MAX_S, BENCHMARK_SUMMARY, "lat_max_s", 0)                          \
	/* its smallest */                                                                         \
	X(BENCHMARK_SUMMARY_LAT_MIN_S, BENCHMARK_SUMMARY, "lat_min_s", 0)                          \
	/* its median */                                                                           \
	X(BENCHMARK_SUMMARY_LAT_P50_S, BENCHMARK_SUMMARY, "lat_p50_s", 0)                          \
	/* its 95th percentile */                                                                  \
	X(BENCHMARK_SUMMARY_LAT_P95_S, BENCHMARK_SUMMARY, "lat_p95_s", 0)                          \
	/* its 99th percentile */                                                                  \
	X(BENCHMARK_SUMMARY_LAT_P99_S, BENCHMARK_SUMMARY, "lat_p99_s", 0)                          \
	/* its 99.9th percentile */                                                                \
	X(BENCHMARK_SUMMARY_LAT_P999_S, BENCHMARK_SUMMARY, "lat_p999_s", 0)                        \
	/* the stop watchdog (record/stop_watchdog.h), a single daemon's record */                 \
	X(WATCHDOG, ROOT, "watchdog", CORECAP_MK_F_OBJ)                                            \
	/* SIGCONTs it sent the stopped collector */                                               \
	X(WATCHDOG_COLLECTOR_CONTINUED, WATCHDOG, "collector_continued", 0)                        \
	/* the longest a daemon thread waited for it, ns */                                        \
	X(WATCHDOG_LONGEST_HOLD_NS, WATCHDOG, "longest_hold_ns", 0)                                \
	/* several daemons (version 3): one object each */                                         \
	X(DAEMONS, ROOT, "daemons", CORECAP_MK_F_ARRAY)                                            \
	/* its PID: its run is daemons/<pid> */                                                    \
	X(DAEMONS_PID, DAEMONS, "pid", 0)                                                          \
	/* its name */                                                                             \
	X(DAEMONS_COMM, DAEMONS, "comm", 0)                                                        \
	/* "daemons/<pid>", relative */                                                            \
	X(DAEMONS_DIR, DAEMONS, "dir", 0)                                                          \
	/* "complete", "partial", or "missing": no run was written */                              \
	X(DAEMONS_STATUS, DAEMONS, "status", 0)                                                    \
	/* why its run is partial; null when complete */                                           \
	X(DAEMONS_PARTIAL_REASON, DAEMONS, "partial_reason", 0)                                    \
	/* its child collector's exit status; null while it runs */                                \
	X(DAEMONS_COLLECTOR_EXIT_STATUS, DAEMONS, "collector_exit_status", 0)                      \
	/* --ceph-osds: its admin socket */                                                        \
	X(DAEMONS_CEPH_ASOK, DAEMONS, "ceph_asok", 0)                                              \
	/* --ceph-osds: N of osd.N */                                                              \
	X(DAEMONS_CEPH_OSD_ID, DAEMONS, "ceph_osd_id", 0)                                          \
	/* several hosts (version 4): one object each */                                           \
	X(HOSTS, ROOT, "hosts", CORECAP_MK_F_ARRAY)                                                \
	/* its name in --hosts FILE: its run is hosts/<name> */                                    \
	X(HOSTS_NAME, HOSTS, "name", 0)                                                            \
	/* how the remote shell reaches it */                                                      \
	X(HOSTS_REACH, HOSTS, "reach", 0)                                                          \
	/* the daemon's PID there (or comm) */                                                     \
	X(HOSTS_PID, HOSTS, "pid", 0)                                                              \
	/* the daemon's name there (or pid) */                                                     \
	X(HOSTS_COMM, HOSTS, "comm", 0)                                                            \
	/* several daemons there: their PIDs (its run is one of several daemons) */                \
	X(HOSTS_PIDS, HOSTS, "pids", 0)                                                            \
	/* its OSDs, found there as record --ceph-osds=DIR does ("": the default) */               \
	X(HOSTS_CEPH_OSDS, HOSTS, "ceph_osds", 0)                                                  \
	/* "complete", "partial", or "failed": no run came back */                                 \
	X(HOSTS_STATUS, HOSTS, "status", 0)                                                        \
	/* why; null when complete */                                                              \
	X(HOSTS_PARTIAL_REASON, HOSTS, "partial_reason", 0)                                        \
	/* "hosts/<name>", relative */                                                             \
	X(HOSTS_DIR, HOSTS, "dir", 0)                                                              \
	/* "hosts/<name>.log": what its commands said on stderr */                                 \
	X(HOSTS_LOG, HOSTS, "log", 0)                                                              \
	/* its corecap record's exit status */                                                     \
	X(HOSTS_COLLECTOR_EXIT_STATUS, HOSTS, "collector_exit_status", 0)                          \
	/* its clock against the recording host's; absent if unmeasured */                         \
	X(HOSTS_CLOCK, HOSTS, "clock", CORECAP_MK_F_OBJ)                                           \
	/* at the window's start */                                                                \
	X(HOSTS_CLOCK_START, HOSTS_CLOCK, "start", CORECAP_MK_F_OBJ)                               \
	/* the host's time minus the recording host's, ns */                                       \
	X(HOSTS_CLOCK_START_OFFSET_NS, HOSTS_CLOCK_START, "offset_ns", 0)                          \
	/* within this, ns */                                                                      \
	X(HOSTS_CLOCK_START_BOUND_NS, HOSTS_CLOCK_START, "bound_ns", 0)                            \
	/* the shortest round trip, ns */                                                          \
	X(HOSTS_CLOCK_START_RTT_MIN_NS, HOSTS_CLOCK_START, "rtt_min_ns", 0)                        \
	/* the recording host's time of the exchange it rests on */                                \
	X(HOSTS_CLOCK_START_AT_NS, HOSTS_CLOCK_START, "at_ns", 0)                                  \
	/* the exchanges used */                                                                   \
	X(HOSTS_CLOCK_START_PINGS_USED, HOSTS_CLOCK_START, "pings_used", 0)                        \
	/* at the window's end */                                                                  \
	X(HOSTS_CLOCK_END, HOSTS_CLOCK, "end", CORECAP_MK_F_OBJ)                                   \
	/* as start's */                                                                           \
	X(HOSTS_CLOCK_END_OFFSET_NS, HOSTS_CLOCK_END, "offset_ns", 0)                              \
	/* as start's */                                                                           \
	X(HOSTS_CLOCK_END_BOUND_NS, HOSTS_CLOCK_END, "bound_ns", 0)                                \
	/* as start's */                                                                           \
	X(HOSTS_CLOCK_END_RTT_MIN_NS, HOSTS_CLOCK_END, "rtt_min_ns", 0)                            \
	/* as start's */                                                                           \
	X(HOSTS_CLOCK_END_AT_NS, HOSTS_CLOCK_END, "at_ns", 0)                                      \
	/* as start's */                                                                           \
	X(HOSTS_CLOCK_END_PINGS_USED, HOSTS_CLOCK_END, "pings_used", 0)                            \
	/* the rate between start and end, ppm */                                                  \
	X(HOSTS_CLOCK_DRIFT_PPM, HOSTS_CLOCK, "drift_ppm", 0)                                      \
	/* within this, ppm */                                                                     \
	X(HOSTS_CLOCK_DRIFT_BOUND_PPM, HOSTS_CLOCK, "drift_bound_ppm", 0)                          \
	/* how its LTTng trace came: "relayd" or "stream"; absent without one */                   \
	X(HOSTS_TRACE_VIA, HOSTS, "trace_via", 0)                                                  \
	/* why "stream" when the relayd was asked for; absent otherwise */                         \
	X(HOSTS_TRACE_VIA_REASON, HOSTS, "trace_via_reason", 0)                                    \
	/* the recording host's lttng-relayd the hosts streamed to; absent without one */          \
	X(RELAYD, ROOT, "relayd", CORECAP_MK_F_OBJ)                                                \
	/* "started" (by this record, and stopped) or "reused" (it ran already; left running) */   \
	X(RELAYD_HOW, RELAYD, "how", 0)                                                            \
	/* its PID */                                                                              \
	X(RELAYD_PID, RELAYD, "pid", 0)                                                            \
	/* its control port */                                                                     \
	X(RELAYD_CONTROL_PORT, RELAYD, "control_port", 0)                                          \
	/* its data port */                                                                        \
	X(RELAYD_DATA_PORT, RELAYD, "data_port", 0)                                                \
	/* "reused": its output directory, the traces copied out of it */                          \
	X(RELAYD_OUTPUT, RELAYD, "output", 0)                                                      \
	/* "started": its user CPU time, s, once it ended */                                       \
	X(RELAYD_CPU_USER_S, RELAYD, "cpu_user_s", 0)                                              \
	/* "started": its system CPU time, s, once it ended */                                     \
	X(RELAYD_CPU_SYS_S, RELAYD, "cpu_sys_s", 0)

#define CORECAP_MK_ENUM_(id, parent, name, flags) CORECAP_MK_##id,
#define CORECAP_MK_DEF_(id, parent, name, flags)                                                   \
	[CORECAP_MK_##id] = {name, CORECAP_MK_##parent, flags},

enum corecap_manifest_key {
	CORECAP_MK_ROOT, /* the document: the parent of the top-level keys */
	CORECAP_MANIFEST_KEY_LIST(CORECAP_MK_ENUM_) CORECAP_MK_COUNT,
};

struct corecap_manifest_key_def {
	const char *name;		  /* the key as written: "daemon_cpus" */
	enum corecap_manifest_key parent; /* the object it is in */
	unsigned flags;			  /* CORECAP_MK_F_* */
};

/* Every key (index: enum corecap_manifest_key; entry 0 the document); *n gets their count. */
static inline const struct corecap_manifest_key_def *corecap_manifest_keys(size_t *n)
{
	static const struct corecap_manifest_key_def keys[CORECAP_MK_COUNT] = {
		[CORECAP_MK_ROOT] = {"", CORECAP_MK_ROOT, CORECAP_MK_F_OBJ},
		CORECAP_MANIFEST_KEY_LIST(CORECAP_MK_DEF_)};

	*n = CORECAP_MK_COUNT;
	return keys;
}

/* A key's name as written in its object: corecap_mk(CORECAP_MK_MACHINE_DAEMON_CPUS) is
 * "daemon_cpus". */
static inline const char *corecap_mk(enum corecap_manifest_key k)
{
	size_t n;

	return corecap_manifest_keys(&n)[k].name;
}

/*
 * A key's path from the document, as messages and docs/run-directory.md
 * spell it ("machine.daemon_cpus", "devices[].limit.file"), into buf
 * (truncated to size - 1 bytes); returns buf.
 */
static inline char *corecap_manifest_key_path(enum corecap_manifest_key k, char *buf, size_t size)
{
	const struct corecap_manifest_key_def *keys;
	enum corecap_manifest_key chain[8];
	size_t n, at = 0, depth = 0;

	keys = corecap_manifest_keys(&n);
	for (; k != CORECAP_MK_ROOT && depth < sizeof(chain) / sizeof(chain[0]); k = keys[k].parent)
		chain[depth++] = k;
	if (size)
		buf[0] = '\0';
	while (depth--) {
		const struct corecap_manifest_key_def *d = &keys[chain[depth]];
		const char *sep = d->parent == CORECAP_MK_ROOT		       ? ""
				  : keys[d->parent].flags & CORECAP_MK_F_ARRAY ? "[]."
									       : ".";

		for (const char *s = sep; *s && at + 1 < size; s++)
			buf[at++] = *s;
		for (const char *s = d->name; *s && at + 1 < size; s++)
			buf[at++] = *s;
		if (size)
			buf[at] = '\0';
	}
	return buf;
}

/* The key whose path is path ("devices[].limit.file"), or CORECAP_MK_ROOT: none. */
static inline enum corecap_manifest_key corecap_manifest_key_of_path(const char *path)
{
	char buf[256];

	for (int k = 1; k < CORECAP_MK_COUNT; k++)
		if (strcmp(corecap_manifest_key_path((enum corecap_manifest_key)k, buf,
						     sizeof(buf)),
			   path) == 0)
			return (enum corecap_manifest_key)k;
	return CORECAP_MK_ROOT;
}

/* Whether an unlisted key may sit in a CORECAP_MK_F_OPEN object: lat_p<digits>_s. */
static inline bool corecap_manifest_key_open_ok(const char *name)
{
	size_t len = strlen(name);

	if (strncmp(name, "lat_p", 5) != 0 || len < 8 || strcmp(name + len - 2, "_s") != 0)
		return false;
	for (size_t i = 5; i < len - 2; i++)
		if (name[i] < '0' || name[i] > '9')
			return false;
	return true;
}

#endif /* CORECAP_MANIFEST_KEYS_H */
