/*
 * op_table: the ops in flight (by op_id) and, per op type, what the
 * finished ones add up to: count, a latency histogram, the total of each
 * attribution category and a detail table (per lock, per I/O class, per
 * queue phase, per logging source). An op in flight carries its own
 * category totals, which by construction (model.c) sum to the time it has
 * lived; they reach its type only when it ends, so an op the trace lost
 * part of (tainted) can be left out whole. Memory: ops in flight plus one
 * histogram per type, whatever the length of the trace.
 */
#ifndef CORECAP_OP_TABLE_H
#define CORECAP_OP_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latency_hist.h"
#include "../util/u64map.h"

struct model_thread;

enum op_cat {
	CAT_CPU,
	CAT_LOCK_WAIT,
	CAT_COND_WAIT,
	CAT_LOGGING,
	CAT_IO,
	CAT_QUEUE,
	CAT_OTHER,
	CAT__COUNT
};

/* Sub-keys of the logging category's detail. */
enum log_source { LOG_ANNOTATED, LOG_IO, LOG_LOCK_WAIT, LOG_QUEUED_BEHIND, LOG__COUNT };

#define OP_DETAIL_KEY(cat, id) (((uint64_t)(cat) << 32) | (uint32_t)(id))
#define OP_DETAIL_CAT(key)     ((enum op_cat)((key) >> 32))
#define OP_DETAIL_ID(key)      ((uint32_t)(key))
#define OP_DETAIL_MAX	       8
#define OP_PHASE_NONE	       0 /* phase index before any phase event: "begin" */

struct model_op {
	uint64_t id;
	uint32_t type;
	uint32_t phase; /* index in op_table.phases */
	uint64_t begin_ns;
	bool begun; /* false: entered before its begin was seen */
	bool tainted;
	struct model_thread *owner;   /* the thread whose state the op is in */
	struct model_thread *threads; /* every thread with the op in context */
	uint32_t ctx_count;
	uint64_t queue_since;
	uint64_t cat_ns[CAT__COUNT];
	struct {
		uint64_t key, ns;
	} detail[OP_DETAIL_MAX];
	uint32_t n_detail;
	bool has_client;    /* a corecap_op:client event named it */
	uint64_t client_op; /* the client's id of the op */
	uint64_t reply_ns;  /* its reply's start: corecap_op:reply, else its last net send's; 0 none
			     */
	bool reply_marked;  /* reply_ns is corecap_op:reply's */
	struct model_op *free_next;
};

/*
 * A finished op the client named (corecap_op:client): its times in the
 * daemon's clock, for matching with the client's record of it
 * (pass/client_split.h). Kept for the first OP_CLIENT_MAX such ops.
 */
struct op_client_rec {
	uint64_t client_op;
	uint64_t begin_ns, end_ns;
	uint64_t reply_ns; /* when its reply left (model_op.reply_ns); 0 unknown */
};

#define OP_CLIENT_MAX (1u << 21)

struct op_type {
	char *name;
	struct latency_hist hist;
	uint64_t cat_ns[CAT__COUNT];
	struct u64map detail;	     /* OP_DETAIL_KEY -> ns */
	uint64_t detail_over_cap_ns; /* detail an op had no room for */
};

struct op_table {
	struct u64map inflight; /* op_id -> struct model_op * */
	struct model_op *free;
	struct op_type *types;
	size_t n_types;
	char **phases; /* interned phase names; [0] = "begin" */
	size_t n_phases;
	FILE *dump; /* optional: one line per finished op */
	/* Conservation, checked on every finished op. */
	uint64_t checked, violations, max_err_ns;
	uint64_t finished;
	/* The finished ops a client named, and those over OP_CLIENT_MAX. */
	struct op_client_rec *client;
	size_t n_client, client_cap;
	uint64_t client_over_cap;
};

int corecap_op_table_init(struct op_table *t, FILE *dump);
void corecap_op_table_release(struct op_table *t);
struct model_op *corecap_op_table_find(const struct op_table *t, uint64_t id);
/* Creates op `id` (never begun yet); NULL when out of memory. */
struct model_op *corecap_op_table_create(struct op_table *t, uint64_t id);
/* Forgets an op without accounting it. */
void corecap_op_table_drop(struct op_table *t, struct model_op *op);
int corecap_op_table_set_type(struct op_table *t, struct model_op *op, const char *type);
/* The index of a phase name, interned; OP_PHASE_NONE when out of memory. */
uint32_t corecap_op_table_phase(struct op_table *t, const char *name);
/* Charges [from, to) of op's time to a category and a detail key. */
void corecap_op_table_charge(struct model_op *op, enum op_cat cat, uint64_t detail_key,
			     uint64_t from, uint64_t to);
/*
 * Ends op at end_ns: checks conservation, writes the dump line, adds the
 * op to its type unless `exclude`, and frees it.
 */
int corecap_op_table_finish(struct op_table *t, struct model_op *op, uint64_t end_ns, bool exclude);
/* Names op by its client's id (corecap_op:client). */
void corecap_op_table_set_client(struct model_op *op, uint64_t client_op);
const char *corecap_op_cat_name(enum op_cat cat);
const char *corecap_log_source_name(enum log_source src);

#endif
