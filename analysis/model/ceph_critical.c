#include "ceph_critical.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"
#include "thread_table.h"

/* The OpTracker events that carry the message's own stamps or the
 * messenger's fast dispatch: the messenger's thread stamped them. */
static bool msgr_event(const char *name)
{
	static const char *const names[] = {"initiated", "throttled",  "header_read",
					    "all_read",	 "dispatched", "queued_for_pg"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

static int mark_cmp(const struct cc_mark *x, const struct cc_mark *y)
{
	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	if (x->end != y->end)
		return x->end ? -1 : 1; /* a phase ends where the next begins */
	if (x->span != y->span)
		return x->span < y->span ? -1 : 1;
	if (x->phase != y->phase)
		return (int)x->phase - (int)y->phase;
	return (x->seq > y->seq) - (x->seq < y->seq); /* a span's marks in the order made */
}

/* The name of the phase event k of sp opens, or NULL (its last event). */
static const char *event_name(const struct ceph_files *c, const struct ceph_op_span *sp, uint32_t k)
{
	const struct ceph_op_event *e = &c->events[sp->ev0 + k];

	return e->phase == CEPH_NO_PHASE || sp->type >= c->n_types
		       ? NULL
		       : c->types[sp->type].phases[e->phase].name;
}

/* The marks of span i, moved onto the records' clock; how many. */
static size_t span_marks(const struct ceph_files *c, uint32_t i, int64_t off, struct cc_mark *m)
{
	const struct ceph_op_span *sp = &c->spans[i];
	uint64_t arrival = (uint64_t)((int64_t)sp->arrival_ns - off);
	uint64_t reply = (uint64_t)((int64_t)sp->reply_ns - off);
	size_t n = 0;

	m[n++] = (struct cc_mark){.t_ns = arrival, .span = i};
	m[n++] = (struct cc_mark){.t_ns = reply, .span = i, .end = 1};
	for (uint32_t k = 0; k + 1 < sp->n_ev; k++) {
		const struct ceph_op_event *e = &c->events[sp->ev0 + k];
		uint64_t b = (uint64_t)((int64_t)e->t_ns - off);
		uint64_t nx = (uint64_t)((int64_t)c->events[sp->ev0 + k + 1].t_ns - off);
		const char *next = event_name(c, sp, k + 1);

		if (e->phase == CEPH_NO_PHASE || e->phase >= UINT16_MAX - 1)
			continue;
		if (b < arrival)
			b = arrival;
		if (nx > reply)
			nx = reply;
		if (nx <= b)
			continue; /* empty, or past the reply */
		m[n++] = (struct cc_mark){
			.t_ns = b, .span = i, .phase = (uint16_t)(e->phase + 1), .ev = k};
		m[n++] = (struct cc_mark){.t_ns = nx,
					  .span = i,
					  .phase = (uint16_t)(e->phase + 1),
					  .end = 1,
					  .msgr = nx < reply && next && msgr_event(next),
					  .ev = k};
	}
	for (size_t k = 0; k < n; k++)
		m[k].seq = (uint32_t)k;
	return n;
}

/* Whether span sp is an op of the window. */
static bool in_window(const struct ceph_critical *cc, const struct ceph_op_span *sp)
{
	int64_t a = (int64_t)sp->arrival_ns - cc->off;
	int64_t r = (int64_t)sp->reply_ns - cc->off;

	return sp->type < cc->ceph->n_types && a >= (int64_t)cc->cp->ws &&
	       !(cc->cp->we && r > (int64_t)cc->cp->we);
}

/* next_span moved to the first span of the window from where it is. */
static void skip_out(struct ceph_critical *cc)
{
	while (cc->next_span < cc->ceph->n_spans && !in_window(cc, &cc->ceph->spans[cc->next_span]))
		cc->next_span++;
}

/* The marks' heap, its least mark first. */
static void heap_down(struct cc_mark *h, size_t n, size_t i)
{
	struct cc_mark m = h[i];

	for (size_t k; (k = 2 * i + 1) < n; i = k) {
		if (k + 1 < n && mark_cmp(&h[k + 1], &h[k]) < 0)
			k++;
		if (mark_cmp(&h[k], &m) >= 0)
			break;
		h[i] = h[k];
	}
	h[i] = m;
}

static void heap_up(struct cc_mark *h, size_t i)
{
	struct cc_mark m = h[i];

	for (size_t p; i > 0 && mark_cmp(&m, &h[p = (i - 1) / 2]) < 0; i = p)
		h[i] = h[p];
	h[i] = m;
}

/* The next span of the window's marks into the heap. 0 or -ENOMEM. */
static int open_span(struct ceph_critical *cc)
{
	const struct ceph_op_span *sp = &cc->ceph->spans[cc->next_span];
	size_t need = cc->n_marks + 2 + 2 * (size_t)sp->n_ev, n;

	if (need > cc->cap_marks) {
		size_t cap = cc->cap_marks ? cc->cap_marks : 256;
		struct cc_mark *m;

		while (cap < need)
			cap *= 2;
		if (!(m = realloc(cc->marks, cap * sizeof(*m))))
			return -ENOMEM;
		cc->marks = m;
		cc->cap_marks = cap;
	}
	n = span_marks(cc->ceph, (uint32_t)cc->next_span, cc->off, cc->marks + cc->n_marks);
	for (size_t k = 0; k < n; k++)
		heap_up(cc->marks, cc->n_marks++);
	cc->next_span++;
	skip_out(cc);
	return 0;
}

/* The time of the next span's arrival, UINT64_MAX when none is left. */
static uint64_t next_arrival(const struct ceph_critical *cc)
{
	return cc->next_span < cc->ceph->n_spans
		       ? (uint64_t)((int64_t)cc->ceph->spans[cc->next_span].arrival_ns - cc->off)
		       : UINT64_MAX;
}

int corecap_ceph_critical_init(struct ceph_critical *cc, const struct ceph_files *c,
			       struct critical_path *cp, int64_t realtime_offset_ns,
			       const char *op_pools)
{
	size_t slots = 0;
	int ret;

	*cc = (struct ceph_critical){.ceph = c, .cp = cp, .off = realtime_offset_ns};
	if ((ret = corecap_lines_split(&cc->pools, &cc->n_pools, op_pools)))
		return ret;
	cc->slot0 = calloc(c->n_types + 1, sizeof(*cc->slot0));
	if (!cc->slot0)
		goto nomem;
	for (size_t t = 0; t < c->n_types; t++) {
		cc->slot0[t] = (uint32_t)slots;
		slots += 1 + c->types[t].n_phases;
	}
	for (size_t i = 0; i < c->n_spans; i++) {
		if (in_window(cc, &c->spans[i]))
			cc->ops++;
		else
			cc->ops_out++;
	}
	skip_out(cc);
	return 0;
nomem:
	corecap_ceph_critical_release(cc);
	return -ENOMEM;
}

void corecap_ceph_critical_release(struct ceph_critical *cc)
{
	free(cc->marks);
	free(cc->slot0);
	corecap_lines_release(&cc->pools, &cc->n_pools);
	*cc = (struct ceph_critical){0};
}

struct rank_ctx {
	const struct ceph_critical *cc;
	bool msgr; /* the messenger's thread is preferred, else a worker */
};

/* 0: not on the op path; 1: on it; 2: the preferred kind of it. */
static int rank(void *ctx, const char *comm)
{
	const struct rank_ctx *r = ctx;
	char pool[32];
	bool is_msgr;

	if (!comm[0])
		return 0;
	corecap_thread_pool_name(comm, pool, sizeof(pool));
	for (size_t i = 0; i < r->cc->n_pools; i++)
		if (fnmatch(r->cc->pools[i], pool, 0) == 0) {
			is_msgr = strncmp(pool, "msgr-worker", 11) == 0;
			return is_msgr == r->msgr ? 2 : 1;
		}
	return 0;
}

/* An op's id in the critical path: its span, and 0 or its phase's event. */
static uint64_t mark_id(const struct cc_mark *m)
{
	return (uint64_t)m->span << 20 | (m->phase ? (uint64_t)m->ev + 1 : 0);
}

static int feed_mark(struct ceph_critical *cc, const struct cc_mark *m)
{
	const struct ceph_op_span *sp = &cc->ceph->spans[m->span];
	struct rank_ctx r = {.cc = cc, .msgr = m->msgr};
	int32_t tid;
	int ret;

	if (!m->end)
		return corecap_critical_path_ext_begin(cc->cp, mark_id(m), m->t_ns);
	if ((ret = corecap_critical_path_feed(cc->cp, m->t_ns)))
		return ret;
	tid = corecap_critical_path_pick(cc->cp, m->t_ns, CORECAP_CEPH_CRITICAL_PICK_AGO_NS, rank,
					 &r);
	if (!tid)
		cc->unpicked++;
	return corecap_critical_path_ext_end(cc->cp, mark_id(m), cc->slot0[sp->type] + m->phase,
					     tid, m->t_ns);
}

uint64_t corecap_ceph_critical_next_ns(const struct ceph_critical *cc)
{
	uint64_t a = next_arrival(cc), h = cc->n_marks ? cc->marks[0].t_ns : UINT64_MAX;

	return a < h ? a : h;
}

bool corecap_ceph_critical_done(const struct ceph_critical *cc)
{
	return !cc->n_marks && cc->next_span >= cc->ceph->n_spans;
}

int corecap_ceph_critical_take(struct ceph_critical *cc)
{
	struct cc_mark m;
	int ret;

	/* A span's marks come at or after its arrival; a mark at the same
	 * time as an arrival goes first (an end, or an earlier span's). */
	while (cc->next_span < cc->ceph->n_spans &&
	       (!cc->n_marks || next_arrival(cc) < cc->marks[0].t_ns))
		if ((ret = open_span(cc)))
			return ret;
	if (!cc->n_marks)
		return 0;
	m = cc->marks[0];
	cc->marks[0] = cc->marks[--cc->n_marks];
	heap_down(cc->marks, cc->n_marks, 0);
	cc->taken++;
	return feed_mark(cc, &m);
}

int corecap_ceph_critical_feed(struct ceph_critical *cc, uint64_t t)
{
	int ret;

	while (!corecap_ceph_critical_done(cc) && corecap_ceph_critical_next_ns(cc) <= t)
		if ((ret = corecap_ceph_critical_take(cc)))
			return ret;
	return 0;
}

int corecap_ceph_critical_finish(struct ceph_critical *cc)
{
	return corecap_ceph_critical_feed(cc, UINT64_MAX);
}

const struct cp_type *corecap_ceph_critical_type(const struct ceph_critical *cc, size_t ti,
						 size_t phase)
{
	if (!cc || !cc->slot0 || ti >= cc->ceph->n_types || phase > cc->ceph->types[ti].n_phases)
		return NULL;
	return corecap_critical_path_ext_type(cc->cp, cc->slot0[ti] + (uint32_t)phase);
}

/* One pool's running samples: its threads' cpu and logging ones. */
struct pool_share {
	char pool[32];
	uint64_t cpu, logging;
};

static void pool_of_tid(const struct critical_path *cp, int32_t tid, char *out, size_t size)
{
	const char *name = corecap_critical_path_thread_name(cp, tid);

	if (name)
		corecap_thread_pool_name(name, out, size);
	else
		snprintf(out, size, "tid %d", (int)tid);
}

/* The samples of thread_cats summed by pool (threads of a pool do the
 * same work: more samples, less noise): *out malloc'd. 0 or -ENOMEM. */
static int pool_shares(const struct critical_path *cp, const struct u64map *thread_cats,
		       struct pool_share **out, size_t *n)
{
	struct pool_share *v = calloc(thread_cats->len + 1, sizeof(*v));
	uint64_t key, cnt;
	size_t len = 0, j;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; corecap_u64map_next(thread_cats, &i, &key, &cnt);) {
		uint64_t cat = key & 7;
		char pool[32];

		if (cat != STACK_CPU && cat != STACK_LOGGING)
			continue;
		pool_of_tid(cp, (int32_t)(uint32_t)(key >> 3), pool, sizeof(pool));
		for (j = 0; j < len && strcmp(v[j].pool, pool); j++)
			;
		if (j == len)
			snprintf(v[len++].pool, sizeof(v[0].pool), "%s", pool);
		if (cat == STACK_CPU)
			v[j].cpu += cnt;
		else
			v[j].logging += cnt;
	}
	*out = v;
	*n = len;
	return 0;
}

/* tid's pool's share of logging among its running samples; that of all
 * the sampled pools when its own are fewer than CC_MIN_SAMPLES; 0 for a
 * pool never sampled (not on the op path). */
#define CC_MIN_SAMPLES 20
static double log_share(const struct critical_path *cp, const struct pool_share *v, size_t n,
			int32_t tid)
{
	uint64_t cpu = 0, logging = 0;
	char pool[32];
	size_t j;

	pool_of_tid(cp, tid, pool, sizeof(pool));
	for (j = 0; j < n && strcmp(v[j].pool, pool); j++)
		;
	if (j == n)
		return 0;
	if (v[j].cpu + v[j].logging >= CC_MIN_SAMPLES)
		return (double)v[j].logging / (double)(v[j].cpu + v[j].logging);
	for (j = 0; j < n; j++) {
		cpu += v[j].cpu;
		logging += v[j].logging;
	}
	return cpu + logging ? (double)logging / (double)(cpu + logging) : 0;
}

static int share_type(struct ceph_critical *cc, struct cp_type *t, const struct pool_share *pools,
		      size_t n_pools, bool whole)
{
	struct cp_credit *v = malloc((t->credit.len + 1) * sizeof(*v));
	uint64_t key, ns, *to;
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; corecap_u64map_next(&t->credit, &i, &key, &ns);)
		if (CP_CREDIT_CAT(key) == CAT_CPU || CP_CREDIT_CAT(key) == CP_RUNQUEUE)
			v[n++] = (struct cp_credit){CP_CREDIT_TID(key), CP_CREDIT_CAT(key), ns};
	for (size_t i = 0; i < n; i++) {
		uint64_t moved =
			(uint64_t)((double)v[i].ns * log_share(cc->cp, pools, n_pools, v[i].tid));

		if (!moved)
			continue;
		if (!(to = corecap_u64map_upsert(&t->credit, CP_CREDIT_KEY(v[i].tid, CAT_LOGGING),
						 NULL))) {
			free(v);
			return -ENOMEM;
		}
		*to += moved;
		*corecap_u64map_find(&t->credit, CP_CREDIT_KEY(v[i].tid, v[i].cat)) -= moved;
		t->ns[v[i].cat] -= moved;
		t->ns[CAT_LOGGING] += moved;
		if (whole)
			cc->log_share_ns += moved;
	}
	free(v);
	return 0;
}

int corecap_ceph_critical_logging_share(struct ceph_critical *cc, const struct u64map *thread_cats)
{
	struct pool_share *pools;
	size_t n_pools;
	int ret = pool_shares(cc->cp, thread_cats, &pools, &n_pools);

	if (ret)
		return ret;

	for (size_t ti = 0; ti < cc->ceph->n_types; ti++)
		for (size_t k = 0; k <= cc->ceph->types[ti].n_phases; k++) {
			uint32_t slot = cc->slot0[ti] + (uint32_t)k;

			if (slot < cc->cp->n_ext_types &&
			    (ret = share_type(cc, &cc->cp->ext_types[slot], pools, n_pools, !k)))
				goto out;
		}
	cc->log_share = true;
out:
	free(pools);
	return ret;
}
