/*
 * The kernel source's user-stack copies: their rate bounds (a period, every
 * Nth futex wait or switch-out, adapted every ADJUST_NS), their storage in
 * RUN/kernel/stacks.raw while the window lasts, and their unwinding after
 * it into stacks.bin and wall.samples (corecap_kernel_events_unwind,
 * kernel_unwind.h).
 */
#ifndef CORECAP_COLLECTOR_KERNEL_STACKS_H
#define CORECAP_COLLECTOR_KERNEL_STACKS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel_unwind.h"

struct corecap_kernel_events;

uint64_t kernel_online_cpus(const struct corecap_kernel_events *k);
/* A burst's bound: stacks of a kind per CPU in one ADJUST_NS interval. */
uint64_t kernel_burst_limit(const struct corecap_kernel_events *k, int kind);
/* The next stack period of a kind (STACK_*, kernel_state.h). */
uint64_t kernel_next_period(uint64_t events, uint64_t interval_ns, uint64_t share, int kind,
			    uint64_t old);
/* A copy into stacks.raw; its ref is the last of k->stacks. False when not kept. */
bool kernel_store_stack(struct corecap_kernel_events *k, int kind, int32_t tid, uint32_t cpu,
			uint64_t time_ns, const uint64_t regs[CORECAP_KUNWIND_NREGS],
			const unsigned char *stack, uint64_t stack_size, uint64_t dyn_size);

/* One more sample of the on-CPU or off-CPU copy k->stacks[idx] at
 * time_ns, pointing at the same bytes. False when not kept. */
bool kernel_repeat_stack(struct corecap_kernel_events *k, size_t idx, uint64_t time_ns);

#endif
