#include "report_symbols.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/lines.h"

int corecap_report_symbols_init(struct report_symbols *s, struct symbolizer *sym,
				const char *log_symbols)
{
	*s = (struct report_symbols){.sym = sym};
	return corecap_lines_split(&s->log_patterns, &s->n_log_patterns, log_symbols);
}

void corecap_report_symbols_release(struct report_symbols *s)
{
	corecap_lines_release(&s->log_patterns, &s->n_log_patterns);
}

/* The logging rule: does the function holding this call site match a pattern? */
bool corecap_report_site_is_logging(void *ctx, uint64_t site)
{
	const struct report_symbols *j = ctx;
	struct sym_info info;

	if (!j->sym || !corecap_symbolizer_lookup(j->sym, site, &info) || !info.symbol)
		return false;
	for (size_t i = 0; i < j->n_log_patterns; i++)
		if (fnmatch(j->log_patterns[i], info.symbol, 0) == 0)
			return true;
	return false;
}

char *corecap_report_name_address(void *ctx, uint64_t addr, bool code)
{
	const struct report_symbols *j = ctx;
	char *s;

	if (j->sym)
		return strdup(corecap_symbolizer_name(j->sym, addr, code));
	return asprintf(&s, "0x%llx", (unsigned long long)addr) < 0 ? NULL : s;
}

const char *corecap_report_frame_name(void *ctx, uint64_t addr)
{
	const struct report_symbols *j = ctx;
	static char buf[24];

	if (j->sym)
		return corecap_symbolizer_name(j->sym, addr, true);
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
	return buf;
}

const char *corecap_report_object_name(void *ctx, uint64_t site)
{
	const struct report_symbols *j = ctx;

	return j->sym && site ? corecap_symbolizer_arg_object(j->sym, site) : NULL;
}

size_t corecap_report_frame_sources(void *ctx, uint64_t addr, struct report_frame *out, size_t max)
{
	const struct report_symbols *j = ctx;
	const struct sym_frame *f;
	size_t n;

	if (!j->sym || !addr)
		return 0;
	/* A return address: its call is the byte before it. */
	n = corecap_symbolizer_frames(j->sym, addr - 1, &f);
	if (n > max)
		n = max;
	for (size_t i = 0; i < n; i++)
		out[i] = (struct report_frame){f[i].function, f[i].file, f[i].line, f[i].inlined};
	return n;
}

/*
 * The frames of the shim and LTTng-UST, cut from the sampled wait stacks
 * (a stack keeps at least its site): they are the profiler's, not the
 * daemon's.
 */
void corecap_report_cut_shim_frames(const struct report_symbols *j, struct lock_table *t)
{
	if (!j->sym)
		return;
	for (size_t i = 0; i < t->len; i++) {
		struct model_lock *l = t->all[i];

		for (size_t s = 0; s < l->n_stacks; s++) {
			struct lock_stack *st = &l->stacks[s];
			uint32_t kept = 0;

			for (uint32_t k = 0; k < st->depth; k++)
				if (k == 0 || !corecap_symbolizer_is_shim(j->sym, st->frames[k]))
					st->frames[kept++] = st->frames[k];
			st->depth = kept;
		}
	}
}
