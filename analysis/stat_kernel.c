/*
 * `corecap stat`'s kernel view (stat_kernel.h): one interval at a time, a
 * run directory of kernel events from the caller's source, read by
 * read/kernel_reader, modelled by model/kernel_states and
 * model/futex_locks as the report does, named by the symbolizer over
 * /proc/PID/maps, printed, and handed back to the source to remove.
 */
#include "stat_kernel.h"

#include <corecap/diag.h>
#include <corecap/stats_path.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "build/kernel_attrib.h"
#include "model/futex_locks.h"
#include "model/kernel_states.h"
#include "model/lock_rows.h"
#include "model/lock_table.h"
#include "model/profiler_own.h"
#include "model/thread_table.h"
#include "read/kernel_reader.h"
#include "read/symbolizer.h"
#include "render/name_elide.h"
#include "render/stat_render.h"
#include "render/stat_view.h"

static const struct corecap_stat_kernel_source *kernel_source;

void corecap_stat_set_kernel_source(const struct corecap_stat_kernel_source *src)
{
	kernel_source = src;
}

const struct corecap_stat_kernel_source *corecap_stat_kernel_source(void)
{
	return kernel_source;
}

struct kthread_row {
	int32_t tid;
	char name[32], pool[32];
	bool exited;
	uint64_t span_ns, ns[KSTATE__COUNT];
};

struct kpool_row {
	char name[32];
	size_t n_threads;
	uint64_t span_ns, ns[KSTATE__COUNT];
};

/* One interval, modelled. */
struct kstat_interval {
	uint64_t ws, we;
	struct kernel_reader kr;
	struct lock_table words;
	struct futex_quality fq;
	uint64_t inconsistent;
	struct kthread_row *threads;
	size_t n_threads;
	struct kpool_row *pools;
	size_t n_pools;
	const struct model_lock **rows; /* words waited on, by wait: mutexes, then idle */
	size_t n_rows, n_mutex_rows;
	uint64_t total_ns[KSTATE__COUNT], futex_waits, futex_wait_ns;
	/*
	 * The profiler's own (model/profiler_own.h): LTTng-UST's and the
	 * shim's threads in the daemon, stat's own threads, their locks and
	 * the locks in its code, out of every table unless --keep-profiler.
	 */
	struct profiler_own prof;
	size_t threads_cut;
};

static const char *const state_keys[KSTATE__COUNT] = {"running_ns", "runnable_ns", "futex_ns",
						      "blocked_ns"};

static void interval_release(struct kstat_interval *iv)
{
	corecap_kernel_reader_release(&iv->kr);
	corecap_lock_table_release(&iv->words);
	corecap_profiler_own_release(&iv->prof);
	free(iv->threads);
	free(iv->pools);
	free(iv->rows);
}

static uint64_t busy_of(const struct kthread_row *t)
{
	return t->ns[KSTATE_RUNNING] + t->ns[KSTATE_RUNNABLE];
}

/*
 * The threads' sort keys of the interactive view, in the order `s` steps
 * through them (stat_view.h's keys): busiest (the default, and the only
 * order off a terminal), then each state's share, then the name.
 */
enum ksort {
	KSORT_BUSY,
	KSORT_RUN,
	KSORT_RUNQ,
	KSORT_FUTEX,
	KSORT_BLOCK,
	KSORT_NAME,
	KSORT__COUNT
};
static const char *const ksort_names[KSORT__COUNT] = {"RUN%+RUNQ%", "RUN%",   "RUNQ%",
						      "FUTEX%",	    "BLOCK%", "THREAD"};
/* Set by the key thread, read when an interval is sorted. */
static _Atomic int ksort = KSORT_BUSY;

static int cmp_more(uint64_t x, uint64_t y)
{
	return x == y ? 0 : x < y ? 1 : -1;
}

