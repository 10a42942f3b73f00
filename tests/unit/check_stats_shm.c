/*
 * stats_shm and the tables in it (site_table, lock_table, thread_table):
 * the segment is a memfd, private (0600), sealed so that nobody can
 * truncate it, with a valid header; readers (corecap/stats_path.h) find
 * it through the process, also once the process closed its descriptor
 * (as root), and refuse one that is unsealed or owned by another user; a
 * fork child gets a segment of its own and keeps none of its parent's;
 * entries are found again once inserted, full tables say so in the loss
 * counters, reused thread slots keep process totals whole, and every
 * structural change leaves seq even.
 */
#include <check.h>
#include <corecap/stats_layout.h>
#include <corecap/stats_path.h>
#include <dirent.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
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
static struct settings st;
static struct stats_shm s;

static void setup(void)
{
	settings_init(&st);
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(stats_shm_create(&s, &st, false), 0);
	lock_table_reset_filter();
}

static void teardown(void)
{
	stats_shm_mark_exiting(&s);
	stats_shm_forget_parent(&s);
}

/* How many of this process's descriptors name a segment, and of which pid (last). */
static int segments_here(int *pid_named)
{
	char link[300], got[128];
	struct dirent *d;
	int n = 0;
	DIR *dp = opendir("/proc/self/fd");

	ck_assert_ptr_nonnull(dp);
	while ((d = readdir(dp))) {
		ssize_t len;
		int p;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", d->d_name);
		len = readlink(link, got, sizeof(got) - 1);
		if (len <= 0)
			continue;
		got[len] = '\0';
		if (sscanf(got, "/memfd:corecap.%d (deleted)", &p) == 1) {
			*pid_named = p;
			n++;
		}
	}
	closedir(dp);
	return n;
}

