/*
 * The readable rendering of a report: the verdict first, then the figures
 * that back it (cores, pools, threads, locks, per-op breakdown), then
 * what the data lacked.
 */
#include "name_elide.h"
#include "ceph_disk.h"
#include "render_common.h"
#include "render_profiler.h"
#include "render_diagnosis.h"
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <corecap/run_format.h>

#define TOP_THREADS 12

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void header(const struct report *r, FILE *out)
{
	const struct run_manifest *mf = r->manifest;
	uint64_t w = corecap_model_window_ns(r->model);

	fprintf(out, "corecap report: %s\n\n", r->run_dir);
	fprintf(out, "daemon     %s", mf && mf->comm ? mf->comm : "?");
	if (mf && mf->pid >= 0)
		fprintf(out, " (pid %d)", mf->pid);
	if (r->cores_available)
		fprintf(out, ", %d cores available", r->cores_available);
	fprintf(out, "\nwindow     %.3f s (%s)\n", w / 1e9,
		r->window_from_manifest ? "recording window" : "first to last event");
	if (mf && mf->bench_command) {
		corecap_render_bench_line(mf, out);
		if (mf->bench.has_iops || mf->bench.has_lat) {
			fprintf(out, "           ");
			if (mf->bench.has_iops)
				fprintf(out, "%.0f IOPS", mf->bench.iops_avg);
			if (mf->bench.has_lat)
				fprintf(out, "%savg latency %.3f ms",
					mf->bench.has_iops ? ", " : "", mf->bench.lat_avg_s * 1e3);
			if (mf->bench.has_p99)
				fprintf(out, ", p99 %.3f ms", mf->bench.lat_p99_s * 1e3);
			fprintf(out, "\n");
		}
	}
	if (!corecap_model_has_ops(r->model))
		fprintf(out, "traced     ops not measured (no trace)\n");
	else if (w)
		fprintf(out, "traced     %llu ops, %.0f ops/s\n",
			(unsigned long long)r->model->ops.finished,
			(double)r->model->ops.finished * 1e9 / (double)w);
	fprintf(out, "\n");
}

/* The diagnosis first; the candidates and the projection follow as its detail. */
static void diagnosis(const struct report *r, FILE *out)
{
	corecap_render_diagnosis_text(r->diagnosis, out);
	corecap_render_diagnosis_detail_text(r->ceiling, r->projection,
					     corecap_model_window_ns(r->model), out);
}

/* Under a table whose wait columns no source gave. */
static void not_measured_note(const struct report *r, FILE *out)
{
	if (!corecap_model_has_thread_waits(r->model))
		fprintf(out, "           lock, cond, io, log: not measured (no trace)\n");
}

static void pools(const struct report *r, FILE *out)
{
	const struct pool_table *p = r->pools;
	uint64_t w = corecap_model_window_ns(r->model);
	bool waits = corecap_model_has_thread_waits(r->model);

	if (p->n_sampled && w) {
		fprintf(out, "cores      the daemon used %.2f", (double)p->cpu_ns / (double)w);
		if (r->cores_available)
			fprintf(out, " of %d", r->cores_available);
		fprintf(out, "; run-queue wait %.2f threads on average\n\n",
			(double)p->runq_ns / (double)w);
	}
	corecap_render_profiler_text(r, out);
	fprintf(out, "pools      %-22s %7s %6s %8s %6s %6s %6s %6s\n", "(% of the pool's time)",
		"threads", "run", "wait-cpu", "lock", "cond", "io", "log");
	for (size_t i = 0; i < p->len; i++) {
		const struct model_pool *pl = &p->pools[i];
		uint64_t cap = pl->span_ns;

		fprintf(out, "           %-22s %7zu", pl->name, pl->n_threads);
		if (!cap) {
			fprintf(out, "  (no " CORECAP_RUN_THREADS " samples)\n");
			continue;
		}
		fprintf(out, " %6.1f %8.1f", pct(pl->cpu_ns, cap), pct(pl->runq_ns, cap));
		if (waits)
			fprintf(out, " %6.1f %6.1f %6.1f %6.1f\n", pct(pl->lock_wait_ns, cap),
				pct(pl->cond_wait_ns, cap), pct(corecap_io_sum(pl->io_ns), cap),
				pct(pl->logging_ns, cap));
		else
			fprintf(out, " %6s %6s %6s %6s\n", "-", "-", "-", "-");
	}
	not_measured_note(r, out);
	fprintf(out, "\n");
}

