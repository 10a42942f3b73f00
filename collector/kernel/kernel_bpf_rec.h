/*
 * kernel_bpf_rec.h: the records the kernel source's eBPF programs
 * (collector/kernel/kernel_bpf.bpf.c) hand to the collector (collector/
 * kernel/kernel_bpf.c) through their BPF ring buffer. Internal to the collector:
 * kernel_bpf_drain.c turns each into the run directory's own records
 * (corecap/kernel_format.h), as kernel_perf.c does perf's samples.
 *
 * Included by the BPF program (types from vmlinux.h) and by C (types from
 * <linux/types.h>); it includes nothing itself.
 */
#ifndef CORECAP_COLLECTOR_KERNEL_BPF_REC_H
#define CORECAP_COLLECTOR_KERNEL_BPF_REC_H

enum kbpf_kind {
	KBPF_SWITCH = 1, /* sched_switch with the target's thread on either side */
	KBPF_WAKING = 2, /* sched_waking of the target's thread */
	/* 3 and 4 were a futex call's entry and end, records of their own:
	 * they ride in the switch or waking record of the same hit now
	 * (KBPF_WITH_ENTER, KBPF_WITH_EXIT). */
	KBPF_FORK = 5, /* sched_process_fork by the target's thread */
	KBPF_EXIT = 6, /* sched_process_exit of the target's thread */
	KBPF_STACK = 7 /* a user-stack copy; struct kbpf_stack */
};

/* kbpf_rec.flags */
#define KBPF_PREV_TARGET 0x1u  /* switch: prev is the target's */
#define KBPF_NEXT_TARGET 0x2u  /* switch: next is the target's */
#define KBPF_PREEMPT	 0x4u  /* switch: prev was preempted */
#define KBPF_IRQ	 0x8u  /* waking: from an interrupt, hard or soft */
#define KBPF_SAME	 0x40u /* fork: the child is a thread of the target */
#define KBPF_GROUP_DEAD	 0x80u /* exit: the last thread of the process */
/* A switch or waking record that carries a futex call's entry (`futex`):
 * switch, prev's wait that sleeps here; waking, the waker's wake that
 * causes it. The drain writes the entry 1 ns before the record. */
#define KBPF_WITH_ENTER 0x100u
/* ... and a futex call's end, without a result (the call has not
 * returned), 1 ns after the record: switch, next's wait (it was woken, or
 * interrupted); waking, the waker's wake. One ring record per hook
 * instead of up to three: each reservation takes the ring's lock
 * (bench/kernel_cost.sh measured it). */
#define KBPF_WITH_EXIT 0x200u
/* A switch record, with the target's thread switched in, that carries the
 * waking which made it runnable (struct kbpf_switch_woken): the waking
 * hook kept it in the thread's slot (the array `woken`) instead of
 * writing a record of its own, and the drain writes it at its own time
 * and CPU. */
#define KBPF_WITH_WOKEN 0x400u

/*
 * One event, 80 bytes: a common head (the thread at the tracepoint, the
 * time, the CPU), then one struct per kind, as its kind says (the
 * programs fill one; readers read that one). tid is a switch's prev, a
 * waking's waker (and the caller of the futex call either carries), a
 * fork's parent, an exiting thread.
 */

/* A futex call's arguments as passed (its end has none: the programs
 * see the call before it returns). */
struct kbpf_futex_enter {
	__u32 op; /* raw: command | FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME */
	__u32 val;
	__u64 uaddr;
	__u64 uaddr2;
	__u64 utime; /* the timeout pointer: 0 = no timeout */
	__u32 val3;
	__u32 pad;
};

struct kbpf_switch {
	__s32 next_tid;
	__u32 prev_state;      /* prev's task state, raw (__state) */
	__u32 prev_exit_state; /* prev's exit_state */
	__u32 pad;
	struct kbpf_futex_enter futex; /* with KBPF_WITH_ENTER: prev's futex wait */
};

struct kbpf_waking {
	__s32 woken_tid;
	__u32 target_cpu;	       /* the CPU it will run on */
	struct kbpf_futex_enter futex; /* with KBPF_WITH_ENTER: the waker's futex wake */
};

struct kbpf_fork {
	__s32 child_tid;
	__u32 pad;
	char child_comm[16];
};

struct kbpf_exit {
	char comm[16]; /* the exiting thread's name */
};

/* The head of a user-stack copy (struct kbpf_stack). */
struct kbpf_stack_copy {
	__u32 kind; /* KBPF_STACK_FUTEX, KBPF_STACK_SWITCH or KBPF_STACK_CPU */
	__u32 pad;
	__u64 bytes; /* bytes of stack copied (the rest is zero) */
};

