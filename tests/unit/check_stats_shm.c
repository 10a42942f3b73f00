/*
 * stats_shm and the tables in it (site_table, lock_table, thread_table):
 * the file is created private (0600) with a valid header, a missing
 * directory falls back to private memory with one warning, entries are
 * found again once inserted, full tables say so in the loss counters,
 * reused thread slots keep process totals whole, every structural change
 * leaves seq even, and files of dead processes are swept.
 */
#include <check.h>
#include <corecap/stats_layout.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lock_table.h"
#include "settings.h"
#include "site_table.h"
#include "stats_shm.h"
#include "thread_table.h"

struct settings g_settings;
static char dir[] = "/tmp/corecap-shm-XXXXXX";
static struct settings st;
static struct stats_shm s;

static void setup(void)
{
	static bool made;

	if (!made)
		ck_assert_ptr_nonnull(mkdtemp(dir));
	made = true;
	settings_init(&st);
	snprintf(st.stats_dir, sizeof(st.stats_dir), "%s", dir);
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(stats_shm_create(&s, &st, false), 0);
	lock_table_reset_filter();
}

static void teardown(void)
{
	stats_shm_unlink(&s);
	stats_shm_forget_parent(&s);
}

START_TEST(the_file_is_private_and_valid)
{
	char path[512];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/corecap.%d", dir, (int)getpid());
	ck_assert_str_eq(s.path, path);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0777, 0600);
	ck_assert_uint_eq((uint64_t)sb.st_size, CORECAP_STATS_FILE_BYTES);
	ck_assert(corecap_stats_valid(s.hdr, s.bytes));
	ck_assert_int_eq(s.hdr->pid, getpid());
	ck_assert_uint_eq(s.hdr->flags & CORECAP_STATS_F_SHARED, CORECAP_STATS_F_SHARED);
	ck_assert_uint_eq(s.hdr->clock_id, CLOCK_MONOTONIC);
	stats_shm_unlink(&s);
	ck_assert_int_ne(access(path, F_OK), 0);
	ck_assert_uint_eq(s.hdr->flags & CORECAP_STATS_F_EXITING, CORECAP_STATS_F_EXITING);
}
END_TEST

START_TEST(no_directory_means_private_counters)
{
	struct stats_shm p;

	memset(&p, 0, sizeof(p));
	snprintf(st.stats_dir, sizeof(st.stats_dir), "%s/missing", dir);
	ck_assert_int_eq(stats_shm_create(&p, &st, false), -ENOENT);
	ck_assert(stats_shm_ready(&p));
	ck_assert(!p.shared);
	ck_assert(corecap_stats_valid(p.hdr, p.bytes));
	ck_assert_uint_eq(p.hdr->flags & CORECAP_STATS_F_SHARED, 0);
	stats_shm_forget_parent(&p);
}
END_TEST

START_TEST(stats_off_means_no_file)
{
	struct stats_shm p;

	memset(&p, 0, sizeof(p));
	st.stats_enabled = false;
	ck_assert_int_eq(stats_shm_create(&p, &st, false), -ENOENT);
	ck_assert(stats_shm_ready(&p));
	ck_assert(!p.shared);
	stats_shm_forget_parent(&p);
}
END_TEST

START_TEST(sites_are_keyed_by_address_and_kind)
{
	struct corecap_stats_site *a = site_table_get(&s, 0x1000, CORECAP_KIND_MUTEX);
	struct corecap_stats_site *b = site_table_get(&s, 0x1000, CORECAP_KIND_COND);

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_ne(a, b);
	ck_assert_ptr_eq(site_table_get(&s, 0x1000, CORECAP_KIND_MUTEX), a);
	ck_assert_ptr_eq(site_table_find(&s, 0x1000, CORECAP_KIND_MUTEX), a);
	ck_assert_ptr_null(site_table_find(&s, 0x2000, CORECAP_KIND_MUTEX));
	site_table_add_wait(a, 1500, false);
	site_table_add_wait(a, 500, true);
	ck_assert_uint_eq(a->contentions, 2);
	ck_assert_uint_eq(a->wait_ns, 2000);
	ck_assert_uint_eq(a->max_wait_ns, 1500);
	ck_assert_uint_eq(a->timeouts, 1);
	ck_assert_uint_eq(a->wait_hist[10], 1);
	ck_assert_uint_eq(a->wait_hist[8], 1);
	site_table_add_hold(a, 700);
	ck_assert_uint_eq(a->holds, 1);
	ck_assert_uint_eq(a->hold_ns, 700);
}
END_TEST

START_TEST(a_stack_is_stored_once)
{
	struct corecap_stats_site *e = site_table_get(&s, 0x3000, CORECAP_KIND_MUTEX);
	uint64_t frames[3] = {0x3000, 0x4000, 0x5000};

	ck_assert(site_table_claim_stack(e));
	ck_assert(!site_table_claim_stack(e));
	ck_assert_uint_gt(e->stack_depth, CORECAP_STATS_STACK_DEPTH); /* readers skip it */
	site_table_publish_stack(e, frames, 3);
	ck_assert_uint_eq(e->stack_depth, 3);
	ck_assert_uint_eq(e->stack[2], 0x5000);
	ck_assert(!site_table_claim_stack(e));
}
END_TEST

