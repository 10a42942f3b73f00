/* collector/util/run_dir.c: a run directory is created fresh, private, never through a link. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/run_dir.h"

#include "check_run.h"

static char base[256];
static char path[512];

static void setup(void)
{
	snprintf(base, sizeof(base), "/tmp/check-run-dir.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(path, sizeof(path), "%s/run", base);
}

static void teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	ck_assert_int_eq(system(cmd), 0);
}

static void touch(const char *dir, const char *name)
{
	char p[700];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

START_TEST(creates_a_private_directory)
{
	struct corecap_run_dir rd;
	struct stat st;
	mode_t old = umask(0);
	int fd;

	ck_assert_int_eq(corecap_run_dir_create(&rd, path, false), 0);
	umask(old);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	ck_assert_str_eq(rd.path, path);
	ck_assert(rd.abs_path[0] == '/');
	ck_assert_int_eq(corecap_run_dir_create_file(&rd, "maps", &fd), 0);
	close(fd);
	/* A file is never opened twice: O_EXCL. */
	ck_assert_int_eq(corecap_run_dir_create_file(&rd, "maps", &fd), -EEXIST);
	corecap_run_dir_release(&rd);
}
END_TEST

START_TEST(an_existing_directory_is_refused_without_force)
{
	struct corecap_run_dir rd;

	ck_assert_int_eq(mkdir(path, 0755), 0);
	touch(path, "manifest.json");
	ck_assert_int_eq(corecap_run_dir_create(&rd, path, false), -EEXIST);
	ck_assert_int_eq(access(path, F_OK), 0);
}
END_TEST

/* An old run as the collector leaves it: marked, with a manifest and a trace. */
static void old_run(void)
{
	struct corecap_run_dir rd;
	char sub[600];

	ck_assert_int_eq(corecap_run_dir_create(&rd, path, false), 0);
	corecap_run_dir_release(&rd);
	touch(path, "manifest.json");
	snprintf(sub, sizeof(sub), "%s/trace", path);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	touch(sub, "metadata");
}

