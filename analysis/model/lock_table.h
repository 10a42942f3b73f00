/*
 * lock_table: every lock the trace or the shim's stats mention, by
 * address, with its contention (count, total and max wait), its hold time
 * (from hold events, or the stats file when the shim counted every hold),
 * its acquisitions (stats only: uncontended acquisitions emit no event),
 * per call site the same figures, and the most frequent wait stacks.
 * Sites and stacks per lock are capped; what falls over a cap is counted,
 * never dropped silently.
 */
#ifndef CORECAP_LOCK_TABLE_H
#define CORECAP_LOCK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/u64map.h"

#define LOCK_STACK_DEPTH  16
#define LOCK_WAIT_SPANS	  16
#define LOCK_STACKS_MAX	  32
#define LOCK_KIND_UNKNOWN 0xff
/* Kinds of a futex word, by the futex command its waiters used
 * (docs/methodology.md: glibc's mutexes wait with FUTEX_WAIT, its condition
 * variables and timed locks with FUTEX_WAIT_BITSET). */
#define LOCK_KIND_FUTEX_WAIT	    4
#define LOCK_KIND_FUTEX_WAIT_BITSET 5
#define LOCK_KIND_FUTEX_PI	    6

/* Where a lock's figures come from: the shim (its events and counters), or
 * kernel futex events (model/futex_locks.h). */
enum lock_source { LOCK_SOURCE_SHIM, LOCK_SOURCE_FUTEX };

/* A thread and how many waits it had (waiter) or ended (holder). */
struct lock_tid {
	int32_t tid;
	uint64_t waits, wait_ns;
};

struct lock_site {
	uint64_t site;
	uint64_t contentions, wait_ns, max_wait_ns;
	uint64_t holds, hold_ns;
	bool is_logging;
	char *symbol;		/* filled by corecap_lock_table_symbolize */
	uint64_t sampled_waits; /* futex: waits whose stack was sampled here */
};

struct lock_stack {
	uint64_t count, wait_ns;
	uint32_t depth;
	uint64_t frames[LOCK_STACK_DEPTH];
};

/*
 * A union of intervals that arrive in end order: the latest LOCK_WAIT_SPANS
 * merged intervals stay open to merging; older ones are final (an
 * interval reaching back past them is clipped, so the union is never
 * overcounted).
 */
struct span_union {
	struct {
		uint64_t b, e;
	} v[LOCK_WAIT_SPANS];
	uint32_t n;
	uint64_t final_ns, final_until;
};

struct model_lock {
	uint64_t addr;
	uint32_t index; /* position in lock_table.all, stable */
	uint8_t kind;	/* corecap_lock's `kind`, LOCK_KIND_UNKNOWN if never seen */
	uint64_t contentions, wait_ns, max_wait_ns;
	uint64_t logging_wait_ns;	      /* of wait_ns: waits at sites in logging code */
	uint64_t holds, hold_ns, max_hold_ns; /* from hold events */
	/* The union of the wait intervals: time with at least one thread
	 * waiting for the lock (waits arrive at their end, in end order). */
	struct span_union waited;
	/* futex: the union of the waits and the hand-over holds: time the
	 * kernel saw the lock held or wanted. */
	struct span_union busy;
	bool has_stats;
	uint64_t stats_acquisitions, stats_contentions, stats_wait_ns, stats_hold_ns;
	uint64_t stats_holds; /* the holds stats_hold_ns sums (estimates alike: docs/shim.md) */
	struct lock_site *sites;
	size_t n_sites, cap_sites;
	struct lock_stack *stacks;
	size_t n_stacks;
	uint64_t stacks_over_cap; /* sampled stacks not kept: LOCK_STACKS_MAX reached */
	char *name;		  /* filled by corecap_lock_table_symbolize */
	bool ambiguous;		  /* its label is another lock's too (one site, two locks) */
	enum lock_source source;
	bool profiler; /* the profiler's own (model/profiler_own.h), cut: no row */
	/* futex: the threads that waited, and those whose wake ended a wait
	 * (the holders handing the lock over); at most one per thread. */
	struct lock_tid *waiters, *holders;
	size_t n_waiters, n_holders;
	uint64_t holder_unknown; /* waits that ended with no identifiable waker */
	/* futex: the waits here are not contention (model/futex_locks.h):
	 * condition and other futex waits of threads waiting for work, and
	 * the re-lock of a mutex right after such a wait (a hand-off). Such
	 * waits of a mutex's word are a lock of their own, at the same addr. */
	bool idle;
	uint64_t relock_waits; /* of an idle lock's contentions: hand-off re-locks */
};

