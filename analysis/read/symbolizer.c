#include "symbolizer.h"
#include "run_file.h"
#include "sym_cache.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <corecap/diag.h>
#include <corecap/run_format.h>

#include "../util/grow.h"

/* libstdc++'s demangler, through its C ABI symbol (there is no C header). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define PAGE_MASK_4K (~(uint64_t)0xfff)
#define VDSO_NAME    "[vdso]"
#define MAX_INLINE   64

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

static bool is_shim_file(const char *base)
{
	return strncmp(base, "libcorecap-preload.so", 21) == 0 ||
	       strncmp(base, "libcorecap-tp.so", 16) == 0 || strncmp(base, "liblttng-ust", 12) == 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static size_t module_index(struct symbolizer *s, const char *path)
{
	struct sym_module *mods, *m;

	for (size_t i = 0; i < s->n_mods; i++)
		if (strcmp(s->mods[i].path, path) == 0)
			return i;
	mods = realloc(s->mods, (s->n_mods + 1) * sizeof(*mods));
	if (!mods)
		return SIZE_MAX;
	s->mods = mods;
	m = &mods[s->n_mods];
	*m = (struct sym_module){.path = strdup(path)};
	if (!m->path)
		return SIZE_MAX;
	m->base = base_name(m->path);
	m->shim = is_shim_file(m->base);
	return s->n_mods++;
}

/* The longest line of maps and buildids.tsv: a path (PATH_MAX) and its fields. */
#define MAPS_MAX_LINE (PATH_MAX + 256)

static int read_maps(struct symbolizer *s, const char *path, char **err)
{
	char *line, *file, perms[8];
	struct run_lines l;
	size_t len, cap = 0, mod;
	unsigned long long start, end, off;
	int n, ret;

	ret = corecap_run_lines_open(&l, path, MAPS_MAX_LINE);
	if (ret) {
		if (ret != -ENOENT && asprintf(err, "cannot open '%s': %s", path,
					       corecap_run_file_strerror(-ret)) < 0)
			*err = NULL;
		return ret;
	}
	while ((ret = corecap_run_lines_next(&l, &line, &len)) > 0) {
		n = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &n) <
			    4 ||
		    !n)
			continue;
		file = line + n;
		/* Anonymous, [heap], [stack]: nothing to read. */
		if (file[0] != '/' && strcmp(file, VDSO_NAME) != 0)
			continue;
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
		s->maps[s->n_maps++] = (struct sym_mapping){start, end, off, mod, perms[2] == 'x'};
	}
	if (ret < 0) {
		ret = corecap_run_lines_err(&l, ret, err);
		goto out;
	}
	if (s->n_maps) /* qsort(NULL, 0) is undefined */
		qsort(s->maps, s->n_maps, sizeof(*s->maps), cmp_mapping);
	goto out;
out_nomem:
	ret = -ENOMEM;
out:
	corecap_run_lines_close(&l);
	return ret;
}

/* buildids.tsv: absent, the build IDs are unknown; a file that is not one is an error, as for maps.
 */
static int read_buildids(struct symbolizer *s, const char *path, char **err)
{
	struct run_lines l;
	char *line, *tab;
	size_t len;
	int ret;

	s->buildids = calloc(s->n_mods ? s->n_mods : 1, sizeof(*s->buildids));
	if (!s->buildids)
		return -ENOMEM;
	if (!path)
		return 0;
	ret = corecap_run_lines_open(&l, path, MAPS_MAX_LINE);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return corecap_err(err, ret, "cannot open '%s': %s", path,
				   corecap_run_file_strerror(-ret));
	while ((ret = corecap_run_lines_next(&l, &line, &len)) > 0) {
		tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = '\0';
		for (size_t i = 0; i < s->n_mods; i++)
			if (!s->buildids[i] && strcmp(s->mods[i].path, line) == 0)
				s->buildids[i] = strdup(tab + 1);
	}
	if (ret < 0)
		ret = corecap_run_lines_err(&l, ret, err);
	corecap_run_lines_close(&l);
	return ret;
}

/* RUN/vdso.so beside RUN/maps, when the collector saved it. */
static void vdso_beside(struct symbolizer *s, const char *maps_path)
{
	const char *slash = strrchr(maps_path, '/');
	int dir_len = slash ? (int)(slash - maps_path) : 1;

	if (asprintf(&s->vdso_path, "%.*s/" CORECAP_RUN_VDSO, dir_len, slash ? maps_path : ".") < 0)
		s->vdso_path = NULL;
	else if (access(s->vdso_path, R_OK) != 0) {
		free(s->vdso_path);
		s->vdso_path = NULL;
	}
}

