/*
 * corecap/kernel_format.h: the kernel source's files in a run directory,
 * RUN/kernel/events.bin and RUN/kernel/stacks.bin.
 *
 * The collector (collector/kernel/kernel_events.h) writes them from eBPF
 * programs on the scheduler's and the futex call's tracepoints, or from
 * per-CPU perf_event_open(2) ring buffers of the same tracepoints; the
 * analysis reads them with this header alone. docs/run-directory.md,
 * "kernel/", says the same in prose; docs/events.md, "Kernel events",
 * describes what each record means.
 *
 * Guarantees a reader can rely on:
 *  - Both files start with one struct corecap_kfile_header (64 bytes),
 *    then records (stacks.bin, and events.bin of version 1; events.bin of
 *    version 2 holds blocks of narrower records, "Version 2" below, which
 *    decode into exactly these: what follows holds of the decoded records). Every record starts
 * with struct corecap_krec: its type and its total size in bytes (header included, a multiple of 8,
 * at least 16). Records follow each other with no gap, so a reader walks the file by `size` and
 * skips types it does not know.
 *  - All integers are little-endian with the widths written here; structs
 *    have explicit padding (no implicit holes), every record starts at an
 *    offset that is a multiple of 8 and every 64-bit field is 8-aligned
 *    in the file. The files can be read on any machine.
 *  - Compatible revisions only append: new record types, new fields at
 *    the end of a record (its `size` grows). A reader uses
 *    min(size, sizeof(its struct)) bytes of a record and zero-fills the
 *    rest. `version` changes only when the meaning of an existing field
 *    changes; a reader refuses a version it does not know.
 *  - Records are written whole (one write(2) of whole records): a file of
 *    a collector that was killed is readable up to its last whole record;
 *    a trailing fragment shorter than its `size` is to be ignored.
 *  - Times are CLOCK_MONOTONIC nanoseconds of the recording host
 *    (perf_event_attr.use_clockid, clockid CLOCK_MONOTONIC; eBPF:
 *    bpf_ktime_get_ns) as the collector reads that clock: the clock of
 *    the LTTng trace, threads.tsv and wall.samples. A collector in a time
 *    namespace adds the namespace's offset to the kernel's stamps, which
 *    carry none (manifest kernel_events.clock_offset_ns).
 *  - events.bin is ordered by time within one CPU's records, not across
 *    CPUs (perf: one ring buffer per CPU, drained in turn; eBPF: one
 *    ring, each drain sorted by CPU and time): sort by time_ns
 *    (stable) before pairing anything.
 *  - Thread ids (tid) are kernel tids as in /proc (the daemon's pid
 *    namespace is not applied); 0 is the idle task of a CPU.
 *  - Addresses (uaddr, stack frames) are virtual addresses in the target
 *    process; symbolize frames with RUN/maps and RUN/buildids.tsv, as for
 *    wall.samples.
 *
 * This header needs only the C library; it has no link-time dependency.
 */
#ifndef CORECAP_KERNEL_FORMAT_H
#define CORECAP_KERNEL_FORMAT_H

#ifndef __bpf__
#include <stdbool.h> /* the eBPF program has bool from vmlinux.h */
#endif

/*
 * The futex commands by class, defined here alone: the collector's eBPF
 * program (collector/kernel/kernel_bpf.bpf.c) records the waits that sleep and
 * the wakes that wake, its perf producer filters the waits it takes a
 * stack at, and the analysis pairs and classifies the calls, all from these
 * lists. X(name, command): the command is op & 127 (FUTEX_CMD_MASK
 * without FUTEX_PRIVATE_FLAG 128 and FUTEX_CLOCK_REALTIME 256), the name
 * <linux/futex.h>'s. This part needs no header but bool's: the eBPF
 * program, which has the kernel's types (vmlinux.h) and not the C
 * library's, includes this header for it alone (__bpf__).
 */
#define CORECAP_FUTEX_WAIT_CMDS(X)                                                                 \
	X(FUTEX_WAIT, 0)                                                                           \
	X(FUTEX_WAIT_BITSET, 9)                                                                    \
	X(FUTEX_LOCK_PI, 6)                                                                        \
	X(FUTEX_WAIT_REQUEUE_PI, 11)                                                               \
	X(FUTEX_LOCK_PI2, 13)