START_TEST(the_segment_is_a_sealed_private_memfd)
{
	char link[64], want[64], got[128];
	struct stat sb;
	ssize_t n;
	int seals, fd;

	ck_assert(s.shared);
	ck_assert_int_ge(s.fd, 3);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", s.fd);
	snprintf(want, sizeof(want), CORECAP_STATS_LINK_FMT, (int)getpid());
	n = readlink(link, got, sizeof(got) - 1);
	ck_assert_int_gt(n, 0);
	got[n] = '\0';
	ck_assert_str_eq(got, want);
	ck_assert_int_eq(fstat(s.fd, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0777, 0600);
	ck_assert_uint_eq((uint64_t)sb.st_size, CORECAP_STATS_FILE_BYTES);
	ck_assert_int_ne(fcntl(s.fd, F_GETFD) & FD_CLOEXEC, 0);
	seals = fcntl(s.fd, F_GET_SEALS);
	ck_assert_int_eq(seals & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
			 F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	/* Nobody truncates it: not through our descriptor, not through /proc. */
	ck_assert_int_ne(ftruncate(s.fd, 0), 0);
	ck_assert_int_eq(errno, EPERM);
	fd = open(link, O_RDWR);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ne(ftruncate(fd, 4096), 0);
	ck_assert_int_eq(errno, EPERM);
	ck_assert_int_ne(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), 0);
	close(fd);
	ck_assert_int_eq(fstat(s.fd, &sb), 0);
	ck_assert_uint_eq((uint64_t)sb.st_size, CORECAP_STATS_FILE_BYTES);
	ck_assert(corecap_stats_valid(s.hdr, s.bytes));
	ck_assert_int_eq(s.hdr->pid, getpid());
	ck_assert_uint_eq(s.hdr->flags & CORECAP_STATS_F_SHARED, CORECAP_STATS_F_SHARED);
	ck_assert_uint_eq(s.hdr->clock_id, CLOCK_MONOTONIC);
	stats_shm_mark_exiting(&s);
	ck_assert_uint_eq(s.hdr->flags & CORECAP_STATS_F_EXITING, CORECAP_STATS_F_EXITING);
}
END_TEST

START_TEST(a_reader_finds_it_through_the_process)
{
	char what[CORECAP_STATS_PATH_MAX], why[256], want[64];
	size_t bytes = 0;
	void *m;
	int fd;

	fd = corecap_stats_open(getpid(), O_RDONLY, &bytes, what, sizeof(what), why, sizeof(why));
	ck_assert_msg(fd >= 0, "%s: %s", what, why);
	snprintf(want, sizeof(want), "/proc/%d/fd/%d", (int)getpid(), s.fd);
	ck_assert_str_eq(what, want);
	ck_assert_uint_eq(bytes, CORECAP_STATS_FILE_BYTES);
	m = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	ck_assert_ptr_ne(m, MAP_FAILED);
	ck_assert(corecap_stats_valid(m, bytes));
	/* The same memory: what the shim counts, a reader sees. */
	s.hdr->stacks_sampled = 12345;
	ck_assert_uint_eq(((const struct corecap_stats_header *)m)->stacks_sampled, 12345);
	munmap(m, bytes);
	/* A process without the shim's segment: ENOENT, not an error of another kind. */
	ck_assert_int_eq(corecap_stats_open(getppid(), O_RDONLY, &bytes, what, sizeof(what), why,
					    sizeof(why)),
			 -ENOENT);
}
END_TEST

START_TEST(a_closed_descriptor_leaves_the_mapping_to_root)
{
	char what[CORECAP_STATS_PATH_MAX], why[256];
	size_t bytes = 0;
	void *m;
	int fd;

	/* A daemon that closes every descriptor as it starts. */
	close(s.fd);
	s.fd = -1;
	fd = corecap_stats_open(getpid(), O_RDONLY, &bytes, what, sizeof(what), why, sizeof(why));
	if (geteuid() == 0) {
		ck_assert_msg(fd >= 0, "%s: %s", what, why);
		ck_assert_ptr_nonnull(strstr(what, "/map_files/"));
		ck_assert_uint_eq(bytes, CORECAP_STATS_FILE_BYTES);
		close(fd);
		/* verify's control page: read-write the same way. */
		fd = corecap_stats_open(getpid(), O_RDWR, &bytes, what, sizeof(what), why,
					sizeof(why));
		ck_assert_msg(fd >= 0, "%s: %s", what, why);
		m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		ck_assert_ptr_ne(m, MAP_FAILED);
		corecap_stats_control_at(m)->site = 0x4242;
		ck_assert_uint_eq(corecap_stats_control_at(s.hdr)->site, 0x4242);
		corecap_stats_control_at(m)->site = 0;
		munmap(m, bytes);
	} else {
		ck_assert_int_eq(fd, -EACCES);
		ck_assert_ptr_nonnull(strstr(why, "closed the shim's descriptor"));
	}
	/* The shim's own mapping is untouched. */
	ck_assert(corecap_stats_valid(s.hdr, s.bytes));
}
END_TEST

/* A child that holds a memfd named like pid's segment, made by make(), until killed. */
static pid_t hold_fake(int (*make)(void))
{
	int ready[2];
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(ready), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* The parent's segment would be found first: not ours to keep. */
		stats_shm_forget_parent(&s);
		c = make() < 0 ? 'e' : 'k';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	ck_assert_int_eq(c, 'k');
	return pid;
}

static int memfd_named(void)
{
	char name[32];
	int fd;

	snprintf(name, sizeof(name), CORECAP_STATS_MEMFD_FMT, (int)getpid());
	fd = (int)syscall(SYS_memfd_create, name, MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, CORECAP_STATS_FILE_BYTES) < 0)
		return -1;
	return fd;
}

static int make_unsealed(void)
{
	return memfd_named();
}

