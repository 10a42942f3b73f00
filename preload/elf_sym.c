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
 * addr in the symbols' terms: for ET_DYN, base is where the loader put the
 * page of the first PT_LOAD (glibc's l_map_start), whose vaddr is 0 in a
 * PIE or a usual shared object.
 */
static bool file_addr(const struct elf_sym_module *m, uint64_t addr, uint64_t base, uint64_t *off)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;
	const Elf64_Phdr *ph;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	bool ok = false;

	if (eh->e_type == ET_EXEC) {
		*off = addr;
		return true;
	}
	if (eh->e_type != ET_DYN || addr < base || eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff % 8 != 0 ||
	    !in_file(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), m->size))
		return false;
	ph = (const Elf64_Phdr *)(m->map + eh->e_phoff);
	for (uint32_t i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		*off = addr - base + (ph[i].p_vaddr & ~(page - 1));
		ok = true;
		break;
	}
	return ok;
}

bool elf_sym_lookup(struct elf_sym *es, const char *path, uint64_t addr, uint64_t base,
		    const char **name, uint64_t *sym_off)
{
	struct elf_sym_module *m = module_of(es, path);
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	bool found = false;
	uint64_t off;

	if (!m || !file_addr(m, addr, base, &off))
		return false;
	eh = (const Elf64_Ehdr *)m->map;
	sh = (const Elf64_Shdr *)(m->map + eh->e_shoff);
	for (uint32_t s = 0; s < eh->e_shnum && !found; s++) {
		const Elf64_Shdr *str;
		const Elf64_Sym *syms;
		uint64_t nsym;

		if (sh[s].sh_type != SHT_SYMTAB || sh[s].sh_link >= eh->e_shnum ||
		    sh[s].sh_entsize != sizeof(Elf64_Sym) || sh[s].sh_offset % 8 != 0 ||
		    !in_file(sh[s].sh_offset, sh[s].sh_size, m->size))
			continue;
		str = &sh[sh[s].sh_link];
		if (str->sh_type != SHT_STRTAB || str->sh_size == 0 ||
		    !in_file(str->sh_offset, str->sh_size, m->size))
			continue;
		syms = (const Elf64_Sym *)(m->map + sh[s].sh_offset);
		nsym = sh[s].sh_size / sizeof(Elf64_Sym);
		for (uint64_t i = 0; i < nsym; i++) {
			const Elf64_Sym *y = &syms[i];
			const char *nm;

			if (ELF64_ST_TYPE(y->st_info) != STT_FUNC || y->st_shndx == SHN_UNDEF ||
			    y->st_size == 0 || off < y->st_value ||
			    off - y->st_value >= y->st_size || y->st_name == 0 ||
			    y->st_name >= str->sh_size)
				continue;
			nm = (const char *)(m->map + str->sh_offset + y->st_name);
			/* The name must end inside its string table. */
			if (!memchr(nm, '\0', str->sh_size - y->st_name))
				continue;
			*name = nm;
			*sym_off = off - y->st_value;
			found = true;
			break;
		}
	}
	return found;
}
