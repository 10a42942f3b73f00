/* The eBPF producer's ring, drained into the run's records (kernel_bpf_drain.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/kernel_format.h>
#include <corecap/diag.h>
#include "kernel_bpf.h"
#include "kernel_bpf_drain.h"
#include "kernel_events.h"
#include "kernel_out_sort.h"
#include "kernel_stacks.h"
#include "kernel_state.h"
#include "kernel_tids.h"
#include "kernel_unwind.h"
#include "kernel_writer.h"
#include "util/mono_clock.h"

/* The eBPF producer's one ring: twice the perf rings' bytes of every CPU
 * (its records are 80 bytes, perf's 32 to 56 with their sample headers),
 * rounded up to a power of two. */
static size_t bpf_ring_bytes(const struct corecap_kernel_events *k)
{
	size_t want = 2 * k->ring_bytes * (size_t)(k->nr_cpus > 0 ? k->nr_cpus : 1), n = 4096;

	while (n < want)
		n *= 2;
	return n;
}

/* The eBPF producer, when `via` lets it and it loads: 0 (k->bpf set, or
 * left NULL for perf under AUTO), or -errno when BPF was required. */
int kernel_open_bpf(struct corecap_kernel_events *k, enum corecap_kernel_via via, char *why,
		    size_t why_size)
{
	char bwhy[512];
	int ret;

	if (via == CORECAP_KERNEL_VIA_PERF)
		return 0;
	ret = corecap_kernel_bpf_open(&k->bpf, k->pid, bpf_ring_bytes(k), bwhy, sizeof(bwhy));
	/* Attached once and at once detached: what cannot attach fails here,
	 * where perf can still take over, rather than at the window's start. */
	if (ret == 0 && (ret = corecap_kernel_bpf_attach(k->bpf, bwhy, sizeof(bwhy))) == 0) {
		corecap_kernel_bpf_detach(k->bpf);
		k->bpf_counts = calloc((size_t)k->nr_cpus, sizeof(*k->bpf_counts));
		if (k->bpf_counts) {
			k->ring_bytes = bpf_ring_bytes(k);
			k->stats.kernel_filter = true; /* the programs' tgid test */
			return 0;
		}
		ret = -ENOMEM;
		snprintf(bwhy, sizeof(bwhy), "out of memory");
	}
	corecap_kernel_bpf_close(k->bpf);
	k->bpf = NULL;
	free(k->bpf_counts);
	k->bpf_counts = NULL;
	if (via == CORECAP_KERNEL_VIA_BPF) {
		snprintf(why, why_size, "%s", bwhy);
		return ret;
	}
	if (ret != -ENOTSUP)
		corecap_note("kernel events through perf_event_open(2): %s", bwhy);
	return 0;
}

/* The eBPF producer's records. */

_Static_assert(KBPF_STACK_BYTES == CORECAP_KERNEL_STACK_USER_BYTES, "the programs' stack copy");
_Static_assert(KBPF_NREGS == CORECAP_KUNWIND_NREGS, "the programs' registers, the unwinder's");

/*
 * sched_switch's prev_state as its tracepoint reports it
 * (__trace_sched_switch_state): TASK_REPORT_MAX (0x100) when preempted,
 * else the highest bit of the reported state (TASK_REPORT 0x7f of the
 * task's and its exit state; TASK_IDLE 0x402 reports as 0x80, a
 * TASK_RTLOCK_WAIT 0x1000 sleep as D).
 */
static int64_t reported_state(uint32_t state, uint32_t exit_state, bool preempt)
{
	uint32_t r = (state | exit_state) & 0x7f;

	if (preempt)
		return 0x100;
	if (state == 0x402)
		r = 0x80;
	if (state & 0x1000)
		r = 0x2;
	return r ? (int64_t)1 << (31 - __builtin_clz(r)) : 0;
}

/* The run's record for ring record r, counted as tracepoint tp's, at
 * r's time plus dt ns. */
static void *bpf_out_at(struct corecap_kernel_events *k, const struct kbpf_rec *r, uint16_t type,
			uint16_t size, int tp, int64_t dt)
{
	void *o = kernel_out_reserve(k, type, size, r->cpu,
				     r->time_ns + (uint64_t)k->clock_offset_ns + (uint64_t)dt);

	if (o)
		k->stats.records[tp]++;
	return o;
}

