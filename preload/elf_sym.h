/*
 * elf_sym.h: names an address from a module's ELF .symtab, which dladdr
 * cannot see (it reads only dynamic symbols), so that the exit summary
 * names a daemon's static functions.
 *
 * struct elf_sym holds at most ELF_SYM_MODULES read-only mappings of
 * module files, one per module, from the first lookup in it until
 * elf_sym_release. It uses only open, mmap, munmap and close: no
 * allocation, no stdio, so it may run at exit or in the dump thread.
 * Every offset read from a file is checked against the file's size: a
 * truncated or corrupt file gives "not found", never a fault. A file cut
 * short while it is mapped would fault (SIGBUS), so the shim maps only
 * the running executable, which the kernel keeps from being written
 * (ETXTBSY; dump.c).
 */
#ifndef CORECAP_PRELOAD_ELF_SYM_H
#define CORECAP_PRELOAD_ELF_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_SYM_MODULES 16
#define ELF_SYM_PATH	256

struct elf_sym_module {
	char path[ELF_SYM_PATH];
	const unsigned char *map; /* NULL: no usable .symtab in it */
	size_t size;
};

struct elf_sym {
	uint32_t count;
	struct elf_sym_module mod[ELF_SYM_MODULES];
};

void elf_sym_init(struct elf_sym *es);
void elf_sym_release(struct elf_sym *es);

/*
 * Whether the file at path, loaded with its first segment at base
 * (dladdr's dli_fbase), has an STT_FUNC symbol whose
 * [st_value, st_value + st_size) covers addr. For ET_DYN the symbols are
 * relative to the first PT_LOAD's vaddr, so addr is taken as
 * addr - base + that vaddr (page-aligned); for ET_EXEC as is. If found,
 * its name (NUL-terminated, inside the mapping, valid until
 * elf_sym_release) and addr's offset from it.
 */
bool elf_sym_lookup(struct elf_sym *es, const char *path, uint64_t addr, uint64_t base,
		    const char **name, uint64_t *sym_off);

/*
 * The reverse, for CORECAP_DELAY: whether the file at path, loaded at
 * base, has an STT_FUNC symbol called name; if so its run-time address.
 */
bool elf_sym_address(struct elf_sym *es, const char *path, const char *name, uint64_t base,
		     uint64_t *addr);

#endif /* CORECAP_PRELOAD_ELF_SYM_H */
