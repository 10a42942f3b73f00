/* collector/kernel/tp_format.c: tracefs `format` files and raw tracepoint fields. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kernel/tp_format.h"

#include "check_run.h"

/* Real format files of a 6.18 kernel (x86-64). */
static const char sched_switch[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d field:bogus;\", REC->prev_comm\n";

static const char process_fork[] =
	"name: sched_process_fork\n"
	"ID: 366\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] parent_comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t parent_pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] child_comm;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t child_pid;\toffset:20;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"comm=%s\"\n";

static const char enter_futex[] =
	"name: sys_enter_futex\nID: 522\nformat:\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:u32 * uaddr;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:int op;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:const struct __kernel_timespec * utime;\toffset:40;\tsize:8;\tsigned:0;\n";

START_TEST(fields_at_the_offsets_given)
{
	struct corecap_tp_format f;
	const struct corecap_tp_field *fl;

	ck_assert_int_eq(corecap_tp_format_parse(&f, sched_switch), 0);
	ck_assert_uint_eq(f.id, 372);
	/* The print fmt line's text is not a field. */
	ck_assert_uint_eq(f.n_fields, 11);
	fl = corecap_tp_format_field(&f, "prev_state");
	ck_assert_ptr_nonnull(fl);
	ck_assert_uint_eq(fl->offset, 32);
	ck_assert_uint_eq(fl->size, 8);
	ck_assert(fl->is_signed);
	fl = corecap_tp_format_field(&f, "next_comm");
	ck_assert_ptr_nonnull(fl);
	ck_assert_uint_eq(fl->offset, 40);
	ck_assert_uint_eq(fl->size, 16);
	ck_assert_ptr_nonnull(corecap_tp_format_field(&f, "common_pid"));
	ck_assert_ptr_null(corecap_tp_format_field(&f, "prev"));
	ck_assert_ptr_null(corecap_tp_format_field(&f, "bogus"));
}
END_TEST

START_TEST(declarations_with_pointers_and_data_loc)
{
	struct corecap_tp_format f;
	const struct corecap_tp_field *fl;

	ck_assert_int_eq(corecap_tp_format_parse(&f, process_fork), 0);
	fl = corecap_tp_format_field(&f, "child_comm");
	ck_assert_ptr_nonnull(fl);
	ck_assert_uint_eq(fl->offset, 16);
	ck_assert_uint_eq(fl->size, 4);
	ck_assert_uint_eq(corecap_tp_format_field(&f, "child_pid")->offset, 20);
	ck_assert_int_eq(corecap_tp_format_parse(&f, enter_futex), 0);
	ck_assert_uint_eq(corecap_tp_format_field(&f, "uaddr")->offset, 16);
	ck_assert_uint_eq(corecap_tp_format_field(&f, "utime")->offset, 40);
	ck_assert_uint_eq(corecap_tp_format_field(&f, "op")->size, 8);
}
END_TEST

START_TEST(no_id_or_no_field_is_refused)
{
	struct corecap_tp_format f;

	ck_assert_int_eq(corecap_tp_format_parse(&f,
						 "name: x\nformat:\n"
						 "\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n"),
			 -EINVAL);
	ck_assert_int_eq(corecap_tp_format_parse(&f, "name: x\nID: 5\nformat:\n"), -EINVAL);
	ck_assert_int_eq(corecap_tp_format_parse(&f, "ID: 5\n\tfield:int a;\tsize:4;\n"), -EINVAL);
	ck_assert_int_eq(corecap_tp_format_parse(&f, ""), -EINVAL);
}
END_TEST

START_TEST(reads_sign_extend_and_stay_inside)
{
	struct corecap_tp_format f;
	unsigned char raw[64];
	int32_t pid = -5;
	int64_t state = 0x100, v;

	ck_assert_int_eq(corecap_tp_format_parse(&f, sched_switch), 0);
	memset(raw, 0, sizeof(raw));
	memcpy(raw + 24, &pid, 4);
	memcpy(raw + 32, &state, 8);
	raw[2] = 0xf0; /* common_flags: unsigned */
	ck_assert(corecap_tp_field_read(corecap_tp_format_field(&f, "prev_pid"), raw, 64, &v));
	ck_assert_int_eq(v, -5);
	ck_assert(corecap_tp_field_read(corecap_tp_format_field(&f, "prev_state"), raw, 64, &v));
	ck_assert_int_eq(v, 0x100);
	ck_assert(corecap_tp_field_read(corecap_tp_format_field(&f, "common_flags"), raw, 64, &v));
	ck_assert_int_eq(v, 0xf0);
	/* A record too short for the field, a field of no integer size, no field. */
	ck_assert(!corecap_tp_field_read(corecap_tp_format_field(&f, "next_prio"), raw, 63, &v));
	ck_assert(!corecap_tp_field_read(corecap_tp_format_field(&f, "prev_comm"), raw, 64, &v));
	ck_assert(!corecap_tp_field_read(NULL, raw, 64, &v));
}
END_TEST

START_TEST(this_kernels_files)
{
	struct corecap_tp_format f;
	char err[256];

	if (access(CORECAP_TRACEFS "/events/sched/sched_switch/format", R_OK) != 0) {
		fprintf(stderr, "this_kernels_files: %s is not readable here; not checked\n",
			CORECAP_TRACEFS);
		return;
	}
	ck_assert_int_eq(corecap_tp_format_load(&f, CORECAP_TRACEFS, "sched", "sched_switch", err,
						sizeof(err)),
			 0);
	ck_assert_str_eq(f.name, "sched:sched_switch");
	ck_assert_uint_gt(f.id, 0);
	ck_assert_ptr_nonnull(corecap_tp_format_field(&f, "prev_pid"));
	ck_assert_ptr_nonnull(corecap_tp_format_field(&f, "next_pid"));
	ck_assert_ptr_nonnull(corecap_tp_format_field(&f, "prev_state"));
	ck_assert_int_eq(corecap_tp_format_load(&f, CORECAP_TRACEFS, "sched", "no_such_event", err,
						sizeof(err)),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "no_such_event/format': No such file or directory"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/tp_format");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, fields_at_the_offsets_given);
	tcase_add_test(tc, declarations_with_pointers_and_data_loc);
	tcase_add_test(tc, no_id_or_no_field_is_refused);
	tcase_add_test(tc, reads_sign_extend_and_stay_inside);
	tcase_add_test(tc, this_kernels_files);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
