/*
 * stat_kernel_build: one interval's kernel events into `corecap stat`'s
 * kernel view (stat_kernel_build.h).
 */
#include "stat_kernel_build.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/thread_table.h"
#include "../read/kernel_reader.h"
#include "kernel_attrib.h"
#include "pass/consumers.h"

/* A thread's name: its record's, else /proc's (a thread that never left its sleep). */
static void thread_name(pid_t pid, const struct kstate_thread *th, char *out, size_t cap)
{
	char path[64];
	FILE *f;

	snprintf(out, cap, "%.*s", (int)sizeof(th->comm), th->comm);
	if (out[0])
		return;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)th->tid);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(out, (int)cap, f))
			out[0] = '\0';
		out[strcspn(out, "\n")] = '\0';
		fclose(f);
	}
	if (!out[0])
		snprintf(out, cap, "?");
}

/* The threads' states (fed by the pass), and their pools. */
static int model_states(struct stat_kernel_interval *iv, struct kernel_states *ks, pid_t pid,
			enum stat_ksort key)
{
	int ret = 0;

	if ((ret = corecap_kernel_states_finish(ks)))
		return ret;
	iv->inconsistent = ks->s->inconsistent;
	for (size_t i = 0; i < ks->len; i++) {
		const struct kstate_thread *th = ks->all[i];
		struct stat_kthread_row row = {0}, *t = &row;

		if (th->end_ns <= th->start_ns)
			continue; /* gone before the window */
		t->tid = th->tid;
		thread_name(pid, th, t->name, sizeof(t->name));
		if (corecap_profiler_is_thread(&iv->prof, t->tid, t->name)) {
			/* Known to the lock classification, left out of the rows. */
			if (!corecap_thread_table_get(&iv->prof.threads, t->tid))
				return -ENOMEM;
			iv->threads_cut++;
			if (!iv->prof.keep)
				continue;
		}
		corecap_thread_pool_name(t->name, t->pool, sizeof(t->pool));
		t->exited = th->exited;
		t->span_ns = th->end_ns - th->start_ns;
		for (int s = 0; s < KSTATE__COUNT; s++)
			t->ns[s] = th->ns[s];
		ret = corecap_stat_kernel_add_thread(iv, t);
		if (ret)
			return ret;
	}
	corecap_stat_kernel_sort(iv, key);
	return 0;
}

static char *word_namer(void *sym, uint64_t addr, bool code)
{
	const char *name = corecap_symbolizer_name(sym, addr, code);

	return name ? strdup(name) : NULL;
}

/* The futex words waited on (fed by the pass), their waits' sites from the
 * sampled stacks. */
static int model_words(struct stat_kernel_interval *iv, struct futex_locks *f,
		       struct symbolizer *sym)
{
	int ret = corecap_futex_locks_finish(f);

	iv->fq = f->q;
	if (ret)
		return ret;
	/* Named as the report names locks (corecap_lock_label): a heap word
	 * by its top site, not its address. */
	corecap_lock_table_symbolize(&iv->words, word_namer, sym);
	corecap_profiler_own_mark_locks(&iv->prof, &iv->words);
	return corecap_stat_kernel_rows(iv);
}

/* 0, or a negative errno with *err (malloc'd). */
static const char *module_path(void *sym, uint64_t addr)
{
	const char *path = NULL;

	corecap_symbolizer_module(sym, addr, &path);
	return path;
}

int corecap_stat_kernel_build(struct stat_kernel_interval *iv, const char *run_dir, uint64_t ws,
			      uint64_t we, const struct stat_kernel_of *of, struct symbolizer *sym,
			      enum stat_ksort key, char **err)
{
	struct kernel_reader kr;
	struct kernel_wait_stack_ctx sc = {.k = &kr, .sym = sym};
	struct kernel_states ks;
	struct futex_locks f;
	struct sched s;
	int ret;

	/* The kernel source's threads are stat's own: it is the collector. */
	corecap_stat_kernel_interval_init(iv, ws, we, of->comm, (int32_t)getpid(),
					  of->keep_profiler);
	iv->prof.module_of = module_path;
	iv->prof.module_ctx = sym;
	corecap_kernel_reader_init(&kr);
	ret = corecap_kernel_reader_load(&kr, run_dir, ws, we, err);
	if (ret == -ENOENT && !*err && asprintf(err, "'%s' holds no kernel events", run_dir) < 0)
		*err = NULL;
	if (ret)
		goto out;
	/* One pass over the records, its table the scheduler's replay (once,
	 * as the report's) and the two models that read it: the states and
	 * the futex words. */
	corecap_sched_init(&s, iv->ws, iv->we);
	corecap_kernel_states_init_on(&ks, &s);
	corecap_futex_locks_init_on(&f, &s, &iv->words, iv->ws, iv->we, corecap_kernel_wait_stack,
				    &sc);
	ret = corecap_pass_run_records(&kr,
				       (struct pass_consumer[]){corecap_pass_sched(&s),
								corecap_pass_kernel_states(&ks),
								corecap_pass_futex_locks(&f)},
				       3);
	if (!ret)
		ret = model_states(iv, &ks, of->pid, key);
	if (!ret)
		ret = model_words(iv, &f, sym);
	corecap_futex_locks_release(&f);
	corecap_kernel_states_release(&ks);
	corecap_sched_release(&s);
	if (ret) {
		if (asprintf(err, "cannot model the interval's kernel events: %s", strerror(-ret)) <
		    0)
			*err = NULL;
	}
	iv->records = kr.n_recs;
	iv->lost = kr.lost;
	iv->stacks = kr.n_stacks;
out:
	corecap_kernel_reader_release(&kr);
	return ret;
}
