/*
 * osd: the op path of a shard worker (Ceph's OSD::dequeue_op and
 * PrimaryLogPG::do_op in miniature). For each op: the big lock when on,
 * then the op's PG lock, held while the store runs the op, the CPU work
 * (--op-cpu-us) is burnt and the log entries are built; then the op goes
 * to the finisher.
 *
 * Guarantees: ops of one PG never run concurrently; with the big lock,
 * no two ops run concurrently; the burnt CPU is measured in thread CPU
 * time, so preemption does not shorten it.
 */
#ifndef REFOSD_OSD_H
#define REFOSD_OSD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct finisher;
struct log;
struct op;
struct store;

struct pg {
	pthread_mutex_t lock;
	uint64_t version; /* ops applied, under lock */
};

struct osd {
	struct store *store;
	struct log *log;
	struct finisher *finisher;
	unsigned npgs;
	struct pg *pgs;
	bool big_lock_on;
	pthread_mutex_t big_lock;
	unsigned op_cpu_us;
	atomic_uint_fast64_t ops_done;
	/* The big lock's holds as refosd times them itself (CLOCK_MONOTONIC,
	 * from its lock's return to its unlock): main prints them at exit, for
	 * the tests to set against the shim's hold counters. */
	atomic_uint_fast64_t big_lock_holds;
	atomic_uint_fast64_t big_lock_held_ns;
};

/* Returns 0 or -ENOMEM. (main calibrates the CPU burner, burn.h.) */
int osd_init(struct osd *osd, unsigned pgs, bool big_lock, unsigned op_cpu_us, struct store *st,
	     struct log *lg, struct finisher *fin);

void osd_release(struct osd *osd);

/* The shard workers' handler (a shards_handler; ctx is the struct osd). */
void osd_handle_op(void *ctx, struct op *op);

/* Burn cpu_us microseconds of this thread's CPU time. */

#endif /* REFOSD_OSD_H */
