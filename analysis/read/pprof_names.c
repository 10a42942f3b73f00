#include "pprof_names.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libstdc++'s demangler, through its C ABI symbol (there is no C header). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define MAX_CHAIN 64
#define HEX_LEN	  (2 + 16 + 1) /* "0x" and 16 digits, as pprof pads addresses */

/* One of nm's regions: from a symbol's address to the next address nm prints. */
struct nm_region {
	uint64_t start, end;
	char *tagged; /* as pprof holds it: nm's name, "<address>" unless it was a t/T alias */
	char *name;   /* as printed: without the tag and the version */
};

/* A symbol bfd's elf_find_function may pick (maybe_function_sym). */
struct fn_sym {
	uint64_t off, size; /* file address; size >= 1 */
	const char *name;   /* in libdwfl's string tables */
	uint32_t idx, shndx;
	int type;
};

struct pprof_image {
	struct nm_region *r; /* by start */
	size_t n;
	bool fini;	    /* nm's output has _fini: pprof runs addr2line -i */
	struct fn_sym *fns; /* by section, address, then symbol table order */
	size_t n_fns;
	bool fns_read;
};

/* One address's frames, as cached: the names live in the symbolizer, the image or hex. */
struct pprof_frames {
	size_t n;
	char hex[HEX_LEN];
	struct sym_frame f[];
};

struct nm_sym {
	uint64_t addr;
	const char *raw; /* in the ELF file's string table */
	bool t;		 /* nm's type t or T: code, neither weak, ifunc nor unique */
};

void corecap_pprof_names_init(struct pprof_names *p, struct symbolizer *sym)
{
	*p = (struct pprof_names){.sym = sym};
	corecap_u64map_init(&p->images);
	corecap_u64map_init(&p->frames);
	elf_version(EV_CURRENT);
}

static void image_free(struct pprof_image *im)
{
	if (!im)
		return;
	for (size_t i = 0; i < im->n; i++) {
		free(im->r[i].tagged);
		free(im->r[i].name);
	}
	free(im->r);
	free(im->fns);
	free(im);
}

void corecap_pprof_names_release(struct pprof_names *p)
{
	uint64_t k, v;

	for (size_t i = 0; corecap_u64map_next(&p->images, &i, &k, &v);)
		image_free((struct pprof_image *)(uintptr_t)v);
	for (size_t i = 0; corecap_u64map_next(&p->frames, &i, &k, &v);)
		free((void *)(uintptr_t)v);
	corecap_u64map_release(&p->images);
	corecap_u64map_release(&p->frames);
	*p = (struct pprof_names){0};
}

/* nm -C's name: demangled, a version suffix ("@@GLIBCXX_3.4") kept after it. */
static char *nm_demangle(const char *raw)
{
	const char *at = strchr(raw, '@');
	size_t len = at ? (size_t)(at - raw) : strlen(raw);
	char *base = strndup(raw, len), *d = NULL, *out;
	int status = -1;

	if (!base)
		return NULL;
	if (strncmp(base, "_Z", 2) == 0)
		d = __cxa_demangle(base, NULL, NULL, &status);
	if (status != 0 || !d) {
		free(d);
		d = NULL;
	}
	if (asprintf(&out, "%s%s", d ? d : base, at ? at : "") < 0)
		out = NULL;
	free(d);
	free(base);
	return out;
}

static int cmp_nm_sym(const void *a, const void *b)
{
	const struct nm_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* nm -n sorts one address's symbols by name (C locale). */
	return strcmp(x->raw, y->raw);
}

/* The symbols `nm -n` (sh_type SHT_SYMTAB) or `nm -D -n` (SHT_DYNSYM) prints of elf. */
static int nm_symbols(Elf *elf, Elf64_Word sh_type, struct nm_sym **out, size_t *n_out)
{
	Elf_Scn *scn = NULL;
	struct nm_sym *v = NULL;
	size_t n = 0, cap = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != sh_type || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			GElf_Shdr tsh;
			Elf_Scn *target;
			const char *name;
			int type, bind;

			if (!gelf_getsym(data, (int)i, &s))
				break;
			type = GELF_ST_TYPE(s.st_info);
			bind = GELF_ST_BIND(s.st_info);
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			/* nm leaves out undefined and debugging symbols; pprof a line without a
			 * name. */
			if (s.st_shndx == SHN_UNDEF || type == STT_SECTION || type == STT_FILE ||
			    !name || !*name)
				continue;
			if (n == cap) {
				struct nm_sym *grown;

				cap = cap ? 2 * cap : 1024;
				grown = realloc(v, cap * sizeof(*v));
				if (!grown) {
					free(v);
					return -1;
				}
				v = grown;
			}
			target = s.st_shndx < SHN_LORESERVE ? elf_getscn(elf, s.st_shndx) : NULL;
			v[n++] = (struct nm_sym){
				.addr = s.st_value,
				.raw = name,
				.t = bind != STB_WEAK && bind != STB_GNU_UNIQUE &&
				     type != STT_GNU_IFUNC && target &&
				     gelf_getshdr(target, &tsh) && (tsh.sh_flags & SHF_EXECINSTR),
			};
		}
	}
	*out = v;
	*n_out = n;
	return 0;
}

