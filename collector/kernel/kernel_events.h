/*
 * struct corecap_kernel_events: the kernel source of `corecap record`:
 * scheduler and futex tracepoints of the target's threads, through
 * perf_event_open(2), into RUN/kernel/events.bin, and user stacks of
 * sampled futex waits and switch-outs, unwound after the window into
 * RUN/kernel/stacks.bin (format: common/include/corecap/kernel_format.h,
 * docs/run-directory.md).
 *
 * How: one ring buffer per CPU; on each CPU one perf event per tracepoint
 * (PERF_TYPE_TRACEPOINT, ids and raw field offsets from tracefs), all
 * redirected into that CPU's ring (PERF_EVENT_IOC_SET_OUTPUT), stamped
 * with CLOCK_MONOTONIC (use_clockid). Two more events per CPU take user
 * stack copies (PERF_SAMPLE_STACK_USER + REGS_USER) at futex waits and
 * switch-outs, every Nth one, N set every 50 ms from the observed rates
 * to stay within a rate bound, and raised at once on a burst.
 * Tracepoint filters (PERF_EVENT_IOC_SET_FILTER, the target's tids as
 * ranges) keep other processes out in the kernel. A perf event's filter
 * cannot be replaced, so when the target gains a thread, every CPU gets a
 * new event set with the new filters, swapped in for the old one; each
 * CPU's ring belongs to a dummy software event that stays. A reader
 * thread drains the rings, filters again exactly (the sample's pid, the
 * tid set), writes whole records, follows thread creation (fork records,
 * and /proc/PID/task once a second) and counts PERF_RECORD_LOST per CPU.
 *
 * Or, where it loads (--kernel-via auto, the default, or bpf), through eBPF
 * (kernel_bpf.h): programs on the scheduler's tracepoints (the futex
 * calls that sleep or wake read from the threads' saved registers),
 * filtered to the target's tgid in the kernel
 * (so new threads need no new filter), write the events and the sampled
 * stack copies to one BPF ring buffer, which the reader drains as it
 * drains the perf rings, sorting each pass by CPU and time, and rewrites
 * into the same records: the run directory does not say which producer
 * wrote it, except in the manifest (`sources.kernel.producer`).
 *
 * Guarantees:
 *  - corecap_kernel_events_init() either succeeds with every event open
 *    (still disabled; eBPF: the programs loaded, attached once and
 *    detached, so that what cannot attach fails here) and the files
 *    created, or fails with one sentence in `why` naming the cause and
 *    its remedy, having created nothing;
 *  - the daemon is never stopped or signalled: perf events and the eBPF
 *    programs only observe (a killed collector's programs go with its
 *    file descriptors);
 *  - records reach events.bin whole, in one write(2) per drain pass, so a
 *    killed collector leaves a file readable up to its last record;
 *  - every lost record is counted (stats.lost_total, per CPU, and LOST
 *    records in the file); stats.complete is false when any was lost.
 *
 * Its parts: kernel_source.c (init, start, the reader thread, stop,
 * release), kernel_perf.h (the perf_event_open producer), kernel_bpf_drain.h
 * (the eBPF ring's drain), kernel_writer.h (the records), kernel_stacks.h
 * (the stack copies, their rate bounds and their unwinding), kernel_tids.h
 * (the target's threads); kernel_state.h holds what they share.
 */
#ifndef CORECAP_COLLECTOR_KERNEL_EVENTS_H
#define CORECAP_COLLECTOR_KERNEL_EVENTS_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel_coverage.h"
#include "kernel_holders.h"
#include "kernel_offcpu.h"
#include "tp_format.h"

struct corecap_kernel_bpf;
struct corecap_kernel_offcpu;
struct corecap_run_dir;
struct kbpf_counts;
struct kernel_cpu;
struct kernel_stack_ref;

#define CORECAP_KERNEL_RING_BYTES	4194304u /* per CPU */
#define CORECAP_KERNEL_FIELDS		18u	 /* raw fields read */
#define CORECAP_KERNEL_STACK_USER_BYTES 16384u
#define CORECAP_KERNEL_FUTEX_STACK_HZ	200u /* bound of futex-wait stacks, all CPUs */
#define CORECAP_KERNEL_SWITCH_STACK_HZ	50u  /* bound of switch-out stacks, all CPUs */

