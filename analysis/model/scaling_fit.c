#include "scaling_fit.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SIGMA_MAX SCALING_SIGMA_MAX
#define KAPPA_MAX SCALING_KAPPA_MAX
#define GRID	  48

static const int proj_cores[SCALING_PROJ] = {4, 8, 16, 32};

static double usl_shape(double n, double sigma, double kappa)
{
	return n / (1 + sigma * (n - 1) + kappa * n * (n - 1));
}

/* For (sigma, kappa): the best lambda (closed form) and the sum of squared relative errors. */
static double cost(const double *n, const double *x, size_t k, double sigma, double kappa,
		   double *lambda)
{
	double sa = 0, saa = 0, l, c = 0;

	for (size_t i = 0; i < k; i++) {
		double a = usl_shape(n[i], sigma, kappa) / x[i];

		sa += a;
		saa += a * a;
	}
	l = saa > 0 ? sa / saa : 0;
	for (size_t i = 0; i < k; i++) {
		double r = l * usl_shape(n[i], sigma, kappa) / x[i] - 1;

		c += r * r;
	}
	if (lambda)
		*lambda = l;
	return c;
}

/* Least squares with sigma, kappa >= 0 (kappa 0 when held): grid, then pattern search. */
static void fit(const double *n, const double *x, size_t k, bool hold_kappa, double *lambda,
		double *sigma, double *kappa)
{
	double best = INFINITY, bs = 0, bk = 0, step_s, step_k;

	for (int i = 0; i <= GRID; i++) {
		double s = i == 0 ? 0 : SIGMA_MAX * pow(1e-5, (double)(GRID - i) / GRID);

		for (int j = 0; j <= (hold_kappa ? 0 : GRID); j++) {
			double kk = j == 0 ? 0 : KAPPA_MAX * pow(1e-7, (double)(GRID - j) / GRID);
			double c = cost(n, x, k, s, kk, NULL);

			if (c < best) {
				best = c;
				bs = s;
				bk = kk;
			}
		}
	}
	step_s = bs > 0 ? bs / 4 : 1e-5;
	step_k = bk > 0 ? bk / 4 : 1e-7;
	for (int it = 0; it < 400 && (step_s > 1e-12 || step_k > 1e-14); it++) {
		bool moved = false;
		const double ds[4] = {step_s, -step_s, 0, 0};
		const double dk[4] = {0, 0, step_k, -step_k};

		for (int d = 0; d < (hold_kappa ? 2 : 4); d++) {
			double s = fmax(0, fmin(SIGMA_MAX, bs + ds[d]));
			double kk = fmax(0, fmin(KAPPA_MAX, bk + dk[d]));
			double c = cost(n, x, k, s, kk, NULL);

			if (c < best - 1e-18) {
				best = c;
				bs = s;
				bk = kk;
				moved = true;
			}
		}
		if (!moved) {
			step_s /= 2;
			step_k /= 2;
		}
	}
	cost(n, x, k, bs, bk, lambda);
	*sigma = bs;
	*kappa = bk;
}

