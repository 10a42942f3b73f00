/*
 * op_count: the op counter of corecap/annotate.h's annotations (version 3
 * of corecap/stats_layout.h). A program's annotations look up
 * corecap_shim_op_hook once, at start (the annotation header's
 * constructor, dlsym); a program that runs without the shim finds
 * nothing and each corecap_op_end stays one load and one predicted
 * branch. Under the shim, each op's end is one relaxed atomic add to the
 * calling thread's slot: no lock, no allocation, no syscall, so it is
 * safe in any thread and in a signal handler (an add interrupted by the
 * same thread's handler is not lost, as own_add's load and store could
 * be).
 */
#include <corecap/stats_layout.h>

#include "stats_shm.h"
#include "tstate.h"
#include "util.h"

/* What the annotations call at each op's end (through the hook's pointer). */
static void op_end(void)
{
	struct tstate *ts = &corecap_tstate;
	struct corecap_stats_header *h = __atomic_load_n(&g_stats.hdr, __ATOMIC_ACQUIRE);

	if (unlikely(!h))
		return;
	/* Attaching takes the structural lock: never under the shim's own guard. */
	if (unlikely(tstate_needs_attach(ts)) && ts->guard == 0) {
		ts->guard++;
		tstate_attach(ts);
		ts->guard--;
	}
	/* A fork child's region starts without the flag: set it at its first op. */
	if (unlikely(!(__atomic_load_n(&h->flags, __ATOMIC_RELAXED) & CORECAP_STATS_F_ANNOTATED)))
		__atomic_fetch_or(&h->flags, CORECAP_STATS_F_ANNOTATED, __ATOMIC_RELAXED);
	if (unlikely(ts->slot == &tstate_scratch_slot))
		shared_add(&h->ops_unslotted, 1);
	else
		shared_add(&ts->slot->ops, 1);
}

/*
 * The annotation header's constructor calls this (abi 1: a function of no
 * arguments per op end) and keeps what it returns; NULL for an abi this
 * shim does not speak. Marks the region annotated, so that stat tells a
 * daemon that ends no op from one that calls no annotation.
 */
CORECAP_EXPORT void (*corecap_shim_op_hook(unsigned abi))(void)
{
	struct corecap_stats_header *h = __atomic_load_n(&g_stats.hdr, __ATOMIC_ACQUIRE);

	if (abi != 1)
		return NULL;
	if (h)
		__atomic_fetch_or(&h->flags, CORECAP_STATS_F_ANNOTATED, __ATOMIC_RELAXED);
	return op_end;
}
