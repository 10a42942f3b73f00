#include "critical_path.h"
#include "cp_chain.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"

int corecap_critical_path_init(struct critical_path *cp, int32_t pid, uint32_t nr_cpus)
{
	*cp = (struct critical_path){.pid = pid, .nr_cpus = nr_cpus, .nodes_max = CP_NODES_MAX};
	corecap_u64map_init(&cp->by_tid);
	corecap_u64map_init(&cp->wait_ns);
	corecap_u64map_init(&cp->wait_n);
	corecap_u64map_init(&cp->wait_foreign_ns);
	corecap_u64map_init(&cp->wait_foreign_n);
	corecap_u64map_init(&cp->holder_at);
	corecap_sched_init(&cp->sched, 0, 0);
	corecap_cp_follow_sched(cp);
	if (nr_cpus && !(cp->waiters = calloc(nr_cpus, sizeof(*cp->waiters))))
		return -ENOMEM;
	return corecap_sched_follow_cpus(&cp->sched, nr_cpus);
}

static void free_op(struct cp_op *op)
{
	if (op) {
		free(op->paths);
		free(op);
	}
}

void corecap_critical_path_release(struct critical_path *cp)
{
	for (size_t i = 0; i < cp->len; i++)
		free(cp->all[i]);
	free(cp->all);
	free(cp->open_runs);
	for (size_t i = 0; i < cp->n_inflight; i++)
		free_op(cp->inflight[i]);
	free(cp->inflight);
	for (size_t i = 0; i < cp->n_spare; i++)
		free_op(cp->spare[i]);
	free(cp->spare);
	for (size_t i = 0; i < cp->n_types; i++)
		corecap_u64map_release(&cp->types[i].credit);
	free(cp->types);
	for (size_t i = 0; i < cp->n_ext_types; i++)
		corecap_u64map_release(&cp->ext_types[i].credit);
	free(cp->ext_types);
	corecap_sched_release(&cp->sched);
	free(cp->waiters);
	free(cp->nodes);
	free(cp->adds);
	corecap_u64map_release(&cp->wait_ns);
	corecap_u64map_release(&cp->wait_n);
	corecap_u64map_release(&cp->wait_foreign_ns);
	corecap_u64map_release(&cp->wait_foreign_n);
	corecap_u64map_release(&cp->by_tid);
	corecap_u64map_release(&cp->holder_at);
	free(cp->holders);
	*cp = (struct critical_path){0};
}

void corecap_critical_path_set_records(struct critical_path *cp,
				       const struct corecap_krec *const *recs, size_t n)
{
	cp->recs = recs;
	cp->n_recs = n;
	cp->next_rec = 0;
}

const char *corecap_cp_cat_name(uint32_t cat)
{
	return cat == CP_RUNQUEUE ? "runqueue" : corecap_op_cat_name((enum op_cat)cat);
}

struct cp_thread *corecap_cp_find(const struct critical_path *cp, int32_t tid)
{
	struct cp_thread *th = tid > 0 ? corecap_tid_cache_get(&cp->recent, tid) : NULL;
	uint64_t *idx;

	if (th)
		return th;
	idx = tid > 0 ? corecap_u64map_find(&cp->by_tid, (uint64_t)(uint32_t)tid) : NULL;
	return idx ? cp->all[*idx] : NULL;
}

const char *corecap_critical_path_thread_name(const struct critical_path *cp, int32_t tid)
{
	const struct cp_thread *th = corecap_cp_find(cp, tid);
	const uint64_t *at;

	if (th)
		return th->comm[0] ? th->comm : NULL;
	at = corecap_u64map_find(&cp->holder_at, (uint64_t)(uint32_t)tid);
	return at && cp->holders[*at - 1].comm[0] ? cp->holders[*at - 1].comm : NULL;
}

int32_t corecap_critical_path_holder_tgid(const struct critical_path *cp, int32_t tid)
{
	const uint64_t *at = corecap_u64map_find(&cp->holder_at, (uint64_t)(uint32_t)tid);

	return at ? cp->holders[*at - 1].tgid : 0;
}

static uint32_t running_cat(const struct cp_thread *th)
{
	return th->log_depth || th->is_log ? CAT_LOGGING : CAT_CPU;
}

/* A path's credits by (tid, cat), for a replay's many additions: 1 + the
 * credit's place in a slot its key hashes to (linear probing), 0: free. */
#define CP_CREDIT_SLOTS 64
struct cp_credit_index {
	uint8_t at[CP_CREDIT_SLOTS];
};

