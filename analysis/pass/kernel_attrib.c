#include "kernel_attrib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read/kernel_reader.h"
#include <corecap/run_format.h>

/* Frames of the waiting code, not of the lock's implementation. */
static bool runtime_module(const char *m)
{
	static const char *const prefixes[] = {"libc.so",  "libc-",	"libpthread",
					       "ld-linux", "libstdc++", "libcorecap-preload"};

	for (size_t i = 0; m && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(m, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

uint32_t corecap_kernel_wait_stack(void *ctx, int32_t tid, uint64_t enter_ns, uint64_t *frames,
				   uint32_t max)
{
	struct kernel_wait_stack_ctx *c = ctx;
	const struct corecap_krec_stack *s =
		corecap_kernel_reader_stack(c->k, tid, enter_ns, CORECAP_KSTACK_FUTEX);
	const uint64_t *f;
	uint32_t from = 0, n = 0;
	struct sym_info info;

	if (!s || !s->nframes)
		return 0;
	f = corecap_kernel_stack_frames(s);
	/* frames[0] is the instruction after the syscall: a return address's
	 * lookup (addr - 1) names it as well. Skip the runtime's frames. */
	if (c->sym)
		while (from + 1 < s->nframes && corecap_symbolizer_lookup(c->sym, f[from], &info) &&
		       runtime_module(info.module))
			from++;
	for (uint32_t i = from; i < s->nframes && n < max; i++)
		frames[n++] = f[i];
	return n;
}

void corecap_kernel_pass_init(struct kernel_pass *p, struct model *m, const struct kernel_reader *k,
			      struct symbolizer *sym)
{
	p->sc = (struct kernel_wait_stack_ctx){.k = k, .sym = sym};
	corecap_sched_init(&p->own, m->ws, m->we);
	p->s = &p->own;
	corecap_kernel_states_init_on(&p->ks, p->s);
	corecap_futex_locks_init_on(&p->f, p->s, &m->futex_locks, m->ws, m->we,
				    corecap_kernel_wait_stack, &p->sc);
}

int corecap_kernel_pass_init_on(struct kernel_pass *p, struct model *m,
				const struct kernel_reader *k, struct symbolizer *sym,
				struct sched *s)
{
	int ret = corecap_sched_set_window(s, m->ws, m->we);

	if (ret)
		return ret;
	p->sc = (struct kernel_wait_stack_ctx){.k = k, .sym = sym};
	p->s = s;
	corecap_kernel_states_init_on(&p->ks, s);
	corecap_futex_locks_init_on(&p->f, s, &m->futex_locks, m->ws, m->we,
				    corecap_kernel_wait_stack, &p->sc);
	return 0;
}

/* One pass over the records feeds the scheduler's replay (unless another
 * pass does), then the two models that read it: the states read sched at
 * the end (this pass sets no on_slice, so a record asks nothing more of
 * them), the futex locks each futex call's record. */
int corecap_kernel_pass_consume(void *ctx, const struct corecap_krec *r)
{
	struct kernel_pass *p = ctx;
	int ret;

	if (p->s == &p->own && (ret = corecap_sched_consume(p->s, r)))
		return ret;
	if (r->type != CORECAP_KREC_FUTEX_ENTER && r->type != CORECAP_KREC_FUTEX_EXIT)
		return 0;
	return corecap_futex_locks_call(&p->f, r);
}

struct pass_consumer corecap_kernel_pass_consumer(struct kernel_pass *p)
{
	return (struct pass_consumer){.on_krec = corecap_kernel_pass_consume, .ctx = p};
}

void corecap_kernel_pass_release(struct kernel_pass *p)
{
	corecap_futex_locks_release(&p->f);
	corecap_kernel_states_release(&p->ks);
	if (p->s == &p->own)
		corecap_sched_release(&p->own);
}

/*
 * How far a thread's kernel running time may exceed its schedstat CPU
 * from threads.tsv: the samples miss up to a period (0.1 s) at each edge
 * of the window, and a tenth for the samplers' timing.
 */
#define SCHEDSTAT_SLACK_NS 250000000ull

/*
 * The kernel says th ran far longer than the thread's own schedstat
 * counted: a switch-out of it is missing from the records (a thread
 * seen switched in and never out "runs" to the window's end).
 */
static bool disagrees_with_schedstat(const struct model *m, const struct kstate_thread *th)
{
	const struct model_thread *mt = corecap_thread_table_find(&m->threads, th->tid);
	uint64_t running = th->ns[KSTATE_RUNNING];

	return mt && mt->has_samples && mt->has_runq &&
	       running > mt->cpu_ns + mt->cpu_ns / 10 + SCHEDSTAT_SLACK_NS;
}

/* The threads' states into the model. */
static int states(struct model *m, struct kernel_states *ks, struct kernel_quality *out)
{
	int ret = corecap_kernel_states_finish(ks);

	if (ret)
		return ret;
	for (size_t i = 0; i < ks->len; i++) {
		const struct kstate_thread *th = ks->all[i];

		if (th->end_ns <= th->start_ns)
			continue; /* gone before the window */
		if (disagrees_with_schedstat(m, th)) {
			out->schedstat_disagree++;
			continue;
		}
		ret = corecap_model_set_thread_kstates(
			m, th->tid, th->comm, th->ns[KSTATE_RUNNING], th->ns[KSTATE_RUNNABLE],
			th->ns[KSTATE_FUTEX], th->ns[KSTATE_BLOCKED]);
		if (ret)
			return ret;
		out->threads++;
	}
	out->inconsistent = ks->s->inconsistent;
	out->lost_switch_outs = ks->s->lost_switch_outs;
	out->lost_switch_ins = ks->s->lost_switch_ins;
	out->wakes_daemon = ks->s->wakes_daemon;
	out->wakes_cross_cpu = ks->s->wakes_cross_cpu;
	return 0;
}

/* ret (negative), with *err naming the run's kernel directory. */
static int model_error(char **err, const char *run_dir, int ret)
{
	if (asprintf(err, "cannot model '%s/" CORECAP_KERNEL_DIR "': %s", run_dir, strerror(-ret)) <
	    0)
		*err = NULL;
	return ret;
}

int corecap_kernel_attrib_passed(struct model *m, struct kernel_pass *p,
				 const struct kernel_reader *k, const char *run_dir,
				 struct kernel_quality *out, char **err)
{
	int ret;

	*out = (struct kernel_quality){0};
	out->records = k->n_recs;
	out->lost = k->lost;
	out->unknown_records = k->unknown_records;
	out->trailing_bytes = k->trailing_bytes;
	out->stacks = k->n_stacks;
	out->has_stacks = k->has_stacks;
	out->switches = k->counts[CORECAP_KREC_SWITCH];
	out->wakings = k->counts[CORECAP_KREC_WAKING];
	out->futex_calls = k->counts[CORECAP_KREC_FUTEX_ENTER];
	ret = states(m, &p->ks, out);
	if (!ret)
		ret = corecap_futex_locks_finish(&p->f);
	out->futex = p->f.q;
	corecap_kernel_pass_release(p);
	if (ret) {
		return model_error(err, run_dir, ret);
	}
	m->src.kernel = true;
	m->src.futex = true;
	return 0;
}

int corecap_kernel_pass_alone(struct kernel_pass *p, struct model *m, const struct kernel_reader *k,
			      struct symbolizer *sym, const char *run_dir, char **err)
{
	struct pass_consumer c;
	int ret;

	/* A pass of the records alone, its table the states and futex locks. */
	corecap_kernel_pass_init(p, m, k, sym);
	c = corecap_kernel_pass_consumer(p);
	ret = corecap_pass_run_records(k, &c, 1);
	if (ret) {
		corecap_kernel_pass_release(p);
		return model_error(err, run_dir, ret);
	}
	return 0;
}
