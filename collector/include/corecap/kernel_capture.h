/*
 * struct corecap_kernel_capture: the kernel events of one running process
 * for one interval at a time, for a live view (`corecap stat --kernel`).
 * Each interval is a run directory holding only kernel/ (events.bin and
 * stacks.bin, common/include/corecap/kernel_format.h), made by the same
 * code as `corecap record`'s kernel source (collector/kernel/kernel_events.h)
 * inside a temporary directory that the capture creates and removes.
 *
 * Guarantees: the process is only observed (perf events), never stopped
 * or signalled; an interval's files stay until the next interval or
 * close, which removes them and the temporary directory; an interval
 * interrupted through `stop` ends early, its files removed.
 */
#ifndef CORECAP_KERNEL_CAPTURE_H
#define CORECAP_KERNEL_CAPTURE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct corecap_kernel_capture;

/*
 * Checks that this machine lets us record pid's kernel events (root or
 * CAP_PERFMON, tracefs) and makes the temporary directory (under $TMPDIR,
 * else /tmp). 0, or a negative errno with one sentence in why naming the
 * cause and its remedy.
 */
int corecap_kernel_capture_open(struct corecap_kernel_capture **out, pid_t pid, char *why,
				size_t why_size);
/*
 * Records one interval of duration_ns (ended early when *stop becomes
 * non-zero: -EINTR, nothing left) into a fresh run directory, after
 * removing the previous one. On success *run_dir names it (valid until the
 * next call or close) and [*ws_ns, *we_ns] is its window (CLOCK_MONOTONIC).
 * A negative errno with why otherwise.
 */
int corecap_kernel_capture_interval(struct corecap_kernel_capture *c, uint64_t duration_ns,
				    const volatile sig_atomic_t *stop, const char **run_dir,
				    uint64_t *ws_ns, uint64_t *we_ns, char *why, size_t why_size);
/* Removes the last interval's files and the temporary directory; NULL is fine. */
void corecap_kernel_capture_close(struct corecap_kernel_capture *c);

#endif