START_TEST(a_full_site_table_counts_its_losses)
{
	uint32_t got = 0;

	for (uint64_t a = 1; a <= CORECAP_STATS_MAX_SITES + 100; a++)
		got += site_table_get(&s, a * 64, CORECAP_KIND_MUTEX) != NULL;
	ck_assert_uint_le(got, CORECAP_STATS_MAX_SITES);
	ck_assert_uint_ge(got, CORECAP_STATS_MAX_SITES / 2); /* probing reaches most entries */
	ck_assert_uint_eq(s.hdr->sites_dropped, CORECAP_STATS_MAX_SITES + 100 - got);
}
END_TEST

START_TEST(hot_locks_pass_the_filter)
{
	int lock1, lock2;
	struct corecap_stats_lock *e;

	ck_assert(!lock_table_maybe_hot(&lock1));
	ck_assert_ptr_null(lock_table_find(&s, &lock1));
	e = lock_table_mark_hot(&s, &lock1, CORECAP_KIND_RWLOCK_RD, 0x77, 1234);
	ck_assert_ptr_nonnull(e);
	ck_assert(lock_table_maybe_hot(&lock1));
	ck_assert_ptr_eq(lock_table_find(&s, &lock1), e);
	ck_assert_ptr_eq(lock_table_mark_hot(&s, &lock1, CORECAP_KIND_RWLOCK_WR, 0x88, 5678), e);
	ck_assert_uint_eq(e->kind, CORECAP_KIND_RWLOCK_WR); /* one entry per rwlock */
	ck_assert_uint_eq(e->first_site, 0x77);
	ck_assert_uint_eq(e->hot_since_ns, 1234);
	ck_assert_ptr_null(lock_table_find(&s, &lock2));
}
END_TEST

START_TEST(thread_slots_are_claimed_named_and_released)
{
	struct corecap_stats_thread *t;
	uint64_t seq0 = s.hdr->seq;

	t = thread_table_claim(&s, 4242, 99, "msgr-worker-0", 10);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->tid, 4242);
	ck_assert_str_eq(t->name, "msgr-worker-0");
	ck_assert_uint_eq(t->state, CORECAP_THREAD_LIVE);
	ck_assert_ptr_eq(thread_table_find(&s, 99), t);
	thread_table_set_name(&s, t, "a-name-that-is-far-too-long");
	ck_assert_str_eq(t->name, "a-name-that-is-");
	thread_table_release(&s, t, 20);
	ck_assert_uint_eq(t->state, CORECAP_THREAD_EXITED);
	ck_assert_uint_eq(t->exit_ns, 20);
	ck_assert_ptr_null(thread_table_find(&s, 99));
	ck_assert_uint_eq(s.hdr->seq % 2, 0);
	ck_assert_uint_gt(s.hdr->seq, seq0);
}
END_TEST

START_TEST(reused_slots_keep_the_totals_whole)
{
	struct corecap_stats_counters tot;
	struct corecap_stats_thread *t;

	for (uint32_t i = 0; i < CORECAP_STATS_MAX_THREADS; i++) {
		t = thread_table_claim(&s, (int)i + 1, i + 1, "w", 0);
		ck_assert_ptr_nonnull(t);
		t->c.acquisitions = 10;
		if (i % 2)
			thread_table_release(&s, t, 1);
	}
	/* Full: a new thread takes an exited slot, whose counts retire. */
	t = thread_table_claim(&s, 5000, 5000, "late", 2);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->tid, 5000);
	ck_assert_uint_eq(t->c.acquisitions, 0);
	ck_assert_uint_eq(s.hdr->retired_threads, 1);
	ck_assert_uint_eq(s.hdr->retired.acquisitions, 10);
	corecap_stats_totals(s.hdr, &tot);
	ck_assert_uint_eq(tot.acquisitions, 10 * CORECAP_STATS_MAX_THREADS);
	/* Full of live threads: the next one goes without, and is counted. */
	for (uint32_t i = 0; i < CORECAP_STATS_MAX_THREADS / 2 - 1; i++)
		ck_assert_ptr_nonnull(thread_table_claim(&s, 6000 + (int)i, 6000 + i, "x", 3));
	ck_assert_ptr_null(thread_table_claim(&s, 9999, 9999, "none", 4));
	ck_assert_uint_eq(s.hdr->threads_dropped, 1);
}
END_TEST

START_TEST(files_of_dead_processes_are_swept)
{
	char path[512];
	pid_t pid = fork();
	int fd;

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	snprintf(path, sizeof(path), "%s/corecap.%d", dir, (int)pid);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_ge(stats_shm_remove_stale(dir), 1);
	ck_assert_int_ne(access(path, F_OK), 0);
	/* Ours is alive and stays. */
	ck_assert_int_eq(access(s.path, F_OK), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *su = suite_create("stats_shm");
	TCase *tc = tcase_create("region");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, the_file_is_private_and_valid);
	tcase_add_test(tc, no_directory_means_private_counters);
	tcase_add_test(tc, stats_off_means_no_file);
	tcase_add_test(tc, sites_are_keyed_by_address_and_kind);
	tcase_add_test(tc, a_stack_is_stored_once);
	tcase_add_test(tc, a_full_site_table_counts_its_losses);
	tcase_add_test(tc, hot_locks_pass_the_filter);
	tcase_add_test(tc, thread_slots_are_claimed_named_and_released);
	tcase_add_test(tc, reused_slots_keep_the_totals_whole);
	tcase_add_test(tc, files_of_dead_processes_are_swept);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;
	char cmd[600];

	/* No fork per test: the fixture's file belongs to this process. */
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return EXIT_FAILURE;
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
