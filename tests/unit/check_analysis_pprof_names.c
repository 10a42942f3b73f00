/*
 * analysis/read/pprof_names.c: addresses of this very program named as
 * gperftools' pprof names them (nm's regions joined with addr2line's
 * names), from a copy of its /proc/self/maps, as a profile's maps would be.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/pprof_names.h"

/*
 * A local function with a global alias at its address: nm prints both
 * (t zz_pprof_fn, T zz_pprof_fn_alias), pprof keeps the later T, and takes
 * it over addr2line's DWARF name because it starts with that name.
 */
__attribute__((noinline, used)) static int zz_pprof_fn(int x)
{
	return x * 5 + 3;
}
int zz_pprof_fn_alias(int x) __attribute__((alias("zz_pprof_fn")));

/* An inlined call: the return address of capture_pc lies in its body. */
static uintptr_t captured_pc, libc_ra;

__attribute__((noinline)) static void capture_pc(void)
{
	captured_pc = (uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((always_inline)) static inline void pprof_inlined(void)
{
	capture_pc();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, used)) void pprof_inline_holder(void)
{
	pprof_inlined();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static int cmp_int(const void *a, const void *b)
{
	libc_ra = (uintptr_t)__builtin_return_address(0);
	return *(const int *)a - *(const int *)b;
}

static char maps[64];
static struct symbolizer s;
static struct pprof_names p;
static char *err;

static void setup(void)
{
	char buf[4096];
	size_t n;
	FILE *in = fopen("/proc/self/maps", "r"), *out;
	int fd;

	strcpy(maps, "/tmp/check_pprof_maps_XXXXXX");
	fd = mkstemp(maps);
	ck_assert_int_ge(fd, 0);
	out = fdopen(fd, "w");
	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	fclose(out);
	err = NULL;
	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), 0);
	corecap_pprof_names_init(&p, &s);
}

static void teardown(void)
{
	corecap_pprof_names_release(&p);
	corecap_symbolizer_release(&s);
	free(err);
	unlink(maps);
}

START_TEST(a_t_alias_that_starts_with_the_dwarf_name_wins)
{
	const struct sym_frame *f;
	size_t n = corecap_pprof_names_frames(&p, (uintptr_t)zz_pprof_fn + 1, &f);

	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(f[0].function, "zz_pprof_fn_alias");
	ck_assert(!f[0].inlined);
	ck_assert_int_eq(zz_pprof_fn_alias(1), 8);
}
END_TEST

START_TEST(inlined_calls_are_frames_in_a_file_with_fini)
{
	const struct sym_frame *f;
	size_t n;

	pprof_inline_holder();
	n = corecap_pprof_names_frames(&p, captured_pc - 1, &f);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(f[0].function, "pprof_inlined");
	ck_assert(f[0].inlined);
	ck_assert_str_eq(f[1].function, "pprof_inline_holder");
	ck_assert(!f[1].inlined);
}
END_TEST

START_TEST(libc_has_no_fini_so_one_frame_per_address)
{
	int v[64];
	const struct sym_frame *f;
	size_t n;

	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	qsort(v, 64, sizeof(v[0]), cmp_int);
	n = corecap_pprof_names_frames(&p, libc_ra - 1, &f);
	ck_assert_uint_eq(n, 1);
	ck_assert(strncmp(f[0].function, "0x", 2) != 0);
	ck_assert(!f[0].inlined);
}
END_TEST

START_TEST(addresses_in_no_file_read_as_16_hex_digits)
{
	const struct sym_frame *f;
	char want[32];
	size_t n = corecap_pprof_names_frames(&p, 0x10, &f);

	snprintf(want, sizeof(want), "0x%016" PRIx64, (uint64_t)0x10);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(f[0].function, want);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("pprof_names");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_t_alias_that_starts_with_the_dwarf_name_wins);
	tcase_add_test(tc, inlined_calls_are_frames_in_a_file_with_fini);
	tcase_add_test(tc, libc_has_no_fini_so_one_frame_per_address);
	tcase_add_test(tc, addresses_in_no_file_read_as_16_hex_digits);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
