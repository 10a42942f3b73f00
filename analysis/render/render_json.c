/*
 * The --json rendering: one JSON object with the stable keys documented
 * in docs/report-json.md. Keys appear in a fixed order; numbers are
 * rounded (times in us to 3 decimals, fractions to 4) so that a golden
 * file diffs cleanly.
 */
#include "ceph_disk.h"
#include "render_common.h"
#include "render_profiler.h"
#include "render_diagnosis.h"
#include "render_projection.h"
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <corecap/run_format.h>

static json_object *jnum(double v, int decimals)
{
	return corecap_render_json_num(v, decimals);
}

static json_object *ju64(uint64_t v)
{
	return json_object_new_uint64(v);
}

static json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static void put(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

static json_object *daemon_obj(const struct report *r)
{
	const struct run_manifest *mf = r->manifest;
	json_object *o = json_object_new_object();
	uint64_t w = corecap_model_window_ns(r->model);

	put(o, "pid", mf && mf->pid >= 0 ? json_object_new_int(mf->pid) : NULL);
	put(o, "comm", jstr(mf ? mf->comm : NULL));
	put(o, "cores_used",
	    r->pools->n_sampled && w ? jnum((double)r->pools->cpu_ns / (double)w, 3) : NULL);
	put(o, "cores_available",
	    r->cores_available ? json_object_new_int(r->cores_available) : NULL);
	put(o, "threads", json_object_new_int((int)r->model->threads.len));
	return o;
}

static json_object *window_obj(const struct report *r)
{
	json_object *o = json_object_new_object();

	put(o, "start_ns", ju64(r->model->ws));
	put(o, "end_ns", ju64(r->model->we));
	put(o, "duration_s", jnum(corecap_model_window_ns(r->model) / 1e9, 6));
	put(o, "source", jstr(r->window_from_manifest ? "manifest" : "trace"));
	return o;
}

static json_object *benchmark_obj(const struct report *r)
{
	const struct run_manifest *mf = r->manifest;
	json_object *o = json_object_new_object();
	uint64_t w = corecap_model_window_ns(r->model);

	put(o, "command", mf && mf->bench_command ? json_object_get(mf->bench_command) : NULL);
	put(o, "exit_status",
	    mf && mf->bench_exit_status >= 0 ? json_object_new_int(mf->bench_exit_status) : NULL);
	put(o, "summary", mf && mf->summary ? json_object_get(mf->summary) : NULL);
	put(o, "traced_ops_per_s",
	    w && corecap_model_has_ops(r->model)
		    ? jnum((double)r->model->ops.finished * 1e9 / (double)w, 1)
		    : NULL);
	return o;
}

/*
 * The shim's I/O per class over the window, and per benchmark op when the
 * benchmark said how many it made; null without shim stats.
 */
static json_object *io_classes_arr(const struct report *r)
{
	const struct run_manifest *mf = r->manifest;
	double ops = mf && mf->bench.has_ops && mf->bench.ops > 0 ? mf->bench.ops : 0;
	json_object *a;

	if (!r->shim_io)
		return NULL;
	a = json_object_new_array();
	for (int c = 0; c < CORECAP_IO_CLASSES; c++) {
		const struct shim_io_delta *d = &r->shim_io[c];
		json_object *o = json_object_new_object(), *per = NULL;

		put(o, "class", jstr(corecap_io_class_name((unsigned)c)));
		put(o, "calls", ju64(d->calls));
		put(o, "io_ns", ju64(d->ns));
		put(o, "bytes", ju64(d->bytes));
		put(o, "sync_calls", ju64(d->sync_calls));
		put(o, "sync_ns", ju64(d->sync_ns));
		put(o, "aio_done", ju64(d->aio_done));
		put(o, "aio_ns", ju64(d->aio_ns));
		put(o, "aio_bytes", ju64(d->aio_bytes));
		if (ops) {
			per = json_object_new_object();
			put(per, "io_us", jnum((double)d->ns / ops / 1e3, 3));
			put(per, "sync_us", jnum((double)d->sync_ns / ops / 1e3, 3));
			put(per, "aio_us", jnum((double)d->aio_ns / ops / 1e3, 3));
			put(per, "aio_done", jnum((double)d->aio_done / ops, 3));
		}
		put(o, "per_bench_op", per);
		json_object_array_add(a, o);
	}
	return a;
}

/*
 * The ceiling object is the diagnosis' detail: its kind, name, utilization
 * and headroom are the diagnosis' (so that no key contradicts it), then
 * the candidates and the projection.
 */
static json_object *ceiling_obj(const struct report *r)
{
	const struct ceiling *c = r->ceiling;
	const struct diagnosis *d = r->diagnosis;
	json_object *o = json_object_new_object(), *cands = json_object_new_array(), *m;
	size_t order[CEILING_CANDIDATES], n;

	put(o, "kind", jstr(corecap_diag_kind_name(d->kind)));
	put(o, "name", d->name[0] ? jstr(d->name) : NULL);
	put(o, "source",
	    c->kind == CEIL_LOCK && d->kind == DIAG_LOCK && strcmp(c->name, d->name) == 0
		    ? jstr(((const struct model_lock *)c->top[0].ref)->source == LOCK_SOURCE_FUTEX
				   ? "futex"
				   : "shim")
		    : NULL);
	put(o, "utilization", d->running >= 0 ? jnum(d->running, 4) : NULL);
	put(o, "headroom", d->headroom > 0 ? jnum(d->headroom, 3) : NULL);
	n = corecap_diagnosis_candidates_order(c, r->projection, corecap_model_window_ns(r->model),
					       order);
	for (size_t i = 0; i < n; i++) {
		const struct ceiling_candidate *t = &c->running[order[i]];
		json_object *cd = json_object_new_object();
		double run, wait;

		corecap_diagnosis_candidate_shares(t, r->projection,
						   corecap_model_window_ns(r->model), &run, &wait);
		put(cd, "kind", jstr(corecap_ceiling_kind_name(t->kind)));
		put(cd, "name", jstr(t->name));
		put(cd, "running", jnum(run, 4));
		put(cd, "waiting_cpu", wait >= 0 ? jnum(wait, 4) : NULL);
		json_object_array_add(cands, cd);
	}
	put(o, "candidates", cands);
	corecap_render_projection_json(r->projection, o);
	if (json_object_object_get_ex(o, "on_this_machine", &m))
		put(m, "cores_bind", json_object_new_boolean(d->kind == DIAG_CORES));
	return o;
}

static json_object *hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_object_new_string(buf);
}