/* Sealed, but created with another user's fsuid: owned by uid 12345. */
static int make_foreign(void)
{
	int fd;

	setfsuid(12345);
	fd = memfd_named();
	setfsuid(0);
	if (fd < 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
		return -1;
	return fd;
}

static void expect_refused(pid_t pid, const char *cause)
{
	char what[CORECAP_STATS_PATH_MAX], why[256];
	size_t bytes = 0;
	int fd = corecap_stats_open(pid, O_RDONLY, &bytes, what, sizeof(what), why, sizeof(why));

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ck_assert_int_eq(fd, -EPERM);
	ck_assert_msg(strstr(why, cause), "'%s' does not say '%s'", why, cause);
}

START_TEST(an_unsealed_segment_is_refused)
{
	expect_refused(hold_fake(make_unsealed), "not sealed against shrinking");
}
END_TEST

START_TEST(a_segment_of_another_user_is_refused)
{
	if (geteuid() != 0) {
		fprintf(stderr, "skipped: making a memfd of another user needs root\n");
		return;
	}
	expect_refused(hold_fake(make_foreign), "owned by uid 12345");
}
END_TEST

START_TEST(a_fork_child_gets_a_segment_of_its_own)
{
	int status, named = 0;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		stats_shm_forget_parent(&s);
		if (stats_shm_create(&s, &st, true) != 0)
			_exit(2);
		/* One segment among its descriptors, its own, and not the parent's. */
		if (segments_here(&named) != 1 || named != getpid())
			_exit(3);
		if (s.hdr->pid != getpid() || !(s.hdr->flags & CORECAP_STATS_F_CHILD))
			_exit(4);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(segments_here(&named), 1);
	ck_assert_int_eq(named, getpid());
}
END_TEST

START_TEST(a_fork_child_keeps_a_descriptor_the_daemon_put_in_its_place)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = s.fd, other = open("/dev/null", O_RDONLY);

		/* The daemon replaced the shim's descriptor with a file of its own. */
		if (other < 0 || dup2(other, fd) != fd)
			_exit(2);
		close(other);
		stats_shm_forget_parent(&s);
		_exit(fcntl(fd, F_GETFD) < 0 ? 3 : 0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

START_TEST(stats_dir_is_ignored)
{
	struct stats_shm p;

	memset(&p, 0, sizeof(p));
	snprintf(st.stats_dir, sizeof(st.stats_dir), "/nonexistent/corecap");
	stats_shm_forget_parent(&s); /* one segment per process */
	ck_assert_int_eq(stats_shm_create(&p, &st, false), 0);
	ck_assert(p.shared);
	ck_assert(corecap_stats_valid(p.hdr, p.bytes));
	stats_shm_forget_parent(&p);
}
END_TEST

START_TEST(stats_off_means_no_segment)
{
	struct stats_shm p;
	int named;

	memset(&p, 0, sizeof(p));
	stats_shm_forget_parent(&s);
	st.stats_enabled = false;
	ck_assert_int_eq(stats_shm_create(&p, &st, false), -ENOENT);
	ck_assert(stats_shm_ready(&p));
	ck_assert(!p.shared);
	ck_assert_int_eq(p.fd, -1);
	ck_assert_int_eq(segments_here(&named), 0);
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

static Suite *suite(void)
{
	Suite *su = suite_create("stats_shm");
	TCase *tc = tcase_create("region");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, the_segment_is_a_sealed_private_memfd);
	tcase_add_test(tc, a_reader_finds_it_through_the_process);
	tcase_add_test(tc, a_closed_descriptor_leaves_the_mapping_to_root);
	tcase_add_test(tc, an_unsealed_segment_is_refused);
	tcase_add_test(tc, a_segment_of_another_user_is_refused);
	tcase_add_test(tc, a_fork_child_gets_a_segment_of_its_own);
	tcase_add_test(tc, a_fork_child_keeps_a_descriptor_the_daemon_put_in_its_place);
	tcase_add_test(tc, stats_dir_is_ignored);
	tcase_add_test(tc, stats_off_means_no_segment);
	tcase_add_test(tc, sites_are_keyed_by_address_and_kind);
	tcase_add_test(tc, a_stack_is_stored_once);
	tcase_add_test(tc, a_full_site_table_counts_its_losses);
	tcase_add_test(tc, hot_locks_pass_the_filter);
	tcase_add_test(tc, thread_slots_are_claimed_named_and_released);
	tcase_add_test(tc, reused_slots_keep_the_totals_whole);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	/* No fork per test: the fixture's segment belongs to this process. */
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