static void threads(const struct report *r, FILE *out)
{
	const struct model_thread **v;
	uint64_t w = corecap_model_window_ns(r->model);
	size_t n = corecap_render_sorted_threads(r, &v), shown = n < TOP_THREADS ? n : TOP_THREADS;

	fprintf(out, "threads    %-22s %7s %6s %8s %6s %6s %6s %6s\n", "(most run first, %)", "tid",
		"run", "wait-cpu", "lock", "cond", "io", "log");
	for (size_t i = 0; i < shown; i++) {
		const struct model_thread *th = v[i];
		uint64_t span = th->span_ns ? th->span_ns : w;
		struct thread_waits tw;

		fprintf(out, "           %-22s %7d", th->name[0] ? th->name : "?", th->tid);
		if (th->has_samples)
			fprintf(out, " %6.1f %8.1f", 100 * corecap_thread_cpu_util(th, w),
				100 * (corecap_thread_busy_util(th, w) -
				       corecap_thread_cpu_util(th, w)));
		else
			fprintf(out, " %6s %8s", "-", "-");
		corecap_thread_waits(th, &tw);
		if (corecap_model_has_thread_waits(r->model))
			fprintf(out, " %6.1f %6.1f %6.1f %6.1f\n", pct(tw.lock_ns, span),
				pct(tw.cond_ns, span), pct(corecap_io_sum(tw.io_ns), span),
				pct(tw.logging_ns, span));
		else
			fprintf(out, " %6s %6s %6s %6s\n", "-", "-", "-", "-");
	}
	if (n > shown)
		fprintf(out, "           ... %zu more threads (--json lists all)\n", n - shown);
	not_measured_note(r, out);
	fprintf(out, "\n");
	free(v);
}

/*
 * A return address as --lines shows it: its inlined calls, innermost
 * first, then its function (by `name`, with its offset), each with its
 * file:line; `name` alone without --lines or line information.
 */
static void put_code(const struct report *r, uint64_t addr, const char *name, FILE *out)
{
	struct report_frame f[REPORT_MAX_FRAMES];
	size_t n = r->lines ? corecap_render_frame_sources(r, addr, f, REPORT_MAX_FRAMES) : 0;
	const char *base;

	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s%s%s", i ? " <- " : "", i == n - 1 ? name : f[i].function,
			f[i].inlined ? "[inline]" : "");
		if (f[i].file) {
			base = strrchr(f[i].file, '/');
			fprintf(out, " (%s:%u)", base ? base + 1 : f[i].file, f[i].line);
		}
	}
	if (!n)
		fputs(name, out);
}

/*
 * The lock tables' top rows show their site's file:line without --lines:
 * a few addresses' DWARF lines, the ones a reader acts on (--lines adds
 * the inline chains, and every other site's line).
 */
#define LOCK_LINES_SHOWN 5

/* A site as "name (file.c:123)", the line of its call, or as put_code() with --lines. */
static void put_site_line(const struct report *r, uint64_t addr, const char *name, FILE *out)
{
	struct report_frame f[REPORT_MAX_FRAMES];
	size_t n = r->lines ? 0 : corecap_render_frame_sources(r, addr, f, REPORT_MAX_FRAMES);
	const char *base;

	if (r->lines || !n || !f[0].file) {
		put_code(r, addr, name, out);
		return;
	}
	base = strrchr(f[0].file, '/');
	fprintf(out, "%s (%s:%u)", name, base ? base + 1 : f[0].file, f[0].line);
}

/* Thread states from kernel events, per pool (all of whose threads have them). */
static void kernel_states(const struct report *r, FILE *out)
{
	const struct pool_table *p = r->pools;

	if (!r->kernel)
		return;
	fprintf(out, "states     %-22s %7s %8s %8s %8s %8s\n", "(kernel, % of the pool's time)",
		"threads", "running", "runnable", "futex", "blocked");
	for (size_t i = 0; i < p->len; i++) {
		const struct model_pool *pl = &p->pools[i];
		uint64_t cap = pl->k_span_ns;

		fprintf(out, "           %-22s %7zu", pl->name, pl->n_threads);
		if (pl->n_kstates != pl->n_threads || !cap) {
			fprintf(out, "  (not every thread in the kernel records)\n");
			continue;
		}
		fprintf(out, " %8.1f %8.1f %8.1f %8.1f\n", pct(pl->cpu_ns, cap),
			pct(pl->runq_ns, cap), pct(pl->k_futex_ns, cap),
			pct(pl->k_blocked_ns, cap));
	}
	fprintf(out, "\n");
}

