/*
 * kernel_bpf.bpf.c: the kernel source's eBPF programs (collector/
 * kernel_bpf.h): the same events as its perf tracepoints (switches,
 * wakings, futex calls' entries and exits, thread creation and exit) and
 * user-stack copies of every Nth futex wait and switch-out, filtered in
 * the kernel to one process by its tgid (so its new threads need nothing
 * new) and written to one BPF ring buffer as struct kbpf_rec
 * (kernel_bpf_rec.h), which the collector drains and rewrites as the run
 * directory's records.
 *
 * BTF-typed raw tracepoints (tp_btf) for the scheduler's events: they
 * hand the program the kernel's own arguments, without building a
 * tracepoint record first, as pointers it may read directly (not through
 * a helper call per field); the futex call's own tracepoints (below).
 *
 * A waking from an interrupt is told by the CPU's stack: x86_64 runs hard
 * and soft interrupts on a per-CPU interrupt stack, so a program whose
 * own frame lies outside the current task's stack runs in one (the
 * per-CPU preempt count would say which kind, but its address is not in
 * kallsyms here, and a classic tracepoint's common_flags are hidden from
 * programs). x86_64 only: the
 * kernel's stacks and the registers of a stack copy.
 */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "kernel_bpf_rec.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 target_tgid;

/* Set by the collector while the programs run (kernel_bpf.c). */
volatile __u32 period[2];  /* every Nth futex wait, switch-out gets a stack; 0: none */
volatile __u32 tick_limit[2]; /* stacks of each kind per CPU per tick, at most */
volatile __u64 tick;	   /* the collector's tick (50 ms) */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20); /* set before loading */
} ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kbpf_counts);
} counts SEC(".maps");

#define THREAD_SIZE 16384 /* x86_64's kernel stacks (without KASAN) */
#define PF_KTHREAD  0x00200000

static __always_inline struct kbpf_counts *my_counts(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counts, &zero);
}

static __always_inline void count_lost(void)
{
	struct kbpf_counts *c = my_counts();

	if (c)
		c->lost++;
}

static __always_inline struct kbpf_rec *reserve(__u32 kind)
{
	struct kbpf_rec *r = bpf_ringbuf_reserve(&ring, sizeof(*r), 0);

	if (!r) {
		count_lost();
		return NULL;
	}
	__builtin_memset(r, 0, sizeof(*r));
	/* Stamped after the reservation: a program that interrupts this one
	 * on this CPU between the two comes later in the ring and earlier in
	 * time, and the collector sorts each CPU's records of a drain. */
	r->time_ns = bpf_ktime_get_ns(); /* CLOCK_MONOTONIC */
	r->kind = kind;
	r->cpu = bpf_get_smp_processor_id();
	r->tid = (__s32)bpf_get_current_pid_tgid();
	return r;
}

static __always_inline void submit(void *r)
{
	/* No wake-up: the collector drains the ring on its own clock. */
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/* Whether this futex wait or switch-out (kind 0 or 1) gets a stack. */
static __always_inline bool take_stack(int kind)
{
	struct kbpf_counts *c = my_counts();
	__u32 p = period[kind & 1];
	__u64 n;

	if (!c || !p)
		return false;
	n = ++c->seen[kind & 1];
	if (n % p)
		return false;
	if (c->tick != tick) {
		c->tick = tick;
		c->taken_in_tick[0] = c->taken_in_tick[1] = 0;
	}
	if (c->taken_in_tick[kind & 1] >= tick_limit[kind & 1])
		return false;
	c->taken_in_tick[kind & 1]++;
	return true;
}

/* A copy of the current thread's user stack and registers, for the record
 * stamped time_ns. The copy shrinks until the kernel can read it all (the
 * top of a main thread's stack may lie closer than 16 KiB). */
static __always_inline void emit_stack(struct pt_regs *regs, __u64 time_ns, int kind)
{
	struct kbpf_stack *s = bpf_ringbuf_reserve(&ring, sizeof(*s), 0);
	struct kbpf_counts *c;
	__u64 sp;

	if (!s) {
		count_lost();
		return;
	}
	__builtin_memset(&s->h, 0, sizeof(s->h));
	s->h.time_ns = time_ns;
	s->h.kind = KBPF_STACK;
	s->h.cpu = bpf_get_smp_processor_id();
	s->h.tid = (__s32)bpf_get_current_pid_tgid();
	s->h.b = kind == 0 ? KBPF_STACK_FUTEX : KBPF_STACK_SWITCH;
	s->regs[0] = regs->ax;
	s->regs[1] = regs->bx;
	s->regs[2] = regs->cx;
	s->regs[3] = regs->dx;
	s->regs[4] = regs->si;
	s->regs[5] = regs->di;
	s->regs[6] = regs->bp;
	s->regs[7] = regs->sp;
	s->regs[8] = regs->ip;
	s->regs[9] = regs->r8;
	s->regs[10] = regs->r9;
	s->regs[11] = regs->r10;
	s->regs[12] = regs->r11;
	s->regs[13] = regs->r12;
	s->regs[14] = regs->r13;
	s->regs[15] = regs->r14;
	s->regs[16] = regs->r15;
	sp = s->regs[7];
	if (!bpf_probe_read_user(s->stack, KBPF_STACK_BYTES, (void *)sp))
		s->h.d = KBPF_STACK_BYTES;
	else if (!bpf_probe_read_user(s->stack, KBPF_STACK_BYTES / 2, (void *)sp))
		s->h.d = KBPF_STACK_BYTES / 2;
	else if (!bpf_probe_read_user(s->stack, KBPF_STACK_BYTES / 4, (void *)sp))
		s->h.d = KBPF_STACK_BYTES / 4;
	else if (!bpf_probe_read_user(s->stack, KBPF_STACK_BYTES / 16, (void *)sp))
		s->h.d = KBPF_STACK_BYTES / 16;
	if (!s->h.d) {
		if ((c = my_counts()))
			c->stack_failed[kind & 1]++;
		bpf_ringbuf_discard(s, BPF_RB_NO_WAKEUP);
		return;
	}
	submit(s);
}

static __always_inline bool current_is_target(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_tgid;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	bool mine_prev = prev->tgid == (int)target_tgid;
	bool mine_next = next->tgid == (int)target_tgid;
	struct kbpf_rec *r;
	__u64 t;

	if (!mine_prev && !mine_next)
		return 0;
	if (!(r = reserve(KBPF_SWITCH)))
		return 0;
	r->tid = prev->pid;
	r->a = next->pid;
	r->b = prev_state;
	r->c = prev->exit_state;
	r->flags = (mine_prev ? KBPF_PREV_TARGET : 0) | (mine_next ? KBPF_NEXT_TARGET : 0) |
		   (preempt ? KBPF_PREEMPT : 0);
	t = r->time_ns;
	submit(r);
	/* prev is still current here: its user registers and stack. */
	if (mine_prev && take_stack(1))
		emit_stack((struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf()), t, 1);
	return 0;
}

/* Whether the program runs on an interrupt stack, or in ksoftirqd:
 * the waker is then not the thread the CPU runs. */
static __always_inline bool in_interrupt_context(void)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 base = (__u64)t->stack, sp = 0;
	void *frame = &base;
	char comm[10];

	/* The address of a local, as a number (read through the helper, so
	 * that the verifier sees a value, not a stack pointer). */
	bpf_probe_read_kernel(&sp, sizeof(sp), &frame);
	if (sp - base >= THREAD_SIZE)
		return true;
	if (!(t->flags & PF_KTHREAD))
		return false;
	bpf_probe_read_kernel(comm, sizeof(comm), &t->comm);
	return comm[0] == 'k' && comm[1] == 's' && comm[2] == 'o' && comm[3] == 'f' &&
	       comm[4] == 't' && comm[5] == 'i' && comm[6] == 'r' && comm[7] == 'q' &&
	       comm[8] == 'd';
}

SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	struct kbpf_rec *r;

	if (p->tgid != (int)target_tgid || !(r = reserve(KBPF_WAKING)))
		return 0;
	r->a = p->pid;
	r->b = p->thread_info.cpu;
	if (in_interrupt_context())
		r->flags = KBPF_IRQ;
	submit(r);
	return 0;
}

/*
 * The futex call's own tracepoints (syscalls:sys_enter_futex and
 * sys_exit_futex), not the raw sys_enter and sys_exit: a program there
 * would run at every system call of every process, and the kernel calls
 * these only for futex (its per-call bitmap), as it does perf's events.
 * Their records hold the call's arguments and result.
 */
SEC("tp/syscalls/sys_enter_futex")
int on_futex_enter(struct syscall_trace_enter *ctx)
{
	struct kbpf_rec *r;
	__u32 cmd;
	__u64 t;

	if (!current_is_target() || !(r = reserve(KBPF_FUTEX_ENTER)))
		return 0;
	r->d = ctx->args[0];	    /* uaddr */
	r->b = (__u32)ctx->args[1]; /* op */
	r->c = (__u32)ctx->args[2]; /* val */
	r->f = ctx->args[3];	    /* utime */
	r->e = ctx->args[4];	    /* uaddr2 */
	r->g = (__u32)ctx->args[5]; /* val3 */
	cmd = r->b & 127;
	t = r->time_ns;
	submit(r);
	/* The waits: FUTEX_WAIT, LOCK_PI, WAIT_BITSET, WAIT_REQUEUE_PI, LOCK_PI2;
	 * their user registers are those the system call saved. */
	if ((cmd == 0 || cmd == 6 || cmd == 9 || cmd == 11 || cmd == 13) && take_stack(0))
		emit_stack((struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf()), t, 0);
	return 0;
}

SEC("tp/syscalls/sys_exit_futex")
int on_futex_exit(struct syscall_trace_exit *ctx)
{
	struct kbpf_rec *r;

	if (!current_is_target() || !(r = reserve(KBPF_FUTEX_EXIT)))
		return 0;
	r->d = (__u64)ctx->ret;
	submit(r);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	struct kbpf_rec *r;

	if (!current_is_target() || !(r = reserve(KBPF_FORK)))
		return 0;
	r->a = child->pid;
	if (child->tgid == (int)target_tgid)
		r->flags = KBPF_SAME;
	bpf_probe_read_kernel_str(r->comm, sizeof(r->comm), &child->comm);
	submit(r);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	struct kbpf_rec *r;

	if (p->tgid != (int)target_tgid || !(r = reserve(KBPF_EXIT)))
		return 0;
	r->tid = p->pid;
	/* do_exit() took the thread off signal->live just before. */
	if (p->signal->live.counter == 0)
		r->flags = KBPF_GROUP_DEAD;
	bpf_probe_read_kernel_str(r->comm, sizeof(r->comm), &p->comm);
	submit(r);
	return 0;
}
