#include "symbolizer.h"
#include "run_file.h"
#include "sym_cache.h"
#include "sym_dwarf.h"
#include "sym_elf.h"
#include "sym_module.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <corecap/diag.h>
#include <corecap/run_format.h>

#define VDSO_NAME  "[vdso]"
#define MAX_INLINE 64

static int cmp_mapping(const void *a, const void *b)
{
	const struct sym_mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static bool is_shim_file(const char *base)
{
	return strncmp(base, "libcorecap-preload.so", 21) == 0 ||
	       strncmp(base, "libcorecap-tp.so", 16) == 0 || strncmp(base, "liblttng-ust", 12) == 0;
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
	m->base = corecap_sym_base_name(m->path);
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
	corecap_u64map_init(&s->objects);
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
	for (size_t i = 0; corecap_u64map_next(&s->objects, &i, NULL, &v);)
		free((char *)(uintptr_t)v);
	corecap_u64map_release(&s->objects);
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
	bid_known = corecap_sym_elf_build_id_hex(elf, have, sizeof(have));
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
	if (!corecap_sym_elf_load_bias(s->maps, s->n_maps, idx, elf, &bias)) {
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
	if (corecap_sym_elf_read_symbols(m) || !m->n_syms)
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
	e = corecap_sym_elf_find_sym(m, code && addr ? addr - 1 : addr);
	if (e) {
		info->symbol = corecap_sym_demangle(&s->demangled, e->name);
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
	return corecap_sym_demangle(&s->demangled, name);
}

/* The frames at pc from DWARF (sym_dwarf.h), in the module that maps pc. */
static size_t build_frames(struct symbolizer *s, uint64_t pc, struct sym_frame *out, size_t max)
{
	struct sym_info info;
	struct sym_entry *e;
	struct sym_module *m = lookup(s, pc, false, &info, &e);

	if (!m || !m->dm)
		return 0;
	return corecap_sym_dwarf_frames(m, e, info.symbol, pc, &s->demangled, out, max);
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

/* corecap_sym_dwarf_member_path for the data at addr, through m's symbol cache. */
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
	found = corecap_sym_dwarf_member_path(m, e, off, out, size);
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

const char *corecap_symbolizer_arg_object(struct symbolizer *s, uint64_t ra)
{
	uint64_t *slot = corecap_u64map_find(&s->objects, ra);
	struct sym_module *m;
	struct sym_entry *e;
	struct sym_info info;
	char buf[256];
	char *name = NULL;

	if (slot)
		return (const char *)(uintptr_t)*slot;
	m = lookup(s, ra, true, &info, &e);
	if (m) {
		const char *hit;

		/* Through m's symbol cache: finding it opens the whole DWARF. */
		if (m->cache && corecap_sym_cache_object(m->cache, ra - m->bias, &hit)) {
			name = hit ? strdup(hit) : NULL;
		} else {
			bool found = corecap_sym_dwarf_arg_object(m, ra, buf, sizeof(buf));

			name = found ? strdup(buf) : NULL;
			if (m->cache)
				corecap_sym_cache_put_object(m->cache, ra - m->bias,
							     found ? buf : NULL);
		}
	}
	slot = corecap_u64map_upsert(&s->objects, ra, NULL);
	if (!slot) {
		free(name);
		return NULL;
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