/* Busiest first: on a CPU or wanting one, then futex wait, then tid (or the key's order first). */
static int cmp_threads(const void *a, const void *b)
{
	const struct kthread_row *x = a, *y = b;
	int c = 0;

	switch (ksort) {
	case KSORT_RUN:
		c = cmp_more(x->ns[KSTATE_RUNNING], y->ns[KSTATE_RUNNING]);
		break;
	case KSORT_RUNQ:
		c = cmp_more(x->ns[KSTATE_RUNNABLE], y->ns[KSTATE_RUNNABLE]);
		break;
	case KSORT_FUTEX:
		c = cmp_more(x->ns[KSTATE_FUTEX], y->ns[KSTATE_FUTEX]);
		break;
	case KSORT_BLOCK:
		c = cmp_more(x->ns[KSTATE_BLOCKED], y->ns[KSTATE_BLOCKED]);
		break;
	case KSORT_NAME:
		c = strcmp(x->name, y->name);
		break;
	default:
		break;
	}
	if (c)
		return c;

	if (busy_of(x) != busy_of(y))
		return busy_of(x) < busy_of(y) ? 1 : -1;
	if (x->ns[KSTATE_FUTEX] != y->ns[KSTATE_FUTEX])
		return x->ns[KSTATE_FUTEX] < y->ns[KSTATE_FUTEX] ? 1 : -1;
	return x->tid - y->tid;
}

