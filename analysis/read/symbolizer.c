#include "symbolizer.h"
#include "run_file.h"

#include <errno.h>
#include <fcntl.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* libstdc++'s demangler, through its C ABI symbol (there is no C header). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define PAGE_MASK_4K (~(uint64_t)0xfff)

struct sym_entry {
	uint64_t addr, size;
	const char *name; /* in the ELF's string table (mapped while the Elf lives) */
	char *demangled;  /* lazily */
	bool func, global;
};

struct sym_load {
	uint64_t off, vaddr, filesz, memsz;
};

/* A variable at a fixed address (DW_OP_addr), from the DWARF index. */
struct dwarf_var {
	uint64_t addr;
	Dwarf_Off die;
};

struct sym_module {
	char *path;	  /* as in maps */
	const char *base; /* basename of path */
	bool loaded;	  /* tried to open */
	bool has_elf;	  /* loads usable */
	char *problem;	  /* why no symbols, or NULL */
	int fd, dbg_fd;
	Elf *elf, *dbg_elf;
	struct sym_entry *syms;
	size_t n_syms;
	struct sym_load *loads;
	size_t n_loads;
	bool has_bias;
	uint64_t bias, lo, hi; /* module's vaddr range, and its load bias */
	bool dwarf_tried;      /* the variable index below was built (or failed) */
	Dwarf *dwarf;
	struct dwarf_var *vars; /* sorted by addr */
	size_t n_vars;
};

struct sym_mapping {
	uint64_t start, end, offset;
	size_t mod;
};

static int cmp_mapping(const void *a, const void *b)
{
	const struct sym_mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

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

static size_t module_index(struct symbolizer *s, const char *path)
{
	struct sym_module *mods;
	const char *slash;

	for (size_t i = 0; i < s->n_mods; i++)
		if (strcmp(s->mods[i].path, path) == 0)
			return i;
	mods = realloc(s->mods, (s->n_mods + 1) * sizeof(*mods));
	if (!mods)
		return SIZE_MAX;
	s->mods = mods;
	mods[s->n_mods] = (struct sym_module){.path = strdup(path), .fd = -1, .dbg_fd = -1};
	if (!mods[s->n_mods].path)
		return SIZE_MAX;
	slash = strrchr(mods[s->n_mods].path, '/');
	mods[s->n_mods].base = slash ? slash + 1 : mods[s->n_mods].path;
	return s->n_mods++;
}

static int read_maps(struct symbolizer *s, const char *path, char **err)
{
	FILE *f = corecap_run_file_fopen(path);
	char *line = NULL, *file, perms[8];
	size_t size = 0, cap = 0, mod;
	unsigned long long start, end, off;
	int n, ret = 0;

	if (!f) {
		ret = -errno;
		if (ret != -ENOENT && asprintf(err, "cannot open '%s': %s", path,
					       corecap_run_file_strerror(-ret)) < 0)
			*err = NULL;
		return ret;
	}
	while (getline(&line, &size, f) >= 0) {
		line[strcspn(line, "\n")] = '\0';
		n = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &n) <
			    4 ||
		    !n)
			continue;
		file = line + n;
		if (file[0] != '/')
			continue; /* anonymous, [heap], [stack], [vdso]: nothing to read */
		if (strlen(file) > 10 && strcmp(file + strlen(file) - 10, " (deleted)") == 0)
			file[strlen(file) - 10] = '\0';
		mod = module_index(s, file);
		if (mod == SIZE_MAX)
			goto out_nomem;
		if (s->n_maps == cap) {
			struct sym_mapping *grown;

			cap = cap ? cap * 2 : 64;
			grown = realloc(s->maps, cap * sizeof(*grown));
			if (!grown)
				goto out_nomem;
			s->maps = grown;
		}
		s->maps[s->n_maps++] = (struct sym_mapping){start, end, off, mod};
	}
	if (s->n_maps) /* qsort(NULL, 0) is undefined */
		qsort(s->maps, s->n_maps, sizeof(*s->maps), cmp_mapping);
	goto out;
out_nomem:
	ret = -ENOMEM;
out:
	free(line);
	fclose(f);
	return ret;
}

static void read_buildids(struct symbolizer *s, const char *path)
{
	FILE *f = path ? corecap_run_file_fopen(path) : NULL;
	char *line = NULL, *tab;
	size_t size = 0;

	s->buildids = calloc(s->n_mods ? s->n_mods : 1, sizeof(*s->buildids));
	if (!f || !s->buildids)
		goto out;
	while (getline(&line, &size, f) >= 0) {
		line[strcspn(line, "\n")] = '\0';
		tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = '\0';
		for (size_t i = 0; i < s->n_mods; i++)
			if (!s->buildids[i] && strcmp(s->mods[i].path, line) == 0)
				s->buildids[i] = strdup(tab + 1);
	}
out:
	free(line);
	if (f)
		fclose(f);
}

