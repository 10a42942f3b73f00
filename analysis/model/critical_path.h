/*
 * critical_path: each annotated op's latency split along its critical
 * path (docs/methodology.md, "The critical path of an op"), from the
 * kernel's scheduler records (corecap/kernel_format.h) and the trace's
 * events, merged in time order in one pass.
 *
 * Walking back from an op's end on the thread that ended it: where that
 * thread ran, the time is its category (cpu, or logging inside a log call
 * or on a log thread); where it was runnable, `runqueue`, credited to the
 * thread that held its CPU then (logging when that thread was logging);
 * where it was blocked and another of the daemon's threads woke it, the
 * walk continues on the waker from the waking; where nothing of the
 * daemon woke it (an interrupt, another process), the blocked time is the
 * wait the trace reports there (io, lock_wait, cond_wait, logging), else
 * `queue`; an asynchronous I/O it reaped there (corecap_io:aio) makes the
 * blocked time since that I/O's submission io, and the rest `queue`.
 * Without the trace, from the kernel's records alone: an uninterruptible
 * sleep ('D') nobody of the daemon ended is io (the device's completion
 * ended it); and a thread in a futex wait woken by one whose own sleep
 * outside a futex nobody of the daemon ended (an aio reaper woken by the
 * completion) stays on its own walk: io up to the reaper's wake, then the
 * reaper's stretches since (the device's hand-off, e.g. BlueStore's
 * kv_sync thread waiting for its aio).
 *
 * Computed forward: for every op in flight and every thread X, the
 * categories of the walk from (X, now) back to the op's begin. X's own
 * time adds to it; a waking of X by W replaces it by W's. The op's answer
 * is its ending thread's at the end, and sums to the latency exactly
 * (checked on every op). Memory: ops in flight x threads, never events.
 *
 * Charged lazily: the walk from (X, now) is the same for every op in
 * flight, each op's being the part after its begin. So a charge is one
 * node on X's chain (a persistent list, newest first), a waking points
 * the woken thread's chain at its waker's, and an op's path is replayed
 * from its ending thread's chain at its end, in the order the charges
 * were made (the same sums and the same credits as charging every op in
 * flight at each step). Nodes older than the oldest op in flight are
 * dropped; an op that pins more than nodes_max of them has its paths
 * computed then and starts over from there (memory stays bounded).
 *
 * The same wakings give the wait-for graph between pools: a sleep of a
 * daemon thread ended by another daemon thread is an edge sleeper ->
 * waker, by what it slept in (a mutex, another futex wait, anything
 * else); its knots are the pools that wait for each other only.
 *
 * Its files: model/cp_replay.c follows the threads' states as sched
 * (model/sched.h) replays them from the kernel's records, with the
 * trace's events (wakings, hand-offs), and
 * charges their time through model/cp_chain.h to the per-op path
 * attribution in model/critical_path.c (the chains, the walks, the ops
 * and their types); model/wait_for.c keeps the wait-for graph. This
 * header is the interface of all three.
 */
#ifndef CORECAP_CRITICAL_PATH_H
#define CORECAP_CRITICAL_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <corecap/kernel_format.h>

#include "event.h"
#include "op_table.h"
#include "sched.h"
#include "../util/tid_cache.h"
#include "../util/u64map.h"

/* Categories: op_table's, then runqueue. */
#define CP_RUNQUEUE CAT__COUNT
#define CP__COUNT   (CAT__COUNT + 1)
/* Distinct (thread, category) credits kept per path; more are uncredited. */
#define CP_CREDITS 12
/* Live chain nodes kept before the oldest ops in flight start over (40 B each). */
#define CP_NODES_MAX (1u << 18)
/* The tid of a credit nobody had (queue), and of an unknown CPU holder. */
#define CP_NOBODY (-1)
/* The thread name whose CPU counts as logging (refosd's and Ceph's). */
#define CP_LOG_THREAD "log"

struct cp_credit {
	int32_t tid;
	uint32_t cat;
	uint64_t ns;
};

/* The walk from one thread back to one op's begin. */
struct cp_path {
	uint64_t ns[CP__COUNT];
	uint64_t pending_ns; /* blocked, its category not known yet */
	uint64_t uncredited_ns;
	/* What the annotations see otherwise: of ns[CAT_LOGGING], waits for a
	 * CPU a logging thread held outside a log call of the waiter's (its
	 * cpu there); of ns[CP_RUNQUEUE], waits inside one (its logging). */
	uint64_t runq_logging_ns, runq_in_log_ns;
	uint32_t n_credit;
	uint32_t last_credit;		     /* the credit added to last: the likeliest next */
	struct cp_credit credit[CP_CREDITS]; /* last: copies stop at n_credit */
};