struct lock_table {
	struct u64map by_addr;	 /* addr -> index in all */
	struct u64map site_acqs; /* site -> acquisitions there (shim stats, hot locks) */
	struct model_lock **all;
	size_t len, cap;
};

/* Names an address ("big_lock", "worker_run+0x43"); returns malloc'd text. */
typedef char *(*lock_namer_fn)(void *ctx, uint64_t addr, bool code);

void corecap_lock_table_init(struct lock_table *t);
void corecap_lock_table_release(struct lock_table *t);
struct model_lock *corecap_lock_table_get(struct lock_table *t, uint64_t addr);
/* The site record of `site` in `lock`, created if new; NULL if out of memory. */
struct lock_site *corecap_lock_table_site(struct model_lock *lock, uint64_t site, bool *created);
int corecap_lock_table_add_stack(struct model_lock *lock, const uint64_t *frames, uint32_t depth,
				 uint64_t wait_ns);
/* Names every lock and site through `namer`. */
void corecap_lock_table_symbolize(struct lock_table *t, lock_namer_fn namer, void *ctx);
/* Records the shim's count of acquisitions at a call site. */
int corecap_lock_table_set_site_acquisitions(struct lock_table *t, uint64_t site, uint64_t acqs);
/* The shim's count of acquisitions at a call site; false when it has none. */
bool corecap_lock_table_site_acquisitions(const struct lock_table *t, uint64_t site,
					  uint64_t *acqs);
/* Counts a wait of wait_ns for tid in the list *v (grown as needed); 0 or -ENOMEM. */
int corecap_lock_tid_add(struct lock_tid **v, size_t *n, int32_t tid, uint64_t wait_ns);
/* Orders every lock's stacks by count, most frequent first. */
void corecap_lock_table_sort_stacks(struct lock_table *t);
/* The site with the most wait (then contentions, then holds); NULL if none. */
const struct lock_site *corecap_lock_top_site(const struct model_lock *lock);
/*
 * The lock's one name, the same in every section of every format (the
 * diagnosis, the candidates, the projection, the lock tables, the op
 * split, the flame graphs, stat): the variable DWARF or the symbol table
 * gives it ("d.osd.big_lock"), else its hottest site as FUNCTION+0xOFF
 * ("shards_queue+0x32", what `corecap verify --site` takes), else its
 * address. Never a count or a decoration.
 */
void corecap_lock_label(const struct model_lock *lock, char *out, size_t size);
/*
 * Room for a lock's label (and a thread's or pool's name where one of
 * them is held): a C++ site with its arguments' types runs to hundreds of
 * bytes ("MemStore::queue_transactions(boost::intrusive_ptr<...>&,
 * std::vector<ceph::os::Transaction, std::allocator<...> >&, ...)+0x2f"),
 * and a name cut short is not the lock's name (verify refuses it).
 */
#define CORECAP_LOCK_LABEL_MAX 512
/*
 * Adds the wait [b, e) to the lock's waited-on union (the caller clips it
 * to the window).
 */
void corecap_lock_add_waited(struct model_lock *lock, uint64_t b, uint64_t e);
/* Time with at least one waiter. */
uint64_t corecap_lock_waited_ns(const struct model_lock *lock);
/* Adds [b, e) to a union; its total. */
void corecap_span_union_add(struct span_union *u, uint64_t b, uint64_t e);
uint64_t corecap_span_union_ns(const struct span_union *u);
/*
 * How busy the lock was as a server, at least: held, or wanted by a
 * waiter while being handed over; the larger of the two fractions, since
 * the shim cannot see the holds that barge in between (docs/methodology.md).
 * A futex word's: the larger of that and the union of its waits and
 * hand-over holds.
 */
uint64_t corecap_lock_busy_ns(const struct model_lock *lock);
/*
 * Contentions and total wait: the larger of what the trace saw and what
 * the shim counted (the stats see every wait of a hot lock; the trace
 * also those of locks the stats table had no room for).
 */
uint64_t corecap_lock_contentions(const struct model_lock *lock);
uint64_t corecap_lock_wait_ns(const struct model_lock *lock);
/* Total hold time: the stats file's when present, else the hold events'. */
uint64_t corecap_lock_hold_ns(const struct model_lock *lock);
const char *corecap_lock_kind_name(uint8_t kind);

#endif
