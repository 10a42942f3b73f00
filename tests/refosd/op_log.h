/*
 * op_log: refbench's record of its ops for corecap (`--op-log FILE`, or
 * the file `corecap record --hosts` names in CORECAP_CLIENT_OPS), one
 * line per op: its op id as sent on the wire (protocol.h,
 * PROTO_FLAG_OP_ID), its type, and three CLOCK_MONOTONIC times: issued
 * (the latency refbench reports starts), sent (the request handed to the
 * socket) and received (the reply seen: the latency ends). The format is
 * docs/run-directory.md's client-ops.tsv. Lines are written whole, in
 * blocks of whole lines with O_APPEND, so that several refbench processes
 * can share one file. At most OP_LOG_MAX_OPS ops are written; the rest
 * are counted.
 */
#ifndef REFOSD_OP_LOG_H
#define REFOSD_OP_LOG_H

#include <stddef.h>
#include <stdint.h>

#define OP_LOG_MAX_OPS (1u << 20)
#define OP_LOG_BUF     65536

struct op_log {
	int fd; /* -1: not logging */
	const char *path;
	size_t len;
	uint64_t written, over_cap;
	int error; /* the first write error (negative errno); logging stops */
	char buf[OP_LOG_BUF];
};

/* Opens path for appending (created 0644 if absent, never through a symlink); 0 or a negative
 * errno. */
int op_log_open(struct op_log *l, const char *path);
void op_log_add(struct op_log *l, uint64_t op_id, const char *type, uint64_t issue_ns,
		uint64_t send_ns, uint64_t recv_ns);
/* Writes what is buffered and closes; 0 or the first write error. */
int op_log_close(struct op_log *l);

#endif /* REFOSD_OP_LOG_H */