/* pprof's GetProcedureBoundariesViaNm over nm's sorted symbols; 0 or -1. */
static int build_regions(struct pprof_image *im, struct nm_sym *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_nm_sym);
	im->r = calloc(n ? n : 1, sizeof(*im->r));
	if (!im->r)
		return -1;
	for (size_t i = 0; i < n;) {
		size_t j = i, pick = i;
		struct nm_region *r = &im->r[im->n];
		char *name;

		if (strcmp(v[i].raw, "_fini") == 0)
			im->fini = true;
		/* The first symbol of an address, unless a later one is t/T: the last of those. */
		for (; j < n && v[j].addr == v[i].addr; j++)
			if (j > i && v[j].t)
				pick = j;
		name = nm_demangle(v[pick].raw);
		if (!name)
			return -1;
		r->start = v[i].addr;
		r->end = j < n ? v[j].addr : v[i].addr;
		if (pick == i) {
			if (asprintf(&r->tagged, "%s<%016" PRIx64 ">", name, r->start) < 0)
				r->tagged = NULL;
		} else {
			r->tagged = strdup(name);
		}
		/* The version nm gives a dynamic symbol is a decoration: it goes. */
		name[strcspn(name, "@")] = '\0';
		r->name = name;
		im->n++;
		if (!r->tagged)
			return -1;
		i = j;
	}
	return 0;
}

/* pprof's DebuggingLibrary: /usr/lib/debug/PATH or /usr/lib/debug/PATH.debug, else PATH. */
static char *nm_image(const char *symfs, const char *path)
{
	const char *root = symfs ? symfs : "";
	struct stat st;
	char *out;

	for (int i = 0; i < 2; i++) {
		if (asprintf(&out, "%s/usr/lib/debug%s%s", root, path, i ? ".debug" : "") < 0)
			return NULL;
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode))
			return out;
		free(out);
	}
	if (asprintf(&out, "%s%s", root, path) < 0)
		return NULL;
	return out;
}

/* nm's regions of the file at path (nm -n, else nm -D -n); NULL on no memory. */
static struct pprof_image *load_image(const struct symbolizer *s, const char *path)
{
	struct pprof_image *im = calloc(1, sizeof(*im));
	char *file = nm_image(s->symfs, path);
	struct nm_sym *v = NULL;
	size_t n = 0;
	Elf *elf;
	int fd = file ? corecap_symbolizer_open_elf(file, &elf) : -1, ret = 0;

	free(file);
	if (!im) {
		if (fd >= 0) {
			elf_end(elf);
			close(fd);
		}
		return NULL;
	}
	if (fd < 0)
		return im;
	ret = nm_symbols(elf, SHT_SYMTAB, &v, &n);
	if (!ret && !n) {
		free(v);
		v = NULL;
		ret = nm_symbols(elf, SHT_DYNSYM, &v, &n);
	}
	if (!ret)
		ret = build_regions(im, v, n);
	free(v);
	elf_end(elf);
	close(fd);
	if (ret) {
		image_free(im);
		return NULL;
	}
	return im;
}