#define CORECAP_FUTEX_WAKE_CMDS(X)                                                                 \
	X(FUTEX_WAKE, 1)                                                                           \
	X(FUTEX_WAKE_BITSET, 10)                                                                   \
	X(FUTEX_WAKE_OP, 5)                                                                        \
	X(FUTEX_UNLOCK_PI, 7)                                                                      \
	X(FUTEX_REQUEUE, 3)                                                                        \
	X(FUTEX_CMP_REQUEUE, 4)
#define CORECAP_FUTEX_CMD(op)		 ((op)&127u)
#define CORECAP_FUTEX_CMD_IS_(name, cmd) || c == (cmd)

/* Whether futex command c (CORECAP_FUTEX_CMD of an op) is a wait, a wake. */
static inline bool corecap_futex_cmd_is_wait(unsigned int c)
{
	return 0 CORECAP_FUTEX_WAIT_CMDS(CORECAP_FUTEX_CMD_IS_);
}

static inline bool corecap_futex_cmd_is_wake(unsigned int c)
{
	return 0 CORECAP_FUTEX_WAKE_CMDS(CORECAP_FUTEX_CMD_IS_);
}

/* Whether a call's op (struct corecap_krec_futex_enter.op) waits, wakes. */
#define CORECAP_FUTEX_IS_WAIT(op) corecap_futex_cmd_is_wait(CORECAP_FUTEX_CMD(op))
#define CORECAP_FUTEX_IS_WAKE(op) corecap_futex_cmd_is_wake(CORECAP_FUTEX_CMD(op))

#ifndef __bpf__ /* the rest: the files' layout */

#include <stdint.h>

#include "run_format.h"

/* Its file names (CORECAP_KERNEL_*_FILE): run_format.h. */

#define CORECAP_KERNEL_MAGIC_EVENTS UINT64_C(0x317476656b706363) /* "ccpkevt1" read as bytes */
#define CORECAP_KERNEL_MAGIC_STACKS UINT64_C(0x316b74736b706363) /* "ccpkstk1" read as bytes */
/* events.bin as the collector writes it: zstd frames of version 2's
 * blocks (version 3, below). events.bin of earlier collectors is of
 * version 2 (blocks of compact records) or 1 (CORECAP_KERNEL_FORMAT_V1:
 * records one after the other), and so is stacks.bin. */
#define CORECAP_KERNEL_FORMAT_VERSION 3
#define CORECAP_KERNEL_FORMAT_V2      2
#define CORECAP_KERNEL_FORMAT_V1      1

/* Largest number of frames in one stack record. */
#define CORECAP_KERNEL_MAX_FRAMES 128

/* Clock of every time_ns (the value of CLOCK_MONOTONIC on Linux). */
#define CORECAP_KERNEL_CLOCK_MONOTONIC 1

/* File header, 64 bytes, at offset 0 of events.bin and stacks.bin. */
struct corecap_kfile_header {
	uint64_t magic;		   /* CORECAP_KERNEL_MAGIC_EVENTS or _STACKS */
	uint32_t version;	   /* events.bin: 3, 2 or 1; stacks.bin: 1 */
	uint32_t header_bytes;	   /* 64: records start here */
	uint32_t pid;		   /* the target process (tgid) */
	uint32_t nr_cpus;	   /* CPUs recorded (ring buffers); cpu < nr_cpus */
	uint32_t clock_id;	   /* CORECAP_KERNEL_CLOCK_MONOTONIC */
	uint32_t flags;		   /* CORECAP_KFILE_* */
	uint64_t created_ns;	   /* CLOCK_MONOTONIC when the file was created */
	uint32_t stack_user_bytes; /* bytes asked per user-stack copy (stacks.bin), else 0 */
	uint32_t reserved0;
	uint64_t reserved[2];
};

/* header.flags */
#define CORECAP_KFILE_KERNEL_FILTER 0x1u /* tracepoint filters were set in the kernel */

