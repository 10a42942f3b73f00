/*
 * sym_module: what the symbolizer's parts (read/symbolizer.c, the policy;
 * read/sym_elf.c, the ELF file; read/sym_dwarf.c, its DWARF) share about
 * one mapped file: its symbols, its DWARF indexes, and the mappings of
 * the run's maps that name it. struct symbolizer (read/symbolizer.h)
 * holds them and hands each part the ones it needs.
 */
#ifndef CORECAP_SYM_MODULE_H
#define CORECAP_SYM_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <elfutils/libdwfl.h>

#define PAGE_MASK_4K (~(uint64_t)0xfff)

/*
 * A symbol of the module, at its run-time address. libdwfl's own
 * dwfl_module_addrinfo scans the whole table on every call; a sorted copy
 * keeps a lookup logarithmic in a daemon as large as ceph-osd.
 */
struct sym_entry {
	uint64_t addr, size;
	const char *name; /* in libdwfl's string tables, alive until dwfl_end */
	const char *file; /* a local's source file (the STT_FILE before it), or NULL */
	bool func, global;
};

/* A variable at a fixed address (DW_OP_addr), from the DWARF index. */
struct dwarf_var {
	uint64_t addr; /* DWARF address (run-time address - dwbias) */
	Dwarf_Off die;
};

/* Variables sorted by addr. */
struct dwarf_index {
	struct dwarf_var *v;
	size_t n, cap;
};

/* A compilation unit: its DIE, and its source file's base name (or NULL). */
struct dwarf_unit {
	Dwarf_Off die;
	const char *base; /* in libdw's string data, alive with the Dwarf */
};

struct sym_module {
	char *path;	  /* as in maps, or "[vdso]" */
	const char *base; /* basename of path */
	bool loaded;	  /* tried to report it to libdwfl */
	bool shim;	  /* corecap's shim or LTTng-UST */
	Dwfl_Module *dm;  /* NULL: no usable ELF file */
	char *problem;	  /* why no symbols, or NULL */
	uint64_t lo, hi;  /* run-time range libdwfl gives it */
	struct sym_entry *syms;
	size_t n_syms;
	bool dwarf_tried; /* dwarf below was asked for */
	Dwarf *dwarf;
	Dwarf_Addr dwbias;
	struct dwarf_unit *units; /* every unit of dwarf, in order */
	size_t n_units;
	struct dwarf_index all;	 /* every unit's */
	uint8_t all_level;	 /* 0: not built, 1: file and namespace scope, 2: all */
	struct dwarf_index one;	 /* the units of one source file's, or one unit's */
	const char *one_file;	 /* that file's base name, NULL: none */
	Dwarf_Off one_cu;	 /* or that unit's DIE offset (one_file NULL), 0: none */
	uint64_t bias;		 /* load bias: run-time address - the file's own */
	struct sym_cache *cache; /* what DWARF gave before, by build-id; NULL: none */
};

struct sym_mapping {
	uint64_t start, end, offset;
	size_t mod;
	bool exec; /* mapped executable: where code addresses lie */
};

/* The base name of path (past its last '/'). */
static inline const char *corecap_sym_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

#endif
