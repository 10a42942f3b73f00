/*
 * The shim's .symtab reader (preload/elf_sym.c), which maps the daemon's
 * executable at exit to name its static functions (and resolves
 * CORECAP_DELAY sites): an ELF file of any content, looked up by address
 * as ET_DYN and ET_EXEC would be, and by name. Every offset it reads must
 * be checked against the file's size: a corrupt file is "not found".
 */
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "elf_sym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t addrs[] = {0, 0x1000, 0x401006, 0x555555554240, 0x555555555000,
					 UINT64_MAX};
	const char *path = fuzz_file(0, data, size), *name;
	struct elf_sym es;
	uint64_t off, addr;

	elf_sym_init(&es);
	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		if (elf_sym_lookup(&es, path, addrs[i], 0x555555554000ull, &name, &off))
			(void)strlen(name);
		if (elf_sym_lookup(&es, path, addrs[i], 0, &name, &off))
			(void)strlen(name);
	}
	elf_sym_address(&es, path, "main", 0x555555554000ull, &addr);
	elf_sym_address(&es, path, "", 0, &addr);
	elf_sym_release(&es);
	return 0;
}