enum corecap_kernel_tp {
	CORECAP_KTP_SWITCH,
	CORECAP_KTP_WAKING,
	CORECAP_KTP_FUTEX_ENTER,
	CORECAP_KTP_FUTEX_EXIT,
	CORECAP_KTP_FORK,
	CORECAP_KTP_EXIT,
	CORECAP_KTP_N,
};

/* Which producer records the events. */
enum corecap_kernel_via {
	CORECAP_KERNEL_VIA_AUTO, /* eBPF where it loads, else perf_event_open */
	CORECAP_KERNEL_VIA_PERF,
	CORECAP_KERNEL_VIA_BPF,
};

struct corecap_kernel_stats {
	uint64_t records[CORECAP_KTP_N]; /* written to events.bin, by tracepoint */
	uint64_t track;			 /* TRACK records */
	uint64_t holders;		 /* HOLDER records */
	uint64_t lost_total;
	uint64_t *lost_per_cpu; /* nr_cpus entries */
	uint64_t foreign;	/* samples of other processes dropped by the reader */
	uint64_t set_swaps;	/* event sets replaced on a CPU (new threads) while recording */
	uint64_t duplicates;	/* second copies of a hit while two event sets overlapped */
	uint64_t stacks_taken, stacks_matched, stacks_unwound, stacks_truncated, stacks_no_cfi,
		stacks_failed;
	uint64_t stacks_unreadable; /* eBPF: stack copies the kernel could not read */
	/* On-CPU stacks (cpu-clock samples of the target's threads): copies
	 * kept, lost in the kernel (eBPF: no room, unreadable), not unwound,
	 * written to wall.samples. */
	uint64_t oncpu_taken, oncpu_lost, oncpu_failed, oncpu_written;
	uint64_t events_bytes, stacks_bytes, raw_bytes;
	bool kernel_filter; /* every filter was set in the kernel */
	bool write_error;   /* events.bin could not be written whole */
	bool complete;	    /* nothing lost, nothing failed */
};

struct corecap_kernel_events {
	pid_t pid;
	int nr_cpus; /* CPUs configured; cpus[] has one entry each (offline ones unused) */
	struct kernel_cpu *cpus;
	struct corecap_tp_format fmt[CORECAP_KTP_N];
	const struct corecap_tp_field *fields[CORECAP_KERNEL_FIELDS]; /* into fmt[] */
	struct corecap_run_dir *rd;
	struct corecap_kernel_bpf *bpf; /* the eBPF producer, or NULL: perf's */
	uint64_t bpf_seen[2];		/* its futex waits, switch-outs at the last adjustment */
	uint32_t bpf_period[2];		/* its stack periods */
	size_t bpf_drained;		/* bytes its last drain read from the ring */
	/* Its programs' counters per CPU, as the last drain read them. */
	struct kbpf_counts *bpf_counts;
	bool bpf_counts_read; /* that read succeeded */
	size_t ring_bytes;    /* per CPU (eBPF: the one ring's) */
	int events_fd, raw_fd;
	/* The target's tids, sorted; the reader thread owns them once started. */
	pid_t *tids;
	size_t n_tids, cap_tids;
	bool tids_changed; /* the event sets' filters lag behind tids */
	pid_t *tracked;	   /* the tids with a TRACK record, sorted */
	size_t n_tracked;
	struct kernel_holders holders; /* other processes' threads that took a CPU */
	unsigned oncpu_hz;	       /* cpu-clock samples per CPU second; 0: none */
	/* --wallclock: the off-CPU stacks' task iterator (kernel_offcpu.h), or NULL */
	struct corecap_kernel_offcpu *offcpu;
	bool offcpu_failed;	/* a round failed (warned once) */
	bool wall_offcpu;	/* the iterator was opened: the wall samples cover every state */
	uint64_t offcpu_unkept; /* its samples not kept (no room, a lost last copy) */
	struct corecap_kernel_offcpu_stats offcpu_stats; /* as of its last round */
	/* The reader waits for a due round at SCHED_FIFO (kernel_offcpu_rounds.h):
	 * raised now; the policy it had before; refused once (warned). */
	bool offcpu_raised, offcpu_fifo_refused;
	int offcpu_policy;
	struct sched_param offcpu_param;
	uint64_t offcpu_fifo_rounds; /* rounds run at SCHED_FIFO */
	/* Per thread, the samples due and taken (kernel_coverage.h), and
	 * their summary after the window, when known. */
	struct kernel_coverage coverage;
	struct corecap_wall_coverage wall_coverage;
	bool wall_coverage_known;
	uint64_t window_ns[2]; /* the window's start and end, once told (0: not yet) */
	bool follow_failed;
	uint64_t next_rescan_ns, next_adjust_ns;
	unsigned char *out; /* records waiting for the next write(2) */
	size_t out_len, out_cap;
	unsigned char *enc; /* the same encoded (events.bin's version 2) */
	size_t enc_cap;
	unsigned char *zbuf; /* a frame of enc compressed (version 3) */
	size_t zbuf_cap;
	struct ZSTD_CCtx_s *zctx;	 /* zstd's context, kept across passes */
	unsigned char *copy;		 /* a record that wraps around the ring's end */
	struct kernel_stack_ref *stacks; /* one per raw stack copy */
	size_t n_stacks, cap_stacks;
	pthread_t reader;
	bool reader_running;
	bool stopped;
	int stop;		  /* atomic: the reader drains once more and returns */
	uint64_t window_start_ns; /* atomic: a WINDOW start for the reader to write */
	/* Added to the kernel's stamps: this process's time namespace offset
	 * (timens.h), so the files' times are the run's clock; 0 outside one. */
	int64_t clock_offset_ns;
	struct corecap_kernel_stats stats;
};