static int cmp_holder(const void *a, const void *b)
{
	const struct lock_tid *x = a, *y = b;

	if (x->waits != y->waits)
		return x->waits > y->waits ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* A lock's holders, most waits ended first: "tp_osd_tp 1234 (40%), ...". */
static void holders_line(const struct report *r, const struct model_lock *l, FILE *out)
{
	uint64_t total = l->holder_unknown;
	struct lock_tid *v;

	for (size_t i = 0; i < l->n_holders; i++)
		total += l->holders[i].waits;
	if (!l->n_holders || !total || !(v = malloc(l->n_holders * sizeof(*v))))
		return;
	memcpy(v, l->holders, l->n_holders * sizeof(*v));
	qsort(v, l->n_holders, sizeof(*v), cmp_holder);
	fprintf(out, "             holders (whose wake ended a wait):");
	for (size_t k = 0; k < 3 && k < l->n_holders; k++) {
		const struct model_thread *th =
			corecap_thread_table_find(&r->model->threads, v[k].tid);

		fprintf(out, "%s %s %d (%.0f%%)", k ? "," : "", th && th->name[0] ? th->name : "?",
			v[k].tid, pct(v[k].waits, total));
	}
	if (l->n_holders > 3)
		fprintf(out, ", %zu more", l->n_holders - 3);
	fprintf(out, "; %zu threads waited\n", l->n_waiters);
	free(v);
}

/* Column widths of the lock tables' names and top sites (elided to fit). */
#define LOCK_NAME_COLS 48
#define LOCK_SITE_COLS 44

/* The header of a lock table: one unit per column (us for every time). */
static void lock_header(const struct report *r, bool futex, bool idle, FILE *out)
{
	char title[80];

	if (idle)
		snprintf(title, sizeof(title), "(source: futex, idle, by %s)",
			 corecap_lock_sort_title(r->lock_sort, futex));
	else
		snprintf(title, sizeof(title), "(%sby %s)", futex ? "source: futex mutexes, " : "",
			 corecap_lock_sort_title(r->lock_sort, futex));
	fprintf(out, "%s", idle ? "idle       " : "locks      ");
	corecap_name_put(out, title, LOCK_NAME_COLS);
	/* futex kinds are wider: futex_wait_bitset. An idle wait keeps no
	 * server busy: its column is the threads that waited. */
	fprintf(out, " %10s %12s %9s %9s %6s %*s  %s\n", futex ? "waits" : "contended", "wait us",
		"avg us", "max us",
		idle	? "thr"
		: futex ? "busy%"
			: "hold%",
		futex ? 17 : 9, "kind", "top site");
}

/* A family's members, most wait first: "0x55.. (120.5 us), ...". */
static void members_line(const struct lock_row *row, FILE *out)
{
	fprintf(out, "             %zu locks taken here:", row->n_members);
	for (size_t k = 0; k < row->n_members && k < 4; k++)
		fprintf(out, "%s 0x%llx (%.1f us)", k ? "," : "",
			(unsigned long long)row->members[k]->addr,
			corecap_lock_wait_ns(row->members[k]) / 1e3);
	if (row->n_members > 4)
		fprintf(out, ", %zu more (--json lists all)", row->n_members - 4);
	fprintf(out, "\n");
}

/* The rows of one lock table; futex rows show who handed the lock over. */
static void lock_rows(const struct report *r, const struct lock_rows *rows, size_t from,
		      size_t shown, FILE *out)
{
	uint64_t w = corecap_model_window_ns(r->model);
	char label[400];

	for (size_t i = from; i < shown; i++) {
		const struct lock_row *row = &rows->v[i];
		const struct model_lock *l = row->members[0];
		bool futex = row->source == LOCK_SOURCE_FUTEX;
		const char *object;

		corecap_lock_row_label(row, label, sizeof(label));
		fprintf(out, "           ");
		corecap_name_put(out, label, LOCK_NAME_COLS);
		fprintf(out, " %10llu %12.1f %9.1f", (unsigned long long)row->contentions,
			row->wait_ns / 1e3, corecap_lock_row_avg_wait_ns(row) / 1e3);
		if (row->has_max_wait)
			fprintf(out, " %9.1f", row->max_wait_ns / 1e3);
		else
			fprintf(out, " %9s", "-");
		if (row->idle) {
			size_t thr = 0;

			for (size_t k = 0; k < row->n_members; k++)
				thr += row->members[k]->n_waiters;
			/* Re-locks found by their site have no threads of their own. */
			if (thr)
				fprintf(out, " %6zu", thr);
			else
				fprintf(out, " %6s", "-");
		} else {
			fprintf(out, " %6.1f", pct(futex ? row->busy_ns : row->hold_ns, w));
		}
		fprintf(out, " %*s  ", futex ? 17 : 9, corecap_lock_kind_name(row->kind));
		corecap_name_elide(row->site && row->site->symbol ? row->site->symbol : "-",
				   LOCK_SITE_COLS, label, sizeof(label));
		fprintf(out, "%s\n", label);
		if ((object = corecap_render_lock_object(r, row)))
			fprintf(out,
				"             a %s (its type and member, from DWARF at its top "
				"site)\n",
				object);
		if (row->family) {
			if (i - from < LOCK_LINES_SHOWN && row->site) {
				fprintf(out, "             * ");
				put_site_line(r, row->site->site,
					      row->site->symbol ? row->site->symbol : "?", out);
				fprintf(out, "\n");
			}
			members_line(row, out);
			continue;
		}
		if (l->has_stats)
			fprintf(out, "             %llu acquisitions\n",
				(unsigned long long)l->stats_acquisitions);
		for (size_t s = 0; s < l->n_sites && s < 3; s++) {
			const struct lock_site *st = &l->sites[s];

			fprintf(out, "             %s ", st == row->site ? "*" : " ");
			if (st == row->site && i - from < LOCK_LINES_SHOWN)
				put_site_line(r, st->site, st->symbol ? st->symbol : "?", out);
			else
				put_code(r, st->site, st->symbol ? st->symbol : "?", out);
			fprintf(out, ": %llu waits, %.1f us waited",
				(unsigned long long)st->contentions, st->wait_ns / 1e3);
			if (st->holds)
				fprintf(out, "; %llu holds, %.1f us held",
					(unsigned long long)st->holds, st->hold_ns / 1e3);
			fprintf(out, "%s", st->is_logging ? " (logging code)" : "");
			if (futex)
				fprintf(out, " (%llu sampled)",
					(unsigned long long)st->sampled_waits);
			fprintf(out, "\n");
		}
		if (futex && l->relock_waits)
			fprintf(out,
				"             %llu waits re-took the mutex right after a condition "
				"wait (hand-off)\n",
				(unsigned long long)l->relock_waits);
		if (futex)
			holders_line(r, l, out);
		if (l->n_stacks) {
			const struct lock_stack *st = &l->stacks[0];

			fprintf(out, "             top stack (%llu waits):",
				(unsigned long long)st->count);
			for (uint32_t k = 0; k < st->depth && k < 6; k++) {
				fputs(k ? " <- " : " ", out);
				put_code(r, st->frames[k],
					 corecap_render_frame_name(r, st->frames[k]), out);
			}
			fprintf(out, "\n");
		}
	}
}

/* One lock table: the shim's, or the futex words' (source: futex) after it. */
static int lock_table(const struct report *r, enum lock_source source, FILE *out)
{
	bool futex = source == LOCK_SOURCE_FUTEX;
	struct lock_rows rows;
	size_t shown, n_mutex, n_idle;

	if (corecap_render_lock_rows(r, source, &rows))
		return -ENOMEM;
	/* Mutexes alone rank as contention; the idle waits follow apart. */
	n_mutex = corecap_lock_rows_contended(&rows);
	n_idle = rows.n - n_mutex;
	shown = n_mutex < r->top_locks ? n_mutex : r->top_locks;
	if (!rows.n) {
		fprintf(out, "locks      %s\n\n",
			futex ? "source: futex: no futex wait slept in the window"
			      : "no contended or tracked lock");
	} else if (!n_mutex) {
		fprintf(out, "locks      source: futex: no mutex wait slept in the window\n\n");
	} else {
		lock_header(r, futex, false, out);
		lock_rows(r, &rows, 0, shown, out);
		if (n_mutex > shown)
			fprintf(out, "           ... %zu more %srows (--json lists all)\n",
				n_mutex - shown, futex ? "futex " : "");
		fprintf(out, "\n");
	}
	if (n_idle) {
		shown = n_idle < r->top_locks ? n_idle : r->top_locks;
		fprintf(out, "idle       waiting for work or a hand-off: condition and other futex "
			     "waits, and mutexes re-taken as a condition wait returns\n");
		lock_header(r, futex, true, out);
		lock_rows(r, &rows, n_mutex, n_mutex + shown, out);
		if (n_idle > shown)
			fprintf(out, "           ... %zu more idle rows (--json lists all)\n",
				n_idle - shown);
		fprintf(out, "\n");
	}
	corecap_lock_rows_release(&rows);
	return 0;
}

static int locks(const struct report *r, FILE *out)
{
	int ret = 0;

	if (!corecap_model_has_locks(r->model)) {
		fprintf(out, "locks      not measured (no trace, no shim counters, no kernel futex "
			     "events)\n\n");
		return 0;
	}
	/* Without the shim, the futex table alone. */
	if (r->model->src.trace || r->model->src.stats || r->model->locks.len)
		ret = lock_table(r, LOCK_SOURCE_SHIM, out);
	if (!ret && r->model->src.futex)
		ret = lock_table(r, LOCK_SOURCE_FUTEX, out);
	return ret;
}

/* One detail line: the largest entries, the rest summed. */
#define DETAIL_SHOWN 4

struct detail_entry {
	const char *label;
	uint64_t ns;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct detail_entry *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->label, y->label);
}

