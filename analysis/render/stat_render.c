/*
 * stat_render: `corecap stat`'s shim view of one interval as text (a
 * table each for locks, sites and threads, redrawn in place on a
 * terminal) or as one JSON object per line (stat_render.h).
 */
#include "stat_render.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "stat_view.h"

static const char *kind_name(uint32_t k, bool lock)
{
	static const char *const names[] = {"mutex", "rwlock_rd", "rwlock_wr", "spin", "cond"};

	if (lock && k == CORECAP_KIND_RWLOCK_WR)
		return "rwlock";
	return k < CORECAP_KIND_COUNT ? names[k] : "?";
}

/* s cut to at most w columns by eliding its middle ("ab...yz"), into dst. */
static const char *elide(const char *s, size_t w, char *dst, size_t cap)
{
	size_t n = strlen(s), head, tail;

	if (n <= w || w < 8 || w + 1 > cap)
		return s;
	head = (w - 3) / 2;
	tail = w - 3 - head;
	memcpy(dst, s, head);
	memcpy(dst + head, "...", 3);
	memcpy(dst + head + 3, s + n - tail, tail);
	dst[w] = '\0';
	return dst;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static bool row_active(const struct lock_row *r)
{
	return r->contentions || r->wait_ns || r->hold_ns || corecap_stat_row_acquisitions(r);
}

/* Where the row's locks were first contended; 0 when the shim saw no contention. */
static uint64_t row_first_site(const struct lock_row *r)
{
	return r->site ? r->site->site : 0;
}

/* Percent of span, or "-" when the figure is unknown, into buf. */
static const char *pct_or_dash(bool has, uint64_t part, double span, char *buf, size_t cap)
{
	if (!has)
		return "-";
	snprintf(buf, cap, "%.1f", 100.0 * (double)part / span);
	return buf;
}

static double per_s(uint64_t n, uint64_t interval_ns)
{
	return interval_ns ? (double)n * 1e9 / (double)interval_ns : 0.0;
}

/*
 * The op line: the rate where the daemon's annotations count ops, else
 * the rate of its replies (ops detected from its sockets), else which
 * reason it is (no annotation and no reply counter, a shim without the
 * counters), so that a missing rate is never mistaken for an idle daemon.
 */
static void print_ops(const struct stat_interval *iv)
{
	if (iv->annotated)
		printf("ops/s: %.1f (%" PRIu64 " ops ended in the interval, %" PRIu64
		       " since the shim started)\n",
		       per_s(iv->ops, iv->interval_ns), iv->ops, iv->ops_total);
	else if (iv->replies_counted)
		printf("ops/s: %.1f detected (%" PRIu64 " replies in the interval, %" PRIu64
		       " since the shim started: a socket write after a read on the same "
		       "connection; the daemon calls no corecap_op_end annotation)\n",
		       per_s(iv->replies, iv->interval_ns), iv->replies, iv->replies_total);
	else if (!iv->ops_counted)
		printf("ops/s: not counted: the daemon's shim writes layout version %u, which has "
		       "no op counter (restart the daemon under this corecap's shim)\n",
		       (unsigned)iv->layout_version);
	else
		printf("ops/s: not annotated: the daemon calls no corecap_op_end annotation "
		       "(corecap/annotate.h), and its shim writes layout version %u, which has no "
		       "reply counter; ops detected from socket I/O (CORECAP_NET_EVENTS=on) are "
		       "counted by record and report\n",
		       (unsigned)iv->layout_version);
}

void corecap_stat_render_text(const struct stat_view_of *o, const struct stat_interval *iv,
			      struct symbolizer *sym, const struct corecap_stats_header *h,
			      const struct stat_live *lv)
{
	double iv_ms = ms(iv->interval_ns);
	char e1[64], e2[64];
	int shown;

	if (lv->redraw)
		fputs("\033[H\033[J", stdout);
	printf("corecap stat: PID %d (%s), interval %.3f s%s\n", (int)o->pid, o->comm, iv_ms / 1e3,
	       h->flags & CORECAP_STATS_F_EXITING ? ", the process is exiting" : "");
	if (lv->redraw) {
		char el[32];

		printf("elapsed %s, threads sorted by %s%s\n",
		       corecap_stat_elapsed(lv->elapsed_ns, el, sizeof(el)),
		       corecap_stat_sort_name(lv->sort),
		       lv->interactive ? "; keys: s or >/< sort, q quit" : "");
	}
	printf("process: lock wait %.1f ms in %" PRIu64
	       " contentions, cond wait %.1f ms in %" PRIu64 " waits, I/O %.1f ms in %" PRIu64
	       " calls (thread time, summed over threads)\n",
	       ms(iv->lock_wait_ns), iv->contentions, ms(iv->cond_wait_ns), iv->cond_waits,
	       ms(iv->io_ns), iv->io_calls);
	print_ops(iv);
	if (h->sites_dropped || h->locks_dropped || h->threads_dropped)
		printf("shim tables full since start: %" PRIu64 " waits without a site, %" PRIu64
		       " locks not tracked, %" PRIu64 " threads without a slot\n",
		       h->sites_dropped, h->locks_dropped, h->threads_dropped);

	/* LOCKS: how many locks a row is (a family of heap locks at one site); never in the name.
	 */
	printf("\n%-44s %5s %-9s %10s %10s %9s %6s  %s\n", "LOCK", "LOCKS", "KIND", "CONTENDED",
	       "WAIT ms", "AVG us", "HOLD%", "FIRST CONTENDED AT");
	shown = 0;
	for (size_t i = 0; i < iv->lock_rows.n && shown < o->top; i++) {
		const struct lock_row *r = &iv->lock_rows.v[i];
		char label[CORECAP_LOCK_LABEL_MAX];

		if (!row_active(r))
			continue;
		shown++;
		corecap_lock_row_label(r, label, sizeof(label));
		printf("%-44s %5zu %-9s %10" PRIu64 " %10.1f %9.1f %6.1f  %s\n",
		       elide(label, 44, e1, sizeof(e1)), r->n_members, kind_name(r->kind, true),
		       r->contentions, ms(r->wait_ns),
		       (double)corecap_lock_row_avg_wait_ns(r) / 1e3,
		       iv->interval_ns ? 100.0 * (double)r->hold_ns / (double)iv->interval_ns : 0.0,
		       elide(corecap_symbolizer_name(sym, row_first_site(r), true), 48, e2,
			     sizeof(e2)));
	}
	if (!shown)
		printf("(no lock was contended or held in the interval)\n");

	printf("\n%-56s %-9s %10s %10s %9s\n", "SITE (where threads waited)", "KIND", "WAITS",
	       "WAIT ms", "AVG us");
	shown = 0;
	for (size_t i = 0; i < iv->n_sites && shown < o->top; i++) {
		const struct stat_site_row *r = &iv->sites[i];

		if (!r->contentions && !r->wait_ns)
			continue;
		shown++;
		printf("%-56s %-9s %10" PRIu64 " %10.1f %9.1f\n",
		       elide(corecap_symbolizer_name(sym, r->addr, true), 56, e1, sizeof(e1)),
		       kind_name(r->kind, false), r->contentions, ms(r->wait_ns),
		       r->contentions ? (double)r->wait_ns / (double)r->contentions / 1e3 : 0.0);
	}
	if (!shown)
		printf("(no thread waited at a lock or condition in the interval)\n");

	printf("\n%8s %-16s %6s %6s %9s %7s %9s %7s %9s %7s\n", "TID", "THREAD", "CPU%", "RUNQ%",
	       "LOCK ms", "LOCK%", "COND ms", "COND%", "IO ms", "IO%");
	shown = 0;
	for (size_t i = 0; i < iv->n_threads && shown < o->top; i++) {
		const struct stat_thread_row *t = &iv->threads[i];
		double span = iv->interval_ns ? (double)iv->interval_ns : 1.0;
		char c1[16], c2[16];

		shown++;
		printf("%8d %-16s %6s %6s %9.1f %7.1f %9.1f %7.1f %9.1f %7.1f%s\n", t->tid, t->name,
		       pct_or_dash(t->has_cpu, t->cpu_ns, span, c1, sizeof(c1)),
		       pct_or_dash(t->has_runq, t->runq_ns, span, c2, sizeof(c2)),
		       ms(t->lock_wait_ns), 100.0 * (double)t->lock_wait_ns / span,
		       ms(t->cond_wait_ns), 100.0 * (double)t->cond_wait_ns / span, ms(t->io_ns),
		       100.0 * (double)t->io_ns / span, t->live ? "" : " (exited)");
	}
	if (iv->n_threads > (size_t)shown)
		printf("(%zu more threads)\n", iv->n_threads - (size_t)shown);
	printf("\nCPU%%, RUNQ%%: share of the interval the thread ran on a CPU, was runnable\n"
	       "waiting for one (the kernel's schedstat; '-' where it has none). LOCK%%, COND%%,\n"
	       "IO%%: share spent waiting for locks, in condition waits, in I/O calls (a wait\n"
	       "counts when it ends). HOLD%%: share the lock was held exclusively. Differences\n"
	       "over the interval, not totals. ops/s: the ops the daemon's annotations ended\n"
	       "(corecap_op_end) per second of the interval.\n");
	fflush(stdout);
}

static json_object *jsite(const struct stat_site_row *r, struct symbolizer *sym)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "addr", corecap_stat_json_hex(r->addr));
	json_object_object_add(o, "symbol",
			       json_object_new_string(corecap_symbolizer_name(sym, r->addr, true)));
	json_object_object_add(o, "kind", json_object_new_string(kind_name(r->kind, false)));
	json_object_object_add(o, "contentions", json_object_new_uint64(r->contentions));
	json_object_object_add(o, "wait_ns", json_object_new_uint64(r->wait_ns));
	json_object_object_add(o, "acquisitions", json_object_new_uint64(r->acquisitions));
	json_object_object_add(o, "holds", json_object_new_uint64(r->holds));
	json_object_object_add(o, "hold_ns", json_object_new_uint64(r->hold_ns));
	return o;
}

