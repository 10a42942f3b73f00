#include "wait_for.h"
#include "critical_path.h"
#include "thread_table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A thread of unknown state that a window is clipped to (first seen being
 * woken, or never scheduled): asleep since the window's start, in no futex
 * wait known. False when there is no window to start from.
 */
bool corecap_wait_for_asleep_since_window(const struct critical_path *cp,
					  const struct cp_thread *th)
{
	/* Unknown to sched: no switch-out (blocked since ws) and no futex call. */
	return corecap_cp_state(th) == CPS_UNKNOWN && cp->we;
}

/* th slept from corecap_cp_blocked_since until `to` (a thread's index, or WAIT_TO_*)
 * woke it at t: an edge th -> to; for WAIT_TO_OTHER, foreign_tid is the
 * other process's waking thread. */
int corecap_wait_for_add(struct critical_path *cp, const struct cp_thread *th, uint32_t to,
			 uint64_t t, int32_t foreign_tid)
{
	uint64_t b = corecap_cp_blocked_since(cp, th), e = t, key, *ns, *n;
	uint8_t kind = corecap_cp_futex_kind(th);

	if (cp->we) {
		if (b < cp->ws)
			b = cp->ws;
		if (e > cp->we)
			e = cp->we;
	}
	if (e <= b)
		return 0;
	key = WAIT_KEY(th->index, to, kind);
	if (!(ns = corecap_u64map_upsert(&cp->wait_ns, key, NULL)))
		return -ENOMEM;
	*ns += e - b;
	if (!(n = corecap_u64map_upsert(&cp->wait_n, key, NULL)))
		return -ENOMEM;
	(*n)++;
	if (to != WAIT_TO_OTHER || foreign_tid <= 0)
		return 0;
	key = WAIT_KEY(th->index, (uint32_t)foreign_tid & WAIT_TO_MASK, kind);
	if (!(ns = corecap_u64map_upsert(&cp->wait_foreign_ns, key, NULL)) ||
	    !(n = corecap_u64map_upsert(&cp->wait_foreign_n, key, NULL)))
		return -ENOMEM;
	*ns += e - b;
	(*n)++;
	return 0;
}

/*
 * The sleeps the window's end cut: a thread blocked then (or never
 * scheduled in the window at all) waited for nothing the window shows.
 * Their edges make every pool's edges sum to its blocked time.
 */
int corecap_wait_for_close_sleeps(struct critical_path *cp)
{
	int ret;

	if (!cp->we || cp->closed)
		return 0;
	cp->closed = true;
	for (size_t i = 0; i < cp->len; i++) {
		struct cp_thread *th = cp->all[i];
		bool asleep = corecap_cp_state(th) == CPS_BLOCKED && !corecap_cp_exited(th) &&
			      !corecap_cp_stopped(th);

		if ((asleep || corecap_wait_for_asleep_since_window(cp, th)) &&
		    (ret = corecap_wait_for_add(cp, th, WAIT_TO_NOT_WOKEN, cp->we, 0)))
			return ret;
	}
	return 0;
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
