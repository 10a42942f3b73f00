/*
 * verify_verdict: the verdict corecap verify ends with (verify_verdict.h).
 */
#include <math.h>
#include <stdio.h>

#include "verify_verdict.h"

/*
 * With two delays the least-squares line passes through both conditions'
 * means: the residuals are each run's distance from its condition's mean,
 * as Coz reports its fits.
 */
double corecap_verify_r2(const double *base, const double *site, unsigned n)
{
	double mean0 = 0, mean1 = 0, mean, ss_tot = 0, ss_res = 0;

	for (unsigned r = 0; r < n; r++) {
		mean0 += base[r] / n;
		mean1 += site[r] / n;
	}
	mean = (mean0 + mean1) / 2;
	for (unsigned r = 0; r < n; r++) {
		double b = base[r], x = site[r];

		ss_tot += (b - mean) * (b - mean) + (x - mean) * (x - mean);
		ss_res += (b - mean0) * (b - mean0) + (x - mean1) * (x - mean1);
	}
	return ss_tot > 0 ? 1 - ss_res / ss_tot : 0;
}

const char *corecap_verify_verdict(const struct corecap_verify_verdict_in *v, char *why,
				   size_t size)
{
	double ratio = v->pm != 0 ? v->mm / v->pm : 0;
	int n = snprintf(why, size,
			 "%.2f IOPS per us measured against %.2f predicted (ratio %.2f [%.2f, "
			 "%.2f] over %u rounds, R^2 %.2f)",
			 v->mm, v->pm, ratio, v->ratio_lo, v->ratio_hi, v->rounds, v->r2);

	if (n < 0)
		n = 0;
	else if ((size_t)n >= size)
		n = size ? (int)size - 1 : 0; /* the reason is cut, never written past why */
	if (v->control && v->pm != 0 &&
	    fabs(v->cpm - v->pm) <= VERIFY_SLOPE_TOLERANCE * fabs(v->pm)) {
		snprintf(why + n, size - (size_t)n,
			 "; the control site's predicted slope (%.2f) is within %.0f%% of the "
			 "site's, so the control cannot tell them apart: choose a control whose "
			 "lock does not bind",
			 v->cpm, VERIFY_SLOPE_TOLERANCE * 100);
		return "inconclusive";
	}
	if (v->pm == 0) {
		snprintf(why + n, size - (size_t)n,
			 "; the model predicts no change from a delay at this site (its lock does "
			 "not bind and the delay leaves the CPUs idle), so it is not the ceiling");
		return "not confirmed";
	}
	if (v->mm >= 0 || ratio < 1 - VERIFY_SLOPE_TOLERANCE ||
	    ratio > 1 + VERIFY_SLOPE_TOLERANCE) {
		snprintf(why + n, size - (size_t)n,
			 "; the measured slope is not within %.0f%% of "
			 "the model's",
			 VERIFY_SLOPE_TOLERANCE * 100);
		return "not confirmed";
	}
	if (v->control &&
	    v->cm * v->cm > VERIFY_SLOPE_TOLERANCE * VERIFY_SLOPE_TOLERANCE * v->mm * v->mm) {
		snprintf(why + n, size - (size_t)n,
			 "; but the control's delay moved throughput too (%.2f of the site's "
			 "slope, more than %.2f): the change is not the site's alone",
			 v->cm / v->mm, VERIFY_SLOPE_TOLERANCE);
		return "not confirmed";
	}
	if (v->control)
		snprintf(why + n, size - (size_t)n, "; the control's slope is %.2f of the site's",
			 v->cm / v->mm);
	return "confirmed";
}