/* The figures a lock and a family of locks share (the family's summed). */
static void jlock_figures(json_object *o, uint32_t kind, uint64_t contentions, uint64_t wait_ns,
			  uint64_t acquisitions, uint64_t holds, uint64_t hold_ns,
			  uint64_t first_site, struct symbolizer *sym, uint64_t interval_ns)
{
	json_object_object_add(o, "kind", json_object_new_string(kind_name(kind, true)));
	json_object_object_add(o, "contentions", json_object_new_uint64(contentions));
	json_object_object_add(o, "wait_ns", json_object_new_uint64(wait_ns));
	json_object_object_add(o, "acquisitions", json_object_new_uint64(acquisitions));
	json_object_object_add(o, "holds", json_object_new_uint64(holds));
	json_object_object_add(o, "hold_ns", json_object_new_uint64(hold_ns));
	json_object_object_add(
		o, "hold_util",
		json_object_new_double(interval_ns ? (double)hold_ns / (double)interval_ns : 0.0));
	json_object_object_add(o, "first_site", corecap_stat_json_hex(first_site));
	json_object_object_add(
		o, "first_site_symbol",
		json_object_new_string(corecap_symbolizer_name(sym, first_site, true)));
}

static json_object *jlock(const struct model_lock *l, struct symbolizer *sym, uint64_t interval_ns)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "addr", corecap_stat_json_hex(l->addr));
	json_object_object_add(
		o, "name", json_object_new_string(corecap_symbolizer_name(sym, l->addr, false)));
	jlock_figures(o, l->kind, l->stats_contentions, l->stats_wait_ns, l->stats_acquisitions,
		      l->stats_holds, l->stats_hold_ns, l->n_sites ? l->sites[0].site : 0, sym,
		      interval_ns);
	return o;
}

