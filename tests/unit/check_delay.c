/*
 * delay: CORECAP_DELAY sites resolve from each form the exit summary
 * prints (hex, symbol+0xOFF, module+0xOFF), an unknown site disables the
 * delay with one warning, and the busy wait lasts at least its time.
 */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "delay.h"

struct settings g_settings;

/* Exported (ENABLE_EXPORTS), so dlsym finds it as a symbol would be found. */
__attribute__((noinline)) int delay_test_function(int x)
{
	return x * 3;
}

START_TEST(hex_addresses_resolve_to_themselves)
{
	uint64_t a;

	ck_assert_int_eq(delay_resolve_site("0x7f0012345678", &a), 0);
	ck_assert_uint_eq(a, 0x7f0012345678);
	ck_assert_int_eq(delay_resolve_site("0x", &a), -EINVAL);
	ck_assert_int_eq(delay_resolve_site("0x12zz", &a), -EINVAL);
}
END_TEST

START_TEST(symbols_resolve_with_their_offset)
{
	uint64_t fn = (uint64_t)(uintptr_t)&delay_test_function, a;

	ck_assert_int_eq(delay_resolve_site("delay_test_function", &a), 0);
	ck_assert_uint_eq(a, fn);
	ck_assert_int_eq(delay_resolve_site("delay_test_function+0x1c", &a), 0);
	ck_assert_uint_eq(a, fn + 0x1c);
	ck_assert_int_eq(delay_resolve_site("delay_test_function+28", &a), -EINVAL);
	ck_assert_int_eq(delay_resolve_site("no_such_symbol_anywhere+0x4", &a), -ENOENT);
}
END_TEST

START_TEST(modules_resolve_from_their_start_like_dladdr)
{
	uint64_t fn = (uint64_t)(uintptr_t)&delay_test_function, a;
	char spec[256];
	Dl_info info;

	ck_assert(dladdr((void *)(uintptr_t)fn, &info));
	snprintf(spec, sizeof(spec), "%s+0x%llx",
		 strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1 : info.dli_fname,
		 (unsigned long long)(fn - (uint64_t)(uintptr_t)info.dli_fbase));
	ck_assert_int_eq(delay_resolve_site(spec, &a), 0);
	ck_assert_uint_eq(a, fn);
	snprintf(spec, sizeof(spec), "libc.so.6+0x10");
	ck_assert_int_eq(delay_resolve_site(spec, &a), 0);
}
END_TEST

START_TEST(an_unresolvable_site_disables_the_delay)
{
	struct settings s;
	struct delay d;

	settings_init(&s);
	snprintf(s.delay_site, sizeof(s.delay_site), "nowhere+0x10");
	s.delay_ns = 1000;
	ck_assert_int_lt(delay_init(&d, &s), 0);
	ck_assert_uint_eq(d.site, 0);
	ck_assert_uint_eq(d.ns, 0);
	snprintf(s.delay_site, sizeof(s.delay_site), "delay_test_function+0x4");
	ck_assert_int_eq(delay_init(&d, &s), 0);
	ck_assert_uint_eq(d.site, (uint64_t)(uintptr_t)&delay_test_function + 4);
	ck_assert_uint_eq(d.ns, 1000);
}
END_TEST

START_TEST(the_busy_wait_lasts_its_time)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	delay_busy(2000000);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ck_assert_int_ge((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec), 2000000);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("delay");
	TCase *tc = tcase_create("sites");

	tcase_add_test(tc, hex_addresses_resolve_to_themselves);
	tcase_add_test(tc, symbols_resolve_with_their_offset);
	tcase_add_test(tc, modules_resolve_from_their_start_like_dladdr);
	tcase_add_test(tc, an_unresolvable_site_disables_the_delay);
	tcase_add_test(tc, the_busy_wait_lasts_its_time);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
