/* collector/sources/cpu_quota.c: /proc/PID/cgroup's v2 line and cgroup v2 cpu.max. */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "sources/cpu_quota.h"

#include "check_run.h"

/* corecap_cgroup_line for the cpu controller, with the v1 flag and the hierarchy checked. */
static int line(const char *text, char *path, size_t size, bool *v1, char *hier)
{
	*v1 = false;
	return corecap_cgroup_line(text, "cpu", v1, hier, 32, path, size);
}

START_TEST(the_v2_line)
{
	char path[64], hier[32];
	bool v1;

	ck_assert_int_eq(line("0::/system.slice/x.service\n", path, sizeof(path), &v1, hier), 0);
	ck_assert_str_eq(path, "/system.slice/x.service");
	ck_assert(!v1);
	ck_assert_str_eq(hier, "");
	ck_assert_int_eq(line("0::/\n", path, sizeof(path), &v1, hier), 0);
	ck_assert_str_eq(path, "/");
	/* No trailing newline. */
	ck_assert_int_eq(line("0::/corecap-test-1", path, sizeof(path), &v1, hier), 0);
	ck_assert_str_eq(path, "/corecap-test-1");
}
END_TEST

START_TEST(the_cpu_controller_on_v1)
{
	/* A hybrid host (this project's CI VM): cpu on v1, an empty v2 beside it. */
	static const char hybrid[] = "9:name=systemd:/\n"
				     "4:memory:/process_api/a9059cfc\n"
				     "2:cpuacct:/\n"
				     "1:cpu:/corecap-test-AbC\n"
				     "0::/\n";
	static const char joint[] = "12:cpuset:/x\n"
				    "5:cpu,cpuacct:/system.slice/y.service\n"
				    "0::/system.slice/y.service\n";
	char path[64], hier[32];
	bool v1;

	ck_assert_int_eq(line(hybrid, path, sizeof(path), &v1, hier), 0);
	ck_assert(v1);
	ck_assert_str_eq(hier, "cpu");
	ck_assert_str_eq(path, "/corecap-test-AbC");
	ck_assert_int_eq(line(joint, path, sizeof(path), &v1, hier), 0);
	ck_assert(v1);
	ck_assert_str_eq(hier, "cpu,cpuacct");
	ck_assert_str_eq(path, "/system.slice/y.service");
	/* cpuacct and cpuset are not cpu. */
	ck_assert_int_eq(line("2:cpuacct:/a\n3:cpuset:/b\n0::/c\n", path, sizeof(path), &v1, hier),
			 0);
	ck_assert(!v1);
	ck_assert_str_eq(path, "/c");
}
END_TEST

START_TEST(paths_that_are_not_the_kernels)
{
	char path[16], hier[32];
	bool v1;

	ck_assert_int_eq(line("3:memory:/a\n", path, sizeof(path), &v1, hier), -ENOENT);
	ck_assert_int_eq(line("", path, sizeof(path), &v1, hier), -ENOENT);
	ck_assert_int_eq(line("0::a/b\n", path, sizeof(path), &v1, hier), -EINVAL);
	ck_assert_int_eq(line("0::\n", path, sizeof(path), &v1, hier), -EINVAL);
	ck_assert_int_eq(line("0::/a/../../etc\n", path, sizeof(path), &v1, hier), -EINVAL);
	ck_assert_int_eq(line("0::/a/..\n", path, sizeof(path), &v1, hier), -EINVAL);
	ck_assert_int_eq(line("0::/a//b\n", path, sizeof(path), &v1, hier), -EINVAL);
	ck_assert_int_eq(line("1:cpu:/../x\n", path, sizeof(path), &v1, hier), -EINVAL);
	/* A hierarchy name is one directory under /sys/fs/cgroup. */
	ck_assert_int_eq(line("1:cpu,../x:/a\n", path, sizeof(path), &v1, hier), -EINVAL);
	/* Longer than the buffer: refused, not cut. */
	ck_assert_int_eq(line("0::/0123456789abcdef\n", path, sizeof(path), &v1, hier), -EINVAL);
}
END_TEST

