/*
 * client_ops: a run's client-ops.tsv (docs/run-directory.md), the
 * benchmark's own record of its ops, one per line: the op id it sent on
 * the wire, its type, and the CLOCK_MONOTONIC ns (the benchmark's host's
 * clock, which is the recording host's: the benchmark runs there) at
 * which it was issued, sent and received. Lines starting with '#' are
 * comments. Guarantees once read: every op has issue <= send <= recv;
 * lines that break it or do not parse are counted in bad, never kept;
 * at most CLIENT_OPS_MAX ops are kept (the rest counted in over_cap).
 */
#ifndef CORECAP_CLIENT_OPS_H
#define CORECAP_CLIENT_OPS_H

#include <stddef.h>
#include <stdint.h>

#define CLIENT_OPS_MAX	    (1u << 21)
#define CLIENT_OPS_MAX_LINE 128

struct client_op {
	uint64_t op_id;
	uint64_t issue_ns, send_ns, recv_ns;
};

struct client_ops {
	struct client_op *ops;
	size_t n, cap;
	uint64_t bad, over_cap;
};

/*
 * Reads path into *c. 0 (with c->n possibly 0); -ENOENT when absent (no
 * *err); another negative errno with *err (malloc'd). Release c in all cases.
 */
int corecap_client_ops_read(struct client_ops *c, const char *path, char **err);
void corecap_client_ops_release(struct client_ops *c);

#endif