/* A thread's state as sched (model/sched.h) has it: unknown before a
 * record said it (charged as running: the trace's events show it ran). */
enum cp_state { CPS_UNKNOWN, CPS_RUNNING, CPS_RUNNABLE, CPS_BLOCKED };

struct cp_thread {
	int32_t tid;
	uint32_t index; /* in critical_path.all and every op's paths */
	char comm[16];
	bool is_log; /* named CP_LOG_THREAD */
	/* sched's thread (its state, futex call in progress and last
	 * switch-out), NULL before a kernel record named it. */
	const struct sched_thread *st;
	uint64_t since;	    /* time up to which its paths are charged */
	uint32_t wait_cpu;  /* runnable: the CPU it waits for */
	uint32_t log_depth; /* inside annotated log calls */
	bool pending;	    /* woken by nobody of the daemon: pend_b.. awaits its category */
	uint64_t pend_b, pend_e;
	/* Its chain: 1 + the index of its newest node (critical_path.nodes), 0: none. */
	uint64_t head;
	bool head_shared; /* a woken thread's chain goes on from the head: it stays as it is */
	/* Runnable for a known CPU: its neighbours in that CPU's waiters
	 * (critical_path.waiters), 1 + their index in all, 0: none. */
	uint32_t wait_prev, wait_next;
	uint32_t n_held;   /* the CPUs whose last switch-in was to it (corecap_cp_holder) */
	uint32_t held_cpu; /* the last of them */
	/* Its last wake was by nobody of the daemon (a device's completion, an
	 * interrupt) from a sleep outside a futex: when (0: not so). */
	uint64_t dev_woken;
	/* Its running time [run_from, run_to) as run_cat, not yet added to
	 * the ops' paths: added once when the run ends or a path is read. */
	bool run_open;
	bool run_listed; /* in critical_path.open_runs */
	uint32_t run_cat;
	uint64_t run_from, run_to;
};

/* Another process's thread that held a CPU, as its HOLDER record names it. */
struct cp_holder {
	int32_t tgid;
	char comm[16];
};

struct cp_op {
	uint64_t id, begin_ns;
	bool ext;	 /* begun by corecap_critical_path_ext_begin: its own ids and types */
	uint64_t anchor; /* the index of the first node after its begin (or its last restart) */
	bool base_set;	 /* some of paths are not zero (zeroed at the next begin) */
	/* Each thread's path at the anchor, by thread index; capacity critical_path.path_cap. */
	struct cp_path *paths;
};

/* What a node of a thread's chain says (critical_path.nodes). */
enum cp_node_kind {
	CPN_CHARGE,  /* [from, to) as cat, credited to tid */
	CPN_PENDING, /* [from, to) blocked, its category decided by a later RESOLVE or JOIN */
	CPN_RESOLVE, /* the pending time before it: at most `to` of it cat, credited to
			tid (UINT64_MAX: all; an aio's stretch since its submission), the
			rest queue */
	CPN_JOIN,    /* woken by thread `waker`: the chain goes on with the waker's */
};

struct cp_node {
	uint64_t from, to;
	uint64_t prev; /* 1 + the index of the chain's next older node, 0: none */
	int32_t tid;
	uint32_t waker; /* JOIN: the waker's index */
	uint8_t kind, cat;
};

/* One addition to a path, in replay (its node's index orders them). */
struct cp_add {
	uint64_t seq, ns;
	int32_t tid;
	uint32_t cat;
};

/* Per op type: what its ops' critical paths add up to. */
struct cp_type {
	uint64_t count, latency_ns;
	uint64_t ns[CP__COUNT];
	uint64_t uncredited_ns;
	uint64_t runq_logging_ns, runq_in_log_ns; /* the paths' (cp_path) */
	struct u64map credit;			  /* CP_CREDIT_KEY(tid, cat) -> ns */
};
#define CP_CREDIT_KEY(tid, cat) (((uint64_t)(uint32_t)(tid) << 8) | (uint8_t)(cat))
#define CP_CREDIT_TID(key)	((int32_t)(uint32_t)((key) >> 8))
#define CP_CREDIT_CAT(key)	((uint32_t)((key)&0xff))

/* Kinds of a wait-for edge: what the woken thread slept in. */
enum cp_wait_kind {
	CPW_WAKE, /* any other sleep (poll, I/O, sleep) ended by the waker */
	CPW_LOCK, /* a mutex's wait (futex_locks.h): contention; the waker unlocked it */
	CPW_COND, /* the other futex waits, waiting for work (a condition, semaphore) */
	CPW__COUNT
};

