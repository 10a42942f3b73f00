/*
 * struct corecap_kernel_bpf: the kernel source's eBPF producer. It loads
 * collector/kernel/kernel_bpf.bpf.c (built into corecap as a libbpf skeleton)
 * for one process and drains its ring buffer; kernel_bpf_drain.c turns the
 * records into the run directory's (docs/architecture.md says why there
 * are two producers, docs/events.md what each costs).
 *
 * Guarantees:
 *  - corecap_kernel_bpf_open() either returns a loaded, verified, not yet
 *    attached set of programs, or fails with one sentence in `why` (the
 *    cause and the remedy) and leaves nothing behind;
 *  - the programs only observe: nothing of the target is stopped,
 *    signalled or written;
 *  - every record the ring had no room for is counted, per CPU;
 *  - a corecap built without eBPF (no clang, bpftool or libbpf-dev at
 *    build time) says so from corecap_kernel_bpf_open().
 */
#ifndef CORECAP_COLLECTOR_KERNEL_BPF_H
#define CORECAP_COLLECTOR_KERNEL_BPF_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel_bpf_rec.h"

struct corecap_kernel_bpf;

/* One record of the ring: a struct kbpf_rec, or a struct kbpf_stack when
 * its kind is KBPF_STACK (size says how many bytes are there). */
typedef void (*corecap_kernel_bpf_fn)(void *ctx, const struct kbpf_rec *r, size_t size);

/* Loads the programs for process tgid with a ring of ring_bytes (a power
 * of two, page multiple). 0, or -errno with the reason in why. */
int corecap_kernel_bpf_open(struct corecap_kernel_bpf **out, pid_t tgid, size_t ring_bytes,
			    char *why, size_t why_size);
/* Attaches every program; -errno with the reason in why. */
int corecap_kernel_bpf_attach(struct corecap_kernel_bpf *b, char *why, size_t why_size);
/* Opens a cpu-clock perf event of period 1/hz s on each CPU c with
 * online[c] and attaches on_cpu_clock to it: stack copies of the target's
 * threads on a CPU, hz per second of CPU time. -errno with the reason in
 * why (nothing left open). */
int corecap_kernel_bpf_attach_cpu_clock(struct corecap_kernel_bpf *b, unsigned hz,
					const bool *online, int nr_cpus, char *why,
					size_t why_size);
/* Detaches the programs and closes the cpu-clock events (records in the
 * ring stay to be drained). */
void corecap_kernel_bpf_detach(struct corecap_kernel_bpf *b);
/* Hands every record in the ring to fn, in ring order; 0 or -errno. */
int corecap_kernel_bpf_drain(struct corecap_kernel_bpf *b, corecap_kernel_bpf_fn fn, void *ctx);
/* Stack sampling from now on: every Nth futex wait and switch-out (0:
 * none), at most futex_limit and switch_limit stacks per CPU until the
 * next call. */
void corecap_kernel_bpf_set_stacks(struct corecap_kernel_bpf *b, uint32_t futex_period,
				   uint32_t switch_period, uint32_t futex_limit,
				   uint32_t switch_limit);
/* Hands fn each waking still held for its thread's switch-in (the
 * programs detached first: those whose thread had not run again), with
 * the thread's id, and frees its slot; the number handed. */
typedef void (*corecap_kernel_bpf_woken_fn)(void *ctx, const struct kbpf_woken *w,
					    int32_t woken_tid);
int corecap_kernel_bpf_held_wakings(struct corecap_kernel_bpf *b, corecap_kernel_bpf_woken_fn fn,
				    void *ctx);
/* The programs' counters of CPU 0..n-1 into per_cpu; 0 or -errno. */
int corecap_kernel_bpf_counts(struct corecap_kernel_bpf *b, struct kbpf_counts *per_cpu, int n);
void corecap_kernel_bpf_close(struct corecap_kernel_bpf *b);

#endif
