/*
 * wake_probe: what waking a sleeping thread on another core costs on this
 * machine, measured by the collector after the window (about 20 ms). The
 * projection charges it to a lock at each hand-off once the lock is
 * saturated (docs/methodology.md, "Projection"): a run on one CPU has no
 * cross-core hand-off to measure, and a run on a VM pays several times a
 * bare machine's.
 */
#ifndef CORECAP_WAKE_PROBE_H
#define CORECAP_WAKE_PROBE_H

/*
 * The median one-way latency, ns, from a FUTEX_WAKE on one CPU to the
 * woken thread running on another, both idle in between (a futex
 * ping-pong of two threads pinned to the first two CPUs the collector may
 * use). < 0 if the machine offers fewer than two CPUs or a thread could
 * not be started or pinned.
 */
double corecap_wake_probe_ns(void);

#endif
