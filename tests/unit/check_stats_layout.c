/*
 * corecap/stats_layout.h, the contract with the collector and the
 * analysis: a reader accepts a well-formed file and nothing else, finds
 * entries by the header's offsets and strides, sums process totals, and
 * never returns a copy that overlapped a structural change.
 */
#include <check.h>
#include <corecap/stats_layout.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"

static void *make_file(void)
{
	struct corecap_stats_header *h = calloc(1, CORECAP_STATS_FILE_BYTES);

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
	return h;
}

START_TEST(a_well_formed_file_is_valid)
{
	void *f = make_file();

	ck_assert(corecap_stats_valid(f, CORECAP_STATS_FILE_BYTES));
	ck_assert(!corecap_stats_valid(f, CORECAP_STATS_FILE_BYTES - 8)); /* truncated */
	ck_assert(!corecap_stats_valid(f, 16));
	free(f);
}
END_TEST

START_TEST(foreign_or_damaged_files_are_rejected)
{
	struct corecap_stats_header *h = make_file();

	h->magic ^= 1;
	ck_assert(!corecap_stats_valid(h, CORECAP_STATS_FILE_BYTES));
	h->magic ^= 1;
	h->version = CORECAP_STATS_VERSION + 1;
	ck_assert(!corecap_stats_valid(h, CORECAP_STATS_FILE_BYTES));
	h->version = 1; /* 4 I/O classes, 192-byte slots: another layout */
	ck_assert(!corecap_stats_valid(h, CORECAP_STATS_FILE_BYTES));
	h->version = CORECAP_STATS_VERSION;
	h->site_bytes = 8;
	ck_assert(!corecap_stats_valid(h, CORECAP_STATS_FILE_BYTES));
	h->site_bytes = sizeof(struct corecap_stats_site);
	h->locks_offset = CORECAP_STATS_FILE_BYTES;
	ck_assert(!corecap_stats_valid(h, CORECAP_STATS_FILE_BYTES));
	free(h);
}
END_TEST

/*
 * Version 3 added the op counter where version 2 left zeros, version 4
 * the reply counter where 3 left zeros: all three are read, 3 and 4
 * count ops, only 4 counts replies (zeros of an older version are "not
 * counted"); 1 and 5 are refused.
 */
START_TEST(versions_2_to_4_are_read_and_count_what_they_have)
{
	struct corecap_stats_header *h = make_file();
	struct corecap_stats_thread *t = (void *)((char *)h + CORECAP_STATS_THREADS_OFFSET);

	h->retired_ops = 100;
	h->ops_unslotted = 20;
	t[0].state = CORECAP_THREAD_LIVE;
	t[0].ops = 3;
	t[5].state = CORECAP_THREAD_EXITED;
	t[5].ops = 4000;
	t[6].ops = 50000; /* a free slot: never counted */
	h->retired_replies = 200;
	h->replies_unslotted = 10;
	t[0].replies = 5;
	t[5].replies = 7000;
	t[6].replies = 90000;
	ck_assert_uint_eq(h->version, 4);
	ck_assert(corecap_stats_valid(h, CORECAP_STATS_FILE_BYTES));
	ck_assert(corecap_stats_has_ops(h));
	ck_assert_uint_eq(corecap_stats_ops_total(h), 4123);
	ck_assert(corecap_stats_has_replies(h));
	ck_assert_uint_eq(corecap_stats_replies_total(h), 7215);
	/* The replies sit after the ops, in what version 3 left reserved. */
	ck_assert_uint_eq(offsetof(struct corecap_stats_thread, replies),
			  offsetof(struct corecap_stats_thread, ops) + 8);
	h->version = 3;
	ck_assert(corecap_stats_valid(h, CORECAP_STATS_FILE_BYTES));
	ck_assert_uint_eq(corecap_stats_ops_total(h), 4123);
	ck_assert(!corecap_stats_has_replies(h));
	ck_assert_uint_eq(corecap_stats_replies_total(h), 0);
	h->version = 2;
	ck_assert(corecap_stats_valid(h, CORECAP_STATS_FILE_BYTES));
	ck_assert(!corecap_stats_has_ops(h));
	ck_assert_uint_eq(corecap_stats_ops_total(h), 0);
	h->version = CORECAP_STATS_VERSION_OLDEST - 1;
	ck_assert(!corecap_stats_valid(h, CORECAP_STATS_FILE_BYTES));
	h->version = CORECAP_STATS_VERSION + 1;
	ck_assert(!corecap_stats_valid(h, CORECAP_STATS_FILE_BYTES));
	free(h);
}
END_TEST