int corecap_symbolizer_init(struct symbolizer *s, const char *maps_path, const char *buildids_path,
			    const char *symfs, char **err)
{
	Dwfl_Callbacks *cb;
	int ret;

	*s = (struct symbolizer){0};
	*err = NULL;
	corecap_u64map_init(&s->cache);
	corecap_u64map_init(&s->frames);
	corecap_u64map_init(&s->demangled);
	elf_version(EV_CURRENT);
	if (symfs && !(s->symfs = strdup(symfs)))
		return -ENOMEM;
	/*
	 * libdwfl's standard search, rooted under --symfs: by build-id in
	 * DIR/.build-id, then by .gnu_debuglink beside the file, in its
	 * .debug/ and under DIR (the leading '-' skips the CRC check of a
	 * debuglink match, which a build-id match already makes).
	 */
	if (asprintf(&s->debuginfo_path, "-:.debug:%s/usr/lib/debug", symfs ? symfs : "") < 0) {
		s->debuginfo_path = NULL;
		return -ENOMEM;
	}
	cb = calloc(1, sizeof(*cb));
	if (!cb)
		return -ENOMEM;
	cb->find_elf = dwfl_build_id_find_elf;
	cb->find_debuginfo = dwfl_standard_find_debuginfo;
	cb->debuginfo_path = &s->debuginfo_path;
	s->callbacks = cb;
	s->dwfl = dwfl_begin(cb);
	if (!s->dwfl) {
		if (asprintf(err, "cannot start libdwfl: %s", dwfl_errmsg(-1)) < 0)
			*err = NULL;
		return -ENOMEM;
	}
	ret = read_maps(s, maps_path, err);
	if (ret == -ENOENT)
		return ret; /* usable without maps: the caller keeps it */
	if (ret) {
		corecap_symbolizer_release(s); /* unusable: nothing stays allocated */
		return ret;
	}
	ret = read_buildids(s, buildids_path, err);
	if (ret) {
		corecap_symbolizer_release(s);
		return ret;
	}
	vdso_beside(s, maps_path);
	return 0;
}

static void module_release(struct sym_module *m)
{
	static bool warned;

	if (m->cache) {
		int ret = corecap_sym_cache_write(m->cache);

		if (ret && !warned) {
			warned = true;
			corecap_warn("cannot write the symbol cache of '%s': %s", m->path,
				     strerror(-ret));
		}
		corecap_sym_cache_release(m->cache);
		free(m->cache);
	}
	free(m->all.v);
	free(m->one.v);
	free(m->units);
	free(m->syms);
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
	if (s->dwfl)
		dwfl_end(s->dwfl);
	free(s->callbacks);
	free(s->debuginfo_path);
	free(s->buildids);
	free(s->mods);
	free(s->maps);
	free(s->symfs);
	free(s->vdso_path);
	for (size_t i = 0; corecap_u64map_next(&s->cache, &i, NULL, &v);)
		free((char *)(uintptr_t)v);
	for (size_t i = 0; corecap_u64map_next(&s->frames, &i, NULL, &v);)
		free((void *)(uintptr_t)v);
	for (size_t i = 0; corecap_u64map_next(&s->demangled, &i, NULL, &v);)
		free((char *)(uintptr_t)v);
	corecap_u64map_release(&s->cache);
	corecap_u64map_release(&s->frames);
	corecap_u64map_release(&s->demangled);
	*s = (struct symbolizer){0};
}

static char *rooted(const struct symbolizer *s, const char *path)
{
	char *out;

	if (asprintf(&out, "%s%s", s->symfs ? s->symfs : "", path) < 0)
		return NULL;
	return out;
}

static void set_problem(struct sym_module *m, const char *why)
{
	free(m->problem);
	if (asprintf(&m->problem, "'%s': %s", m->path, why) < 0)
		m->problem = NULL;
}

