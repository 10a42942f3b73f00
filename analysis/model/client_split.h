/*
 * client_split: per op, the client's latency split into the client's own
 * part, the network out, the daemon and the network back, for the ops
 * both ends name by one id (pass/hosts_build.c matches the benchmark's
 * client-ops.tsv with a daemon's corecap_op:client ops and aligns the
 * daemon's times to the recording host's clock; docs/hosts.md).
 *
 * For an op issued at I, sent at S and received at R (the client's clock,
 * the recording host's) that the daemon began at B, sent its reply from
 * P (the start of the op's last net send: the reply leaves the daemon
 * there) and ended at E (its host's clock; B' and P' on the recording
 * host's time line, within the alignment bound b):
 *   client     = R - I   (the latency the benchmark reports)
 *   client_own = S - I   (the client's own time before the wire)
 *   net_out    = B' - S  (the request on its way: the client's send, the
 *                         network, the daemon's receive up to its op's start)
 *   daemon     = P - B   (the daemon's op up to its reply, in its own clock)
 *   net_back   = client - client_own - net_out - daemon
 *                        (the reply on its way back, from its send's start
 *                         to the client seeing it)
 * so the four parts sum to the client's latency exactly, by construction.
 * The daemon's report counts its op until E, which a daemon marks after
 * its reply is sent: E - P (after_reply) is off the client's path and may
 * overlap the network back (a sender preempted once its send woke the
 * client), so it is given beside the parts, not in them. Without a reply
 * send seen (a daemon without the shim's net events), P = E.
 * What the construction hides is checked per op: net_back against R - P'
 * (they differ by the clock's drift over the daemon's time: within b),
 * and no part negative beyond b (net_out and net_back carry b each;
 * client >= daemon carries only the drift, checked against b too). Ops
 * breaking one are counted, never left out of the figures.
 */
#ifndef CORECAP_CLIENT_SPLIT_H
#define CORECAP_CLIENT_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum split_part {
	SPLIT_CLIENT,	  /* the client's latency: the sum of the four below */
	SPLIT_CLIENT_OWN, /* the client's own part */
	SPLIT_NET_OUT,
	SPLIT_DAEMON,
	SPLIT_NET_BACK,
	SPLIT__COUNT
};

/* One op's times, as client_split.h's header names them. */
struct split_times {
	uint64_t issue_ns, send_ns, recv_ns; /* the client's clock */
	int64_t begin_rec_ns, reply_rec_ns;  /* B', P' */
	uint64_t daemon_ns;		     /* P - B */
	uint64_t after_reply_ns;	     /* E - P */
	bool reply_seen;		     /* P is a send's, not E */
	int64_t bound_ns;		     /* b */
};

/* One daemon's matched ops, summed up. */
struct client_split_host {
	size_t matched;
	double median_us[SPLIT__COUNT], mean_us[SPLIT__COUNT];
	uint64_t bound_ns;   /* the largest alignment bound over its matched ops */
	size_t replies_seen; /* ops whose reply's send was seen (P; else E) */
	double after_reply_median_us, after_reply_mean_us; /* E - P */
	/* Ops beyond the bound: */
	uint64_t net_out_negative, net_back_negative, client_below_daemon;
	uint64_t drift_over_bound; /* net_back and R - E' differ by more than b */
	int64_t max_drift_err_ns;  /* the largest |net_back - (R - E')| */
	int64_t max_sum_err_ns;	   /* the largest |sum of the parts - client|: 0 */
};

/* Collects ops' parts (memory: 40 bytes an op) until finish. */
struct client_split_acc {
	struct client_split_host *out;
	int64_t *parts[SPLIT__COUNT];
	int64_t *after_reply;
	double sum[SPLIT__COUNT], after_reply_sum;
	size_t cap;
};

void corecap_client_split_acc_init(struct client_split_acc *acc, struct client_split_host *out);
/* Adds one op; 0 or -ENOMEM. */
int corecap_client_split_acc_add(struct client_split_acc *acc, const struct split_times *t);
/* The medians and means into out. */
void corecap_client_split_acc_finish(struct client_split_acc *acc);
void corecap_client_split_acc_release(struct client_split_acc *acc);
/* "client", "client_own", "network_out", "daemon", "network_back". */
const char *corecap_split_part_name(enum split_part p);

#endif
