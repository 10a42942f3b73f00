/* thread_origin: see thread_origin.h. */
#include "thread_origin.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/wall_samples.h"

/* The frames below a thread's own routine: the kernel's and libc's thread
 * start, thread libraries' trampolines, and the shim's own wrapper. */
static const char *const trampolines[] = {
	"clone*",
	"__clone*",
	"start_thread",
	"thread_start",
	"XrdSysThread_Xeq",
	"std::thread::_State*",
	"execute_native_thread_routine*",
	"*::_M_run*",
	"std::__invoke*",
	"boost::*thread_proxy*",
};

static bool is_trampoline(const char *sym)
{
	for (size_t i = 0; i < sizeof(trampolines) / sizeof(trampolines[0]); i++)
		if (fnmatch(trampolines[i], sym, 0) == 0)
			return true;
	return false;
}

size_t corecap_thread_origin_routine(const char *const *symbols, size_t depth, char *out,
				     size_t size)
{
	/* A stack that does not reach the thread's start was cut short: its
	 * outermost frame is no routine of anyone's. */
	if (!depth || !symbols[depth - 1] || !is_trampoline(symbols[depth - 1]))
		return 0;
	for (size_t k = depth; k-- > 0;) {
		const char *s = symbols[k];
		size_t n;

		if (!s || !*s || is_trampoline(s))
			continue;
		/* "XrdStartWorking(void*)" -> "XrdStartWorking" */
		n = strcspn(s, "(");
		if (!n)
			continue;
		if (n >= size)
			n = size - 1;
		memcpy(out, s, n);
		out[n] = '\0';
		return n;
	}
	return 0;
}

struct origin_ctx {
	struct thread_table *threads;
	const char *comm;
	int32_t pid;
	struct symbolizer *sym;
	struct u64map done; /* tid -> 1 once decided */
	size_t renamed;
};

static int on_sample(void *p, const struct wall_sample *s)
{
	struct origin_ctx *c = p;
	struct model_thread *th = corecap_thread_table_find(c->threads, s->tid);
	const char *syms[WALL_MAX_DEPTH];
	struct sym_info info;
	char name[sizeof(th->name)];
	bool inserted;
	uint64_t *v;

	if (!th || s->tid == c->pid || strcmp(th->name, c->comm) != 0)
		return 0;
	v = corecap_u64map_upsert(&c->done, (uint64_t)(uint32_t)s->tid, &inserted);
	if (!v)
		return -ENOMEM;
	if (!inserted)
		return 0;
	for (size_t k = 0; k < s->depth; k++) {
		/* Outer frames are return addresses: look up inside the call. */
		uint64_t a = k ? s->ips[k] - 1 : s->ips[k];

		syms[k] = corecap_symbolizer_lookup(c->sym, a, &info) ? info.symbol : NULL;
	}
	if (!corecap_thread_origin_routine(syms, s->depth, name, sizeof(name))) {
		*v = 0;
		corecap_u64map_remove(&c->done, (uint64_t)(uint32_t)s->tid);
		return 0; /* another sample of it may unwind further */
	}
	snprintf(th->name, sizeof(th->name), "%s", name);
	th->name_source = TNAME_EVENT;
	corecap_thread_pool_name(th->name, th->pool, sizeof(th->pool));
	c->renamed++;
	return 0;
}

int corecap_thread_origin_name(struct thread_table *threads, const char *wall_path,
			       const char *comm, int32_t pid, struct symbolizer *sym,
			       size_t *renamed, size_t *unnamed, char **err)
{
	struct origin_ctx c = {.threads = threads, .comm = comm, .pid = pid, .sym = sym};
	struct wall_samples ws;
	int ret;

	*renamed = *unnamed = 0;
	corecap_u64map_init(&c.done);
	corecap_wall_samples_init(&ws);
	ret = corecap_wall_samples_read(&ws, wall_path, on_sample, &c, err);
	corecap_wall_samples_release(&ws);
	corecap_u64map_release(&c.done);
	*renamed = c.renamed;
	for (size_t i = 0; i < threads->len; i++)
		if (threads->all[i]->tid != pid && strcmp(threads->all[i]->name, comm) == 0)
			(*unnamed)++;
	return ret;
}