/* MapSymbolsWithNM: the region naming mpc (nm's address), or NULL: pprof prints the address. */
static const struct nm_region *nm_lookup(const struct pprof_image *im, uint64_t mpc)
{
	size_t lo = 0, hi = im->n;

	if (!im->n)
		return NULL;
	/* The first region ending above mpc (pprof walks to it, stopping at the last). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (im->r[mid].end > mpc)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == im->n)
		lo = im->n - 1;
	return mpc < im->r[lo].end ? &im->r[lo] : NULL;
}

/* Removes every match of re from s, left to right; whether one was removed. */
static bool remove_all(char *s, const regex_t *re)
{
	regmatch_t m;
	bool any = false;
	size_t at = 0;

	while (s[at] && regexec(re, s + at, 1, &m, at ? REG_NOTBOL : 0) == 0) {
		size_t from = at + (size_t)m.rm_so, to = at + (size_t)m.rm_eo;

		if (to == from) {
			at = from + 1;
			continue;
		}
		memmove(s + from, s + to, strlen(s + to) + 1);
		any = true;
		at = from;
	}
	return any;
}

static bool perl_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool perl_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* pprof's ShortFunctionName: without argument lists, the address tag, template arguments, a leading
 * type. */
static char *short_name(const char *fn)
{
	static regex_t args, tag, tmpl;
	static bool compiled;
	char *s = strdup(fn);
	size_t keep = 0;

	if (!s)
		return NULL;
	if (!compiled) {
		if (regcomp(&args, "\\([^()]*\\)([[:space:]]*const)?", REG_EXTENDED) ||
		    regcomp(&tag, "<[0-9a-f]*>$", REG_EXTENDED) ||
		    regcomp(&tmpl, "<[^<>]*>", REG_EXTENDED)) {
			free(s);
			return NULL;
		}
		compiled = true;
	}
	while (remove_all(s, &args))
		;
	remove_all(s, &tag);
	while (remove_all(s, &tmpl))
		;
	/* s/^.*\s+(\w+::)/$1/: from the last blank that a word and "::" follow. */
	for (size_t k = 0; s[k]; k++) {
		size_t j = k + 1, w = j;

		if (!perl_space(s[k]) || perl_space(s[j]))
			continue;
		while (perl_word(s[w]))
			w++;
		if (w > j && s[w] == ':' && s[w + 1] == ':')
			keep = j;
	}
	memmove(s, s + keep, strlen(s + keep) + 1);
	return s;
}

/* binutils' mangle_style () == 0: the languages whose DW_AT_name is the linkage name. */
static bool names_unmangled(int lang)
{
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_Cobol74:
	case DW_LANG_Cobol85:
	case DW_LANG_Fortran77:
	case DW_LANG_Fortran90:
	case DW_LANG_Fortran95:
	case DW_LANG_Fortran03:
	case DW_LANG_Fortran08:
	case DW_LANG_Pascal83:
	case DW_LANG_PLI:
	case DW_LANG_C99:
	case DW_LANG_UPC:
	case DW_LANG_C11:
	case DW_LANG_Mips_Assembler:
		return true;
	default:
		return false;
	}
}

/* addr2line's DWARF name of a function DIE (NULL: none); *linkage as bfd's is_linkage. */
static const char *dwarf_function(struct pprof_names *p, Dwarf_Die *die, int lang, bool *linkage)
{
	Dwarf_Attribute at;
	const char *name = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &at) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at))
		name = dwarf_formstring(&at);
	if (name) {
		*linkage = true;
		return corecap_symbolizer_demangle(p->sym, name);
	}
	name = dwarf_attr_integrate(die, DW_AT_name, &at) ? dwarf_formstring(&at) : NULL;
	*linkage = name && names_unmangled(lang);
	return name;
}

struct fit {
	const char *name;
	uint64_t off, size;
	int type;
	bool found;
};

/* bfd's better_fit (elf.c, binutils 2.40). */
static bool better_fit(const struct fit *c, uint64_t off, uint64_t size, int type, uint64_t pc)
{
	bool c_func = c->type == STT_FUNC || c->type == STT_GNU_IFUNC;
	bool func = type == STT_FUNC || type == STT_GNU_IFUNC;

	if (off > pc || off < c->off)
		return false;
	if (off > c->off || !c->found)
		return true;
	if (c->off + c->size <= pc)
		return size > c->size;
	if (off + size <= pc)
		return false;
	if (c_func != func)
		return func;
	if ((c->type == STT_NOTYPE) != (type == STT_NOTYPE))
		return type != STT_NOTYPE;
	return size < c->size;
}

static int cmp_fn_sym(const void *a, const void *b)
{
	const struct fn_sym *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The module's symbols that bfd's maybe_function_sym accepts, sorted; -1 on no memory. */
static int read_fn_syms(struct pprof_image *im, Dwfl_Module *dm, uint64_t bias)
{
	int n = dwfl_module_getsymtab(dm);
	size_t cap = 0;

	im->fns_read = true;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word sec;
		const char *name = dwfl_module_getsym_info(dm, i, &sym, &addr, &sec, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || type == STT_SECTION || type == STT_FILE || type == STT_OBJECT ||
		    type == STT_TLS || sec == SHN_UNDEF)
			continue;
		/* annobin's markers: hidden local untyped symbols of no size. */
		if (!sym.st_size && GELF_ST_BIND(sym.st_info) == STB_LOCAL && type == STT_NOTYPE &&
		    GELF_ST_VISIBILITY(sym.st_other) == STV_HIDDEN)
			continue;
		if (im->n_fns == cap) {
			struct fn_sym *grown;

			cap = cap ? 2 * cap : 1024;
			grown = realloc(im->fns, cap * sizeof(*grown));
			if (!grown)
				return -1;
			im->fns = grown;
		}
		im->fns[im->n_fns++] = (struct fn_sym){
			.off = addr - bias,
			.size = sym.st_size ? sym.st_size : 1,
			.name = name,
			.idx = (uint32_t)i,
			.shndx = sec,
			.type = type,
		};
	}
	qsort(im->fns, im->n_fns, sizeof(*im->fns), cmp_fn_sym);
	return 0;
}

