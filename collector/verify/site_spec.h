/*
 * site_spec: a lock's call site as a user writes it for `corecap verify`,
 * in the forms the reports print: FUNCTION+0xOFF (report's and stat's
 * names: the function holding the call that takes the lock, and the
 * offset of the call's return address in it), MODULE+0xOFF
 * (corecap stats-dump's `where`: the offset in the mapped file) or
 * 0xADDR. The decorations older reports put around a site ("lock at
 * SITE", a family's " x5", an ambiguous lock's " [0xADDR]") are dropped,
 * so a name copied from any report still reads.
 *
 * Guarantees: corecap_site_spec_parse() reads text only (no process);
 * corecap_site_spec_resolve() gives the run-time address in process pid
 * of exactly one site, or an error whose text (in why) says what to
 * write instead: a bare name is refused (a function's entry is not a
 * call site), a function defined at more than one address (a static
 * function in two modules) asks for MODULE+0xOFF, an offset past the
 * function's end is refused.
 */
#ifndef CORECAP_COLLECTOR_SITE_SPEC_H
#define CORECAP_COLLECTOR_SITE_SPEC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum site_spec_form {
	SITE_SPEC_ADDR,	 /* 0xADDR: a run-time address */
	SITE_SPEC_NAMED, /* NAME+0xOFF: NAME a mapped module's file name, else a function */
};

struct site_spec {
	enum site_spec_form form;
	char name[512]; /* NAMED: the module or function, as written (demangled for C++) */
	uint64_t off;	/* NAMED: the offset; ADDR: the address */
};

/*
 * Parses text into *out. 0, or -EINVAL with why (a sentence without the
 * spec itself) filled.
 */
int corecap_site_spec_parse(const char *text, struct site_spec *out, char *why, size_t why_size);
/*
 * The address of *s in process pid: NAME is first taken as a module's
 * file name in pid's maps, then as a function in the symbol tables of
 * pid's modules (their .symtab, else their debug file's, else .dynsym).
 * 0; -ENOENT (no such module or function), -ERANGE (offset past the
 * function), -EEXIST (a function at several addresses) or another
 * negative errno (pid's maps unreadable), with why filled.
 */
int corecap_site_spec_resolve(pid_t pid, const struct site_spec *s, uint64_t *addr, char *why,
			      size_t why_size);

#endif
