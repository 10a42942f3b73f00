/*
 * analysis/read/shim_stats.c: the shim's hot-lock counters, end minus
 * begin, from copies laid out as common/include/corecap/stats_layout.h says.
 */
#include <check.h>
#include <corecap/stats_layout.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/shim_stats.h"

#include "check_run.h"

static char begin_path[64], end_path[64];
static void *begin_buf, *end_buf;
static struct shim_stats st;
static char *err;

static void *new_copy(void)
{
	void *buf = calloc(1, CORECAP_STATS_FILE_BYTES);
	struct corecap_stats_header *h = buf;

	ck_assert_ptr_nonnull(buf);
	h->magic = CORECAP_STATS_MAGIC;
	h->version = CORECAP_STATS_VERSION;
	h->header_bytes = CORECAP_STATS_HEADER_BYTES;
	h->file_bytes = CORECAP_STATS_FILE_BYTES;
	h->sites_offset = CORECAP_STATS_SITES_OFFSET;
	h->threads_offset = CORECAP_STATS_THREADS_OFFSET;
	h->locks_offset = CORECAP_STATS_LOCKS_OFFSET;
	h->site_bytes = sizeof(struct corecap_stats_site);
	h->thread_bytes = sizeof(struct corecap_stats_thread);
	h->lock_bytes = sizeof(struct corecap_stats_lock);
	h->max_sites = CORECAP_STATS_MAX_SITES;
	h->max_threads = CORECAP_STATS_MAX_THREADS;
	h->max_locks = CORECAP_STATS_MAX_LOCKS;
	h->hist_buckets = CORECAP_STATS_HIST_BUCKETS;
	h->stack_depth = CORECAP_STATS_STACK_DEPTH;
	h->name_len = CORECAP_STATS_NAME_LEN;
	h->io_classes = CORECAP_IO_CLASSES;
	h->pid = 4242;
	return buf;
}

static struct corecap_stats_lock *lock_at(void *buf, uint32_t i)
{
	return (struct corecap_stats_lock *)corecap_stats_lock_at(buf, i);
}

static void save(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
}

static void setup(void)
{
	int fd;

	strcpy(begin_path, "/tmp/check_stats_b_XXXXXX");
	strcpy(end_path, "/tmp/check_stats_e_XXXXXX");
	fd = mkstemp(begin_path);
	close(fd);
	fd = mkstemp(end_path);
	close(fd);
	begin_buf = new_copy();
	end_buf = new_copy();
	corecap_shim_stats_init(&st);
	err = NULL;
}

static void teardown(void)
{
	corecap_shim_stats_release(&st);
	free(begin_buf);
	free(end_buf);
	free(err);
	unlink(begin_path);
	unlink(end_path);
}

START_TEST(hot_locks_and_sites_give_their_window_deltas)
{
	struct corecap_stats_lock *b = lock_at(begin_buf, 3), *e = lock_at(end_buf, 3), *late;

	b->addr = e->addr = 0x5000;
	b->kind = e->kind = CORECAP_KIND_MUTEX;
	b->acquisitions = 100;
	e->acquisitions = 1100;
	b->hold_ns = 1000;
	e->hold_ns = 901000;
	b->contentions = 5;
	e->contentions = 55;
	b->wait_ns = 10;
	e->wait_ns = 2010;
	late = lock_at(end_buf, 9); /* became hot inside the window */
	late->addr = 0x6000;
	late->kind = CORECAP_KIND_SPIN;
	late->acquisitions = 7;
	late->hold_ns = 70;
	((struct corecap_stats_header *)end_buf)->locks_dropped = 2;
	{
		struct corecap_stats_site *sb = (struct corecap_stats_site *)corecap_stats_site_at(
						  begin_buf, 0),
					  *se = (struct corecap_stats_site *)corecap_stats_site_at(
						  end_buf, 5);

		sb->addr = se->addr = 0x401234;
		sb->acquisitions = 10;
		se->acquisitions = 510;
		se->contentions = 4;
	}
	save(begin_path, begin_buf, CORECAP_STATS_FILE_BYTES);
	save(end_path, end_buf, CORECAP_STATS_FILE_BYTES);

	ck_assert_int_eq(corecap_shim_stats_load(&st, begin_path, end_path, &err), 0);
	ck_assert_uint_eq(st.n_locks, 2);
	ck_assert_uint_eq(st.locks[0].addr, 0x5000);
	ck_assert_uint_eq(st.locks[0].acquisitions, 1000);
	ck_assert_uint_eq(st.locks[0].hold_ns, 900000);
	ck_assert_uint_eq(st.locks[0].contentions, 50);
	ck_assert_uint_eq(st.locks[0].wait_ns, 2000);
	ck_assert_uint_eq(st.locks[1].addr, 0x6000);
	ck_assert_uint_eq(st.locks[1].kind, CORECAP_KIND_SPIN);
	ck_assert_uint_eq(st.locks[1].acquisitions, 7);
	ck_assert_uint_eq(st.locks_dropped, 2);
	ck_assert_int_eq(st.pid, 4242);
	ck_assert_uint_eq(st.n_sites, 1);
	ck_assert_uint_eq(st.sites[0].addr, 0x401234);
	ck_assert_uint_eq(st.sites[0].acquisitions, 500);
	ck_assert_uint_eq(st.sites[0].contentions, 4);
}
END_TEST

