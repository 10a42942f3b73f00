/*
 * kernel_bpf.bpf.c: the kernel source's eBPF programs (collector/kernel/
 * kernel_bpf.h): the same events as its perf tracepoints (switches,
 * wakings, thread creation and exit, the futex calls that slept or woke
 * a thread) and user-stack copies of every Nth futex wait and switch-out,
 * filtered in the kernel to one process by its tgid (so its new threads
 * need nothing new) and written to one BPF ring buffer as struct kbpf_rec
 * (kernel_bpf_rec.h), which the collector drains and rewrites as the run
 * directory's records.
 *
 * BTF-typed raw tracepoints (tp_btf) for the scheduler's events: they
 * hand the program the kernel's own arguments, without building a
 * tracepoint record first, as pointers it may read directly (not through
 * a helper call per field). No system-call tracepoint: a futex call is
 * read from the registers its thread's system call saved, when the
 * thread sleeps in it or wakes another with it (below).
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

#include "corecap/kernel_format.h" /* its futex command classes alone (__bpf__) */
#include "kernel_bpf_rec.h"

#define NR_FUTEX     202 /* x86_64's futex system call */
#define TASK_RUNNING 0

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 target_tgid;

/* Set by the collector while the programs run (kernel_bpf.c). */
volatile __u32 period[2];     /* every Nth futex wait, switch-out gets a stack; 0: none */
volatile __u32 tick_limit[2]; /* stacks of each kind per CPU per tick, at most */
volatile __u64 tick;	      /* the collector's tick (50 ms) */

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

/* The waking each thread of the target's was last woken by, held until it
 * is switched in (struct kbpf_woken; on_waking, on_switch): a slot per
 * thread id modulo KBPF_WOKEN_SLOTS, claimed by the waking (owner from
 * 0 to the thread's id) and freed by the switch-in. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KBPF_WOKEN_SLOTS);
	__type(key, __u32);
	__type(value, struct kbpf_woken);
} woken SEC(".maps");

static __always_inline struct kbpf_woken *woken_slot(__s32 tid)
{
	__u32 i = (__u32)tid & (KBPF_WOKEN_SLOTS - 1);

	return bpf_map_lookup_elem(&woken, &i);
}

/* A slot read and freed by its thread's switch-in: the next waking of a
 * thread of that slot may claim it. */
static __always_inline void woken_free(struct kbpf_woken *w)
{
	asm volatile("" ::: "memory");
	w->time_ns = 0;
	*(volatile __u64 *)&w->owner = 0;
}

#define THREAD_SIZE 16384 /* x86_64's kernel stacks (without KASAN) */
#define PF_KTHREAD  0x00200000

static __always_inline struct kbpf_counts *my_counts(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counts, &zero);
}

/* n records the ring had no room for (a switch or waking record carries
 * up to three of the run's). */
static __always_inline void count_lost(__u64 n)
{
	struct kbpf_counts *c = my_counts();

	if (c)
		c->lost += n;
}

