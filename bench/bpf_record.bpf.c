/*
 * bpf_record.bpf.c: what an eBPF producer of the kernel source's records
 * would cost, for bench/kernel_record_cost.sh (its `bpf` configuration).
 * The events are the collector's (collector/kernel/kernel_events.h): switches,
 * wakings and futex calls' entries and exits, each filtered in the
 * kernel to one process (its tgid) and written as one 32-byte record to
 * a BPF ring buffer (one for all CPUs), or with per_cpu set to the
 * CPU's own perf buffer (bpf_perf_event_output), which bench/bpf_record.c
 * drains. Raw tracepoints,
 * not the perf-type ones: they hand the program the kernel's arguments
 * without building the tracepoint's record first. x86_64 only (the
 * futex call's number, orig_ax). Not part of corecap: a measurement.
 */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define NR_FUTEX 202 /* x86_64 */

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 target_tgid;
const volatile bool per_cpu;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 32 << 20);
} ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} cpu_bufs SEC(".maps");

/* Records the ring had no room for. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

enum { REC_SWITCH = 1, REC_WAKING, REC_FUTEX_ENTER, REC_FUTEX_EXIT };

/* One event: for a switch a = next tid, b = prev_state, c = prev tid; for
 * a waking a = the woken tid; for a futex entry a = op, c = uaddr; for an
 * exit c = the result. tid is the current thread's. */
struct bpf_rec {
	__u64 time_ns;
	__u32 kind, tid;
	__u32 a, b;
	__u64 c;
};

static __always_inline void count_lost(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&lost, &zero);

	if (n)
		(*n)++;
}

static __always_inline int emit(void *ctx, __u32 kind, __u32 a, __u32 b, __u64 c)
{
	struct bpf_rec *r, local;

	if (per_cpu) {
		r = &local;
	} else if (!(r = bpf_ringbuf_reserve(&ring, sizeof(*r), 0))) {
		count_lost();
		return 0;
	}
	r->time_ns = bpf_ktime_get_ns(); /* CLOCK_MONOTONIC */
	r->kind = kind;
	r->tid = (__u32)bpf_get_current_pid_tgid();
	r->a = a;
	r->b = b;
	r->c = c;
	if (per_cpu) {
		if (bpf_perf_event_output(ctx, &cpu_bufs, BPF_F_CURRENT_CPU, r, sizeof(*r)))
			count_lost();
		return 0;
	}
	/* No wake-up: the reader polls, as the collector's watermark does. */
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

static __always_inline int current_is_target(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_tgid;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	if (BPF_CORE_READ(prev, tgid) != (int)target_tgid &&
	    BPF_CORE_READ(next, tgid) != (int)target_tgid)
		return 0;
	return emit(ctx, REC_SWITCH, BPF_CORE_READ(next, pid), prev_state,
		    BPF_CORE_READ(prev, pid));
}

SEC("raw_tp/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	if (BPF_CORE_READ(p, tgid) != (int)target_tgid)
		return 0;
	return emit(ctx, REC_WAKING, BPF_CORE_READ(p, pid), 0, 0);
}

SEC("raw_tp/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long id)
{
	if (id != NR_FUTEX || !current_is_target())
		return 0;
	return emit(ctx, REC_FUTEX_ENTER, (__u32)PT_REGS_PARM2_CORE(regs), 0,
		    PT_REGS_PARM1_CORE(regs));
}

SEC("raw_tp/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	if (!current_is_target() || BPF_CORE_READ(regs, orig_ax) != NR_FUTEX)
		return 0;
	return emit(ctx, REC_FUTEX_EXIT, 0, 0, (__u64)ret);
}
