/*
 * sym_dwarf: the symbolizer's DWARF part (read/symbolizer.h says what it
 * names), through libdw: the chain of inlined calls at an instruction
 * with their source lines, and the path to the member of a global
 * variable that a data address falls in, from the variables' types.
 * read/symbolizer.c decides which file's DWARF to ask and caches the
 * answers (read/sym_cache.h).
 */
#ifndef CORECAP_SYM_DWARF_H
#define CORECAP_SYM_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sym_frame.h"

struct sym_entry;
struct sym_module;
struct u64map;

/*
 * The frames at the instruction pc of m (a module libdwfl has), innermost
 * first, into out[max]: an inlined call each, then the function holding
 * pc, named `symbol` when e (its symbol) is known, else by DWARF; names
 * demangled through demangled (corecap_sym_demangle). Their number; 0
 * when neither the symbol table nor DWARF has a function at pc.
 */
size_t corecap_sym_dwarf_frames(struct sym_module *m, const struct sym_entry *e, const char *symbol,
				uint64_t pc, struct u64map *demangled, struct sym_frame *out,
				size_t max);
/*
 * The path to the member at off inside the variable of symbol e ("d.osd.big_lock")
 * into out, from m's DWARF (looked for once); false when DWARF has none.
 */
bool corecap_sym_dwarf_member_path(struct sym_module *m, const struct sym_entry *e, uint64_t off,
				   char *out, size_t size);
/*
 * The object a call passes as its first argument, by its type and member
 * ("shard.lock" for pthread_mutex_lock(&sh->lock), sh a struct shard *),
 * into out, from m's DWARF at the call's return address ra (a run-time
 * address): the call site's value of the argument (a register plus an
 * offset, DW_TAG_call_site_parameter) and a variable held in that
 * register there whose type points to a struct. false when DWARF cannot
 * tell (no call-site information, the base not in a variable, no member).
 */
bool corecap_sym_dwarf_arg_object(struct sym_module *m, uint64_t ra, char *out, size_t size);

#endif
