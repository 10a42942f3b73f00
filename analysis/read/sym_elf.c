#include "sym_elf.h"
#include "sym_module.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>

#include "../util/u64map.h"

/* libstdc++'s demangler, through its C ABI symbol (there is no C header). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static int cmp_sym(const void *a, const void *b)
{
	const struct sym_entry *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->func != y->func) /* functions first, then globals: the better name */
		return x->func ? -1 : 1;
	if (x->global != y->global)
		return x->global ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The GNU build-id of an open ELF file as hex into out (size >= 2 * 64 + 1); false if none. */
bool corecap_sym_elf_build_id_hex(Elf *elf, char *out, size_t size)
{
	const unsigned char *bits;
	ssize_t n = dwelf_elf_gnu_build_id(elf, (const void **)&bits);

	if (n <= 0 || (size_t)n * 2 + 1 > size)
		return false;
	for (ssize_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", bits[i]);
	return true;
}

/*
 * Where vaddr 0 of the file sits in memory, from one of its mappings and
 * its PT_LOAD headers; false if no mapping matches a segment.
 */
bool corecap_sym_elf_load_bias(const struct sym_mapping *maps, size_t n_maps, size_t mod, Elf *elf,
			       uint64_t *bias)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t n;

	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &n))
		return false;
	if (eh.e_type == ET_EXEC) {
		*bias = 0;
		return true;
	}
	for (size_t k = 0; k < n_maps; k++) {
		const struct sym_mapping *map = &maps[k];

		if (map->mod != mod)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if ((ph.p_offset & PAGE_MASK_4K) <= map->offset &&
			    map->offset < ph.p_offset + ph.p_filesz) {
				*bias = map->start - (ph.p_vaddr - (ph.p_offset - map->offset));
				return true;
			}
		}
	}
	return false;
}

int corecap_sym_elf_read_symbols(struct sym_module *m)
{
	int n = dwfl_module_getsymtab(m->dm);
	size_t cap = 0;
	const char *file = NULL;

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name =
			dwfl_module_getsym_info(m->dm, i, &sym, &addr, &shndx, NULL, NULL);
		int t = GELF_ST_TYPE(sym.st_info);

		/* A file's local symbols follow its STT_FILE symbol (the ELF spec's order). */
		if (name && t == STT_FILE)
			file = *name ? name : NULL;
		if (!name || !*name || shndx == SHN_UNDEF || !sym.st_value ||
		    (t != STT_FUNC && t != STT_OBJECT && t != STT_GNU_IFUNC))
			continue;
		if (m->n_syms == cap) {
			struct sym_entry *grown;

			cap = cap ? cap * 2 : 256;
			grown = realloc(m->syms, cap * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			m->syms = grown;
		}
		m->syms[m->n_syms++] = (struct sym_entry){
			.addr = addr,
			.size = sym.st_size,
			.name = name,
			.file = GELF_ST_BIND(sym.st_info) == STB_LOCAL ? file : NULL,
			.func = t != STT_OBJECT,
			.global = GELF_ST_BIND(sym.st_info) != STB_LOCAL,
		};
	}
	if (m->n_syms) /* qsort(NULL, 0) is undefined */
		qsort(m->syms, m->n_syms, sizeof(*m->syms), cmp_sym);
	return n < 0 ? -EINVAL : 0;
}

struct sym_entry *corecap_sym_elf_find_sym(const struct sym_module *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n_syms;

	/* The last symbol starting at or before addr. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		struct sym_entry *e = &m->syms[i];

		if (addr < e->addr + (e->size ? e->size : 1))
			return e;
		/* An enclosing symbol may start earlier than a small one before addr. */
		if (lo - i > 8)
			break;
	}
	return NULL;
}

const char *corecap_sym_demangle(struct u64map *demangled, const char *name)
{
	uint64_t key = (uint64_t)(uintptr_t)name, *slot;
	char *d;
	int status = -1;

	if (strncmp(name, "_Z", 2) != 0)
		return name;
	slot = corecap_u64map_find(demangled, key);
	if (slot)
		return (const char *)(uintptr_t)*slot;
	d = __cxa_demangle(name, NULL, NULL, &status);
	if (status != 0 || !d) {
		free(d);
		return name;
	}
	slot = corecap_u64map_upsert(demangled, key, NULL);
	if (!slot) {
		free(d);
		return name;
	}
	*slot = (uint64_t)(uintptr_t)d;
	return d;
}