/* Whether corecap may record kernel events here; false leaves the reason
 * (and the remedy) in why. Mounts tracefs when it is absent and we may. */
bool corecap_kernel_events_permitted(char *why, size_t why_size);
/* Opens every event for the target pid (disabled), through the producer
 * `via` asks for, and creates RUN/kernel/. Returns -errno with the reason
 * in why. */
int corecap_kernel_events_init(struct corecap_kernel_events *k, pid_t pid,
			       struct corecap_run_dir *rd, enum corecap_kernel_via via, char *why,
			       size_t why_size);
/* "bpf" or "perf". */
const char *corecap_kernel_events_producer(const struct corecap_kernel_events *k);
/* On-CPU stacks from now on (before corecap_kernel_events_start): a
 * cpu-clock sample every 1/hz s of each CPU's time, kept when it finds a
 * thread of the target's there, with its user registers and stack; after
 * the window they are unwound into RUN/wall.samples (0: none). A sampler
 * that cannot start is warned about once and leaves hz 0. */
void corecap_kernel_events_set_oncpu(struct corecap_kernel_events *k, unsigned hz);
/* record --wallclock through the kernel (before corecap_kernel_events_start):
 * the cpu-clock samples at hz per CPU second for the threads on a CPU, and
 * hz rounds a second of a sleepable task iterator (kernel_offcpu.h) for
 * the others, runnable or blocked, all unwound into RUN/wall.samples: no
 * thread is stopped. 0, or -errno with the reason in why (nothing
 * changed: the caller falls back to the ptrace sampler). */
int corecap_kernel_events_set_wallclock(struct corecap_kernel_events *k, unsigned hz, char *why,
					size_t why_size);
/* Enables the events and starts the reader thread. */
int corecap_kernel_events_start(struct corecap_kernel_events *k);
/* A WINDOW record (CORECAP_KWINDOW_START / _END) at time_ns; while the
 * reader runs, it writes it (between two drain passes). */
void corecap_kernel_events_window(struct corecap_kernel_events *k, uint32_t what, uint64_t time_ns);
/* Disables the events, drains the rings one last time, joins the reader. */
void corecap_kernel_events_stop(struct corecap_kernel_events *k);
/* After the window: unwinds the stack copies into stacks.bin and removes
 * the raw copies. The daemon's modules come from /proc while it is alive,
 * else from the run's saved maps. */
int corecap_kernel_events_unwind(struct corecap_kernel_events *k, bool daemon_alive);
/* Closes everything (idempotent); returns -EIO if a file was not written whole. */
int corecap_kernel_events_release(struct corecap_kernel_events *k);

#endif