static uint32_t credit_slot(int32_t tid, uint32_t cat)
{
	return (uint32_t)((CP_CREDIT_KEY(tid, cat) * 0x9E3779B97F4A7C15ull) >> 58);
}

/* The slot of (tid, cat) in ix: its credit's, or the free one it would take. */
static uint32_t credit_find(const struct cp_path *p, const struct cp_credit_index *ix, int32_t tid,
			    uint32_t cat)
{
	uint32_t s = credit_slot(tid, cat);

	for (; ix->at[s]; s = (s + 1) % CP_CREDIT_SLOTS) {
		const struct cp_credit *c = &p->credit[ix->at[s] - 1];

		if (c->tid == tid && c->cat == cat)
			break;
	}
	return s;
}

static void index_credits(const struct cp_path *p, struct cp_credit_index *ix)
{
	memset(ix, 0, sizeof(*ix));
	for (uint32_t i = 0; i < p->n_credit; i++)
		ix->at[credit_find(p, ix, p->credit[i].tid, p->credit[i].cat)] = (uint8_t)(i + 1);
}

/* Adds ns of cat credited to tid to p; ix (NULL: none) indexes p's credits. */
static void path_add(struct cp_path *p, struct cp_credit_index *ix, uint32_t cat, int32_t tid,
		     uint64_t ns)
{
	struct cp_credit *c = &p->credit[p->last_credit];
	uint32_t s = 0, i;

	p->ns[cat] += ns;
	/* A thread's walk mostly grows by the same credit again. */
	if (p->last_credit < p->n_credit && c->tid == tid && c->cat == cat) {
		c->ns += ns;
		return;
	}
	if (ix) {
		s = credit_find(p, ix, tid, cat);
		i = ix->at[s] ? ix->at[s] - 1u : p->n_credit;
	} else {
		for (i = 0; i < p->n_credit; i++)
			if (p->credit[i].tid == tid && p->credit[i].cat == cat)
				break;
	}
	if (i < p->n_credit) {
		p->credit[i].ns += ns;
		p->last_credit = i;
	} else if (p->n_credit < CP_CREDITS) {
		p->last_credit = p->n_credit;
		p->credit[p->n_credit++] = (struct cp_credit){.tid = tid, .cat = cat, .ns = ns};
		if (ix)
			ix->at[s] = (uint8_t)p->n_credit;
	} else {
		p->uncredited_ns += ns;
	}
}

/* *to = *from, but for the credits past n_credit, never read (a replay
 * starts from the path at the op's anchor). */
static void path_copy(struct cp_path *to, const struct cp_path *from)
{
	memcpy(to, from,
	       offsetof(struct cp_path, credit) + from->n_credit * sizeof(from->credit[0]));
}

/* charge()'s categories of a wait for a CPU that the annotations see
 * otherwise (cp_path.runq_logging_ns, runq_in_log_ns): logging and
 * runqueue, counted apart too. */
#define CP_RUNQ_LOGGING (CP__COUNT + 1)
#define CP_RUNQ_IN_LOG	(CP__COUNT + 2)

/* The node at 1 + index h, or NULL when it is gone (older than every op in flight). */
struct cp_node *corecap_cp_node_at(const struct critical_path *cp, uint64_t h)
{
	return h > cp->lo && h - 1 - cp->lo < cp->n_nodes ? &cp->nodes[h - 1 - cp->lo] : NULL;
}

static int replay(struct critical_path *cp, const struct cp_op *op, uint32_t x,
		  struct cp_path *out);

/* Drops the nodes no op in flight reaches: every op's walk stops at its anchor. */
static void drop_nodes(struct critical_path *cp)
{
	uint64_t min = cp->lo + cp->n_nodes;
	size_t drop;

	for (size_t i = 0; i < cp->n_inflight; i++)
		if (cp->inflight[i]->anchor < min)
			min = cp->inflight[i]->anchor;
	drop = (size_t)(min - cp->lo);
	if (drop) /* never with nodes NULL (before the first) */
		memmove(cp->nodes, cp->nodes + drop, (cp->n_nodes - drop) * sizeof(*cp->nodes));
	cp->n_nodes -= drop;
	cp->lo = min;
}

/* Room for a node: the unreached ones dropped, else the array grown; when
 * the rest would pass nodes_max, the ops holding the older half start over
 * at the newest node, their paths replayed there. */