int corecap_symbolizer_init(struct symbolizer *s, const char *maps_path, const char *buildids_path,
			    const char *symfs, char **err)
{
	int ret;

	*s = (struct symbolizer){0};
	*err = NULL;
	corecap_u64map_init(&s->cache);
	elf_version(EV_CURRENT);
	if (symfs && !(s->symfs = strdup(symfs)))
		return -ENOMEM;
	ret = read_maps(s, maps_path, err);
	if (ret)
		return ret;
	read_buildids(s, buildids_path);
	return 0;
}

static void module_release(struct sym_module *m)
{
	if (m->dwarf)
		dwarf_end(m->dwarf);
	free(m->vars);
	for (size_t i = 0; i < m->n_syms; i++)
		free(m->syms[i].demangled);
	free(m->syms);
	free(m->loads);
	if (m->elf)
		elf_end(m->elf);
	if (m->dbg_elf)
		elf_end(m->dbg_elf);
	if (m->fd >= 0)
		close(m->fd);
	if (m->dbg_fd >= 0)
		close(m->dbg_fd);
	free(m->problem);
	free(m->path);
}

void corecap_symbolizer_release(struct symbolizer *s)
{
	uint64_t v;

	for (size_t i = 0; i < s->n_mods; i++) {
		module_release(&s->mods[i]);
		if (s->buildids)
			free(s->buildids[i]);
	}
	free(s->buildids);
	free(s->mods);
	free(s->maps);
	free(s->symfs);
	for (size_t i = 0; corecap_u64map_next(&s->cache, &i, NULL, &v);)
		free((char *)(uintptr_t)v);
	corecap_u64map_release(&s->cache);
	*s = (struct symbolizer){0};
}

static Elf *open_elf(const char *path, int *fd)
{
	Elf *elf;

	/* A run's maps may name any path: a FIFO there must not block us. */
	*fd = corecap_run_file_open(path);
	if (*fd < 0) {
		*fd = -1;
		return NULL;
	}
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(*fd);
		*fd = -1;
		return NULL;
	}
	return elf;
}

/* The GNU build-id of an ELF file as hex, into out (size >= 41); false if none. */
static bool elf_build_id(Elf *elf, char *out, size_t size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			const unsigned char *desc = (const unsigned char *)data->d_buf + desc_off;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)data->d_buf + name_off, "GNU", 4) != 0)
				continue;
			if (nh.n_descsz * 2 + 1 > size)
				return false;
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(out + 2 * i, 3, "%02x", desc[i]);
			return true;
		}
	}
	return false;
}

static char *rooted(const struct symbolizer *s, const char *path)
{
	char *out;

	if (asprintf(&out, "%s%s", s->symfs ? s->symfs : "", path) < 0)
		return NULL;
	return out;
}

/* Opens /usr/lib/debug/.build-id/xx/yyyy.debug (under symfs) for a build-id. */
static Elf *open_debug_file(const struct symbolizer *s, const char *build_id, int *fd)
{
	char rel[160], *path;
	Elf *elf;

	if (!build_id || strlen(build_id) < 3)
		return NULL;
	snprintf(rel, sizeof(rel), "/usr/lib/debug/.build-id/%.2s/%s.debug", build_id,
		 build_id + 2);
	path = rooted(s, rel);
	elf = path ? open_elf(path, fd) : NULL;
	free(path);
	return elf;
}

static bool has_section(Elf *elf, GElf_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return true;
	return false;
}

static bool has_section_named(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    strcmp(n, name) == 0 && sh.sh_type != SHT_NOBITS)
			return true;
	return false;
}

static int read_symbols(struct sym_module *m, Elf *elf, GElf_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	size_t cap = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		size_t count;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		count = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < count; i++) {
			int t;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !sym.st_value)
				continue;
			t = GELF_ST_TYPE(sym.st_info);
			if (t != STT_FUNC && t != STT_OBJECT && t != STT_GNU_IFUNC && t != STT_TLS)
				continue;
			if (t == STT_TLS)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
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
				.addr = sym.st_value,
				.size = sym.st_size,
				.name = name,
				.func = t != STT_OBJECT,
				.global = GELF_ST_BIND(sym.st_info) != STB_LOCAL,
			};
		}
	}
	qsort(m->syms, m->n_syms, sizeof(*m->syms), cmp_sym);
	return 0;
}

