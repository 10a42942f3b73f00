/*
 * site_spec: a call site as the reports print it, resolved in a live
 * process (site_spec.h). Functions are looked up with libdwfl over the
 * process's own modules (dwfl_linux_proc_report), so a module's symbols
 * come from where the analysis' symbolizer takes them too: its .symtab,
 * else its debug file's (by build-id or .gnu_debuglink), else .dynsym
 * and .gnu_debugdata. The report prints C++ functions demangled, as
 * __cxa_demangle writes them, so a written name that is not a bare
 * identifier is compared with the demangled symbols.
 */
#include <ctype.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delay_control.h"
#include "site_spec.h"

/* libstdc++'s demangler, through its C ABI symbol (there is no C header). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define SITE_SPEC_MAX_HITS 8

static void say(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!size)
		return;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

static void trim(char *s)
{
	size_t n = strlen(s), b = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)s[b]))
		b++;
	memmove(s, s + b, n - b + 1);
}

static bool parse_hex(const char *s, uint64_t *out)
{
	char *end;

	if (strncmp(s, "0x", 2) != 0 || !isxdigit((unsigned char)s[2]))
		return false;
	errno = 0;
	*out = strtoull(s + 2, &end, 16);
	return !errno && !*end;
}

/* Drops what older reports wrote around a site: "lock at ", " x5", " [0x...]". */
static void strip_decorations(char *s)
{
	char *p;
	size_t n;

	trim(s);
	if (strncmp(s, "lock at", 7) == 0 && (s[7] == ' ' || !s[7]))
		memmove(s, s + 7, strlen(s + 7) + 1);
	n = strlen(s);
	p = strrchr(s, '[');
	if (n && s[n - 1] == ']' && p && p > s && p[-1] == ' ' && strncmp(p, "[0x", 3) == 0)
		p[-1] = '\0';
	p = strrchr(s, ' ');
	if (p && p[1] == 'x' && p[2] && strspn(p + 2, "0123456789") == strlen(p + 2))
		*p = '\0';
	trim(s);
}

int corecap_site_spec_parse(const char *text, struct site_spec *out, char *why, size_t why_size)
{
	char buf[sizeof(out->name) + 64], *plus;

	memset(out, 0, sizeof(*out));
	if (strlen(text) >= sizeof(buf)) {
		say(why, why_size, "longer than %zu characters", sizeof(buf) - 1);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", text);
	strip_decorations(buf);
	if (!buf[0]) {
		say(why, why_size, "it is empty");
		return -EINVAL;
	}
	if (strncmp(buf, "0x", 2) == 0) {
		if (!parse_hex(buf, &out->off)) {
			say(why, why_size, "an address is 0x and hex digits");
			return -EINVAL;
		}
		out->form = SITE_SPEC_ADDR;
		return 0;
	}
	plus = strrchr(buf, '+');
	if (!plus) {
		say(why, why_size,
		    "a name without an offset is not a call site: write FUNCTION+0xOFF, the "
		    "return address of the call that takes the lock, as 'corecap report' "
		    "prints it (a lock's site, or the verify line of its diagnosis)");
		return -EINVAL;
	}
	if (!parse_hex(plus + 1, &out->off)) {
		say(why, why_size, "the offset after '+' must be 0x and hex digits");
		return -EINVAL;
	}
	*plus = '\0';
	trim(buf);
	if (!buf[0]) {
		say(why, why_size, "no function or module before '+'");
		return -EINVAL;
	}
	if (strlen(buf) >= sizeof(out->name)) {
		say(why, why_size, "the name is longer than %zu characters", sizeof(out->name) - 1);
		return -EINVAL;
	}
	snprintf(out->name, sizeof(out->name), "%s", buf);
	out->form = SITE_SPEC_NAMED;
	return 0;
}

struct fn_hit {
	uint64_t addr, size;
	const char *module;
};

struct fn_search {
	const char *want;
	bool demangled;	 /* want is a demangled C++ name: compare demangled symbols */
	char ident[128]; /* its last identifier: a mangled name must contain it */
	struct fn_hit hits[SITE_SPEC_MAX_HITS];
	size_t n_hits;
};

/* "ns::Foo<int>::bar(int) const" -> "bar": what its mangled name must contain. */
static void last_identifier(const char *name, char *out, size_t size)
{
	size_t end = strcspn(name, "(<"), b;

	while (end && !(isalnum((unsigned char)name[end - 1]) || name[end - 1] == '_'))
		end--;
	b = end;
	while (b && (isalnum((unsigned char)name[b - 1]) || name[b - 1] == '_'))
		b--;
	snprintf(out, size, "%.*s", (int)(end - b), name + b);
	if (strcmp(out, "operator") == 0)
		out[0] = '\0'; /* operators mangle to codes: no filter */
}

static bool symbol_matches(struct fn_search *fs, const char *sym)
{
	char *d;
	int status = -1;
	bool eq;

	if (strcmp(sym, fs->want) == 0)
		return true;
	if (!fs->demangled || strncmp(sym, "_Z", 2) != 0 || !strstr(sym, fs->ident))
		return false;
	d = __cxa_demangle(sym, NULL, NULL, &status);
	eq = status == 0 && d && strcmp(d, fs->want) == 0;
	free(d);
	return eq;
}

static int each_module(Dwfl_Module *mod, void **user, const char *modname, Dwarf_Addr base,
		       void *arg)
{
	struct fn_search *fs = arg;
	int n = dwfl_module_getsymtab(mod);
	const char *bn = strrchr(modname, '/');

	(void)user;
	(void)base;
	bn = bn ? bn + 1 : modname;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		bool seen = false;

		if (!name || sym.st_shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC) || !symbol_matches(fs, name))
			continue;
		for (size_t h = 0; h < fs->n_hits && !seen; h++)
			seen = fs->hits[h].addr == addr;
		if (!seen && fs->n_hits < SITE_SPEC_MAX_HITS)
			fs->hits[fs->n_hits++] = (struct fn_hit){addr, sym.st_size, bn};
	}
	return DWARF_CB_OK;
}

