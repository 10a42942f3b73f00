/*
 * elf_sym: a static function is named from the .symtab of a running PIE
 * (this test binary, as the shim finds the daemon's own functions); a
 * copy cut short or with its section headers scrambled gives "not
 * found", never a fault, as a hostile or truncated module must not crash
 * the daemon.
 */
#include <check.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_sym.h"

#include "check_run.h"

static char copy_path[64];
static unsigned char *image;
static size_t image_size;
static uint64_t base;

/* Not exported: only the .symtab names it. */
static __attribute__((noinline, used)) int elf_sym_probe_static(int x)
{
	return x * 3 + 1;
}

static void setup(void)
{
	struct stat st;
	Dl_info info;
	int fd = open("/proc/self/exe", O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	image_size = (size_t)st.st_size;
	image = malloc(image_size);
	ck_assert_ptr_nonnull(image);
	ck_assert_int_eq(pread(fd, image, image_size, 0), (ssize_t)image_size);
	close(fd);
	ck_assert(dladdr((void *)elf_sym_probe_static, &info));
	base = (uint64_t)(uintptr_t)info.dli_fbase;
	snprintf(copy_path, sizeof(copy_path), "/tmp/check_elf_sym.%d", (int)getpid());
}

static void teardown(void)
{
	unlink(copy_path);
	free(image);
}

static void write_copy(const unsigned char *data, size_t len)
{
	int fd = open(copy_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static bool lookup(const char *path, const char **name, uint64_t *off)
{
	struct elf_sym es;
	bool found;

	elf_sym_init(&es);
	found = elf_sym_lookup(&es, path, (uint64_t)(uintptr_t)elf_sym_probe_static + 4, base, name,
			       off);
	/* Copy the name out of the mapping before it goes. */
	if (found) {
		static char keep[128];

		snprintf(keep, sizeof(keep), "%s", *name);
		*name = keep;
	}
	elf_sym_release(&es);
	return found;
}

START_TEST(a_static_function_is_named_from_the_symtab)
{
	const char *name = NULL;
	uint64_t off = 0;
	Dl_info info;

	/* dladdr alone cannot name it: that is the point. */
	ck_assert(dladdr((void *)elf_sym_probe_static, &info));
	ck_assert(!info.dli_sname || strcmp(info.dli_sname, "elf_sym_probe_static") != 0);
	ck_assert(lookup("/proc/self/exe", &name, &off));
	ck_assert_str_eq(name, "elf_sym_probe_static");
	ck_assert_uint_eq(off, 4);
	write_copy(image, image_size);
	ck_assert(lookup(copy_path, &name, &off));
	ck_assert_str_eq(name, "elf_sym_probe_static");
}
END_TEST

START_TEST(a_truncated_copy_is_not_found)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)image;
	const char *name;
	uint64_t off;

	/* Every cut before the end of the section headers loses them. */
	for (size_t cut = 0; cut < image_size; cut += image_size / 97 + 1) {
		if (cut >= eh->e_shoff)
			break;
		write_copy(image, cut);
		ck_assert_msg(!lookup(copy_path, &name, &off), "found in a copy cut at %zu", cut);
	}
	write_copy(image, eh->e_shoff + eh->e_shnum * sizeof(Elf64_Shdr) - 1);
	ck_assert(!lookup(copy_path, &name, &off));
}
END_TEST

START_TEST(scrambled_section_headers_never_fault)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)image;
	size_t sh_bytes = eh->e_shnum * sizeof(Elf64_Shdr);
	unsigned char *bad = malloc(image_size);
	const char *name;
	uint64_t off;
	unsigned seed = 18;

	ck_assert_ptr_nonnull(bad);
	/* Huge offsets and sizes in every section header: nothing is in the file. */
	memcpy(bad, image, image_size);
	for (size_t i = 0; i < sh_bytes; i++)
		if (i % sizeof(Elf64_Shdr) >= offsetof(Elf64_Shdr, sh_offset) &&
		    i % sizeof(Elf64_Shdr) < offsetof(Elf64_Shdr, sh_link))
			bad[eh->e_shoff + i] = 0xff;
	write_copy(bad, image_size);
	ck_assert(!lookup(copy_path, &name, &off));
	/* Random bytes flipped in the section headers: any answer, but no fault. */
	for (int round = 0; round < 200; round++) {
		memcpy(bad, image, image_size);
		for (int k = 0; k < 16; k++)
			bad[eh->e_shoff + rand_r(&seed) % sh_bytes] ^=
				(unsigned char)(1 + rand_r(&seed) % 255);
		write_copy(bad, image_size);
		(void)lookup(copy_path, &name, &off);
	}
	/* A bad ELF header. */
	memcpy(bad, image, image_size);
	bad[EI_CLASS] = ELFCLASS32;
	write_copy(bad, image_size);
	ck_assert(!lookup(copy_path, &name, &off));
	ck_assert(!lookup("/nonexistent/module.so", &name, &off));
	free(bad);
}
END_TEST

static Suite *suite(void)
{
	Suite *st = suite_create("elf_sym");
	TCase *tc = tcase_create("lookup");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_static_function_is_named_from_the_symtab);
	tcase_add_test(tc, a_truncated_copy_is_not_found);
	tcase_add_test(tc, scrambled_section_headers_never_fault);
	suite_add_tcase(st, tc);
	return st;
}

int main(void)
{
	return corecap_check_run(suite());
}