static int node_room(struct critical_path *cp)
{
	uint64_t end = cp->lo + cp->n_nodes, cut;

	drop_nodes(cp);
	if (cp->cap_nodes && cp->n_nodes * 2 <= cp->cap_nodes)
		return 0;
	if (cp->cap_nodes < cp->nodes_max) {
		size_t cap = cp->cap_nodes ? cp->cap_nodes * 2 : 1024;
		struct cp_node *v;

		if (cap > cp->nodes_max)
			cap = cp->nodes_max;
		if (cap > cp->n_nodes) {
			if (!(v = realloc(cp->nodes, cap * sizeof(*v))))
				return -ENOMEM;
			cp->nodes = v;
			cp->cap_nodes = cap;
			return 0;
		}
	}
	/* Full at nodes_max: an op in flight for long (its end lost) holds them. */
	cut = cp->lo + cp->n_nodes / 2;
	for (size_t i = 0; i < cp->n_inflight; i++) {
		struct cp_op *op = cp->inflight[i];
		struct cp_path *now;

		if (op->anchor >= cut)
			continue;
		if (!(now = malloc((cp->len + 1) * sizeof(*now))))
			return -ENOMEM;
		for (uint32_t x = 0; x < cp->len; x++)
			if (replay(cp, op, x, &now[x])) {
				free(now);
				return -ENOMEM;
			}
		memcpy(op->paths, now, cp->len * sizeof(*now));
		op->base_set = true;
		free(now);
		op->anchor = end;
		cp->last_anchor = end;
		cp->restarts++;
	}
	drop_nodes(cp);
	return cp->n_nodes < cp->cap_nodes ? 0 : -ENOMEM;
}

/* A new node at the head of th's chain (NULL: out of memory, cp->oom set). */
struct cp_node *corecap_cp_node_push(struct critical_path *cp, struct cp_thread *th, uint8_t kind)
{
	struct cp_node *n;

	if (cp->n_nodes == cp->cap_nodes && node_room(cp)) {
		cp->oom = true;
		return NULL;
	}
	n = &cp->nodes[cp->n_nodes++];
	*n = (struct cp_node){.prev = th->head, .kind = kind};
	th->head = cp->lo + cp->n_nodes;
	th->head_shared = false;
	return n;
}

/* Adds th's [from, to) to every op's walk from th, as cat credited to tid
 * (pending when cat is CP__COUNT: blocked, its category decided later):
 * a node on th's chain, or the newest one grown when it is the same
 * stretch continued (no op begun since, no waking going on from it). */
static void charge(struct critical_path *cp, struct cp_thread *th, uint64_t from, uint64_t to,
		   uint32_t cat, int32_t tid)
{
	uint8_t kind = cat == CP__COUNT ? CPN_PENDING : CPN_CHARGE;
	struct cp_node *n;

	if (!cp->n_inflight || to <= from)
		return;
	n = th->head_shared || th->head <= cp->last_anchor ? NULL
							   : corecap_cp_node_at(cp, th->head);
	if (n && n->kind == kind && n->to == from && n->tid == tid && n->cat == cat) {
		n->to = to;
		return;
	}
	if (!(n = corecap_cp_node_push(cp, th, kind)))
		return;
	n->from = from;
	n->to = to;
	n->tid = tid;
	n->cat = (uint8_t)cat;
}

/* A path's share of a charge: the waits for a CPU that the annotations
 * see otherwise are counted apart too (CP_RUNQ_LOGGING, CP_RUNQ_IN_LOG). */
static void path_charge(struct cp_path *p, struct cp_credit_index *ix, uint32_t cat, int32_t tid,
			uint64_t ns)
{
	if (cat == CP_RUNQ_LOGGING) {
		path_add(p, ix, CAT_LOGGING, tid, ns);
		p->runq_logging_ns += ns;
	} else if (cat == CP_RUNQ_IN_LOG) {
		path_add(p, ix, CP_RUNQUEUE, tid, ns);
		p->runq_in_log_ns += ns;
	} else {
		path_add(p, ix, cat, tid, ns);
	}
}

/*
 * Where a replay's additions go: met newest first, either into adds[] (the
 * exact order, kept for a path's credits past CP_CREDITS) or straight into
 * the path sum (any order: the same sums, and the same credits while they
 * are at most CP_CREDITS, which fit whatever their order).
 */
struct cp_walk {
	struct cp_add *adds; /* critical_path.adds, when sum is NULL */
	size_t n;
	bool sorted;	     /* adds[] is newest first */
	struct cp_path *sum; /* its credits indexed by ix */
	struct cp_credit_index *ix;
};