/*
 * bfd's elf_find_function: the symbol table's function for mpc in section
 * shndx, as addr2line names it when DWARF gives no linkage name; NULL if
 * none. better_fit always takes a symbol closer below mpc, so the choice
 * is among those at the closest address, in the table's order (bfd's
 * shrinking of a candidate by a symbol past mpc is not followed).
 */
static const char *find_function(struct pprof_names *p, struct pprof_image *im, Dwfl_Module *dm,
				 uint64_t bias, uint64_t mpc, size_t shndx)
{
	size_t lo = 0, hi, first;
	struct fit c = {0};

	if (!im->fns_read && read_fn_syms(im, dm, bias))
		return NULL;
	hi = im->n_fns;
	/* The first symbol past (shndx, mpc). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fn_sym *f = &im->fns[mid];

		if (f->shndx < shndx || (f->shndx == shndx && f->off <= mpc))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || im->fns[lo - 1].shndx != shndx)
		return NULL;
	for (first = lo - 1; first > 0 && im->fns[first - 1].shndx == shndx &&
			     im->fns[first - 1].off == im->fns[lo - 1].off;)
		first--;
	for (size_t i = first; i < lo; i++) {
		const struct fn_sym *f = &im->fns[i];

		if (better_fit(&c, f->off, f->size, f->type, mpc))
			c = (struct fit){.name = f->name,
					 .off = f->off,
					 .size = f->size,
					 .type = f->type,
					 .found = true};
	}
	return c.name ? corecap_symbolizer_demangle(p->sym, c.name) : NULL;
}

/* The index of the allocated section holding mpc (the first, as addr2line looks), or 0. */
static size_t section_of(Elf *elf, uint64_t mpc)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && sh.sh_addr <= mpc &&
		    mpc < sh.sh_addr + sh.sh_size)
			return elf_ndxscn(scn);
	}
	return 0;
}

/* The length of die's address range holding pc (DWARF addresses), 0 when none holds it. */
static uint64_t range_len(Dwarf_Die *die, uint64_t pc)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		if (lo <= pc && pc < hi)
			return hi - lo;
	return 0;
}

/*
 * bfd's lookup_address_in_function_table among the CU's functions of the
 * top level: the smallest range holding pc, the later DIE of equal ones
 * (gas gives each alias of an assembly function a DIE of the same range).
 */
