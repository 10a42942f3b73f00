#include "critical_path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thread_table.h"
#include "futex_locks.h"
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
	if (nr_cpus) {
		cp->cpu_tid = malloc(nr_cpus * sizeof(*cp->cpu_tid));
		cp->waiters = calloc(nr_cpus, sizeof(*cp->waiters));
		if (!cp->cpu_tid || !cp->waiters)
			return -ENOMEM;
		for (uint32_t c = 0; c < nr_cpus; c++)
			cp->cpu_tid[c] = CP_NOBODY;
	}
	return 0;
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
	free(cp->cpu_tid);
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

static struct cp_thread *find(const struct critical_path *cp, int32_t tid)
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
	const struct cp_thread *th = find(cp, tid);
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

/* Another process's thread named (its last HOLDER record wins). */
static int on_holder(struct critical_path *cp, const struct corecap_krec_holder *h)
{
	uint64_t *at = corecap_u64map_upsert(&cp->holder_at, (uint64_t)(uint32_t)h->tid, NULL);

	if (!at)
		return -ENOMEM;
	if (!*at) {
		if (corecap_grow((void **)&cp->holders, &cp->cap_holders, cp->n_holders + 1,
				 sizeof(*cp->holders)))
			return -ENOMEM;
		*at = ++cp->n_holders;
	}
	cp->holders[*at - 1].tgid = h->tgid;
	memcpy(cp->holders[*at - 1].comm, h->comm, sizeof(h->comm));
	cp->holders[*at - 1].comm[sizeof(h->comm) - 1] = '\0';
	return 0;
}

