/*
 * analysis/model/scaling_fit.c: the Universal Scalability Law recovered
 * from synthetic curves whose parameters are known, kappa held at 0 with
 * two core counts, intervals only where the points outnumber the
 * parameters (and then holding the true values), the peak, and the
 * degenerate inputs refused.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/scaling_fit.h"

#include "check_run.h"

static struct scaling_fit f;

static double usl(double lambda, double sigma, double kappa, double n)
{
	return lambda * n / (1 + sigma * (n - 1) + kappa * n * (n - 1));
}

static void curve(double lambda, double sigma, double kappa, const double *n, double *x, size_t k)
{
	for (size_t i = 0; i < k; i++)
		x[i] = usl(lambda, sigma, kappa, n[i]);
}

START_TEST(a_usl_curve_with_a_peak_is_recovered)
{
	const double n[] = {1, 2, 3, 4, 6, 8};
	double x[6];

	curve(10000, 0.05, 0.02, n, x, 6);
	ck_assert_int_eq(scaling_fit_compute(&f, n, x, 6), 0);
	ck_assert(f.valid);
	ck_assert(!f.kappa_held);
	ck_assert_uint_eq(f.n_params, 3);
	ck_assert_double_eq_tol(f.lambda, 10000, 10);
	ck_assert_double_eq_tol(f.sigma, 0.05, 0.002);
	ck_assert_double_eq_tol(f.kappa, 0.02, 0.0005);
	ck_assert(f.max_rel_err < 1e-3);
	/* N* = sqrt((1 - 0.05) / 0.02) = 6.89 */
	ck_assert_double_eq_tol(f.peak_cores, 6.89, 0.1);
	ck_assert_int_eq(f.proj[3].cores, 32);
	ck_assert_double_eq_tol(f.proj[3].x, usl(10000, 0.05, 0.02, 32), 50);
	/* Exact points: no spread, no interval, and the fit says why. */
	ck_assert(!f.has_interval);
	ck_assert_ptr_nonnull(f.interval_why_not);
}
END_TEST

START_TEST(a_serial_daemon_is_sigma_one_and_never_gains)
{
	const double n[] = {1, 2};
	const double x[] = {5000, 5000};

	ck_assert_int_eq(scaling_fit_compute(&f, n, x, 2), 0);
	ck_assert(f.kappa_held);
	ck_assert_double_eq(f.kappa, 0);
	ck_assert_double_eq_tol(f.sigma, 1, 0.01);
	ck_assert_double_eq_tol(f.peak_cores, 1, 1e-9);
	ck_assert_double_eq_tol(f.proj[0].x, 5000, 100);
	ck_assert(!f.has_interval);
	ck_assert_ptr_nonnull(strstr(f.interval_why_not, "parameters"));
}
END_TEST

START_TEST(amdahl_with_two_core_counts_levels_off_without_a_peak)
{
	const double n[] = {1, 2};
	double x[2];

	curve(1000, 0.25, 0, n, x, 2);
	ck_assert_int_eq(scaling_fit_compute(&f, n, x, 2), 0);
	ck_assert_double_eq_tol(f.sigma, 0.25, 0.001);
	ck_assert_double_eq_tol(f.lambda, 1000, 1);
	ck_assert_double_eq(f.peak_cores, 0);
	ck_assert_double_eq_tol(f.peak_x, 4000, 20);
}
END_TEST

