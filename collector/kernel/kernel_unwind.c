#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <elfutils/libdwfl.h>

#include <corecap/kernel_format.h>

#include "kernel_unwind.h"

/* Sample register indexes (CORECAP_KUNWIND_REGS_MASK order). */
enum { R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_SP, R_IP, R_R8 };

/*
 * No separate debug file: the unwinding reads each module's .eh_frame
 * (and its own .debug_frame, if it has one). libdw looks for
 * .debug_frame whenever .eh_frame cannot take a step, which is at the end
 * of nearly every stack (the copy ends before the stack does), and it
 * opens the module's debug file for that: for ceph-osd with ceph-osd-dbg
 * installed, a 230 MB file whose compressed .debug_* sections it inflated
 * whole, about 1 s of the collector's CPU and hundreds of MB per record,
 * to find no .debug_frame there (Debian's debug files, ceph-osd's and
 * libc's, carry none: x86-64 code is built with asynchronous unwind
 * tables, its CFI in .eh_frame). The analysis symbolizes the frames.
 */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)debuglink_file;
	(void)debuglink_crc;
	*debuginfo_file_name = NULL;
	return -1;
}

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = no_debuginfo,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	(void)thread_argp;
	return 0; /* threads are asked for by tid, one sample at a time */
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct corecap_kernel_unwind *u = arg;

	(void)dwfl;
	if (addr < u->sp || addr + sizeof(*result) > u->sp + u->stack_bytes ||
	    addr + sizeof(*result) < addr) {
		u->out_of_stack = 1;
		return false;
	}
	memcpy(result, u->stack + (addr - u->sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct corecap_kernel_unwind *u = arg;
	const uint64_t *r = u->regs;
	/* DWARF x86-64 order: rax rdx rcx rbx rsi rdi rbp rsp r8-r15, then the return address. */
	Dwarf_Word dw[17] = {r[R_AX],	  r[R_DX],     r[R_CX],	    r[R_BX],	 r[R_SI],
			     r[R_DI],	  r[R_BP],     r[R_SP],	    r[R_R8 + 0], r[R_R8 + 1],
			     r[R_R8 + 2], r[R_R8 + 3], r[R_R8 + 4], r[R_R8 + 5], r[R_R8 + 6],
			     r[R_R8 + 7], r[R_IP]};

	return dwfl_thread_state_registers(thread, 0, 17, dw);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct corecap_kernel_unwind *u = arg;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	u->frames[u->n_frames++] = pc;
	return u->n_frames < u->max_frames ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int corecap_kernel_unwind_init(struct corecap_kernel_unwind *u, pid_t pid, bool alive,
			       const char *maps_path)
{
	Dwfl *dwfl;
	int ret = 0;

	memset(u, 0, sizeof(*u));
	u->pid = pid;
	dwfl = dwfl_begin(&proc_callbacks);
	if (!dwfl) {
		ret = -ENOMEM;
		goto out;
	}
	dwfl_report_begin(dwfl);
	if (alive)
		ret = dwfl_linux_proc_report(dwfl, pid);
	if (!alive || ret != 0) {
		FILE *f = fopen(maps_path, "re");

		ret = f ? dwfl_linux_proc_maps_report(dwfl, f) : errno;
		if (f)
			fclose(f);
	}
	if (ret != 0 || dwfl_report_end(dwfl, NULL, NULL) != 0) {
		ret = ret > 0 ? -ret : -EINVAL;
		goto out_end;
	}
	if (!dwfl_attach_state(dwfl, NULL, pid, &thread_callbacks, u)) {
		ret = -EINVAL;
		goto out_end;
	}
	u->dwfl = dwfl;
	goto out;
out_end:
	dwfl_end(dwfl);
out:
	return ret;
}

int corecap_kernel_unwind_stack(struct corecap_kernel_unwind *u, pid_t tid,
				const uint64_t regs[CORECAP_KUNWIND_NREGS], const void *stack,
				uint64_t stack_bytes, uint64_t *frames, size_t max_frames,
				size_t *n)
{
	int status, ret;

	u->regs = regs;
	u->stack = stack;
	u->stack_bytes = stack_bytes;
	u->sp = regs[R_SP];
	u->out_of_stack = 0;
	u->frames = frames;
	u->max_frames = max_frames;
	u->n_frames = 0;
	ret = dwfl_getthread_frames(u->dwfl, tid, frame_cb, u);
	if (u->n_frames == 0) {
		/* No CFI step at all: keep the IP, which is always known. */
		frames[0] = regs[R_IP];
		u->n_frames = 1;
		status = CORECAP_KSTACK_FAILED;
	} else if (ret == 0 || u->n_frames >= max_frames) {
		status = CORECAP_KSTACK_OK;
	} else if (u->n_frames == 1) {
		status = CORECAP_KSTACK_FAILED;
	} else {
		status = u->out_of_stack ? CORECAP_KSTACK_TRUNCATED : CORECAP_KSTACK_NO_CFI;
	}
	*n = u->n_frames;
	return status;
}

void corecap_kernel_unwind_release(struct corecap_kernel_unwind *u)
{
	if (u->dwfl)
		dwfl_end(u->dwfl);
	u->dwfl = NULL;
}
