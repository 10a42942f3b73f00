/*
 * The off-CPU sampler's rounds on the kernel source's side
 * (kernel_offcpu_rounds.h): built with or without eBPF (without, no
 * iterator ever opens and these do nothing). Apart from the iterator
 * (kernel_offcpu.c), which kernel_events.h's struct holds and which must
 * therefore not include it back.
 */
#include "kernel_offcpu_rounds.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include <corecap/diag.h>
#include "kernel_events.h"
#include "kernel_offcpu.h"
#include "kernel_stacks.h"
#include "kernel_state.h"
#include "util/mono_clock.h"

int corecap_kernel_events_set_wallclock(struct corecap_kernel_events *k, unsigned hz, char *why,
					size_t why_size)
{
	int ret = corecap_kernel_offcpu_open(&k->offcpu, k->pid, hz, why, why_size);

	if (ret == 0) {
		k->oncpu_hz = hz; /* the same rate on a CPU: one rate whatever the state */
		k->wall_offcpu = true;
	}
	return ret;
}

/*
 * A round judges each thread by its state when the round runs, and so it
 * must run at its due time. Waiting for the CPU as any thread does, it
 * would wait most for a thread that holds the collector's CPU, and then
 * find that thread just off it: counted off the CPU for a period the
 * cpu-clock samples also counted it on (tests/wallshare's thread on the
 * collector's CPU got 1.07-1.12 of its window: docs/architecture.md,
 * "When a round runs"). At SCHED_FIFO the reader preempts it at the due
 * time instead, and a thread it preempts is left to the cpu-clock
 * samples (the iterator's displaced count). The reader is raised only to
 * wait for a due round and lowered after it (or when something else woke
 * it first): its other work keeps its policy.
 */
static void raise_for_round(struct corecap_kernel_events *k)
{
	struct sched_param fifo = {.sched_priority = 1};
	int ret;

	if (k->offcpu_raised || k->offcpu_fifo_refused)
		return;
	if (pthread_getschedparam(pthread_self(), &k->offcpu_policy, &k->offcpu_param) != 0 ||
	    k->offcpu_policy == SCHED_FIFO || k->offcpu_policy == SCHED_RR)
		return; /* unknown, or already a real-time policy: left as it is */
	ret = pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo);
	if (ret == 0) {
		k->offcpu_raised = true;
		return;
	}
	k->offcpu_fifo_refused = true;
	corecap_warn("kernel events: the off-CPU stack sampler cannot take its CPU at each round's "
		     "due time (SCHED_FIFO: %s): a thread that shares the collector's CPU may be "
		     "counted off it for periods it spent on it",
		     strerror(ret));
}

static void lower_after_round(struct corecap_kernel_events *k)
{
	if (!k->offcpu_raised)
		return;
	pthread_setschedparam(pthread_self(), k->offcpu_policy, &k->offcpu_param);
	k->offcpu_raised = false;
}

int kernel_offcpu_wait_ms(struct corecap_kernel_events *k, int wait_ms)
{
	uint64_t due = corecap_kernel_offcpu_due(k->offcpu), now;

	if (due == UINT64_MAX)
		return wait_ms;
	now = corecap_now_ns();
	if (due > now && due - now >= (uint64_t)wait_ms * 1000000ull)
		return wait_ms; /* not due within this wait */
	raise_for_round(k);
	return due <= now ? 0 : (int)((due - now + 999999) / 1000000);
}

/* A copy into stacks.raw once, and a ref per period it stands for; a
 * thread that has not run since its last copy (stack NULL) gets refs to
 * that copy, nothing written. Every thread the round found is a visit
 * for kernel_coverage.h, with a sample or not (weight 0). */
static void store_copy(void *ctx, int32_t tid, uint64_t time_ns, uint32_t state,
		       const uint64_t *regs, const unsigned char *stack, uint32_t bytes,
		       uint32_t weight)
{
	struct corecap_kernel_events *k = ctx;
	uint64_t t = time_ns + (uint64_t)k->clock_offset_ns;
	size_t *last = corecap_kernel_offcpu_last(k->offcpu, tid, stack != NULL);
	size_t ref;

	(void)state; /* counted by the iterator; wall.samples has no column for it */
	kernel_coverage_visit(&k->coverage, tid, t);
	if (!weight)
		return; /* visited, no sample of ours: on a CPU, or its copy failed */
	if (stack) {
		if (!kernel_store_stack(k, STACK_CPU, tid, 0, t, regs, stack, bytes, bytes)) {
			if (last)
				*last = SIZE_MAX;
			k->offcpu_unkept += weight;
			return;
		}
		ref = k->n_stacks - 1;
		if (last)
			*last = ref;
		weight--;
	} else if (!last || *last == SIZE_MAX) {
		k->offcpu_unkept += weight; /* its last copy was not kept */
		return;
	} else {
		ref = *last;
	}
	for (uint32_t i = 0; i < weight; i++)
		if (!kernel_repeat_stack(k, ref, t))
			k->offcpu_unkept++;
}

void kernel_offcpu_poll(struct corecap_kernel_events *k)
{
	uint64_t now;
	int ret;

	if (!k->offcpu)
		return;
	now = corecap_now_ns();
	if (now < corecap_kernel_offcpu_due(k->offcpu)) {
		lower_after_round(k); /* woken before the round by the rings */
		return;
	}
	k->offcpu_fifo_rounds += k->offcpu_raised;
	ret = corecap_kernel_offcpu_round(k->offcpu, now, store_copy, k);
	lower_after_round(k);
	corecap_kernel_offcpu_stats(k->offcpu, &k->offcpu_stats);
	if (ret < 0 && !k->offcpu_failed) {
		corecap_warn("kernel events: a round of the off-CPU stack sampler failed: %s; "
			     "the wall-clock samples miss its threads off a CPU there",
			     strerror(-ret));
		k->offcpu_failed = true;
	}
}
