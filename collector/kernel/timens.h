/*
 * timens: a process's time namespace offset for CLOCK_MONOTONIC, from
 * /proc/PID/timens_offsets (time_namespaces(7)). Inside a time namespace
 * clock_gettime(CLOCK_MONOTONIC) reads the kernel's monotonic time plus
 * the namespace's offset, while the kernel's own stamps (perf_event's
 * CLOCK_MONOTONIC, eBPF's bpf_ktime_get_ns) carry none: a collector in a
 * container of its own, or the test hosts of docs/hosts.md, adds its
 * offset to the kernel's stamps so that every time of a run is in one
 * clock.
 */
#ifndef CORECAP_TIMENS_H
#define CORECAP_TIMENS_H

#include <stdint.h>
#include <sys/types.h>

/*
 * The monotonic offset of pid's time namespace (pid 0: this process's)
 * into *off_ns. 0; -ENOENT when the kernel has no time namespaces (no
 * such file: *off_ns is 0, as it is for the initial namespace); -EINVAL
 * for contents that are not the kernel's format; another -errno when the
 * file cannot be read (the process gone, no permission).
 */
int corecap_timens_monotonic_offset(pid_t pid, int64_t *off_ns);

/*
 * The run's clock is the daemon's CLOCK_MONOTONIC, the clock its LTTng
 * events are stamped in. When pid's time namespace has another monotonic
 * offset than this process's, sets corecap_run_clock_shift_ns
 * (mono_clock.h) to the difference, so that every time the collector
 * takes is in the daemon's clock, and says so on stderr; else leaves it 0.
 * Call once, before the first time is taken for the run. 0, or -errno
 * when pid's offset cannot be read (the shift left 0: the same clock
 * assumed, as before time namespaces).
 */
int corecap_run_clock_follow(pid_t pid);

#endif