START_TEST(offsets_that_wrap_or_are_misaligned_are_rejected)
{
	struct corecap_stats_header *h = make_file();

	/* offset + n * stride wraps around 2^64 to a small number. */
	h->max_sites = 1;
	h->sites_offset = UINT64_MAX - sizeof(struct corecap_stats_site) + 1;
	ck_assert(!corecap_stats_valid(h, CORECAP_STATS_FILE_BYTES));
	h->sites_offset = CORECAP_STATS_SITES_OFFSET + 4; /* inside the file, misaligned */
	ck_assert(!corecap_stats_valid(h, CORECAP_STATS_FILE_BYTES));
	h->sites_offset = CORECAP_STATS_SITES_OFFSET;
	h->site_bytes = sizeof(struct corecap_stats_site) + 4; /* misaligned stride */
	ck_assert(!corecap_stats_valid(h, CORECAP_STATS_FILE_BYTES));
	h->site_bytes = sizeof(struct corecap_stats_site);
	h->sites_offset = 8; /* inside the header */
	ck_assert(!corecap_stats_valid(h, CORECAP_STATS_FILE_BYTES));
	h->sites_offset = CORECAP_STATS_SITES_OFFSET;
	ck_assert(corecap_stats_valid(h, CORECAP_STATS_FILE_BYTES));
	free(h);
}
END_TEST

START_TEST(entries_are_found_by_offset_and_stride)
{
	struct corecap_stats_header *h = make_file();
	struct corecap_stats_site *s = (void *)((char *)h + CORECAP_STATS_SITES_OFFSET);
	struct corecap_stats_thread *t = (void *)((char *)h + CORECAP_STATS_THREADS_OFFSET);
	struct corecap_stats_lock *l = (void *)((char *)h + CORECAP_STATS_LOCKS_OFFSET);

	s[7].addr = 0x1234;
	t[3].tid = 42;
	l[9].addr = 0x5678;
	ck_assert_uint_eq(corecap_stats_site_at(h, 7)->addr, 0x1234);
	ck_assert_int_eq(corecap_stats_thread_at(h, 3)->tid, 42);
	ck_assert_uint_eq(corecap_stats_lock_at(h, 9)->addr, 0x5678);
	free(h);
}
END_TEST

START_TEST(totals_add_retired_and_every_used_slot)
{
	struct corecap_stats_header *h = make_file();
	struct corecap_stats_thread *t = (void *)((char *)h + CORECAP_STATS_THREADS_OFFSET);
	struct corecap_stats_counters tot;

	h->retired.acquisitions = 5;
	h->retired.io_ns[CORECAP_IO_LOG] = 7;
	t[0].state = CORECAP_THREAD_LIVE;
	t[0].c.acquisitions = 10;
	t[1].state = CORECAP_THREAD_EXITED;
	t[1].c.acquisitions = 100;
	t[1].c.io_ns[CORECAP_IO_LOG] = 3;
	t[2].state = CORECAP_THREAD_FREE;
	t[2].c.acquisitions = 1000; /* ignored */
	corecap_stats_totals(h, &tot);
	ck_assert_uint_eq(tot.acquisitions, 115);
	ck_assert_uint_eq(tot.io_ns[CORECAP_IO_LOG], 10);
	free(h);
}
END_TEST

