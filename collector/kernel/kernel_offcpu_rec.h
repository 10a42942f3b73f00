/*
 * kernel_offcpu_rec.h: what kernel_offcpu.bpf.c's task iterator writes
 * to its seq_file per thread of the target not on a CPU, read by
 * kernel_offcpu.c: a struct koff_rec, then `bytes` bytes of the thread's
 * user stack from its saved stack pointer; per thread visited without a
 * sample (on a CPU, its copy failed), a koff_rec alone (KOFF_VISIT). Compiled by both sides (the
 * program with clang's BPF target, the collector with the host's): the
 * includer brings the __u32 family (vmlinux.h or <linux/types.h>).
 */
#ifndef CORECAP_COLLECTOR_KERNEL_OFFCPU_REC_H
#define CORECAP_COLLECTOR_KERNEL_OFFCPU_REC_H

#define KOFF_NREGS	 17    /* AX BX CX DX SI DI BP SP IP R8-R15: kernel_unwind.h's order */
#define KOFF_STACK_BYTES 16384 /* CORECAP_KERNEL_STACK_USER_BYTES, as the on-CPU copies */
#define KOFF_MAGIC	 0x6f666663u /* "offc": the reader's check of its framing */
#define KOFF_SAME	 1u	     /* flags: the thread has not run since its last copy */
#define KOFF_VISIT	 2u	     /* flags: visited, no sample of the iterator's (no copy) */

/* state: the thread's __state (0: runnable, waiting for a CPU; else
 * blocked: TASK_INTERRUPTIBLE 1, TASK_UNINTERRUPTIBLE 2, ...). */
struct koff_rec {
	__u32 magic;
	__s32 tid;
	__u64 time_ns; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 state;
	__u32 bytes; /* of stack that follow */
	__u32 flags; /* KOFF_SAME: no copy follows, the thread's last one stands */
	__u32 pad;
	__u64 regs[KOFF_NREGS];
};

/* The iterator's counters (its .bss), cumulative over the rounds. */
struct koff_counts {
	__u64 threads;	 /* the target's threads visited */
	__u64 on_cpu;	 /* of which on a CPU: left to the cpu-clock samples */
	__u64 written;	 /* copies written */
	__u64 runnable;	 /* of which runnable */
	__u64 failed;	 /* stacks the kernel could not read */
	__u64 moved;	 /* threads that ran while their stack was copied: dropped */
	__u64 full;	 /* bpf_seq_write without room (re-shown at the next read) */
	__u64 displaced; /* runnable behind the round on its CPU: left out */
	__u64 same;	 /* of written, short records: not run since the last copy */
};

#define KOFF_AT_(type, field, at) _Static_assert(__builtin_offsetof(type, field) == (at), #field)
KOFF_AT_(struct koff_rec, time_ns, 8);
KOFF_AT_(struct koff_rec, regs, 32);
_Static_assert(sizeof(struct koff_rec) == 32 + 8 * KOFF_NREGS, "koff_rec");
#undef KOFF_AT_

#endif
