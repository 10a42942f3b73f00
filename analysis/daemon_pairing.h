/*
 * daemon_pairing: which daemon of a host in run A is compared with which
 * of the same host in run B (`corecap compare RUN_A RUN_B` of two runs of
 * several hosts, hosts_compare.h), when either run's host holds several
 * daemons. The rule, each step over the daemons the steps before left
 * unpaired, A's in the order its run recorded them:
 *   1. the same PID (and the same comm, when both runs know it: a PID
 *      reused by another program is not the same daemon);
 *   2. the same Ceph OSD id, when both runs found it (--ceph-osds): an OSD
 *      restarted between the runs keeps its id, not its PID;
 *   3. the same comm: when one daemon of that comm is left in each run,
 *      those two ("comm"); otherwise each of A's, in its run's order, with
 *      the first of B's of that comm left ("order").
 * Two ceph-osds whose OSD ids both runs know and differ are never paired
 * (they are other OSDs), nor are daemons of different comms. What is left
 * is in one run only, listed in its run's order, never dropped.
 */
#ifndef CORECAP_DAEMON_PAIRING_H
#define CORECAP_DAEMON_PAIRING_H

#include <stddef.h>

/* A daemon as its run names it. */
struct daemon_ident {
	int pid;	  /* 0: unknown */
	const char *comm; /* "?" or NULL: unknown */
	int ceph_osd_id;  /* -1: unknown */
};

enum daemon_paired_by {
	DAEMON_PAIRED_BY_PID,
	DAEMON_PAIRED_BY_CEPH_OSD_ID,
	DAEMON_PAIRED_BY_COMM,
	DAEMON_PAIRED_BY_ORDER,
};

struct daemon_pair {
	size_t a, b; /* indexes into A's and B's daemons */
	enum daemon_paired_by by;
	/* by order: the 1-based rank of each among its run's daemons of that comm left */
	size_t rank_a, rank_b;
};

/* The pairs in A's order (A's daemon's index), then each run's daemons left unpaired, in its order.
 */
struct daemon_pairing {
	struct daemon_pair *pairs;
	size_t n_pairs;
	size_t *only[2];
	size_t n_only[2];
};

/* 0, or -ENOMEM; corecap_daemon_pairing_release() in both cases. */
int corecap_daemon_pairing_build(struct daemon_pairing *p, const struct daemon_ident *a, size_t n_a,
				 const struct daemon_ident *b, size_t n_b);
void corecap_daemon_pairing_release(struct daemon_pairing *p);
/* The JSON's word for by: "pid", "ceph_osd_id", "comm" or "order". */
const char *corecap_daemon_paired_by_key(enum daemon_paired_by by);
/*
 * How pair was made, in a sentence for a reader (a, b: the daemons it
 * indexes): "the same PID", "the same OSD id, osd.3 (PIDs 10 and 20)",
 * "PIDs differ: the one refosd of each run left", "PIDs differ: A's 2nd
 * refosd left with B's 2nd, in the order each run recorded them".
 */
void corecap_daemon_pair_note(const struct daemon_pair *pair, const struct daemon_ident *a,
			      const struct daemon_ident *b, char *buf, size_t len);

#endif