/* Record types. */
enum corecap_krec_type {
	CORECAP_KREC_SWITCH = 1,      /* sched:sched_switch */
	CORECAP_KREC_WAKING = 2,      /* sched:sched_waking */
	CORECAP_KREC_FUTEX_ENTER = 3, /* syscalls:sys_enter_futex */
	CORECAP_KREC_FUTEX_EXIT = 4,  /* syscalls:sys_exit_futex */
	CORECAP_KREC_FORK = 5,	      /* sched:sched_process_fork */
	CORECAP_KREC_EXIT = 6,	      /* sched:sched_process_exit */
	CORECAP_KREC_LOST = 7,	      /* PERF_RECORD_LOST of one CPU's ring */
	CORECAP_KREC_WINDOW = 8,      /* the collector's window start or end */
	CORECAP_KREC_TRACK = 9,	      /* a tid the collector follows from time_ns */
	CORECAP_KREC_HOLDER = 10,     /* another process's thread that took a CPU */
	CORECAP_KREC_STACK = 16,      /* stacks.bin: one unwound user stack */
	CORECAP_KREC_BLOCK = 32,      /* events.bin of version 2: a block of records */
	CORECAP_KREC_ZFRAME = 33,     /* events.bin of version 3: a zstd frame of blocks */
};

/* Common header of every record, 16 bytes. */
struct corecap_krec {
	uint16_t type;	  /* enum corecap_krec_type */
	uint16_t size;	  /* bytes of the whole record, multiple of 8 */
	uint32_t cpu;	  /* CPU the event happened on (the ring it came from) */
	uint64_t time_ns; /* CLOCK_MONOTONIC */
};

/* prev_state_char of a switch: 'R' runnable (preempted or yielded: the
 * thread still wanted the CPU), else the lowest task-state bit of
 * prev_state: 'S' interruptible sleep, 'D' uninterruptible, 'T' stopped,
 * 't' traced, 'X' dead, 'Z' zombie, 'P' parked, 'I' idle; '?' unknown. */

/* sched_switch: the CPU went from prev_tid to next_tid. Kept when either
 * side is one of the target's threads. 40 bytes. */
struct corecap_krec_switch {
	struct corecap_krec h;
	int32_t prev_tid;
	int32_t next_tid;
	int64_t prev_state;	 /* the tracepoint's raw prev_state (kernel task-state bits) */
	uint8_t prev_state_char; /* see above */
	uint8_t flags;		 /* CORECAP_KSWITCH_* */
	uint8_t pad[6];
};
#define CORECAP_KSWITCH_PREV_TARGET 0x1u /* prev_tid is the target's */
#define CORECAP_KSWITCH_NEXT_TARGET 0x2u /* next_tid is the target's */
#define CORECAP_KSWITCH_PREEMPTED   0x4u /* prev was preempted (prev_state had the "+" bit) */

/* sched_waking: waker_tid (the thread running at the tracepoint, i.e. the
 * one calling try_to_wake_up) wakes tid. Kept when tid is the target's.
 * When flags has IRQ bits the waker is whatever thread the interrupt
 * landed on, not a real waker. 32 bytes. */
struct corecap_krec_waking {
	struct corecap_krec h;
	int32_t tid;	    /* woken thread */
	int32_t waker_tid;  /* current thread at the tracepoint (common_pid) */
	int32_t target_cpu; /* CPU the woken thread will run on */
	uint32_t flags;	    /* CORECAP_KWAKING_* */
};
#define CORECAP_KWAKING_HARDIRQ 0x1u /* woken from a hard interrupt */
#define CORECAP_KWAKING_SOFTIRQ 0x2u /* woken from a softirq */
#define CORECAP_KWAKING_NMI	0x4u
/* From an interrupt, hard or soft, without saying which: the eBPF
 * producer's (it sees the CPU on its interrupt stack, or in ksoftirqd). */
#define CORECAP_KWAKING_IRQ 0x8u
/* Any of them: the waker is not the thread the CPU ran. */
#define CORECAP_KWAKING_ANY_IRQ                                                                    \
	(CORECAP_KWAKING_HARDIRQ | CORECAP_KWAKING_SOFTIRQ | CORECAP_KWAKING_NMI |                 \
	 CORECAP_KWAKING_IRQ)

