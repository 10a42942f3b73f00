/*
 * symbolizer: names the daemon's addresses (lock call sites, stack frames,
 * lock objects) post-mortem, from the run's `maps` (the daemon's
 * /proc/PID/maps at start) and the ELF files it names, looked up under
 * --symfs DIR when given, through elfutils' libdwfl: symbols from .symtab,
 * else the separate debug file (by build-id under /usr/lib/debug/.build-id,
 * else by .gnu_debuglink), else .dynsym and .gnu_debugdata; DWARF from
 * the file or its debug file (dwz's alternate file too) for inline frames,
 * source lines and the member paths of data. A file whose build-id
 * differs from the one buildids.tsv recorded is not used (its symbols
 * would lie; its debug file by the recorded build-id is, when present)
 * and is reported. The vDSO is named from the analysing machine's own
 * when its size matches and no --symfs is given (the run's kernel is then
 * taken to be this one). C++ names are demangled with libstdc++'s
 * __cxa_demangle. An address that cannot be named reads "module+0xoffset"
 * (file offset), or "0xaddress" outside every mapping. Results are cached
 * per address; files stay open until release.
 *
 * Frames (corecap_symbolizer_frames) follow addr2line -i, as pprof and
 * perf show them: every inlined call at an instruction is a frame of its
 * own, innermost first, named by its DWARF linkage name (demangled) or
 * name, with the source line of the instruction for the innermost and the
 * call's line for each caller; the last frame is the function that holds
 * the instruction, named by the symbol table like the other calls here.
 *
 * Its files: read/symbolizer.c is the policy (which file and mapping for
 * an address, the debug-file search, the vDSO, the caches, read/sym_cache.h)
 * and this interface; read/sym_elf.c reads a file's ELF (build-id, load
 * bias, symbol table, demangling), read/sym_dwarf.c its DWARF (inline
 * frames, source lines, data's member paths); read/sym_module.h is what
 * they share of one mapped file.
 */
#ifndef CORECAP_SYMBOLIZER_H
#define CORECAP_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/u64map.h"
#include "sym_frame.h"

struct sym_module;
struct sym_mapping;
struct Dwfl;
struct Dwfl_Module;
struct Elf;

struct symbolizer {
	char *symfs; /* NULL: the paths in maps as they are */
	struct Dwfl *dwfl;
	void *callbacks;      /* the Dwfl_Callbacks, which must outlive dwfl */
	char *debuginfo_path; /* where libdwfl looks for debug files */
	struct sym_mapping *maps;
	size_t n_maps;
	struct sym_module *mods;
	size_t n_mods;
	struct u64map cache;	 /* (addr << 1 | code) -> malloc'd name */
	struct u64map frames;	 /* pc -> malloc'd struct sym_frames */
	struct u64map demangled; /* mangled name (pointer) -> malloc'd demangled name */
	struct u64map objects;	 /* return address -> malloc'd object name, or 0: none */
	char **buildids;	 /* parallel to mods: recorded build-id hex, or NULL */
	char *vdso_path;	 /* the run's saved [vdso] image beside maps (RUN/vdso.so) */
};

struct sym_info {
	const char *module; /* basename of the mapped file, or NULL */
	const char *symbol; /* demangled, or NULL */
	uint64_t offset;    /* from the symbol, else from the start of the file */
	bool shim;	    /* in corecap's shim or LTTng-UST (corecap_symbolizer_is_shim) */
};

/*
 * Reads RUN's maps (maps_path) and buildids.tsv (buildids_path, may be
 * NULL or absent). 0; -ENOENT when maps is absent (every address then
 * reads as hex); another negative errno with *err (malloc'd) otherwise.
 */
int corecap_symbolizer_init(struct symbolizer *s, const char *maps_path, const char *buildids_path,
			    const char *symfs, char **err);
void corecap_symbolizer_release(struct symbolizer *s);
/* Fills *info for addr (a return address); false when addr lies in no mapping. */
bool corecap_symbolizer_lookup(struct symbolizer *s, uint64_t addr, struct sym_info *info);
/*
 * The name of addr: "func+0x43" for code (code = true: a return address
 * or site), "object" or "object+0x8" for data, or the path to the member
 * of a global struct that DWARF gives ("d.osd.big_lock"); cached, owned
 * by s.
 */
const char *corecap_symbolizer_name(struct symbolizer *s, uint64_t addr, bool code);
/*
 * What a call passes as its first argument, by its type and member
 * ("shard.lock"), from DWARF at the call's return address ra
 * (read/sym_dwarf.h, corecap_sym_dwarf_arg_object): how a lock on the heap,
 * which has no name of its own, is told apart at the site that takes it.
 * Cached, owned by s; NULL when DWARF cannot tell.
 */
const char *corecap_symbolizer_arg_object(struct symbolizer *s, uint64_t ra);
/*
 * The frames at the instruction pc (exact: give a return address minus
 * one), innermost first, into *frames (owned by s, cached). Returns their
 * number; 0 when no function holds pc (then name it by
 * corecap_symbolizer_lookup's module and offset).
 */
size_t corecap_symbolizer_frames(struct symbolizer *s, uint64_t pc,
				 const struct sym_frame **frames);
/*
 * Whether addr lies in corecap's own shim or tracepoint provider
 * (libcorecap-preload.so, libcorecap-tp.so) or in LTTng-UST (liblttng-ust*):
 * frames that the profiling added to the daemon's stacks.
 */
bool corecap_symbolizer_is_shim(struct symbolizer *s, uint64_t addr);
/*
 * The function holding addr, demangled, or NULL (exact: addr is a PC, not
 * a return address). ctx is a struct symbolizer * (may be NULL): the shape
 * of stack_class's symbol callback.
 */
const char *corecap_symbolizer_function(void *ctx, uint64_t addr, int exact);
/*
 * The module holding addr (exact: an address, not a return address): its
 * libdwfl module (NULL when its file gave none), with *path its path as
 * the maps name it ("[vdso]" for the vDSO), before --symfs; NULL when addr
 * lies in no mapping. For naming policies of their own (pprof_names.h).
 */
struct Dwfl_Module *corecap_symbolizer_module(struct symbolizer *s, uint64_t addr,
					      const char **path);
/*
 * Opens path as ELF for reading (a FIFO does not block): the fd, with *elf
 * set (elf_end it, then close the fd); -1 when it is not readable ELF.
 */
int corecap_symbolizer_open_elf(const char *path, struct Elf **elf);
/* name demangled (as addr2line -C and nm -C print it) when C++ mangled, else name; owned by s. */
const char *corecap_symbolizer_demangle(struct symbolizer *s, const char *name);
/*
 * Whether s names every code address of sub as sub does: each of sub's
 * executable mappings is one of s's (its range, file offset and file),
 * under the same --symfs. For a CPU profile's own maps that the run's
 * cover, whose symbolizer (its files and DWARF already read) can then
 * name the profile's PCs; data mappings (a trace buffer mapped later)
 * hold none. Build-ids are not compared: both must have read the same
 * buildids.tsv.
 */
bool corecap_symbolizer_covers(const struct symbolizer *s, const struct symbolizer *sub);
/* Writes one line per module that could not give symbols, for the report. */
size_t corecap_symbolizer_problems(const struct symbolizer *s, char ***lines);

#endif