/* One wait-for edge between pools: `from` slept until a thread of `to`
 * woke it, for ns in the window (critical_path_waitfor). */
/* The pseudo pools of the wait-for graph: sleeps no daemon thread ended. */
#define CP_POOL_INTERRUPT     "(interrupt)"
#define CP_POOL_OTHER_PROCESS "(other process)"
#define CP_POOL_NOT_WOKEN     "(not woken)" /* asleep at the window's end */
/* Woken by the collector that recorded the run (the ptrace sampler's
 * interrupts): the profiler's doing (model/profiler_own.h). */
#define CP_POOL_PROFILER "(profiler)"

struct cp_edge {
	char from[32], to[32]; /* pools; `to` may be a CP_POOL_* pseudo pool */
	enum cp_wait_kind kind;
	uint64_t ns, wakes;
};

/* One of a type's top (thread, category) pairs. */
struct cp_top {
	int32_t tid;
	uint32_t cat;
	uint64_t ns; /* total over the type's ops */
};

struct critical_path {
	int32_t pid; /* the daemon's trace events only; -1: any */
	bool (*site_is_logging)(void *ctx, uint64_t site);
	void *classify_ctx;
	/* Kernel records, sorted by time, fed before each trace event from
	 * recs (set_records); the analysis pass (pass/pass.h) feeds them
	 * through krec instead, in its one time-ordered merge. */
	const struct corecap_krec *const *recs;
	size_t n_recs, next_rec;
	struct u64map by_tid;	 /* tid -> index in all */
	struct tid_cache recent; /* in front of by_tid */
	struct cp_thread **all;
	size_t len, path_cap;
	uint32_t *open_runs; /* the indices of the threads with a run open; capacity path_cap */
	size_t n_open_runs;
	/* The scheduler's replay (model/sched.h), fed by krec: each thread's
	 * state (cp_thread.st; its on_advance hook charges a thread's time as
	 * the state changes) and who holds each CPU (corecap_cp_holder); a
	 * switch is fed to it between the replay's two halves of the switch.
	 * Other models read it (kernel_attrib.h's pass). */
	struct sched sched;
	/* Each CPU's runnable threads waiting for it: 1 + the first's index, 0: none. */
	uint32_t *waiters;
	uint32_t nr_cpus;
	/* Other processes' threads named by HOLDER records: tid -> 1 + index. */
	struct u64map holder_at;
	struct cp_holder *holders;
	size_t n_holders, cap_holders;
	int32_t collector_pid; /* the recording's collector (manifest), 0: unknown */
	struct cp_op **inflight;
	size_t n_inflight, cap_inflight;
	struct cp_op **spare; /* finished ops, reused with their paths */
	size_t n_spare;
	/* The threads' chains: nodes[i] is node lo + i; next index lo + n_nodes. */
	struct cp_node *nodes;
	uint64_t lo;
	size_t n_nodes, cap_nodes;
	size_t nodes_max;     /* more live nodes than this: the oldest ops start over */
	uint64_t restarts;    /* ops started over */
	uint64_t last_anchor; /* the newest op's anchor: nodes before it are not extended */
	uint64_t max_since;   /* the latest thread's since: an op begun before it is in the past */
	struct cp_add *adds;  /* replay's scratch */
	size_t cap_adds;
	bool oom;	       /* a node could not be kept: the next call fails with -ENOMEM */
	struct cp_type *types; /* by op_table type index */
	size_t n_types;
	struct cp_type *ext_types; /* the ext ops', by the caller's slot */
	size_t n_ext_types;
	/* The wait-for graph: (sleeper index, waker index, kind) -> ns, wakes. */
	struct u64map wait_ns, wait_n;
	/* Of the wakes by another process: (sleeper index, waker tid, kind) ->
	 * ns, wakes, so that the collector's are told apart once HOLDER
	 * records name it (they come after its first wakes). */
	struct u64map wait_foreign_ns, wait_foreign_n;
	/* Set: the wait-for graph leaves out the profiler's edges ("(profiler)"
	 * and those of each pool cut_pool says is the profiler's: ctx is
	 * cut_ctx; model/profiler_own.h gives the one the report uses). */
	bool (*cut_pool)(const void *cut_ctx, const char *pool);
	const void *cut_ctx;
	uint64_t ws, we;    /* the window the waits are clipped to (we 0: none) */
	bool closed;	    /* the sleeps cut by the window's end have their edges */
	uint64_t ops_ended; /* ops with a path: the per-op denominator */
	/* Conservation, per finished op. */
	uint64_t checked, violations, max_err_ns;
	uint64_t ops_without_path; /* ended before the kernel records said anything */
	/* Trace events of a thread off its CPU by sched (the records'
	 * contradictions are sched's: corecap_critical_path_inconsistent). */
	uint64_t events_off_cpu;
};