/* A futex call of a target thread: the arguments as passed. perf: every
 * call (sys_enter_futex); eBPF: the waits that sleep (recorded just
 * before the thread's switch-out, from the registers its system call
 * saved) and the wakes that wake a thread (just before each waking they
 * cause: a wake of several threads is recorded once per thread). 56 bytes. */
struct corecap_krec_futex_enter {
	struct corecap_krec h;
	int32_t tid;
	uint32_t op; /* raw: command | FUTEX_PRIVATE_FLAG (128) | FUTEX_CLOCK_REALTIME (256) */
	uint64_t uaddr;
	uint32_t val;
	uint32_t val3;
	uint64_t uaddr2;
	uint64_t utime; /* the timeout pointer (user address): 0 = no timeout */
};

/* The end of a futex call of a target thread. perf: sys_exit_futex, with
 * the call's result; eBPF: a sleeping wait's end, just after the
 * thread's switch-in, and a wake's, just after its waking, both without a
 * result (flags CORECAP_KFUTEX_RESULT_UNKNOWN, ret 0: the call had not
 * returned). 32 bytes. */
struct corecap_krec_futex_exit {
	struct corecap_krec h;
	int32_t tid;
	uint32_t flags; /* CORECAP_KFUTEX_* (0 in files written before it existed) */
	/* >= 0, or -errno: -11 EAGAIN (the word had changed: no sleep), -110 ETIMEDOUT, -4 EINTR */
	int64_t ret;
};
#define CORECAP_KFUTEX_RESULT_UNKNOWN 0x1u /* ret is not the call's result */

/* Pairing (done by the reader): after sorting by time_ns, a FUTEX_EXIT of
 * tid T closes T's latest FUTEX_ENTER before it (a thread is in at most
 * one system call); an exit without an enter (the thread was inside the
 * call when recording started) or an enter without an exit (still inside
 * at the end, or a lost record) is left unpaired. A wait is an enter whose
 * command is a wait (CORECAP_FUTEX_IS_WAIT). */
/* (CORECAP_FUTEX_IS_WAIT, _IS_WAKE and their commands: at the top.) */

/* sched_process_fork by a target thread: a new thread (or process) child_tid.
 * 48 bytes. */
struct corecap_krec_fork {
	struct corecap_krec h;
	int32_t parent_tid; /* the target's thread that called clone */
	int32_t child_tid;
	char child_comm[16]; /* NUL-padded */
	uint32_t flags;	     /* CORECAP_KFORK_* */
	uint32_t pad;
};
#define CORECAP_KFORK_SAME_PROCESS                                                                 \
	0x1u /* the child is a thread of the target (its Tgid, read from /proc) */
#define CORECAP_KFORK_UNKNOWN 0x2u /* the child was gone before the collector could look */

/* sched_process_exit of a target thread. 40 bytes. */
struct corecap_krec_exit {
	struct corecap_krec h;
	int32_t tid;
	uint32_t flags; /* CORECAP_KEXIT_GROUP_DEAD: the last thread of the process */
	char comm[16];
};
#define CORECAP_KEXIT_GROUP_DEAD 0x1u

/* PERF_RECORD_LOST: `lost` records of CPU h.cpu were dropped (its ring was
 * full) some time before h.time_ns and after that CPU's previous record.
 * 24 bytes. */
struct corecap_krec_lost {
	struct corecap_krec h;
	uint64_t lost;
};

/* The collector's window (as in manifest.json), so that a file without a
 * manifest still says it. h.cpu is 0. 24 bytes. */
struct corecap_krec_window {
	struct corecap_krec h;
	uint32_t what; /* CORECAP_KWINDOW_START or _END */
	uint32_t pad;
};
#define CORECAP_KWINDOW_START 1u
#define CORECAP_KWINDOW_END   2u

/* A tid whose events are recorded from h.time_ns on: every thread of the
 * target when recording starts (reason START), and each new thread when
 * the collector has added it to the kernel filters (reason FORK; its
 * events between its fork record and this one may be missing). h.cpu is
 * 0. 40 bytes. */
struct corecap_krec_track {
	struct corecap_krec h;
	int32_t tid;
	uint32_t reason; /* CORECAP_KTRACK_* */
	char comm[16];	 /* at that time, NUL-padded */
};
#define CORECAP_KTRACK_START 1u
#define CORECAP_KTRACK_FORK  2u