static void detail_line(const char *title, struct detail_entry *v, size_t n, double ops, FILE *out)
{
	uint64_t rest = 0;

	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_entry);
	fprintf(out, "             %s:", title);
	for (size_t i = 0; i < n; i++) {
		if (i < DETAIL_SHOWN)
			fprintf(out, "%s %s %.1f", i ? "," : "", v[i].label, v[i].ns / ops / 1e3);
		else
			rest += v[i].ns;
	}
	if (n > DETAIL_SHOWN)
		fprintf(out, ", %zu more %.1f", n - DETAIL_SHOWN, rest / ops / 1e3);
	fprintf(out, "\n");
}

static void op_detail(const struct report *r, const struct op_type *t, FILE *out)
{
	const struct model *m = r->model;
	size_t cap = m->locks.len + m->ops.n_phases + LOG__COUNT + 1, n = 0;
	struct detail_entry *v = calloc(cap, sizeof(*v));
	char(*labels)[200] = calloc(m->locks.len + 1, sizeof(*labels));
	double ops = (double)t->hist.count;
	uint64_t *ns;
	size_t k;

	if (!v || !labels)
		goto out;
	for (size_t i = 0; i < m->locks.len; i++) {
		/* The profiler's own locks have no row in the lock tables: none here either. */
		if (m->locks.all[i]->profiler ||
		    !(ns = corecap_u64map_find(&t->detail, OP_DETAIL_KEY(CAT_LOCK_WAIT, i))))
			continue;
		corecap_lock_label(m->locks.all[i], labels[i], sizeof(labels[i]));
		/* Locks of one name (one site) are one entry, as in the lock tables. */
		for (k = 0; k < n && strcmp(v[k].label, labels[i]) != 0; k++)
			;
		if (k < n)
			v[k].ns += *ns;
		else
			v[n++] = (struct detail_entry){labels[i], *ns};
	}
	detail_line("lock_wait", v, n, ops, out);
	n = 0;
	for (size_t p = 0; p < m->ops.n_phases; p++)
		if ((ns = corecap_u64map_find(&t->detail, OP_DETAIL_KEY(CAT_QUEUE, p))))
			v[n++] = (struct detail_entry){m->ops.phases[p], *ns};
	detail_line("queue after", v, n, ops, out);
	n = 0;
	for (int s = 0; s < LOG__COUNT; s++)
		if ((ns = corecap_u64map_find(&t->detail, OP_DETAIL_KEY(CAT_LOGGING, s))))
			v[n++] = (struct detail_entry){corecap_log_source_name(s), *ns};
	detail_line("logging", v, n, ops, out);
out:
	free(v);
	free(labels);
}

