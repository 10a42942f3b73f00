/*
 * analysis/read/symbolizer.c: addresses of this very program, named from
 * a copy of its /proc/self/maps and its ELF file, as a run would be.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/symbolizer.h"

/* Things to find: a function, a C++-mangled one, a data object in .data and .bss. */
__attribute__((noinline, used)) int symbolizer_marker_fn(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline, used)) int
fake_cpp_fn(int x) __asm__("_ZN4ceph7logging3Log12submit_entryEi");
__attribute__((noinline, used)) int fake_cpp_fn(int x)
{
	return x + 7;
}

int symbolizer_marker_data[4] = {1, 2, 3, 4};
struct marker_inner {
	long x;
	pthread_mutex_t m;
};
struct {
	int a;
	struct marker_inner in[3];
} symbolizer_marker_struct;
pthread_mutex_t symbolizer_marker_mutex = PTHREAD_MUTEX_INITIALIZER;
long symbolizer_marker_bss[1024];

static char maps[64], ids[64];
static struct symbolizer s;
static char *err;

static void copy_file(const char *from, const char *to)
{
	char buf[4096];
	size_t n;
	FILE *in = fopen(from, "r"), *out = fopen(to, "w");

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	fclose(out);
}

static void setup(void)
{
	int fd;

	strcpy(maps, "/tmp/check_maps_XXXXXX");
	strcpy(ids, "/tmp/check_ids_XXXXXX");
	fd = mkstemp(maps);
	close(fd);
	fd = mkstemp(ids);
	close(fd);
	copy_file("/proc/self/maps", maps);
	err = NULL;
}

static void teardown(void)
{
	corecap_symbolizer_release(&s);
	free(err);
	unlink(maps);
	unlink(ids);
}

START_TEST(code_addresses_name_their_function_and_offset)
{
	uintptr_t fn = (uintptr_t)symbolizer_marker_fn;
	struct sym_info info;

	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), 0);
	ck_assert_str_eq(corecap_symbolizer_name(&s, fn + 4, true), "symbolizer_marker_fn+0x4");
	/* A return address at a function's first byte belongs to the call before it. */
	ck_assert_str_ne(corecap_symbolizer_name(&s, fn, true), "symbolizer_marker_fn+0x0");
	ck_assert(corecap_symbolizer_lookup(&s, fn + 2, &info));
	ck_assert_str_eq(info.symbol, "symbolizer_marker_fn");
	ck_assert_str_eq(info.module, "check_analysis_symbolizer");
}
END_TEST

START_TEST(cpp_names_are_demangled)
{
	struct sym_info info;

	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), 0);
	ck_assert(corecap_symbolizer_lookup(&s, (uintptr_t)fake_cpp_fn + 1, &info));
	ck_assert_str_eq(info.symbol, "ceph::logging::Log::submit_entry(int)");
}
END_TEST

START_TEST(data_addresses_name_their_object_and_element_in_data_and_bss)
{
	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), 0);
	ck_assert_str_eq(corecap_symbolizer_name(&s, (uintptr_t)&symbolizer_marker_data[0], false),
			 "symbolizer_marker_data[0]");
	ck_assert_str_eq(corecap_symbolizer_name(&s, (uintptr_t)&symbolizer_marker_data[1], false),
			 "symbolizer_marker_data[1]");
	ck_assert_str_eq(
		corecap_symbolizer_name(&s, (uintptr_t)&symbolizer_marker_bss[1000], false),
		"symbolizer_marker_bss[1000]");
}
END_TEST

START_TEST(data_inside_a_struct_reads_as_its_member_path_from_dwarf)
{
	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), 0);
	ck_assert_str_eq(
		corecap_symbolizer_name(&s, (uintptr_t)&symbolizer_marker_struct.in[2].m, false),
		"symbolizer_marker_struct.in[2].m");
	ck_assert_str_eq(
		corecap_symbolizer_name(&s, (uintptr_t)&symbolizer_marker_struct.in[1].x, false),
		"symbolizer_marker_struct.in[1].x");
}
END_TEST

START_TEST(addresses_outside_every_mapping_read_as_hex)
{
	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), 0);
	ck_assert_str_eq(corecap_symbolizer_name(&s, 0x10, true), "0x10");
}
END_TEST

START_TEST(a_file_whose_build_id_changed_is_not_trusted)
{
	FILE *f = fopen(ids, "w");
	char exe[512], **problems;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *name;

	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	fprintf(f, "%s\t0123456789abcdef0123456789abcdef01234567\n", exe);
	fclose(f);
	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, ids, NULL, &err), 0);
	name = corecap_symbolizer_name(&s, (uintptr_t)symbolizer_marker_fn + 4, true);
	ck_assert_msg(strncmp(name, "check_analysis_symbolizer+0x", 28) == 0, "got %s", name);
	ck_assert_uint_eq(corecap_symbolizer_problems(&s, &problems), 1);
	ck_assert_ptr_nonnull(strstr(problems[0], "build-id differs"));
	free(problems);
}
END_TEST

START_TEST(symfs_roots_the_lookup_and_a_missing_file_is_reported)
{
	char **problems;
	const char *name;

	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, "/nonexistent-symfs", &err), 0);
	name = corecap_symbolizer_name(&s, (uintptr_t)symbolizer_marker_fn + 4, true);
	ck_assert_msg(strncmp(name, "check_analysis_symbolizer+0x", 28) == 0, "got %s", name);
	ck_assert_uint_ge(corecap_symbolizer_problems(&s, &problems), 1);
	ck_assert_ptr_nonnull(strstr(problems[0], "under --symfs"));
	free(problems);
}
END_TEST

START_TEST(a_missing_maps_file_is_enoent)
{
	unlink(maps);
	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), -ENOENT);
	ck_assert_str_eq(corecap_symbolizer_name(&s, 0x1234, true), "0x1234");
}
END_TEST

int main(void)
{
	Suite *su = suite_create("analysis_symbolizer");
	TCase *tc = tcase_create("symbols");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, code_addresses_name_their_function_and_offset);
	tcase_add_test(tc, cpp_names_are_demangled);
	tcase_add_test(tc, data_addresses_name_their_object_and_element_in_data_and_bss);
	tcase_add_test(tc, data_inside_a_struct_reads_as_its_member_path_from_dwarf);
	tcase_add_test(tc, addresses_outside_every_mapping_read_as_hex);
	tcase_add_test(tc, a_file_whose_build_id_changed_is_not_trusted);
	tcase_add_test(tc, symfs_roots_the_lookup_and_a_missing_file_is_reported);
	tcase_add_test(tc, a_missing_maps_file_is_enoent);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