static void walk_add(struct cp_walk *w, uint64_t seq, uint64_t ns, int32_t tid, uint32_t cat)
{
	if (w->sum)
		path_charge(w->sum, w->ix, cat, tid, ns);
	else
		w->adds[w->n++] = (struct cp_add){.seq = seq, .ns = ns, .tid = tid, .cat = cat};
}

/* The exact order's walk: room for n + 3 additions in critical_path.adds. */
static int walk_room(struct critical_path *cp, struct cp_walk *w)
{
	if (w->n + 2 >= cp->cap_adds &&
	    corecap_grow((void **)&cp->adds, &cp->cap_adds, w->n + 3, sizeof(*cp->adds)))
		return -ENOMEM;
	w->adds = cp->adds;
	return 0;
}

/* The pending time pend decided by the resolve at seq: at most io_max of
 * it as cat credited to tid (an aio's stretch since its submission), the
 * rest queue: up to two additions. */
static void add_decided(struct cp_walk *w, uint64_t seq, uint64_t pend, uint32_t cat, int32_t tid,
			uint64_t io_max)
{
	uint64_t io = pend < io_max ? pend : io_max;

	if (pend > io)
		walk_add(w, seq, pend - io, CP_NOBODY, CAT_QUEUE);
	if (io)
		walk_add(w, seq, io, tid, cat);
	w->sorted = false;
}

/*
 * Walks op op's path from thread x now: its chain back to the op's anchor
 * (across wakings onto the wakers' chains), its additions into w; pending
 * time goes to the category of the RESOLVE or JOIN after it, and stays
 * pending past the newest one (*open_pend). The thread whose path at the
 * anchor the walk ends on: *cur. 0 or -ENOMEM.
 */
static int walk(struct critical_path *cp, const struct cp_op *op, uint32_t x, struct cp_walk *w,
		uint32_t *cur, uint64_t *open_pend)
{
	uint64_t h = cp->all[x]->head, pend = 0, res_seq = 0, res_io = UINT64_MAX;
	uint32_t res_cat = 0;
	int32_t res_tid = 0;
	bool open = true;

	*cur = x;
	*open_pend = 0;
	/* Room for the last pending time's two additions, even with no node. */
	if (!w->sum && walk_room(cp, w))
		return -ENOMEM;
	while (h > op->anchor) {
		const struct cp_node *nd = corecap_cp_node_at(cp, h);
		uint64_t b;

		if (!nd)
			break;
		/* Room for this node's addition and the last pending time's two. */
		if (!w->sum && walk_room(cp, w))
			return -ENOMEM;
		b = nd->from > op->begin_ns ? nd->from : op->begin_ns;
		switch (nd->kind) {
		case CPN_CHARGE:
			if (nd->to > b)
				walk_add(w, h, nd->to - b, nd->tid, nd->cat);
			break;
		case CPN_PENDING:
			if (nd->to > b)
				pend += nd->to - b;
			break;
		default: /* RESOLVE, JOIN: the pending time after it is decided */
			if (open)
				*open_pend += pend;
			else if (pend)
				add_decided(w, res_seq, pend, res_cat, res_tid, res_io);
			pend = 0;
			open = false;
			res_seq = h;
			res_cat = nd->kind == CPN_JOIN ? CAT_QUEUE : nd->cat;
			res_tid = nd->kind == CPN_JOIN ? CP_NOBODY : nd->tid;
			res_io = nd->kind == CPN_RESOLVE ? nd->to : UINT64_MAX;
			if (nd->kind == CPN_JOIN)
				*cur = nd->waker;
			break;
		}
		h = nd->prev;
	}
	pend += op->paths[*cur].pending_ns;
	if (open)
		*open_pend += pend;
	else if (pend)
		add_decided(w, res_seq, pend, res_cat, res_tid, res_io);
	return 0;
}

/* out = the path at the anchor plus sum (whose credits, at most
 * CP_CREDITS, join none at the anchor). */
static void add_sum(struct cp_path *out, const struct cp_path *sum)
{
	for (int c = 0; c < CP__COUNT; c++)
		out->ns[c] += sum->ns[c];
	out->runq_logging_ns += sum->runq_logging_ns;
	out->runq_in_log_ns += sum->runq_in_log_ns;
	memcpy(out->credit, sum->credit, sum->n_credit * sizeof(sum->credit[0]));
	out->n_credit = sum->n_credit;
	out->last_credit = 0;
}

