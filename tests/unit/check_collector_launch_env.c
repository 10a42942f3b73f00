/* collector/record/launch_env.c: what `corecap run` puts in LD_PRELOAD and where it finds
 * the shim. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/launch_env.h"

#include "check_run.h"

static char *join(const char *const *libs, size_t n, const char *existing)
{
	char *out = NULL;

	ck_assert_int_eq(corecap_preload_join(libs, n, existing, &out), 0);
	return out;
}

START_TEST(ours_come_first_then_what_was_there)
{
	const char *libs[] = {"/a/shim.so", "/b/fork.so"};
	char *v;

	v = join(libs, 2, NULL);
	ck_assert_str_eq(v, "/a/shim.so:/b/fork.so");
	free(v);
	v = join(libs, 2, "");
	ck_assert_str_eq(v, "/a/shim.so:/b/fork.so");
	free(v);
	v = join(libs, 2, "/usr/lib/libtcmalloc.so");
	ck_assert_str_eq(v, "/a/shim.so:/b/fork.so:/usr/lib/libtcmalloc.so");
	free(v);
}
END_TEST

START_TEST(a_library_already_preloaded_is_not_repeated)
{
	const char *libs[] = {"/a/shim.so", "/b/fork.so", "/a/shim.so"};
	char *v;

	v = join(libs, 3, "/x.so /b/fork.so");
	ck_assert_str_eq(v, "/a/shim.so:/x.so /b/fork.so");
	free(v);
	/* A prefix of a listed path is a different library. */
	v = join(libs, 1, "/a/shim.so.1");
	ck_assert_str_eq(v, "/a/shim.so:/a/shim.so.1");
	free(v);
}
END_TEST

START_TEST(paths_ld_preload_cannot_carry_are_refused)
{
	const char *colon[] = {"/a:b/shim.so"};
	const char *blank[] = {"/a b/shim.so"};
	const char *empty[] = {""};
	char *v = NULL;

	ck_assert_int_eq(corecap_preload_join(colon, 1, NULL, &v), -EINVAL);
	ck_assert_int_eq(corecap_preload_join(blank, 1, NULL, &v), -EINVAL);
	ck_assert_int_eq(corecap_preload_join(empty, 1, NULL, &v), -EINVAL);
	ck_assert_ptr_null(v);
}
END_TEST

START_TEST(the_environment_override_wins_and_must_exist)
{
	char *path = NULL;

	setenv("CORECAP_TEST_LIB", "/bin/sh", 1);
	ck_assert_int_eq(corecap_find_library("CORECAP_TEST_LIB", "preload", "nope.so", &path), 0);
	ck_assert_str_eq(path, "/bin/sh");
	free(path);
	setenv("CORECAP_TEST_LIB", "/nonexistent/lib.so", 1);
	ck_assert_int_eq(corecap_find_library("CORECAP_TEST_LIB", "preload", "nope.so", &path),
			 -ENOENT);
	unsetenv("CORECAP_TEST_LIB");
	ck_assert_int_eq(corecap_find_library("CORECAP_TEST_LIB", "preload",
					      "libcorecap-no-such-library.so", &path),
			 -ENOENT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/launch_env");
	TCase *tc = tcase_create("preload");

	tcase_add_test(tc, ours_come_first_then_what_was_there);
	tcase_add_test(tc, a_library_already_preloaded_is_not_repeated);
	tcase_add_test(tc, paths_ld_preload_cannot_carry_are_refused);
	tcase_add_test(tc, the_environment_override_wins_and_must_exist);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