/* A lock's waiters or holders, most waits first: [{tid, name, waits, wait_ns}]. */
static int cmp_tid(const void *a, const void *b)
{
	const struct lock_tid *x = a, *y = b;

	if (x->waits != y->waits)
		return x->waits > y->waits ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static json_object *tids_arr(const struct report *r, const struct lock_tid *v, size_t n)
{
	json_object *a = json_object_new_array();
	struct lock_tid *sorted = malloc((n ? n : 1) * sizeof(*sorted));

	if (!sorted)
		return a;
	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_tid);
	for (size_t i = 0; i < n; i++) {
		const struct model_thread *th =
			corecap_thread_table_find(&r->model->threads, sorted[i].tid);
		json_object *o = json_object_new_object();

		put(o, "tid", json_object_new_int(sorted[i].tid));
		put(o, "name", th && th->name[0] ? jstr(th->name) : NULL);
		put(o, "waits", ju64(sorted[i].waits));
		put(o, "wait_ns", ju64(sorted[i].wait_ns));
		json_object_array_add(a, o);
	}
	free(sorted);
	return a;
}

/* A return address's inline chain: [{function, file, line, inlined}], innermost first. */
static json_object *sources(const struct report *r, uint64_t addr)
{
	struct report_frame f[REPORT_MAX_FRAMES];
	size_t n = corecap_render_frame_sources(r, addr, f, REPORT_MAX_FRAMES);
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		json_object *fo = json_object_new_object();

		put(fo, "function", jstr(f[i].function));
		put(fo, "file", jstr(f[i].file));
		put(fo, "line", f[i].line ? ju64(f[i].line) : NULL);
		put(fo, "inlined", json_object_new_boolean(f[i].inlined));
		json_object_array_add(a, fo);
	}
	return a;
}

static json_object *lock_obj(const struct report *r, const struct model_lock *l)
{
	const struct lock_site *top = corecap_lock_top_site(l);
	json_object *o = json_object_new_object(), *sites = json_object_new_array(),
		    *stacks = json_object_new_array();
	uint64_t w = corecap_model_window_ns(r->model), hold = corecap_lock_hold_ns(l),
		 holds = corecap_lock_holds(l);
	bool ev = corecap_lock_has_events(r->model, l), futex = l->source == LOCK_SOURCE_FUTEX;
	char label[CORECAP_LOCK_LABEL_MAX];

	corecap_lock_label(l, label, sizeof(label));
	put(o, "name", jstr(label));
	put(o, "address", hex(l->addr));
	put(o, "site", top ? hex(top->site) : NULL);
	put(o, "symbol", top ? jstr(top->symbol) : NULL);
	put(o, "kind", jstr(corecap_lock_kind_name(l->kind)));
	put(o, "source", jstr(futex ? "futex" : "shim"));
	put(o, "acquisitions", l->has_stats ? ju64(l->stats_acquisitions) : NULL);
	put(o, "contentions", ju64(corecap_lock_contentions(l)));
	put(o, "wait_ns", ju64(corecap_lock_wait_ns(l)));
	if (ev)
		put(o, "avg_wait_ns", ju64(l->contentions ? l->wait_ns / l->contentions : 0));
	else
		put(o, "avg_wait_ns",
		    l->stats_contentions ? ju64(l->stats_wait_ns / l->stats_contentions) : NULL);
	put(o, "max_wait_ns", ev ? ju64(l->max_wait_ns) : NULL);
	put(o, "logging_wait_ns", ev ? ju64(l->logging_wait_ns) : NULL);
	/* holds and hold_ns from one source (hold_source): their ratio is the mean hold. */
	put(o, "holds", ev || hold ? ju64(holds) : NULL);
	put(o, "hold_ns", ev || hold ? ju64(hold) : NULL);
	put(o, "avg_hold_ns", (ev || hold) && holds ? ju64(hold / holds) : NULL);
	put(o, "hold_events", ev ? ju64(l->holds) : NULL);
	put(o, "hold_util", w && (ev || hold) ? jnum((double)hold / (double)w, 4) : NULL);
	put(o, "waited_ns", ev ? ju64(corecap_lock_waited_ns(l)) : NULL);
	/* An idle word keeps no server busy: no utilization. */
	put(o, "busy_util",
	    w && !l->idle ? jnum((double)corecap_lock_busy_ns(l) / (double)w, 4) : NULL);
	put(o, "wait_kind", futex ? jstr(l->idle ? "idle" : "mutex") : NULL);
	put(o, "relock_waits", l->idle ? ju64(l->relock_waits) : NULL);
	put(o, "hold_source",
	    jstr(l->has_stats && l->stats_hold_ns ? "stats"
		 : l->holds			  ? (futex ? "futex" : "events")
						  : NULL));
	/* Who waited and who handed the lock over: futex events only. */
	put(o, "waiters", futex ? tids_arr(r, l->waiters, l->n_waiters) : NULL);
	put(o, "holders", futex ? tids_arr(r, l->holders, l->n_holders) : NULL);
	put(o, "holder_unknown", futex ? ju64(l->holder_unknown) : NULL);
	for (size_t i = 0; i < l->n_sites; i++) {
		const struct lock_site *s = &l->sites[i];
		json_object *so = json_object_new_object();
		uint64_t acqs;

		put(so, "site", hex(s->site));
		put(so, "symbol", jstr(s->symbol));
		put(so, "source", sources(r, s->site));
		put(so, "logging", json_object_new_boolean(s->is_logging));
		put(so, "acquisitions",
		    corecap_lock_table_site_acquisitions(&r->model->locks, s->site, &acqs)
			    ? ju64(acqs)
			    : NULL);
		put(so, "contentions", ju64(s->contentions));
		put(so, "wait_ns", ju64(s->wait_ns));
		put(so, "max_wait_ns", ju64(s->max_wait_ns));
		put(so, "holds", ju64(s->holds));
		put(so, "hold_ns", ju64(s->hold_ns));
		put(so, "sampled_waits", futex ? ju64(s->sampled_waits) : NULL);
		json_object_array_add(sites, so);
	}
	put(o, "sites", sites);
	for (size_t i = 0; i < l->n_stacks; i++) {
		const struct lock_stack *st = &l->stacks[i];
		json_object *so = json_object_new_object(), *frames = json_object_new_array(),
			    *srcs = json_object_new_array();

		put(so, "count", ju64(st->count));
		put(so, "wait_ns", ju64(st->wait_ns));
		for (uint32_t k = 0; k < st->depth; k++) {
			json_object_array_add(frames,
					      jstr(corecap_render_frame_name(r, st->frames[k])));
			json_object_array_add(srcs, sources(r, st->frames[k]));
		}
		put(so, "frames", frames);
		put(so, "sources", srcs);
		json_object_array_add(stacks, so);
	}
	put(o, "stacks", stacks);
	put(o, "stacks_over_cap", ju64(l->stacks_over_cap));
	return o;
}