START_TEST(histogram_buckets_are_powers_of_two)
{
	ck_assert_uint_eq(corecap_stats_hist_bucket(0), 0);
	ck_assert_uint_eq(corecap_stats_hist_bucket(1), 0);
	ck_assert_uint_eq(corecap_stats_hist_bucket(2), 1);
	ck_assert_uint_eq(corecap_stats_hist_bucket(1023), 9);
	ck_assert_uint_eq(corecap_stats_hist_bucket(1024), 10);
	ck_assert_uint_eq(corecap_stats_hist_bucket(UINT64_C(1) << 31), 31);
	ck_assert_uint_eq(corecap_stats_hist_bucket(UINT64_MAX), 31);
}
END_TEST

START_TEST(a_copy_overlapping_a_change_is_refused)
{
	struct corecap_stats_header *h = make_file();
	void *dst = malloc(CORECAP_STATS_FILE_BYTES);

	h->seq = 3; /* odd: a change in progress */
	ck_assert_int_eq(corecap_stats_copy(dst, h, CORECAP_STATS_FILE_BYTES, 3), -EAGAIN);
	h->seq = 4;
	h->retired.acquisitions = 99;
	ck_assert_int_eq(corecap_stats_copy(dst, h, CORECAP_STATS_FILE_BYTES, 3), 0);
	ck_assert_int_eq(memcmp(dst, h, CORECAP_STATS_FILE_BYTES), 0);
	ck_assert_int_eq(corecap_stats_copy(dst, "not a stats file", 16, 3), -EINVAL);
	free(dst);
	free(h);
}
END_TEST

/* A writer that keeps changing structure, as thread_table does. */
static volatile int stop;

static void *churn(void *p)
{
	struct corecap_stats_header *h = p;
	struct corecap_stats_thread *t = (void *)((char *)h + CORECAP_STATS_THREADS_OFFSET);

	while (!stop) {
		__atomic_fetch_add(&h->seq, 1, __ATOMIC_RELEASE);
		t[0].tid = 1;
		t[0].c.acquisitions = 1;
		t[0].tid = 2;
		t[0].c.acquisitions = 2;
		__atomic_fetch_add(&h->seq, 1, __ATOMIC_RELEASE);
		usleep(20); /* a real writer changes structure rarely */
	}
	return NULL;
}

START_TEST(concurrent_copies_are_never_torn)
{
	struct corecap_stats_header *h = make_file();
	size_t len = CORECAP_STATS_THREADS_OFFSET + 2 * sizeof(struct corecap_stats_thread);
	void *dst = calloc(1, len);
	int ok = 0;
	pthread_t t;

	((struct corecap_stats_thread *)((char *)h + CORECAP_STATS_THREADS_OFFSET))->tid = 2;
	((struct corecap_stats_thread *)((char *)h + CORECAP_STATS_THREADS_OFFSET))
		->c.acquisitions = 2;
	pthread_create(&t, NULL, churn, h);
	for (int i = 0; i < 100; i++) {
		if (corecap_stats_copy(dst, h, len, 1000) == 0) {
			const struct corecap_stats_thread *c =
				(void *)((char *)dst + CORECAP_STATS_THREADS_OFFSET);

			ck_assert_int_eq(c->tid, 2);
			ck_assert_uint_eq(c->c.acquisitions, 2);
			ck_assert_uint_eq(((struct corecap_stats_header *)dst)->seq % 2, 0);
			ok++;
		}
	}
	stop = 1;
	pthread_join(t, NULL);
	ck_assert_int_gt(ok, 0);
	free(dst);
	free(h);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stats_layout");
	TCase *tc = tcase_create("reader");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, a_well_formed_file_is_valid);
	tcase_add_test(tc, foreign_or_damaged_files_are_rejected);
	tcase_add_test(tc, versions_2_to_4_are_read_and_count_what_they_have);
	tcase_add_test(tc, offsets_that_wrap_or_are_misaligned_are_rejected);
	tcase_add_test(tc, entries_are_found_by_offset_and_stride);
	tcase_add_test(tc, totals_add_retired_and_every_used_slot);
	tcase_add_test(tc, histogram_buckets_are_powers_of_two);
	tcase_add_test(tc, a_copy_overlapping_a_change_is_refused);
	tcase_add_test(tc, concurrent_copies_are_never_torn);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return corecap_check_run(suite());
}
