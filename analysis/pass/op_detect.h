/*
 * op_detect: the ops of a daemon that marks none, for the commands that
 * stream a trace without a model (export --chrome): whether a run wants
 * its ops detected from its socket I/O (the rule of `corecap report --ops
 * auto`: the daemon made no annotated op event and its socket calls were
 * traced, CORECAP_NET_EVENTS=on), and a consumer that passes the trace's
 * events through the detector (model/net_ops.h) to the command's own.
 */
#ifndef CORECAP_OP_DETECT_H
#define CORECAP_OP_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/event.h"
#include "model/net_ops.h"

struct op_detect {
	bool on; /* events go through net */
	struct net_ops net;
	int (*fn)(void *ctx, const struct model_event *ev);
	void *ctx;
};

/*
 * Reads traces (CTF directories) to decide whether daemon pid's (-1: any)
 * ops are to be detected: 0 with *detect set, or the reader's negative
 * errno with *err (malloc'd).
 */
int corecap_op_detect_wanted(char *const *traces, size_t n, int32_t pid, bool *detect, char **err);
/* Events given to corecap_op_detect_consume reach fn(ctx), detected ops among them if on. */
void corecap_op_detect_init(struct op_detect *o, bool on, int32_t pid,
			    int (*fn)(void *, const struct model_event *), void *ctx);
/* A ctf_reader consumer, ctx = the op_detect. */
int corecap_op_detect_consume(void *ctx, const struct model_event *ev);
/* The trace ended: the replies still open end (net_ops_finish). */
int corecap_op_detect_finish(struct op_detect *o);
void corecap_op_detect_release(struct op_detect *o);

#endif
