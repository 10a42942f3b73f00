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

static int states_consume(void *ks, const struct corecap_krec *r)
{
	return corecap_kernel_states_consume(ks, r);
}

/* The threads' states, and their pools. */
static int model_states(struct stat_kernel_interval *iv, struct kernel_reader *kr, pid_t pid,
			enum stat_ksort key)
{
	struct kernel_states ks;
	int ret = 0;

	corecap_kernel_states_init(&ks, iv->ws, iv->we);
	ret = corecap_kernel_reader_each(kr, states_consume, &ks);
	if (ret)
		goto out;
	if ((ret = corecap_kernel_states_finish(&ks)))
		goto out;
	iv->inconsistent = ks.s->inconsistent;
	for (size_t i = 0; i < ks.len; i++) {
		const struct kstate_thread *th = ks.all[i];
		struct stat_kthread_row row = {0}, *t = &row;

		if (th->end_ns <= th->start_ns)
			continue; /* gone before the window */
		t->tid = th->tid;
		thread_name(pid, th, t->name, sizeof(t->name));
		if (corecap_profiler_is_thread(&iv->prof, t->tid, t->name)) {
			/* Known to the lock classification, left out of the rows. */
			if (!corecap_thread_table_get(&iv->prof.threads, t->tid)) {
				ret = -ENOMEM;
				goto out;
			}
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
			goto out;
	}
	corecap_stat_kernel_sort(iv, key);
out:
	corecap_kernel_states_release(&ks);
	return ret;
}

static char *word_namer(void *sym, uint64_t addr, bool code)
{
	const char *name = corecap_symbolizer_name(sym, addr, code);

	return name ? strdup(name) : NULL;
}

static int words_consume(void *f, const struct corecap_krec *r)
{
	return corecap_futex_locks_consume(f, r);
}

/* The futex words waited on, their waits' sites from the sampled stacks. */
static int model_words(struct stat_kernel_interval *iv, struct kernel_reader *kr,
		       struct symbolizer *sym)
{
	struct kernel_wait_stack_ctx sc = {.k = kr, .sym = sym};
	struct futex_locks f;
	int ret = 0;

	corecap_futex_locks_init(&f, &iv->words, iv->ws, iv->we, corecap_kernel_wait_stack, &sc);
	ret = corecap_kernel_reader_each(kr, words_consume, &f);
	if (!ret)
		ret = corecap_futex_locks_finish(&f);
	iv->fq = f.q;
	corecap_futex_locks_release(&f);
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
	if ((ret = model_states(iv, &kr, of->pid, key)) || (ret = model_words(iv, &kr, sym))) {
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