#define ANNOTATIONS_NOTE                                                                           \
	"the annotations' own split: 'cpu' is any time the op's thread was in no traced wait, so " \
	"it holds that thread's wait for a CPU (the path's runqueue); 'queue' is time no thread "  \
	"had the op, which the path follows into whoever held it up"

/* " cpu X logging Y ... runqueue Z" of a critical path, us per op of `ops`. */
static void cp_cats(const struct cp_type *t, uint64_t ops, FILE *out)
{
	for (uint32_t c = 0; c < CP__COUNT; c++)
		fprintf(out, " %s %.1f", corecap_cp_cat_name(c), t->ns[c] / (double)ops / 1e3);
}

/* Whom its runqueue waited behind, on one line (none without runqueue). */
static void cp_behind_line(const struct critical_path *cp, const struct cp_type *t, FILE *out)
{
	uint64_t v[CPB__COUNT];

	if (!t->ns[CP_RUNQUEUE])
		return;
	corecap_critical_path_runq_behind(cp, t, v);
	fprintf(out, "             runqueue behind (us/op):");
	for (uint32_t b = 0; b < CPB__COUNT; b++)
		fprintf(out, "%s %s %.1f", b ? "," : "", corecap_cp_behind_label(b),
			v[b] / (double)t->count / 1e3);
	fprintf(out, "\n");
}

/* Its top (thread, category) pairs on one line, the profiler's left out. */
static void cp_top_line(const struct critical_path *cp, const struct profiler_own *prof,
			const struct cp_type *t, FILE *out)
{
	struct cp_top v[5];
	size_t n = corecap_profiler_path_top(prof, t, v, 5);

	for (size_t i = 0; i < n; i++) {
		const char *name = corecap_critical_path_thread_name(cp, v[i].tid);

		fprintf(out, "%s%s %d %s %.1f", i ? ", " : "             on the path (us/op): ",
			name		? name
			: v[i].tid == 0 ? "idle"
					: "tid",
			(int)v[i].tid, corecap_cp_cat_name(v[i].cat),
			v[i].ns / (double)t->count / 1e3);
	}
	if (n)
		fprintf(out, "\n");
}

/* An op type's critical path beside its breakdown (model/critical_path.h). */
static void critical_path_lines(const struct report *r, uint32_t type, FILE *out)
{
	const struct cp_type *t = corecap_critical_path_type(r->critical_path, type);

	if (!t)
		return;
	fprintf(out, "             critical path (kernel events, us per op):");
	cp_cats(t, t->count, out);
	fprintf(out, "\n");
	cp_behind_line(r->critical_path, t, out);
	cp_top_line(r->critical_path, r->profiler, t, out);
}

