/*
 * analysis/read/symbolizer.c: addresses of this very program, named from
 * a copy of its /proc/self/maps and its ELF file, as a run would be.
 */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/pprof_names.h"
#include "read/symbolizer.h"

#include "check_run.h"

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
/* Local symbols: a file's static and a function's (found in their file's units). */
static struct {
	long pad[3];
	pthread_mutex_t lock;
} symbolizer_static_struct;

__attribute__((noinline)) static pthread_mutex_t *symbolizer_function_static(void)
{
	static struct {
		int n;
		pthread_mutex_t mu;
	} in_function;

	return &in_function.mu;
}

/*
 * A local function with a global alias at its address: nm prints both
 * (t zz_pprof_fn, T zz_pprof_fn_alias); pprof keeps the later T and takes
 * it over addr2line's DWARF name, which it starts with (pprof_names).
 */
__attribute__((noinline, used)) static int zz_pprof_fn(int x)
{
	return x * 5 + 3;
}
int zz_pprof_fn_alias(int x) __attribute__((alias("zz_pprof_fn")));

/* An inlined call: the return address of capture_pc lies in its body, at pc_line. */
static uintptr_t captured_pc;
static int pc_line, call_line;

__attribute__((noinline)) static void capture_pc(void)
{
	captured_pc = (uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((always_inline)) static inline void inlined_marker(void)
{
	pc_line = __LINE__ + 1;
	capture_pc();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, used)) void inline_holder_fn(void)
{
	call_line = __LINE__ + 1;
	inlined_marker();
	__asm__ volatile("" ::: "memory");
}

/* A return address inside libc: qsort calls this from its own (local) code. */
static uintptr_t libc_ra;

__attribute__((noinline)) static int cmp_int(const void *a, const void *b)
{
	libc_ra = (uintptr_t)__builtin_return_address(0);
	return *(const int *)a - *(const int *)b;
}

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

START_TEST(a_static_variable_reads_as_its_member_path_in_a_file_or_a_function)
{
	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), 0);
	ck_assert_str_eq(
		corecap_symbolizer_name(&s, (uintptr_t)&symbolizer_static_struct.lock, false),
		"symbolizer_static_struct.lock");
	ck_assert_str_eq(
		corecap_symbolizer_name(&s, (uintptr_t)symbolizer_function_static(), false),
		"in_function.mu");
	/* A global after the locals: every unit's index still finds it. */
	ck_assert_str_eq(
		corecap_symbolizer_name(&s, (uintptr_t)&symbolizer_marker_struct.in[0].m, false),
		"symbolizer_marker_struct.in[0].m");
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

START_TEST(inlined_calls_are_frames_of_their_own_with_source_lines)
{
	const struct sym_frame *f;
	size_t n;

	inline_holder_fn();
	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), 0);
	n = corecap_symbolizer_frames(&s, captured_pc - 1, &f);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(f[0].function, "inlined_marker");
	ck_assert(f[0].inlined);
	ck_assert_ptr_nonnull(f[0].file);
	ck_assert_ptr_nonnull(strstr(f[0].file, "check_analysis_symbolizer.c"));
	ck_assert_uint_eq(f[0].line, (unsigned)pc_line);
	ck_assert_str_eq(f[1].function, "inline_holder_fn");
	ck_assert(!f[1].inlined);
	ck_assert_uint_eq(f[1].line, (unsigned)call_line);
	/* Cached: the same frames again. */
	ck_assert_uint_eq(corecap_symbolizer_frames(&s, captured_pc - 1, &f), 2);
	ck_assert_uint_eq(corecap_symbolizer_frames(&s, 0x10, &f), 0);
}
END_TEST

START_TEST(libc_is_named_from_its_debug_file)
{
	int v[64];
	struct sym_info info;
	const struct sym_frame *f;
	size_t n;

	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	qsort(v, 64, sizeof(*v), cmp_int);
	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), 0);
	ck_assert(corecap_symbolizer_lookup(&s, libc_ra, &info));
	ck_assert_str_eq(info.module, "libc.so.6");
	if (access("/usr/lib/debug/.build-id", F_OK) != 0 ||
	    !strstr(info.symbol ? info.symbol : "", "msort")) {
		/* Without libc6-dbg only .dynsym names libc: qsort's helpers are local. */
		fprintf(stderr, "libc_is_named_from_its_debug_file: no libc6-dbg, got %s\n",
			info.symbol ? info.symbol : "(none)");
		ck_assert(access("/usr/share/doc/libc6-dbg", F_OK) != 0);
		return;
	}
	n = corecap_symbolizer_frames(&s, libc_ra - 1, &f);
	ck_assert_uint_ge(n, 1);
	ck_assert_ptr_nonnull(f[0].file);
	ck_assert_ptr_nonnull(strstr(f[0].file, "msort.c"));
}
END_TEST

