#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_sym.h"

void elf_sym_init(struct elf_sym *es)
{
	es->count = 0;
}

void elf_sym_release(struct elf_sym *es)
{
	for (uint32_t i = 0; i < es->count; i++)
		if (es->mod[i].map)
			munmap((void *)es->mod[i].map, es->mod[i].size);
	es->count = 0;
}

/* Whether [off, off + len) lies inside a file of size bytes, without overflow. */
static bool in_file(uint64_t off, uint64_t len, size_t size)
{
	return off <= size && len <= size - off;
}

static const Elf64_Ehdr *ehdr_of(const unsigned char *map, size_t size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)map;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 ||
	    !in_file(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), size) ||
	    eh->e_shoff % 8 != 0)
		return NULL;
	return eh;
}

/* The module's mapping, opened on first use; NULL if it has no usable ELF header. */
static struct elf_sym_module *module_of(struct elf_sym *es, const char *path)
{
	struct elf_sym_module *m = NULL;
	size_t len = strlen(path);
	struct stat st;
	void *map;
	int fd;

	for (uint32_t i = 0; i < es->count; i++)
		if (strcmp(es->mod[i].path, path) == 0)
			return es->mod[i].map ? &es->mod[i] : NULL;
	if (len >= ELF_SYM_PATH || es->count == ELF_SYM_MODULES)
		return NULL;
	m = &es->mod[es->count++];
	memcpy(m->path, path, len + 1);
	m->map = NULL;
	m->size = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto out;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr))
		goto out_close_fd;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		goto out_close_fd;
	if (!ehdr_of(map, (size_t)st.st_size)) {
		munmap(map, (size_t)st.st_size);
		goto out_close_fd;
	}
	m->map = map;
	m->size = (size_t)st.st_size;
out_close_fd:
	close(fd);
out:
	return m->map ? m : NULL;
}

/*
 * What to subtract from a run-time address to get it in the symbols'
 * terms: 0 for ET_EXEC; for ET_DYN, base (where the loader put the page of
 * the first PT_LOAD, glibc's l_map_start) less that page's vaddr, 0 in a
 * PIE or a usual shared object.
 */
static bool load_bias(const struct elf_sym_module *m, uint64_t base, uint64_t *bias)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;
	const Elf64_Phdr *ph;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	bool ok = false;

	if (eh->e_type == ET_EXEC) {
		*bias = 0;
		return true;
	}
	if (eh->e_type != ET_DYN || eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff % 8 != 0 ||
	    !in_file(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), m->size))
		return false;
	ph = (const Elf64_Phdr *)(m->map + eh->e_phoff);
	for (uint32_t i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		*bias = base - (ph[i].p_vaddr & ~(page - 1));
		ok = true;
		break;
	}
	return ok;
}

/* The symbol table's section header and its string table's, if both are sound. */
static bool symtab_of(const struct elf_sym_module *m, uint32_t s, const Elf64_Shdr **symtab,
		      const Elf64_Shdr **strtab)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(m->map + eh->e_shoff);
	const Elf64_Shdr *str;

	if (sh[s].sh_type != SHT_SYMTAB || sh[s].sh_link >= eh->e_shnum ||
	    sh[s].sh_entsize != sizeof(Elf64_Sym) || sh[s].sh_offset % 8 != 0 ||
	    !in_file(sh[s].sh_offset, sh[s].sh_size, m->size))
		return false;
	str = &sh[sh[s].sh_link];
	if (str->sh_type != SHT_STRTAB || str->sh_size == 0 ||
	    !in_file(str->sh_offset, str->sh_size, m->size))
		return false;
	*symtab = &sh[s];
	*strtab = str;
	return true;
}

/* The symbol's name if it lies, NUL-terminated, inside its string table. */
static const char *name_of(const struct elf_sym_module *m, const Elf64_Shdr *str,
			   const Elf64_Sym *y)
{
	const char *nm;

	if (y->st_name == 0 || y->st_name >= str->sh_size)
		return NULL;
	nm = (const char *)(m->map + str->sh_offset + y->st_name);
	return memchr(nm, '\0', str->sh_size - y->st_name) ? nm : NULL;
}

/*
 * The first defined function symbol of the module's symbol tables, with a
 * sound name, that match accepts for key; its name in *name. NULL: none.
 */
static const Elf64_Sym *find_func(const struct elf_sym_module *m,
				  bool (*match)(const Elf64_Sym *y, const char *nm, const void *key),
				  const void *key, const char **name)
{
	const Elf64_Shdr *symtab, *str;

	for (uint32_t s = 0; s < ((const Elf64_Ehdr *)m->map)->e_shnum; s++) {
		const Elf64_Sym *syms;
		uint64_t nsym;

		if (!symtab_of(m, s, &symtab, &str))
			continue;
		syms = (const Elf64_Sym *)(m->map + symtab->sh_offset);
		nsym = symtab->sh_size / sizeof(Elf64_Sym);
		for (uint64_t i = 0; i < nsym; i++) {
			const Elf64_Sym *y = &syms[i];
			const char *nm;

			if (ELF64_ST_TYPE(y->st_info) != STT_FUNC || y->st_shndx == SHN_UNDEF ||
			    !(nm = name_of(m, str, y)) || !match(y, nm, key))
				continue;
			*name = nm;
			return y;
		}
	}
	return NULL;
}

static bool is_named(const Elf64_Sym *y, const char *nm, const void *key)
{
	(void)y;
	return strcmp(nm, key) == 0;
}

/* Whether the symbol's [st_value, st_value + st_size) holds the offset *key. */
static bool covers(const Elf64_Sym *y, const char *nm, const void *key)
{
	uint64_t off = *(const uint64_t *)key;

	(void)nm;
	return y->st_size && off >= y->st_value && off - y->st_value < y->st_size;
}

bool elf_sym_address(struct elf_sym *es, const char *path, const char *name, uint64_t base,
		     uint64_t *addr)
{
	struct elf_sym_module *m = module_of(es, path);
	const Elf64_Sym *y = NULL;
	const char *nm;
	uint64_t bias;

	if (m && load_bias(m, base, &bias) && (y = find_func(m, is_named, name, &nm)))
		*addr = y->st_value + bias;
	return y != NULL;
}

bool elf_sym_lookup(struct elf_sym *es, const char *path, uint64_t addr, uint64_t base,
		    const char **name, uint64_t *sym_off)
{
	struct elf_sym_module *m = module_of(es, path);
	const Elf64_Sym *y = NULL;
	uint64_t bias, off;

	if (m && load_bias(m, base, &bias) && addr >= bias) {
		off = addr - bias;
		if ((y = find_func(m, covers, &off, name)))
			*sym_off = off - y->st_value;
	}
	return y != NULL;
}