/* An OpTracker type's critical path, then per phase (model/ceph_critical.h). */
static void ceph_critical_lines(const struct ceph_critical *cc, const struct profiler_own *prof,
				size_t ti, FILE *out)
{
	const struct cp_type *t = corecap_ceph_critical_type(cc, ti, 0);
	const struct ceph_op_type *ty = &cc->ceph->types[ti];

	if (!t)
		return;
	fprintf(out, "             critical path of %llu ops (arrival to reply, %.1f):",
		(unsigned long long)t->count, t->latency_ns / (double)t->count / 1e3);
	cp_cats(t, t->count, out);
	fprintf(out, "\n");
	cp_behind_line(cc->cp, t, out);
	cp_top_line(cc->cp, prof, t, out);
	for (size_t k = 0; k < ty->n_phases; k++) {
		const struct cp_type *pt = corecap_ceph_critical_type(cc, ti, k + 1);

		if (!pt)
			continue;
		fprintf(out, "               in %s:", ty->phases[k].name);
		cp_cats(pt, t->count, out);
		fprintf(out, "\n");
	}
}

/* The wait-for graph between pools, heaviest edges first (at most 10). */
static void waitfor_lines(const struct report *r, FILE *out)
{
	const struct critical_path *cp = r->critical_path;
	struct cp_edge *v;
	struct cp_knot *k;
	size_t n, nk, nw;
	uint64_t idle = 0;

	if (!cp || corecap_critical_path_waitfor(cp, &v, &n))
		return;
	nw = corecap_cp_edges_waiting(v, n);
	if (n)
		fprintf(out, "wait-for   (pool slept until a thread of pool woke it: ms in the "
			     "window, us per op; lock: a mutex, contention, first; cond: waiting "
			     "for work or a hand-off)\n");
	for (size_t i = nw; i < n; i++)
		idle += v[i].ns;
	for (size_t i = 0; i < nw && i < 10; i++)
		fprintf(out, "           %s -> %s (%s): %.1f ms, %.1f us/op, %llu wakes\n",
			v[i].from, v[i].to, corecap_cp_wait_kind_name(v[i].kind), v[i].ns / 1e6,
			cp->ops_ended ? (double)v[i].ns / (double)cp->ops_ended / 1e3 : 0.0,
			(unsigned long long)v[i].wakes);
	if (idle)
		fprintf(out,
			"           asleep at the window's end, woken by nothing in it: %.1f ms\n",
			idle / 1e6);
	if (!corecap_critical_path_knots(v, n, &k, &nk)) {
		for (size_t i = 0; i < nk; i++) {
			fprintf(out, "           knot (pools waiting for each other only):");
			for (size_t p = 0; p < k[i].n_pools; p++)
				fprintf(out, "%s %s", p ? " +" : "", k[i].pools[p]);
			fprintf(out, ", %.1f ms\n", k[i].ns / 1e6);
		}
		free(k);
	}
	if (n)
		fprintf(out, "\n");
	free(v);
}

static void ops(const struct report *r, FILE *out)
{
	const struct op_table *t = &r->model->ops;

	if (!corecap_model_has_ops(r->model)) {
		fprintf(out, "ops        not measured (no trace)\n\n");
		return;
	}
	if (!t->finished) {
		fprintf(out, "ops        none traced (the daemon has no corecap_op annotations, or "
			     "none completed in the window; a daemon without annotations run with "
			     "CORECAP_NET_EVENTS=on gets its ops detected from its sockets)\n\n");
		return;
	}
	fprintf(out, "ops        (per op, us; the categories sum to the mean latency)\n");
	if (r->manifest && r->manifest->bench.has_lat)
		fprintf(out,
			"           daemon side: from an op's begin (its request read) to its end "
			"(its "
			"reply sent); the benchmark's %.3f ms avg also holds what that leaves out: "
			"the client, the network both ways, the messenger until the request is "
			"read\n",
			r->manifest->bench.lat_avg_s * 1e3);
	if (r->net_ops)
		fprintf(out,
			"           detected from socket I/O (no annotations used): %llu requests "
			"read, %llu replies written, %llu writes outside an op, %llu handed to "
			"another thread\n",
			(unsigned long long)r->net_ops->ops_begun,
			(unsigned long long)r->net_ops->ops_ended,
			(unsigned long long)r->net_ops->writes_without_op,
			(unsigned long long)r->net_ops->handoffs);
	if (r->net_ops && r->net_ops->framed_ops)
		fprintf(out,
			"           XRootD framing: %llu requests framed, %llu replies ended by "
			"their "
			"final response, %llu partial responses (kXR_oksofar)\n",
			(unsigned long long)r->net_ops->framed_ops,
			(unsigned long long)r->net_ops->replies_by_frame,
			(unsigned long long)r->net_ops->partial_responses);
	for (size_t i = 0; i < t->n_types; i++) {
		const struct op_type *ty = &t->types[i];
		double n = (double)ty->hist.count, avg;
		bool has_path;

		if (!ty->hist.count)
			continue;
		avg = (double)ty->hist.sum_ns / n / 1e3;
		fprintf(out,
			"           %s: %llu ops, latency avg %.1f, p50 %.1f, p99 %.1f, p99.9 "
			"%.1f\n",
			ty->name, (unsigned long long)ty->hist.count, avg,
			corecap_latency_hist_quantile(&ty->hist, 0.5) / 1e3,
			corecap_latency_hist_quantile(&ty->hist, 0.99) / 1e3,
			corecap_latency_hist_quantile(&ty->hist, 0.999) / 1e3);
		/*
		 * With kernel events the critical path leads: it tells running
		 * from waiting for a CPU and follows the op through the threads
		 * that held it up; the annotations' split follows, said as such.
		 */
		has_path = corecap_critical_path_type(r->critical_path, (uint32_t)i) != NULL;
		critical_path_lines(r, (uint32_t)i, out);
		if (has_path)
			fprintf(out, "             annotations (%s):\n              ",
				ANNOTATIONS_NOTE);
		else
			fprintf(out, "            ");
		for (int c = 0; c < CAT__COUNT; c++)
			fprintf(out, " %s %.1f (%.0f%%)", corecap_op_cat_name(c),
				ty->cat_ns[c] / n / 1e3, pct(ty->cat_ns[c], ty->hist.sum_ns));
		fprintf(out, "\n");
		op_detail(r, ty, out);
	}
	fprintf(out, "\n");
	waitfor_lines(r, out);
}

