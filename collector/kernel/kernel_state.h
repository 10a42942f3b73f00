/*
 * What the parts of the kernel source (kernel_events.h) share besides
 * struct corecap_kernel_events: a CPU's perf events and ring (struct
 * kernel_cpu), the kinds of stack copies and a copy's reference. Private
 * to collector/kernel/kernel_*.c.
 */
#ifndef CORECAP_COLLECTOR_KERNEL_STATE_H
#define CORECAP_COLLECTOR_KERNEL_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_events.h"

#define ADJUST_NS 50000000ull /* stack sampling periods adapted every 50 ms */

/* Perf events per CPU: one per tracepoint, and the two stack samplers. */
enum { EV_STACK_FUTEX = CORECAP_KTP_N, EV_STACK_SWITCH, EV_N };
/* STACK_CPU: a cpu-clock sample's (no rate bound of its own: the clock is one). */
enum { STACK_FUTEX, STACK_SWITCH, STACK_KINDS, STACK_CPU = STACK_KINDS };

struct kernel_stack_ref {
	uint64_t raw_off; /* in stacks.raw */
	uint64_t event_time_ns;
	uint32_t cpu;
	int32_t tid;
	uint16_t kind; /* CORECAP_KSTACK_FUTEX or _SWITCH */
	bool matched;  /* event_time_ns is that of the record of the same hit */
	bool oncpu;    /* a cpu-clock sample's: unwound into wall.samples */
};

struct kernel_cpu {
	bool online;
	int ring_fd;		/* owns the ring; the tracepoint events write into it */
	int fd[EV_N];		/* the current event set */
	int clock_fd;		/* perf: the cpu-clock sampler (on-CPU stacks), or -1 */
	uint64_t clock_id;	/* its sample id */
	uint64_t id[EV_N];	/* its sample ids */
	uint64_t prev_id[EV_N]; /* the previous set's, whose samples may still be in the ring */
	void *ring;
	size_t ring_bytes;
	uint64_t lost;
	uint64_t period[STACK_KINDS];
	uint64_t seen_in_tick[STACK_KINDS]; /* futex waits, switch-outs since the last adjustment */
	uint64_t taken_in_tick[STACK_KINDS]; /* stack samples since then */
	/* The last plain record and the last unmatched stack of each kind, to
	 * join a stack sample to the record of the same tracepoint hit. */
	struct {
		int32_t tid;
		uint64_t time_ns;
		bool valid;
	} last[STACK_KINDS];
	/* The last sample, for the copies of a hit two overlapping sets recorded;
	 * looked at only from a swap to the end of the drain after it (`check`),
	 * which reads whatever the old set wrote before it was disabled. */
	struct {
		bool check, valid, old;
		int ev;
		uint64_t hash, time_ns;
	} dup;
	struct {
		size_t idx;
		bool valid;
	} pending[STACK_KINDS];
};

#endif