static void *bpf_out(struct corecap_kernel_events *k, const struct kbpf_rec *r, uint16_t type,
		     uint16_t size, int tp)
{
	return bpf_out_at(k, r, type, size, tp, 0);
}

/*
 * The futex call's entry a switch or waking ring record carries
 * (KBPF_WITH_ENTER), thread tid's, 1 ns before the record: it was its
 * own ring record just before the switch or waking until the programs
 * folded it in, and a reader orders the run's records by time.
 */
static void bpf_futex_enter(struct corecap_kernel_events *k, const struct kbpf_rec *r, int32_t tid,
			    const struct kbpf_futex_enter *f)
{
	struct corecap_krec_futex_enter *fe = bpf_out_at(k, r, CORECAP_KREC_FUTEX_ENTER,
							 sizeof(*fe), CORECAP_KTP_FUTEX_ENTER, -1);

	if (!fe)
		return;
	fe->tid = tid;
	fe->op = f->op;
	fe->val = f->val;
	fe->uaddr = f->uaddr;
	fe->uaddr2 = f->uaddr2;
	fe->utime = f->utime;
	fe->val3 = f->val3;
}

/* The end of thread tid's futex call (KBPF_WITH_EXIT), 1 ns after the
 * record, its result unknown: the programs see the call before it returns
 * (ret stays 0). */
static void bpf_futex_exit(struct corecap_kernel_events *k, const struct kbpf_rec *r, int32_t tid)
{
	struct corecap_krec_futex_exit *fx =
		bpf_out_at(k, r, CORECAP_KREC_FUTEX_EXIT, sizeof(*fx), CORECAP_KTP_FUTEX_EXIT, 1);

	if (!fx)
		return;
	fx->tid = tid;
	fx->flags = CORECAP_KFUTEX_RESULT_UNKNOWN;
}

/* A switch record's fields from ring record r. */
static void switch_fill(struct corecap_kernel_events *k, const struct kbpf_rec *r,
			struct corecap_krec_switch *o)
{
	bool preempted;

	o->prev_tid = r->tid;
	o->next_tid = r->sw.next_tid;
	o->prev_state =
		reported_state(r->sw.prev_state, r->sw.prev_exit_state, r->flags & KBPF_PREEMPT);
	o->prev_state_char = (uint8_t)kernel_state_char(o->prev_state, &preempted);
	o->flags = ((r->flags & KBPF_PREV_TARGET) ? CORECAP_KSWITCH_PREV_TARGET : 0) |
		   ((r->flags & KBPF_NEXT_TARGET) ? CORECAP_KSWITCH_NEXT_TARGET : 0) |
		   (preempted ? CORECAP_KSWITCH_PREEMPTED : 0);
	if (!(r->flags & KBPF_NEXT_TARGET))
		kernel_holders_meet(&k->holders, r->sw.next_tid);
}

static void on_bpf_waking(struct corecap_kernel_events *k, const struct kbpf_rec *r)
{
	struct corecap_krec_waking *w;

	if (r->flags & KBPF_WITH_ENTER)
		bpf_futex_enter(k, r, r->tid, &r->waking.futex);
	if ((w = bpf_out(k, r, CORECAP_KREC_WAKING, sizeof(*w), CORECAP_KTP_WAKING))) {
		w->tid = r->waking.woken_tid;
		w->waker_tid = r->tid;
		w->target_cpu = (int32_t)r->waking.target_cpu;
		w->flags = (r->flags & KBPF_IRQ) ? CORECAP_KWAKING_IRQ : 0;
	}
	if (r->flags & KBPF_WITH_EXIT)
		bpf_futex_exit(k, r, r->tid);
}

/*
 * A held waking (struct kbpf_woken) of thread woken_tid, written as its
 * own ring record would have been: at its time, on the waker's CPU, so
 * the run holds the same records as when each waking had a ring record.
 */