/* The GNU build-id of an open ELF file as hex into out (size >= 2 * 64 + 1); false if none. */
static bool elf_build_id_hex(Elf *elf, char *out, size_t size)
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
static bool load_bias(const struct symbolizer *s, size_t mod, Elf *elf, uint64_t *bias)
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
	for (size_t k = 0; k < s->n_maps; k++) {
		const struct sym_mapping *map = &s->maps[k];

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

int corecap_symbolizer_open_elf(const char *path, Elf **elf)
{
	/* A run's maps may name any path: a FIFO there must not block us. */
	int fd = corecap_run_file_open(path);

	*elf = NULL;
	if (fd < 0)
		return -1;
	*elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF) {
		if (*elf)
			elf_end(*elf);
		*elf = NULL;
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * This machine's vDSO as a file libdwfl can read (a memfd holding the
 * image the kernel maps into every process), when it has the size of the
 * run's [vdso] mapping; -1 otherwise.
 */
static int own_vdso(const struct symbolizer *s, size_t mod)
{
	const unsigned char *image = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)image;
	uint64_t run_size = 0, size;
	int fd;

	if (!image || s->symfs || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -1;
	for (size_t k = 0; k < s->n_maps; k++)
		if (s->maps[k].mod == mod)
			run_size += s->maps[k].end - s->maps[k].start;
	/* The image ends with its section headers. */
	size = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	if (size > run_size || ((size + 0xfff) & PAGE_MASK_4K) != run_size)
		return -1;
	fd = memfd_create("corecap-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, image, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	return fd;
}

static int read_symbols(struct sym_module *m)
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

/* "path:size:mtime" of a file, or "path:absent", appended to out. */
static void file_stamp(char *out, size_t size, const char *path)
{
	size_t len = strlen(out);
	struct stat st;

	if (stat(path, &st) == 0)
		snprintf(out + len, size - len, "%s:%lld:%lld.%09ld;", path, (long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
	else
		snprintf(out + len, size - len, "%s:absent;", path);
}

/*
 * m's symbol cache for build-id bid (NULL: none, no cache), the file
 * read being `file` (the vDSO's image, when m is the vDSO). Its source
 * names the files DWARF can come from, the file and its debug file by
 * build-id under --symfs, as they are now: a debug file installed or
 * removed since makes the cache start again.
 */
static void open_cache(struct symbolizer *s, struct sym_module *m, const char *bid,
		       const char *file)
{
	char source[3 * PATH_MAX] = "corecap " CORECAP_VERSION ";";
	int dirfd = corecap_sym_cache_dir();

	if (!bid || strlen(bid) < 3 || dirfd < 0)
		return;
	if (strcmp(m->path, VDSO_NAME) == 0)
		file = s->vdso_path ? s->vdso_path : "this kernel's vDSO";
	file_stamp(source, sizeof(source), file);
	{
		char dbg[PATH_MAX + 128];

		snprintf(dbg, sizeof(dbg), "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
			 s->symfs ? s->symfs : "", bid, bid + 2);
		file_stamp(source, sizeof(source), dbg);
	}
	m->cache = malloc(sizeof(*m->cache));
	if (m->cache && corecap_sym_cache_open(m->cache, dirfd, bid, source)) {
		free(m->cache);
		m->cache = NULL;
	}
}

/* Reports module idx to libdwfl: the file under symfs, checked against its recorded build-id. */
static void load_module(struct symbolizer *s, size_t idx)
{
	struct sym_module *m = &s->mods[idx];
	const char *want = s->buildids ? s->buildids[idx] : NULL;
	char have[160], *path = NULL;
	bool bid_known;
	uint64_t bias;
	Elf *elf = NULL;
	int fd = -1;

	m->loaded = true;
	if (strcmp(m->path, VDSO_NAME) == 0) {
		/* The run's own image first (any machine, --symfs or not), then this machine's. */
		fd = s->vdso_path ? corecap_symbolizer_open_elf(s->vdso_path, &elf) : -1;
		if (fd < 0) {
			fd = own_vdso(s, idx);
			if (fd >= 0)
				elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		}
		if (!elf) {
			set_problem(m, s->symfs ? "the run has no " CORECAP_RUN_VDSO
						  " and the vDSO is not read under --symfs"
						: "the run has no " CORECAP_RUN_VDSO
						  " and this kernel's vDSO is not the run's");
			goto out;
		}
	} else {
		path = rooted(s, m->path);
		fd = path ? corecap_symbolizer_open_elf(path, &elf) : -1;
		if (fd < 0) {
			set_problem(m, s->symfs ? "cannot read the ELF file under --symfs"
						: "cannot read the ELF file");
			goto out;
		}
	}
	bid_known = elf_build_id_hex(elf, have, sizeof(have));
	if (want && (!bid_known || strcmp(have, want) != 0)) {
		/* The file changed since the recording: its own symbols would lie. */
		elf_end(elf);
		close(fd);
		free(path);
		path = NULL;
		fd = -1;
		if (strlen(want) > 2 && asprintf(&path, "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
						 s->symfs ? s->symfs : "", want, want + 2) >= 0)
			fd = corecap_symbolizer_open_elf(path, &elf);
		else
			path = NULL;
		if (fd < 0) {
			set_problem(m, "build-id differs from the recorded one");
			goto out;
		}
	}
	if (!load_bias(s, idx, elf, &bias)) {
		set_problem(m, "no loadable segment matches its mappings");
		goto out;
	}
	elf_end(elf);
	elf = NULL;
	dwfl_report_begin_add(s->dwfl);
	/* libdwfl takes the descriptor, also on failure of the report itself. */
	m->dm = dwfl_report_elf(s->dwfl, m->base, path ? path : m->path, fd, bias, true);
	if (!m->dm)
		close(fd);
	fd = -1;
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (!m->dm) {
		set_problem(m, dwfl_errmsg(-1));
		goto out;
	}
	dwfl_module_info(m->dm, NULL, &m->lo, &m->hi, NULL, NULL, NULL, NULL);
	m->bias = bias;
	if (read_symbols(m) || !m->n_syms)
		set_problem(m, "no symbols");
	else
		open_cache(s, m, want ? want : (bid_known ? have : NULL), path ? path : m->path);
out:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
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

static struct sym_entry *find_sym(const struct sym_module *m, uint64_t addr)
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

static const char *demangle(struct symbolizer *s, const char *name)
{
	uint64_t key = (uint64_t)(uintptr_t)name, *slot;
	char *d;
	int status = -1;

	if (strncmp(name, "_Z", 2) != 0)
		return name;
	slot = corecap_u64map_find(&s->demangled, key);
	if (slot)
		return (const char *)(uintptr_t)*slot;
	d = __cxa_demangle(name, NULL, NULL, &status);
	if (status != 0 || !d) {
		free(d);
		return name;
	}
	slot = corecap_u64map_upsert(&s->demangled, key, NULL);
	if (!slot) {
		free(d);
		return name;
	}
	*slot = (uint64_t)(uintptr_t)d;
	return d;
}

/* The module of addr (loaded), or NULL; info gets the module and file offset. */
static struct sym_module *module_of(struct symbolizer *s, uint64_t addr, struct sym_info *info)
{
	const struct sym_mapping *map = find_mapping(s, addr);
	struct sym_module *m = NULL;

	if (map) {
		m = &s->mods[map->mod];
		if (!m->loaded)
			load_module(s, map->mod);
		info->offset = addr - map->start + map->offset;
	} else {
		/*
		 * Data past a file mapping (.bss, in an anonymous mapping) belongs
		 * to the module whose range covers it: most likely the module of
		 * the mapping just below, so make sure that one is loaded.
		 */
		const struct sym_mapping *below = find_mapping_below(s, addr);

		if (below && !s->mods[below->mod].loaded)
			load_module(s, below->mod);
		for (size_t i = 0; i < s->n_mods && !m; i++)
			if (s->mods[i].dm && addr >= s->mods[i].lo && addr < s->mods[i].hi)
				m = &s->mods[i];
		if (!m)
			return NULL;
		info->offset = addr - m->lo;
	}
	info->module = m->base;
	info->shim = m->shim;
	return m;
}

/* addr is looked up as is (data, an exact PC) or as addr - 1 (a return address: code). */
static struct sym_module *lookup(struct symbolizer *s, uint64_t addr, bool code,
				 struct sym_info *info, struct sym_entry **entry)
{
	struct sym_module *m;
	struct sym_entry *e;

	*info = (struct sym_info){0};
	*entry = NULL;
	m = module_of(s, addr, info);
	if (!m || !m->dm)
		return m;
	/* A return address follows its call: look up the call's own byte. */
	e = find_sym(m, code && addr ? addr - 1 : addr);
	if (e) {
		info->symbol = demangle(s, e->name);
		info->offset = addr - e->addr;
		*entry = e;
	}
	return m;
}

const char *corecap_symbolizer_function(void *ctx, uint64_t addr, int exact)
{
	struct symbolizer *sym = ctx;
	struct sym_info info;

	/* The lookup takes a return address (it looks at addr - 1): step over that for a PC. */
	if (sym && corecap_symbolizer_lookup(sym, exact ? addr + 1 : addr, &info))
		return info.symbol;
	return NULL;
}

bool corecap_symbolizer_lookup(struct symbolizer *s, uint64_t addr, struct sym_info *info)
{
	struct sym_entry *e;

	return lookup(s, addr, true, info, &e) != NULL;
}

bool corecap_symbolizer_is_shim(struct symbolizer *s, uint64_t addr)
{
	struct sym_info info = {0};

	return module_of(s, addr, &info) && info.shim;
}

struct Dwfl_Module *corecap_symbolizer_module(struct symbolizer *s, uint64_t addr,
					      const char **path)
{
	struct sym_info info = {0};
	struct sym_module *m = module_of(s, addr, &info);

	*path = m ? m->path : NULL;
	return m ? m->dm : NULL;
}

const char *corecap_symbolizer_demangle(struct symbolizer *s, const char *name)
{
	return demangle(s, name);
}

/* A DIE's function name: its linkage name demangled (as addr2line -C prints it), else its name. */
static const char *die_function(struct symbolizer *s, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *name = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &at) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at))
		name = dwarf_formstring(&at);
	if (name)
		return demangle(s, name);
	name = dwarf_diename(die);
	return name ? name : "??";
}

/* The call site of an inlined call: its file (from the CU's file table) and line. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *inl, struct sym_frame *f)
{
	Dwarf_Attribute at;
	Dwarf_Word file, line;
	Dwarf_Files *files;
	size_t n;

	if (dwarf_attr(inl, DW_AT_call_file, &at) && dwarf_formudata(&at, &file) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &n) == 0 && file < n)
		f->file = dwarf_filesrc(files, file, NULL, NULL);
	if (dwarf_attr(inl, DW_AT_call_line, &at) && dwarf_formudata(&at, &line) == 0)
		f->line = (uint32_t)line;
}

/* The DIEs that may hold scopes with addresses, as libdw's own scope walk descends into. */
static bool may_have_scopes(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_module:
	case DW_TAG_lexical_block:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
		return true;
	default:
		return false;
	}
}

#define MAX_SCOPES 256

/*
 * The scopes holding pc in cu, innermost first and cu last, into
 * scopes[MAX_SCOPES] (malloc'd): what dwarf_getscopes' first match and
 * dwarf_getscopes_die of it give, in one walk down from cu instead of
 * three (the second and third, back up to the innermost DIE's parents and
 * to an inlined call's abstract origin, each walk the unit again: in a
 * ceph-osd unit that was most of the symbolizing after the inflating).
 * Like libdw's walk it goes into the first child whose ranges hold pc,
 * among those that may hold scopes. -1 when it meets a partial unit
 * imported (dwz) or nests too deep, which libdw's walk is left to follow.
 */
static int scope_chain(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **scopes)
{
	Dwarf_Die path[MAX_SCOPES], child;
	int n = 0, found;

	/* As libdw's: the unit is walked whatever its own ranges say; a chain is only ever its
	 * child's. */
	*scopes = NULL;
	path[n++] = *cu;
	while ((n == 1 || may_have_scopes(dwarf_tag(&path[n - 1]))) &&
	       dwarf_child(&path[n - 1], &child) == 0) {
		found = 0;
		do {
			if (dwarf_tag(&child) == DW_TAG_imported_unit)
				return -1;
			found = dwarf_haspc(&child, pc) > 0;
		} while (!found && dwarf_siblingof(&child, &child) == 0);
		if (!found)
			break;
		if (n == MAX_SCOPES)
			return -1;
		path[n++] = child;
	}
	if (n == 1)
		return 0;
	*scopes = malloc(n * sizeof(**scopes));
	if (!*scopes)
		return 0;
	for (int i = 0; i < n; i++)
		(*scopes)[i] = path[n - 1 - i];
	return n;
}

static size_t build_frames(struct symbolizer *s, uint64_t pc, struct sym_frame *out, size_t max)
{
	struct sym_info info;
	struct sym_entry *e;
	struct sym_module *m = lookup(s, pc, false, &info, &e);
	Dwarf_Die *cu, *scopes = NULL, *sub = NULL;
	Dwarf_Addr bias;
	Dwfl_Line *line;
	size_t n = 0;
	int ns = 0, lineno;

	if (!m || !m->dm)
		return 0;
	/*
	 * The innermost scope at pc, then its parents in the DIE tree: the
	 * concrete nesting of inlined calls (dwarf_getscopes itself goes on
	 * from an inlined call into its abstract origin's scopes), from
	 * scope_chain's one walk, else from libdw's.
	 */
	cu = dwfl_module_addrdie(m->dm, pc, &bias);
	if (cu)
		ns = scope_chain(cu, pc - bias, &scopes);
	if (cu && ns < 0) {
		ns = 0;
		if (dwarf_getscopes(cu, pc - bias, &scopes) > 0) {
			Dwarf_Die inner = scopes[0];

			free(scopes);
			scopes = NULL;
			ns = dwarf_getscopes_die(&inner, &scopes);
		}
	}
	for (int i = 0; i < ns && n + 1 < max; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram) {
			sub = &scopes[i];
			break;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		/* Its file and line, if any, came from its callee's call site. */
		out[n].function = die_function(s, &scopes[i]);
		out[n].inlined = true;
		/* Each caller is at its inlined callee's call site. */
		call_site(cu, &scopes[i], &out[n + 1]);
		n++;
	}
	if (!e && !sub) {
		free(scopes);
		return 0;
	}
	/* The function holding pc, by its symbol as elsewhere; its line was set above. */
	out[n].function = e ? info.symbol : die_function(s, sub);
	out[n].inlined = false;
	n++;
	/* The innermost frame is at pc's own line. */
	line = dwfl_module_getsrc(m->dm, pc);
	if (line) {
		const char *file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);

		if (file) {
			out[0].file = file;
			out[0].line = lineno > 0 ? (uint32_t)lineno : 0;
		}
	}
	free(scopes);
	return n;
}

