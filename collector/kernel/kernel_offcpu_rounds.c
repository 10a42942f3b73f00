/*
 * The off-CPU sampler's rounds on the kernel source's side
 * (kernel_offcpu_rounds.h): built with or without eBPF (without, no
 * iterator ever opens and these do nothing). Apart from the iterator
 * (kernel_offcpu.c), which kernel_events.h's struct holds and which must
 * therefore not include it back.
 */
#include "kernel_offcpu_rounds.h"

#include <errno.h>
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

int kernel_offcpu_wait_ms(const struct corecap_kernel_events *k, int wait_ms)
{
	uint64_t due = corecap_kernel_offcpu_due(k->offcpu), now;

	if (due == UINT64_MAX)
		return wait_ms;
	now = corecap_now_ns();
	if (due <= now)
		return 0;
	return due - now < (uint64_t)wait_ms * 1000000ull ? (int)((due - now + 999999) / 1000000)
							  : wait_ms;
}

/* A copy into stacks.raw once, and a ref per period it stands for; a
 * thread that has not run since its last copy (stack NULL) gets refs to
 * that copy, nothing written. */
static void store_copy(void *ctx, int32_t tid, uint64_t time_ns, uint32_t state,
		       const uint64_t *regs, const unsigned char *stack, uint32_t bytes,
		       uint32_t weight)
{
	struct corecap_kernel_events *k = ctx;
	uint64_t t = time_ns + (uint64_t)k->clock_offset_ns;
	size_t *last = corecap_kernel_offcpu_last(k->offcpu, tid, stack != NULL);
	size_t ref;

	(void)state; /* counted by the iterator; wall.samples has no column for it */
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
	if (now < corecap_kernel_offcpu_due(k->offcpu))
		return;
	ret = corecap_kernel_offcpu_round(k->offcpu, now, store_copy, k);
	corecap_kernel_offcpu_stats(k->offcpu, &k->offcpu_stats);
	if (ret < 0 && !k->offcpu_failed) {
		corecap_warn("kernel events: a round of the off-CPU stack sampler failed: %s; "
			     "the wall-clock samples miss its threads off a CPU there",
			     strerror(-ret));
		k->offcpu_failed = true;
	}
}
