/* analysis/render/out_file.c: -o FILE never truncates or removes what it did not create. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/out_file.h"

#include "check_run.h"

static char dir[64];
static char target[128];

static void setup(void)
{
	strcpy(dir, "/tmp/check_out_file_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/out", dir);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Entries in dir besides "out": the temporary files left. */
static int others(void)
{
	char cmd[160];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -vx out | wc -l", dir);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

START_TEST(an_aborted_write_leaves_the_file_as_it_was)
{
	struct out_file o;

	put(target, "precious");
	ck_assert_int_eq(corecap_out_file_open(&o, target), 0);
	fputs("half a result", o.f);
	/* Until the commit the target holds its old bytes. */
	ck_assert_str_eq(get(target), "precious");
	corecap_out_file_abort(&o);
	ck_assert_str_eq(get(target), "precious");
	ck_assert_int_eq(others(), 0);
}
END_TEST

START_TEST(a_commit_replaces_the_file_and_keeps_its_mode)
{
	struct out_file o;
	struct stat st;

	put(target, "old");
	ck_assert_int_eq(chmod(target, 0640), 0);
	ck_assert_int_eq(corecap_out_file_open(&o, target), 0);
	fputs("new", o.f);
	ck_assert_int_eq(corecap_out_file_commit(&o), 0);
	ck_assert_str_eq(get(target), "new");
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(others(), 0);
}
END_TEST

START_TEST(a_new_file_gets_the_mode_a_new_file_gets)
{
	struct out_file o;
	struct stat st;
	mode_t mask = umask(022);

	ck_assert_int_eq(corecap_out_file_open(&o, target), 0);
	fputs("x", o.f);
	ck_assert_int_eq(corecap_out_file_commit(&o), 0);
	umask(mask);
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0644);
}
END_TEST

START_TEST(a_symbolic_link_stays_and_its_target_is_replaced)
{
	char link[160];
	struct out_file o;
	struct stat st;

	put(target, "old");
	snprintf(link, sizeof(link), "%s/link", dir);
	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_int_eq(corecap_out_file_open(&o, link), 0);
	fputs("new", o.f);
	ck_assert_int_eq(corecap_out_file_commit(&o), 0);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_str_eq(get(target), "new");
}
END_TEST

START_TEST(a_fifo_is_written_in_place_and_never_removed)
{
	struct out_file o;
	struct stat st;
	int rd;
	char buf[16] = "";

	ck_assert_int_eq(mkfifo(target, 0600), 0);
	rd = open(target, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(rd, 0);
	ck_assert_int_eq(corecap_out_file_open(&o, target), 0);
	ck_assert(o.in_place);
	fputs("data", o.f);
	corecap_out_file_abort(&o); /* even an aborted write leaves the FIFO */
	ck_assert_int_eq(read(rd, buf, sizeof(buf) - 1), 4);
	close(rd);
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
}
END_TEST

START_TEST(a_directory_and_a_dangling_link_are_refused)
{
	char link[160];
	struct out_file o;

	ck_assert_int_eq(corecap_out_file_open(&o, dir), -EISDIR);
	snprintf(link, sizeof(link), "%s/dangling", dir);
	ck_assert_int_eq(symlink("/nonexistent/x", link), 0);
	ck_assert_int_eq(corecap_out_file_open(&o, link), -ENOENT);
}
END_TEST

START_TEST(dash_is_standard_output)
{
	struct out_file o;

	ck_assert_int_eq(corecap_out_file_open(&o, "-"), 0);
	ck_assert_ptr_eq(o.f, stdout);
	ck_assert_str_eq(corecap_out_file_name(&o), "standard output");
	ck_assert_int_eq(corecap_out_file_commit(&o), 0);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("analysis/out_file");
	TCase *tc = tcase_create("out_file");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, an_aborted_write_leaves_the_file_as_it_was);
	tcase_add_test(tc, a_commit_replaces_the_file_and_keeps_its_mode);
	tcase_add_test(tc, a_new_file_gets_the_mode_a_new_file_gets);
	tcase_add_test(tc, a_symbolic_link_stays_and_its_target_is_replaced);
	tcase_add_test(tc, a_fifo_is_written_in_place_and_never_removed);
	tcase_add_test(tc, a_directory_and_a_dangling_link_are_refused);
	tcase_add_test(tc, dash_is_standard_output);
	suite_add_tcase(suite, tc);
	return corecap_check_run(suite);
}
