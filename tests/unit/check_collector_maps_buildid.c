/* collector/sources/maps_buildid.c: build-ids as `readelf -n` shows them. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sources/maps_buildid.h"

#include "check_run.h"

/* What binutils says, or "" when readelf is missing. */
static void readelf_build_id(const char *path, char *out, size_t size)
{
	char cmd[600], line[512];
	FILE *p;

	out[0] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return;
	while (fgets(line, sizeof(line), p)) {
		const char *id = strstr(line, "Build ID: ");

		if (id)
			sscanf(id + 10, "%511s", out);
	}
	pclose(p);
}

START_TEST(our_own_executable_matches_readelf)
{
	char exe[512], want[512], got[129];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int fd;

	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	readelf_build_id(exe, want, sizeof(want));
	ck_assert_msg(want[0], "readelf shows no build-id for %s (is binutils installed?)", exe);
	fd = open(exe, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(corecap_elf_build_id(fd, got, sizeof(got)), 0);
	close(fd);
	ck_assert_str_eq(got, want);
}
END_TEST

START_TEST(libc_matches_readelf)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	char want[512], got[129];
	int fd;

	readelf_build_id(libc, want, sizeof(want));
	fd = open(libc, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(corecap_elf_build_id(fd, got, sizeof(got)), 0);
	close(fd);
	ck_assert_str_eq(got, want);
}
END_TEST

START_TEST(a_text_file_has_none)
{
	char got[129];
	int fd = open(CORECAP_TEST_DATA "/bench/README.md", O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(corecap_elf_build_id(fd, got, sizeof(got)), -EINVAL);
	close(fd);
}
END_TEST

START_TEST(a_short_buffer_is_refused)
{
	char got[8];
	int fd = open("/proc/self/exe", O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(corecap_elf_build_id(fd, got, sizeof(got)), -ENOSPC);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/maps_buildid");
	TCase *tc = tcase_create("build-id");

	tcase_add_test(tc, our_own_executable_matches_readelf);
	tcase_add_test(tc, libc_matches_readelf);
	tcase_add_test(tc, a_text_file_has_none);
	tcase_add_test(tc, a_short_buffer_is_refused);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