static char *debuginfo_path;

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static int resolve_function(pid_t pid, const struct site_spec *s, uint64_t *addr, char *why,
			    size_t why_size)
{
	struct fn_search fs = {.want = s->name};
	Dwfl *dwfl = dwfl_begin(&proc_callbacks);
	int rc, ret = -ENOENT;

	if (!dwfl) {
		say(why, why_size, "cannot read its modules: %s", dwfl_errmsg(-1));
		return -ENOMEM;
	}
	fs.demangled =
		s->name[strspn(s->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					"0123456789_.")] != '\0';
	last_identifier(s->name, fs.ident, sizeof(fs.ident));
	dwfl_report_begin(dwfl);
	rc = dwfl_linux_proc_report(dwfl, pid);
	dwfl_report_end(dwfl, NULL, NULL);
	if (rc != 0) {
		ret = rc > 0 ? -rc : -EIO;
		say(why, why_size, "cannot read the modules of process %d: %s", (int)pid,
		    rc > 0 ? strerror(rc) : dwfl_errmsg(-1));
		goto out;
	}
	dwfl_getmodules(dwfl, each_module, &fs, 0);
	if (!fs.n_hits) {
		say(why, why_size,
		    "no module or function '%s' in process %d (a function is looked up in the "
		    "symbol tables of its modules: is it the daemon 'corecap report' named?)",
		    s->name, (int)pid);
	} else if (fs.n_hits > 1) {
		ret = -EEXIST;
		say(why, why_size,
		    "'%s' is a function at %zu addresses (in %s and %s): write MODULE+0xOFF, as "
		    "'corecap stats-dump PID' prints the site",
		    s->name, fs.n_hits, fs.hits[0].module, fs.hits[1].module);
	} else if (fs.hits[0].size && s->off > fs.hits[0].size) {
		ret = -ERANGE;
		say(why, why_size,
		    "0x%" PRIx64 " is past the end of '%s' (0x%" PRIx64 " bytes): is the daemon "
		    "the same build as the report's run?",
		    s->off, s->name, fs.hits[0].size);
	} else {
		*addr = fs.hits[0].addr + s->off;
		ret = 0;
	}
out:
	dwfl_end(dwfl);
	return ret;
}

int corecap_site_spec_resolve(pid_t pid, const struct site_spec *s, uint64_t *addr, char *why,
			      size_t why_size)
{
	char spec[sizeof(s->name) + 24];
	int rc;

	if (s->form == SITE_SPEC_ADDR) {
		*addr = s->off;
		return 0;
	}
	/* A module's file name first: what stats-dump prints. */
	snprintf(spec, sizeof(spec), "%s+0x%" PRIx64, s->name, s->off);
	rc = corecap_site_resolve(pid, spec, addr);
	if (rc != -ENOENT) {
		if (rc < 0)
			say(why, why_size, "cannot read the maps of process %d: %s", (int)pid,
			    strerror(-rc));
		return rc;
	}
	return resolve_function(pid, s, addr, why, why_size);
}
