/*
 * collector/verify/verify_verdict.c: verify's closing verdict from figures alone:
 * each word with the slopes that earn it, the 25% band's edges, a control
 * that cannot tell the site apart (inconclusive whatever was measured),
 * and R^2 against values worked by hand.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "verify/verify_verdict.h"

#include "check_run.h"

static const char *verdict(double pm, double mm, bool control, double cpm, double cm, char *why,
			   size_t size)
{
	struct corecap_verify_verdict_in v = {
		.pm = pm,
		.mm = mm,
		.ratio_lo = mm / pm * 0.9,
		.ratio_hi = mm / pm * 1.1,
		.r2 = 0.97,
		.control = control,
		.cpm = cpm,
		.cm = cm,
		.rounds = 5,
	};

	return corecap_verify_verdict(&v, why, size);
}

START_TEST(a_slope_as_predicted_with_a_quiet_control_is_confirmed)
{
	char why[640];

	ck_assert_str_eq(verdict(-100, -95, true, -5, -3, why, sizeof(why)), "confirmed");
	ck_assert_msg(strstr(why, "-95.00 IOPS per us measured against -100.00 predicted (ratio "
				  "0.95 [0.85, 1.04] over 5 rounds, R^2 0.97)"),
		      "%s", why);
	ck_assert_msg(strstr(why, "the control's slope is 0.03 of the site's"), "%s", why);
	ck_assert_str_eq(verdict(-100, -95, false, 0, 0, why, sizeof(why)), "confirmed");
	ck_assert_ptr_null(strstr(why, "control"));
}
END_TEST

START_TEST(the_band_is_25_percent_either_side)
{
	char why[640];

	ck_assert_str_eq(verdict(-100, -75, false, 0, 0, why, sizeof(why)), "confirmed");
	ck_assert_str_eq(verdict(-100, -125, false, 0, 0, why, sizeof(why)), "confirmed");
	ck_assert_str_eq(verdict(-100, -74, false, 0, 0, why, sizeof(why)), "not confirmed");
	ck_assert_msg(strstr(why, "not within 25% of the model's"), "%s", why);
	ck_assert_str_eq(verdict(-100, -126, false, 0, 0, why, sizeof(why)), "not confirmed");
	/* Throughput that rose with the delay confirms nothing. */
	ck_assert_str_eq(verdict(-100, 10, false, 0, 0, why, sizeof(why)), "not confirmed");
}
END_TEST

START_TEST(a_control_that_slowed_the_daemon_too_is_not_a_confirmation)
{
	char why[640];

	ck_assert_str_eq(verdict(-100, -95, true, -5, -30, why, sizeof(why)), "not confirmed");
	ck_assert_msg(strstr(why, "control's delay moved throughput too (0.32 of the site's"), "%s",
		      why);
	ck_assert_str_eq(verdict(-100, -95, true, -5, -23, why, sizeof(why)), "confirmed");
}
END_TEST

START_TEST(a_control_predicted_like_the_site_is_inconclusive)
{
	char why[640];

	/* Even with a perfect measurement: the control could not have told them apart. */
	ck_assert_str_eq(verdict(-100, -100, true, -90, -2, why, sizeof(why)), "inconclusive");
	ck_assert_msg(strstr(why, "predicted slope (-90.00) is within 25% of the site's"), "%s",
		      why);
	ck_assert_str_eq(verdict(-100, -100, true, -125, -2, why, sizeof(why)), "inconclusive");
	ck_assert_str_eq(verdict(-100, -100, true, -74, -2, why, sizeof(why)), "confirmed");
}
END_TEST

START_TEST(no_predicted_change_is_not_the_ceiling)
{
	char why[640];

	ck_assert_str_eq(verdict(0, -1, true, 0, 0, why, sizeof(why)), "not confirmed");
	ck_assert_msg(strstr(why, "predicts no change"), "%s", why);
}
END_TEST

START_TEST(a_short_buffer_is_cut_not_overrun)
{
	char why[24];

	memset(why, 'x', sizeof(why));
	ck_assert_str_eq(verdict(-100, -95, true, -5, -3, why, 20), "confirmed");
	ck_assert_uint_eq(strlen(why), 19);
	ck_assert_int_eq(why[20], 'x');
}
END_TEST

START_TEST(r2_is_the_share_the_delay_explains)
{
	const double b1[] = {100, 100, 100}, s1[] = {50, 50, 50};
	const double b2[] = {100, 50}, s2[] = {100, 50};
	const double b3[] = {10, 12}, s3[] = {6, 8};
	const double b4[] = {7, 7}, s4[] = {7, 7};

	ck_assert_double_eq_tol(corecap_verify_r2(b1, s1, 3), 1.0, 1e-12);
	ck_assert_double_eq_tol(corecap_verify_r2(b2, s2, 2), 0.0, 1e-12);
	/* Means 11 and 7 about 9: total 20, residual 4. */
	ck_assert_double_eq_tol(corecap_verify_r2(b3, s3, 2), 0.8, 1e-12);
	ck_assert_double_eq_tol(corecap_verify_r2(b4, s4, 2), 0.0, 1e-12);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("verify_verdict");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, a_slope_as_predicted_with_a_quiet_control_is_confirmed);
	tcase_add_test(tc, the_band_is_25_percent_either_side);
	tcase_add_test(tc, a_control_that_slowed_the_daemon_too_is_not_a_confirmation);
	tcase_add_test(tc, a_control_predicted_like_the_site_is_inconclusive);
	tcase_add_test(tc, no_predicted_change_is_not_the_ceiling);
	tcase_add_test(tc, a_short_buffer_is_cut_not_overrun);
	tcase_add_test(tc, r2_is_the_share_the_delay_explains);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
