/* op: see op.h. */
#include "op.h"

#include <stdlib.h>
#include <string.h>

#include "conn.h"

struct op *op_new(const struct proto_request *req, struct conn *conn, uint64_t id, uint32_t pg)
{
	struct op *op = malloc(sizeof(*op) + req->name_len + 1 + req->data_len);

	if (!op)
		return NULL;
	op->next = NULL;
	op->id = id;
	op->tag = req->tag;
	op->type = req->op;
	op->flags = req->flags;
	op->pg = pg;
	op->conn = conn;
	conn_get(conn);
	clock_gettime(CLOCK_MONOTONIC, &op->recv_stamp);
	op->name_len = req->name_len;
	op->data_len = req->data_len;
	op->name = op->buf;
	memcpy(op->name, req->name, req->name_len);
	op->name[req->name_len] = '\0';
	op->data = (uint8_t *)op->buf + req->name_len + 1;
	if (req->data_len)
		memcpy(op->data, req->data, req->data_len);
	op->result = 0;
	op->reply_data = NULL;
	op->reply_len = 0;
	return op;
}

void op_free(struct op *op)
{
	if (!op)
		return;
	conn_put(op->conn);
	free(op->reply_data);
	free(op);
}
