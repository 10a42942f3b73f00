/*
 * corecap/manifest_keys.h: the names of manifest.json's keys, written once.
 *
 * The collector writes RUN/manifest.json (collector/record/manifest.c, the
 * benchmark's figures from collector/workload/bench_parse.c); the analysis reads it
 * (analysis/read/manifest.c, read/multi_run.c) and so does a several-daemon
 * record reading each daemon's run (collector/record/record_multi.c). Every key
 * either side names comes from CORECAP_MANIFEST_KEY_LIST below, nested keys
 * included, so a name cannot drift between the writer and a reader; a test
 * (e2e.format_manifest_keys) checks that every key of a recorded manifest is
 * in the list and that the writer and readers spell none of them as a string.
 * docs/run-directory.md says what each key means.
 *
 * X(ID, PARENT, "name", flags): CORECAP_MK_<ID> names the key "name" inside
 * the object CORECAP_MK_<PARENT> (ROOT: the document itself). ID is the
 * key's path in capitals, "." and "[]" made "_": machine.daemon_cpus is
 * MACHINE_DAEMON_CPUS, devices[].limit.file DEVICES_LIMIT_FILE. The list
 * is in the order the collector writes the keys. Flags:
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
	X(FORMAT, ROOT, "format", 0)                                                               \
	X(VERSION, ROOT, "version", 0)                                                             \
	X(TOOL_VERSION, ROOT, "tool_version", 0)                                                   \
	X(STATUS, ROOT, "status", 0)                                                               \
	X(PARTIAL_REASON, ROOT, "partial_reason", 0)                                               \
	X(PID, ROOT, "pid", 0)                                                                     \
	X(COMM, ROOT, "comm", 0)                                                                   \
	X(CMDLINE, ROOT, "cmdline", 0)                                                             \
	X(EXE, ROOT, "exe", 0)                                                                     \
	X(UID, ROOT, "uid", 0)                                                                     \
	X(HOST, ROOT, "host", 0)                                                                   \
	X(NPROC, ROOT, "nproc", 0)                                                                 \
	X(KERNEL, ROOT, "kernel", 0)                                                               \
	X(CLK_TCK, ROOT, "clk_tck", 0)                                                             \
	X(CLOCK, ROOT, "clock", 0)                                                                 \
	X(WINDOW, ROOT, "window", CORECAP_MK_F_OBJ) /* absent before the window started */         \
	X(WINDOW_START_NS, WINDOW, "start_ns", 0)                                                  \
	X(WINDOW_END_NS, WINDOW, "end_ns", 0)                                                      \
	X(WINDOW_DURATION_S, WINDOW, "duration_s", 0)                                              \
	X(WINDOW_START_REALTIME, WINDOW, "start_realtime", 0)                                      \
	X(WINDOW_REALTIME_OFFSET_NS, WINDOW, "realtime_offset_ns", 0)                              \
	X(RECORD_COMMAND, ROOT, "record_command", 0)                                               \
	X(COLLECTOR, ROOT, "collector", CORECAP_MK_F_OBJ)                                          \
	X(COLLECTOR_PID, COLLECTOR, "pid", 0)                                                      \
	X(COLLECTOR_CPUS, COLLECTOR, "cpus", 0)                                                    \
	X(COLLECTOR_CPU_USER_S, COLLECTOR, "cpu_user_s", 0)                                        \
	X(COLLECTOR_CPU_SYS_S, COLLECTOR, "cpu_sys_s", 0)                                          \
	X(MACHINE, ROOT, "machine", CORECAP_MK_F_OBJ)                                              \
	X(MACHINE_BUSY_CPU_S, MACHINE, "busy_cpu_s", 0)                                            \
	X(MACHINE_STEAL_CPU_S, MACHINE, "steal_cpu_s", 0)                                          \
	X(MACHINE_BENCH_CPU_S, MACHINE, "bench_cpu_s", 0)                                          \
	X(MACHINE_WAKE_NS, MACHINE, "wake_ns", 0)                                                  \
	X(MACHINE_DAEMON_CPUS, MACHINE, "daemon_cpus", 0)                                          \
	X(MACHINE_DAEMON_CPU_QUOTA_US, MACHINE, "daemon_cpu_quota_us", 0)                          \
	X(MACHINE_DAEMON_CPU_PERIOD_US, MACHINE, "daemon_cpu_period_us", 0)                        \
	X(MACHINE_DAEMON_CPU_QUOTA_CGROUP, MACHINE, "daemon_cpu_quota_cgroup", 0)                  \
	X(MACHINE_DAEMON_CPU_QUOTA_FILE, MACHINE, "daemon_cpu_quota_file", 0)                      \
	X(SOURCES, ROOT, "sources", CORECAP_MK_F_OBJ)                                              \
	X(SOURCES_TRACE, SOURCES, "trace", 0)                                                      \
	X(SOURCES_THREADS, SOURCES, "threads", 0)                                                  \
	X(SOURCES_STATS, SOURCES, "stats", 0)                                                      \
	X(SOURCES_MAPS, SOURCES, "maps", 0)                                                        \
	X(SOURCES_BUILDIDS, SOURCES, "buildids", 0)                                                \
	X(SOURCES_WALL, SOURCES, "wall", 0)                                                        \
	X(SOURCES_CPU_PROF, SOURCES, "cpu_prof", 0)                                                \
	X(SOURCES_BENCH, SOURCES, "bench", 0)                                                      \
	X(SOURCES_KERNEL, SOURCES, "kernel", 0)                                                    \
	X(DEVICES, ROOT, "devices", CORECAP_MK_F_ARRAY)                                            \
	X(DEVICES_NAME, DEVICES, "name", 0)                                                        \
	X(DEVICES_MAJOR, DEVICES, "major", 0)                                                      \
	X(DEVICES_MINOR, DEVICES, "minor", 0)                                                      \
	X(DEVICES_READS, DEVICES, "reads", 0)                                                      \
	X(DEVICES_WRITES, DEVICES, "writes", 0)                                                    \
	X(DEVICES_READ_BYTES, DEVICES, "read_bytes", 0)                                            \
	X(DEVICES_WRITE_BYTES, DEVICES, "write_bytes", 0)                                          \
	X(DEVICES_BUSY_MS, DEVICES, "busy_ms", 0)                                                  \
	X(DEVICES_QUEUE_MS, DEVICES, "queue_ms", 0)                                                \
	X(DEVICES_LIMIT, DEVICES, "limit", CORECAP_MK_F_OBJ)                                       \
	X(DEVICES_LIMIT_FILE, DEVICES_LIMIT, "file", 0)                                            \
	X(DEVICES_LIMIT_CGROUP, DEVICES_LIMIT, "cgroup", 0)                                        \
	X(DEVICES_LIMIT_READ_IOPS, DEVICES_LIMIT, "read_iops", 0)                                  \
	X(DEVICES_LIMIT_WRITE_IOPS, DEVICES_LIMIT, "write_iops", 0)                                \
	X(DEVICES_LIMIT_READ_BPS, DEVICES_LIMIT, "read_bps", 0)                                    \
	X(DEVICES_LIMIT_WRITE_BPS, DEVICES_LIMIT, "write_bps", 0)                                  \
	X(DEVICES_LIMIT_CGROUP_READS, DEVICES_LIMIT, "cgroup_reads", 0)                            \
	X(DEVICES_LIMIT_CGROUP_WRITES, DEVICES_LIMIT, "cgroup_writes", 0)                          \
	X(DEVICES_LIMIT_CGROUP_READ_BYTES, DEVICES_LIMIT, "cgroup_read_bytes", 0)                  \
	X(DEVICES_LIMIT_CGROUP_WRITE_BYTES, DEVICES_LIMIT, "cgroup_write_bytes", 0)                \
	X(LTTNG, ROOT, "lttng", CORECAP_MK_F_OBJ)                                                  \
	X(LTTNG_SESSION, LTTNG, "session", 0)                                                      \
	X(LTTNG_EVENTS, LTTNG, "events", 0)                                                        \
	X(LTTNG_CONTEXTS, LTTNG, "contexts", 0)                                                    \
	X(LTTNG_CHANNEL, LTTNG, "channel", 0)                                                      \
	X(LTTNG_BUFFERS, LTTNG, "buffers", 0)                                                      \
	X(LTTNG_SUBBUF_BYTES, LTTNG, "subbuf_bytes", 0)                                            \
	X(LTTNG_NUM_SUBBUF, LTTNG, "num_subbuf", 0)                                                \
	X(LTTNG_TARGET_REGISTERED, LTTNG, "target_registered", 0)                                  \
	X(LTTNG_TARGET_HAS_PROBES, LTTNG, "target_has_probes", 0)                                  \
	X(LTTNG_DISCARDED_EVENTS, LTTNG, "discarded_events", 0)                                    \
	X(LTTNG_LOST_PACKETS, LTTNG, "lost_packets", 0)                                            \
	X(LTTNG_STARTED_SESSIOND, LTTNG, "started_sessiond", 0)                                    \
	X(THREADS_HZ, ROOT, "threads_hz", 0)                                                       \
	X(THREADS, ROOT, "threads", CORECAP_MK_F_OBJ)                                              \
	X(THREADS_ROUNDS, THREADS, "rounds", 0)                                                    \
	X(THREADS_ROWS, THREADS, "rows", 0)                                                        \
	X(THREADS_SCHEDSTAT, THREADS, "schedstat", 0)                                              \
	X(WALLCLOCK, ROOT, "wallclock", CORECAP_MK_F_OBJ)                                          \
	X(WALLCLOCK_HZ, WALLCLOCK, "hz", 0)                                                        \
	X(WALLCLOCK_SAMPLER, WALLCLOCK, "sampler", 0)                                              \
	X(WALLCLOCK_TAKEN, WALLCLOCK, "taken", 0)                                                  \
	X(WALLCLOCK_LOST, WALLCLOCK, "lost", 0)                                                    \
	X(WALLCLOCK_FAILED, WALLCLOCK, "failed", 0)                                                \
	X(WALLCLOCK_THREADS, WALLCLOCK, "threads", 0)                                              \
	X(WALLCLOCK_ROUNDS, WALLCLOCK, "rounds", 0)                                                \
	X(WALLCLOCK_SAMPLES, WALLCLOCK, "samples", 0)                                              \
	X(WALLCLOCK_DUE, WALLCLOCK, "due", 0)                                                      \
	X(WALLCLOCK_SKIPPED, WALLCLOCK, "skipped", 0)                                              \
	X(WALLCLOCK_RATIONED, WALLCLOCK, "rationed", 0)                                            \
	X(WALLCLOCK_ABANDONED, WALLCLOCK, "abandoned", 0)                                          \
	X(WALLCLOCK_SKIPPED_ROUND_MAX, WALLCLOCK, "skipped_round_max", 0)                          \
	X(WALLCLOCK_MISSED, WALLCLOCK, "missed", 0)                                                \
	X(WALLCLOCK_LATE_ROUNDS, WALLCLOCK, "late_rounds", 0)                                      \
	X(WALLCLOCK_LOST_ROUNDS, WALLCLOCK, "lost_rounds", 0)                                      \
	X(WALLCLOCK_SLOW_STOPS, WALLCLOCK, "slow_stops", 0)                                        \
	X(WALLCLOCK_UNWIND_ERRORS, WALLCLOCK, "unwind_errors", 0)                                  \
	X(WALLCLOCK_SIGNALS_PASSED, WALLCLOCK, "signals_passed", 0)                                \
	X(WALLCLOCK_LONG_STOPS, WALLCLOCK, "long_stops", 0)                                        \
	X(WALLCLOCK_MAX_THREADS, WALLCLOCK, "max_threads", 0)                                      \
	X(WALLCLOCK_THREADS_COUNTED, WALLCLOCK, "threads_counted", 0)                              \
	X(WALLCLOCK_THREADS_STARVED, WALLCLOCK, "threads_starved", 0)                              \
	X(WALLCLOCK_THREAD_SAMPLES_MIN, WALLCLOCK, "thread_samples_min", 0)                        \
	X(WALLCLOCK_THREAD_SAMPLES_MAX, WALLCLOCK, "thread_samples_max", 0)                        \
	X(WALLCLOCK_THREAD_COVERAGE_MIN_PM, WALLCLOCK, "thread_coverage_min_pm", 0)                \
	X(WALLCLOCK_THREAD_COVERAGE_MAX_PM, WALLCLOCK, "thread_coverage_max_pm", 0)                \
	X(WALLCLOCK_THREAD_STOP_NS_MAX, WALLCLOCK, "thread_stop_ns_max", 0)                        \
	X(WALLCLOCK_HOLD_NS_MAX, WALLCLOCK, "hold_ns_max", 0)                                      \
	X(WALLCLOCK_STOP_BUDGET_NS, WALLCLOCK, "stop_budget_ns", 0)                                \
	X(WALLCLOCK_ROUND_SHARE_PCT, WALLCLOCK, "round_share_pct", 0)                              \
	X(WALLCLOCK_THREAD_STOP_SHARE_PCT, WALLCLOCK, "thread_stop_share_pct", 0)                  \
	X(WALLCLOCK_STOP_NS_MEDIAN, WALLCLOCK, "stop_ns_median", 0)                                \
	X(WALLCLOCK_STOP_NS_P99, WALLCLOCK, "stop_ns_p99", 0)                                      \
	X(WALLCLOCK_STOP_NS_MAX, WALLCLOCK, "stop_ns_max", 0)                                      \
	X(KERNEL_EVENTS, ROOT, "kernel_events", CORECAP_MK_F_OBJ)                                  \
	X(KERNEL_EVENTS_FILES, KERNEL_EVENTS, "files", CORECAP_MK_F_OBJ)                           \
	X(KERNEL_EVENTS_FILES_EVENTS, KERNEL_EVENTS_FILES, "events", 0)                            \
	X(KERNEL_EVENTS_FILES_STACKS, KERNEL_EVENTS_FILES, "stacks", 0)                            \
	X(KERNEL_EVENTS_FORMAT_VERSION, KERNEL_EVENTS, "format_version", 0)                        \
	X(KERNEL_EVENTS_TRACEPOINTS, KERNEL_EVENTS, "tracepoints", 0)                              \
	X(KERNEL_EVENTS_PRODUCER, KERNEL_EVENTS, "producer", 0)                                    \
	X(KERNEL_EVENTS_FILTER, KERNEL_EVENTS, "filter", 0)                                        \
	X(KERNEL_EVENTS_CPUS, KERNEL_EVENTS, "cpus", 0)                                            \
	X(KERNEL_EVENTS_RING_BYTES, KERNEL_EVENTS, "ring_bytes", 0)                                \
	X(KERNEL_EVENTS_CLOCK_OFFSET_NS, KERNEL_EVENTS, "clock_offset_ns", 0)                      \
	X(KERNEL_EVENTS_RECORDS, KERNEL_EVENTS, "records", CORECAP_MK_F_OBJ)                       \
	X(KERNEL_EVENTS_RECORDS_SWITCH, KERNEL_EVENTS_RECORDS, "switch", 0)                        \
	X(KERNEL_EVENTS_RECORDS_WAKING, KERNEL_EVENTS_RECORDS, "waking", 0)                        \
	X(KERNEL_EVENTS_RECORDS_FUTEX_ENTER, KERNEL_EVENTS_RECORDS, "futex_enter", 0)              \
	X(KERNEL_EVENTS_RECORDS_FUTEX_EXIT, KERNEL_EVENTS_RECORDS, "futex_exit", 0)                \
	X(KERNEL_EVENTS_RECORDS_FORK, KERNEL_EVENTS_RECORDS, "fork", 0)                            \
	X(KERNEL_EVENTS_RECORDS_EXIT, KERNEL_EVENTS_RECORDS, "exit", 0)                            \
	X(KERNEL_EVENTS_RECORDS_TRACK, KERNEL_EVENTS_RECORDS, "track", 0)                          \
	X(KERNEL_EVENTS_RECORDS_HOLDER, KERNEL_EVENTS_RECORDS, "holder", 0)                        \
	X(KERNEL_EVENTS_LOST, KERNEL_EVENTS, "lost", CORECAP_MK_F_OBJ)                             \
	X(KERNEL_EVENTS_LOST_TOTAL, KERNEL_EVENTS_LOST, "total", 0)                                \
	X(KERNEL_EVENTS_LOST_PER_CPU, KERNEL_EVENTS_LOST, "per_cpu", 0)                            \
	X(KERNEL_EVENTS_COMPLETE, KERNEL_EVENTS, "complete", 0)                                    \
	X(KERNEL_EVENTS_SET_SWAPS, KERNEL_EVENTS, "set_swaps", 0)                                  \
	X(KERNEL_EVENTS_DUPLICATES_DROPPED, KERNEL_EVENTS, "duplicates_dropped", 0)                \
	X(KERNEL_EVENTS_STACKS, KERNEL_EVENTS, "stacks", CORECAP_MK_F_OBJ)                         \
	X(KERNEL_EVENTS_STACKS_STACK_USER_BYTES, KERNEL_EVENTS_STACKS, "stack_user_bytes", 0)      \
	X(KERNEL_EVENTS_STACKS_MAX_FUTEX_HZ, KERNEL_EVENTS_STACKS, "max_futex_hz", 0)              \
	X(KERNEL_EVENTS_STACKS_MAX_SWITCH_HZ, KERNEL_EVENTS_STACKS, "max_switch_hz", 0)            \
	X(KERNEL_EVENTS_STACKS_TAKEN, KERNEL_EVENTS_STACKS, "taken", 0)                            \
	X(KERNEL_EVENTS_STACKS_MATCHED, KERNEL_EVENTS_STACKS, "matched", 0)                        \
	X(KERNEL_EVENTS_STACKS_UNWOUND, KERNEL_EVENTS_STACKS, "unwound", 0)                        \
	X(KERNEL_EVENTS_STACKS_TRUNCATED, KERNEL_EVENTS_STACKS, "truncated", 0)                    \
	X(KERNEL_EVENTS_STACKS_NO_CFI, KERNEL_EVENTS_STACKS, "no_cfi", 0)                          \
	X(KERNEL_EVENTS_STACKS_FAILED, KERNEL_EVENTS_STACKS, "failed", 0)                          \
	X(KERNEL_EVENTS_STACKS_UNREADABLE, KERNEL_EVENTS_STACKS, "unreadable", 0)                  \
	X(KERNEL_EVENTS_BYTES, KERNEL_EVENTS, "bytes", CORECAP_MK_F_OBJ)                           \
	X(KERNEL_EVENTS_BYTES_EVENTS, KERNEL_EVENTS_BYTES, "events", 0)                            \
	X(KERNEL_EVENTS_BYTES_STACKS, KERNEL_EVENTS_BYTES, "stacks", 0)                            \
	X(KERNEL_EVENTS_BYTES_RAW_STACKS, KERNEL_EVENTS_BYTES, "raw_stacks", 0)                    \
	X(STATS, ROOT, "stats", CORECAP_MK_F_OBJ)                                                  \
	X(STATS_FILE, STATS, "file", 0)                                                            \
	X(STATS_BYTES, STATS, "bytes", 0)                                                          \
	X(STATS_COPIES, STATS, "copies", 0)                                                        \
	X(STATS_TORN, STATS, "torn", 0)                                                            \
	X(CPU_PROF, ROOT, "cpu_prof", CORECAP_MK_F_OBJ)                                            \
	X(CPU_PROF_SIGNAL, CPU_PROF, "signal", 0)                                                  \
	X(CPU_PROF_CPUPROFILE, CPU_PROF, "cpuprofile", 0)                                          \
	X(CPU_PROF_BYTES, CPU_PROF, "bytes", 0)                                                    \
	X(MAPS, ROOT, "maps", CORECAP_MK_F_OBJ)                                                    \
	X(MAPS_FILES, MAPS, "files", 0)                                                            \
	X(MAPS_BUILD_IDS, MAPS, "build_ids", 0)                                                    \
	X(MAPS_VDSO_BYTES, MAPS, "vdso_bytes", 0)                                                  \
	X(BENCHMARK, ROOT, "benchmark", CORECAP_MK_F_OBJ)                                          \
	X(BENCHMARK_COMMAND, BENCHMARK, "command", 0)                                              \
	X(BENCHMARK_EXIT_STATUS, BENCHMARK, "exit_status", 0)                                      \
	X(BENCHMARK_EXIT_SIGNAL, BENCHMARK, "exit_signal", 0)                                      \
	X(BENCHMARK_START_ERROR, BENCHMARK, "start_error", 0)                                      \
	X(BENCHMARK_OUTPUT_BYTES, BENCHMARK, "output_bytes", 0)                                    \
	X(BENCHMARK_PARSER, BENCHMARK, "parser", 0)                                                \
	X(BENCHMARK_SUMMARY, BENCHMARK, "summary", CORECAP_MK_F_OBJ | CORECAP_MK_F_OPEN)           \
	X(BENCHMARK_SUMMARY_TOTAL_TIME_S, BENCHMARK_SUMMARY, "total_time_s", 0)                    \
	X(BENCHMARK_SUMMARY_OPS, BENCHMARK_SUMMARY, "ops", 0)                                      \
	X(BENCHMARK_SUMMARY_OP_BYTES, BENCHMARK_SUMMARY, "op_bytes", 0)                            \
	X(BENCHMARK_SUMMARY_OBJECT_BYTES, BENCHMARK_SUMMARY, "object_bytes", 0)                    \
	X(BENCHMARK_SUMMARY_BANDWIDTH_MB_S, BENCHMARK_SUMMARY, "bandwidth_mb_s", 0)                \
	X(BENCHMARK_SUMMARY_BANDWIDTH_STDDEV_MB_S, BENCHMARK_SUMMARY, "bandwidth_stddev_mb_s", 0)  \
	X(BENCHMARK_SUMMARY_BANDWIDTH_MAX_MB_S, BENCHMARK_SUMMARY, "bandwidth_max_mb_s", 0)        \
	X(BENCHMARK_SUMMARY_BANDWIDTH_MIN_MB_S, BENCHMARK_SUMMARY, "bandwidth_min_mb_s", 0)        \
	X(BENCHMARK_SUMMARY_IOPS_AVG, BENCHMARK_SUMMARY, "iops_avg", 0)                            \
	X(BENCHMARK_SUMMARY_IOPS_STDDEV, BENCHMARK_SUMMARY, "iops_stddev", 0)                      \
	X(BENCHMARK_SUMMARY_IOPS_MAX, BENCHMARK_SUMMARY, "iops_max", 0)                            \
	X(BENCHMARK_SUMMARY_IOPS_MIN, BENCHMARK_SUMMARY, "iops_min", 0)                            \
	X(BENCHMARK_SUMMARY_LAT_AVG_S, BENCHMARK_SUMMARY, "lat_avg_s", 0)                          \
	X(BENCHMARK_SUMMARY_LAT_STDDEV_S, BENCHMARK_SUMMARY, "lat_stddev_s", 0)                    \
	X(BENCHMARK_SUMMARY_LAT_MAX_S, BENCHMARK_SUMMARY, "lat_max_s", 0)                          \
	X(BENCHMARK_SUMMARY_LAT_MIN_S, BENCHMARK_SUMMARY, "lat_min_s", 0)                          \
	X(BENCHMARK_SUMMARY_LAT_P50_S, BENCHMARK_SUMMARY, "lat_p50_s", 0)                          \
	X(BENCHMARK_SUMMARY_LAT_P95_S, BENCHMARK_SUMMARY, "lat_p95_s", 0)                          \
	X(BENCHMARK_SUMMARY_LAT_P99_S, BENCHMARK_SUMMARY, "lat_p99_s", 0)                          \
	X(BENCHMARK_SUMMARY_LAT_P999_S, BENCHMARK_SUMMARY, "lat_p999_s", 0)                        \
	X(WATCHDOG, ROOT, "watchdog", CORECAP_MK_F_OBJ)                                            \
	X(WATCHDOG_COLLECTOR_CONTINUED, WATCHDOG, "collector_continued", 0)                        \
	X(WATCHDOG_LONGEST_HOLD_NS, WATCHDOG, "longest_hold_ns", 0)                                \
	X(DAEMONS, ROOT, "daemons", CORECAP_MK_F_ARRAY) /* several daemons: version 3 */           \
	X(DAEMONS_PID, DAEMONS, "pid", 0)                                                          \
	X(DAEMONS_COMM, DAEMONS, "comm", 0)                                                        \
	X(DAEMONS_DIR, DAEMONS, "dir", 0)                                                          \
	X(DAEMONS_STATUS, DAEMONS, "status", 0)                                                    \
	X(DAEMONS_PARTIAL_REASON, DAEMONS, "partial_reason", 0)                                    \
	X(DAEMONS_COLLECTOR_EXIT_STATUS, DAEMONS, "collector_exit_status", 0)                      \
	X(DAEMONS_CEPH_ASOK, DAEMONS, "ceph_asok", 0)                                              \
	X(DAEMONS_CEPH_OSD_ID, DAEMONS, "ceph_osd_id", 0)                                          \
	X(HOSTS, ROOT, "hosts", CORECAP_MK_F_ARRAY) /* several hosts: version 4 */                 \
	X(HOSTS_NAME, HOSTS, "name", 0)                                                            \
	X(HOSTS_REACH, HOSTS, "reach", 0)                                                          \
	X(HOSTS_PID, HOSTS, "pid", 0)                                                              \
	X(HOSTS_COMM, HOSTS, "comm", 0)                                                            \
	X(HOSTS_STATUS, HOSTS, "status", 0)                                                        \
	X(HOSTS_PARTIAL_REASON, HOSTS, "partial_reason", 0)                                        \
	X(HOSTS_DIR, HOSTS, "dir", 0)                                                              \
	X(HOSTS_LOG, HOSTS, "log", 0)                                                              \
	X(HOSTS_COLLECTOR_EXIT_STATUS, HOSTS, "collector_exit_status", 0)                          \
	X(HOSTS_CLOCK, HOSTS, "clock", CORECAP_MK_F_OBJ)                                           \
	X(HOSTS_CLOCK_START, HOSTS_CLOCK, "start", CORECAP_MK_F_OBJ)                               \
	X(HOSTS_CLOCK_START_OFFSET_NS, HOSTS_CLOCK_START, "offset_ns", 0)                          \
	X(HOSTS_CLOCK_START_BOUND_NS, HOSTS_CLOCK_START, "bound_ns", 0)                            \
	X(HOSTS_CLOCK_START_RTT_MIN_NS, HOSTS_CLOCK_START, "rtt_min_ns", 0)                        \
	X(HOSTS_CLOCK_START_AT_NS, HOSTS_CLOCK_START, "at_ns", 0)                                  \
	X(HOSTS_CLOCK_START_PINGS_USED, HOSTS_CLOCK_START, "pings_used", 0)                        \
	X(HOSTS_CLOCK_END, HOSTS_CLOCK, "end", CORECAP_MK_F_OBJ)                                   \
	X(HOSTS_CLOCK_END_OFFSET_NS, HOSTS_CLOCK_END, "offset_ns", 0)                              \
	X(HOSTS_CLOCK_END_BOUND_NS, HOSTS_CLOCK_END, "bound_ns", 0)                                \
	X(HOSTS_CLOCK_END_RTT_MIN_NS, HOSTS_CLOCK_END, "rtt_min_ns", 0)                            \
	X(HOSTS_CLOCK_END_AT_NS, HOSTS_CLOCK_END, "at_ns", 0)                                      \
	X(HOSTS_CLOCK_END_PINGS_USED, HOSTS_CLOCK_END, "pings_used", 0)                            \
	X(HOSTS_CLOCK_DRIFT_PPM, HOSTS_CLOCK, "drift_ppm", 0)                                      \
	X(HOSTS_CLOCK_DRIFT_BOUND_PPM, HOSTS_CLOCK, "drift_bound_ppm", 0)

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