static void quality(const struct report *r, FILE *out)
{
	if (!r->n_warnings) {
		fprintf(out, "data       complete: no events lost, every source present\n");
		return;
	}
	fprintf(out, "data quality\n");
	for (size_t i = 0; i < r->n_warnings; i++)
		fprintf(out, "  ! %s\n", r->warnings[i]);
}

/* One op type's categories from wall-clock samples (model/ceph_sampled.h),
 * then per phase the part of them spent in it. */
/* " cpu X logging Y ..." of one array of STACK__COUNT times (ns), in us. */
static void print_cats(FILE *out, const uint64_t *cat_ns)
{
	for (int c = STACK_CPU; c < STACK__COUNT; c++)
		fprintf(out, " %s %.1f", corecap_stack_cat_name((enum stack_cat)c),
			cat_ns[c] / 1e3);
}

static void sampled_type(const struct ceph_op_type *t, const struct ceph_sampled_type *ty,
			 FILE *out)
{
	fprintf(out, "             categories of %.1f:", ty->lat_avg_ns / 1e3);
	print_cats(out, ty->cat_ns);
	fprintf(out, " queue %.1f (%.0f samples%s)\n", ty->queue_ns / 1e3, ty->samples,
		ty->scaled ? "; scaled down: threads worked in parallel" : "");
	for (size_t k = 0; k < ty->n_phases && k < t->n_phases; k++) {
		const uint64_t *pc = &ty->phase_cat_ns[k * STACK__COUNT];
		uint64_t sum = 0;

		for (int c = STACK_CPU; c < STACK__COUNT; c++)
			sum += pc[c];
		if (sum < 50) /* nothing sampled there (under 0.05 us) */
			continue;
		fprintf(out, "               in %s (%.1f):", t->phases[k].name,
			t->phases[k].total_ns / (double)t->count / 1e3);
		print_cats(out, pc);
		fprintf(out, "\n");
	}
}