START_TEST(cpu_max_lines)
{
	uint64_t q = 7, p = 7;

	ck_assert_int_eq(corecap_cpu_max_parse("50000 100000\n", &q, &p), 0);
	ck_assert_uint_eq(q, 50000);
	ck_assert_uint_eq(p, 100000);
	ck_assert_int_eq(corecap_cpu_max_parse("max 100000\n", &q, &p), 0);
	ck_assert_uint_eq(q, 0);
	ck_assert_uint_eq(p, 100000);
	ck_assert_int_eq(corecap_cpu_max_parse("150000 50000", &q, &p), 0);
	ck_assert_uint_eq(q, 150000);
	ck_assert_uint_eq(p, 50000);
}
END_TEST

START_TEST(cpu_max_garbage)
{
	uint64_t q = 7, p = 7;

	ck_assert_int_eq(corecap_cpu_max_parse("", &q, &p), -EINVAL);
	ck_assert_int_eq(corecap_cpu_max_parse("max\n", &q, &p), -EINVAL);
	ck_assert_int_eq(corecap_cpu_max_parse("0 100000\n", &q, &p), -EINVAL);
	ck_assert_int_eq(corecap_cpu_max_parse("50000 0\n", &q, &p), -EINVAL);
	ck_assert_int_eq(corecap_cpu_max_parse("-5 100000\n", &q, &p), -EINVAL);
	ck_assert_int_eq(corecap_cpu_max_parse("50000 100000 7\n", &q, &p), -EINVAL);
	ck_assert_int_eq(corecap_cpu_max_parse("50000  100000\n", &q, &p), -EINVAL);
	ck_assert_int_eq(corecap_cpu_max_parse("99999999999999999999999 1\n", &q, &p), -EINVAL);
	/* Nothing written on failure. */
	ck_assert_uint_eq(q, 7);
	ck_assert_uint_eq(p, 7);
}
END_TEST

START_TEST(cfs_quota_pairs)
{
	uint64_t q = 7, p = 7;

	ck_assert_int_eq(corecap_cfs_quota_parse("50000\n", "100000\n", &q, &p), 0);
	ck_assert_uint_eq(q, 50000);
	ck_assert_uint_eq(p, 100000);
	ck_assert_int_eq(corecap_cfs_quota_parse("-1\n", "100000\n", &q, &p), 0);
	ck_assert_uint_eq(q, 0);
	q = p = 7;
	ck_assert_int_eq(corecap_cfs_quota_parse("-2\n", "100000\n", &q, &p), -EINVAL);
	ck_assert_int_eq(corecap_cfs_quota_parse("-1 5\n", "100000\n", &q, &p), -EINVAL);
	ck_assert_int_eq(corecap_cfs_quota_parse("50000\n", "0\n", &q, &p), -EINVAL);
	ck_assert_int_eq(corecap_cfs_quota_parse("50000\n", "\n", &q, &p), -EINVAL);
	ck_assert_int_eq(corecap_cfs_quota_parse("0\n", "100000\n", &q, &p), -EINVAL);
	ck_assert_uint_eq(q, 7);
	ck_assert_uint_eq(p, 7);
}
END_TEST

START_TEST(our_own_cgroup)
{
	struct corecap_cpu_quota q;
	int ret = corecap_cpu_quota_read(getpid(), &q);

	/* Without cgroup v2 it says so; with it, a quota is whole. */
	ck_assert(ret == 0 || ret == -ENOENT);
	if (ret == 0 && q.quota_us) {
		ck_assert_uint_gt(q.period_us, 0);
		ck_assert_int_eq(q.cgroup[0], '/');
		ck_assert(q.file);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/cpu_quota");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, the_v2_line);
	tcase_add_test(tc, the_cpu_controller_on_v1);
	tcase_add_test(tc, paths_that_are_not_the_kernels);
	tcase_add_test(tc, cpu_max_lines);
	tcase_add_test(tc, cpu_max_garbage);
	tcase_add_test(tc, cfs_quota_pairs);
	tcase_add_test(tc, our_own_cgroup);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