static __always_inline struct kbpf_rec *reserve(__u32 kind, __u64 records)
{
	struct kbpf_rec *r = bpf_ringbuf_reserve(&ring, sizeof(*r), 0);

	if (!r) {
		count_lost(records);
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
 * stamped time_ns (kind 0: a futex wait's, 1: a switch-out's, 2: a
 * cpu-clock sample's). The copy shrinks until the kernel can read it all
 * (the top of a main thread's stack may lie closer than 16 KiB). */
static __always_inline void emit_stack(struct pt_regs *regs, __u64 time_ns, int kind)
{
	struct kbpf_stack *s = bpf_ringbuf_reserve(&ring, sizeof(*s), 0);
	struct kbpf_counts *c;
	__u64 sp;

	if (!s) {
		count_lost(1);
		if (kind == 2 && (c = my_counts()))
			c->cpu_failed++;
		return;
	}
	__builtin_memset(&s->h, 0, sizeof(s->h));
	s->h.time_ns = time_ns;
	s->h.kind = KBPF_STACK;
	s->h.cpu = bpf_get_smp_processor_id();
	s->h.tid = (__s32)bpf_get_current_pid_tgid();
	s->h.copy.kind = kind == 0 ? KBPF_STACK_FUTEX : kind == 1 ? KBPF_STACK_SWITCH : KBPF_STACK_CPU;
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
		s->h.copy.bytes = KBPF_STACK_BYTES;
	else if (!bpf_probe_read_user(s->stack, KBPF_STACK_BYTES / 2, (void *)sp))
		s->h.copy.bytes = KBPF_STACK_BYTES / 2;
	else if (!bpf_probe_read_user(s->stack, KBPF_STACK_BYTES / 4, (void *)sp))
		s->h.copy.bytes = KBPF_STACK_BYTES / 4;
	else if (!bpf_probe_read_user(s->stack, KBPF_STACK_BYTES / 16, (void *)sp))
		s->h.copy.bytes = KBPF_STACK_BYTES / 16;
	if (!s->h.copy.bytes) {
		if ((c = my_counts()) && kind == 2)
			c->cpu_failed++;
		else if (c)
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

/*
 * The futex call a thread is inside, from the user registers its system
 * call saved (orig_ax the call's number, then its arguments in di, si,
 * dx, r10, r8, r9), as the record kind asks: a wait or a wake, the
 * classes of corecap/kernel_format.h (CORECAP_FUTEX_WAIT_CMDS, _WAKE_CMDS).
 */
static __always_inline bool in_futex(struct pt_regs *regs, bool wait)
{
	__u32 op;

	if (regs->orig_ax != NR_FUTEX)
		return false;
	op = (__u32)regs->si;
	return wait ? CORECAP_FUTEX_IS_WAIT(op) : CORECAP_FUTEX_IS_WAKE(op);
}

/* A futex call's arguments, from the registers its system call saved,
 * into the switch or waking record that carries its entry. */
static __always_inline void futex_args(struct kbpf_futex_enter *f, struct pt_regs *regs)
{
	/* futex(uaddr, op, val, utime, uaddr2, val3) */
	f->uaddr = regs->di;
	f->op = (__u32)regs->si;
	f->val = (__u32)regs->dx;
	f->utime = regs->r10;
	f->uaddr2 = regs->r8;
	f->val3 = (__u32)regs->r9;
}

/*
 * A switch. A thread of the target's that goes to sleep inside a futex
 * wait has the wait's entry recorded just before (and, every Nth time,
 * the stack that called it); one switched in inside a futex wait has its
 * end recorded just after (it was woken, or the call was interrupted: it
 * returns from there). A futex wait that does not sleep (the word had
 * changed) is not recorded. All three ride in one ring record
 * (KBPF_WITH_ENTER, KBPF_WITH_EXIT): the drain writes them apart, the
 * entry 1 ns before the switch and the end 1 ns after.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	bool mine_prev = prev->tgid == (int)target_tgid;
	bool mine_next = next->tgid == (int)target_tgid;
	struct kbpf_switch_woken *wr = NULL;
	struct kbpf_woken *held = NULL;
	struct pt_regs *regs;
	struct kbpf_rec *r;
	bool fenter, fexit;
	__u64 t;

	if (!mine_prev && !mine_next)
		return 0;
	/* prev is still current here: its user registers and stack. */
	regs = (struct pt_regs *)bpf_task_pt_regs(prev);
	fenter = mine_prev && !preempt && prev_state != TASK_RUNNING && in_futex(regs, true);
	fexit = mine_next && in_futex((struct pt_regs *)bpf_task_pt_regs(next), true);
	/* The waking that made next runnable, if its hook held it. */
	if (mine_next && (held = woken_slot(next->pid)) &&
	    (held->owner != (__u64)next->pid || !held->time_ns))
		held = NULL;
	if (held) {
		wr = bpf_ringbuf_reserve(&ring, sizeof(*wr), 0);
		if (!wr) {
			count_lost(2 + fenter + fexit + 2 * !!(held->flags & KBPF_WITH_ENTER));
			woken_free(held);
			return 0;
		}
		__builtin_memset(&wr->h, 0, sizeof(wr->h));
		__builtin_memcpy(&wr->woken, held, sizeof(wr->woken));
		woken_free(held);
		r = &wr->h;
		r->time_ns = bpf_ktime_get_ns();
		r->kind = KBPF_SWITCH;
		r->cpu = bpf_get_smp_processor_id();
	} else if (!(r = reserve(KBPF_SWITCH, 1 + fenter + fexit))) {
		return 0;
	}
	r->tid = prev->pid;
	r->sw.next_tid = next->pid;
	r->sw.prev_state = prev_state;
	r->sw.prev_exit_state = prev->exit_state;
	r->flags = (mine_prev ? KBPF_PREV_TARGET : 0) | (mine_next ? KBPF_NEXT_TARGET : 0) |
		   (preempt ? KBPF_PREEMPT : 0) | (fenter ? KBPF_WITH_ENTER : 0) |
		   (fexit ? KBPF_WITH_EXIT : 0) | (held ? KBPF_WITH_WOKEN : 0);
	if (fenter)
		futex_args(&r->sw.futex, regs);
	t = r->time_ns;
	submit(r);
	/* The wait's stack is stamped with its entry's time (the drain's). */
	if (fenter && take_stack(0))
		emit_stack(regs, t - 1, 0);
	if (mine_prev && take_stack(1))
		emit_stack(regs, t, 1);
	return 0;
}

/*
 * A cpu-clock sample (a perf event per CPU that the collector opens and
 * attaches this program to, kernel_bpf.c): when the CPU runs a thread of
 * the target's, its user registers (those its last entry into the kernel
 * saved, whether the tick interrupted it in user code or in a system
 * call) and a copy of its user stack, to unwind after the window like the
 * switch-outs' (the wall-clock samples of a thread on a CPU). Returning
 * 0 keeps perf from writing a sample of its own.
 */
SEC("perf_event")
int on_cpu_clock(struct bpf_perf_event_data *ctx)
{
	struct task_struct *cur;
	struct kbpf_counts *c;

	(void)ctx;
	if (!current_is_target())
		return 0;
	cur = bpf_get_current_task_btf();
	if (cur->flags & PF_KTHREAD)
		return 0;
	if ((c = my_counts()))
		c->cpu_samples++;
	emit_stack((struct pt_regs *)bpf_task_pt_regs(cur), bpf_ktime_get_ns(), 2);
	return 0;
}

/* Whether the program runs on an interrupt stack, or in ksoftirqd:
 * the waker is then not the thread the CPU runs. */
static __always_inline bool in_interrupt_context(void)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 base = (__u64)t->stack, sp;

	/* The program's frame pointer, as a number: the verifier lets a
	 * program that may read kernel memory compare it (a probe read of a
	 * local's address took a helper call, about 40 ns a waking here). */
	asm volatile("%0 = r10" : "=r"(sp));
	if (sp - base >= THREAD_SIZE)
		return true;
	if (!(t->flags & PF_KTHREAD))
		return false;
	return t->comm[0] == 'k' && t->comm[1] == 's' && t->comm[2] == 'o' && t->comm[3] == 'f' &&
	       t->comm[4] == 't' && t->comm[5] == 'i' && t->comm[6] == 'r' && t->comm[7] == 'q' &&
	       t->comm[8] == 'd';
}

/*
 * A waking. When a thread of the target's wakes it with a futex call (not
 * an interrupt on that thread's CPU), the call's entry is recorded just
 * before and its end just after (carried in the waking's ring record,
 * written 1 ns either side of it by the drain): a FUTEX_WAKE that wakes
 * several threads is recorded once per thread it wakes, one that wakes
 * none not at all.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	struct task_struct *cur;
	struct pt_regs *regs = NULL;
	struct kbpf_rec *r;
	struct kbpf_woken *h = NULL;
	bool irq, wake = false;

	if (p->tgid != (int)target_tgid)
		return 0;
	irq = in_interrupt_context();
	if (!irq && current_is_target()) {
		cur = bpf_get_current_task_btf();
		regs = (struct pt_regs *)bpf_task_pt_regs(cur);
		wake = in_futex(regs, false);
	}
	/* Off every CPU (p->on_cpu 0: not running, not being switched
	 * out), p is switched in after this waking and before any other,
	 * whether it left its run queue or stayed on it, its dequeue delayed
	 * (EEVDF): held for that switch-in's record. On a CPU (woken before
	 * its switch-out, which then does not happen, or during it), or with
	 * its slot taken by another thread's waking: a record of its own, as
	 * before. A thread preempted in a sleeping state is on no CPU and is
	 * switched in again, but maybe before its waking's time is written
	 * here: that switch-in passes the slot by, a later one (or the
	 * collector, after the window) writes the waking, at its own time. */
	if (!p->on_cpu && (h = woken_slot(p->pid)) &&
	    __sync_val_compare_and_swap(&h->owner, 0, (__u64)p->pid) == 0) {
		h->waker_tid = (__s32)bpf_get_current_pid_tgid();
		h->cpu = bpf_get_smp_processor_id();
		h->target_cpu = p->thread_info.cpu;
		h->flags = (irq ? KBPF_IRQ : 0) | (wake ? KBPF_WITH_ENTER | KBPF_WITH_EXIT : 0);
		if (wake)
			futex_args(&h->futex, regs);
		/* Last: the switch-in takes a held waking by its time. */
		asm volatile("" ::: "memory");
		*(volatile __u64 *)&h->time_ns = bpf_ktime_get_ns();
		return 0;
	}
	if (!(r = reserve(KBPF_WAKING, 1 + 2 * wake)))
		return 0;
	r->waking.woken_tid = p->pid;
	r->waking.target_cpu = p->thread_info.cpu;
	if (irq)
		r->flags = KBPF_IRQ;
	if (wake) {
		r->flags |= KBPF_WITH_ENTER | KBPF_WITH_EXIT;
		futex_args(&r->waking.futex, regs);
	}
	submit(r);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	struct kbpf_rec *r;

	if (!current_is_target() || !(r = reserve(KBPF_FORK, 1)))
		return 0;
	r->fork.child_tid = child->pid;
	if (child->tgid == (int)target_tgid)
		r->flags = KBPF_SAME;
	bpf_probe_read_kernel_str(r->fork.child_comm, sizeof(r->fork.child_comm), &child->comm);
	submit(r);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	struct kbpf_rec *r;

	if (p->tgid != (int)target_tgid || !(r = reserve(KBPF_EXIT, 1)))
		return 0;
	r->tid = p->pid;
	/* do_exit() took the thread off signal->live just before. */
	if (p->signal->live.counter == 0)
		r->flags = KBPF_GROUP_DEAD;
	bpf_probe_read_kernel_str(r->exit.comm, sizeof(r->exit.comm), &p->comm);
	submit(r);
	return 0;
}