/* RUN/ceph/: the OSD's own view of its ops, beside corecap's. */
static void ceph(const struct report *r, FILE *out)
{
	const struct ceph_files *c = r->ceph;
	static const char *const keys[] = {"op_latency",   "op_process_latency",
					   "op_w_latency", "op_w_process_latency",
					   "op_r_latency", "op_r_process_latency"};

	if (!c || !(c->has_optracker || c->has_perf))
		return;
	if (c->has_optracker) {
		if (c->drain.drained)
			fprintf(out,
				"ceph ops   %zu ops drained from the OSD's OpTracker in %.0f "
				"slices "
				"over %.0f%% of the window (dump_historic_ops, the longest %.1f "
				"ms; us per op; a phase runs from its event to the next)%s\n",
				c->n_ops, c->drain.slices,
				c->drain.window_ms > 0
					? 100 * c->drain.sliced_ms / c->drain.window_ms
					: 0,
				c->drain.longest_dump_ms,
				c->drain.ops_kept < c->drain.ops_seen ? ": a uniform sample" : "");
		else
			fprintf(out,
				"ceph ops   %zu ops in the OSD's OpTracker history "
				"(dump_historic_ops; us per op; a phase runs from its event to "
				"the next)\n",
				c->n_ops);
		{
			const struct ceph_perf_counter *all = corecap_ceph_files_perf(c, "op");

			if (all && !c->drain.drained && c->n_ops >= c->history_size)
				fprintf(out,
					"           partial: the window had %.0f ops; past its "
					"size "
					"the OSD keeps the slowest, so these figures lean slow\n",
					all->count_delta);
		}
		if (r->ceph_sampled)
			fprintf(out,
				"           categories (us per op, arrival to reply) from "
				"wall-clock "
				"samples of op-path threads, one per %.0f us: %llu in ops, %llu "
				"outside, %llu idle\n",
				r->ceph_sampled->period_ns / 1e3,
				(unsigned long long)r->ceph_sampled->samples_in_ops,
				(unsigned long long)r->ceph_sampled->samples_outside_ops,
				(unsigned long long)r->ceph_sampled->samples_idle);
		else if (r->ceph_sampled_why_not)
			fprintf(out, "           no categories: %s\n", r->ceph_sampled_why_not);
		for (size_t i = 0; i < c->n_types; i++) {
			const struct ceph_op_type *t = &c->types[i];
			/* With kernel events the critical path leads (docs/methodology.md). */
			bool cp_leads = r->ceph_critical &&
					corecap_ceph_critical_type(r->ceph_critical, i, 0);

			fprintf(out,
				"           %s: %zu ops over %.2f s, latency avg %.1f, p50 %.1f, "
				"p99 %.1f; arrival to reply avg %.1f\n",
				t->name, t->count, t->span_ns / 1e9, t->lat_avg_ns / 1e3,
				t->lat_p50_ns / 1e3, t->lat_p99_ns / 1e3, t->reply_avg_ns / 1e3);
			if (cp_leads) {
				ceph_critical_lines(r->ceph_critical, r->profiler, i, out);
				fprintf(out,
					"             phases (%s):", CORECAP_CEPH_PHASES_DIFFER);
			} else {
				fprintf(out, "            ");
			}
			for (size_t k = 0; k < t->n_phases; k++)
				fprintf(out, " %s %.1f", t->phases[k].name,
					t->phases[k].total_ns / (double)t->count / 1e3);
			fprintf(out, "\n");
			if (r->ceph_sampled && r->ceph_sampled->types[i].ops)
				sampled_type(t, &r->ceph_sampled->types[i], out);
		}
	}
	if (c->has_perf) {
		const struct ceph_perf_counter *w = corecap_ceph_files_perf(c, "op_w"),
					       *rd = corecap_ceph_files_perf(c, "op_r");

		fprintf(out,
			"ceph perf  over the window (perf dump, end minus begin): op_w %.0f, op_r "
			"%.0f\n",
			w ? w->count_delta : 0, rd ? rd->count_delta : 0);
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			const struct ceph_perf_counter *p = corecap_ceph_files_perf(c, keys[i]);

			if (p && p->is_avg && p->count_delta > 0)
				fprintf(out, "           %s: %.0f ops, avg %.1f us\n", keys[i],
					p->count_delta, p->sum_s_delta / p->count_delta * 1e6);
		}
	}
	corecap_ceph_disk_text(r, out);
	fprintf(out, "\n");
}

/* The shim's I/O per class (classes with activity only), per benchmark op too. */
static void io_classes(const struct report *r, FILE *out)
{
	const struct run_manifest *mf = r->manifest;
	double ops = mf && mf->bench.has_ops && mf->bench.ops > 0 ? mf->bench.ops : 0;
	bool any = false;

	if (!r->shim_io)
		return;
	for (int c = 0; c < CORECAP_IO_CLASSES; c++) {
		const struct shim_io_delta *d = &r->shim_io[c];

		if (!d->calls && !d->aio_done)
			continue;
		if (!any)
			fprintf(out,
				"\nI/O by class (shim counters over the window%s)\n"
				"  %-8s %9s %10s %9s %10s %9s %11s %10s %10s %10s\n",
				ops ? "; per op: per benchmark op" : "", "class", "calls", "io_ms",
				"syncs", "sync_ms", "aio", "aio_mean_us", "io_us/op", "sync_us/op",
				"aio_us/op");
		any = true;
		fprintf(out, "  %-8s %9llu %10.3f %9llu %10.3f %9llu %11.1f",
			corecap_io_class_name((unsigned)c), (unsigned long long)d->calls,
			(double)d->ns / 1e6, (unsigned long long)d->sync_calls,
			(double)d->sync_ns / 1e6, (unsigned long long)d->aio_done,
			d->aio_done ? (double)d->aio_ns / (double)d->aio_done / 1e3 : 0.0);
		if (ops)
			fprintf(out, " %10.1f %10.1f %10.1f\n", (double)d->ns / ops / 1e3,
				(double)d->sync_ns / ops / 1e3, (double)d->aio_ns / ops / 1e3);
		else
			fprintf(out, " %10s %10s %10s\n", "-", "-", "-");
	}
}

int corecap_render_text(const struct report *r, FILE *out)
{
	header(r, out);
	diagnosis(r, out);
	pools(r, out);
	threads(r, out);
	kernel_states(r, out);
	io_classes(r, out);
	if (locks(r, out))
		return -ENOMEM;
	ops(r, out);
	ceph(r, out);
	quality(r, out);
	return ferror(out) ? -EIO : 0;
}