/* th's state by sched (read on every charge: a table, no branch per state;
 * sched's -1, before a thread's first record, is its first entry). */
static inline enum cp_state corecap_cp_state(const struct cp_thread *th)
{
	static const uint8_t of[SCHED__COUNT + 1] = {
		[0] = CPS_UNKNOWN,
		[SCHED_RUNNING + 1] = CPS_RUNNING,
		[SCHED_RUNNABLE + 1] = CPS_RUNNABLE,
		[SCHED_FUTEX + 1] = CPS_BLOCKED,
		[SCHED_BLOCKED + 1] = CPS_BLOCKED,
	};
	const struct sched_thread *st = th->st;

	return st && st->seen ? (enum cp_state)of[st->state + 1] : CPS_UNKNOWN;
}

/* Blocked in a ptrace or job-control stop ('t', 'T' at its switch-out):
 * the sampler's; its time is what it was doing, as running. */
static inline bool corecap_cp_stopped(const struct cp_thread *th)
{
	return corecap_cp_state(th) == CPS_BLOCKED &&
	       (th->st->off_state == 't' || th->st->off_state == 'T');
}

/* Gone: its exit record, or switched out dead ('X', 'Z'): no sleep after it. */
static inline bool corecap_cp_exited(const struct cp_thread *th)
{
	return th->st && (th->st->exited || th->st->off_state == 'X' || th->st->off_state == 'Z');
}

/* Asleep since (its last switch-out; the window's start before one). */
static inline uint64_t corecap_cp_blocked_since(const struct critical_path *cp,
						const struct cp_thread *th)
{
	return th->st && th->st->off_ns ? th->st->off_ns : cp->ws;
}

/* Inside a futex wait by sched: CPW_LOCK (a mutex's, sched_futex_call.mutex,
 * as the futex table tells them; a re-lock as a condition wait returns
 * needs its call site, which the graph has not: it stays a lock edge) or
 * CPW_COND; else 0. */
static inline uint8_t corecap_cp_futex_kind(const struct cp_thread *th)
{
	if (!th->st || !corecap_sched_in_futex_wait(th->st))
		return 0;
	return th->st->call.mutex ? CPW_LOCK : CPW_COND;
}

/* The records and events contradicting a thread's state: sched's and the trace's. */
static inline uint64_t corecap_critical_path_inconsistent(const struct critical_path *cp)
{
	return cp->sched.inconsistent + cp->events_off_cpu;
}

/* Who holds CPU c < nr_cpus (its last switch-in seen: any process's thread,
 * 0 idle); CP_NOBODY unknown. sched follows every CPU below nr_cpus. */
static inline int32_t corecap_cp_holder(const struct critical_path *cp, uint32_t c)
{
	return cp->sched.cpus[c].holder;
}

int corecap_critical_path_init(struct critical_path *cp, int32_t pid, uint32_t nr_cpus);
void corecap_critical_path_release(struct critical_path *cp);
/* The kernel records (sorted by time, as kernel_reader gives them), fed in
 * time order as trace events arrive; they stay owned by the caller. */
void corecap_critical_path_set_records(struct critical_path *cp,
				       const struct corecap_krec *const *recs, size_t n);
/* One kernel record, in time order (what set_records feeds). */
int corecap_critical_path_krec(struct critical_path *cp, const struct corecap_krec *r);
/* One trace event, in time order, before the model consumes it. */
int corecap_critical_path_event(struct critical_path *cp, const struct model_event *ev);
/*
 * Op `id` of op-table type `type` ended at end_ns on thread tid (the
 * model's verdict: `exclude` leaves it out, model.h's struct
 * model_op_end), once the model has consumed the event that ended it.
 */
int corecap_critical_path_op_end(struct critical_path *cp, uint64_t id, uint32_t type, int32_t tid,
				 uint64_t end_ns, bool exclude);
/*
 * Ops that no trace event begins or ends (Ceph's OpTracker ops,
 * model/ceph_critical.h): their own ids, and their figures by the caller's
 * slot (corecap_critical_path_ext_type). Each comes after the records up
 * to its time (set_records: fed here; pass/pass.h: merged), so it may come
 * between two trace events, in time order.
 */