/* A row of the lock table: one lock, or a family (several heap locks at one site). */
static json_object *lock_row_obj(const struct report *r, const struct lock_row *row)
{
	json_object *o = json_object_new_object(), *members = json_object_new_array();
	uint64_t w = corecap_model_window_ns(r->model);
	const char *object;
	char label[400];

	corecap_lock_row_label(row, label, sizeof(label));
	put(o, "name", jstr(label));
	put(o, "family", json_object_new_boolean(row->family));
	for (size_t i = 0; i < row->n_members; i++)
		json_object_array_add(members, hex(row->members[i]->addr));
	put(o, "members", members);
	put(o, "source", jstr(row->source == LOCK_SOURCE_FUTEX ? "futex" : "shim"));
	put(o, "kind", jstr(corecap_lock_kind_name(row->kind)));
	put(o, "site", row->site ? hex(row->site->site) : NULL);
	put(o, "symbol", row->site ? jstr(row->site->symbol) : NULL);
	/* Only where DWARF tells it: runs without the daemon's DWARF read as before. */
	if ((object = corecap_render_lock_object(r, row)))
		put(o, "object", jstr(object));
	put(o, "contentions", ju64(row->contentions));
	put(o, "wait_ns", ju64(row->wait_ns));
	put(o, "avg_wait_ns", row->contentions ? ju64(corecap_lock_row_avg_wait_ns(row)) : NULL);
	put(o, "max_wait_ns", row->has_max_wait ? ju64(row->max_wait_ns) : NULL);
	put(o, "holds", ju64(row->holds));
	put(o, "hold_ns", ju64(row->hold_ns));
	put(o, "avg_hold_ns", row->holds ? ju64(row->hold_ns / row->holds) : NULL);
	put(o, "hold_util", w ? jnum((double)row->hold_ns / (double)w, 4) : NULL);
	put(o, "busy_util", w && !row->idle ? jnum((double)row->busy_ns / (double)w, 4) : NULL);
	put(o, "wait_kind",
	    row->source == LOCK_SOURCE_FUTEX ? jstr(row->idle ? "idle" : "mutex") : NULL);
	return o;
}

/*
 * Every lock (locks: [lock_obj]) and the table's rows (lock_rows), in row
 * order; the futex words' idle waits apart (idle_waits, idle_wait_rows):
 * they are not contention (model_lock.idle).
 */
static int locks_arrs(const struct report *r, json_object **locks, json_object **rows_out,
		      json_object **idle, json_object **idle_rows)
{
	static const enum lock_source sources[] = {LOCK_SOURCE_SHIM, LOCK_SOURCE_FUTEX};
	struct lock_rows rows;

	*locks = *rows_out = *idle = *idle_rows = NULL;
	if (!corecap_model_has_locks(r->model))
		return 0;
	*locks = json_object_new_array();
	*rows_out = json_object_new_array();
	*idle = json_object_new_array();
	*idle_rows = json_object_new_array();
	for (size_t s = 0; s < 2; s++) {
		if (corecap_render_lock_rows(r, sources[s], &rows))
			return -ENOMEM;
		for (size_t i = 0; i < rows.n; i++) {
			bool in_idle = rows.v[i].idle;

			json_object_array_add(in_idle ? *idle_rows : *rows_out,
					      lock_row_obj(r, &rows.v[i]));
			for (size_t k = 0; k < rows.v[i].n_members; k++)
				json_object_array_add(in_idle ? *idle : *locks,
						      lock_obj(r, rows.v[i].members[k]));
		}
		corecap_lock_rows_release(&rows);
	}
	return 0;
}

/* The lock wait of every lock named `name` (locks of one site share it), in ns per op type. */
static double lock_detail_ns(const struct report *r, const struct op_type *t, const char *name)
{
	const struct model *m = r->model;
	char label[CORECAP_LOCK_LABEL_MAX];
	double sum = 0;

	for (size_t i = 0; i < m->locks.len; i++) {
		uint64_t *v = corecap_u64map_find(&t->detail, OP_DETAIL_KEY(CAT_LOCK_WAIT, i));

		if (!v || m->locks.all[i]->profiler)
			continue;
		corecap_lock_label(m->locks.all[i], label, sizeof(label));
		if (strcmp(label, name) == 0)
			sum += (double)*v;
	}
	return sum;
}

static json_object *detail_obj(const struct report *r, const struct op_type *t)
{
	json_object *o = json_object_new_object(), *locks = json_object_new_object(),
		    *io = json_object_new_object(), *queue = json_object_new_object(),
		    *logging = json_object_new_object();
	const struct model *m = r->model;
	double n = (double)t->hist.count;
	char label[CORECAP_LOCK_LABEL_MAX];

	/* Fixed order: walk the ids, not the hash map. The profiler's own
	 * locks have no row in the lock tables: none here either. */
	for (size_t i = 0; i < m->locks.len; i++) {
		uint64_t *v = corecap_u64map_find(&t->detail, OP_DETAIL_KEY(CAT_LOCK_WAIT, i));

		if (!v || m->locks.all[i]->profiler)
			continue;
		corecap_lock_label(m->locks.all[i], label, sizeof(label));
		put(locks, label, jnum(lock_detail_ns(r, t, label) / n / 1e3, 3));
	}
	for (int c = 0; c < CORECAP_IO_CLASSES; c++) {
		uint64_t *v = corecap_u64map_find(&t->detail, OP_DETAIL_KEY(CAT_IO, c));

		if (v)
			put(io, corecap_io_class_name(c), jnum((double)*v / n / 1e3, 3));
	}
	for (size_t p = 0; p < m->ops.n_phases; p++) {
		uint64_t *v = corecap_u64map_find(&t->detail, OP_DETAIL_KEY(CAT_QUEUE, p));

		if (v)
			put(queue, m->ops.phases[p], jnum((double)*v / n / 1e3, 3));
	}
	for (int s = 0; s < LOG__COUNT; s++) {
		uint64_t *v = corecap_u64map_find(&t->detail, OP_DETAIL_KEY(CAT_LOGGING, s));

		if (v)
			put(logging, corecap_log_source_name(s), jnum((double)*v / n / 1e3, 3));
	}
	put(o, "lock_wait", locks);
	put(o, "io", io);
	put(o, "queue", queue);
	put(o, "logging", logging);
	if (t->detail_over_cap_ns)
		put(o, "unlabelled", jnum((double)t->detail_over_cap_ns / n / 1e3, 3));
	return o;
}

