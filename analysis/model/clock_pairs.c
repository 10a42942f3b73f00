/* clock_pairs: see clock_pairs.h. */
#include "clock_pairs.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

void corecap_clock_pairs_init(struct clock_pairs_acc *acc)
{
	*acc = (struct clock_pairs_acc){0};
}

int corecap_clock_pairs_add(struct clock_pairs_acc *acc, uint64_t send_ns, uint64_t recv_ns,
			    uint64_t begin_ns, uint64_t reply_ns)
{
	if (recv_ns < send_ns || reply_ns < begin_ns)
		return 0; /* not an op's times: no bound */
	return corecap_clock_pairs_add_bounds(acc, (int64_t)(reply_ns - recv_ns),
					      (int64_t)(begin_ns - send_ns), send_ns);
}

int corecap_clock_pairs_add_bounds(struct clock_pairs_acc *acc, int64_t lo_ns, int64_t hi_ns,
				   uint64_t t_ns)
{
	if (acc->n == acc->cap) {
		size_t cap = acc->cap ? 2 * acc->cap : 1024;
		struct clock_pair *grown = realloc(acc->v, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		acc->v = grown;
		acc->cap = cap;
	}
	acc->v[acc->n++] = (struct clock_pair){.lo_ns = lo_ns, .hi_ns = hi_ns, .t_ns = t_ns};
	return 0;
}

/* The tightest interval of pairs [from, to) de-trended by drift to at; their mean time. */
static void tightest(const struct clock_pair *v, size_t from, size_t to, double drift, uint64_t at,
		     double *lo, double *hi, double *t_mean)
{
	double sum = 0;

	*lo = -INFINITY;
	*hi = INFINITY;
	for (size_t k = from; k < to; k++) {
		double dt = (double)(int64_t)(v[k].t_ns - at);
		double l = (double)v[k].lo_ns - drift * dt, h = (double)v[k].hi_ns - drift * dt;

		if (l > *lo)
			*lo = l;
		if (h < *hi)
			*hi = h;
		sum += dt;
	}
	*t_mean = to > from ? sum / (double)(to - from) : 0;
}

static int cmp_t(const void *a, const void *b)
{
	uint64_t x = ((const struct clock_pair *)a)->t_ns, y = ((const struct clock_pair *)b)->t_ns;

	return (x > y) - (x < y);
}

/* Slices for the drift's first estimate, and its passes. */
#define SLICES_MAX 16
#define FIT_PASSES 3

/*
 * The drift corrected by the least-squares line through k slices' middles
 * (each the middle of its tightest bounds, de-trended by drift: a slice
 * whose bounds cross, the drift being wrong, still has its middle near
 * the line's).
 */
static double slope_fit(const struct clock_pair *v, size_t n, size_t k, double drift, uint64_t at)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, lo, hi, t;

	for (size_t q = 0; q < k; q++) {
		double y;

		tightest(v, q * n / k, (q + 1) * n / k, drift, at, &lo, &hi, &t);
		y = (lo + hi) / 2;
		sx += t;
		sy += y;
		sxx += t * t;
		sxy += t * y;
	}
	if ((double)k * sxx - sx * sx <= 0)
		return drift;
	return drift + ((double)k * sxy - sx * sy) / ((double)k * sxx - sx * sx);
}

void corecap_clock_pairs_refine(const struct clock_pairs_acc *acc, const struct clock_ping *ping,
				struct clock_refined *out)
{
	struct clock_pair *v = acc->v;
	size_t n = acc->n, half = n / 2, k = n / 4 < SLICES_MAX ? n / 4 : SLICES_MAX;
	double drift = ping->valid && ping->has_drift ? ping->drift : 0;
	double lo, hi, l1, h1, t1, l2, h2, t2;
	uint64_t at;

	*out = (struct clock_refined){0};
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_t); /* the acc's own order is free */
	at = ping->valid && ping->at_ns ? ping->at_ns : v[0].t_ns;
	out->at_ns = at;
	out->from_ns = v[0].t_ns;
	out->to_ns = v[n - 1].t_ns;
	out->pairs = n;
	/*
	 * The drift: the slices' line, then checked by the two halves: each
	 * half's bounds must hold (the line is the clocks'), and the true
	 * drift is within the slopes from one half's interval to the other's.
	 */
	if (!ping->keep_drift && k >= 2 && v[n - 1].t_ns > v[0].t_ns) {
		double d = drift;

		for (int p = 0; p < FIT_PASSES; p++)
			d = slope_fit(v, n, k, d, at);
		tightest(v, 0, half, d, at, &l1, &h1, &t1);
		tightest(v, half, n, d, at, &l2, &h2, &t2);
		if (l1 <= h1 && l2 <= h2 && t2 > t1) {
			drift = d;
			out->drift_fitted = true;
			out->drift_bound = fmax(fabs(h2 - l1), fabs(l2 - h1)) / (t2 - t1);
		}
	}
	out->drift = drift;
	tightest(v, 0, n, drift, at, &lo, &hi, &t1);
	out->pairs_lo_ns = (int64_t)floor(lo);
	out->pairs_hi_ns = (int64_t)ceil(hi);
	if (lo > hi) {
		out->contradiction = true; /* the pairs contradict each other */
		return;
	}
	if (ping->valid) {
		double pl = (double)ping->offset_ns - (double)ping->bound_ns,
		       ph = (double)ping->offset_ns + (double)ping->bound_ns;

		if (hi < pl || lo > ph) {
			out->contradiction = true;
			return;
		}
		if (pl > lo)
			lo = pl;
		if (ph < hi)
			hi = ph;
	}
	out->valid = true;
	out->offset_ns = (int64_t)llround((lo + hi) / 2);
	out->bound_ns = (uint64_t)ceil((hi - lo) / 2);
}

void corecap_clock_pairs_release(struct clock_pairs_acc *acc)
{
	free(acc->v);
	*acc = (struct clock_pairs_acc){0};
}
