/*
 * struct corecap_vdso_unwind: where a process's vDSO and its unwind table
 * lie in that process, so that the wall-clock sampler's libunwind-ptrace
 * can unwind through it.
 *
 * Why: libunwind 1.6 (Debian 12) finds a frame's unwind table by opening
 * the file its mapping names, and [vdso] names none. A frame in the vDSO
 * then falls back on the frame pointer, which loses the caller of a vDSO
 * function that keeps no frame: Linux 6.18's gettimeofday and
 * clock_gettime call an out-of-line clock read, whose samples came out as
 * the program's call straight into an unnamed [vdso]+0x7bd. The table is
 * the vDSO's own .eh_frame_hdr search table, which libunwind reads in
 * place in the target, as it does a shared library's.
 *
 * Guarantees: after corecap_vdso_unwind_parse() or _init() returned 0,
 * [text_start, text_end) is the vDSO's executable segment in the target,
 * hdr_addr its .eh_frame_hdr, and table_addr the first of n_fdes
 * (initial location, FDE) pairs of signed 32-bit offsets from hdr_addr,
 * sorted by location (DW_EH_PE_datarel | DW_EH_PE_sdata4: the only
 * encoding libunwind binary-searches remotely). On an error the struct is
 * zeroed: no vDSO frame gets a table, as before.
 */
#ifndef CORECAP_COLLECTOR_VDSO_UNWIND_H
#define CORECAP_COLLECTOR_VDSO_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct corecap_vdso_unwind {
	uint64_t text_start, text_end; /* the PT_LOAD segment with code; 0, 0: none */
	uint64_t hdr_addr;	       /* .eh_frame_hdr (PT_GNU_EH_FRAME) */
	uint64_t table_addr;	       /* its binary-search table */
	uint64_t n_fdes;
};

/* From the image of a vDSO mapped at `base` (its first `bytes` bytes):
 * 0, -ENOENT when it has no search table, -EINVAL when it is not a
 * 64-bit ELF image whose headers and table lie inside those bytes. */
int corecap_vdso_unwind_parse(struct corecap_vdso_unwind *vu, const void *image, size_t bytes,
			      uint64_t base);

/* From process pid's vDSO (AT_SYSINFO_EHDR in /proc/PID/auxv, the image
 * from /proc/PID/mem): 0, -ENOENT when it maps none or the image has no
 * search table, or another -errno. */
int corecap_vdso_unwind_init(struct corecap_vdso_unwind *vu, pid_t pid);

#endif
