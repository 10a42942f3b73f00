/*
 * scaling_fit: the Universal Scalability Law fitted to a daemon's measured
 * throughput at several core counts (docs/methodology.md, "Scaling"):
 *
 *   X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1))
 *
 * lambda the throughput of one core, sigma the contention (the share of
 * the work that is serial: a lock, one thread), kappa the coherency (a
 * cost paid per pair of cores: hand-offs, wake-ups across cores, cache
 * lines moved). Fitted by least squares on the points' relative errors,
 * with sigma, kappa >= 0: for given (sigma, kappa) the best lambda has a
 * closed form, and (sigma, kappa) are searched on a logarithmic grid then
 * refined by a pattern search.
 *
 * Identification: three parameters need three distinct core counts; with
 * two, kappa is held at 0 (Amdahl's law) and said so. The intervals come
 * from a residual bootstrap (SCALING_BOOT refits with the fit's relative
 * residuals, rescaled for the parameters, resampled onto its values;
 * 2.5th and 97.5th percentiles) and exist only when the points outnumber
 * the parameters (repeated points, or more core counts); otherwise
 * interval_why_not says why and no interval is given.
 *
 * The peak: with kappa > 0 and sigma < 1, X peaks at N* = sqrt((1 -
 * sigma) / kappa); with kappa = 0 and sigma < 1 it levels off at
 * lambda / sigma (no peak: peak_cores is 0); with sigma >= 1 more cores
 * never help (the peak is at 1 core).
 */
#ifndef CORECAP_SCALING_FIT_H
#define CORECAP_SCALING_FIT_H

#include <stdbool.h>
#include <stddef.h>

#define SCALING_MAX_POINTS 64
#define SCALING_BOOT	   200
#define SCALING_PROJ	   4  /* the projections: 4, 8, 16 and 32 cores */
#define SCALING_BAND	   32 /* the band's core counts: 1 to 32 */
/* The search's bounds: an interval that reaches one is not constrained by the points. */
#define SCALING_SIGMA_MAX 4.0
#define SCALING_KAPPA_MAX 1.0

struct scaling_fit {
	bool valid;
	const char *why_not;	   /* static; when !valid */
	size_t n_points, n_counts; /* the points; their distinct core counts */
	size_t n_params;	   /* 3, or 2 with kappa held at 0 */
	bool kappa_held;	   /* kappa set to 0: two core counts only */
	double lambda, sigma, kappa;
	double max_rel_err; /* the largest |fit - measured| / measured over the points */
	bool has_interval;
	const char *interval_why_not; /* static; when !has_interval */
	double lambda_lo, lambda_hi, sigma_lo, sigma_hi, kappa_lo, kappa_hi;
	struct {
		int cores;
		double x, lo, hi; /* lo, hi: 0 without an interval */
	} proj[SCALING_PROJ];
	/* The bootstrap's 95% band of X(N), N = 1..SCALING_BAND (index N - 1); with an interval. */
	double band_lo[SCALING_BAND], band_hi[SCALING_BAND];
	double peak_cores; /* 0: no peak (levels off); 1: more cores never help */
	double peak_x;	   /* the throughput there, or the level lambda / sigma; 0 unbounded */
};

/*
 * Fits cores[i] -> x[i], i < n. 0; -EINVAL for inputs it cannot fit (fewer
 * than two distinct core counts, a core count or throughput not > 0, more
 * than SCALING_MAX_POINTS points): f->valid false and f->why_not says.
 */
int scaling_fit_compute(struct scaling_fit *f, const double *cores, const double *x, size_t n);
/* The fitted X(N). */
double scaling_fit_at(const struct scaling_fit *f, double cores);

#endif
