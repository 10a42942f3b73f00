/*
 * lock_rows: a lock table (model/lock_table.h) as the rows a reader
 * sees, in one order for every format. Locks with a name of their own
 * (a variable, a symbol) are a row each; heap locks, named only by where
 * they are taken, that share their source, kind and top call site are a
 * family (the per-PG locks all taken in PG::lock) and one row, summed:
 * contentions, wait and hold time add up, the max wait is the largest
 * member's. A lone heap lock stays its own row. The rows refer to the
 * table's locks and stay valid while the table does.
 *
 * Orders (all descending, ties by total wait, then contentions, then the
 * first member's address): total wait (the default, as perf lock and
 * mutrace), contentions, hold time (busy time for futex words), average
 * wait, max wait. A futex table lists its mutex rows (contention)
 * before its idle rows (model_lock.idle: condition and other waits of
 * threads waiting for work, and hand-off re-locks), each part in that
 * order; a family never mixes the two. A family's busy time is its
 * busiest member's (the members are distinct locks: a sum of theirs is no
 * utilization), so that busy_ns never exceeds the window.
 */
#ifndef CORECAP_LOCK_ROWS_H
#define CORECAP_LOCK_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lock_table.h"

enum lock_sort {
	LOCK_SORT_WAIT,
	LOCK_SORT_CONTENDED,
	LOCK_SORT_HOLD,
	LOCK_SORT_AVG,
	LOCK_SORT_MAX
};

struct lock_row {
	const struct model_lock **members; /* into lock_rows.members; most wait first */
	size_t n_members;
	bool family;		      /* several heap locks at one site */
	const struct lock_site *site; /* the top site (the family's shared one); NULL if none */
	uint8_t kind;
	enum lock_source source;
	bool idle; /* futex: not contention (model_lock.idle) */
	uint64_t contentions, wait_ns, max_wait_ns;
	bool has_max_wait; /* some member's waits were seen one by one (events) */
	uint64_t holds, hold_ns, busy_ns;
};

struct lock_rows {
	struct lock_row *v;
	size_t n;
	const struct model_lock **members;
};

/* "wait", "contended", "hold", "avg", "max"; false for anything else. */
bool corecap_lock_sort_parse(const char *s, enum lock_sort *out);
const char *corecap_lock_sort_name(enum lock_sort sort);
/* The order in words, for a table's title ("total wait"); futex: hold is busy time. */
const char *corecap_lock_sort_title(enum lock_sort sort, bool futex);
/*
 * The rows of t in `sort` order; trace: whether the run has the shim's
 * events (the max wait of a shim lock is known only from them). 0 or
 * -ENOMEM.
 */
int corecap_lock_rows_build(struct lock_rows *rows, const struct lock_table *t, enum lock_sort sort,
			    bool trace);
void corecap_lock_rows_release(struct lock_rows *rows);
/* How many of the rows (in order) come before the idle ones. */
size_t corecap_lock_rows_contended(const struct lock_rows *rows);
/* Mean wait of a contention, 0 without any. */
uint64_t corecap_lock_row_avg_wait_ns(const struct lock_row *row);
/* The row's name: the lock's one name (corecap_lock_label), a family's its site's. */
void corecap_lock_row_label(const struct lock_row *row, char *out, size_t size);
/* Whether the row's locks have no name of their own (heap locks: named by address or site). */
bool corecap_lock_row_nameless(const struct lock_row *row);
/* Holds counted in the same source as corecap_lock_hold_ns: hold_ns / holds is the mean hold. */
uint64_t corecap_lock_holds(const struct model_lock *lock);

#endif