static int read_loads(struct sym_module *m, Elf *elf)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	m->loads = calloc(n ? n : 1, sizeof(*m->loads));
	if (!m->loads)
		return -ENOMEM;
	m->lo = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		m->loads[m->n_loads++] =
			(struct sym_load){ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz};
		if (ph.p_vaddr < m->lo)
			m->lo = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > m->hi)
			m->hi = ph.p_vaddr + ph.p_memsz;
	}
	return m->n_loads ? 0 : -EINVAL;
}

static void set_problem(struct sym_module *m, const char *why)
{
	if (asprintf(&m->problem, "'%s': %s", m->path, why) < 0)
		m->problem = NULL;
}

static void load_module(struct symbolizer *s, size_t idx)
{
	struct sym_module *m = &s->mods[idx];
	const char *want = s->buildids ? s->buildids[idx] : NULL;
	char have[160], *path;
	Elf *symsrc;

	m->loaded = true;
	path = rooted(s, m->path);
	m->elf = path ? open_elf(path, &m->fd) : NULL;
	if (!m->elf) {
		set_problem(m, s->symfs ? "cannot read the ELF file under --symfs"
					: "cannot read the ELF file");
		goto out;
	}
	if (want && (!elf_build_id(m->elf, have, sizeof(have)) || strcmp(have, want) != 0)) {
		/* The file changed since the recording: its own symbols would lie. */
		elf_end(m->elf);
		close(m->fd);
		m->fd = -1;
		m->elf = open_debug_file(s, want, &m->dbg_fd);
		if (!m->elf) {
			set_problem(m, "build-id differs from the recorded one");
			goto out;
		}
		m->fd = m->dbg_fd;
		m->dbg_fd = -1;
	}
	if (read_loads(m, m->elf)) {
		set_problem(m, "no loadable segments");
		goto out;
	}
	m->has_elf = true;
	symsrc = m->elf;
	if (!has_section(m->elf, SHT_SYMTAB) && elf_build_id(m->elf, have, sizeof(have))) {
		m->dbg_elf = open_debug_file(s, have, &m->dbg_fd);
		if (m->dbg_elf && has_section(m->dbg_elf, SHT_SYMTAB))
			symsrc = m->dbg_elf;
	}
	if (read_symbols(m, symsrc, has_section(symsrc, SHT_SYMTAB) ? SHT_SYMTAB : SHT_DYNSYM))
		set_problem(m, "cannot read symbols");
out:
	free(path);
}

static const struct sym_mapping *find_mapping(const struct symbolizer *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n_maps;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (addr < s->maps[mid].start)
			hi = mid;
		else if (addr >= s->maps[mid].end)
			lo = mid + 1;
		else
			return &s->maps[mid];
	}
	return NULL;
}

/* The last mapping starting below addr, or NULL. */
static const struct sym_mapping *find_mapping_below(const struct symbolizer *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n_maps;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &s->maps[lo - 1] : NULL;
}

/* The load bias from one mapping of the module: where its vaddr 0 sits in memory. */
static void set_bias(struct sym_module *m, const struct sym_mapping *map)
{
	for (size_t i = 0; i < m->n_loads; i++) {
		const struct sym_load *l = &m->loads[i];

		if ((l->off & PAGE_MASK_4K) <= map->offset && map->offset < l->off + l->filesz) {
			m->bias = map->start - (l->vaddr - (l->off - map->offset));
			m->has_bias = true;
			return;
		}
	}
}

static const struct sym_entry *find_sym(const struct sym_module *m, uint64_t vaddr)
{
	size_t lo = 0, hi = m->n_syms;

	/* The last symbol starting at or before vaddr. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct sym_entry *e = &m->syms[i];

		if (vaddr < e->addr + (e->size ? e->size : 1))
			return e;
		/* An enclosing symbol may start earlier than a small one before vaddr. */
		if (lo - i > 8)
			break;
	}
	return NULL;
}

static const char *demangled(struct sym_entry *e)
{
	int status = -1;

	if (e->demangled)
		return e->demangled;
	if (strncmp(e->name, "_Z", 2) != 0)
		return e->name;
	e->demangled = __cxa_demangle(e->name, NULL, NULL, &status);
	if (status != 0 || !e->demangled) {
		free(e->demangled);
		e->demangled = strdup(e->name);
	}
	return e->demangled ? e->demangled : e->name;
}

static bool lookup(struct symbolizer *s, uint64_t addr, bool code, struct sym_info *info,
		   struct sym_module **mod)
{
	const struct sym_mapping *map = find_mapping(s, addr);
	struct sym_module *m = NULL;
	struct sym_entry *e;
	uint64_t vaddr;