/* pprof_names over this symbolizer: the names google-pprof gives these addresses. */
START_TEST(pprof_names_a_t_alias_that_starts_with_the_dwarf_name)
{
	struct pprof_names p;
	const struct sym_frame *f;

	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), 0);
	corecap_pprof_names_init(&p, &s);
	ck_assert_uint_eq(corecap_pprof_names_frames(&p, (uintptr_t)zz_pprof_fn + 1, &f), 1);
	ck_assert_str_eq(f[0].function, "zz_pprof_fn_alias");
	ck_assert(!f[0].inlined);
	ck_assert_int_eq(zz_pprof_fn_alias(1), 8);
	corecap_pprof_names_release(&p);
}
END_TEST

START_TEST(pprof_names_inline_frames_only_in_a_file_with_fini)
{
	int v[64];
	struct pprof_names p;
	const struct sym_frame *f;
	char hex[32];

	inline_holder_fn();
	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	qsort(v, 64, sizeof(*v), cmp_int);
	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), 0);
	corecap_pprof_names_init(&p, &s);
	/* This program has _fini: addr2line -i's chain. */
	ck_assert_uint_eq(corecap_pprof_names_frames(&p, captured_pc - 1, &f), 2);
	ck_assert_str_eq(f[0].function, "inlined_marker");
	ck_assert(f[0].inlined);
	ck_assert_str_eq(f[1].function, "inline_holder_fn");
	ck_assert(!f[1].inlined);
	/* libc has none: one frame per address. */
	ck_assert_uint_eq(corecap_pprof_names_frames(&p, libc_ra - 1, &f), 1);
	ck_assert(strncmp(f[0].function, "0x", 2) != 0);
	ck_assert(!f[0].inlined);
	/* No file: pprof's 16 hex digits. */
	snprintf(hex, sizeof(hex), "0x%016x", 0x10);
	ck_assert_uint_eq(corecap_pprof_names_frames(&p, 0x10, &f), 1);
	ck_assert_str_eq(f[0].function, hex);
	corecap_pprof_names_release(&p);
}
END_TEST

START_TEST(the_vdso_is_named)
{
	void *h = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	uintptr_t fn = h ? (uintptr_t)dlsym(h, "__vdso_clock_gettime") : 0;
	const char *name;

	ck_assert_msg(fn, "no vDSO clock_gettime");
	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), 0);
	name = corecap_symbolizer_name(&s, fn + 4, true);
	ck_assert_msg(strstr(name, "clock_gettime+0x4"), "got %s", name);
	ck_assert(!corecap_symbolizer_is_shim(&s, fn));
}
END_TEST

START_TEST(the_shims_modules_are_told_apart)
{
	FILE *f = fopen(maps, "a");

	fprintf(f, "7ff000000000-7ff000010000 r-xp 00000000 00:00 0 "
		   "/nonexistent/preload/libcorecap-preload.so\n");
	fprintf(f, "7ff000010000-7ff000020000 r-xp 00000000 00:00 0 "
		   "/nonexistent/liblttng-ust.so.1.0.0\n");
	fclose(f);
	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), 0);
	ck_assert(corecap_symbolizer_is_shim(&s, 0x7ff000000100));
	ck_assert(corecap_symbolizer_is_shim(&s, 0x7ff000010100));
	ck_assert(!corecap_symbolizer_is_shim(&s, (uintptr_t)symbolizer_marker_fn));
	ck_assert(!corecap_symbolizer_is_shim(&s, 0x10));
}
END_TEST

/*
 * A stripped copy of this program with a .gnu_debuglink to its debug file
 * beside it (objcopy, as Debian's dh_strip makes them): symbols and lines
 * come from the debug file.
 */
START_TEST(a_stripped_file_is_named_from_its_debuglink_file)
{
	char dir[] = "/tmp/check_debuglink_XXXXXX", cmd[2048], exe[512], line[1024], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *in, *out;
	const struct sym_frame *f;

	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "objcopy --only-keep-debug '%s' %s/prog.debug && "
		 "objcopy --strip-all --add-gnu-debuglink=%s/prog.debug '%s' %s/prog",
		 exe, dir, dir, exe, dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "a_stripped_file_is_named_from_its_debuglink_file: no objcopy\n");
		return;
	}
	/* The run's maps with this program's lines naming the stripped copy. */
	in = fopen("/proc/self/maps", "r");
	out = fopen(maps, "w");
	while (fgets(line, sizeof(line), in)) {
		slash = strstr(line, exe);
		if (slash)
			fprintf(out, "%.*s%s/prog\n", (int)(slash - line), line, dir);
		else
			fputs(line, out);
	}
	fclose(in);
	fclose(out);
	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), 0);
	ck_assert_str_eq(corecap_symbolizer_name(&s, (uintptr_t)symbolizer_marker_fn + 4, true),
			 "symbolizer_marker_fn+0x4");
	inline_holder_fn();
	ck_assert_uint_eq(corecap_symbolizer_frames(&s, captured_pc - 1, &f), 2);
	ck_assert_uint_eq(f[0].line, (unsigned)pc_line);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The first executable mapping of a file in maps, as its line. */