static void woken_as_waking(void *ctx, const struct kbpf_woken *wo, int32_t woken_tid)
{
	struct corecap_kernel_events *k = ctx;
	struct kbpf_rec w = {
		.time_ns = wo->time_ns,
		.kind = KBPF_WAKING,
		.cpu = wo->cpu,
		.tid = wo->waker_tid,
		.flags = wo->flags,
		.waking = {.woken_tid = woken_tid, .target_cpu = wo->target_cpu},
	};

	if (wo->cpu >= (uint32_t)k->nr_cpus)
		return;
	w.waking.futex = wo->futex;
	on_bpf_waking(k, &w);
}

/* The waking a switch-in carries (KBPF_WITH_WOKEN). It lands in this
 * drain's batch, sorted with it; one that happened before the previous
 * drain (its thread waited that long to run) lands after records of its
 * CPU that are later, and the reader sorts it in. */
static void on_bpf_woken(struct corecap_kernel_events *k, const struct kbpf_rec *r, size_t size)
{
	if (size >= sizeof(struct kbpf_switch_woken))
		woken_as_waking(k, &((const struct kbpf_switch_woken *)(const void *)r)->woken,
				r->sw.next_tid);
}

static void on_bpf_switch(struct corecap_kernel_events *k, const struct kbpf_rec *r, size_t size)
{
	struct corecap_krec_switch *o;

	/* In time order: the entry, the switch, the end. */
	if (r->flags & KBPF_WITH_ENTER)
		bpf_futex_enter(k, r, r->tid, &r->sw.futex);
	if ((o = bpf_out(k, r, CORECAP_KREC_SWITCH, sizeof(*o), CORECAP_KTP_SWITCH)))
		switch_fill(k, r, o);
	if (r->flags & KBPF_WITH_EXIT)
		bpf_futex_exit(k, r, r->sw.next_tid);
	if (r->flags & KBPF_WITH_WOKEN)
		on_bpf_woken(k, r, size);
}

static void on_bpf_fork(struct corecap_kernel_events *k, const struct kbpf_rec *r)
{
	struct corecap_krec_fork *o =
		bpf_out(k, r, CORECAP_KREC_FORK, sizeof(*o), CORECAP_KTP_FORK);

	if (!o)
		return;
	o->parent_tid = r->tid;
	o->child_tid = r->fork.child_tid;
	memcpy(o->child_comm, r->fork.child_comm, sizeof(o->child_comm) - 1);
	if (r->flags & KBPF_SAME) {
		o->flags = CORECAP_KFORK_SAME_PROCESS;
		kernel_tids_add(k, r->fork.child_tid);
	}
}

/* One record of the ring, rewritten as the run's (on_sample's work for perf). */
static void on_bpf(void *ctx, const struct kbpf_rec *r, size_t size)
{
	struct corecap_kernel_events *k = ctx;
	struct corecap_krec_exit *x;

	k->bpf_drained += size;
	if (r->cpu >= (uint32_t)k->nr_cpus)
		return;
	switch (r->kind) {
	case KBPF_SWITCH:
		on_bpf_switch(k, r, size);
		break;
	case KBPF_WAKING:
		on_bpf_waking(k, r);
		break;
	case KBPF_FORK:
		on_bpf_fork(k, r);
		break;
	case KBPF_EXIT:
		if (!(x = bpf_out(k, r, CORECAP_KREC_EXIT, sizeof(*x), CORECAP_KTP_EXIT)))
			break;
		x->tid = r->tid;
		x->flags = (r->flags & KBPF_GROUP_DEAD) ? CORECAP_KEXIT_GROUP_DEAD : 0;
		memcpy(x->comm, r->exit.comm, sizeof(x->comm) - 1);
		break;
	case KBPF_STACK: {
		const struct kbpf_stack *st = (const void *)r;
		int kind = r->copy.kind == KBPF_STACK_FUTEX ? STACK_FUTEX
			   : r->copy.kind == KBPF_STACK_CPU ? STACK_CPU
							    : STACK_SWITCH;

		if (kind == STACK_CPU) {
			if (size >= sizeof(*st))
				kernel_store_stack(k, kind, r->tid, r->cpu,
						   r->time_ns + (uint64_t)k->clock_offset_ns,
						   (const uint64_t *)st->regs, st->stack,
						   sizeof(st->stack), r->copy.bytes);
			break;
		}
		/* Stamped with its record's time: matched by construction. */
		if (size >= sizeof(*st) &&
		    kernel_store_stack(k, kind, r->tid, r->cpu,
				       r->time_ns + (uint64_t)k->clock_offset_ns,
				       (const uint64_t *)st->regs, st->stack, sizeof(st->stack),
				       r->copy.bytes))
			k->stacks[k->n_stacks - 1].matched = true;
		break;
	}
	}
}

