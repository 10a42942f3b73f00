/*
 * The kernel source's perf_event_open(2) producer (kernel_events.h, "How"):
 * the tracepoints' formats, one ring per CPU with its event sets and their
 * tid filters, the drain of a CPU's ring into the run's records, the stack
 * periods, and the on-CPU stack sampler (eBPF's too).
 */
#ifndef CORECAP_COLLECTOR_KERNEL_PERF_H
#define CORECAP_COLLECTOR_KERNEL_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct corecap_kernel_events;

/* Loads k->fmt[] and k->fields[] from tracefs; -errno with why. */
int kernel_perf_formats(struct corecap_kernel_events *k, char *why, size_t why_size);
bool kernel_cpu_online(int cpu);
/* A CPU's ring bytes: CORECAP_KERNEL_RING_KB, else the default. */
size_t kernel_perf_ring_bytes(void);
/* CPU cpu's ring, owned by a dummy event; -errno with why. */
int kernel_perf_open_ring(struct corecap_kernel_events *k, int cpu, char *why, size_t why_size);
/* A new event set on every online CPU for the current tids, swapped in. */
int kernel_perf_open_sets(struct corecap_kernel_events *k, bool enabled, char *why,
			  size_t why_size);
/* Closes every CPU's events and ring (idempotent). */
void kernel_perf_close_cpus(struct corecap_kernel_events *k);
/* Reads CPU cpu's ring into the output buffer. */
void kernel_perf_drain_cpu(struct corecap_kernel_events *k, int cpu);
void kernel_perf_adjust_periods(struct corecap_kernel_events *k, uint64_t interval_ns);
/* The on-CPU stack sampler at k->oncpu_hz (perf or eBPF); warns and sets
 * oncpu_hz to 0 when it cannot start. */
void kernel_start_oncpu(struct corecap_kernel_events *k);

#endif
