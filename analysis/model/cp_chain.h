/*
 * cp_chain: what the critical path's replay engine (cp_replay.c) calls in
 * its per-op path attribution (critical_path.c): a thread by tid, the
 * charging of a thread's time onto its chain of nodes (advance, a run
 * flushed, a blocked stretch's category decided, a node pushed), and an
 * op's begin and end. Declared apart from critical_path.h, which is the
 * critical path's interface to the rest of the analysis.
 */
#ifndef CORECAP_CP_CHAIN_H
#define CORECAP_CP_CHAIN_H

#include <stdbool.h>
#include <stdint.h>

struct critical_path;
struct cp_thread;
struct cp_node;
struct model_event;

/* The thread tid as met so far, or NULL. */
struct cp_thread *corecap_cp_find(const struct critical_path *cp, int32_t tid);
/* The node at 1 + index h, or NULL when it is gone (older than every op in flight). */
struct cp_node *corecap_cp_node_at(const struct critical_path *cp, uint64_t h);
/* A new node of kind (enum cp_node_kind) at the head of th's chain (NULL: out of memory, cp->oom
 * set). */
struct cp_node *corecap_cp_node_push(struct critical_path *cp, struct cp_thread *th, uint8_t kind);
/* th's running stretch not yet added to the paths, added (one charge). */
void corecap_cp_flush_run(struct critical_path *cp, struct cp_thread *th);
/* th's pending (blocked) stretch decided: all of it cat. */
void corecap_cp_resolve_pending(struct critical_path *cp, struct cp_thread *th, uint32_t cat);
/* th's pending stretch ended by the aio that ev reaps: io since its submission, queue before. */
void corecap_cp_resolve_pending_aio(struct critical_path *cp, struct cp_thread *th,
				    const struct model_event *ev);
/* The critical path's replay reads sched's states: sched's on_advance
 * charges each thread's time as its state changes (cp_replay.c). */
void corecap_cp_follow_sched(struct critical_path *cp);
/* Charges th's state from th->since up to t. */
void corecap_cp_advance(struct critical_path *cp, struct cp_thread *th, uint64_t t);
/* Op id (ext: begun by corecap_critical_path_ext_begin) begun at ts. 0 or -ENOMEM. */
int corecap_cp_op_begin(struct critical_path *cp, uint64_t id, bool ext, uint64_t ts);
/* Op id ended at end_ns on thread tid: its path added to its type's (exclude: left out). 0 or
 * -ENOMEM. */
int corecap_cp_op_end(struct critical_path *cp, uint64_t id, bool ext, uint32_t type, int32_t tid,
		      uint64_t end_ns, bool exclude);

#endif