/* A critical path's categories (model/critical_path.h), us per op of `ops`. */
static json_object *cp_cats_obj(const struct cp_type *t, uint64_t ops)
{
	json_object *bd = json_object_new_object();

	for (uint32_t c = 0; c < CP__COUNT; c++)
		put(bd, corecap_cp_cat_name(c), jnum((double)t->ns[c] / (double)ops / 1e3, 3));
	return bd;
}

/* Whom its runqueue waited behind, us per op of `ops` (summing to its runqueue). */
static json_object *cp_behind_obj(const struct critical_path *cp, const struct cp_type *t,
				  uint64_t ops)
{
	json_object *o = json_object_new_object();
	uint64_t v[CPB__COUNT];

	corecap_critical_path_runq_behind(cp, t, v);
	for (uint32_t b = 0; b < CPB__COUNT; b++)
		put(o, corecap_cp_behind_name(b), jnum((double)v[b] / (double)ops / 1e3, 3));
	return o;
}

/* Its top 5 (thread, category) pairs, us per op of `ops`, the profiler's left out. */
static json_object *cp_top_arr(const struct critical_path *cp, const struct profiler_own *prof,
			       const struct cp_type *t, uint64_t ops)
{
	json_object *top = json_object_new_array();
	struct cp_top v[5];
	size_t n = corecap_profiler_path_top(prof, t, v, 5);

	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_new_object();

		put(e, "tid", json_object_new_int(v[i].tid));
		put(e, "thread", jstr(corecap_critical_path_thread_name(cp, v[i].tid)));
		put(e, "category", jstr(corecap_cp_cat_name(v[i].cat)));
		put(e, "us_per_op", jnum((double)v[i].ns / (double)ops / 1e3, 3));
		json_object_array_add(top, e);
	}
	return top;
}

/* One op type's critical path (model/critical_path.h): its categories per
 * op and its top (thread, category) pairs; null without kernel records. */
static void put_critical_path(const struct report *r, json_object *to, uint32_t type)
{
	const struct cp_type *t = corecap_critical_path_type(r->critical_path, type);

	/* Which split leads (docs/report-json.md), and what the other counts differently. */
	put(to, "split_lead", jstr(t ? "critical_path" : "annotations"));
	put(to, "annotations_differ",
	    t ? jstr("the annotations' own split: 'cpu' is any time the op's thread was in no "
		     "traced wait, so it holds that thread's wait for a CPU (the path's runqueue); "
		     "'queue' is time no thread had the op, which the path follows into whoever "
		     "held it up")
	      : NULL);
	if (!t) {
		put(to, "critical_path_us", NULL);
		put(to, "critical_path_top", NULL);
		put(to, "critical_path_runqueue_behind_us", NULL);
		return;
	}
	put(to, "critical_path_us", cp_cats_obj(t, t->count));
	put(to, "critical_path_runqueue_behind_us", cp_behind_obj(r->critical_path, t, t->count));
	/* Where the annotations see the path's waits for a CPU otherwise. */
	put(to, "critical_path_runqueue_logging_us",
	    jnum((double)t->runq_logging_ns / (double)t->count / 1e3, 3));
	put(to, "critical_path_runqueue_in_log_us",
	    jnum((double)t->runq_in_log_ns / (double)t->count / 1e3, 3));
	put(to, "critical_path_top", cp_top_arr(r->critical_path, r->profiler, t, t->count));
}

/* The wait-for graph between pools (model/critical_path.h); null without
 * kernel records and a trace. */
static json_object *waitfor_obj(const struct report *r)
{
	const struct critical_path *cp = r->critical_path;
	json_object *o, *edges;
	struct cp_edge *v;
	struct cp_knot *k;
	size_t n, nk;

	if (!cp || corecap_critical_path_waitfor(cp, &v, &n))
		return NULL;
	o = json_object_new_object();
	edges = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_new_object();

		put(e, "from", jstr(v[i].from));
		put(e, "to", jstr(v[i].to));
		put(e, "kind", jstr(corecap_cp_wait_kind_name(v[i].kind)));
		put(e, "ms", jnum(v[i].ns / 1e6, 3));
		put(e, "wakes", ju64(v[i].wakes));
		put(e, "per_op_us",
		    cp->ops_ended ? jnum((double)v[i].ns / (double)cp->ops_ended / 1e3, 3) : NULL);
		json_object_array_add(edges, e);
	}
	put(o, "edges", edges);
	if (!corecap_critical_path_knots(v, n, &k, &nk)) {
		json_object *knots = json_object_new_array();

		for (size_t i = 0; i < nk; i++) {
			json_object *e = json_object_new_object(), *pools = json_object_new_array();

			for (size_t p = 0; p < k[i].n_pools; p++)
				json_object_array_add(pools, jstr(k[i].pools[p]));
			put(e, "pools", pools);
			put(e, "ms", jnum(k[i].ns / 1e6, 3));
			json_object_array_add(knots, e);
		}
		put(o, "knots", knots);
		free(k);
	}
	free(v);
	return o;
}

