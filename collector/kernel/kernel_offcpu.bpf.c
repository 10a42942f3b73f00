/*
 * kernel_offcpu.bpf.c: the off-CPU half of the kernel's wall-clock
 * sampler (kernel_offcpu.h): a sleepable task iterator, attached with its
 * task filter set to the target's tgid (so it visits that process's
 * threads only), run by the collector once per wall-clock round. For
 * every thread not on a CPU it writes the user registers its entry into
 * the kernel saved (a system call's or an interrupt's: bpf_task_pt_regs)
 * and a copy of the top of its user stack (bpf_copy_from_user_task, which
 * may fault pages in: hence sleepable), to unwind after the window as the
 * on-CPU copies are. A thread on a CPU is skipped: the cpu-clock samples
 * carry it (a short record says it was visited). Nothing of the target
 * is stopped, signalled or written.
 */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "kernel_offcpu_rec.h"

char LICENSE[] SEC("license") = "GPL";

struct koff_counts counts;

/* The stack copy: too large for the program's stack. The iterator runs
 * with migration disabled, one read at a time per link. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, unsigned char[KOFF_STACK_BYTES]);
} copy_buf SEC(".maps");

/* Per thread: its switch count and run time when its last copy was
 * written. Unchanged, it has not run since: its registers and stack are
 * the same, and a short record (KOFF_SAME) stands for the copy. */
struct last_copy {
	__u64 switches, runtime;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct last_copy);
} last SEC(".maps");

static __always_inline __u64 switches(struct task_struct *t)
{
	return BPF_CORE_READ(t, nvcsw) + BPF_CORE_READ(t, nivcsw);
}

static long stack_end(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	*(__u64 *)data = vma->vm_end;
	return 1;
}

/* A thread visited without a sample of the iterator's (on a CPU, left to
 * the cpu-clock samples, or its copy failed or dropped): a short record,
 * so that the collector knows which threads each round found, and how
 * many samples are due to each (kernel_coverage.h). */
static __always_inline void visit(struct seq_file *seq, struct koff_rec *r, struct task_struct *t)
{
	r->tid = BPF_CORE_READ(t, pid);
	r->state = BPF_CORE_READ(t, __state);
	r->time_ns = bpf_ktime_get_ns();
	r->bytes = 0;
	r->flags = KOFF_VISIT;
	if (bpf_seq_write(seq, r, sizeof(*r)))
		counts.full++;
}

