/*
 * stat_kernel_render: `corecap stat`'s kernel view of one interval as
 * text or one JSON object per line (stat_kernel_render.h).
 */
#include "stat_kernel_render.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../model/lock_rows.h"
#include "name_elide.h"
#include "stat_render.h"
#include "stat_view.h"

static const char *const state_keys[KSTATE__COUNT] = {"running_ns", "runnable_ns", "futex_ns",
						      "blocked_ns"};

static const char *const ksort_names[KSORT__COUNT] = {"RUN%+RUNQ%", "RUN%",   "RUNQ%",
						      "FUTEX%",	    "BLOCK%", "THREAD"};

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

void corecap_stat_kernel_render_text(const struct stat_view_of *o,
				     const struct stat_kernel_interval *iv, struct symbolizer *sym,
				     const struct stat_klive *lv)
{
	uint64_t len = iv->we - iv->ws;
	struct lock_rows rows;
	char site[256];
	int shown = 0;

	if (lv->redraw)
		fputs("\033[H\033[J", stdout);
	printf("corecap stat: PID %d (%s), interval %.3f s, from kernel events\n", (int)o->pid,
	       o->comm, ms(len) / 1e3);
	if (lv->redraw) {
		char el[32];

		printf("elapsed %s, threads sorted by %s%s\n",
		       corecap_stat_elapsed(lv->elapsed_ns, el, sizeof(el)), ksort_names[lv->sort],
		       lv->interactive ? "; keys: s or >/< sort (from the next interval), q quit"
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
	if (iv->lost)
		printf("warning: the kernel dropped %" PRIu64 " records (%" PRIu64
		       " transitions inconsistent): figures are approximate\n",
		       iv->lost, iv->inconsistent);

	printf("\n%-20s %7s %7s %7s %7s %7s\n", "POOL", "THREADS", "RUN%", "RUNQ%", "FUTEX%",
	       "BLOCK%");
	for (size_t i = 0; i < iv->n_pools && (int)i < o->top; i++) {
		const struct stat_kpool_row *p = &iv->pools[i];

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
		const struct stat_kthread_row *t = &iv->threads[i];

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

void corecap_stat_kernel_render_json(const struct stat_view_of *o,
				     const struct stat_kernel_interval *iv, struct symbolizer *sym)
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
	add_u64(t, "records", iv->records);
	add_u64(t, "lost", iv->lost);
	add_u64(t, "inconsistent", iv->inconsistent);
	add_u64(t, "stacks", iv->stacks);
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
		const struct stat_kthread_row *r = &iv->threads[i];
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