/* A thread of another process that took a CPU from the target's (the next
 * thread of a switch record without CORECAP_KSWITCH_NEXT_TARGET), named
 * from /proc when the collector first met it, and again after the window
 * when its name changed since (an exec): the last record of a tid is its
 * name. A thread gone before the collector looked has none. h.cpu is 0.
 * 40 bytes. */
struct corecap_krec_holder {
	struct corecap_krec h;
	int32_t tid;
	int32_t tgid;  /* its process */
	char comm[16]; /* NUL-padded */
};

/* stacks.bin: one user stack, unwound by DWARF CFI after the window from a
 * PERF_SAMPLE_STACK_USER + PERF_SAMPLE_REGS_USER copy. h.time_ns is the
 * sample's own time; event_time_ns that of the events.bin record of the
 * same tracepoint hit (same tid and kind: a FUTEX_ENTER or a SWITCH with
 * prev_tid == tid), 0 when none was found. Join on (tid, event_time_ns).
 * frames[0] is the user instruction pointer at the event (for a system
 * call: the instruction after the `syscall`); frames[1..] are return
 * addresses: subtract 1 before symbolizing, as in wall.samples.
 * 40 + 8 * nframes bytes. */
struct corecap_krec_stack {
	struct corecap_krec h;
	int32_t tid;
	uint16_t kind;	  /* CORECAP_KSTACK_* */
	uint16_t nframes; /* <= CORECAP_KERNEL_MAX_FRAMES */
	uint64_t event_time_ns;
	int32_t status;	      /* CORECAP_KSTACK_OK, or why the unwinding stopped (below) */
	uint32_t stack_bytes; /* bytes of user stack the kernel copied */
			      /* uint64_t frames[nframes] follow */
};
#define CORECAP_KSTACK_FUTEX  1u /* at a futex wait's enter (eBPF: its switch-out) */
#define CORECAP_KSTACK_SWITCH 2u /* at a switch-out of the target's thread */

/* status */
#define CORECAP_KSTACK_OK	 0  /* reached the outermost frame (or the frame limit) */
#define CORECAP_KSTACK_TRUNCATED 1  /* stopped: the next frame lay beyond the stack copy */
#define CORECAP_KSTACK_NO_CFI	 2  /* stopped: no CFI for an address (unknown module, JIT) */
#define CORECAP_KSTACK_FAILED	 -1 /* nothing unwound beyond frames[0] (nframes 0 or 1) */

/*
 * Version 2 of events.bin: the same records, narrower. After the file
 * header (version 2) come blocks, one after the other with no gap, each a
 * struct corecap_kblock then its records, packed at 4-byte boundaries, up
 * to `size`; the last 4 bytes of a block may be zero padding. A block's
 * records are those of CPU `cpu`, their times base_ns + dt_ns (32 bits:
 * a block spans at most 4.3 s), in its CPU's time order as in version 1.
 * Each record starts with an 8-byte header (corecap/kernel_v2.h, struct
 * corecap_kv2_rec: type u8, words u8 (its size / 4), aux u16, dt_ns u32)
 * and is one of:
 *  - SWITCH, 20 bytes: aux prev_state_char | flags << 8; prev_tid i32,
 *    next_tid i32, prev_state u32 (no padding; version 1's 40 bytes);
 *  - WAKING, 20 bytes: aux flags; tid, waker_tid, target_cpu, i32 (32);
 *  - FUTEX_ENTER, 28 bytes: aux op; tid i32, val u32, uaddr u64, val3
 *    u32, with uaddr2 and utime 0; or 44 bytes: the same then uaddr2 u64,
 *    utime u64 (56);
 *  - FUTEX_EXIT, 12 bytes: aux flags; tid i32, with ret 0; or 16 bytes:
 *    the same then ret i32 (32);
 *  - WHOLE (type 0, words 0, aux 0, dt_ns 0): a version-1 record follows
 *    whole, its own CPU and time in its header (any record without a
 *    compact form: the other types, a field that does not fit, a record
 *    longer than its version-1 struct). The collector's marks (WINDOW,
 *    TRACK, HOLDER) travel so, in whatever block is open.
 * Decoded (corecap/kernel_v2.h), a version-2 file gives the records a
 * version-1 file of the same events holds, in the same order, byte for
 * byte: a version-2 reader is a version-1 reader behind a decoder, with
 * every guarantee above. A compact record of a type the reader does not
 * know is skipped (by words); so is a top-level item that is not a block
 * (by its size, the u32 at offset 4). A trailing partial block (a killed
 * collector) is ignored, as a trailing fragment in version 1.
 */