	*info = (struct sym_info){0};
	if (map) {
		m = &s->mods[map->mod];
		if (!m->loaded)
			load_module(s, map->mod);
		if (m->has_elf && !m->has_bias)
			set_bias(m, map);
		info->module = m->base;
		info->offset = addr - map->start + map->offset;
	} else {
		/*
		 * Data past a file mapping (.bss, in an anonymous mapping) belongs
		 * to the module whose range covers it: most likely the module of
		 * the mapping just below, so make sure that one is loaded.
		 */
		const struct sym_mapping *below = find_mapping_below(s, addr);

		if (below) {
			struct sym_module *bm = &s->mods[below->mod];

			if (!bm->loaded)
				load_module(s, below->mod);
			if (bm->has_elf && !bm->has_bias)
				set_bias(bm, below);
		}
		for (size_t i = 0; i < s->n_mods && !m; i++)
			if (s->mods[i].has_bias && addr - s->mods[i].bias >= s->mods[i].lo &&
			    addr - s->mods[i].bias < s->mods[i].hi)
				m = &s->mods[i];
		if (!m)
			return false;
		info->module = m->base;
		info->offset = addr - m->bias;
	}
	if (!m->has_elf || !m->has_bias)
		return true;
	*mod = m;
	vaddr = addr - m->bias;
	/* A return address follows its call: look up the call's own byte. */
	e = (struct sym_entry *)find_sym(m, code && vaddr ? vaddr - 1 : vaddr);
	if (e) {
		info->symbol = demangled(e);
		info->offset = vaddr - e->addr;
	}
	return true;
}

bool corecap_symbolizer_lookup(struct symbolizer *s, uint64_t addr, struct sym_info *info)
{
	struct sym_module *m;

	return lookup(s, addr, true, info, &m);
}

/*
 * Data names from DWARF: a lock inside a global struct reads as the path
 * to its member ("d.osd.big_lock"), not "d.0+0x1160". The module's
 * variables at fixed addresses are indexed once, on the first data
 * address that needs it; a module without DWARF keeps symbol+offset.
 */
#define DWARF_MAX_DEPTH 8