/* Every op's paths hold one entry per thread: grow them all together. */
static int grow_paths(struct critical_path *cp)
{
	size_t cap = cp->path_cap ? cp->path_cap * 2 : 64;
	struct cp_thread **all = realloc(cp->all, cap * sizeof(*all));
	uint32_t *open_runs;

	if (!all)
		return -ENOMEM;
	cp->all = all;
	if (!(open_runs = realloc(cp->open_runs, cap * sizeof(*open_runs))))
		return -ENOMEM;
	cp->open_runs = open_runs;
	for (int pass = 0; pass < 2; pass++) {
		struct cp_op **ops = pass ? cp->spare : cp->inflight;
		size_t n = pass ? cp->n_spare : cp->n_inflight;

		for (size_t i = 0; i < n; i++) {
			struct cp_path *p = realloc(ops[i]->paths, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			memset(p + cp->path_cap, 0, (cap - cp->path_cap) * sizeof(*p));
			ops[i]->paths = p;
		}
	}
	cp->path_cap = cap;
	return 0;
}

static void set_comm(struct cp_thread *th, const char *comm, size_t max)
{
	size_t n = strnlen(comm, max < sizeof(th->comm) ? max : sizeof(th->comm) - 1);

	if (!n)
		return;
	memcpy(th->comm, comm, n);
	th->comm[n] = '\0';
	th->is_log = strcmp(th->comm, CP_LOG_THREAD) == 0;
}

static struct cp_thread *get(struct critical_path *cp, int32_t tid)
{
	bool inserted;
	uint64_t *idx;
	struct cp_thread *th;

	if (tid <= 0)
		return NULL;
	if ((th = corecap_tid_cache_get(&cp->recent, tid)))
		return th;
	idx = corecap_u64map_upsert(&cp->by_tid, (uint64_t)(uint32_t)tid, &inserted);
	if (!idx)
		return NULL;
	if (!inserted)
		return corecap_tid_cache_put(&cp->recent, tid, cp->all[*idx]);
	if ((cp->len == cp->path_cap && grow_paths(cp)) || !(th = calloc(1, sizeof(*th)))) {
		corecap_u64map_remove(&cp->by_tid, (uint64_t)(uint32_t)tid);
		return NULL;
	}
	idx = corecap_u64map_find(&cp->by_tid, (uint64_t)(uint32_t)tid);
	th->tid = tid;
	th->index = (uint32_t)cp->len;
	th->wait_cpu = UINT32_MAX;
	/* The CPUs it was switched to before it was met (not a target then). */
	for (uint32_t c = 0; c < cp->nr_cpus; c++)
		if (cp->cpu_tid[c] == tid) {
			th->n_held++;
			th->held_cpu = c;
		}
	*idx = cp->len;
	cp->all[cp->len++] = th;
	return corecap_tid_cache_put(&cp->recent, tid, th);
}

/* th out of its CPU's waiters, if it is among them. */
static void wait_unlink(struct critical_path *cp, struct cp_thread *th)
{
	if (th->wait_cpu < cp->nr_cpus) {
		if (th->wait_prev)
			cp->all[th->wait_prev - 1]->wait_next = th->wait_next;
		else
			cp->waiters[th->wait_cpu] = th->wait_next;
		if (th->wait_next)
			cp->all[th->wait_next - 1]->wait_prev = th->wait_prev;
		th->wait_prev = th->wait_next = 0;
	}
	th->wait_cpu = UINT32_MAX;
}

/* Sets th's state; a thread no longer runnable waits for no CPU. */
static void set_state(struct critical_path *cp, struct cp_thread *th, enum cp_state state)
{
	if (state != CPS_RUNNABLE)
		wait_unlink(cp, th);
	th->state = state;
}

/*
 * th waits for CPU cpu (UINT32_MAX: unknown): first among that CPU's
 * waiters, whom flush_waiters charges when its holder changes (a list per
 * CPU: a switch costs its own CPU's waiters, not every runnable thread's).
 */
static void set_runnable(struct critical_path *cp, struct cp_thread *th, uint32_t cpu)
{
	set_state(cp, th, CPS_RUNNABLE);
	wait_unlink(cp, th);
	th->wait_cpu = cpu;
	if (cpu < cp->nr_cpus) {
		th->wait_next = cp->waiters[cpu];
		if (th->wait_next)
			cp->all[th->wait_next - 1]->wait_prev = th->index + 1;
		cp->waiters[cpu] = th->index + 1;
	}
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
static struct cp_node *node_at(const struct critical_path *cp, uint64_t h)
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
static struct cp_node *node_push(struct critical_path *cp, struct cp_thread *th, uint8_t kind)
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
	n = th->head_shared || th->head <= cp->last_anchor ? NULL : node_at(cp, th->head);
	if (n && n->kind == kind && n->to == from && n->tid == tid && n->cat == cat) {
		n->to = to;
		return;
	}
	if (!(n = node_push(cp, th, kind)))
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
		const struct cp_node *nd = node_at(cp, h);
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
static void flush_run(struct critical_path *cp, struct cp_thread *th)
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
	qsort(cp->open_runs, cp->n_open_runs, sizeof(*cp->open_runs), cmp_index);
	for (size_t i = 0; i < cp->n_open_runs; i++) {
		struct cp_thread *th = cp->all[cp->open_runs[i]];

		th->run_listed = false;
		flush_run(cp, th);
	}
	cp->n_open_runs = 0;
}

/* th's pending stretch decided: at most io_max of each op's part of it is
 * cat (UINT64_MAX: all of it), the rest queue. */
static void resolve_pending_upto(struct critical_path *cp, struct cp_thread *th, uint32_t cat,
				 uint64_t io_max)
{
	struct cp_node *n;

	flush_run(cp, th);
	if (cp->n_inflight && (n = node_push(cp, th, CPN_RESOLVE))) {
		n->cat = (uint8_t)cat;
		n->tid = cat == CAT_QUEUE ? CP_NOBODY : th->tid;
		n->to = io_max;
	}
	th->pending = false;
}

static void resolve_pending(struct critical_path *cp, struct cp_thread *th, uint32_t cat)
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
static void resolve_pending_aio(struct critical_path *cp, struct cp_thread *th,
				const struct model_event *ev)
{
	uint64_t submit, from;

	if (ev->io.dur_ns > ev->ts_ns || (submit = ev->ts_ns - ev->io.dur_ns) >= th->pend_e) {
		resolve_pending(cp, th, CAT_QUEUE);
		return;
	}
	from = submit > th->pend_b ? submit : th->pend_b;
	resolve_pending_upto(
		cp, th, th->log_depth || ev->io.io_class == CORECAP_IO_LOG ? CAT_LOGGING : CAT_IO,
		th->pend_e - from);
}

/* Charges th's state from th->since up to t. */
static void advance(struct critical_path *cp, struct cp_thread *th, uint64_t t)
{
	const struct cp_thread *holder;
	uint32_t cat;
	int32_t htid;
	bool logger;

	if (t <= th->since)
		return;
	if (th->state != CPS_UNKNOWN && th->state != CPS_RUNNING)
		flush_run(cp, th);
	switch (th->state) {
	case CPS_UNKNOWN:
	case CPS_RUNNING:
		cat = running_cat(th);
		if (th->run_open && th->run_cat == cat && th->run_to == th->since) {
			th->run_to = t;
		} else {
			flush_run(cp, th);
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
		htid = th->wait_cpu < cp->nr_cpus ? cp->cpu_tid[th->wait_cpu] : CP_NOBODY;
		holder = find(cp, htid);
		logger = holder && holder->state == CPS_RUNNING &&
			 running_cat(holder) == CAT_LOGGING;
		if (logger)
			cat = th->log_depth ? CAT_LOGGING : CP_RUNQ_LOGGING;
		else
			cat = th->log_depth ? CP_RUNQ_IN_LOG : CP_RUNQUEUE;
		charge(cp, th, th->since, t, cat, htid);
		break;
	case CPS_BLOCKED:
		if (th->stopped)
			charge(cp, th, th->since, t, running_cat(th), th->tid);
		else
			charge(cp, th, th->since, t, CP__COUNT, th->tid);
		break;
	}
	th->since = t;
	if (t > cp->max_since)
		cp->max_since = t;
}

/* The threads waiting for CPU `cpu`, charged up to t (its holder changes). */
static void flush_waiters(struct critical_path *cp, uint32_t cpu, uint64_t t)
{
	for (uint32_t i = cp->waiters[cpu]; i; i = cp->all[i - 1]->wait_next)
		advance(cp, cp->all[i - 1], t);
}

/*
 * CPU cpu switched to tid: the holders' counts of CPUs kept (a thread
 * holds more than one only when a switch-out was lost), for a log
 * call's flush of its CPU's waiters without looking at every CPU.
 */
static void set_holder(struct critical_path *cp, uint32_t cpu, int32_t tid)
{
	int32_t old = cp->cpu_tid[cpu];
	struct cp_thread *th;

	if (old == tid)
		return;
	cp->cpu_tid[cpu] = tid;
	if ((th = find(cp, old)) && th->n_held && --th->n_held && th->held_cpu == cpu)
		for (uint32_t c = 0; c < cp->nr_cpus; c++)
			if (cp->cpu_tid[c] == old)
				th->held_cpu = c;
	if ((th = find(cp, tid))) {
		th->n_held++;
		th->held_cpu = cpu;
	}
}

static int on_switch(struct critical_path *cp, const struct corecap_krec_switch *s)
{
	uint64_t t = s->h.time_ns;
	uint32_t cpu = s->h.cpu;
	struct cp_thread *th;

	if (cpu >= cp->nr_cpus)
		return 0;
	flush_waiters(cp, cpu, t);
	if ((s->flags & CORECAP_KSWITCH_PREV_TARGET) && s->prev_tid > 0) {
		if (!(th = get(cp, s->prev_tid)))
			return -ENOMEM;
		if (th->state == CPS_RUNNABLE || th->state == CPS_BLOCKED)
			cp->inconsistent++;
		advance(cp, th, t);
		th->off_ns = t;
		if (s->prev_state_char == 'R' || th->woken_running) {
			set_runnable(cp, th, cpu);
		} else {
			/* Blocked again before its trace said why it was last time. */
			if (th->pending)
				resolve_pending(cp, th, CAT_QUEUE);
			set_state(cp, th, CPS_BLOCKED);
			th->blocked_since = t;
			th->stopped = s->prev_state_char == 't' || s->prev_state_char == 'T';
			th->exited = s->prev_state_char == 'X' || s->prev_state_char == 'Z';
			th->blocked_d = s->prev_state_char == 'D';
			th->dev_woken = 0;
		}
		th->woken_running = false;
	}
	set_holder(cp, cpu, s->next_tid);
	if ((s->flags & CORECAP_KSWITCH_NEXT_TARGET) && s->next_tid > 0) {
		if (!(th = get(cp, s->next_tid)))
			return -ENOMEM;
		if (th->state == CPS_RUNNING || th->state == CPS_BLOCKED)
			cp->inconsistent++;
		advance(cp, th, t);
		set_state(cp, th, CPS_RUNNING);
		th->woken_running = false;
		th->stopped = false;
	}
	return 0;
}

#define WAIT_KEY(from, to, kind) (((uint64_t)(from) << 34) | ((uint64_t)(to) << 4) | (kind))
#define WAIT_TO_MASK		 ((1u << 30) - 1)
/*
 * The waker of a sleep that no daemon thread ended, as wPerf's pseudo
 * threads: an interrupt (the network's softirq, a timer's expiry) or
 * another process (a client writing to a loopback socket): indices no
 * thread has.
 */
#define WAIT_TO_IRQ	  WAIT_TO_MASK
#define WAIT_TO_OTHER	  (WAIT_TO_MASK - 1)
#define WAIT_TO_NOT_WOKEN (WAIT_TO_MASK - 2) /* still asleep when the window ended */

/*
 * A thread of unknown state that a window is clipped to (first seen being
 * woken, or never scheduled): asleep since the window's start, in no futex
 * wait known. False when there is no window to start from.
 */
static bool asleep_since_window(struct critical_path *cp, struct cp_thread *th)
{
	if (th->state != CPS_UNKNOWN || !cp->we)
		return false;
	th->blocked_since = cp->ws;
	th->futex_kind = 0;
	return true;
}

/* th slept from blocked_since until `to` (a thread's index, or WAIT_TO_*)
 * woke it at t: an edge th -> to; for WAIT_TO_OTHER, foreign_tid is the
 * other process's waking thread. */
static int add_wait(struct critical_path *cp, const struct cp_thread *th, uint32_t to, uint64_t t,
		    int32_t foreign_tid)
{
	uint64_t b = th->blocked_since, e = t, key, *ns, *n;

	if (cp->we) {
		if (b < cp->ws)
			b = cp->ws;
		if (e > cp->we)
			e = cp->we;
	}
	if (e <= b)
		return 0;
	key = WAIT_KEY(th->index, to, th->futex_kind);
	if (!(ns = corecap_u64map_upsert(&cp->wait_ns, key, NULL)))
		return -ENOMEM;
	*ns += e - b;
	if (!(n = corecap_u64map_upsert(&cp->wait_n, key, NULL)))
		return -ENOMEM;
	(*n)++;
	if (to != WAIT_TO_OTHER || foreign_tid <= 0)
		return 0;
	key = WAIT_KEY(th->index, (uint32_t)foreign_tid & WAIT_TO_MASK, th->futex_kind);
	if (!(ns = corecap_u64map_upsert(&cp->wait_foreign_ns, key, NULL)) ||
	    !(n = corecap_u64map_upsert(&cp->wait_foreign_n, key, NULL)))
		return -ENOMEM;
	*ns += e - b;
	(*n)++;
	return 0;
}

/* The category of a wait on the device: logging inside a log call or on the log thread. */
static uint32_t device_cat(const struct cp_thread *th)
{
	return th->log_depth || th->is_log ? CAT_LOGGING : CAT_IO;
}

/* The most nodes a hand-off copies from its waker (its stretches since its wake). */
#define CP_HANDOFF_NODES 32

/*
 * th, asleep in a futex wait since before its waker's last wake, is woken
 * by waker at t, and the waker's last wake (at ti) came from nobody of the
 * daemon, out of a sleep outside a futex: the device's completion (an aio
 * reaper in io_getevents, e.g. BlueStore's bstore_aio, woken by the
 * completion's interrupt or its kworker) handed to th through a condition
 * variable (the kv_sync thread waiting for its aio). th's walk then goes
 * on its own chain: its wait up to ti was on the device (io, credited to
 * the waker), and from ti to t it waited for the waker, whose stretches
 * there are copied onto th's chain (the waker's earlier sleep is not the
 * op's: the op was with th). False when it does not apply (nothing is
 * changed then): the waking is an ordinary one.
 */
static bool device_handoff(struct critical_path *cp, struct cp_thread *th, struct cp_thread *waker,
			   uint64_t t)
{
	uint64_t ti = waker->dev_woken, covered = 0, h;
	struct cp_node copy[CP_HANDOFF_NODES], *n;
	size_t nc = 0;

	if (!ti || ti > t || !cp->n_inflight || th->state != CPS_BLOCKED || !th->futex_kind ||
	    th->stopped || th->pending || th->blocked_since > ti || th->since > ti)
		return false;
	advance(cp, waker, t);
	flush_run(cp, waker);
	/* The waker's stretches since ti: charges (it was awake), covering ti..t,
	 * and the resolves of its sleep before ti (a trace event after it). */
	for (h = waker->head; covered < t - ti; h = n->prev) {
		n = node_at(cp, h);
		if (n && n->kind == CPN_RESOLVE)
			continue;
		if (!n || n->kind != CPN_CHARGE || n->from < ti || nc == CP_HANDOFF_NODES)
			return false;
		copy[nc++] = *n;
		covered += n->to - n->from;
	}
	if (covered != t - ti)
		return false;
	advance(cp, th, ti);
	if ((n = node_push(cp, th, CPN_RESOLVE))) {
		n->cat = (uint8_t)device_cat(th);
		n->tid = waker->tid;
		n->to = UINT64_MAX;
	}
	while (nc && (n = node_push(cp, th, CPN_CHARGE))) {
		uint64_t prev = n->prev;

		*n = copy[--nc];
		n->prev = prev;
	}
	th->since = t;
	return true;
}

static int on_waking(struct critical_path *cp, const struct corecap_krec_waking *w)
{
	uint64_t t = w->h.time_ns;
	struct cp_thread *th = get(cp, w->tid), *waker;
	bool irq = (w->flags & CORECAP_KWAKING_ANY_IRQ) || w->waker_tid <= 0, handoff;
	int ret;

	if (!th)
		return -ENOMEM;
	if (th->state == CPS_RUNNING) {
		/* Woken before its own switch-out: it never slept. */
		th->woken_running = true;
		return 0;
	}
	if (th->state == CPS_RUNNABLE)
		return 0;
	waker = irq ? NULL : find(cp, w->waker_tid);
	if (waker == th)
		waker = NULL;
	handoff = waker && device_handoff(cp, th, waker, t);
	advance(cp, th, t);
	if (th->stopped) {
		/* Resumed by its tracer (the sampler): no wait, no edge. */
		th->stopped = false;
		set_runnable(cp, th, w->target_cpu >= 0 ? (uint32_t)w->target_cpu : UINT32_MAX);
		return 0;
	}
	/* A thread first seen being woken slept from before the window. */
	if ((th->state == CPS_BLOCKED || asleep_since_window(cp, th)) && w->waker_tid != th->tid &&
	    (ret = add_wait(cp, th,
			    waker ? waker->index
			    : irq ? WAIT_TO_IRQ
				  : WAIT_TO_OTHER,
			    t, irq ? 0 : w->waker_tid)))
		return ret;
	if (handoff) {
		/* Its walk goes on on its own chain (device_handoff). */
		th->dev_woken = 0;
	} else if (waker) {
		/* The walk back from th continues on its waker from here. */
		struct cp_node *n;

		th->dev_woken = 0;
		advance(cp, waker, t);
		flush_run(cp, th);
		flush_run(cp, waker);
		/* Its pending time so far is queue: nobody's. */
		if (cp->n_inflight && (n = node_push(cp, th, CPN_JOIN))) {
			n->prev = waker->head;
			n->waker = waker->index;
			waker->head_shared = true;
		}
		th->pending = false;
	} else if (th->state == CPS_BLOCKED) {
		/* Nobody of the daemon: the trace may say what it waited for. */
		th->pending = true;
		th->pend_b = th->blocked_since;
		th->pend_e = t;
		/* Outside a futex: perhaps the device's completion, which a
		 * futex wait it then ends hands on (device_handoff). */
		th->dev_woken = th->futex_kind ? 0 : t;
		/* An uninterruptible sleep that nobody of the daemon ended is
		 * a wait in the kernel for the device (fdatasync, a direct
		 * write), ended by its completion: io. */
		if (th->blocked_d)
			resolve_pending(cp, th, device_cat(th));
	}
	set_runnable(cp, th, w->target_cpu >= 0 ? (uint32_t)w->target_cpu : UINT32_MAX);
	return 0;
}

static int krec(struct critical_path *cp, const struct corecap_krec *r)
{
	struct cp_thread *th;

	switch (r->type) {
	case CORECAP_KREC_SWITCH:
		return on_switch(cp, (const struct corecap_krec_switch *)r);
	case CORECAP_KREC_WAKING:
		return on_waking(cp, (const struct corecap_krec_waking *)r);
	case CORECAP_KREC_FUTEX_ENTER: {
		const struct corecap_krec_futex_enter *f = (const void *)r;
		uint32_t owner;
		bool mutex;

		if (!CORECAP_FUTEX_IS_WAIT(f->op))
			return 0;
		if (!(th = get(cp, f->tid)))
			return -ENOMEM;
		/* As the futex table tells a mutex's wait (futex_locks.h); a
		 * re-lock as a condition wait returns needs its call site, which
		 * the graph has not: it stays a lock edge. */
		owner = f->val & CORECAP_FUTEX_TID_MASK;
		mutex = corecap_futex_wait_is_mutex(f->op, f->val,
						    owner && find(cp, (int32_t)owner) != NULL);
		th->futex_kind = mutex ? CPW_LOCK : CPW_COND;
		return 0;
	}
	case CORECAP_KREC_FUTEX_EXIT: {
		const struct corecap_krec_futex_exit *f = (const void *)r;

		if ((th = find(cp, f->tid)))
			th->futex_kind = 0;
		return 0;
	}
	case CORECAP_KREC_HOLDER:
		return on_holder(cp, (const struct corecap_krec_holder *)r);
	case CORECAP_KREC_TRACK: {
		const struct corecap_krec_track *k = (const void *)r;

		if (!(th = get(cp, k->tid)))
			return -ENOMEM;
		set_comm(th, k->comm, sizeof(k->comm));
		return 0;
	}
	case CORECAP_KREC_FORK: {
		const struct corecap_krec_fork *f = (const void *)r;

		if (!(f->flags & CORECAP_KFORK_SAME_PROCESS))
			return 0;
		if (!(th = get(cp, f->child_tid)))
			return -ENOMEM;
		set_comm(th, f->child_comm, sizeof(f->child_comm));
		set_runnable(cp, th, r->cpu); /* a new thread waits for its first CPU */
		th->since = r->time_ns;
		if (th->since > cp->max_since)
			cp->max_since = th->since;
		return 0;
	}
	default:
		return 0;
	}
}

int corecap_critical_path_krec(struct critical_path *cp, const struct corecap_krec *r)
{
	int ret = krec(cp, r);

	return ret ? ret : cp->oom ? -ENOMEM : 0;
}

static int feed_until(struct critical_path *cp, uint64_t t)
{
	int ret;

	if (cp->pull)
		return cp->pull(cp->pull_ctx, t);
	while (cp->next_rec < cp->n_recs && cp->recs[cp->next_rec]->time_ns <= t)
		if ((ret = corecap_critical_path_krec(cp, cp->recs[cp->next_rec++])))
			return ret;
	return 0;
}

int corecap_critical_path_feed(struct critical_path *cp, uint64_t t)
{
	return feed_until(cp, t);
}

/*
 * The sleeps the window's end cut: a thread blocked then (or never
 * scheduled in the window at all) waited for nothing the window shows.
 * Their edges make every pool's edges sum to its blocked time.
 */
static int close_sleeps(struct critical_path *cp)
{
	int ret;

	if (!cp->we || cp->closed)
		return 0;
	cp->closed = true;
	for (size_t i = 0; i < cp->len; i++) {
		struct cp_thread *th = cp->all[i];
		bool asleep = th->state == CPS_BLOCKED && !th->exited && !th->stopped;

		if ((asleep || asleep_since_window(cp, th)) &&
		    (ret = add_wait(cp, th, WAIT_TO_NOT_WOKEN, cp->we, 0)))
			return ret;
	}
	return 0;
}

int corecap_critical_path_finish(struct critical_path *cp)
{
	int ret = feed_until(cp, UINT64_MAX);

	return ret ? ret : close_sleeps(cp);
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

static int on_begin(struct critical_path *cp, uint64_t id, bool ext, uint64_t ts)
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

/* The category of a wait the trace reports on a thread woken by nobody of
 * the daemon, if the wait covers that blocked stretch; queue otherwise. */
static uint32_t pending_cat(const struct critical_path *cp, const struct cp_thread *th,
			    const struct model_event *ev)
{
	uint64_t dur;
	uint32_t cat;

	switch (ev->kind) {
	case MEV_IO:
		dur = ev->io.dur_ns;
		cat = ev->io.io_class == CORECAP_IO_LOG ? CAT_LOGGING : CAT_IO;
		break;
	case MEV_LOCK_CONTENDED:
		dur = ev->lock.dur_ns;
		cat = cp->site_is_logging && cp->site_is_logging(cp->classify_ctx, ev->lock.site)
			      ? CAT_LOGGING
			      : CAT_LOCK_WAIT;
		break;
	case MEV_COND_WAIT:
		dur = ev->lock.dur_ns;
		cat = CAT_COND_WAIT;
		break;
	default:
		return CAT_QUEUE;
	}
	if (dur > ev->ts_ns || ev->ts_ns - dur >= th->pend_e)
		return CAT_QUEUE;
	return th->log_depth ? CAT_LOGGING : cat;
}

static int event(struct critical_path *cp, const struct model_event *ev)
{
	struct cp_thread *th;
	int ret;

	if ((ret = feed_until(cp, ev->ts_ns)))
		return ret;
	if (ev->kind == MEV_DISCARDED) {
		/* As the model: a lost log_exit must not leave a thread logging. */
		for (size_t i = 0; i < cp->len; i++)
			cp->all[i]->log_depth = 0;
		return 0;
	}
	if ((cp->pid >= 0 && ev->pid >= 0 && ev->pid != cp->pid) || ev->tid <= 0)
		return 0;
	if (!(th = get(cp, ev->tid)))
		return -ENOMEM;
	if (th->state == CPS_BLOCKED || th->state == CPS_RUNNABLE)
		cp->inconsistent++; /* an event of a thread not on a CPU */
	advance(cp, th, ev->ts_ns);
	if (th->pending && ev->kind == MEV_AIO)
		resolve_pending_aio(cp, th, ev);
	else if (th->pending)
		resolve_pending(cp, th, pending_cat(cp, th, ev));
	if (ev->comm && !th->comm[0])
		set_comm(th, ev->comm, sizeof(th->comm) - 1);
	switch (ev->kind) {
	case MEV_OP_BEGIN:
		return on_begin(cp, ev->op.id, false, ev->ts_ns);
	case MEV_LOG_ENTER:
	case MEV_LOG_EXIT:
		/* Its CPU's waiters were waiting behind its former category. */
		if (th->state == CPS_RUNNING && th->n_held == 1)
			flush_waiters(cp, th->held_cpu, ev->ts_ns);
		else if (th->state == CPS_RUNNING && th->n_held)
			for (uint32_t c = 0; c < cp->nr_cpus; c++)
				if (cp->cpu_tid[c] == th->tid)
					flush_waiters(cp, c, ev->ts_ns);
		if (ev->kind == MEV_LOG_ENTER)
			th->log_depth++;
		else if (th->log_depth)
			th->log_depth--;
		return 0;
	case MEV_THREAD_NAME: {
		struct cp_thread *named = get(cp, ev->thread.tid);

		if (!named)
			return -ENOMEM;
		if (ev->thread.name)
			set_comm(named, ev->thread.name, sizeof(named->comm) - 1);
		return 0;
	}
	default:
		return 0;
	}
}

int corecap_critical_path_event(struct critical_path *cp, const struct model_event *ev)
{
	int ret = event(cp, ev);

	return ret ? ret : cp->oom ? -ENOMEM : 0;
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

static int end_op(struct critical_path *cp, uint64_t id, bool ext, uint32_t type, int32_t tid,
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
	if ((th = find(cp, tid))) {
		/* Its time so far is this op's too (an ext op's end comes between
		 * events: the thread is charged up to it here). */
		advance(cp, th, end_ns);
		flush_run(cp, th);
	}
	if (cp->oom || (!exclude && end_ns >= op->begin_ns && th && th->index < cp->len &&
			replay(cp, op, th->index, &path)))
		return -ENOMEM;
	cp->inflight[at] = cp->inflight[--cp->n_inflight];
	if (!exclude && end_ns >= op->begin_ns) {
		th = find(cp, tid);
		if (!th || th->index >= cp->len) {
			cp->ops_without_path++;
		} else {
			advance(cp, th, end_ns);
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
	return end_op(cp, id, false, type, tid, end_ns, exclude);
}

int corecap_critical_path_ext_begin(struct critical_path *cp, uint64_t id, uint64_t ts)
{
	int ret = feed_until(cp, ts);

	return ret ? ret : on_begin(cp, id, true, ts);
}

int corecap_critical_path_ext_end(struct critical_path *cp, uint64_t id, uint32_t slot, int32_t tid,
				  uint64_t end_ns)
{
	int ret = feed_until(cp, end_ns);

	return ret ? ret : end_op(cp, id, true, slot, tid, end_ns, false);
}

int32_t corecap_critical_path_pick(const struct critical_path *cp, uint64_t t, uint64_t max_ago_ns,
				   int (*rank)(void *ctx, const char *comm), void *ctx)
{
	const struct cp_thread *best = NULL, *late = NULL;
	int best_rank = 0, late_rank = 0, r;

	for (uint32_t c = 0; c < cp->nr_cpus; c++) {
		const struct cp_thread *th = find(cp, cp->cpu_tid[c]);

		if (th && th->state == CPS_RUNNING && (r = rank(ctx, th->comm)) > best_rank) {
			best = th;
			best_rank = r;
		}
	}
	for (size_t i = 0; !best && i < cp->len; i++) {
		const struct cp_thread *th = cp->all[i];

		if (!th->off_ns || th->off_ns > t || t - th->off_ns > max_ago_ns ||
		    (r = rank(ctx, th->comm)) <= 0)
			continue;
		if (!late || r > late_rank || (r == late_rank && th->off_ns > late->off_ns)) {
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
		out[tid == 0		    ? CPB_IDLE
		    : find(cp, tid)	    ? CPB_DAEMON
		    : is_collector(cp, tid) ? CPB_COLLECTOR
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

const char *corecap_cp_wait_kind_name(enum cp_wait_kind k)
{
	static const char *const names[] = {"wake", "lock", "cond"};

	return k < CPW__COUNT ? names[k] : "?";
}

static void pool_of(const struct critical_path *cp, uint32_t index, char *out, size_t size)
{
	const struct cp_thread *th;

	if (index >= WAIT_TO_NOT_WOKEN) {
		snprintf(out, size, "%s",
			 index == WAIT_TO_IRQ	  ? CP_POOL_INTERRUPT
			 : index == WAIT_TO_OTHER ? CP_POOL_OTHER_PROCESS
						  : CP_POOL_NOT_WOKEN);
		return;
	}
	th = cp->all[index];
	if (th->comm[0])
		corecap_thread_pool_name(th->comm, out, size);
	else
		snprintf(out, size, "tid %d", (int)th->tid);
}

bool corecap_cp_edge_idle(const struct cp_edge *e)
{
	return !strcmp(e->to, CP_POOL_NOT_WOKEN);
}

size_t corecap_cp_edges_waiting(const struct cp_edge *e, size_t n)
{
	size_t i = 0;

	while (i < n && !corecap_cp_edge_idle(&e[i]))
		i++;
	return i;
}

static int edge_cmp(const void *a, const void *b)
{
	const struct cp_edge *x = a, *y = b;
	int c;

	if (corecap_cp_edge_idle(x) != corecap_cp_edge_idle(y))
		return corecap_cp_edge_idle(x) ? 1 : -1;
	/* Contention (a mutex) ranks first and alone; waiting for work does not rank with it. */
	if ((x->kind == CPW_LOCK) != (y->kind == CPW_LOCK))
		return x->kind == CPW_LOCK ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	if ((c = strcmp(x->from, y->from)) || (c = strcmp(x->to, y->to)))
		return c;
	return (int)x->kind - (int)y->kind;
}

/* Adds e into v[0..*len) (the edge of its pools and kind), or appends it. */
static struct cp_edge *merge_edge(struct cp_edge *v, size_t *len, const struct cp_edge *e)
{
	size_t j;

	for (j = 0; j < *len; j++)
		if (v[j].kind == e->kind && !strcmp(v[j].from, e->from) && !strcmp(v[j].to, e->to))
			break;
	if (j < *len) {
		v[j].ns += e->ns;
		v[j].wakes += e->wakes;
	} else {
		v[(*len)++] = *e;
	}
	return &v[j];
}

/*
 * The wakes by the collector (its ptrace sampler's interrupts end sleeps)
 * move from "(other process)" to "(profiler)": HOLDER records name the
 * collector's threads only after their first wakes, so this is done here.
 */
static void profiler_edges(const struct critical_path *cp, struct cp_edge *v, size_t *len)
{
	uint64_t key, ns;

	for (size_t i = 0; corecap_u64map_next(&cp->wait_foreign_ns, &i, &key, &ns);) {
		const uint64_t *wakes = corecap_u64map_find(&cp->wait_foreign_n, key);
		int32_t tid = (int32_t)((key >> 4) & WAIT_TO_MASK);
		struct cp_edge e = {.kind = (enum cp_wait_kind)(key & 15), .ns = ns};

		if (cp->collector_pid <= 0 ||
		    (tid != cp->collector_pid &&
		     corecap_critical_path_holder_tgid(cp, tid) != cp->collector_pid))
			continue;
		e.wakes = wakes ? *wakes : 0;
		pool_of(cp, (uint32_t)(key >> 34), e.from, sizeof(e.from));
		for (size_t j = 0; j < *len; j++) {
			if (v[j].kind != e.kind || strcmp(v[j].from, e.from) ||
			    strcmp(v[j].to, CP_POOL_OTHER_PROCESS))
				continue;
			v[j].ns -= e.ns < v[j].ns ? e.ns : v[j].ns;
			v[j].wakes -= e.wakes < v[j].wakes ? e.wakes : v[j].wakes;
		}
		snprintf(e.to, sizeof(e.to), "%s", CP_POOL_PROFILER);
		merge_edge(v, len, &e);
	}
}

/* Whether an edge is the profiler's and is cut (cp->cut_pool). */
static bool cut_edge(const struct critical_path *cp, const struct cp_edge *e)
{
	if (!e->ns)
		return true;
	if (!cp->cut_pool)
		return false;
	return !strcmp(e->to, CP_POOL_PROFILER) || cp->cut_pool(cp->cut_ctx, e->from) ||
	       cp->cut_pool(cp->cut_ctx, e->to);
}

int corecap_critical_path_waitfor(const struct critical_path *cp, struct cp_edge **out, size_t *n)
{
	struct cp_edge *v = calloc(cp->wait_ns.len + cp->wait_foreign_ns.len + 2, sizeof(*v));
	uint64_t key, ns;
	size_t len = 0, kept = 0;

	*out = NULL;
	*n = 0;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; corecap_u64map_next(&cp->wait_ns, &i, &key, &ns);) {
		struct cp_edge e = {.kind = (enum cp_wait_kind)(key & 15), .ns = ns};
		const uint64_t *wakes = corecap_u64map_find(&cp->wait_n, key);

		pool_of(cp, (uint32_t)(key >> 34), e.from, sizeof(e.from));
		pool_of(cp, (uint32_t)(key >> 4) & WAIT_TO_MASK, e.to, sizeof(e.to));
		e.wakes = wakes ? *wakes : 0;
		merge_edge(v, &len, &e);
	}
	profiler_edges(cp, v, &len);
	for (size_t i = 0; i < len; i++)
		if (!cut_edge(cp, &v[i]))
			v[kept++] = v[i];
	qsort(v, kept, sizeof(*v), edge_cmp);
	*out = v;
	*n = kept;
	return 0;
}

/* Tarjan's strongly connected components over the pools (a small graph). */
struct scc {
	size_t n;
	const bool *adj; /* n x n */
	int *index, *low, *comp, *stack;
	bool *on;
	int next, sp, n_comp;
};

static void strongconnect(struct scc *g, size_t v)
{
	g->index[v] = g->low[v] = g->next++;
	g->stack[g->sp++] = (int)v;
	g->on[v] = true;
	for (size_t w = 0; w < g->n; w++) {
		if (!g->adj[v * g->n + w])
			continue;
		if (g->index[w] < 0) {
			strongconnect(g, w);
			if (g->low[w] < g->low[v])
				g->low[v] = g->low[w];
		} else if (g->on[w] && g->index[w] < g->low[v]) {
			g->low[v] = g->index[w];
		}
	}
	if (g->low[v] == g->index[v]) {
		int w;

		do {
			w = g->stack[--g->sp];
			g->on[w] = false;
			g->comp[w] = g->n_comp;
		} while ((size_t)w != v);
		g->n_comp++;
	}
}

static size_t pool_index(char (*names)[32], size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(names[i], name))
			return i;
	snprintf(names[*n], sizeof(names[*n]), "%s", name);
	return (*n)++;
}

static int knot_cmp(const void *a, const void *b)
{
	const struct cp_knot *x = a, *y = b;

	return x->ns != y->ns ? (x->ns < y->ns ? 1 : -1) : strcmp(x->pools[0], y->pools[0]);
}

int corecap_critical_path_knots(const struct cp_edge *e, size_t n, struct cp_knot **out,
				size_t *n_out)
{
	size_t np = 0, cap = 2 * n + 1, nk = 0;
	char(*names)[32] = calloc(cap, sizeof(*names));
	size_t *from = calloc(n + 1, sizeof(*from)), *to = calloc(n + 1, sizeof(*to));
	bool *adj = NULL, *sink = NULL, *cyclic = NULL;
	struct scc g = {0};
	struct cp_knot *k = NULL;
	uint64_t total = 0;
	int ret = -ENOMEM;

	*out = NULL;
	*n_out = 0;
	if (!names || !from || !to)
		goto out;
	n = corecap_cp_edges_waiting(e, n); /* idle threads wait for no pool */
	for (size_t i = 0; i < n; i++) {
		total += e[i].ns;
		from[i] = pool_index(names, &np, e[i].from);
		to[i] = pool_index(names, &np, e[i].to);
	}
	adj = calloc(np * np + 1, sizeof(*adj));
	g = (struct scc){.n = np,
			 .adj = adj,
			 .index = malloc((np + 1) * sizeof(int)),
			 .low = malloc((np + 1) * sizeof(int)),
			 .comp = malloc((np + 1) * sizeof(int)),
			 .stack = malloc((np + 1) * sizeof(int)),
			 .on = calloc(np + 1, sizeof(bool))};
	sink = calloc(np + 1, sizeof(*sink));
	cyclic = calloc(np + 1, sizeof(*cyclic));
	k = calloc(np + 1, sizeof(*k));
	if (!adj || !g.index || !g.low || !g.comp || !g.stack || !g.on || !sink || !cyclic || !k)
		goto out;
	/* Weak edges (under 1% of all waits) are left out, as wPerf trims them. */
	for (size_t i = 0; i < n; i++)
		if (e[i].ns * 100 >= total)
			adj[from[i] * np + to[i]] = true;
	for (size_t v = 0; v < np; v++)
		g.index[v] = -1;
	for (size_t v = 0; v < np; v++)
		if (g.index[v] < 0)
			strongconnect(&g, v);
	for (int c = 0; c < g.n_comp; c++)
		sink[c] = true;
	for (size_t v = 0; v < np; v++)
		for (size_t w = 0; w < np; w++)
			if (adj[v * np + w]) {
				if (g.comp[v] != g.comp[w])
					sink[g.comp[v]] = false;
				else
					cyclic[g.comp[v]] =
						true; /* a cycle inside, a self-edge too */
			}
	for (int c = 0; c < g.n_comp; c++) {
		struct cp_knot *kn;

		if (!sink[c] || !cyclic[c])
			continue;
		kn = &k[nk++];
		for (size_t v = 0; v < np; v++)
			if (g.comp[v] == c && kn->n_pools < CP_KNOT_MAX_POOLS)
				snprintf(kn->pools[kn->n_pools++], sizeof(kn->pools[0]), "%s",
					 names[v]);
		for (size_t i = 0; i < n; i++)
			if (g.comp[from[i]] == c && g.comp[to[i]] == c && adj[from[i] * np + to[i]])
				kn->ns += e[i].ns;
	}
	qsort(k, nk, sizeof(*k), knot_cmp);
	*out = k;
	*n_out = nk;
	k = NULL;
	ret = 0;
out:
	free(k);
	free(cyclic);
	free(sink);
	free(g.on);
	free(g.stack);
	free(g.comp);
	free(g.low);
	free(g.index);
	free(adj);
	free(to);
	free(from);
	free(names);
	return ret;
}
