#include "sym_dwarf.h"
#include "sym_elf.h"
#include "sym_module.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"
#include "../util/u64map.h"

/* A DIE's function name: its linkage name demangled (as addr2line -C prints it), else its name. */
static const char *die_function(struct u64map *demangled, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *name = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &at) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at))
		name = dwarf_formstring(&at);
	if (name)
		return corecap_sym_demangle(demangled, name);
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

size_t corecap_sym_dwarf_frames(struct sym_module *m, const struct sym_entry *e, const char *symbol,
				uint64_t pc, struct u64map *demangled, struct sym_frame *out,
				size_t max)
{
	Dwarf_Die *cu, *scopes = NULL, *sub = NULL;
	Dwarf_Addr bias;
	Dwfl_Line *line;
	size_t n = 0;
	int ns = 0, lineno;

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
		out[n].function = die_function(demangled, &scopes[i]);
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
	out[n].function = e ? symbol : die_function(demangled, sub);
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
			m->units[m->n_units++] = (struct dwarf_unit){
				off + hsize, name ? corecap_sym_base_name(name) : NULL};
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
		file = corecap_sym_base_name(file);
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

bool corecap_sym_dwarf_member_path(struct sym_module *m, const struct sym_entry *e, uint64_t off,
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

/* The DWARF number of the register that carries a call's first argument, or -1. */
static int first_arg_reg(struct sym_module *m)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(m->dm, &bias);
	GElf_Ehdr eh;

	if (!elf || !gelf_getehdr(elf, &eh))
		return -1;
	return eh.e_machine == EM_X86_64    ? 5 /* rdi */
	       : eh.e_machine == EM_AARCH64 ? 0 /* x0 */
					    : -1;
}

/* A one-operation expression: its operation and number, or false. */
static bool one_op(Dwarf_Attribute *at, Dwarf_Op *op)
{
	Dwarf_Op *expr;
	size_t len;

	if (dwarf_getlocation(at, &expr, &len) != 0 || len != 1)
		return false;
	*op = expr[0];
	return true;
}

/*
 * Whether a call site calls a lock's or a condition's function (its
 * callee's name): only then is its first argument the lock. A futex
 * site can be a call to anything that takes a lock inside (operator new
 * and malloc's arena lock), whose first argument says nothing of it.
 */
static bool calls_lock(Dwarf_Die *site)
{
	static const char *const prefixes[] = {"pthread_mutex_", "pthread_rwlock_", "pthread_spin_",
					       "pthread_cond_", "__gthread_"};
	static const char *const methods[] = {
		"lock", "unlock",   "try_lock",	  "lock_shared", "unlock_shared",
		"wait", "wait_for", "wait_until", "notify_one",	 "notify_all"};
	Dwarf_Attribute at;
	Dwarf_Die callee;
	const char *name;

	if (!(dwarf_attr(site, DW_AT_call_origin, &at) ||
	      dwarf_attr(site, DW_AT_abstract_origin, &at)) ||
	    !dwarf_formref_die(&at, &callee) || !dwarf_attr_integrate(&callee, DW_AT_name, &at) ||
	    !(name = dwarf_formstring(&at)))
		return false;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strcmp(name, methods[i]) == 0)
			return true;
	return false;
}

/*
 * In the children of scope, the call site returning to ra, when it calls
 * a lock's function: the register and offset its first argument was
 * computed from (DW_OP_bregN off), or false.
 */