/* The records from out[from] on, each CPU's together and in time order
 * (kernel_out_sort.h). */
static void sort_out(struct corecap_kernel_events *k, size_t from)
{
	corecap_kernel_out_sort(k->out + from, k->out_len - from, k->nr_cpus);
}

/* The programs' lost records since the last look, as LOST records. */
static void bpf_losses(struct corecap_kernel_events *k, const struct kbpf_counts *c)
{
	uint64_t now = corecap_now_ns(), unreadable = 0, oncpu_lost = 0;

	for (int i = 0; i < k->nr_cpus; i++) {
		uint64_t lost = c[i].lost > k->stats.lost_per_cpu[i]
					? c[i].lost - k->stats.lost_per_cpu[i]
					: 0;
		struct corecap_krec_lost *r;

		unreadable += c[i].stack_failed[0] + c[i].stack_failed[1];
		oncpu_lost += c[i].cpu_failed;
		if (!lost)
			continue;
		k->stats.lost_total += lost;
		k->stats.lost_per_cpu[i] += lost;
		if ((r = kernel_out_reserve(k, CORECAP_KREC_LOST, sizeof(*r), (uint32_t)i, now)))
			r->lost = lost;
	}
	k->stats.stacks_unreadable = unreadable;
	k->stats.oncpu_lost = oncpu_lost;
}

void kernel_drain_bpf(struct corecap_kernel_events *k)
{
	size_t from = k->out_len;
	int ret;

	k->bpf_drained = 0;
	ret = corecap_kernel_bpf_drain(k->bpf, on_bpf, k);
	if (ret < 0 && !k->stats.write_error) {
		corecap_warn("kernel events: cannot read the eBPF ring buffer: %s", strerror(-ret));
		k->stats.write_error = true;
	}
	/* Read once per drain, for the losses here and the periods after. */
	k->bpf_counts_read = corecap_kernel_bpf_counts(k->bpf, k->bpf_counts, k->nr_cpus) == 0;
	if (k->bpf_counts_read)
		bpf_losses(k, k->bpf_counts);
	sort_out(k, from);
}

/* After the programs' detach and the last drain: the wakings still held
 * for a switch-in that did not come (their thread was still runnable). */
void kernel_drain_bpf_held(struct corecap_kernel_events *k)
{
	size_t from = k->out_len;

	if (corecap_kernel_bpf_held_wakings(k->bpf, woken_as_waking, k) > 0)
		sort_out(k, from);
}

/* Stack periods under eBPF: kernel_perf_adjust_periods' rule, with one period for all
 * CPUs (the programs count every CPU's hits alike) and the burst bound
 * enforced by the programs themselves, per CPU and tick. The counts are
 * the drain's just before (reader_main). */
void kernel_adjust_bpf(struct corecap_kernel_events *k, uint64_t interval_ns)
{
	if (interval_ns > 0 && k->bpf_counts_read) {
		for (int kind = 0; kind < STACK_KINDS; kind++) {
			uint64_t seen = 0;

			for (int i = 0; i < k->nr_cpus; i++)
				seen += k->bpf_counts[i].seen[kind];
			k->bpf_period[kind] =
				(uint32_t)kernel_next_period(seen - k->bpf_seen[kind], interval_ns,
							     1, kind, k->bpf_period[kind]);
			k->bpf_seen[kind] = seen;
		}
	}
	corecap_kernel_bpf_set_stacks(k->bpf, k->bpf_period[STACK_FUTEX],
				      k->bpf_period[STACK_SWITCH],
				      (uint32_t)kernel_burst_limit(k, STACK_FUTEX),
				      (uint32_t)kernel_burst_limit(k, STACK_SWITCH));
}
