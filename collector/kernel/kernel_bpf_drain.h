/*
 * The kernel source's eBPF producer, user-space half (kernel_events.h, "Or"):
 * loading it where `via` lets it, the drain of its one ring (kernel_bpf.h)
 * rewritten into the run's records, sorted by CPU and time per pass, its
 * losses as LOST records, and its stack periods.
 */
#ifndef CORECAP_COLLECTOR_KERNEL_BPF_DRAIN_H
#define CORECAP_COLLECTOR_KERNEL_BPF_DRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "kernel_events.h"

/* 0 with k->bpf set, or left NULL for perf under AUTO; -errno with why
 * when eBPF was required. */
int kernel_open_bpf(struct corecap_kernel_events *k, enum corecap_kernel_via via, char *why,
		    size_t why_size);
/* One drain pass of the ring into the output buffer. */
void kernel_drain_bpf(struct corecap_kernel_events *k);
/* The wakings the programs still hold, into the output buffer: once,
 * after their detach and the last drain. */
void kernel_drain_bpf_held(struct corecap_kernel_events *k);
/* The programs' stack periods and burst bounds (interval_ns 0: the initial ones). */
void kernel_adjust_bpf(struct corecap_kernel_events *k, uint64_t interval_ns);

#endif