static void exec_line(char *line, size_t size)
{
	FILE *f = fopen(maps, "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, (int)size, f))
		if (strstr(line, " r-xp ") && strchr(line, '/'))
			break;
	fclose(f);
	ck_assert_ptr_nonnull(strstr(line, " r-xp "));
}

/* A symbolizer of a maps file holding these lines, under symfs. */
static void sub_of(struct symbolizer *sub, const char *lines, const char *symfs)
{
	char path[] = "/tmp/check_sub_maps_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	ck_assert_ptr_nonnull(f);
	fputs(lines, f);
	fclose(f);
	ck_assert_int_eq(corecap_symbolizer_init(sub, path, NULL, symfs, &err), 0);
	unlink(path);
}

START_TEST(a_profiles_maps_are_covered_when_its_code_mappings_are_the_runs)
{
	char line[512], lines[1536];
	unsigned long long start, end, off;
	char path[256];
	struct symbolizer sub;

	ck_assert_int_eq(corecap_symbolizer_init(&s, maps, NULL, NULL, &err), 0);
	exec_line(line, sizeof(line));
	ck_assert_int_eq(sscanf(line, "%llx-%llx %*s %llx %*s %*s %255s", &start, &end, &off, path),
			 4);
	/* Its code mapping, and a data mapping the run's maps lack (a trace buffer). */
	snprintf(lines, sizeof(lines),
		 "%s7f0000000000-7f0000100000 rw-s 00000000 00:19 7 /dev/shm/buf\n", line);
	sub_of(&sub, lines, NULL);
	ck_assert(corecap_symbolizer_covers(&s, &sub));
	corecap_symbolizer_release(&sub);
	/* A code mapping the run's lack. */
	snprintf(lines, sizeof(lines),
		 "%s7f0000000000-7f0000100000 r-xp 00000000 00:19 7 /usr/lib/x.so\n", line);
	sub_of(&sub, lines, NULL);
	ck_assert(!corecap_symbolizer_covers(&s, &sub));
	corecap_symbolizer_release(&sub);
	/* The same range of the same file at another offset. */
	snprintf(lines, sizeof(lines), "%llx-%llx r-xp %llx 00:19 7 %s\n", start, end, off + 0x1000,
		 path);
	sub_of(&sub, lines, NULL);
	ck_assert(!corecap_symbolizer_covers(&s, &sub));
	corecap_symbolizer_release(&sub);
	/* The same mapping of another file. */
	snprintf(lines, sizeof(lines), "%llx-%llx r-xp %llx 00:19 7 /usr/lib/other.so\n", start,
		 end, off);
	sub_of(&sub, lines, NULL);
	ck_assert(!corecap_symbolizer_covers(&s, &sub));
	corecap_symbolizer_release(&sub);
	/* Files looked up under another root. */
	sub_of(&sub, line, "/nonexistent-symfs");
	ck_assert(!corecap_symbolizer_covers(&s, &sub));
	corecap_symbolizer_release(&sub);
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

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, code_addresses_name_their_function_and_offset);
	tcase_add_test(tc, cpp_names_are_demangled);
	tcase_add_test(tc, data_addresses_name_their_object_and_element_in_data_and_bss);
	tcase_add_test(tc, data_inside_a_struct_reads_as_its_member_path_from_dwarf);
	tcase_add_test(tc, a_static_variable_reads_as_its_member_path_in_a_file_or_a_function);
	tcase_add_test(tc, addresses_outside_every_mapping_read_as_hex);
	tcase_add_test(tc, a_file_whose_build_id_changed_is_not_trusted);
	tcase_add_test(tc, symfs_roots_the_lookup_and_a_missing_file_is_reported);
	tcase_add_test(tc, a_missing_maps_file_is_enoent);
	tcase_add_test(tc, a_profiles_maps_are_covered_when_its_code_mappings_are_the_runs);
	tcase_add_test(tc, inlined_calls_are_frames_of_their_own_with_source_lines);
	tcase_add_test(tc, libc_is_named_from_its_debug_file);
	tcase_add_test(tc, the_vdso_is_named);
	tcase_add_test(tc, the_shims_modules_are_told_apart);
	tcase_add_test(tc, a_stripped_file_is_named_from_its_debuglink_file);
	tcase_add_test(tc, pprof_names_a_t_alias_that_starts_with_the_dwarf_name);
	tcase_add_test(tc, pprof_names_inline_frames_only_in_a_file_with_fini);
	suite_add_tcase(su, tc);
	return corecap_check_run(su);
}
