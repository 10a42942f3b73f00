/*
 * pprof_names: names code addresses as gperftools 2.10's pprof does
 * (`corecap flame --kind cpu --names pprof`), for users who diff corecap's
 * stacks against `google-pprof --collapsed`. It borrows a symbolizer for
 * the mappings and libdwfl's modules, and follows pprof's MapToSymbols,
 * which joins two programs' answers per address:
 *
 *  - nm's (GetProcedureBoundaries, MapSymbolsWithNM): `nm -n -C` of
 *    /usr/lib/debug/PATH (or PATH.debug) when present, else of PATH,
 *    else `nm -D`: every symbol nm prints (any type) starts a region that
 *    ends where the next address starts, whatever its size; of several
 *    symbols at one address (sorted by name, as nm sorts), the first, or
 *    the last of type t/T when there is one; the last region is empty;
 *  - binutils addr2line -f -C's (2.40): the DWARF function at the address
 *    (by its linkage name, demangled; else its name in C and the other
 *    languages whose names are not mangled; else, for the innermost, the
 *    symbol table's function found as bfd's elf_find_function finds it),
 *    with `-i` (each inlined call, innermost first, then its callers by
 *    their DWARF names) only when nm's symbols hold `_fini`, pprof's
 *    separator between the addresses it feeds addr2line;
 *  - each of addr2line's names is replaced by nm's when addr2line has
 *    none ("??") or when nm's (tagged with its address) starts with
 *    addr2line's name without its arguments and template arguments
 *    (ShortFunctionName); an address outside every region reads
 *    "0x<16 hex digits>".
 *
 * Addresses in no file mapping (the vDSO, anonymous code) read as pprof
 * reads them there, "0x<16 hex digits>". pprof's address decorations are
 * left out: nm's "<address>" tag and nm -D's "@@VERSION".
 */
#ifndef CORECAP_PPROF_NAMES_H
#define CORECAP_PPROF_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "../util/u64map.h"
#include "symbolizer.h"

struct pprof_names {
	struct symbolizer *sym; /* borrowed */
	struct u64map images;	/* Dwfl_Module pointer -> malloc'd struct pprof_image */
	struct u64map frames;	/* pc -> malloc'd struct pprof_frames */
};

void corecap_pprof_names_init(struct pprof_names *p, struct symbolizer *sym);
void corecap_pprof_names_release(struct pprof_names *p);
/*
 * pprof's frames of the instruction pc (exact), innermost first, each but
 * the last an inlined call, into *frames (owned by p, cached). Returns
 * their number, >= 1 (an unnamed address has its "0x..." name).
 */
size_t corecap_pprof_names_frames(struct pprof_names *p, uint64_t pc,
				  const struct sym_frame **frames);

#endif