/*
 * The frames at pc from m's symbol cache when it has them, else from
 * DWARF (then added to the cache): packed with their strings.
 */
static struct sym_cache_frames *cached_frames(struct symbolizer *s, uint64_t pc)
{
	struct sym_frame tmp[MAX_INLINE + 1];
	const struct sym_cache_frames *hit;
	struct sym_info info = {0};
	struct sym_module *m = module_of(s, pc, &info);
	size_t n;

	if (m && m->cache && (hit = corecap_sym_cache_frames(m->cache, pc - m->bias)))
		return corecap_sym_cache_pack(hit->f, hit->n);
	memset(tmp, 0, sizeof(tmp));
	n = build_frames(s, pc, tmp, MAX_INLINE + 1);
	if (m && m->cache && m->dm)
		corecap_sym_cache_put_frames(m->cache, pc - m->bias, tmp, n);
	return corecap_sym_cache_pack(tmp, n);
}

size_t corecap_symbolizer_frames(struct symbolizer *s, uint64_t pc, const struct sym_frame **frames)
{
	struct sym_cache_frames *fr;
	uint64_t *slot;

	slot = corecap_u64map_find(&s->frames, pc);
	if (slot) {
		fr = (struct sym_cache_frames *)(uintptr_t)*slot;
		*frames = fr->f;
		return fr->n;
	}
	fr = cached_frames(s, pc);
	if (!fr)
		return 0;
	slot = corecap_u64map_upsert(&s->frames, pc, NULL);
	if (!slot) {
		free(fr);
		return 0;
	}
	*slot = (uint64_t)(uintptr_t)fr;
	*frames = fr->f;
	return fr->n;
}

