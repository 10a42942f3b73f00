/*
 * clock_pairs: a host's clock against the recording host's, refined from
 * the ops both ends traced (docs/hosts.md). An op the client sent at S
 * and received back at R (the recording host's clock) that the daemon
 * began at B and replied to from P (its host's clock) bounds the offset
 * theta (the host's clock minus the recording host's) at that time:
 *   P - R <= theta <= B - S.
 * The refinement: the pairs de-trended by a drift (first the ping's, or 0),
 * their two halves in time each give the tightest interval (the largest
 * lower, the least upper bound); the line through the two intervals'
 * middles corrects the drift; de-trended by it, every pair's bounds give
 * the offset at at_ns (the tightest interval over the window), which is
 * then intersected with the ping exchange's interval there. Intervals
 * disjoint (beyond both bounds) are a contradiction: said, the ping's kept.
 */
#ifndef CORECAP_CLOCK_PAIRS_H
#define CORECAP_CLOCK_PAIRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One op's bounds: lo = P - R, hi = B - S, at t = S (recording clock). */
struct clock_pair {
	int64_t lo_ns, hi_ns;
	uint64_t t_ns;
};

/* The ping exchange's estimate the pairs refine (read/hosts_run.h's align, flattened). */
struct clock_ping {
	bool valid, has_drift;
	int64_t offset_ns; /* at at_ns */
	uint64_t at_ns, bound_ns;
	double drift; /* per ns of the recording clock */
	/* The pairs fit no drift of their own: the ping's (or 0) is kept.
	 * For wide pairs (tens of us), whose middles' line is noise. */
	bool keep_drift;
};

struct clock_refined {
	bool valid;			  /* pairs gave an interval (and no contradiction) */
	bool contradiction;		  /* the pairs' interval is disjoint from the ping's */
	bool drift_fitted;		  /* both halves had pairs, apart in time */
	size_t pairs;			  /* pairs used */
	int64_t offset_ns;		  /* at at_ns: the intersection's middle */
	uint64_t bound_ns;		  /* its half width */
	uint64_t at_ns;			  /* the ping's at_ns, or the first pair's time */
	double drift;			  /* per ns */
	double drift_bound;		  /* per ns: the halves' half widths over their distance */
	int64_t pairs_lo_ns, pairs_hi_ns; /* the pairs' own interval at at_ns */
	uint64_t from_ns, to_ns;	  /* the pairs' first and last times */
};

struct clock_pairs_acc {
	struct clock_pair *v;
	size_t n, cap;
};

void corecap_clock_pairs_init(struct clock_pairs_acc *acc);
/* One op's times (S, R recording clock; B, P the host's); 0 or -ENOMEM. */
int corecap_clock_pairs_add(struct clock_pairs_acc *acc, uint64_t send_ns, uint64_t recv_ns,
			    uint64_t begin_ns, uint64_t reply_ns);
/*
 * One pair's bounds given whole: lo <= theta <= hi at t (recording clock).
 * For ops between two other hosts: the bounds on this host's clock minus
 * the peer's, shifted by the peer's ping offset and widened by its bound.
 */
int corecap_clock_pairs_add_bounds(struct clock_pairs_acc *acc, int64_t lo_ns, int64_t hi_ns,
				   uint64_t t_ns);
/* The refinement against ping (may be invalid: then the pairs' own). */
void corecap_clock_pairs_refine(const struct clock_pairs_acc *acc, const struct clock_ping *ping,
				struct clock_refined *out);
void corecap_clock_pairs_release(struct clock_pairs_acc *acc);

#endif