int corecap_critical_path_ext_begin(struct critical_path *cp, uint64_t id, uint64_t ts);
int corecap_critical_path_ext_end(struct critical_path *cp, uint64_t id, uint32_t slot, int32_t tid,
				  uint64_t end_ns);
const struct cp_type *corecap_critical_path_ext_type(const struct critical_path *cp, uint32_t slot);
/* Feeds the records up to time t. */
int corecap_critical_path_feed(struct critical_path *cp, uint64_t t);
/*
 * The daemon's thread that rank (> 0: accepted, higher: preferred) puts
 * first among those on a CPU at time t (fed up to t); if
 * none is, among those that left a CPU in the max_ago_ns before t, the
 * latest of the best rank. 0 if none.
 */
int32_t corecap_critical_path_pick(const struct critical_path *cp, uint64_t t, uint64_t max_ago_ns,
				   int (*rank)(void *ctx, const char *comm), void *ctx);
/* Feeds the records left after the trace's last event. */
int corecap_critical_path_finish(struct critical_path *cp);
/* A type's figures, or NULL if none of its ops had a path (or cp is NULL). */
const struct cp_type *corecap_critical_path_type(const struct critical_path *cp, uint32_t type);
/* Its top n (thread, category) pairs, largest first, queue left out; how many. */
size_t corecap_critical_path_top(const struct cp_type *t, struct cp_top *out, size_t n);
/* Whom a type's runqueue waited behind: the daemon's threads, the
 * collector recording it (a thread of collector_pid: the profiler's own
 * cost on the path), another process's (a client, a CPU hog), an idle CPU
 * (the woken thread's wake-up latency), or nobody known (a CPU not
 * switched yet in the window, and runqueue left uncredited past
 * CP_CREDITS). */
enum cp_behind { CPB_DAEMON, CPB_COLLECTOR, CPB_OTHER, CPB_IDLE, CPB_UNKNOWN, CPB__COUNT };
/* out[CPB_*], summing to t->ns[CP_RUNQUEUE]. */
void corecap_critical_path_runq_behind(const struct critical_path *cp, const struct cp_type *t,
				       uint64_t out[CPB__COUNT]);
/* Its JSON key ("other_processes"), and its words for text and HTML ("other processes"). */
const char *corecap_cp_behind_name(enum cp_behind b);
const char *corecap_cp_behind_label(enum cp_behind b);
/*
 * The wait-for graph by pool (thread names without trailing digits), the
 * heaviest edges first: *out malloc'd, *n edges. 0 or -ENOMEM.
 */
/*
 * The wait-for graph's edges: the mutexes' (CPW_LOCK, contention) first,
 * then the others, each heaviest first, then the sleeps the window's
 * end cut (to CP_POOL_NOT_WOKEN: idle threads), which a picture or a knot
 * leaves out; every pool's edges sum to its blocked time in the window.
 */
int corecap_critical_path_waitfor(const struct critical_path *cp, struct cp_edge **out, size_t *n);
/* An edge to CP_POOL_NOT_WOKEN: waiting for nothing the window shows. */
bool corecap_cp_edge_idle(const struct cp_edge *e);
/* How many of the n edges (sorted as waitfor's) come before the idle ones. */
size_t corecap_cp_edges_waiting(const struct cp_edge *e, size_t n);
const char *corecap_cp_wait_kind_name(enum cp_wait_kind k);

/* A knot of the wait-for graph: pools that wait for each other in a cycle
 * and for no pool outside (a sink strongly connected component). */
#define CP_KNOT_MAX_POOLS 8
struct cp_knot {
	char pools[CP_KNOT_MAX_POOLS][32];
	size_t n_pools; /* of pools; a larger knot keeps its first CP_KNOT_MAX_POOLS */
	uint64_t ns;	/* the waits on the edges inside it */
};
/*
 * The knots of edges (as corecap_critical_path_waitfor gives them), edges
 * lighter than 1% of all the waits left out: *out malloc'd, heaviest first.
 * 0 or -ENOMEM.
 */
int corecap_critical_path_knots(const struct cp_edge *e, size_t n, struct cp_knot **out,
				size_t *n_out);
/* A category's name: op_table's, or "runqueue". */
const char *corecap_cp_cat_name(uint32_t cat);
/* A thread's name as the kernel or the trace gave it, or NULL. */
const char *corecap_critical_path_thread_name(const struct critical_path *cp, int32_t tid);
/* The process of another process's thread tid (its HOLDER record), 0: unknown. */
int32_t corecap_critical_path_holder_tgid(const struct critical_path *cp, int32_t tid);

#endif