START_TEST(repeated_noisy_points_give_an_interval_that_holds_the_truth)
{
	const double n[] = {1, 1, 1, 2, 2, 2, 4, 4, 4};
	const double noise[] = {0.02, -0.03, 0.01, -0.02, 0.03, -0.01, 0.01, -0.02, 0.02};
	double x[9];

	curve(2000, 0.1, 0.01, n, x, 9);
	for (int i = 0; i < 9; i++)
		x[i] *= 1 + noise[i];
	ck_assert_int_eq(scaling_fit_compute(&f, n, x, 9), 0);
	ck_assert(f.has_interval);
	ck_assert(f.lambda_lo <= 2000 && 2000 <= f.lambda_hi);
	ck_assert(f.lambda_lo < f.lambda && f.lambda < f.lambda_hi);
	ck_assert(f.lambda_hi - f.lambda_lo < 400);
	ck_assert(f.sigma_lo <= f.sigma && f.sigma <= f.sigma_hi);
	for (int p = 0; p < SCALING_PROJ; p++)
		ck_assert(f.proj[p].lo <= f.proj[p].x && f.proj[p].x <= f.proj[p].hi);
	/* The band holds the fit, and at 4 cores is the projection's interval. */
	for (int c = 0; c < SCALING_BAND; c++)
		ck_assert(f.band_lo[c] <= scaling_fit_at(&f, c + 1) * 1.0001 &&
			  scaling_fit_at(&f, c + 1) <= f.band_hi[c] * 1.0001);
	ck_assert_double_eq_tol(f.band_lo[3], f.proj[0].lo, 1e-9);
	ck_assert_double_eq_tol(f.band_hi[3], f.proj[0].hi, 1e-9);
	/* The 4-core projection against the truth, within its band widened by 10%. */
	ck_assert(f.proj[0].lo * 0.9 <= usl(2000, 0.1, 0.01, 4) &&
		  usl(2000, 0.1, 0.01, 4) <= f.proj[0].hi * 1.1);
}
END_TEST

START_TEST(near_linear_scaling_has_small_terms)
{
	const double n[] = {1, 1.5, 2};
	double x[3];

	curve(800, 0.01, 0.0005, n, x, 3);
	ck_assert_int_eq(scaling_fit_compute(&f, n, x, 3), 0);
	ck_assert(!f.kappa_held);
	ck_assert(f.sigma < 0.05);
	ck_assert(f.max_rel_err < 0.01);
	ck_assert_double_eq_tol(scaling_fit_at(&f, 2), x[2], x[2] * 0.01);
}
END_TEST

START_TEST(degenerate_inputs_are_refused)
{
	const double one[] = {2};
	const double same[] = {2, 2, 2};
	const double xs[] = {100, 110, 90};
	const double n2[] = {1, 2};
	const double zero[] = {100, 0};
	const double neg_n[] = {-1, 2};
	const double nan_x[] = {100, NAN};

	ck_assert_int_eq(scaling_fit_compute(&f, one, xs, 1), -EINVAL);
	ck_assert(!f.valid);
	ck_assert_ptr_nonnull(strstr(f.why_not, "two distinct"));
	ck_assert_int_eq(scaling_fit_compute(&f, same, xs, 3), -EINVAL);
	ck_assert_ptr_nonnull(strstr(f.why_not, "two distinct"));
	ck_assert_int_eq(scaling_fit_compute(&f, n2, zero, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(f.why_not, "positive"));
	ck_assert_int_eq(scaling_fit_compute(&f, neg_n, xs, 2), -EINVAL);
	ck_assert_int_eq(scaling_fit_compute(&f, n2, nan_x, 2), -EINVAL);
	ck_assert_int_eq(scaling_fit_compute(&f, n2, xs, 0), -EINVAL);
	ck_assert(!f.valid);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("scaling_fit");
	TCase *tc = tcase_create("scaling_fit");

	tcase_add_test(tc, a_usl_curve_with_a_peak_is_recovered);
	tcase_add_test(tc, a_serial_daemon_is_sigma_one_and_never_gains);
	tcase_add_test(tc, amdahl_with_two_core_counts_levels_off_without_a_peak);
	tcase_add_test(tc, repeated_noisy_points_give_an_interval_that_holds_the_truth);
	tcase_add_test(tc, near_linear_scaling_has_small_terms);
	tcase_add_test(tc, degenerate_inputs_are_refused);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