/*
 * Data names from DWARF: a lock inside a global struct reads as the path
 * to its member ("d.osd.big_lock"), not "d.0+0x1160". The module's
 * variables at fixed addresses are indexed on the first data address
 * that needs it: those at file and namespace scope first, whose walk
 * skips every function's body; all of them, functions' static ones too,
 * when an address is not among those. A local symbol (a static variable,
 * as malloc's main_arena) is looked for first in the units of its source
 * file alone, which the symbol table names: libc's whole DWARF is walked
 * otherwise. A module without DWARF keeps symbol+offset.
 */
#define DWARF_MAX_DEPTH 8

static int cmp_var(const void *a, const void *b)
{
	const struct dwarf_var *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Adds die's variables at fixed addresses to ix, and its children's
 * (deep: in functions and blocks too, not only in namespaces). */
static int index_die(struct dwarf_index *ix, Dwarf_Die *die, bool deep)
{
	Dwarf_Die child;
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t n_ops;

	if (dwarf_tag(die) == DW_TAG_variable && dwarf_attr(die, DW_AT_location, &at) &&
	    dwarf_getlocation(&at, &ops, &n_ops) == 0 && n_ops == 1 && ops[0].atom == DW_OP_addr) {
		if (ix->n == ix->cap) {
			size_t cap = ix->cap ? ix->cap * 2 : 256;
			struct dwarf_var *grown = realloc(ix->v, cap * sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			ix->v = grown;
			ix->cap = cap;
		}
		ix->v[ix->n++] = (struct dwarf_var){ops[0].number, dwarf_dieoffset(die)};
	}
	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		int t = dwarf_tag(&child);

		/* Variables live at the top, in functions, blocks and namespaces. */
		if ((t == DW_TAG_variable || t == DW_TAG_namespace ||
		     (deep && (t == DW_TAG_subprogram || t == DW_TAG_lexical_block))) &&
		    index_die(ix, &child, deep))
			return -ENOMEM;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* m's units, with their files' names: once. 0 or -ENOMEM. */
static int list_units(struct sym_module *m)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;
	Dwarf_Die cu;
	const char *name;

	if (m->units)
		return 0;
	while (dwarf_nextcu(m->dwarf, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(m->dwarf, off + hsize, &cu)) {
			if (corecap_grow((void **)&m->units, &cap, m->n_units + 1,
					 sizeof(*m->units)))
				return -ENOMEM;
			name = dwarf_diename(&cu);
			m->units[m->n_units++] =
				(struct dwarf_unit){off + hsize, name ? base_name(name) : NULL};
		}
		off = next;
	}
	return 0;
}

/*
 * ix rebuilt from m's units whose source file's base name is `file`
 * (NULL: every unit), deep or at file and namespace scope only.
 */
static void index_dwarf(struct sym_module *m, struct dwarf_index *ix, const char *file, bool deep)
{
	Dwarf_Die cu;

	ix->n = 0;
	if (list_units(m))
		return;
	for (size_t i = 0; i < m->n_units; i++) {
		const struct dwarf_unit *u = &m->units[i];

		if ((!file || (u->base && !strcmp(u->base, file))) &&
		    dwarf_offdie(m->dwarf, u->die, &cu) && index_die(ix, &cu, deep))
			break;
	}
	if (ix->n) /* qsort(NULL, 0) is undefined */
		qsort(ix->v, ix->n, sizeof(*ix->v), cmp_var);
}

/* ix's variable at DWARF address `want`, or NULL. */
static const struct dwarf_var *find_var(const struct dwarf_index *ix, uint64_t want)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ix->v[mid].addr < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->n && ix->v[lo].addr == want ? &ix->v[lo] : NULL;
}

/* m->one rebuilt from the unit whose DIE is at `die` alone, deep. */
static void index_unit(struct sym_module *m, Dwarf_Off die)
{
	Dwarf_Die cu;

	m->one.n = 0;
	m->one_file = NULL;
	m->one_cu = die;
	if (dwarf_offdie(m->dwarf, die, &cu))
		index_die(&m->one, &cu, true);
	if (m->one.n) /* qsort(NULL, 0) is undefined */
		qsort(m->one.v, m->one.n, sizeof(*m->one.v), cmp_var);
}

/*
 * The source file of the local data symbol nearest to e (before it,
 * else after it) within 64 KiB, or NULL: the linker lays out each
 * object's .data and .bss together, so a global's neighbour most likely
 * came from the same source file.
 */
static const char *neighbour_file(const struct sym_module *m, const struct sym_entry *e)
{
	size_t i = (size_t)(e - m->syms);

	for (size_t k = i; k-- > 0 && e->addr - m->syms[k].addr < 0x10000;)
		if (!m->syms[k].func && m->syms[k].file)
			return m->syms[k].file;
	for (size_t k = i + 1; k < m->n_syms && m->syms[k].addr - e->addr < 0x10000; k++)
		if (!m->syms[k].func && m->syms[k].file)
			return m->syms[k].file;
	return NULL;
}

/*
 * The variable at want, found in as few units as can be: first in the
 * unit whose address ranges hold want (dwarf_addrdie: .debug_aranges,
 * which GCC fills with code ranges only, so that data is rarely there:
 * libc6-dbg's main_arena is not), then among the units of `file` (a
 * local symbol's source file, or a global's neighbour's, may be NULL);
 * only then, or when the file has no aranges at all, at every unit's
 * file scope (the walk of every unit, which inflates libdw's view of the
 * whole .debug_info), then anywhere.
 */
static const struct dwarf_var *dwarf_var_at(struct sym_module *m, const char *file, uint64_t want)
{
	const struct dwarf_var *v;
	Dwarf_Die cu;

	if (m->all_level < 2 && dwarf_addrdie(m->dwarf, want, &cu)) {
		if (m->one_file || m->one_cu != dwarf_dieoffset(&cu))
			index_unit(m, dwarf_dieoffset(&cu));
		if ((v = find_var(&m->one, want)))
			return v;
	}
	if (file && m->all_level < 2) {
		file = base_name(file);
		if (!m->one_file || strcmp(m->one_file, file)) {
			index_dwarf(m, &m->one, file, true);
			m->one_file = file;
			m->one_cu = 0;
		}
		if ((v = find_var(&m->one, want)))
			return v;
	}
	if (!m->all_level) {
		index_dwarf(m, &m->all, NULL, false);
		m->all_level = 1;
	}
	if (!(v = find_var(&m->all, want)) && m->all_level == 1) {
		index_dwarf(m, &m->all, NULL, true);
		m->all_level = 2;
		v = find_var(&m->all, want);
	}
	return v;
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

static bool dwarf_member_path(struct sym_module *m, const struct sym_entry *e, uint64_t off,
			      char *out, size_t size)
{
	const struct dwarf_var *v;
	Dwarf_Die var, type;
	Dwarf_Attribute at;
	const char *name;

	if (!m->dwarf_tried) {
		m->dwarf_tried = true;
		m->dwarf = dwfl_module_getdwarf(m->dm, &m->dwbias);
	}
	if (!m->dwarf)
		return false;
	v = dwarf_var_at(m, e->global ? neighbour_file(m, e) : e->file, e->addr - m->dwbias);
	if (!v || !dwarf_offdie(m->dwarf, v->die, &var) || !(name = dwarf_diename(&var)))
		return false;
	/* A declaration's type may sit on its specification. */
	if (!dwarf_attr_integrate(&var, DW_AT_type, &at) || !dwarf_formref_die(&at, &type))
		return false;
	snprintf(out, size, "%s", name);
	return member_at(&type, off, out, size, 0);
}

/* dwarf_member_path for the data at addr, through m's symbol cache. */
static bool member_path(struct sym_module *m, const struct sym_entry *e, uint64_t addr,
			uint64_t off, char *out, size_t size)
{
	const char *name;
	bool found;

	if (m->cache && corecap_sym_cache_data(m->cache, addr - m->bias, &name)) {
		if (!name || strlen(name) >= size)
			return false;
		memcpy(out, name, strlen(name) + 1);
		return true;
	}
	found = dwarf_member_path(m, e, off, out, size);
	if (m->cache)
		corecap_sym_cache_put_data(m->cache, addr - m->bias, found ? out : NULL);
	return found;
}

const char *corecap_symbolizer_name(struct symbolizer *s, uint64_t addr, bool code)
{
	uint64_t key = addr << 1 | code, *slot;
	struct sym_module *m;
	struct sym_entry *e;
	struct sym_info info;
	char *name = NULL, path[256];
	int n;

	slot = corecap_u64map_find(&s->cache, key);
	if (slot)
		return (const char *)(uintptr_t)*slot;
	m = lookup(s, addr, code, &info, &e);
	if (!m)
		n = asprintf(&name, "0x%" PRIx64, addr);
	else if (e && !code && member_path(m, e, addr, info.offset, path, sizeof(path)))
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

bool corecap_symbolizer_covers(const struct symbolizer *s, const struct symbolizer *sub)
{
	if (!s->symfs != !sub->symfs || (s->symfs && strcmp(s->symfs, sub->symfs) != 0))
		return false;
	for (size_t i = 0; i < sub->n_maps; i++) {
		const struct sym_mapping *m = &sub->maps[i], *hit;

		if (!m->exec)
			continue;
		hit = bsearch(m, s->maps, s->n_maps, sizeof(*s->maps), cmp_mapping);
		if (!hit || hit->end != m->end || hit->offset != m->offset ||
		    strcmp(s->mods[hit->mod].path, sub->mods[m->mod].path) != 0)
			return false;
	}
	return true;
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