static struct corecap_stats_thread *thread_at(void *buf, uint32_t i)
{
	return (struct corecap_stats_thread *)corecap_stats_thread_at(buf, i);
}

/* Totals over threads (a retired one included) and classes, end - begin. */
START_TEST(io_per_class_gives_its_window_deltas)
{
	struct corecap_stats_header *he = end_buf, *hb = begin_buf;
	struct corecap_stats_thread *kb = thread_at(begin_buf, 0), *ke = thread_at(end_buf, 0),
				    *aio = thread_at(end_buf, 1);

	kb->state = ke->state = aio->state = CORECAP_THREAD_LIVE;
	kb->c.io_calls[CORECAP_IO_JOURNAL] = 10;
	ke->c.io_calls[CORECAP_IO_JOURNAL] = 110;
	kb->c.io_ns[CORECAP_IO_JOURNAL] = 1000;
	ke->c.io_ns[CORECAP_IO_JOURNAL] = 51000;
	ke->c.sync_calls[CORECAP_IO_JOURNAL] = 40;
	ke->c.sync_ns[CORECAP_IO_JOURNAL] = 30000;
	aio->c.aio_done[CORECAP_IO_DATA] = 20;
	aio->c.aio_ns[CORECAP_IO_DATA] = 200000;
	aio->c.aio_bytes[CORECAP_IO_DATA] = 20 * 4096;
	he->retired.aio_done[CORECAP_IO_DATA] = 5; /* a thread that exited meanwhile */
	hb->aio_unmatched = 1;
	he->aio_unmatched = 3;
	save(begin_path, begin_buf, CORECAP_STATS_FILE_BYTES);
	save(end_path, end_buf, CORECAP_STATS_FILE_BYTES);

	ck_assert_int_eq(corecap_shim_stats_load(&st, begin_path, end_path, &err), 0);
	ck_assert_uint_eq(st.io[CORECAP_IO_JOURNAL].calls, 100);
	ck_assert_uint_eq(st.io[CORECAP_IO_JOURNAL].ns, 50000);
	ck_assert_uint_eq(st.io[CORECAP_IO_JOURNAL].sync_calls, 40);
	ck_assert_uint_eq(st.io[CORECAP_IO_JOURNAL].sync_ns, 30000);
	ck_assert_uint_eq(st.io[CORECAP_IO_DATA].aio_done, 25);
	ck_assert_uint_eq(st.io[CORECAP_IO_DATA].aio_ns, 200000);
	ck_assert_uint_eq(st.io[CORECAP_IO_DATA].aio_bytes, 20 * 4096);
	ck_assert_uint_eq(st.io[CORECAP_IO_DATA].calls, 0);
	ck_assert_uint_eq(st.aio_untimed, 2);
}
END_TEST

START_TEST(a_copy_that_is_not_a_stats_file_is_refused_naming_it)
{
	save(begin_path, begin_buf, CORECAP_STATS_FILE_BYTES);
	save(end_path, "garbage", 7);
	ck_assert_int_eq(corecap_shim_stats_load(&st, begin_path, end_path, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, end_path));
}
END_TEST

START_TEST(copies_of_two_processes_are_refused)
{
	((struct corecap_stats_header *)end_buf)->pid = 1;
	save(begin_path, begin_buf, CORECAP_STATS_FILE_BYTES);
	save(end_path, end_buf, CORECAP_STATS_FILE_BYTES);
	ck_assert_int_eq(corecap_shim_stats_load(&st, begin_path, end_path, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "different processes"));
}
END_TEST

START_TEST(a_missing_copy_is_enoent)
{
	save(begin_path, begin_buf, CORECAP_STATS_FILE_BYTES);
	unlink(end_path);
	ck_assert_int_eq(corecap_shim_stats_load(&st, begin_path, end_path, &err), -ENOENT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_shim_stats");
	TCase *tc = tcase_create("stats");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, hot_locks_and_sites_give_their_window_deltas);
	tcase_add_test(tc, io_per_class_gives_its_window_deltas);
	tcase_add_test(tc, a_copy_that_is_not_a_stats_file_is_refused_naming_it);
	tcase_add_test(tc, copies_of_two_processes_are_refused);
	tcase_add_test(tc, a_missing_copy_is_enoent);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