/*
 * Op op's path from thread x now: the path at the anchor plus the
 * additions met walking back there, in the order they were made. Summed
 * in any order first; walked again in order only when the path's credits
 * would be more than CP_CREDITS (which of them are kept depends on it).
 */
static int replay(struct critical_path *cp, const struct cp_op *op, uint32_t x, struct cp_path *out)
{
	struct cp_credit_index ix = {0};
	struct cp_path sum;
	struct cp_walk w = {.sum = &sum, .ix = &ix};
	uint64_t open_pend;
	uint32_t cur;
	int ret;

	memset(&sum, 0, offsetof(struct cp_path, credit));
	if ((ret = walk(cp, op, x, &w, &cur, &open_pend)))
		return ret;
	path_copy(out, &op->paths[cur]);
	out->pending_ns = open_pend;
	if (!sum.uncredited_ns && !out->n_credit) {
		add_sum(out, &sum);
		return 0;
	}
	w = (struct cp_walk){.sorted = true};
	if ((ret = walk(cp, op, x, &w, &cur, &open_pend)))
		return ret;
	/* Met newest first; a decided pending time is met after older ones: sort then. */
	for (size_t i = 1; !w.sorted && i < w.n; i++) {
		struct cp_add t = cp->adds[i];
		size_t j = i;

		for (; j > 0 && cp->adds[j - 1].seq < t.seq; j--)
			cp->adds[j] = cp->adds[j - 1];
		cp->adds[j] = t;
	}
	/* Oldest first; a run of the same credit is one addition (the same sums and credits). */
	index_credits(out, &ix);
	for (size_t i = w.n; i > 0;) {
		const struct cp_add *a = &cp->adds[--i];
		uint64_t ns = a->ns;

		for (; i > 0 && cp->adds[i - 1].tid == a->tid && cp->adds[i - 1].cat == a->cat; i--)
			ns += cp->adds[i - 1].ns;
		path_charge(out, &ix, a->cat, a->tid, ns);
	}
	return 0;
}

/*
 * A running thread's consecutive stretches of one category are added to
 * the paths as one, not one charge() (one node) per trace event: the
 * same sums and the same credit order, because nothing else touches th's
 * paths before flush_run, which every reader of them and every change of
 * the ops in flight calls first.
 */
void corecap_cp_flush_run(struct critical_path *cp, struct cp_thread *th)
{
	if (th->run_open) {
		th->run_open = false;
		charge(cp, th, th->run_from, th->run_to, th->run_cat, th->tid);
	}
}

