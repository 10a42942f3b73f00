/*
 * struct corecap_kernel_unwind: DWARF CFI unwinding of user-stack copies
 * taken by perf (PERF_SAMPLE_STACK_USER + PERF_SAMPLE_REGS_USER), after
 * the window, with libdw: the process' modules are reported from its
 * maps, and libdw's thread callbacks read registers from the sample and
 * memory from the stack copy only (as perf's unwind-libdw does). Frame
 * pointers are not needed: Ceph is built without them.
 *
 * Guarantees: frames[0] is the sampled user IP, the others return
 * addresses; an unwinding that leaves the stack copy or meets an address
 * without CFI stops there and says which (CORECAP_KSTACK_* of
 * corecap/kernel_format.h). x86-64 only (the register layout below).
 */
#ifndef CORECAP_COLLECTOR_KERNEL_UNWIND_H
#define CORECAP_COLLECTOR_KERNEL_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* perf_event_attr.sample_regs_user: AX BX CX DX SI DI BP SP IP, R8-R15
 * (asm/perf_regs.h bits 0-8 and 16-23); samples carry them in that order. */
#define CORECAP_KUNWIND_REGS_MASK UINT64_C(0x0000000000ff01ff)
#define CORECAP_KUNWIND_NREGS	  17

struct corecap_kernel_unwind {
	void *dwfl; /* Dwfl * */
	pid_t pid;
	/* The sample being unwound, for libdw's callbacks. */
	const uint64_t *regs;
	const unsigned char *stack;
	uint64_t stack_bytes;
	uint64_t sp;
	int out_of_stack; /* a read fell outside the copy */
	uint64_t *frames;
	size_t max_frames, n_frames;
};

/* Reports the modules of pid: from /proc when it is alive, else from the
 * maps file maps_path (the run's copy). Returns -errno. */
int corecap_kernel_unwind_init(struct corecap_kernel_unwind *u, pid_t pid, bool alive,
			       const char *maps_path);
/* Unwinds one sample; returns a CORECAP_KSTACK_* status, n_frames in *n. */
int corecap_kernel_unwind_stack(struct corecap_kernel_unwind *u, pid_t tid,
				const uint64_t regs[CORECAP_KUNWIND_NREGS], const void *stack,
				uint64_t stack_bytes, uint64_t *frames, size_t max_frames,
				size_t *n);
void corecap_kernel_unwind_release(struct corecap_kernel_unwind *u);

#endif
