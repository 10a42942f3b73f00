/* collector/sources/vdso_unwind.c: the vDSO's unwind table, found in this process's own vDSO. */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "sources/vdso_unwind.h"

#include "check_run.h"

/* This process's vDSO image and its size (its segments' end), or NULL. */
static const unsigned char *own_vdso(size_t *bytes)
{
	const unsigned char *img = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	Elf64_Ehdr eh;

	*bytes = 0;
	if (!img)
		return NULL;
	memcpy(&eh, img, sizeof(eh));
	for (size_t i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, img + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > *bytes)
			*bytes = ph.p_offset + ph.p_filesz;
	}
	return img;
}

START_TEST(the_table_covers_the_vdso_functions_in_order)
{
	size_t bytes;
	const unsigned char *img = own_vdso(&bytes);
	struct corecap_vdso_unwind vu;
	uint64_t base = (uint64_t)(uintptr_t)img;
	int64_t last = INT64_MIN;

	ck_assert_msg(img, "this process has no vDSO (a kernel booted with vdso=0?)");
	ck_assert_int_eq(corecap_vdso_unwind_parse(&vu, img, bytes, base), 0);
	ck_assert_uint_gt(vu.n_fdes, 0);
	ck_assert_uint_ge(vu.text_start, base);
	ck_assert_uint_le(vu.text_end, base + bytes);
	/* Each entry: the function's start and its FDE, from the header; the
	 * functions lie in the text and come in order. clock_gettime is one. */
	for (uint64_t i = 0; i < vu.n_fdes; i++) {
		int32_t e[2];
		uint64_t fn;

		memcpy(e, (const void *)(uintptr_t)(vu.table_addr + 8 * i), sizeof(e));
		fn = vu.hdr_addr + (uint64_t)(int64_t)e[0];
		ck_assert_int_gt(e[0], last);
		last = e[0];
		ck_assert_uint_ge(fn, vu.text_start);
		ck_assert_uint_lt(fn, vu.text_end);
		ck_assert_uint_lt(vu.hdr_addr + (uint64_t)(int64_t)e[1], base + bytes);
	}
}
END_TEST

START_TEST(the_live_process_gives_the_same_table)
{
	size_t bytes;
	const unsigned char *img = own_vdso(&bytes);
	struct corecap_vdso_unwind a, b;

	ck_assert_msg(img, "this process has no vDSO (a kernel booted with vdso=0?)");
	ck_assert_int_eq(corecap_vdso_unwind_parse(&a, img, bytes, (uint64_t)(uintptr_t)img), 0);
	ck_assert_int_eq(corecap_vdso_unwind_init(&b, getpid()), 0);
	ck_assert_mem_eq(&a, &b, sizeof(a));
}
END_TEST

START_TEST(a_damaged_image_is_refused)
{
	size_t bytes;
	const unsigned char *img = own_vdso(&bytes);
	struct corecap_vdso_unwind vu;
	unsigned char *copy;
	Elf64_Ehdr eh;

	ck_assert_msg(img, "this process has no vDSO (a kernel booted with vdso=0?)");
	copy = malloc(bytes);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, img, bytes);
	/* Cut short anywhere before the table's end: refused, without reading past it. */
	ck_assert_int_eq(corecap_vdso_unwind_parse(&vu, copy, bytes, 0), 0);
	for (size_t n = 0; n < vu.table_addr + 8 * vu.n_fdes; n++) {
		ck_assert_int_ne(corecap_vdso_unwind_parse(&vu, copy, n, 0), 0);
		ck_assert_uint_eq(vu.n_fdes, 0);
	}
	/* Not ELF; a 32-bit class. */
	copy[1] = 'X';
	ck_assert_int_eq(corecap_vdso_unwind_parse(&vu, copy, bytes, 0), -EINVAL);
	memcpy(copy, img, bytes);
	copy[EI_CLASS] = ELFCLASS32;
	ck_assert_int_eq(corecap_vdso_unwind_parse(&vu, copy, bytes, 0), -EINVAL);
	/* An .eh_frame_hdr of another version, or without a search table. */
	memcpy(copy, img, bytes);
	memcpy(&eh, copy, sizeof(eh));
	for (size_t i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, copy + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_GNU_EH_FRAME)
			continue;
		copy[ph.p_offset] = 2;
		ck_assert_int_eq(corecap_vdso_unwind_parse(&vu, copy, bytes, 0), -EINVAL);
		copy[ph.p_offset] = 1;
		copy[ph.p_offset + 3] = 0xff; /* table_enc DW_EH_PE_omit */
		ck_assert_int_eq(corecap_vdso_unwind_parse(&vu, copy, bytes, 0), -ENOENT);
	}
	free(copy);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/vdso_unwind");
	TCase *tc = tcase_create("vdso");

	tcase_add_test(tc, the_table_covers_the_vdso_functions_in_order);
	tcase_add_test(tc, the_live_process_gives_the_same_table);
	tcase_add_test(tc, a_damaged_image_is_refused);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