/*
 * A lone lock as itself; a family as one object named "SITE xN" with its
 * members' summed figures and the members, most wait first.
 */
static json_object *jrow(const struct lock_row *r, struct symbolizer *sym, uint64_t interval_ns)
{
	json_object *o, *members;
	char label[CORECAP_LOCK_LABEL_MAX];
	uint64_t holds = 0;

	if (!r->family)
		return jlock(r->members[0], sym, interval_ns);
	o = json_object_new_object();
	corecap_lock_row_label(r, label, sizeof(label));
	json_object_object_add(o, "name", json_object_new_string(label));
	json_object_object_add(o, "family", json_object_new_boolean(true));
	members = json_object_new_array();
	for (size_t i = 0; i < r->n_members; i++) {
		holds += r->members[i]->stats_holds;
		json_object_array_add(members, jlock(r->members[i], sym, interval_ns));
	}
	jlock_figures(o, r->kind, r->contentions, r->wait_ns, corecap_stat_row_acquisitions(r),
		      holds, r->hold_ns, row_first_site(r), sym, interval_ns);
	json_object_object_add(o, "members", members);
	return o;
}

void corecap_stat_render_json(const struct stat_view_of *o, const struct stat_interval *iv,
			      struct symbolizer *sym, const struct corecap_stats_header *h,
			      uint64_t end_ns)
{
	json_object *root = json_object_new_object(), *a, *t;

	json_object_object_add(root, "source", json_object_new_string("shim"));
	json_object_object_add(root, "pid", json_object_new_int(o->pid));
	json_object_object_add(root, "comm", json_object_new_string(o->comm));
	json_object_object_add(root, "end_ns", json_object_new_uint64(end_ns));
	json_object_object_add(root, "interval_ns", json_object_new_uint64(iv->interval_ns));
	json_object_object_add(root, "exiting",
			       json_object_new_boolean(!!(h->flags & CORECAP_STATS_F_EXITING)));
	t = json_object_new_object();
	json_object_object_add(t, "contentions", json_object_new_uint64(iv->contentions));
	json_object_object_add(t, "lock_wait_ns", json_object_new_uint64(iv->lock_wait_ns));
	json_object_object_add(t, "cond_waits", json_object_new_uint64(iv->cond_waits));
	json_object_object_add(t, "cond_wait_ns", json_object_new_uint64(iv->cond_wait_ns));
	json_object_object_add(t, "io_calls", json_object_new_uint64(iv->io_calls));
	json_object_object_add(t, "io_ns", json_object_new_uint64(iv->io_ns));
	json_object_object_add(root, "process", t);
	t = json_object_new_object();
	json_object_object_add(t, "counted", json_object_new_boolean(iv->ops_counted));
	json_object_object_add(t, "annotated", json_object_new_boolean(iv->annotated));
	json_object_object_add(t, "layout_version", json_object_new_int((int)iv->layout_version));
	/* The figures only where they are ops: never a 0 that means "not counted". */
	json_object_object_add(t, "source",
			       json_object_new_string(iv->annotated	    ? "annotations"
						      : iv->replies_counted ? "replies"
									    : "none"));
	if (iv->annotated || iv->replies_counted) {
		uint64_t n = iv->annotated ? iv->ops : iv->replies;

		json_object_object_add(t, "interval", json_object_new_uint64(n));
		json_object_object_add(t, "per_s",
				       json_object_new_double(per_s(n, iv->interval_ns)));
		json_object_object_add(
			t, "total",
			json_object_new_uint64(iv->annotated ? iv->ops_total : iv->replies_total));
	}
	if (iv->replies_counted) {
		json_object *rp = json_object_new_object();

		json_object_object_add(rp, "interval", json_object_new_uint64(iv->replies));
		json_object_object_add(rp, "per_s",
				       json_object_new_double(per_s(iv->replies, iv->interval_ns)));
		json_object_object_add(rp, "total", json_object_new_uint64(iv->replies_total));
		json_object_object_add(t, "replies", rp);
	}
	json_object_object_add(root, "ops", t);
	a = json_object_new_array();
	for (size_t i = 0; i < iv->lock_rows.n; i++)
		json_object_array_add(a, jrow(&iv->lock_rows.v[i], sym, iv->interval_ns));
	json_object_object_add(root, "locks", a);
	a = json_object_new_array();
	for (size_t i = 0; i < iv->n_sites; i++)
		json_object_array_add(a, jsite(&iv->sites[i], sym));
	json_object_object_add(root, "sites", a);
	a = json_object_new_array();
	for (size_t i = 0; i < iv->n_threads; i++) {
		const struct stat_thread_row *r = &iv->threads[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "tid", json_object_new_int(r->tid));
		json_object_object_add(j, "name", json_object_new_string(r->name));
		json_object_object_add(j, "live", json_object_new_boolean(r->live));
		json_object_object_add(j, "contentions", json_object_new_uint64(r->contentions));
		json_object_object_add(j, "lock_wait_ns", json_object_new_uint64(r->lock_wait_ns));
		json_object_object_add(j, "cond_waits", json_object_new_uint64(r->cond_waits));
		json_object_object_add(j, "cond_wait_ns", json_object_new_uint64(r->cond_wait_ns));
		json_object_object_add(j, "io_calls", json_object_new_uint64(r->io_calls));
		json_object_object_add(j, "io_ns", json_object_new_uint64(r->io_ns));
		/* From /proc: absent where it could not be read at both ends. */
		if (r->has_cpu)
			json_object_object_add(j, "cpu_ns", json_object_new_uint64(r->cpu_ns));
		if (r->has_runq)
			json_object_object_add(j, "runq_ns", json_object_new_uint64(r->runq_ns));
		json_object_array_add(a, j);
	}
	json_object_object_add(root, "threads", a);
	printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
	fflush(stdout);
	json_object_put(root);
}

json_object *corecap_stat_json_hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_object_new_string(buf);
}
