/*
 * symbolizer: names the daemon's addresses (lock call sites, stack frames,
 * lock objects) post-mortem, from the run's `maps` (the daemon's
 * /proc/PID/maps at start) and the ELF files it names, looked up under
 * --symfs DIR when given. Symbols come from .symtab, else .dynsym, else
 * the separate debug file found by build-id under /usr/lib/debug; a file
 * whose build-id differs from the one buildids.tsv recorded is not used
 * (its symbols would lie) and is reported. C++ names are demangled with
 * libstdc++'s __cxa_demangle. An address that cannot be named reads
 * "module+0xoffset" (file offset), or "0xaddress" outside every mapping.
 * Results are cached per address; ELF files stay mapped until release.
 */
#ifndef CORECAP_SYMBOLIZER_H
#define CORECAP_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/u64map.h"

struct sym_module;
struct sym_mapping;

struct symbolizer {
	char *symfs; /* NULL: the paths in maps as they are */
	struct sym_mapping *maps;
	size_t n_maps;
	struct sym_module *mods;
	size_t n_mods;
	struct u64map cache; /* (addr << 1 | code) -> malloc'd name */
	char **buildids;     /* parallel to mods: recorded build-id hex, or NULL */
};

struct sym_info {
	const char *module; /* basename of the mapped file, or NULL */
	const char *symbol; /* demangled, or NULL */
	uint64_t offset;    /* from the symbol, else from the start of the file */
};

/*
 * Reads RUN's maps (maps_path) and buildids.tsv (buildids_path, may be
 * NULL or absent). 0; -ENOENT when maps is absent (every address then
 * reads as hex); another negative errno with *err (malloc'd) otherwise.
 */
int corecap_symbolizer_init(struct symbolizer *s, const char *maps_path, const char *buildids_path,
			    const char *symfs, char **err);
void corecap_symbolizer_release(struct symbolizer *s);
/* Fills *info for addr; false when addr lies in no mapping. */
bool corecap_symbolizer_lookup(struct symbolizer *s, uint64_t addr, struct sym_info *info);
/*
 * The name of addr: "func+0x43" for code (code = true: a return address
 * or site), "object" or "object+0x8" for data; cached, owned by s.
 */
const char *corecap_symbolizer_name(struct symbolizer *s, uint64_t addr, bool code);
/* Writes one line per module that could not give symbols, for the report. */
size_t corecap_symbolizer_problems(const struct symbolizer *s, char ***lines);

#endif
