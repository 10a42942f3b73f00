/*
 * struct corecap_kernel_offcpu: the off-CPU half of the kernel's
 * wall-clock sampler (`record --wallclock` with kernel events): a
 * sleepable BPF task iterator (kernel_offcpu.bpf.c, its own libbpf
 * skeleton) over the target's threads, run once per wall-clock round. Each
 * round hands over, per thread not on a CPU, its user registers and a
 * copy of the top of its user stack; the reader stores them with the
 * cpu-clock samples' copies (kernel_stacks.h), which are unwound after
 * the window into wall.samples. The cpu-clock samples at the same rate
 * carry the threads on a CPU, so each thread is sampled at one rate over
 * its whole window, on a CPU, runnable or blocked (docs/methodology.md).
 *
 * Guarantees: corecap_kernel_offcpu_open() either returns a loaded,
 * verified and attached iterator, or fails with one sentence in `why`
 * (the cause, the kernel's or libbpf's words) and leaves nothing behind;
 * the iterator only reads: no thread of the target is stopped, signalled
 * or written; a copy whose thread ran while it was taken is dropped and
 * counted, never written.
 */
#ifndef CORECAP_COLLECTOR_KERNEL_OFFCPU_H
#define CORECAP_COLLECTOR_KERNEL_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct corecap_kernel_offcpu;

/* The iterator's figures over the rounds so far. */
struct corecap_kernel_offcpu_stats {
	uint64_t rounds;	  /* rounds run */
	uint64_t late;		  /* rounds that began a whole period or more after they were due */
	uint64_t dropped_periods; /* periods a very late round could not stand for */
	uint64_t threads;	  /* the target's threads visited, all rounds together */
	uint64_t on_cpu;	  /* of which on a CPU (the cpu-clock samples' share) */
	uint64_t written;	  /* copies handed over */
	uint64_t runnable;	  /* of which runnable (waiting for a CPU); the rest blocked */
	uint64_t failed;	  /* stacks the kernel could not read */
	uint64_t moved;		  /* threads that ran while copied: dropped */
	uint64_t displaced;	  /* runnable behind the round itself on its CPU: left out */
	uint64_t same;		  /* of written: not run since its last copy (no copy made) */
	uint64_t round_ns_sum, round_ns_max; /* the collector's time per round (CLOCK_MONOTONIC) */
	uint64_t cpu_ns;		     /* its thread CPU time in rounds */
};

/* One thread's copy: regs in kernel_unwind.h's order, bytes of stack from
 * regs[7] (sp), or stack NULL: the thread has not run since its last
 * copy, which stands; state 0 runnable, else blocked (the task's
 * __state); weight the periods of the rate it stands for (1 but in a
 * late round). Weight 0 (stack NULL): the round visited the thread and
 * took no sample of it (on a CPU, left to the cpu-clock samples, or its
 * copy failed or was dropped). */
typedef void (*corecap_kernel_offcpu_fn)(void *ctx, int32_t tid, uint64_t time_ns, uint32_t state,
					 const uint64_t *regs, const unsigned char *stack,
					 uint32_t bytes, uint32_t weight);

/* Loads and attaches the iterator for the threads of process tgid, to run
 * hz rounds per second. 0, or -errno with the reason in why. */
int corecap_kernel_offcpu_open(struct corecap_kernel_offcpu **out, pid_t tgid, unsigned hz,
			       char *why, size_t why_size);
/* The monotonic time the next round is due (UINT64_MAX: never). */
uint64_t corecap_kernel_offcpu_due(const struct corecap_kernel_offcpu *o);
/* Runs the round due at or before now, handing each copy to fn; 0 or
 * -errno (a round that failed is not retried). */
int corecap_kernel_offcpu_round(struct corecap_kernel_offcpu *o, uint64_t now,
				corecap_kernel_offcpu_fn fn, void *ctx);
void corecap_kernel_offcpu_stats(const struct corecap_kernel_offcpu *o,
				 struct corecap_kernel_offcpu_stats *s);
unsigned corecap_kernel_offcpu_hz(const struct corecap_kernel_offcpu *o);
/* The slot of tid's last copy (an index into the kernel source's stack
 * refs, SIZE_MAX: not kept), added when add; NULL when not there or full. */
size_t *corecap_kernel_offcpu_last(struct corecap_kernel_offcpu *o, int32_t tid, bool add);
void corecap_kernel_offcpu_close(struct corecap_kernel_offcpu *o);

#endif