static bool call_arg(Dwarf_Die *scope, Dwarf_Addr ra, int reg, int *base, int64_t *off)
{
	Dwarf_Die child, p;
	Dwarf_Attribute at;
	Dwarf_Addr pc;
	Dwarf_Op op;

	if (dwarf_child(scope, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);

		if (tag != DW_TAG_call_site && tag != DW_TAG_GNU_call_site)
			continue;
		/* DWARF 5 names the return address; GCC's extension put it in low_pc. */
		if (!(dwarf_attr(&child, DW_AT_call_return_pc, &at) ||
		      dwarf_attr(&child, DW_AT_low_pc, &at)) ||
		    dwarf_formaddr(&at, &pc) != 0 || pc != ra)
			continue;
		if (!calls_lock(&child) || dwarf_child(&child, &p) != 0)
			return false;
		do {
			if ((dwarf_tag(&p) != DW_TAG_call_site_parameter &&
			     dwarf_tag(&p) != DW_TAG_GNU_call_site_parameter) ||
			    !dwarf_attr(&p, DW_AT_location, &at) || !one_op(&at, &op) ||
			    op.atom != DW_OP_reg0 + reg)
				continue;
			if (!(dwarf_attr(&p, DW_AT_call_value, &at) ||
			      dwarf_attr(&p, DW_AT_GNU_call_site_value, &at)) ||
			    !one_op(&at, &op) || op.atom < DW_OP_breg0 || op.atom > DW_OP_breg31)
				return false;
			*base = op.atom - DW_OP_breg0;
			*off = (int64_t)op.number;
			return true;
		} while (dwarf_siblingof(&p, &p) == 0);
		return false;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/*
 * In the children of scope, a variable or parameter held in register
 * base at pc whose type points to a struct, class or union, and the path
 * of the member at off in it ("shard.lock") into out; or false.
 */
static bool object_in(Dwarf_Die *scope, Dwarf_Addr pc, int base, int64_t off, char *out,
		      size_t size)
{
	Dwarf_Die child, type, t;
	Dwarf_Attribute at;
	Dwarf_Op *expr;
	size_t len;

	if (off < 0 || dwarf_child(scope, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		const char *name;

		if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) ||
		    !dwarf_attr_integrate(&child, DW_AT_location, &at) ||
		    dwarf_getlocation_addr(&at, pc, &expr, &len, 1) != 1 || len != 1 ||
		    expr[0].atom != DW_OP_reg0 + base ||
		    !dwarf_attr_integrate(&child, DW_AT_type, &at) ||
		    !dwarf_formref_die(&at, &type) || dwarf_peel_type(&type, &t) != 0 ||
		    (dwarf_tag(&t) != DW_TAG_pointer_type &&
		     dwarf_tag(&t) != DW_TAG_reference_type &&
		     dwarf_tag(&t) != DW_TAG_rvalue_reference_type) ||
		    !dwarf_attr(&t, DW_AT_type, &at) || !dwarf_formref_die(&at, &type) ||
		    dwarf_peel_type(&type, &t) != 0 ||
		    (dwarf_tag(&t) != DW_TAG_structure_type && dwarf_tag(&t) != DW_TAG_class_type &&
		     dwarf_tag(&t) != DW_TAG_union_type) ||
		    !(name = dwarf_diename(&t)))
			continue;
		snprintf(out, size, "%s", name);
		/* A member must be named: the object itself (a lock type's) says nothing new. */
		if (member_at(&t, (uint64_t)off, out, size, 0) && strchr(out, '.')) {
			/* Cut at the library's insides (std::condition_variable's
			 * ._M_cond._M_cond). */
			char *in = strstr(out, "._M_");

			if (!in)
				in = strstr(out, ".__");
			if (in && in != strchr(out, '.'))
				*in = '\0';
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

bool corecap_sym_dwarf_arg_object(struct sym_module *m, uint64_t ra, char *out, size_t size)
{
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Addr bias;
	int64_t off = 0;
	int ns, reg, base = -1;
	bool found = false;

	if (!m->dm || (reg = first_arg_reg(m)) < 0 || !(cu = dwfl_module_addrdie(m->dm, ra, &bias)))
		return false;
	/* The scopes of the call instruction, just before its return address. */
	ns = dwarf_getscopes(cu, ra - bias - 1, &scopes);
	for (int i = 0; i < ns && base < 0; i++)
		if (!call_arg(&scopes[i], ra - bias, reg, &base, &off))
			base = -1;
	for (int i = 0; base >= 0 && i < ns && !found; i++)
		found = object_in(&scopes[i], ra - bias - 1, base, off, out, size);
	free(scopes);
	return found;
}