static json_object *ops_obj(const struct report *r)
{
	const struct model *m = r->model;
	const struct op_table *ops = &m->ops;
	json_object *o = json_object_new_object(), *by = json_object_new_object(),
		    *ex = json_object_new_object(), *cons = json_object_new_object();
	uint64_t w = corecap_model_window_ns(m);

	if (!corecap_model_has_ops(m)) {
		/* No op source: every op figure is unknown, not zero. */
		static const char *const keys[] = {"count", "ops_per_s", "by_type", "excluded",
						   "conservation"};

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			put(o, keys[i], NULL);
		json_object_put(by);
		json_object_put(ex);
		json_object_put(cons);
		return o;
	}
	put(o, "count", ju64(ops->finished));
	put(o, "ops_per_s", w ? jnum((double)ops->finished * 1e9 / (double)w, 1) : NULL);
	put(o, "source", json_object_new_string(r->net_ops ? "detected" : "annotated"));
	if (r->net_ops) {
		const struct net_ops *d = r->net_ops;
		json_object *det = json_object_new_object();

		put(det, "net_reads", ju64(d->net_reads));
		put(det, "net_writes", ju64(d->net_writes));
		put(det, "ops_begun", ju64(d->ops_begun));
		put(det, "ops_ended", ju64(d->ops_ended));
		put(det, "writes_without_op", ju64(d->writes_without_op));
		put(det, "reply_writes", ju64(d->reply_writes));
		put(det, "replies_by_hold", ju64(d->replies_by_hold));
		put(det, "handoffs", ju64(d->handoffs));
		put(det, "late_replies", ju64(d->late_replies));
		put(det, "framed_ops", ju64(d->framed_ops));
		put(det, "replies_by_frame", ju64(d->replies_by_frame));
		put(det, "partial_responses", ju64(d->partial_responses));
		put(det, "frames_lost", ju64(d->frames_lost));
		put(det, "replies_cut", ju64(d->replies_cut));
		put(det, "handshake_rereads", ju64(d->handshake_rereads));
		put(det, "annotated_events_ignored", ju64(d->annotated_dropped));
		put(o, "detection", det);
	}
	for (size_t i = 0; i < ops->n_types; i++) {
		const struct op_type *t = &ops->types[i];
		json_object *to, *lat, *bd;
		double n = (double)t->hist.count;

		if (!t->hist.count)
			continue;
		to = json_object_new_object();
		lat = json_object_new_object();
		bd = json_object_new_object();
		put(to, "count", ju64(t->hist.count));
		put(lat, "avg", jnum((double)t->hist.sum_ns / n / 1e3, 3));
		put(lat, "p50", jnum(corecap_latency_hist_quantile(&t->hist, 0.50) / 1e3, 3));
		put(lat, "p99", jnum(corecap_latency_hist_quantile(&t->hist, 0.99) / 1e3, 3));
		put(lat, "p999", jnum(corecap_latency_hist_quantile(&t->hist, 0.999) / 1e3, 3));
		put(lat, "min", jnum(t->hist.min_ns / 1e3, 3));
		put(lat, "max", jnum(t->hist.max_ns / 1e3, 3));
		put(to, "latency_us", lat);
		for (int c = 0; c < CAT__COUNT; c++)
			put(bd, corecap_op_cat_name(c), jnum((double)t->cat_ns[c] / n / 1e3, 3));
		put(to, "breakdown_us", bd);
		put_critical_path(r, to, (uint32_t)i);
		put(to, "detail_us", detail_obj(r, t));
		put(by, t->name, to);
	}
	put(o, "by_type", by);
	put(ex, "tainted_by_loss", ju64(m->q.ops_tainted));
	put(ex, "unfinished", ju64(m->q.ops_unfinished));
	put(ex, "begun_before_trace", ju64(m->q.ops_without_begin));
	put(ex, "outside_window", ju64(m->q.ops_outside_window));
	put(ex, "replaced", ju64(m->q.ops_replaced));
	put(o, "excluded", ex);
	put(cons, "checked", ju64(ops->checked));
	put(cons, "violations", ju64(ops->violations));
	put(cons, "max_error_ns", ju64(ops->max_err_ns));
	put(o, "conservation", cons);
	if (r->critical_path) {
		const struct critical_path *cp = r->critical_path;

		cons = json_object_new_object();
		put(cons, "checked", ju64(cp->checked));
		put(cons, "violations", ju64(cp->violations));
		put(cons, "max_error_ns", ju64(cp->max_err_ns));
		put(cons, "ops_without_path", ju64(cp->ops_without_path));
		put(cons, "inconsistent", ju64(corecap_critical_path_inconsistent(cp)));
		put(o, "critical_path_conservation", cons);
	} else {
		put(o, "critical_path_conservation", NULL);
	}
	return o;
}

/* waits: whether lock, cond, io and logging were measured (else null, and so is other). */
static json_object *states_obj(uint64_t cap, uint64_t cpu, uint64_t runq, bool waits, uint64_t lock,
			       uint64_t cond, uint64_t io, uint64_t logging)
{
	json_object *o;
	double c = (double)cap, sum;

	if (!cap)
		return NULL;
	o = json_object_new_object();
	sum = (double)(cpu + runq + lock + cond + io + logging) / c;
	put(o, "cpu", jnum(cpu / c, 4));
	put(o, "runq", jnum(runq / c, 4));
	put(o, "lock_wait", waits ? jnum(lock / c, 4) : NULL);
	put(o, "cond_wait", waits ? jnum(cond / c, 4) : NULL);
	put(o, "io", waits ? jnum(io / c, 4) : NULL);
	put(o, "logging", waits ? jnum(logging / c, 4) : NULL);
	put(o, "other", waits ? jnum(sum < 1 ? 1 - sum : 0, 4) : NULL);
	return o;
}

/* Kernel states as fractions of a span: running, runnable, futex, blocked (sum 1). */
static json_object *kstates_obj(uint64_t span, uint64_t running, uint64_t runnable, uint64_t futex,
				uint64_t blocked)
{
	json_object *o = json_object_new_object();
	double c = (double)span;

	put(o, "running", jnum(running / c, 4));
	put(o, "runnable", jnum(runnable / c, 4));
	put(o, "futex", jnum(futex / c, 4));
	put(o, "blocked", jnum(blocked / c, 4));
	return o;
}

