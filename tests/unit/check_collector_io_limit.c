/* collector/sources/io_limit.c: cgroup v2 io.max and io.stat, v1 blkio.throttle files. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "sources/io_limit.h"

#include "check_run.h"

START_TEST(io_max_lines)
{
	struct corecap_io_limit l = {0};

	ck_assert_int_eq(corecap_io_max_parse("8:16 rbps=max wbps=max riops=max wiops=max\n"
					      "7:3 rbps=2097152 wbps=max riops=max wiops=120\n",
					      7, 3, &l),
			 0);
	ck_assert_uint_eq(l.iops[0], 0);
	ck_assert_uint_eq(l.iops[1], 120);
	ck_assert_uint_eq(l.bps[0], 2097152);
	ck_assert_uint_eq(l.bps[1], 0);
	/* "7:3" is not "7:30": a device is its whole number. */
	ck_assert_int_eq(corecap_io_max_parse("7:30 wiops=5\n", 7, 3, &l), -ENOENT);
	ck_assert_int_eq(corecap_io_max_parse("", 7, 3, &l), -ENOENT);
	ck_assert_int_eq(corecap_io_max_parse("7:3 wiops=x\n", 7, 3, &l), -EINVAL);
	ck_assert_int_eq(corecap_io_max_parse("7:3 wiops\n", 7, 3, &l), -EINVAL);
	ck_assert_int_eq(corecap_io_max_parse("7:3 wiops=99999999999999999999999\n", 7, 3, &l),
			 -EINVAL);
	/* Keys a later kernel adds are skipped. */
	ck_assert_int_eq(corecap_io_max_parse("7:3 wiops=7 ziops=9\n", 7, 3, &l), 0);
	ck_assert_uint_eq(l.iops[1], 7);
}
END_TEST

START_TEST(io_stat_lines)
{
	uint64_t ios[2], bytes[2];

	ck_assert_int_eq(corecap_io_stat_parse("254:0 rbytes=4096 wbytes=8192 rios=1 wios=2 "
					       "dbytes=0 dios=0\n",
					       254, 0, ios, bytes),
			 0);
	ck_assert_uint_eq(ios[0], 1);
	ck_assert_uint_eq(ios[1], 2);
	ck_assert_uint_eq(bytes[0], 4096);
	ck_assert_uint_eq(bytes[1], 8192);
	ck_assert_int_eq(corecap_io_stat_parse("254:1 rios=1\n", 254, 0, ios, bytes), -ENOENT);
}
END_TEST

START_TEST(blkio_v1_files)
{
	static const char serviced[] = "7:3 Read 12\n7:3 Write 340\n7:3 Sync 340\n7:3 Async 12\n"
				       "7:3 Discard 0\n7:3 Total 352\n254:0 Read 1\n254:0 Write 2\n"
				       "Total 355\n";
	uint64_t v, rw[2];

	ck_assert_int_eq(corecap_blkio_device_parse("254:0 500\n7:3 120\n", 7, 3, &v), 0);
	ck_assert_uint_eq(v, 120);
	ck_assert_int_eq(corecap_blkio_device_parse("", 7, 3, &v), -ENOENT);
	ck_assert_int_eq(corecap_blkio_device_parse("7:3 12x\n", 7, 3, &v), -EINVAL);
	ck_assert_int_eq(corecap_blkio_rw_parse(serviced, 7, 3, rw), 0);
	ck_assert_uint_eq(rw[0], 12);
	ck_assert_uint_eq(rw[1], 340);
	ck_assert_int_eq(corecap_blkio_rw_parse(serviced, 254, 0, rw), 0);
	ck_assert_uint_eq(rw[1], 2);
	ck_assert_int_eq(corecap_blkio_rw_parse("7:3 Read 1\n", 7, 3, rw), -ENOENT);
	ck_assert_int_eq(corecap_blkio_rw_parse("7:3 Read -1\n7:3 Write 1\n", 7, 3, rw), -EINVAL);
}
END_TEST

/* This process's cgroup: readable, and without a limit on a device that does not exist. */
START_TEST(our_own_cgroup)
{
	struct corecap_io_limit l;
	int ret = corecap_io_limit_read(getpid(), 4095, 1048575, &l);

	ck_assert(ret == 0 || ret == -ENOENT);
	ck_assert_ptr_null(l.file);
	ck_assert_int_eq(corecap_io_limit_read(-1, 7, 3, &l), -ENOENT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/io_limit");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, io_max_lines);
	tcase_add_test(tc, io_stat_lines);
	tcase_add_test(tc, blkio_v1_files);
	tcase_add_test(tc, our_own_cgroup);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
