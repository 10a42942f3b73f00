/*
 * sym_elf: the symbolizer's ELF part (read/symbolizer.h says what it
 * names): a file's build-id and load bias from its headers, its symbol
 * table as libdwfl reads it (.symtab, else .dynsym and .gnu_debugdata)
 * sorted for lookups, and C++ names demangled. read/symbolizer.c decides
 * which file to read; read/sym_dwarf.c names what DWARF adds.
 */
#ifndef CORECAP_SYM_ELF_H
#define CORECAP_SYM_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct Elf;
struct sym_entry;
struct sym_mapping;
struct sym_module;
struct u64map;

/* The GNU build-id of an open ELF file as hex into out (size >= 2 * 64 + 1); false if none. */
bool corecap_sym_elf_build_id_hex(struct Elf *elf, char *out, size_t size);
/*
 * Where vaddr 0 of module mod's file sits in memory, from one of its
 * mappings among maps[n_maps] and its PT_LOAD headers; false if no
 * mapping matches a segment.
 */
bool corecap_sym_elf_load_bias(const struct sym_mapping *maps, size_t n_maps, size_t mod,
			       struct Elf *elf, uint64_t *bias);
/* m's functions and objects from libdwfl's symbol table, sorted: 0 or a negative errno. */
int corecap_sym_elf_read_symbols(struct sym_module *m);
/* m's symbol holding addr (a run-time address), or NULL. */
struct sym_entry *corecap_sym_elf_find_sym(const struct sym_module *m, uint64_t addr);
/* name demangled when C++ mangled, else name; memoized in demangled (by name's pointer). */
const char *corecap_sym_demangle(struct u64map *demangled, const char *name);

#endif
