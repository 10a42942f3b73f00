/*
 * sym_frame: one frame of an instruction's inline chain, as the
 * symbolizer (symbolizer.h) gives it and its cache (sym_cache.h) keeps
 * it; a header of its own so that neither includes the other.
 */
#ifndef CORECAP_SYM_FRAME_H
#define CORECAP_SYM_FRAME_H

#include <stdbool.h>
#include <stdint.h>

/* One frame of an instruction's inline chain. */
struct sym_frame {
	const char *function; /* demangled; never NULL */
	const char *file;     /* source file of `line`, NULL when DWARF has none */
	uint32_t line;	      /* 0: unknown */
	bool inlined;	      /* an inlined call: the next frame is its caller */
};

#endif