struct corecap_kblock {
	uint16_t type;	  /* CORECAP_KREC_BLOCK */
	uint16_t cpu;	  /* the CPU of its compact records */
	uint32_t size;	  /* bytes of the block, header included, multiple of 8 */
	uint64_t base_ns; /* CLOCK_MONOTONIC: its records' times are base_ns + dt_ns */
};
/* A block is at most this large: a whole record of 65535 bytes fits. */
#define CORECAP_KBLOCK_MAX (1u << 17)
#define CORECAP_KV2_WHOLE  0

/*
 * Version 3 of events.bin: version 2's blocks, zstd-compressed. After the
 * file header (version 3) come frames, one after the other with no gap,
 * each a struct corecap_kzframe then one zstd frame (RFC 8878) of
 * `zbytes` bytes, then zero padding to `size`, a multiple of 8. The zstd
 * frame carries its content size, which is `raw_bytes`; decompressed, it
 * is whole version-2 blocks, one after the other with no gap (every
 * block's records of one CPU, as in version 2), `raw_bytes` of them, at
 * most CORECAP_KZFRAME_RAW_MAX. The collector compresses what one flush
 * encoded (at most CORECAP_KZFRAME_RAW_MAX a frame) and writes each frame
 * whole with one write(2): a file of a collector that was killed is
 * readable up to its last whole frame, and a trailing partial frame is
 * ignored (counted), as a trailing fragment in versions 1 and 2. Unlike
 * version 2 there is no other top-level item: anything that is not a
 * frame, a frame whose sizes disagree (with each other, with the zstd
 * frame's own, or with the blocks inside), or a frame that does not
 * decompress to exactly `raw_bytes`, is an error. Decompressed and
 * decoded, a version-3 file gives the records of version 1, byte for
 * byte, in the same order.
 */
struct corecap_kzframe {
	uint16_t type;	    /* CORECAP_KREC_ZFRAME */
	uint16_t flags;	    /* 0 */
	uint32_t size;	    /* bytes of the frame: this header, zbytes, padding */
	uint32_t zbytes;    /* the zstd frame's bytes */
	uint32_t raw_bytes; /* its content's bytes: whole version-2 blocks */
};
/* A frame's content is at most this large (the reader's buffer). */
#define CORECAP_KZFRAME_RAW_MAX (8u << 20)

/* The layouts above, checked where the header is compiled. */
_Static_assert(sizeof(struct corecap_kfile_header) == 64, "kfile header");
_Static_assert(sizeof(struct corecap_krec) == 16, "krec");
_Static_assert(sizeof(struct corecap_krec_switch) == 40, "switch");
_Static_assert(sizeof(struct corecap_krec_waking) == 32, "waking");
_Static_assert(sizeof(struct corecap_krec_futex_enter) == 56, "futex_enter");
_Static_assert(sizeof(struct corecap_krec_futex_exit) == 32, "futex_exit");
_Static_assert(sizeof(struct corecap_krec_fork) == 48, "fork");
_Static_assert(sizeof(struct corecap_krec_exit) == 40, "exit");
_Static_assert(sizeof(struct corecap_krec_lost) == 24, "lost");
_Static_assert(sizeof(struct corecap_krec_window) == 24, "window");
_Static_assert(sizeof(struct corecap_krec_track) == 40, "track");
_Static_assert(sizeof(struct corecap_krec_holder) == 40, "holder");
_Static_assert(sizeof(struct corecap_krec_stack) == 40, "stack");
_Static_assert(sizeof(struct corecap_kblock) == 16, "block");
_Static_assert(sizeof(struct corecap_kzframe) == 16, "zframe");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "corecap/kernel_format.h: the structs are read in place only on little-endian hosts"
#endif

#endif /* __bpf__ */
#endif
