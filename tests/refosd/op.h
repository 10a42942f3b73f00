/*
 * op: one client request on its way through refosd (messenger -> shard
 * queue -> worker -> finisher). The op owns a copy of the request's name
 * and data and a reference on its connection; whoever holds the op pointer
 * owns it, and handing it on (shards_queue, finisher_queue) gives it away.
 */
#ifndef REFOSD_OP_H
#define REFOSD_OP_H

#include <stdint.h>
#include <time.h>

#include "protocol.h"

struct conn;

struct op {
	struct op *next; /* queue link */
	uint64_t id;	 /* corecap op_id, unique in the process */
	uint64_t tag;	 /* the client's, echoed in the reply */
	uint8_t type;	 /* PROTO_OP_* */
	uint8_t flags;	 /* the request's PROTO_FLAG_* */
	uint32_t pg;
	struct conn *conn;
	struct timespec recv_stamp; /* CLOCK_MONOTONIC at decode */
	uint16_t name_len;
	uint32_t data_len;
	char *name;	  /* NUL-terminated, inside buf */
	uint8_t *data;	  /* the write's payload, inside buf */
	int32_t result;	  /* 0 or a negative errno */
	void *reply_data; /* a read's payload (malloc'ed) */
	uint32_t reply_len;
	char buf[];
};

/* Copy req into a new op that holds a reference on conn. NULL when out of memory. */
struct op *op_new(const struct proto_request *req, struct conn *conn, uint64_t id, uint32_t pg);

/* Free op and drop its connection reference. */
void op_free(struct op *op);

#endif /* REFOSD_OP_H */
