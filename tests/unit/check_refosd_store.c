/* refosd store: what is written reads back, in memory and in a directory, from many threads. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"

#include "check_run.h"

static char tmpdir[] = "/tmp/check_refosd_store.XXXXXX";

static void make_dir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/check_refosd_store.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static void check_round_trip(struct store *st)
{
	void *data;
	size_t len;

	ck_assert_int_eq(store_write(st, "obj", "hello", 5), 0);
	ck_assert_int_eq(store_read(st, "obj", &data, &len), 0);
	ck_assert_uint_eq(len, 5);
	ck_assert_mem_eq(data, "hello", 5);
	free(data);
	/* Overwrite replaces, also with a shorter object. */
	ck_assert_int_eq(store_write(st, "obj", "hi", 2), 0);
	ck_assert_int_eq(store_read(st, "obj", &data, &len), 0);
	ck_assert_uint_eq(len, 2);
	ck_assert_mem_eq(data, "hi", 2);
	free(data);
	/* Empty objects exist. */
	ck_assert_int_eq(store_write(st, "empty", "", 0), 0);
	ck_assert_int_eq(store_read(st, "empty", &data, &len), 0);
	ck_assert_uint_eq(len, 0);
	ck_assert_ptr_null(data);
	ck_assert_int_eq(store_read(st, "missing", &data, &len), -ENOENT);
}

START_TEST(mem_reads_back_what_was_written)
{
	struct store st;

	ck_assert_int_eq(store_init_mem(&st), 0);
	check_round_trip(&st);
	ck_assert_uint_eq(store_count(&st), 2);
	store_release(&st);
}
END_TEST

START_TEST(mem_keeps_every_object_as_tables_grow)
{
	struct store st;
	char name[32];
	void *data;
	size_t len;

	ck_assert_int_eq(store_init_mem(&st), 0);
	for (int i = 0; i < 50000; i++) {
		snprintf(name, sizeof(name), "o%d", i);
		ck_assert_int_eq(store_write(&st, name, &i, sizeof(i)), 0);
	}
	ck_assert_uint_eq(store_count(&st), 50000);
	for (int i = 0; i < 50000; i += 7) {
		snprintf(name, sizeof(name), "o%d", i);
		ck_assert_int_eq(store_read(&st, name, &data, &len), 0);
		ck_assert_uint_eq(len, sizeof(i));
		ck_assert_int_eq(*(int *)data, i);
		free(data);
	}
	store_release(&st);
}
END_TEST

struct writer {
	struct store *st;
	int id;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	char name[32];

	for (int i = 0; i < 5000; i++) {
		int v = w->id * 100000 + i;

		snprintf(name, sizeof(name), "t%d_%d", w->id, i);
		if (store_write(w->st, name, &v, sizeof(v)) != 0)
			return (void *)1;
	}
	return NULL;
}

START_TEST(mem_is_safe_with_concurrent_writers)
{
	struct store st;
	struct writer w[4];
	pthread_t th[4];
	void *ret;

	ck_assert_int_eq(store_init_mem(&st), 0);
	for (int i = 0; i < 4; i++) {
		w[i] = (struct writer){.st = &st, .id = i};
		ck_assert_int_eq(pthread_create(&th[i], NULL, writer_main, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(pthread_join(th[i], &ret), 0);
		ck_assert_ptr_null(ret);
	}
	ck_assert_uint_eq(store_count(&st), 20000);
	for (int t = 0; t < 4; t++) {
		char name[32];
		void *data;
		size_t len;

		snprintf(name, sizeof(name), "t%d_%d", t, 4999);
		ck_assert_int_eq(store_read(&st, name, &data, &len), 0);
		ck_assert_int_eq(*(int *)data, t * 100000 + 4999);
		free(data);
	}
	store_release(&st);
}
END_TEST

START_TEST(dir_reads_back_what_was_written)
{
	struct store st;
	char path[128];
	struct stat sb;

	make_dir();
	ck_assert_int_eq(store_init_dir(&st, tmpdir, false), 0);
	check_round_trip(&st);
	/* One file per object, named after it. */
	snprintf(path, sizeof(path), "%s/obj", tmpdir);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_size, 2);
	store_release(&st);
	remove_dir();
}
END_TEST

START_TEST(dir_with_fsync_reads_back_what_was_written)
{
	struct store st;

	make_dir();
	ck_assert_int_eq(store_init_dir(&st, tmpdir, true), 0);
	ck_assert(st.fsync);
	check_round_trip(&st);
	store_release(&st);
	remove_dir();
}
END_TEST

START_TEST(dir_refuses_names_that_are_not_file_names)
{
	struct store st;
	char longname[300];
	void *data;
	size_t len;

	make_dir();
	ck_assert_int_eq(store_init_dir(&st, tmpdir, false), 0);
	ck_assert_int_eq(store_write(&st, "a/b", "x", 1), -EINVAL);
	ck_assert_int_eq(store_write(&st, "..", "x", 1), -EINVAL);
	ck_assert_int_eq(store_write(&st, ".", "x", 1), -EINVAL);
	ck_assert_int_eq(store_read(&st, "../etc", &data, &len), -EINVAL);
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ck_assert_int_eq(store_write(&st, longname, "x", 1), -ENAMETOOLONG);
	store_release(&st);
	remove_dir();
}
END_TEST

START_TEST(dir_store_on_a_missing_directory_fails)
{
	struct store st;

	ck_assert_int_eq(store_init_dir(&st, "/nonexistent/refosd-store", false), -ENOENT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("refosd_store");
	TCase *mem = tcase_create("mem"), *dir = tcase_create("dir");

	tcase_add_test(mem, mem_reads_back_what_was_written);
	tcase_add_test(mem, mem_keeps_every_object_as_tables_grow);
	tcase_add_test(mem, mem_is_safe_with_concurrent_writers);
	tcase_add_test(dir, dir_reads_back_what_was_written);
	tcase_add_test(dir, dir_with_fsync_reads_back_what_was_written);
	tcase_add_test(dir, dir_refuses_names_that_are_not_file_names);
	tcase_add_test(dir, dir_store_on_a_missing_directory_fails);
	suite_add_tcase(s, mem);
	suite_add_tcase(s, dir);
	return corecap_check_run(s);
}