SEC("iter.s/task")
int offcpu_iter(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	struct koff_rec r = {.magic = KOFF_MAGIC};
	struct pt_regs *regs;
	unsigned char *buf;
	__u32 zero = 0;
	struct last_copy *lc;
	__u64 sw, end, n, runtime;
	long err = -1;

	if (!t)
		return 0;
	/* A thread on its way out, or without a user address space. */
	if (BPF_CORE_READ(t, exit_state) || !BPF_CORE_READ(t, mm))
		return 0;
	counts.threads++;
	if (BPF_CORE_READ(t, on_cpu)) {
		counts.on_cpu++;
		visit(seq, &r, t);
		return 0;
	}
	/* Runnable on this CPU since the collector took it (queued at or
	 * after its arrival, by the CPU's one run-queue clock): it waits for
	 * the round itself, and would be on the CPU, its time carried by the
	 * cpu-clock samples, were the collector not running. Counted
	 * runnable, a thread that shares the collector's CPU would gain a
	 * sample at every round that preempts it. */
	if (BPF_CORE_READ(t, __state) == 0 &&
	    BPF_CORE_READ(t, thread_info.cpu) == bpf_get_smp_processor_id()) {
		struct task_struct *me = bpf_get_current_task_btf();
		__u64 queued = BPF_CORE_READ(t, sched_info.last_queued);

		if (queued && queued >= BPF_CORE_READ(me, sched_info.last_arrival)) {
			counts.displaced++;
			visit(seq, &r, t);
			return 0;
		}
	}
	buf = bpf_map_lookup_elem(&copy_buf, &zero);
	if (!buf)
		return 0;
	r.tid = BPF_CORE_READ(t, pid);
	r.state = BPF_CORE_READ(t, __state);
	r.time_ns = bpf_ktime_get_ns();
	sw = switches(t);
	runtime = BPF_CORE_READ(t, se.sum_exec_runtime);
	lc = bpf_task_storage_get(&last, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (lc && lc->switches == sw && lc->runtime == runtime && sw) {
		r.flags = KOFF_SAME;
		if (bpf_seq_write(seq, &r, sizeof(r))) {
			counts.full++;
			return 0;
		}
		counts.written++;
		counts.same++;
		counts.runnable += r.state == 0;
		return 0;
	}
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	r.regs[0] = BPF_CORE_READ(regs, ax);
	r.regs[1] = BPF_CORE_READ(regs, bx);
	r.regs[2] = BPF_CORE_READ(regs, cx);
	r.regs[3] = BPF_CORE_READ(regs, dx);
	r.regs[4] = BPF_CORE_READ(regs, si);
	r.regs[5] = BPF_CORE_READ(regs, di);
	r.regs[6] = BPF_CORE_READ(regs, bp);
	r.regs[7] = BPF_CORE_READ(regs, sp);
	r.regs[8] = BPF_CORE_READ(regs, ip);
	r.regs[9] = BPF_CORE_READ(regs, r8);
	r.regs[10] = BPF_CORE_READ(regs, r9);
	r.regs[11] = BPF_CORE_READ(regs, r10);
	r.regs[12] = BPF_CORE_READ(regs, r11);
	r.regs[13] = BPF_CORE_READ(regs, r12);
	r.regs[14] = BPF_CORE_READ(regs, r13);
	r.regs[15] = BPF_CORE_READ(regs, r14);
	r.regs[16] = BPF_CORE_READ(regs, r15);
	/* All or nothing: up to the end of the stack's mapping (a main
	 * thread's top lies closer than 16 KiB; halving would lose up to half
	 * of what is there), else shrinking. */
	end = 0;
	bpf_find_vma(t, r.regs[7], stack_end, &end, 0);
	n = KOFF_STACK_BYTES;
	if (end > r.regs[7] && end - r.regs[7] < n)
		n = end - r.regs[7];
	n &= KOFF_STACK_BYTES * 2 - 1; /* for the verifier: at most 16 KiB */
	if (n > KOFF_STACK_BYTES)
		n = KOFF_STACK_BYTES;
	if (n && !bpf_copy_from_user_task(buf, n, (void *)r.regs[7], t, 0))
		r.bytes = n;
	else if (!bpf_copy_from_user_task(buf, KOFF_STACK_BYTES / 4, (void *)r.regs[7], t, 0))
		r.bytes = KOFF_STACK_BYTES / 4;
	else if (!bpf_copy_from_user_task(buf, KOFF_STACK_BYTES / 16, (void *)r.regs[7], t, 0))
		r.bytes = KOFF_STACK_BYTES / 16;
	if (!r.bytes) {
		counts.failed++;
		visit(seq, &r, t);
		return 0;
	}
	/* It ran meanwhile: its registers and stack may disagree. */
	if (BPF_CORE_READ(t, on_cpu) || switches(t) != sw) {
		counts.moved++;
		visit(seq, &r, t);
		return 0;
	}
	if (bpf_seq_write(seq, &r, sizeof(r))) {
		counts.full++;
		return 0;
	}
	n = r.bytes;
	if (n > KOFF_STACK_BYTES)
		return 0;
	err = bpf_seq_write(seq, buf, n);
	if (err) {
		counts.full++;
		return 0;
	}
	if (lc) {
		lc->switches = sw;
		lc->runtime = runtime;
	}
	counts.written++;
	counts.runnable += r.state == 0;
	return 0;
}