static void best_subprogram(Dwarf_Die *cu, uint64_t pc, Dwarf_Die *best)
{
	Dwarf_Die child;
	uint64_t best_len = range_len(best, pc), len;

	if (dwarf_child(cu, &child) != 0)
		return;
	do {
		if (dwarf_tag(&child) != DW_TAG_subprogram || !(len = range_len(&child, pc)))
			continue;
		if (!best_len || len < best_len ||
		    (len == best_len && dwarf_dieoffset(&child) > dwarf_dieoffset(best))) {
			*best = child;
			best_len = len;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/*
 * addr2line -f -C [-i]'s function names at pc, innermost first, into
 * names ("??" where it has none); their number.
 */
static size_t addr2line(struct pprof_names *p, struct pprof_image *im, Dwfl_Module *dm, uint64_t pc,
			const char **names, size_t max)
{
	Dwarf_Addr bias = 0, dbias;
	Elf *elf = dwfl_module_getelf(dm, &bias);
	Dwarf_Die *cu, *scopes = NULL, *fn[MAX_CHAIN];
	size_t shndx = elf ? section_of(elf, pc - bias) : 0, n = 0;
	int ns = 0, lang = 0;
	bool linkage = false;
	const char *inner = NULL;

	names[0] = "??";
	if (!shndx)
		return 1;
	cu = dwfl_module_addrdie(dm, pc, &dbias);
	if (cu && dwarf_getscopes(cu, pc - dbias, &scopes) > 0) {
		Dwarf_Die in = scopes[0];

		free(scopes);
		scopes = NULL;
		ns = dwarf_getscopes_die(&in, &scopes);
		lang = dwarf_srclang(cu);
	}
	/* The functions at pc: its inlined calls, innermost first, up to the function. */
	for (int i = 0; i < ns && n < MAX_CHAIN && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			fn[n++] = &scopes[i];
		if (tag == DW_TAG_subprogram)
			break;
	}
	if (n == 1 && dwarf_tag(fn[0]) == DW_TAG_subprogram)
		best_subprogram(cu, pc - dbias, fn[0]);
	if (n)
		inner = dwarf_function(p, fn[0], lang, &linkage);
	if (!linkage) {
		const char *sym = find_function(p, im, dm, bias, pc - bias, shndx);

		inner = sym ? sym : inner;
	}
	names[0] = inner ? inner : "??";
	if (!im->fini || !n) {
		free(scopes);
		return 1;
	}
	for (size_t k = 1; k < n; k++) {
		const char *name = dwarf_function(p, fn[k], lang, &linkage);

		names[k] = name ? name : "??";
	}
	free(scopes);
	return n;
}

static struct pprof_image *image_of(struct pprof_names *p, Dwfl_Module *dm, const char *path)
{
	uint64_t key = (uint64_t)(uintptr_t)dm, *slot = corecap_u64map_find(&p->images, key);
	struct pprof_image *im;

	if (slot)
		return (struct pprof_image *)(uintptr_t)*slot;
	im = load_image(p->sym, path);
	if (!im)
		return NULL;
	slot = corecap_u64map_upsert(&p->images, key, NULL);
	if (!slot) {
		image_free(im);
		return NULL;
	}
	*slot = (uint64_t)(uintptr_t)im;
	return im;
}

/* MapToSymbols for one address: addr2line's names, each taken from nm where pprof takes it. */
static size_t pprof_frames(struct pprof_names *p, uint64_t pc, const char **names, size_t max,
			   bool *unnamed)
{
	const char *path = NULL;
	Dwfl_Module *dm = corecap_symbolizer_module(p->sym, pc, &path);
	struct pprof_image *im;
	const struct nm_region *r;
	Dwarf_Addr bias = 0;
	size_t n;

	*unnamed = true;
	/* No file: pprof looks it up in the main program's symbols, past their end. */
	if (!dm || !path || path[0] != '/' || !dwfl_module_getelf(dm, &bias) ||
	    !(im = image_of(p, dm, path)))
		return 0;
	r = nm_lookup(im, pc - bias);
	n = addr2line(p, im, dm, pc, names, max);
	for (size_t k = 0; k < n; k++) {
		char *sn;

		if (strcmp(names[k], "??") == 0) {
			if (r) {
				names[k] = r->name;
				continue;
			}
			if (im->n)
				return 0; /* nm's "0x<address>" */
			/* Neither nm nor addr2line: pprof prints addr2line's "??:0". */
			names[0] = "??:0";
			*unnamed = false;
			return 1;
		}
		sn = r ? short_name(names[k]) : NULL;
		if (sn && strncmp(r->tagged, sn, strlen(sn)) == 0)
			names[k] = r->name;
		free(sn);
	}
	*unnamed = false;
	return n;
}

size_t corecap_pprof_names_frames(struct pprof_names *p, uint64_t pc,
				  const struct sym_frame **frames)
{
	const char *names[MAX_CHAIN];
	struct pprof_frames *fr;
	uint64_t *slot = corecap_u64map_find(&p->frames, pc);
	bool unnamed;
	size_t n;

	if (slot) {
		fr = (struct pprof_frames *)(uintptr_t)*slot;
		*frames = fr->f;
		return fr->n;
	}
	n = pprof_frames(p, pc, names, MAX_CHAIN, &unnamed);
	if (!n)
		n = 1;
	fr = calloc(1, sizeof(*fr) + n * sizeof(fr->f[0]));
	if (!fr)
		return 0;
	fr->n = n;
	snprintf(fr->hex, sizeof(fr->hex), "0x%016" PRIx64, pc);
	for (size_t k = 0; k < n; k++)
		fr->f[k] = (struct sym_frame){
			.function = unnamed ? fr->hex : names[k],
			.inlined = k + 1 < n,
		};
	slot = corecap_u64map_upsert(&p->frames, pc, NULL);
	if (!slot) {
		free(fr);
		return 0;
	}
	*slot = (uint64_t)(uintptr_t)fr;
	*frames = fr->f;
	return n;
}
