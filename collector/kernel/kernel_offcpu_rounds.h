/*
 * The off-CPU stack sampler's rounds on the kernel source's side
 * (kernel_source.c's reader thread, which owns the stack copies): the
 * wait until the next round, at most wait_ms; the round when it is due,
 * its copies stored as the cpu-clock samples' are (kernel_store_stack),
 * so that they are unwound into wall.samples with them. While it waits
 * for a round due within the wait, the reader runs at SCHED_FIFO, so
 * that the round takes its CPU at its due time (kernel_offcpu_rounds.c);
 * kernel_offcpu_poll lowers it again. The iterator itself is
 * kernel_offcpu.h.
 */
#ifndef CORECAP_COLLECTOR_KERNEL_OFFCPU_ROUNDS_H
#define CORECAP_COLLECTOR_KERNEL_OFFCPU_ROUNDS_H

struct corecap_kernel_events;
int kernel_offcpu_wait_ms(struct corecap_kernel_events *k, int wait_ms);
void kernel_offcpu_poll(struct corecap_kernel_events *k);

#endif
