/*
 * The wall-clock sampler's reader of a vDSO image (collector/
 * sources/vdso_unwind.c), which finds the .eh_frame_hdr search table that
 * libunwind then reads in the target: an image of any content. Every
 * header and the table must lie inside the bytes given, and the table it
 * gives must too, and its code.
 */
#include <stdint.h>

#include "fuzz_util.h"
#include "sources/vdso_unwind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint64_t base = 0x7fff12340000ull;
	struct corecap_vdso_unwind vu;

	if (corecap_vdso_unwind_parse(&vu, data, size, base) == 0 &&
	    (vu.table_addr + 8 * vu.n_fdes > base + size || vu.text_end < vu.text_start ||
	     vu.text_start < base || vu.text_end > base + size))
		__builtin_trap();
	return 0;
}
