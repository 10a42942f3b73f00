/*
 * collector/verify/site_spec.c: the sites verify takes, written as the reports
 * print them, parsed and then resolved in this very process (its own
 * functions, its executable's mapping, libstdc++'s C++ symbols), each
 * resolved address checked against what the C runtime says it is.
 */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "verify/site_spec.h"

#include "check_run.h"

/* A function of this executable for the resolver to find (kept out of line, not static). */
__attribute__((noinline, used)) int check_site_spec_target(int x);
__attribute__((noinline, used)) int check_site_spec_target(int x)
{
	return x * 3 + (int)getpid();
}

static void expect_named(const char *text, const char *name, uint64_t off)
{
	struct site_spec s;
	char why[512] = "";

	ck_assert_msg(corecap_site_spec_parse(text, &s, why, sizeof(why)) == 0, "'%s': %s", text,
		      why);
	ck_assert_int_eq(s.form, SITE_SPEC_NAMED);
	ck_assert_str_eq(s.name, name);
	ck_assert_uint_eq(s.off, off);
}

static void expect_bad(const char *text, const char *because)
{
	struct site_spec s;
	char why[512] = "";

	ck_assert_int_eq(corecap_site_spec_parse(text, &s, why, sizeof(why)), -EINVAL);
	ck_assert_msg(strstr(why, because), "'%s': '%s' lacks '%s'", text, why, because);
}

START_TEST(the_forms_reports_print_parse)
{
	struct site_spec s;
	char why[256];

	expect_named("osd_handle_op+0x699", "osd_handle_op", 0x699);
	expect_named("refosd+0x1a2b", "refosd", 0x1a2b);
	expect_named("PG::lock(bool) const+0x1c", "PG::lock(bool) const", 0x1c);
	expect_named("operator+(int, int)+0x4", "operator+(int, int)", 0x4);
	ck_assert_int_eq(corecap_site_spec_parse("0x55ca80b57ea0", &s, why, sizeof(why)), 0);
	ck_assert_int_eq(s.form, SITE_SPEC_ADDR);
	ck_assert_uint_eq(s.off, 0x55ca80b57ea0);
}
END_TEST

START_TEST(older_reports_decorations_are_dropped)
{
	expect_named("lock at shards_queue+0x32", "shards_queue", 0x32);
	expect_named("shards_queue+0x32 x5", "shards_queue", 0x32);
	expect_named("lock at shards_queue+0x32 [0x55ca80b57ea0]", "shards_queue", 0x32);
	expect_named("  shards_queue+0x32\n", "shards_queue", 0x32);
}
END_TEST

START_TEST(bad_forms_say_what_to_write)
{
	expect_bad("", "empty");
	expect_bad("lock at ", "empty");
	expect_bad("osd_handle_op", "FUNCTION+0xOFF");
	expect_bad("osd_handle_op+1689", "0x and hex digits");
	expect_bad("osd_handle_op+0x", "0x and hex digits");
	expect_bad("osd_handle_op+0x69z", "0x and hex digits");
	expect_bad("+0x10", "no function or module");
	expect_bad("0xnothex", "0x and hex digits");
}
END_TEST

static uint64_t resolve_ok(const char *text)
{
	struct site_spec s;
	char why[768] = "";
	uint64_t addr = 0;

	ck_assert_msg(corecap_site_spec_parse(text, &s, why, sizeof(why)) == 0, "%s", why);
	ck_assert_msg(corecap_site_spec_resolve(getpid(), &s, &addr, why, sizeof(why)) == 0,
		      "'%s': %s", text, why);
	return addr;
}

static int resolve_err(const char *text, char *why, size_t size)
{
	struct site_spec s;
	uint64_t addr = 0;

	ck_assert_int_eq(corecap_site_spec_parse(text, &s, why, size), 0);
	return corecap_site_spec_resolve(getpid(), &s, &addr, why, size);
}

START_TEST(a_function_resolves_to_its_address_plus_the_offset)
{
	uint64_t fn = (uint64_t)(uintptr_t)&check_site_spec_target;

	ck_assert_uint_eq(resolve_ok("check_site_spec_target+0x0"), fn);
	ck_assert_uint_eq(resolve_ok("check_site_spec_target+0x5"), fn + 5);
	/* As an old report wrote it. */
	ck_assert_uint_eq(resolve_ok("lock at check_site_spec_target+0x5 x3"), fn + 5);
}
END_TEST

START_TEST(a_demangled_cxx_function_resolves)
{
	void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *what;

	ck_assert_msg(h != NULL, "libstdc++ is not loaded: %s", dlerror());
	what = dlsym(h, "_ZNKSt9bad_alloc4whatEv");
	ck_assert_ptr_nonnull(what);
	ck_assert_uint_eq(resolve_ok("std::bad_alloc::what() const+0x2"),
			  (uint64_t)(uintptr_t)what + 2);
	dlclose(h);
}
END_TEST

START_TEST(a_module_offset_is_from_its_first_mapping)
{
	char exe[PATH_MAX], spec[PATH_MAX + 16], line[PATH_MAX + 128];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	unsigned long long start = 0, off;
	FILE *f = fopen("/proc/self/maps", "r");

	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, exe) && sscanf(line, "%llx-%*x %*s %llx", &start, &off) == 2 &&
		    off == 0)
			break;
	fclose(f);
	ck_assert_uint_ne(start, 0);
	snprintf(spec, sizeof(spec), "%s+0x40", strrchr(exe, '/') + 1);
	ck_assert_uint_eq(resolve_ok(spec), start + 0x40);
}
END_TEST

START_TEST(unknown_functions_and_offsets_past_the_end_are_refused)
{
	char why[768] = "";

	ck_assert_int_eq(resolve_err("no_such_function_anywhere+0x10", why, sizeof(why)), -ENOENT);
	ck_assert_msg(strstr(why, "no module or function 'no_such_function_anywhere'"), "%s", why);
	ck_assert_int_eq(resolve_err("check_site_spec_target+0x100000", why, sizeof(why)), -ERANGE);
	ck_assert_msg(strstr(why, "past the end of 'check_site_spec_target'"), "%s", why);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("site_spec");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, the_forms_reports_print_parse);
	tcase_add_test(tc, older_reports_decorations_are_dropped);
	tcase_add_test(tc, bad_forms_say_what_to_write);
	tcase_add_test(tc, a_function_resolves_to_its_address_plus_the_offset);
	tcase_add_test(tc, a_demangled_cxx_function_resolves);
	tcase_add_test(tc, a_module_offset_is_from_its_first_mapping);
	tcase_add_test(tc, unknown_functions_and_offsets_past_the_end_are_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return corecap_check_run(suite());
}
