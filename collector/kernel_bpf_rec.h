/*
 * kernel_bpf_rec.h: the records the kernel source's eBPF programs
 * (collector/kernel_bpf.bpf.c) hand to the collector (collector/
 * kernel_bpf.c) through their BPF ring buffer. Internal to the collector:
 * kernel_events.c turns each into the run directory's own records
 * (corecap/kernel_format.h), as it does perf's samples.
 *
 * Included by the BPF program (types from vmlinux.h) and by C (types from
 * <linux/types.h>); it includes nothing itself.
 */
#ifndef CORECAP_COLLECTOR_KERNEL_BPF_REC_H
#define CORECAP_COLLECTOR_KERNEL_BPF_REC_H

enum kbpf_kind {
	KBPF_SWITCH = 1, /* sched_switch with the target's thread on either side */
	KBPF_WAKING,	 /* sched_waking of the target's thread */
	KBPF_FUTEX_ENTER,
	KBPF_FUTEX_EXIT,
	KBPF_FORK, /* sched_process_fork by the target's thread */
	KBPF_EXIT, /* sched_process_exit of the target's thread */
	KBPF_STACK /* a user-stack copy; struct kbpf_stack */
};

/* kbpf_rec.flags */
#define KBPF_PREV_TARGET    0x1u  /* switch: prev is the target's */
#define KBPF_NEXT_TARGET    0x2u  /* switch: next is the target's */
#define KBPF_PREEMPT	    0x4u  /* switch: prev was preempted */
#define KBPF_IRQ	    0x8u  /* waking: from an interrupt, hard or soft */
#define KBPF_RESULT_UNKNOWN 0x10u /* futex_exit: the call has not returned: no result */
#define KBPF_SAME	    0x40u /* fork: the child is a thread of the target */
#define KBPF_GROUP_DEAD	    0x80u /* exit: the last thread of the process */

/*
 * One event, 80 bytes. tid is the thread at the tracepoint (a switch's
 * prev, a waking's waker). By kind:
 *  switch: a = next tid, b = prev's task state (raw __state), c = prev's
 *          exit_state;
 *  waking: a = the woken tid, b = its CPU;
 *  futex_enter: b = op, c = val, d = uaddr, e = uaddr2, f = utime, g = val3
 *               (tid the caller: the sleeper, or the waker);
 *  futex_exit: flags KBPF_RESULT_UNKNOWN (tid the caller);
 *  fork: a = the child's tid, comm its name;
 *  exit: comm the thread's name.
 */
struct kbpf_rec {
	__u64 time_ns; /* CLOCK_MONOTONIC (bpf_ktime_get_ns) */
	__u32 kind;    /* enum kbpf_kind */
	__u32 cpu;
	__s32 tid;
	__s32 a;
	__u32 b, c;
	__u64 d, e, f;
	__u32 g;
	__u32 flags; /* KBPF_* */
	char comm[16];
};

#define KBPF_NREGS	  17	/* AX BX CX DX SI DI BP SP IP R8-R15: kernel_unwind.h's order */
#define KBPF_STACK_BYTES  16384 /* CORECAP_KERNEL_STACK_USER_BYTES */
#define KBPF_STACK_FUTEX  1	/* b of a stack: at a futex wait's enter */
#define KBPF_STACK_SWITCH 2	/* at a switch-out */

/* A user-stack copy: h.kind KBPF_STACK, h.tid, h.time_ns that of the
 * record of the same hit, h.b its kind, h.d the bytes copied (the rest of
 * stack is zero). */
struct kbpf_stack {
	struct kbpf_rec h;
	__u64 regs[KBPF_NREGS];
	unsigned char stack[KBPF_STACK_BYTES];
};

/* The counters the programs keep per CPU (a per-CPU array of one). */
struct kbpf_counts {
	__u64 lost;		/* records the ring had no room for */
	__u64 seen[2];		/* futex waits, switch-outs of the target's threads */
	__u64 stack_failed[2];	/* stack copies the kernel could not read */
	__u64 tick;		/* the collector's tick the next two belong to */
	__u64 taken_in_tick[2]; /* stacks taken in that tick (the burst bound) */
};

#endif