static int cmp_index(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Every open run added, in the threads' order (as their nodes always were):
 * those listed since the last call, not every thread. */
static void flush_runs(struct critical_path *cp)
{
	/* With none listed yet open_runs may be NULL, which qsort may not take. */
	if (cp->n_open_runs > 1)
		qsort(cp->open_runs, cp->n_open_runs, sizeof(*cp->open_runs), cmp_index);
	for (size_t i = 0; i < cp->n_open_runs; i++) {
		struct cp_thread *th = cp->all[cp->open_runs[i]];

		th->run_listed = false;
		corecap_cp_flush_run(cp, th);
	}
	cp->n_open_runs = 0;
}

/* th's pending stretch decided: at most io_max of each op's part of it is
 * cat (UINT64_MAX: all of it), the rest queue. */
static void resolve_pending_upto(struct critical_path *cp, struct cp_thread *th, uint32_t cat,
				 uint64_t io_max)
{
	struct cp_node *n;

	corecap_cp_flush_run(cp, th);
	if (cp->n_inflight && (n = corecap_cp_node_push(cp, th, CPN_RESOLVE))) {
		n->cat = (uint8_t)cat;
		n->tid = cat == CAT_QUEUE ? CP_NOBODY : th->tid;
		n->to = io_max;
	}
	th->pending = false;
}

void corecap_cp_resolve_pending(struct critical_path *cp, struct cp_thread *th, uint32_t cat)
{
	resolve_pending_upto(cp, th, cat, UINT64_MAX);
}

/*
 * An aio reaped by th, which nobody of the daemon woke (the device's
 * completion did): of its blocked stretch, the part since the aio's
 * submission is io, the part before it queue, since the walk cannot go on
 * to the submitter from here. Each op's pending part is the stretch's tail
 * from the op's begin, so its io part is that tail from the submission.
 */
void corecap_cp_resolve_pending_aio(struct critical_path *cp, struct cp_thread *th,
				    const struct model_event *ev)
{
	uint64_t submit, from;

	if (ev->io.dur_ns > ev->ts_ns || (submit = ev->ts_ns - ev->io.dur_ns) >= th->pend_e) {
		corecap_cp_resolve_pending(cp, th, CAT_QUEUE);
		return;
	}
	from = submit > th->pend_b ? submit : th->pend_b;
	resolve_pending_upto(
		cp, th, th->log_depth || ev->io.io_class == CORECAP_IO_LOG ? CAT_LOGGING : CAT_IO,
		th->pend_e - from);
}

/* Charges th's state from th->since up to t. */
void corecap_cp_advance(struct critical_path *cp, struct cp_thread *th, uint64_t t)
{
	const struct cp_thread *holder;
	enum cp_state state;
	uint32_t cat;
	int32_t htid;
	bool logger;

	if (t <= th->since)
		return;
	state = corecap_cp_state(th);
	if (state != CPS_UNKNOWN && state != CPS_RUNNING)
		corecap_cp_flush_run(cp, th);
	switch (state) {
	case CPS_UNKNOWN:
	case CPS_RUNNING:
		cat = running_cat(th);
		if (th->run_open && th->run_cat == cat && th->run_to == th->since) {
			th->run_to = t;
		} else {
			corecap_cp_flush_run(cp, th);
			th->run_open = true;
			if (!th->run_listed) {
				th->run_listed = true;
				cp->open_runs[cp->n_open_runs++] = th->index;
			}
			th->run_cat = cat;
			th->run_from = th->since;
			th->run_to = t;
		}
		break;
	case CPS_RUNNABLE:
		/* Whoever held the CPU it waited for: logging if that was logging. */
		htid = th->wait_cpu < cp->nr_cpus ? corecap_cp_holder(cp, th->wait_cpu) : CP_NOBODY;
		holder = corecap_cp_find(cp, htid);
		logger = holder && corecap_cp_state(holder) == CPS_RUNNING &&
			 running_cat(holder) == CAT_LOGGING;
		if (logger)
			cat = th->log_depth ? CAT_LOGGING : CP_RUNQ_LOGGING;
		else
			cat = th->log_depth ? CP_RUNQ_IN_LOG : CP_RUNQUEUE;
		charge(cp, th, th->since, t, cat, htid);
		break;
	case CPS_BLOCKED:
		if (corecap_cp_stopped(th))
			charge(cp, th, th->since, t, running_cat(th), th->tid);
		else
			charge(cp, th, th->since, t, CP__COUNT, th->tid);
		break;
	}
	th->since = t;
	if (t > cp->max_since)
		cp->max_since = t;
}

static struct cp_op *find_op(const struct critical_path *cp, uint64_t id, bool ext, size_t *at)
{
	for (size_t i = 0; i < cp->n_inflight; i++)
		if (cp->inflight[i]->id == id && cp->inflight[i]->ext == ext) {
			if (at)
				*at = i;
			return cp->inflight[i];
		}
	return NULL;
}

int corecap_cp_op_begin(struct critical_path *cp, uint64_t id, bool ext, uint64_t ts)
{
	struct cp_op *op;

	flush_runs(cp); /* the runs so far are the ops' in flight, not this one's */
	op = find_op(cp, id, ext, NULL);

	if (!op) {
		if (cp->n_inflight == cp->cap_inflight) {
			size_t cap = cp->cap_inflight ? cp->cap_inflight * 2 : 16;
			struct cp_op **v = realloc(cp->inflight, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			cp->inflight = v;
			if (!(v = realloc(cp->spare, cap * sizeof(*v))))
				return -ENOMEM;
			cp->spare = v;
			cp->cap_inflight = cap;
		}
		if (cp->n_spare) {
			op = cp->spare[--cp->n_spare];
		} else {
			if (!(op = calloc(1, sizeof(*op))))
				return -ENOMEM;
			if (cp->path_cap &&
			    !(op->paths = calloc(cp->path_cap, sizeof(*op->paths)))) {
				free(op);
				return -ENOMEM;
			}
		}
		cp->inflight[cp->n_inflight++] = op;
	}
	/* Zeroed up to the credits (never read past n_credit): a third of a path;
	 * only when written (an op begun in the past, or started over). */
	for (size_t i = 0; op->base_set && i < cp->len; i++)
		memset(&op->paths[i], 0, offsetof(struct cp_path, credit));
	op->base_set = false;
	op->id = id;
	op->ext = ext;
	op->begin_ns = ts;
	op->anchor = cp->lo + cp->n_nodes;
	cp->last_anchor = op->anchor;
	/*
	 * An op begun in the past (a detected op whose request was read before
	 * the reply that revealed it, model/net_ops.h): the threads' time since
	 * then is charged already, so on their walks it is nobody's (queue).
	 */
	for (size_t i = 0; op->paths && ts < cp->max_since && i < cp->len; i++)
		if (cp->all[i]->since > ts) {
			path_add(&op->paths[i], NULL, CAT_QUEUE, CP_NOBODY, cp->all[i]->since - ts);
			op->base_set = true;
		}
	return 0;
}

/* The annotated ops' types, or the ext ops' slots. */
static struct cp_type *type_at(struct critical_path *cp, bool ext, uint32_t type)
{
	struct cp_type **types = ext ? &cp->ext_types : &cp->types;
	size_t *n_types = ext ? &cp->n_ext_types : &cp->n_types;

	if (type >= *n_types) {
		size_t n = (size_t)type + 1;
		struct cp_type *v = realloc(*types, n * sizeof(*v));

		if (!v)
			return NULL;
		for (size_t i = *n_types; i < n; i++) {
			v[i] = (struct cp_type){0};
			corecap_u64map_init(&v[i].credit);
		}
		*types = v;
		*n_types = n;
	}
	return &(*types)[type];
}

static int add_to_type(struct critical_path *cp, bool ext, uint32_t type, const struct cp_path *p,
		       uint64_t latency)
{
	struct cp_type *t = type_at(cp, ext, type);

	if (!t)
		return -ENOMEM;
	t->count++;
	t->latency_ns += latency;
	for (int c = 0; c < CP__COUNT; c++)
		t->ns[c] += p->ns[c];
	t->uncredited_ns += p->uncredited_ns;
	t->runq_logging_ns += p->runq_logging_ns;
	t->runq_in_log_ns += p->runq_in_log_ns;
	for (uint32_t i = 0; i < p->n_credit; i++) {
		uint64_t *v = corecap_u64map_upsert(
			&t->credit, CP_CREDIT_KEY(p->credit[i].tid, p->credit[i].cat), NULL);

		if (!v)
			return -ENOMEM;
		*v += p->credit[i].ns;
	}
	return 0;
}

int corecap_cp_op_end(struct critical_path *cp, uint64_t id, bool ext, uint32_t type, int32_t tid,
		      uint64_t end_ns, bool exclude)
{
	size_t at;
	struct cp_op *op = find_op(cp, id, ext, &at);
	struct cp_thread *th;
	struct cp_path path, *p = &path;
	uint64_t sum = 0, lat, err;
	int ret = 0;

	if (!op)
		return 0;
	if ((th = corecap_cp_find(cp, tid))) {
		/* Its time so far is this op's too (an ext op's end comes between
		 * events: the thread is charged up to it here). */
		corecap_cp_advance(cp, th, end_ns);
		corecap_cp_flush_run(cp, th);
	}
	if (cp->oom || (!exclude && end_ns >= op->begin_ns && th && th->index < cp->len &&
			replay(cp, op, th->index, &path)))
		return -ENOMEM;
	cp->inflight[at] = cp->inflight[--cp->n_inflight];
	if (!exclude && end_ns >= op->begin_ns) {
		th = corecap_cp_find(cp, tid);
		if (!th || th->index >= cp->len) {
			cp->ops_without_path++;
		} else {
			corecap_cp_advance(cp, th, end_ns);
			if (p->pending_ns) {
				path_add(p, NULL, CAT_QUEUE, CP_NOBODY, p->pending_ns);
				p->pending_ns = 0;
			}
			for (int c = 0; c < CP__COUNT; c++)
				sum += p->ns[c];
			lat = end_ns - op->begin_ns;
			err = sum > lat ? sum - lat : lat - sum;
			cp->checked++;
			if (err) {
				cp->violations++;
				if (err > cp->max_err_ns)
					cp->max_err_ns = err;
			}
			cp->ops_ended++;
			ret = add_to_type(cp, ext, type, p, lat);
		}
	}
	/* Kept for a later op (spare has room for every op ever in flight). */
	cp->spare[cp->n_spare++] = op;
	return ret;
}

int corecap_critical_path_op_end(struct critical_path *cp, uint64_t id, uint32_t type, int32_t tid,
				 uint64_t end_ns, bool exclude)
{
	return corecap_cp_op_end(cp, id, false, type, tid, end_ns, exclude);
}

int32_t corecap_critical_path_pick(const struct critical_path *cp, uint64_t t, uint64_t max_ago_ns,
				   int (*rank)(void *ctx, const char *comm), void *ctx)
{
	const struct cp_thread *best = NULL, *late = NULL;
	int best_rank = 0, late_rank = 0, r;

	for (uint32_t c = 0; c < cp->nr_cpus; c++) {
		const struct cp_thread *th = corecap_cp_find(cp, corecap_cp_holder(cp, c));

		if (th && corecap_cp_state(th) == CPS_RUNNING &&
		    (r = rank(ctx, th->comm)) > best_rank) {
			best = th;
			best_rank = r;
		}
	}
	for (size_t i = 0; !best && i < cp->len; i++) {
		const struct cp_thread *th = cp->all[i];
		uint64_t off = th->st ? th->st->off_ns : 0; /* its last switch-out */

		if (!off || off > t || t - off > max_ago_ns || (r = rank(ctx, th->comm)) <= 0)
			continue;
		if (!late || r > late_rank || (r == late_rank && off > late->st->off_ns)) {
			late = th;
			late_rank = r;
		}
	}
	if (!best)
		best = late;
	return best ? best->tid : 0;
}

const struct cp_type *corecap_critical_path_type(const struct critical_path *cp, uint32_t type)
{
	return cp && type < cp->n_types && cp->types[type].count ? &cp->types[type] : NULL;
}

const struct cp_type *corecap_critical_path_ext_type(const struct critical_path *cp, uint32_t slot)
{
	return cp && slot < cp->n_ext_types && cp->ext_types[slot].count ? &cp->ext_types[slot]
									 : NULL;
}

static int top_cmp(const void *a, const void *b)
{
	const struct cp_top *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->cat < y->cat ? -1 : x->cat > y->cat;
}

size_t corecap_critical_path_top(const struct cp_type *t, struct cp_top *out, size_t n)
{
	struct cp_top *all = calloc(t->credit.len + 1, sizeof(*all));
	uint64_t key, v;
	size_t len = 0;

	if (!all)
		return 0;
	for (size_t i = 0; corecap_u64map_next(&t->credit, &i, &key, &v);)
		if (CP_CREDIT_CAT(key) != CAT_QUEUE && v)
			all[len++] = (struct cp_top){
				.tid = CP_CREDIT_TID(key), .cat = CP_CREDIT_CAT(key), .ns = v};
	qsort(all, len, sizeof(*all), top_cmp);
	if (len > n)
		len = n;
	memcpy(out, all, len * sizeof(*out));
	free(all);
	return len;
}

/* Whether tid is a thread of the collector that recorded the run. */
static bool is_collector(const struct critical_path *cp, int32_t tid)
{
	const uint64_t *at = corecap_u64map_find(&cp->holder_at, (uint64_t)(uint32_t)tid);

	return at && cp->collector_pid > 0 && cp->holders[*at - 1].tgid == cp->collector_pid;
}

void corecap_critical_path_runq_behind(const struct critical_path *cp, const struct cp_type *t,
				       uint64_t out[CPB__COUNT])
{
	uint64_t key, v, credited = 0;

	memset(out, 0, CPB__COUNT * sizeof(*out));
	for (size_t i = 0; corecap_u64map_next(&t->credit, &i, &key, &v);) {
		int32_t tid = CP_CREDIT_TID(key);

		if (CP_CREDIT_CAT(key) != CP_RUNQUEUE || tid == CP_NOBODY)
			continue;
		out[tid == 0		       ? CPB_IDLE
		    : corecap_cp_find(cp, tid) ? CPB_DAEMON
		    : is_collector(cp, tid)    ? CPB_COLLECTOR
					       : CPB_OTHER] += v;
		credited += v;
	}
	out[CPB_UNKNOWN] = t->ns[CP_RUNQUEUE] > credited ? t->ns[CP_RUNQUEUE] - credited : 0;
}

const char *corecap_cp_behind_name(enum cp_behind b)
{
	static const char *const names[] = {"daemon", "collector", "other_processes", "idle_cpu",
					    "unknown"};

	return b < CPB__COUNT ? names[b] : "?";
}

const char *corecap_cp_behind_label(enum cp_behind b)
{
	static const char *const labels[] = {"the daemon's threads", "the collector",
					     "other processes", "an idle CPU", "unknown"};

	return b < CPB__COUNT ? labels[b] : "?";
}