static int cmp_var(const void *a, const void *b)
{
	const struct dwarf_var *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int index_die(struct sym_module *m, Dwarf_Die *die, size_t *cap)
{
	Dwarf_Die child;
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t n_ops;

	if (dwarf_tag(die) == DW_TAG_variable && dwarf_attr(die, DW_AT_location, &at) &&
	    dwarf_getlocation(&at, &ops, &n_ops) == 0 && n_ops == 1 && ops[0].atom == DW_OP_addr) {
		if (m->n_vars == *cap) {
			struct dwarf_var *grown;

			*cap = *cap ? *cap * 2 : 256;
			grown = realloc(m->vars, *cap * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			m->vars = grown;
		}
		m->vars[m->n_vars++] = (struct dwarf_var){ops[0].number, dwarf_dieoffset(die)};
	}
	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		int t = dwarf_tag(&child);

		/* Variables live at the top, in functions, blocks and namespaces. */
		if ((t == DW_TAG_variable || t == DW_TAG_subprogram || t == DW_TAG_lexical_block ||
		     t == DW_TAG_namespace) &&
		    index_die(m, &child, cap))
			return -ENOMEM;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static void index_dwarf(struct sym_module *m)
{
	Elf *elf = m->dbg_elf && has_section_named(m->dbg_elf, ".debug_info") ? m->dbg_elf : m->elf;
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;
	Dwarf_Die cu;

	m->dwarf_tried = true;
	if (!elf || !has_section_named(elf, ".debug_info"))
		return;
	m->dwarf = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!m->dwarf)
		return;
	while (dwarf_nextcu(m->dwarf, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(m->dwarf, off + hsize, &cu) && index_die(m, &cu, &cap))
			break;
		off = next;
	}
	qsort(m->vars, m->n_vars, sizeof(*m->vars), cmp_var);
}

static bool append(char *out, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool append(char *out, size_t size, const char *fmt, ...)
{
	size_t len = strlen(out);
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out + len, size - len, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size - len;
}

/* Descends from a type to the member at `off`, appending ".member" and "[i]". */
static bool member_at(Dwarf_Die *type, uint64_t off, char *out, size_t size, int depth)
{
	Dwarf_Die t, child, mtype;
	Dwarf_Attribute at;
	Dwarf_Word moff, msize;
	int tag;

	if (depth > DWARF_MAX_DEPTH || dwarf_peel_type(type, &t) != 0)
		return false;
	tag = dwarf_tag(&t);
	/*
	 * At offset 0 the member that starts here is the thing, unless it
	 * is a plain struct or array, whose first member is more precise.
	 * Locks stop the descent (pthread_mutex_t is a union underneath).
	 */
	if (off == 0 && ((tag != DW_TAG_structure_type && tag != DW_TAG_class_type &&
			  tag != DW_TAG_array_type) ||
			 (dwarf_tag(type) == DW_TAG_typedef && dwarf_diename(type) &&
			  strncmp(dwarf_diename(type), "pthread_", 8) == 0)))
		return true;
	if (tag == DW_TAG_array_type) {
		Dwarf_Die elem;
		Dwarf_Word esize;

		if (!dwarf_attr(&t, DW_AT_type, &at) || !dwarf_formref_die(&at, &elem) ||
		    dwarf_aggregate_size(&elem, &esize) != 0 || !esize)
			return false;
		return append(out, size, "[%" PRIu64 "]", off / esize) &&
		       member_at(&elem, off % esize, out, size, depth + 1);
	}
	if ((tag != DW_TAG_structure_type && tag != DW_TAG_class_type &&
	     tag != DW_TAG_union_type) ||
	    dwarf_child(&t, &child) != 0)
		return false;
	do {
		if (dwarf_tag(&child) != DW_TAG_member || !dwarf_diename(&child) ||
		    !dwarf_attr(&child, DW_AT_type, &at) || !dwarf_formref_die(&at, &mtype) ||
		    dwarf_aggregate_size(&mtype, &msize) != 0)
			continue;
		moff = 0;
		if (dwarf_attr(&child, DW_AT_data_member_location, &at) &&
		    dwarf_formudata(&at, &moff) != 0)
			continue;
		if (off >= moff && off < moff + msize)
			return append(out, size, ".%s", dwarf_diename(&child)) &&
			       member_at(&mtype, off - moff, out, size, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static bool dwarf_member_path(struct sym_module *m, uint64_t sym_vaddr, uint64_t off, char *out,
			      size_t size)
{
	size_t lo = 0, hi;
	Dwarf_Die var, type;
	Dwarf_Attribute at;
	const char *name;

	if (!m->dwarf_tried)
		index_dwarf(m);
	hi = m->n_vars;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->vars[mid].addr < sym_vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->n_vars || m->vars[lo].addr != sym_vaddr ||
	    !dwarf_offdie(m->dwarf, m->vars[lo].die, &var) || !(name = dwarf_diename(&var)))
		return false;
	/* A declaration's type may sit on its specification. */
	if (!dwarf_attr_integrate(&var, DW_AT_type, &at) || !dwarf_formref_die(&at, &type))
		return false;
	snprintf(out, size, "%s", name);
	return member_at(&type, off, out, size, 0);
}

const char *corecap_symbolizer_name(struct symbolizer *s, uint64_t addr, bool code)
{
	uint64_t key = addr << 1 | code, *slot;
	struct sym_info info;
	char *name = NULL;
	int n;

	struct sym_module *m = NULL;
	char path[256];

	slot = corecap_u64map_find(&s->cache, key);
	if (slot)
		return (const char *)(uintptr_t)*slot;
	if (!lookup(s, addr, code, &info, &m))
		n = asprintf(&name, "0x%" PRIx64, addr);
	else if (info.symbol && !code && m &&
		 dwarf_member_path(m, addr - m->bias - info.offset, info.offset, path,
				   sizeof(path)))
		n = asprintf(&name, "%s", path);
	else if (info.symbol && (code || info.offset))
		n = asprintf(&name, "%s+0x%" PRIx64, info.symbol, info.offset);
	else if (info.symbol)
		n = asprintf(&name, "%s", info.symbol);
	else
		n = asprintf(&name, "%s+0x%" PRIx64, info.module, info.offset);
	if (n < 0)
		return "?";
	slot = corecap_u64map_upsert(&s->cache, key, NULL);
	if (!slot) {
		free(name);
		return "?";
	}
	*slot = (uint64_t)(uintptr_t)name;
	return name;
}

size_t corecap_symbolizer_problems(const struct symbolizer *s, char ***lines)
{
	size_t n = 0;

	*lines = calloc(s->n_mods ? s->n_mods : 1, sizeof(**lines));
	if (!*lines)
		return 0;
	for (size_t i = 0; i < s->n_mods; i++)
		if (s->mods[i].problem)
			(*lines)[n++] = s->mods[i].problem;
	return n;
}