struct kbpf_rec {
	__u64 time_ns; /* CLOCK_MONOTONIC (bpf_ktime_get_ns) */
	__u32 kind;    /* enum kbpf_kind */
	__u32 cpu;
	__s32 tid;
	__u32 flags; /* KBPF_* */
	union {
		struct kbpf_switch sw;
		struct kbpf_waking waking;
		struct kbpf_fork fork;
		struct kbpf_exit exit;
		struct kbpf_stack_copy copy;
		/* The record stays 80 bytes, as when its fields had no names:
		 * the ring holds as many records as before. */
		__u64 size_[7];
	};
};

/*
 * A waking held for its wakee (a slot of the array `woken`, chosen by
 * the wakee's id modulo KBPF_WOKEN_SLOTS) until the wakee's next
 * switch-in carries it: everything the waking's own ring record carried
 * but the woken thread, which is the owner (the switch's next). time_ns
 * 0: no waking held (or one being written).
 */
#define KBPF_WOKEN_SLOTS 4096 /* a power of two */

struct kbpf_woken {
	__u64 time_ns;
	__u64 owner; /* the woken thread's id, the slot's owner; 0: free */
	__s32 waker_tid;
	__u32 cpu;		       /* the waker's CPU */
	__u32 target_cpu;	       /* the CPU the wakee was to run on */
	__u32 flags;		       /* KBPF_IRQ, KBPF_WITH_ENTER, KBPF_WITH_EXIT */
	struct kbpf_futex_enter futex; /* with KBPF_WITH_ENTER: the waker's futex wake */
};

/* A switch record with KBPF_WITH_WOKEN: the switch, then its next's waking. */
struct kbpf_switch_woken {
	struct kbpf_rec h;
	struct kbpf_woken woken;
};

#define KBPF_NREGS	  17	/* AX BX CX DX SI DI BP SP IP R8-R15: kernel_unwind.h's order */
#define KBPF_STACK_BYTES  16384 /* CORECAP_KERNEL_STACK_USER_BYTES */
#define KBPF_STACK_FUTEX  1	/* copy.kind of a stack: at a futex wait's enter */
#define KBPF_STACK_SWITCH 2	/* at a switch-out */
#define KBPF_STACK_CPU	  3	/* a cpu-clock sample of a thread on a CPU */

/* A user-stack copy: h.kind KBPF_STACK, h.tid, h.time_ns that of the
 * record of the same hit, h.copy its kind and length. */
struct kbpf_stack {
	struct kbpf_rec h;
	__u64 regs[KBPF_NREGS];
	unsigned char stack[KBPF_STACK_BYTES];
};

/* The layout both sides compile (the program with clang's BPF target, the
 * collector with the host's compiler): no implicit holes, every 64-bit
 * field 8-aligned, the sizes the ring was sized for. */
#define KBPF_AT_(type, field, at) _Static_assert(__builtin_offsetof(type, field) == (at), #field)
_Static_assert(sizeof(struct kbpf_rec) == 80, "kbpf_rec");
KBPF_AT_(struct kbpf_rec, flags, 20);
KBPF_AT_(struct kbpf_rec, sw, 24);
KBPF_AT_(struct kbpf_rec, sw.futex.uaddr, 48);
KBPF_AT_(struct kbpf_rec, sw.futex.val3, 72);
KBPF_AT_(struct kbpf_rec, waking.futex.uaddr, 40);
KBPF_AT_(struct kbpf_rec, fork.child_comm, 32);
KBPF_AT_(struct kbpf_rec, copy.bytes, 32);
_Static_assert(sizeof(struct kbpf_futex_enter) == 40, "kbpf_futex_enter");
_Static_assert(sizeof(struct kbpf_woken) == 72, "kbpf_woken");
KBPF_AT_(struct kbpf_switch_woken, woken.futex.val3, 80 + 64);
KBPF_AT_(struct kbpf_stack, regs, 80);
KBPF_AT_(struct kbpf_stack, stack, 80 + 8 * KBPF_NREGS);
#undef KBPF_AT_

/* The counters the programs keep per CPU (a per-CPU array of one). */
struct kbpf_counts {
	__u64 lost;		/* records the ring had no room for */
	__u64 seen[2];		/* futex waits, switch-outs of the target's threads */
	__u64 stack_failed[2];	/* stack copies the kernel could not read */
	__u64 tick;		/* the collector's tick the next two belong to */
	__u64 taken_in_tick[2]; /* stacks taken in that tick (the burst bound) */
	__u64 cpu_samples;	/* cpu-clock samples of the target's threads */
	__u64 cpu_failed;	/* of which the stack could not be read or had no room */
};

#endif