double scaling_fit_at(const struct scaling_fit *f, double cores)
{
	return f->lambda * usl_shape(cores, f->sigma, f->kappa);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
	size_t i;

	qsort(v, n, sizeof(*v), cmp_double);
	i = (size_t)floor(p * (double)(n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

/* xorshift64: the bootstrap is the same for the same points. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void bootstrap(struct scaling_fit *f, const double *n, const double *x, size_t k)
{
	static double bl[SCALING_BOOT], bsg[SCALING_BOOT], bkp[SCALING_BOOT],
		bp[SCALING_PROJ][SCALING_BOOT], bb[SCALING_BAND][SCALING_BOOT];
	double res[SCALING_MAX_POINTS], xs[SCALING_MAX_POINTS], scale, any = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	if (k <= f->n_params) {
		f->interval_why_not = "the points are no more than the model's parameters: they "
				      "fit exactly, and give no interval (repeat points, or add "
				      "core counts)";
		return;
	}
	scale = sqrt((double)k / (double)(k - f->n_params));
	for (size_t i = 0; i < k; i++) {
		double fx = scaling_fit_at(f, n[i]);

		res[i] = (x[i] / fx - 1) * scale;
		any = fmax(any, fabs(res[i]));
	}
	if (any < 1e-6) { /* within the search's precision */
		f->interval_why_not = "the points fit exactly: no spread to give an interval";
		return;
	}
	for (int b = 0; b < SCALING_BOOT; b++) {
		double l, s, kk;
		struct scaling_fit g;

		for (size_t i = 0; i < k; i++) {
			double e = res[next_rand(&seed) % k];

			xs[i] = scaling_fit_at(f, n[i]) * fmax(1 + e, 1e-3);
		}
		fit(n, xs, k, f->kappa_held, &l, &s, &kk);
		bl[b] = l;
		bsg[b] = s;
		bkp[b] = kk;
		g.lambda = l;
		g.sigma = s;
		g.kappa = kk;
		for (int p = 0; p < SCALING_PROJ; p++)
			bp[p][b] = scaling_fit_at(&g, proj_cores[p]);
		for (int c = 0; c < SCALING_BAND; c++)
			bb[c][b] = scaling_fit_at(&g, c + 1);
	}
	f->has_interval = true;
	f->lambda_lo = pct(bl, SCALING_BOOT, 0.025);
	f->lambda_hi = pct(bl, SCALING_BOOT, 0.975);
	f->sigma_lo = pct(bsg, SCALING_BOOT, 0.025);
	f->sigma_hi = pct(bsg, SCALING_BOOT, 0.975);
	f->kappa_lo = pct(bkp, SCALING_BOOT, 0.025);
	f->kappa_hi = pct(bkp, SCALING_BOOT, 0.975);
	for (int p = 0; p < SCALING_PROJ; p++) {
		f->proj[p].lo = pct(bp[p], SCALING_BOOT, 0.025);
		f->proj[p].hi = pct(bp[p], SCALING_BOOT, 0.975);
	}
	for (int c = 0; c < SCALING_BAND; c++) {
		f->band_lo[c] = pct(bb[c], SCALING_BOOT, 0.025);
		f->band_hi[c] = pct(bb[c], SCALING_BOOT, 0.975);
	}
}

int scaling_fit_compute(struct scaling_fit *f, const double *cores, const double *x, size_t n)
{
	memset(f, 0, sizeof(*f));
	f->n_points = n;
	if (n > SCALING_MAX_POINTS) {
		f->why_not = "more points than the fit takes";
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		if (!(cores[i] > 0) || !isfinite(cores[i]) || !(x[i] > 0) || !isfinite(x[i])) {
			f->why_not = "a point has no positive core count or throughput";
			return -EINVAL;
		}
		for (size_t j = 0; j < i; j++)
			seen |= cores[j] == cores[i];
		f->n_counts += !seen;
	}
	if (f->n_counts < 2) {
		f->why_not = "fewer than two distinct core counts: nothing to fit";
		return -EINVAL;
	}
	f->kappa_held = f->n_counts < 3;
	f->n_params = f->kappa_held ? 2 : 3;
	fit(cores, x, n, f->kappa_held, &f->lambda, &f->sigma, &f->kappa);
	f->valid = true;
	for (size_t i = 0; i < n; i++)
		f->max_rel_err = fmax(f->max_rel_err, fabs(scaling_fit_at(f, cores[i]) / x[i] - 1));
	for (int p = 0; p < SCALING_PROJ; p++) {
		f->proj[p].cores = proj_cores[p];
		f->proj[p].x = scaling_fit_at(f, proj_cores[p]);
	}
	bootstrap(f, cores, x, n);
	if (f->sigma >= 1) {
		f->peak_cores = 1;
		f->peak_x = scaling_fit_at(f, 1);
	} else if (f->kappa > 0) {
		f->peak_cores = sqrt((1 - f->sigma) / f->kappa);
		if (f->peak_cores < 1)
			f->peak_cores = 1;
		f->peak_x = scaling_fit_at(f, f->peak_cores);
	} else {
		f->peak_cores = 0;
		f->peak_x = f->sigma > 0 ? f->lambda / f->sigma : 0;
	}
	return 0;
}