static int cmp_pools(const void *a, const void *b)
{
	const struct kpool_row *x = a, *y = b;
	uint64_t bx = x->ns[KSTATE_RUNNING] + x->ns[KSTATE_RUNNABLE],
		 by = y->ns[KSTATE_RUNNING] + y->ns[KSTATE_RUNNABLE];

	if (bx != by)
		return bx < by ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int cmp_words(const void *a, const void *b)
{
	const struct model_lock *x = *(const struct model_lock *const *)a,
				*y = *(const struct model_lock *const *)b;

	/* Mutexes (contention) first, the idle waits after them. */
	if (x->idle != y->idle)
		return x->idle ? 1 : -1;
	if (x->wait_ns != y->wait_ns)
		return x->wait_ns < y->wait_ns ? 1 : -1;
	if (x->contentions != y->contentions)
		return x->contentions < y->contentions ? 1 : -1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

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

static int add_pool(struct kstat_interval *iv, const struct kthread_row *t)
{
	struct kpool_row *p = NULL;

	for (size_t i = 0; i < iv->n_pools && !p; i++)
		if (strcmp(iv->pools[i].name, t->pool) == 0)
			p = &iv->pools[i];
	if (!p) {
		p = &iv->pools[iv->n_pools++];
		*p = (struct kpool_row){0};
		snprintf(p->name, sizeof(p->name), "%s", t->pool);
	}
	p->n_threads++;
	p->span_ns += t->span_ns;
	for (int s = 0; s < KSTATE__COUNT; s++)
		p->ns[s] += t->ns[s];
	return 0;
}

static int states_consume(void *ks, const struct corecap_krec *r)
{
	return corecap_kernel_states_consume(ks, r);
}

/* The threads' states, and their pools. */
static int model_states(struct kstat_interval *iv, pid_t pid)
{
	struct kernel_states ks;
	int ret = 0;

	corecap_kernel_states_init(&ks, iv->ws, iv->we);
	ret = corecap_kernel_reader_each(&iv->kr, states_consume, &ks);
	if (ret)
		goto out;
	corecap_kernel_states_finish(&ks);
	iv->inconsistent = ks.inconsistent;
	iv->threads = calloc(ks.len ? ks.len : 1, sizeof(*iv->threads));
	iv->pools = calloc(ks.len ? ks.len : 1, sizeof(*iv->pools));
	if (!iv->threads || !iv->pools) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < ks.len; i++) {
		const struct kstate_thread *th = ks.all[i];
		struct kthread_row *t;

		if (th->end_ns <= th->start_ns)
			continue; /* gone before the window */
		t = &iv->threads[iv->n_threads];
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
		iv->n_threads++;
		corecap_thread_pool_name(t->name, t->pool, sizeof(t->pool));
		t->exited = th->exited;
		t->span_ns = th->end_ns - th->start_ns;
		for (int s = 0; s < KSTATE__COUNT; s++) {
			t->ns[s] = th->ns[s];
			iv->total_ns[s] += th->ns[s];
		}
		add_pool(iv, t);
	}
	qsort(iv->threads, iv->n_threads, sizeof(*iv->threads), cmp_threads);
	qsort(iv->pools, iv->n_pools, sizeof(*iv->pools), cmp_pools);
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
static int model_words(struct kstat_interval *iv, struct symbolizer *sym)
{
	struct kernel_wait_stack_ctx sc = {.k = &iv->kr, .sym = sym};
	struct futex_locks f;
	int ret = 0;

	corecap_futex_locks_init(&f, &iv->words, iv->ws, iv->we, corecap_kernel_wait_stack, &sc);
	ret = corecap_kernel_reader_each(&iv->kr, words_consume, &f);
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
	iv->rows = calloc(iv->words.len ? iv->words.len : 1, sizeof(*iv->rows));
	if (!iv->rows)
		return -ENOMEM;
	for (size_t i = 0; i < iv->words.len; i++) {
		const struct model_lock *l = iv->words.all[i];

		if (!l->contentions || l->profiler)
			continue;
		iv->rows[iv->n_rows++] = l;
		iv->futex_waits += l->contentions;
		iv->futex_wait_ns += l->wait_ns;
	}
	qsort(iv->rows, iv->n_rows, sizeof(*iv->rows), cmp_words);
	while (iv->n_mutex_rows < iv->n_rows && !iv->rows[iv->n_mutex_rows]->idle)
		iv->n_mutex_rows++;
	return 0;
}

/* 0, or a negative errno with *err (malloc'd). */
static const char *module_path(void *sym, uint64_t addr)
{
	const char *path = NULL;

	corecap_symbolizer_module(sym, addr, &path);
	return path;
}

static int model_interval(struct kstat_interval *iv, const char *run_dir, uint64_t ws, uint64_t we,
			  const struct stat_kernel_opts *o, struct symbolizer *sym, char **err)
{
	pid_t pid = o->pid;
	int ret;

	memset(iv, 0, sizeof(*iv));
	iv->ws = ws;
	iv->we = we;
	/* The kernel source's threads are stat's own: it is the collector. */
	corecap_profiler_own_init(&iv->prof, o->comm, (int32_t)getpid());
	iv->prof.keep = o->keep_profiler;
	iv->prof.module_of = module_path;
	iv->prof.module_ctx = sym;
	corecap_kernel_reader_init(&iv->kr);
	corecap_lock_table_init(&iv->words);
	ret = corecap_kernel_reader_load(&iv->kr, run_dir, ws, we, err);
	if (ret == -ENOENT && !*err && asprintf(err, "'%s' holds no kernel events", run_dir) < 0)
		*err = NULL;
	if (ret)
		return ret;
	if ((ret = model_states(iv, pid)) || (ret = model_words(iv, sym))) {
		if (asprintf(err, "cannot model the interval's kernel events: %s", strerror(-ret)) <
		    0)
			*err = NULL;
	}
	return ret;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static void print_text(const struct stat_kernel_opts *o, const struct kstat_interval *iv,
		       struct symbolizer *sym, uint64_t elapsed_ns)
{
	uint64_t len = iv->we - iv->ws;
	struct lock_rows rows;
	char site[256];
	int shown = 0;

	if (o->redraw)
		fputs("\033[H\033[J", stdout);
	printf("corecap stat: PID %d (%s), interval %.3f s, from kernel events\n", (int)o->pid,
	       o->comm, ms(len) / 1e3);
	if (o->redraw) {
		char el[32];

		printf("elapsed %s, threads sorted by %s%s\n",
		       corecap_stat_elapsed(elapsed_ns, el, sizeof(el)), ksort_names[ksort],
		       o->interactive ? "; keys: s or >/< sort (from the next interval), q quit"
				      : "");
	}
	printf("process: %zu threads; thread time running %.1f ms, runnable %.1f ms, futex wait "
	       "%.1f ms, other blocked %.1f ms; %" PRIu64 " futex waits (%.1f ms)\n",
	       iv->n_threads, ms(iv->total_ns[KSTATE_RUNNING]), ms(iv->total_ns[KSTATE_RUNNABLE]),
	       ms(iv->total_ns[KSTATE_FUTEX]), ms(iv->total_ns[KSTATE_BLOCKED]), iv->futex_waits,
	       ms(iv->futex_wait_ns));
	if (iv->threads_cut || iv->prof.locks_cut)
		printf("profiler: %zu of its threads and %zu of its locks %s (LTTng-UST's, the "
		       "shim's, corecap's)%s\n",
		       iv->threads_cut, iv->prof.locks_cut,
		       iv->prof.keep ? "kept in the tables" : "left out",
		       iv->prof.keep ? "" : "; --keep-profiler keeps them");
	if (iv->kr.lost)
		printf("warning: the kernel dropped %" PRIu64 " records (%" PRIu64
		       " transitions inconsistent): figures are approximate\n",
		       iv->kr.lost, iv->inconsistent);

	printf("\n%-20s %7s %7s %7s %7s %7s\n", "POOL", "THREADS", "RUN%", "RUNQ%", "FUTEX%",
	       "BLOCK%");
	for (size_t i = 0; i < iv->n_pools && (int)i < o->top; i++) {
		const struct kpool_row *p = &iv->pools[i];

		corecap_name_put(stdout, p->name, 20);
		printf(" %7zu %7.1f %7.1f %7.1f %7.1f\n", p->n_threads,
		       pct(p->ns[KSTATE_RUNNING], p->span_ns),
		       pct(p->ns[KSTATE_RUNNABLE], p->span_ns),
		       pct(p->ns[KSTATE_FUTEX], p->span_ns),
		       pct(p->ns[KSTATE_BLOCKED], p->span_ns));
	}

	printf("\n%8s %-16s %-16s %7s %7s %7s %7s\n", "TID", "THREAD", "POOL", "RUN%", "RUNQ%",
	       "FUTEX%", "BLOCK%");
	for (size_t i = 0; i < iv->n_threads && shown < o->top; i++, shown++) {
		const struct kthread_row *t = &iv->threads[i];

		printf("%8d %-16s ", t->tid, t->name);
		corecap_name_put(stdout, t->pool, 16);
		printf(" %7.1f %7.1f %7.1f %7.1f%s\n", pct(t->ns[KSTATE_RUNNING], len),
		       pct(t->ns[KSTATE_RUNNABLE], len), pct(t->ns[KSTATE_FUTEX], len),
		       pct(t->ns[KSTATE_BLOCKED], len), t->exited ? " (exited)" : "");
	}
	if (iv->n_threads > (size_t)shown)
		printf("(%zu more threads)\n", iv->n_threads - (size_t)shown);

	/*
	 * The mutexes alone rank as contention; the idle waits follow apart.
	 * As report's futex tables (render_text.c): the rows of model/lock_rows
	 * (heap words waited on at one site are one family row, its LOCKS the
	 * words), named by corecap_lock_row_label, under report's words.
	 */
	if (corecap_lock_rows_build(&rows, &iv->words, LOCK_SORT_WAIT, false) == 0) {
		size_t n_mutex = corecap_lock_rows_contended(&rows);

		for (int part = 0; part < 2; part++) {
			size_t from = part ? n_mutex : 0, to = part ? rows.n : n_mutex;

			if (part && from == to)
				break;
			printf("\n%s\n",
			       part ? "idle: waiting for work or a hand-off: condition and "
				      "other futex waits, and mutexes re-taken as a "
				      "condition wait returns"
				    : "locks (source: futex mutexes, by total wait): "
				      "contention");
			printf("%-32s %5s %-17s %8s %9s %8s %7s  %s\n",
			       part ? "IDLE WORD (waiting for work)"
				    : "FUTEX WORD (mutex: contention)",
			       "LOCKS", "KIND", "WAITS", "WAIT ms", "AVG us", "WAITERS",
			       "TOP WAITING SITE");
			shown = 0;
			for (size_t i = from; i < to && shown < o->top; i++, shown++) {
				const struct lock_row *r = &rows.v[i];
				char name[CORECAP_LOCK_LABEL_MAX];
				size_t waiters = 0;

				for (size_t k = 0; k < r->n_members; k++)
					waiters += r->members[k]->n_waiters;
				corecap_name_elide(
					r->site && r->site->site
						? corecap_symbolizer_name(sym, r->site->site, true)
						: "-",
					48, site, sizeof(site));
				corecap_lock_row_label(r, name, sizeof(name));
				corecap_name_put(stdout, name, 32);
				printf(" %5zu %-17s %8" PRIu64 " %9.1f %8.1f ", r->n_members,
				       corecap_lock_kind_name(r->kind), r->contentions,
				       ms(r->wait_ns),
				       (double)corecap_lock_row_avg_wait_ns(r) / 1e3);
				/* As report: re-locks found by their site have no waiters of their
				 * own. */
				if (waiters)
					printf("%7zu  %s\n", waiters, site);
				else
					printf("%7s  %s\n", "-", site);
			}
			if (!shown)
				printf("(no thread slept waiting for a mutex in the interval)\n");
		}
		corecap_lock_rows_release(&rows);
	}
	printf("\nRUN%%, RUNQ%%, FUTEX%%, BLOCK%%: share of the interval (pools: of their "
	       "threads'\n"
	       "time) on a CPU, waiting for one, asleep in a futex wait (a lock or condition),\n"
	       "blocked elsewhere (I/O, poll, sleep). A futex word is a mutex's or condition's\n"
	       "address; the site is where its sampled waits were called. A mutex wait is\n"
	       "contention; a condition or other futex wait, and a mutex re-taken as a\n"
	       "condition wait returns, is idle or hand-off time (IDLE WORD).\n");
	fflush(stdout);
}

static void add_u64(json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static void add_states(json_object *o, uint64_t span_ns, const uint64_t *ns)
{
	add_u64(o, "span_ns", span_ns);
	for (int s = 0; s < KSTATE__COUNT; s++)
		add_u64(o, state_keys[s], ns[s]);
}

static json_object *jword(const struct model_lock *l, struct symbolizer *sym)
{
	json_object *j = json_object_new_object();
	const struct lock_site *s = corecap_lock_top_site(l);
	char name[160];

	corecap_lock_label(l, name, sizeof(name));
	json_object_object_add(j, "addr", corecap_stat_json_hex(l->addr));
	json_object_object_add(j, "name", json_object_new_string(name));
	json_object_object_add(j, "kind", json_object_new_string(corecap_lock_kind_name(l->kind)));
	add_u64(j, "waits", l->contentions);
	add_u64(j, "wait_ns", l->wait_ns);
	add_u64(j, "max_wait_ns", l->max_wait_ns);
	json_object_object_add(j, "wait_kind", json_object_new_string(l->idle ? "idle" : "mutex"));
	add_u64(j, "busy_ns", l->idle ? 0 : corecap_lock_busy_ns(l));
	add_u64(j, "waiters", l->n_waiters);
	if (s && s->site) {
		json_object_object_add(j, "top_site", corecap_stat_json_hex(s->site));
		json_object_object_add(
			j, "top_site_symbol",
			json_object_new_string(corecap_symbolizer_name(sym, s->site, true)));
		add_u64(j, "top_site_sampled_waits", s->sampled_waits);
	} else {
		json_object_object_add(j, "top_site", NULL);
		json_object_object_add(j, "top_site_symbol", NULL);
		add_u64(j, "top_site_sampled_waits", 0);
	}
	return j;
}

static void print_json(const struct stat_kernel_opts *o, const struct kstat_interval *iv,
		       struct symbolizer *sym)
{
	json_object *root = json_object_new_object(), *a, *t;

	json_object_object_add(root, "source", json_object_new_string("kernel"));
	json_object_object_add(root, "pid", json_object_new_int(o->pid));
	t = json_object_new_object();
	add_u64(t, "threads", iv->threads_cut);
	add_u64(t, "locks", iv->prof.locks_cut);
	json_object_object_add(t, "kept", json_object_new_boolean(iv->prof.keep));
	json_object_object_add(root, "profiler", t);
	json_object_object_add(root, "comm", json_object_new_string(o->comm));
	add_u64(root, "start_ns", iv->ws);
	add_u64(root, "end_ns", iv->we);
	add_u64(root, "interval_ns", iv->we - iv->ws);
	t = json_object_new_object();
	add_u64(t, "threads", iv->n_threads);
	for (int s = 0; s < KSTATE__COUNT; s++)
		add_u64(t, state_keys[s], iv->total_ns[s]);
	add_u64(t, "futex_waits", iv->futex_waits);
	add_u64(t, "futex_wait_ns", iv->futex_wait_ns);
	json_object_object_add(root, "process", t);
	t = json_object_new_object();
	add_u64(t, "records", iv->kr.n_recs);
	add_u64(t, "lost", iv->kr.lost);
	add_u64(t, "inconsistent", iv->inconsistent);
	add_u64(t, "stacks", iv->kr.n_stacks);
	add_u64(t, "waits_with_stack", iv->fq.waits_with_stack);
	add_u64(t, "waits_idle", iv->fq.waits_idle);
	add_u64(t, "waits_relock", iv->fq.waits_relock);
	json_object_object_add(root, "quality", t);
	a = json_object_new_array();
	for (size_t i = 0; i < iv->n_pools; i++) {
		json_object *j = json_object_new_object();

		json_object_object_add(j, "name", json_object_new_string(iv->pools[i].name));
		add_u64(j, "threads", iv->pools[i].n_threads);
		add_states(j, iv->pools[i].span_ns, iv->pools[i].ns);
		json_object_array_add(a, j);
	}
	json_object_object_add(root, "pools", a);
	a = json_object_new_array();
	for (size_t i = 0; i < iv->n_threads; i++) {
		const struct kthread_row *r = &iv->threads[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "tid", json_object_new_int(r->tid));
		json_object_object_add(j, "name", json_object_new_string(r->name));
		json_object_object_add(j, "pool", json_object_new_string(r->pool));
		json_object_object_add(j, "exited", json_object_new_boolean(r->exited));
		add_states(j, r->span_ns, r->ns);
		json_object_array_add(a, j);
	}
	json_object_object_add(root, "threads", a);
	a = json_object_new_array();
	for (size_t i = 0; i < iv->n_mutex_rows; i++)
		json_object_array_add(a, jword(iv->rows[i], sym));
	json_object_object_add(root, "futex_words", a);
	a = json_object_new_array();
	for (size_t i = iv->n_mutex_rows; i < iv->n_rows; i++)
		json_object_array_add(a, jword(iv->rows[i], sym));
	json_object_object_add(root, "idle_words", a);
	printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
	fflush(stdout);
	json_object_put(root);
}

static bool process_gone(pid_t pid)
{
	return kill(pid, 0) < 0 && errno == ESRCH;
}

/*
 * The interactive view's keys, read on a thread of their own while the
 * main thread waits in the capture of an interval: q stops the capture
 * (through the flag it watches, which also follows the caller's *stop),
 * s, > and < change the order of the next interval's threads.
 */
struct kkeys {
	struct stat_term term;
	const volatile sig_atomic_t *stop; /* the caller's: signals */
	/* What the capture watches (its type): stop, q, or done; one int, written whole. */
	volatile sig_atomic_t halt;
};

static uint64_t mono_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *keys_main(void *arg)
{
	struct kkeys *k = arg;

	while (!k->halt) {
		/* 50 ms at a time, to pass a signal's stop on to the capture. */
		enum stat_key key =
			corecap_stat_wait_key(&k->term, mono_now_ns() + 50000000u, &k->halt);

		if (*k->stop)
			k->halt = 1;
		if (key == STAT_KEY_QUIT)
			k->halt = 1;
		else if (key == STAT_KEY_SORT_NEXT)
			ksort = (ksort + 1) % KSORT__COUNT;
		else if (key == STAT_KEY_SORT_PREV)
			ksort = (ksort + KSORT__COUNT - 1) % KSORT__COUNT;
	}
	return NULL;
}

int corecap_stat_kernel_run(const struct stat_kernel_opts *o, const volatile sig_atomic_t *stop)
{
	const struct corecap_stat_kernel_source *src = kernel_source;
	uint64_t step_ns = (uint64_t)(o->interval_s * 1e9), first_ns = 0;
	struct symbolizer sym;
	char why[512] = "", maps[64], *err = NULL;
	void *ctx = NULL;
	int ret, status = 0;
	struct kkeys keys = {.term = {.fd = -1}};
	const volatile sig_atomic_t *signalled = stop; /* the caller's, kept when keys take over */
	pthread_t keys_thread;
	bool have_keys = false;

	if (!src) {
		corecap_error("this corecap was built without a kernel source");
		return 1;
	}
	ret = src->open(&ctx, o->pid, why, sizeof(why));
	if (ret) {
		if (o->no_shim) {
			corecap_error("process %d (%s) runs without the shim (no segment "
				      "'" CORECAP_STATS_LINK_FMT
				      "' among its descriptors), and its "
				      "kernel events cannot be read: %s",
				      (int)o->pid, o->comm, (int)o->pid, why);
			corecap_note(
				"start the daemon under 'corecap run' for the shim's view, or run "
				"stat where kernel events are allowed");
		} else {
			corecap_error("cannot read the kernel events of PID %d (%s): %s",
				      (int)o->pid, o->comm, why);
		}
		return 1;
	}
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)o->pid);
	ret = corecap_symbolizer_init(&sym, maps, NULL, NULL, &err);
	if (ret && ret != -ENOENT) {
		/* Addresses then print as hex; the figures stay right. */
		corecap_warn("symbols: %s", err ? err : "cannot read the process's maps");
		free(err);
		err = NULL;
		corecap_symbolizer_init(&sym, "/nonexistent/maps", NULL, NULL, &err);
	}
	if (step_ns < 10000000)
		step_ns = 10000000; /* opening the events each interval takes milliseconds */
	/* Keys only where the view is interactive; the terminal is restored after the loop. */
	if (o->interactive && corecap_stat_term_enter(&keys.term) == 0) {
		keys.stop = stop;
		if (pthread_create(&keys_thread, NULL, keys_main, &keys) == 0) {
			have_keys = true;
			stop = &keys.halt;
		} else {
			corecap_stat_term_restore(&keys.term);
		}
	}
	while (!*stop) {
		struct kstat_interval iv;
		const char *dir = NULL;
		uint64_t ws = 0, we = 0;

		ret = src->interval(ctx, step_ns, stop, &dir, &ws, &we, why, sizeof(why));
		if (ret == -EINTR)
			break;
		if (ret) {
			if (process_gone(o->pid)) {
				corecap_note("process %d exited", (int)o->pid);
			} else {
				corecap_error("kernel events of PID %d: %s", (int)o->pid, why);
				status = 1;
			}
			break;
		}
		if (!first_ns)
			first_ns = ws;
		ret = model_interval(&iv, dir, ws, we, o, &sym, &err);
		if (ret) {
			corecap_error("%s", err ? err : strerror(-ret));
			free(err);
			interval_release(&iv);
			status = 1;
			break;
		}
		if (o->json)
			print_json(o, &iv, &sym);
		else
			print_text(o, &iv, &sym, we - first_ns);
		interval_release(&iv);
		if (process_gone(o->pid)) {
			corecap_note("process %d exited", (int)o->pid);
			break;
		}
		if (o->once ||
		    (o->duration_s > 0 && (double)(we - first_ns) >= o->duration_s * 1e9 - 1e6))
			break;
		if (!o->json && !o->redraw)
			printf("\n");
	}
	if (have_keys) {
		keys.halt = 1;
		pthread_join(keys_thread, NULL);
		corecap_stat_term_restore(&keys.term);
	}
	if (*signalled)
		corecap_note("interrupted");
	src->close(ctx);
	corecap_symbolizer_release(&sym);
	return status;
}