/* How many entries base holds: the run alone once the new one is placed. */
static int entries_in_base(void)
{
	char cmd[600];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", base);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

START_TEST(force_replaces_an_old_run_once_the_new_one_is_placed)
{
	struct corecap_run_dir rd;
	char sub[600], mark[600];
	struct stat st;
	int fd;

	old_run();
	snprintf(sub, sizeof(sub), "%s/trace/metadata", path);
	ck_assert_int_eq(corecap_run_dir_create(&rd, path, true), 0);
	/* Written aside: the old run is whole until the new one is placed. */
	ck_assert_int_eq(stat(sub, &st), 0);
	ck_assert_str_ne(rd.abs_path, path);
	ck_assert_ptr_nonnull(strstr(rd.abs_path, "/run.corecap-new-"));
	ck_assert_int_eq(corecap_run_dir_create_file(&rd, "manifest.json", &fd), 0);
	close(fd);
	ck_assert_int_eq(corecap_run_dir_place(&rd), 0);
	ck_assert_int_eq(stat(sub, &st), -1);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	snprintf(mark, sizeof(mark), "%s/.corecap-run", path);
	ck_assert_int_eq(access(mark, F_OK), 0);
	ck_assert_int_eq(entries_in_base(), 1);
	ck_assert_ptr_null(strstr(rd.abs_path, ".corecap-new-"));
	corecap_run_dir_release(&rd);
}
END_TEST

START_TEST(an_abandoned_replacement_leaves_the_old_run)
{
	struct corecap_run_dir rd;
	char sub[600];
	struct stat st;

	old_run();
	ck_assert_int_eq(corecap_run_dir_create(&rd, path, true), 0);
	ck_assert_int_eq(corecap_run_dir_remove(&rd), 0);
	snprintf(sub, sizeof(sub), "%s/trace/metadata", path);
	ck_assert_int_eq(stat(sub, &st), 0);
	ck_assert_int_eq(entries_in_base(), 1);
}
END_TEST

START_TEST(force_never_removes_what_is_not_a_run)
{
	struct corecap_run_dir rd;
	char p[600];

	ck_assert_int_eq(mkdir(path, 0755), 0);
	touch(path, "precious.txt");
	ck_assert_int_eq(corecap_run_dir_create(&rd, path, true), -ENOTEMPTY);
	snprintf(p, sizeof(p), "%s/precious.txt", path);
	ck_assert_int_eq(access(p, F_OK), 0);
	/* The run format's names without corecap's mark: a project, or an old corecap's run. */
	touch(path, "manifest.json");
	touch(path, "threads.tsv");
	snprintf(p, sizeof(p), "%s/trace", path);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ck_assert_int_eq(corecap_run_dir_create(&rd, path, true), -ENOTEMPTY);
	ck_assert_int_eq(access(p, F_OK), 0);
	ck_assert_int_eq(entries_in_base(), 1);
}
END_TEST

START_TEST(force_refuses_a_run_with_a_file_of_another_user)
{
	struct corecap_run_dir rd;
	char p[600];

	if (geteuid() != 0)
		return; /* chown needs root; e2e.security_rundir covers the rest */
	old_run();
	snprintf(p, sizeof(p), "%s/trace/metadata", path);
	ck_assert_int_eq(chown(p, 65534, 65534), 0);
	ck_assert_int_eq(corecap_run_dir_create(&rd, path, true), -ENOTEMPTY);
	ck_assert_int_eq(access(p, F_OK), 0);
	ck_assert_int_eq(entries_in_base(), 1);
}
END_TEST

START_TEST(force_refuses_a_tree_deeper_than_a_run_whole)
{
	struct corecap_run_dir rd;
	char p[2048];
	size_t len;

	old_run();
	len = (size_t)snprintf(p, sizeof(p), "%s", path);
	for (int i = 0; i < 40; i++) {
		len += (size_t)snprintf(p + len, sizeof(p) - len, "/d");
		ck_assert_int_eq(mkdir(p, 0700), 0);
	}
	touch(p, "deepest");
	ck_assert_int_eq(corecap_run_dir_create(&rd, path, true), -ENOTEMPTY);
	len += (size_t)snprintf(p + len, sizeof(p) - len, "/deepest");
	ck_assert_int_eq(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/manifest.json", path);
	ck_assert_int_eq(access(p, F_OK), 0);
	ck_assert_int_eq(entries_in_base(), 1);
}
END_TEST

START_TEST(a_symlink_is_refused_even_with_force)
{
	struct corecap_run_dir rd;
	char target[600];

	snprintf(target, sizeof(target), "%s/elsewhere", base);
	ck_assert_int_eq(mkdir(target, 0755), 0);
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(corecap_run_dir_create(&rd, path, false), -ELOOP);
	ck_assert_int_eq(corecap_run_dir_create(&rd, path, true), -ELOOP);
	/* A dangling link too: mkdir must not create its target. */
	ck_assert_int_eq(unlink(path), 0);
	snprintf(target, sizeof(target), "%s/not-there", base);
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(corecap_run_dir_create(&rd, path, false), -ELOOP);
	ck_assert_int_eq(access(target, F_OK), -1);
}
END_TEST

START_TEST(a_link_inside_an_old_run_is_removed_not_followed)
{
	struct corecap_run_dir rd;
	char outside[600], link[700];

	snprintf(outside, sizeof(outside), "%s/outside", base);
	ck_assert_int_eq(mkdir(outside, 0755), 0);
	touch(outside, "keep");
	ck_assert_int_eq(corecap_run_dir_create(&rd, path, false), 0);
	corecap_run_dir_release(&rd);
	touch(path, "manifest.json");
	snprintf(link, sizeof(link), "%s/trace", path);
	ck_assert_int_eq(symlink(outside, link), 0);
	ck_assert_int_eq(corecap_run_dir_create(&rd, path, true), 0);
	ck_assert_int_eq(corecap_run_dir_place(&rd), 0);
	ck_assert_int_eq(access(link, F_OK), -1);
	snprintf(link, sizeof(link), "%s/keep", outside);
	ck_assert_int_eq(access(link, F_OK), 0);
	corecap_run_dir_release(&rd);
}
END_TEST

START_TEST(a_regular_file_is_refused)
{
	struct corecap_run_dir rd;

	touch(base, "run");
	ck_assert_int_eq(corecap_run_dir_create(&rd, path, true), -EEXIST);
}
END_TEST

START_TEST(files_in_it_never_follow_links)
{
	struct corecap_run_dir rd;
	char outside[600], link[700];
	int fd;

	ck_assert_int_eq(corecap_run_dir_create(&rd, path, false), 0);
	snprintf(outside, sizeof(outside), "%s/victim", base);
	snprintf(link, sizeof(link), "%s/bench.out", path);
	ck_assert_int_eq(symlink(outside, link), 0);
	ck_assert_int_lt(corecap_run_dir_create_file(&rd, "bench.out", &fd), 0);
	ck_assert_int_eq(access(outside, F_OK), -1);
	corecap_run_dir_release(&rd);
}
END_TEST

START_TEST(remove_deletes_an_abandoned_run)
{
	struct corecap_run_dir rd;
	int fd;

	ck_assert_int_eq(corecap_run_dir_create(&rd, path, false), 0);
	ck_assert_int_eq(corecap_run_dir_create_file(&rd, "maps", &fd), 0);
	close(fd);
	ck_assert_int_eq(corecap_run_dir_remove(&rd), 0);
	ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/run_dir");
	TCase *tc = tcase_create("create");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, creates_a_private_directory);
	tcase_add_test(tc, an_existing_directory_is_refused_without_force);
	tcase_add_test(tc, force_replaces_an_old_run_once_the_new_one_is_placed);
	tcase_add_test(tc, an_abandoned_replacement_leaves_the_old_run);
	tcase_add_test(tc, force_never_removes_what_is_not_a_run);
	tcase_add_test(tc, force_refuses_a_run_with_a_file_of_another_user);
	tcase_add_test(tc, force_refuses_a_tree_deeper_than_a_run_whole);
	tcase_add_test(tc, a_symlink_is_refused_even_with_force);
	tcase_add_test(tc, a_link_inside_an_old_run_is_removed_not_followed);
	tcase_add_test(tc, a_regular_file_is_refused);
	tcase_add_test(tc, files_in_it_never_follow_links);
	tcase_add_test(tc, remove_deletes_an_abandoned_run);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