static json_object *pools_arr(const struct report *r)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < r->pools->len; i++) {
		const struct model_pool *p = &r->pools->pools[i];
		json_object *o = json_object_new_object();

		put(o, "name", jstr(p->name));
		put(o, "threads", json_object_new_int((int)p->n_threads));
		put(o, "cpu_util", p->n_sampled ? jnum(p->cpu_util, 4) : NULL);
		put(o, "wait_cpu_util", p->n_sampled ? jnum(p->busy_util - p->cpu_util, 4) : NULL);
		put(o, "busy_util", p->n_sampled ? jnum(p->busy_util, 4) : NULL);
		put(o, "cpu_ns", ju64(p->cpu_ns));
		put(o, "states",
		    states_obj(p->span_ns, p->cpu_ns, p->runq_ns,
			       corecap_model_has_thread_waits(r->model), p->lock_wait_ns,
			       p->cond_wait_ns, corecap_io_sum(p->io_ns), p->logging_ns));
		put(o, "kernel_states",
		    p->n_kstates == p->n_threads && p->k_span_ns
			    ? kstates_obj(p->k_span_ns, p->cpu_ns, p->runq_ns, p->k_futex_ns,
					  p->k_blocked_ns)
			    : NULL);
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *threads_arr(const struct report *r)
{
	json_object *a = json_object_new_array();
	const struct model_thread **v;
	uint64_t w = corecap_model_window_ns(r->model);
	size_t n = corecap_render_sorted_threads(r, &v);
	bool waits = corecap_model_has_thread_waits(r->model);

	for (size_t i = 0; i < n; i++) {
		const struct model_thread *th = v[i];
		json_object *o = json_object_new_object(), *io = NULL;
		struct thread_waits tw;

		put(o, "tid", json_object_new_int(th->tid));
		put(o, "name", jstr(th->name));
		put(o, "pool", jstr(th->pool));
		put(o, "cpu_util",
		    th->has_samples ? jnum(corecap_thread_cpu_util(th, w), 4) : NULL);
		put(o, "wait_cpu_util",
		    th->has_samples
			    ? jnum(corecap_thread_busy_util(th, w) - corecap_thread_cpu_util(th, w),
				   4)
			    : NULL);
		put(o, "busy_util",
		    th->has_samples ? jnum(corecap_thread_busy_util(th, w), 4) : NULL);
		put(o, "cpu_ns", th->has_samples ? ju64(th->cpu_ns) : NULL);
		put(o, "runq_ns", th->has_samples && th->has_runq ? ju64(th->runq_ns) : NULL);
		corecap_thread_waits(th, &tw);
		put(o, "lock_wait_ns", waits ? ju64(tw.lock_ns) : NULL);
		put(o, "cond_wait_ns", waits ? ju64(tw.cond_ns) : NULL);
		put(o, "logging_ns", waits ? ju64(tw.logging_ns) : NULL);
		if (waits) {
			io = json_object_new_object();
			for (int c = 0; c < CORECAP_IO_CLASSES; c++)
				put(io, corecap_io_class_name(c), ju64(tw.io_ns[c]));
		}
		put(o, "io_ns", io);
		put(o, "contentions", waits ? ju64(th->contentions) : NULL);
		put(o, "events", r->model->src.trace ? ju64(th->events) : NULL);
		put(o, "states_source",
		    jstr(th->has_kstates   ? "kernel"
			 : th->has_samples ? "proc"
					   : NULL));
		if (th->has_kstates) {
			json_object *k = json_object_new_object();

			put(k, "running_ns", ju64(th->k_running_ns));
			put(k, "runnable_ns", ju64(th->k_runnable_ns));
			put(k, "futex_ns", ju64(th->k_futex_ns));
			put(k, "blocked_ns", ju64(th->k_blocked_ns));
			put(k, "span_ns", ju64(th->span_ns));
			put(o, "kernel_states", k);
		} else {
			put(o, "kernel_states", NULL);
		}
		json_object_array_add(a, o);
	}
	free(v);
	return a;
}

/* What RUN/kernel/ held and how the futex waits paired. */
static json_object *kernel_obj(const struct kernel_quality *k)
{
	json_object *o = json_object_new_object(), *f = json_object_new_object();

	put(o, "records", ju64(k->records));
	put(o, "lost", ju64(k->lost));
	put(o, "complete", json_object_new_boolean(!k->lost));
	put(o, "switches", ju64(k->switches));
	put(o, "wakings", ju64(k->wakings));
	put(o, "wakes_daemon", ju64(k->wakes_daemon));
	put(o, "wakes_cross_cpu", ju64(k->wakes_cross_cpu));
	put(o, "futex_calls", ju64(k->futex_calls));
	put(o, "stacks", k->has_stacks ? ju64(k->stacks) : NULL);
	put(o, "threads", ju64(k->threads));
	put(o, "inconsistent_transitions", ju64(k->inconsistent));
	put(o, "lost_switch_outs", ju64(k->lost_switch_outs));
	put(o, "lost_switch_ins", ju64(k->lost_switch_ins));
	put(o, "threads_schedstat_disagree", ju64(k->schedstat_disagree));
	put(o, "unknown_records", ju64(k->unknown_records));
	put(o, "trailing_bytes", ju64(k->trailing_bytes));
	put(f, "waits", ju64(k->futex.waits));
	put(f, "waits_no_sleep", ju64(k->futex.waits_no_sleep));
	put(f, "waits_timed_out", ju64(k->futex.waits_timed_out));
	put(f, "waits_with_stack", ju64(k->futex.waits_with_stack));
	put(f, "waits_idle", ju64(k->futex.waits_idle));
	put(f, "waits_relock", ju64(k->futex.waits_relock));
	put(f, "wakes", ju64(k->futex.wakes));
	put(f, "holder_from_waking", ju64(k->futex.holder_from_waking));
	put(f, "holder_from_wake", ju64(k->futex.holder_from_wake));
	put(f, "holder_unknown", ju64(k->futex.holder_unknown));
	put(f, "exits_unpaired", ju64(k->futex.exits_unpaired));
	put(f, "enters_unpaired", ju64(k->futex.enters_unpaired));
	put(o, "futex", f);
	return o;
}

static json_object *quality_obj(const struct report *r)
{
	const struct model_quality *q = &r->model->q;
	const struct run_manifest *mf = r->manifest;
	json_object *o = json_object_new_object(), *miss = json_object_new_array(),
		    *warn = json_object_new_array(), *seq = json_object_new_object();
	bool tr = r->model->src.trace;

	put(o, "partial", json_object_new_boolean(!mf || mf->partial || r->incomplete_reason));
	put(o, "partial_reason",
	    jstr(!mf		      ? "no " CORECAP_RUN_MANIFEST
		 : mf->partial_reason ? mf->partial_reason
				      : r->incomplete_reason));
	for (size_t i = 0; i < r->n_missing; i++)
		json_object_array_add(miss, jstr(r->missing[i]));
	put(o, "missing_sources", miss);
	put(o, "traces", json_object_new_int((int)r->n_traces));
	/* The trace's own counts: unknown without a trace. */
	put(o, "events", tr ? ju64(q->events) : NULL);
	put(o, "events_other_processes", tr ? ju64(q->events_other_pid) : NULL);
	put(o, "events_without_thread", tr ? ju64(q->events_no_tid) : NULL);
	put(o, "events_other_providers", tr ? ju64(r->foreign_events) : NULL);
	put(o, "discarded_events", tr ? ju64(q->discarded_events) : NULL);
	put(o, "discarded_events_unknown_count", tr ? ju64(q->discarded_unknown_msgs) : NULL);
	put(o, "discarded_packets", tr ? ju64(q->discarded_packets) : NULL);
	put(o, "loss_messages", tr ? ju64(q->loss_msgs) : NULL);
	put(o, "ops_excluded", tr ? ju64(q->ops_tainted + q->ops_outside_window) : NULL);
	put(seq, "enter_twice", ju64(q->enter_twice));
	put(seq, "exit_unmatched", ju64(q->exit_unmatched));
	put(seq, "exit_unknown_op", ju64(q->exit_unknown_op));
	put(seq, "implicit_exits", ju64(q->implicit_exits));
	put(seq, "log_exit_unmatched", ju64(q->log_exit_unmatched));
	put(seq, "log_calls_closed_by_loss", ju64(q->log_depth_reset));
	put(seq, "ops_ended_elsewhere", ju64(q->ops_ended_elsewhere));
	if (tr) {
		put(o, "sequence", seq);
	} else {
		json_object_put(seq);
		put(o, "sequence", NULL);
	}
	put(o, "kernel", r->kernel ? kernel_obj(r->kernel) : NULL);
	for (size_t i = 0; i < r->n_warnings; i++)
		json_object_array_add(warn, jstr(r->warnings[i]));
	put(o, "warnings", warn);
	return o;
}

/* A type's categories from wall-clock samples, us per op (model/ceph_sampled.h). */
/* "cpu_us", "logging_us", ... of one array of STACK__COUNT times (ns). */
static void put_cats(json_object *o, const uint64_t *cat_ns)
{
	for (int c = STACK_CPU; c < STACK__COUNT; c++) {
		char key[32];

		snprintf(key, sizeof(key), "%s_us", corecap_stack_cat_name((enum stack_cat)c));
		put(o, key, jnum(cat_ns[c] / 1e3, 1));
	}
}

static json_object *sampled_type_obj(const struct ceph_op_type *t,
				     const struct ceph_sampled_type *ty)
{
	json_object *o = json_object_new_object(), *phases = json_object_new_array();

	put(o, "lat_avg_us", jnum(ty->lat_avg_ns / 1e3, 1));
	put_cats(o, ty->cat_ns);
	put(o, "queue_us", jnum(ty->queue_ns / 1e3, 1));
	put(o, "samples", jnum(ty->samples, 1));
	put(o, "scaled", json_object_new_boolean(ty->scaled));
	for (size_t k = 0; k < ty->n_phases && k < t->n_phases; k++) {
		json_object *p = json_object_new_object();

		put(p, "name", jstr(t->phases[k].name));
		put_cats(p, &ty->phase_cat_ns[k * STACK__COUNT]);
		json_object_array_add(phases, p);
	}
	put(o, "phases", phases);
	return o;
}

static json_object *sampled_obj(const struct ceph_sampled *s)
{
	json_object *o = json_object_new_object();

	put(o, "period_us", jnum(s->period_ns / 1e3, 1));
	put(o, "samples_in_ops", ju64(s->samples_in_ops));
	put(o, "samples_outside_ops", ju64(s->samples_outside_ops));
	put(o, "samples_idle", ju64(s->samples_idle));
	return o;
}

/*
 * An OpTracker type's critical path (model/ceph_critical.h): its ops with
 * a path, their mean latency, categories and top pairs per op, and per
 * phase the same per op of the type (a phase's ops: those that had it, with
 * a path); null without kernel records or none of its ops in the window.
 */
static json_object *ceph_critical_obj(const struct ceph_critical *cc,
				      const struct profiler_own *prof, size_t ti)
{
	const struct cp_type *t = corecap_ceph_critical_type(cc, ti, 0);
	json_object *o, *phases;

	if (!t)
		return NULL;
	o = json_object_new_object();
	phases = json_object_new_array();
	put(o, "ops", ju64(t->count));
	put(o, "lat_avg_us", jnum((double)t->latency_ns / (double)t->count / 1e3, 3));
	put(o, "us", cp_cats_obj(t, t->count));
	put(o, "runqueue_behind_us", cp_behind_obj(cc->cp, t, t->count));
	put(o, "top", cp_top_arr(cc->cp, prof, t, t->count));
	for (size_t k = 0; k < cc->ceph->types[ti].n_phases; k++) {
		const struct cp_type *pt = corecap_ceph_critical_type(cc, ti, k + 1);
		json_object *p = json_object_new_object();

		put(p, "name", jstr(cc->ceph->types[ti].phases[k].name));
		put(p, "ops", ju64(pt ? pt->count : 0));
		put(p, "us", pt ? cp_cats_obj(pt, t->count) : NULL);
		json_object_array_add(phases, p);
	}
	put(o, "phases", phases);
	return o;
}

/* The OpTracker ops' critical paths: how many had one, how many not. */
static json_object *ceph_critical_summary(const struct ceph_critical *cc)
{
	json_object *o = json_object_new_object();

	put(o, "ops_in_window", ju64(cc->ops));
	put(o, "ops_outside_window", ju64(cc->ops_out));
	put(o, "ends_without_thread", ju64(cc->unpicked));
	put(o, "logging_from_samples", json_object_new_boolean(cc->log_share));
	put(o, "logging_from_samples_us",
	    cc->ops ? jnum((double)cc->log_share_ns / (double)cc->ops / 1e3, 3) : NULL);
	if (cc->cp) {
		/* Every op's and phase's path against its latency, trace or none. */
		json_object *cons = json_object_new_object();

		put(cons, "checked", ju64(cc->cp->checked));
		put(cons, "violations", ju64(cc->cp->violations));
		put(cons, "max_error_ns", ju64(cc->cp->max_err_ns));
		put(o, "conservation", cons);
	}
	return o;
}

/* RUN/ceph/: the OSD's OpTracker history and perf counters (times in us). */
static json_object *ceph_obj(const struct ceph_files *c, const struct ceph_sampled *s,
			     const char *s_why_not, const struct ceph_critical *cc,
			     const struct profiler_own *prof)
{
	json_object *o = json_object_new_object(), *ot = NULL, *perf = NULL;

	if (c->has_optracker) {
		json_object *types = json_object_new_array();

		const struct ceph_perf_counter *all = corecap_ceph_files_perf(c, "op");

		ot = json_object_new_object();
		put(ot, "ops", ju64(c->n_ops));
		/* Past its size the OSD keeps the slowest ops: a partial history leans slow. */
		put(ot, "window_ops", all ? jnum(all->count_delta, 0) : NULL);
		put(ot, "complete", json_object_new_boolean(corecap_ceph_files_complete(c)));
		if (c->drain.drained) {
			json_object *dr = json_object_new_object();

			put(dr, "ops_seen", jnum(c->drain.ops_seen, 0));
			put(dr, "ops_kept", jnum(c->drain.ops_kept, 0));
			put(dr, "slices", jnum(c->drain.slices, 0));
			put(dr, "sliced_share",
			    c->drain.window_ms > 0
				    ? jnum(c->drain.sliced_ms / c->drain.window_ms, 3)
				    : NULL);
			put(dr, "longest_dump_ms", jnum(c->drain.longest_dump_ms, 3));
			put(dr, "stopped", json_object_new_boolean(c->drain.stopped));
			put(ot, "drain", dr);
		} else {
			put(ot, "drain", NULL);
		}
		for (size_t i = 0; i < c->n_types; i++) {
			const struct ceph_op_type *t = &c->types[i];
			json_object *to = json_object_new_object(), *ph = json_object_new_array();
			uint64_t sum = 0;

			for (size_t k = 0; k < t->n_phases; k++)
				sum += t->phases[k].total_ns;
			put(to, "type", jstr(t->name));
			put(to, "count", ju64(t->count));
			put(to, "lat_avg_us", jnum(t->lat_avg_ns / 1e3, 1));
			put(to, "lat_p50_us", jnum(t->lat_p50_ns / 1e3, 1));
			put(to, "lat_p99_us", jnum(t->lat_p99_ns / 1e3, 1));
			put(to, "reply_avg_us", jnum(t->reply_avg_ns / 1e3, 1));
			put(to, "span_s", jnum(t->span_ns / 1e9, 6));
			for (size_t k = 0; k < t->n_phases; k++) {
				json_object *p = json_object_new_object();

				put(p, "name", jstr(t->phases[k].name));
				put(p, "avg_us",
				    jnum(t->phases[k].total_ns / (double)t->count / 1e3, 1));
				put(p, "share",
				    sum ? jnum(t->phases[k].total_ns / (double)sum, 4) : NULL);
				json_object_array_add(ph, p);
			}
			put(to, "phases", ph);
			if (s && s->types[i].ops)
				put(to, "categories", sampled_type_obj(t, &s->types[i]));
			put(to, "critical_path", ceph_critical_obj(cc, prof, i));
			/* Which split leads (docs/report-json.md), as ops.by_type's. */
			put(to, "split_lead",
			    jstr(corecap_ceph_critical_type(cc, i, 0) ? "critical_path"
								      : "phases"));
			put(to, "phases_differ",
			    corecap_ceph_critical_type(cc, i, 0) ? jstr(CORECAP_CEPH_PHASES_DIFFER)
								 : NULL);
			json_object_array_add(types, to);
		}
		put(ot, "types", types);
		put(ot, "sampled", s ? sampled_obj(s) : NULL);
		put(ot, "critical_path", cc ? ceph_critical_summary(cc) : NULL);
		if (!s && s_why_not)
			put(ot, "sampled_unavailable", jstr(s_why_not));
	}
	if (c->has_perf) {
		perf = json_object_new_object();
		for (size_t i = 0; i < c->n_perf; i++) {
			const struct ceph_perf_counter *p = &c->perf[i];
			json_object *po = json_object_new_object();

			put(po, "count", jnum(p->count_delta, 0));
			if (p->is_avg) {
				put(po, "sum_s", jnum(p->sum_s_delta, 9));
				put(po, "avg_us",
				    p->count_delta > 0
					    ? jnum(p->sum_s_delta / p->count_delta * 1e6, 1)
					    : NULL);
			}
			put(perf, p->name, po);
		}
	}
	put(o, "optracker", ot);
	put(o, "perf", perf);
	return o;
}

json_object *corecap_render_json_object(const struct report *r, int *ret)
{
	json_object *root, *locks, *lock_rows, *idle, *idle_rows;

	*ret = locks_arrs(r, &locks, &lock_rows, &idle, &idle_rows);
	if (*ret) {
		json_object_put(locks);
		json_object_put(lock_rows);
		json_object_put(idle);
		json_object_put(idle_rows);
		return NULL;
	}
	root = json_object_new_object();
	put(root, "format", jstr("corecap-report"));
	put(root, "version", json_object_new_int(1));
	put(root, "run", jstr(r->run_dir));
	put(root, "daemon", daemon_obj(r));
	put(root, "window", window_obj(r));
	put(root, "benchmark", benchmark_obj(r));
	put(root, "diagnosis", corecap_render_diagnosis_json(r->diagnosis));
	put(root, "ceiling", ceiling_obj(r));
	put(root, "locks", locks);
	put(root, "lock_sort", jstr(corecap_lock_sort_name(r->lock_sort)));
	put(root, "lock_rows", lock_rows);
	put(root, "idle_waits", idle);
	put(root, "idle_wait_rows", idle_rows);
	put(root, "ops", ops_obj(r));
	put(root, "waitfor", waitfor_obj(r));
	put(root, "pools", pools_arr(r));
	put(root, "profiler", corecap_render_profiler_json(r));
	put(root, "threads", threads_arr(r));
	put(root, "io_classes", io_classes_arr(r));
	if (r->ceph && (r->ceph->has_optracker || r->ceph->has_perf))
		put(root, "ceph",
		    ceph_obj(r->ceph, r->ceph_sampled, r->ceph_sampled_why_not, r->ceph_critical,
			     r->profiler));
	put(root, "quality", quality_obj(r));
	corecap_ceph_disk_json_put(r, root);
	return root;
}

int corecap_render_json(const struct report *r, FILE *out)
{
	int ret;
	json_object *root = corecap_render_json_object(r, &ret);

	if (!root)
		return ret;
	return corecap_render_json_out(root, 0, out);
}
