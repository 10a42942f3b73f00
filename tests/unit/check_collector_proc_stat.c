/* collector/util/proc_stat.c: /proc/PID/stat lines, including hostile thread names. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/proc_stat.h"

#include "check_run.h"

/* A real line of a kernel thread (kthreadd), 52 fields; utime and stime set to 3 and 7. */
static const char kthreadd[] =
	"2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 3 7 0 0 20 0 1 0 22 0 0 "
	"18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

START_TEST(fields_of_a_real_line)
{
	struct corecap_proc_stat st;

	ck_assert_int_eq(corecap_proc_stat_parse(kthreadd, &st), 0);
	ck_assert_str_eq(st.comm, "kthreadd");
	ck_assert_int_eq(st.state, 'S');
	ck_assert(st.flags & CORECAP_PF_KTHREAD);
	ck_assert_int_eq(st.utime_ticks, 3);
	ck_assert_int_eq(st.stime_ticks, 7);
	ck_assert_int_eq(st.starttime_ticks, 22);
	ck_assert_int_eq(st.processor, 1);
}
END_TEST

START_TEST(a_name_with_blanks_and_parentheses)
{
	static const char line[] = "42 (a) b (c)) R 1 1 1 0 -1 4194560 0 0 0 0 11 22 0 0 20 0 1 0 "
				   "99 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n";
	struct corecap_proc_stat st;

	ck_assert_int_eq(corecap_proc_stat_parse(line, &st), 0);
	ck_assert_str_eq(st.comm, "a) b (c)");
	ck_assert_int_eq(st.state, 'R');
	ck_assert(!(st.flags & CORECAP_PF_KTHREAD));
	ck_assert_int_eq(st.utime_ticks, 11);
	ck_assert_int_eq(st.stime_ticks, 22);
	ck_assert_int_eq(st.starttime_ticks, 99);
}
END_TEST

START_TEST(garbage_is_refused)
{
	struct corecap_proc_stat st;

	ck_assert_int_eq(corecap_proc_stat_parse("", &st), -EINVAL);
	ck_assert_int_eq(corecap_proc_stat_parse("12 no parens S 1", &st), -EINVAL);
	ck_assert_int_eq(corecap_proc_stat_parse("12 (x) S 1 2", &st), -EINVAL);
}
END_TEST

START_TEST(our_own_stat_file)
{
	struct corecap_proc_stat st;

	prctl(PR_SET_NAME, "ck (me) x");
	ck_assert_int_eq(corecap_proc_stat_read(AT_FDCWD, "/proc/thread-self/stat", &st), 0);
	ck_assert_str_eq(st.comm, "ck (me) x");
	ck_assert_int_eq(st.state, 'R');
}
END_TEST

/* The walk's findings: the processes named name, and the visits. */
struct walk_seen {
	const char *name;
	pid_t found[4];
	int n_found, visits, stop_after;
	bool saw_self;
};

static bool note_named(pid_t pid, int dirfd, void *ctx)
{
	struct walk_seen *w = ctx;

	w->visits++;
	if (pid == getpid())
		w->saw_self = true;
	if (corecap_proc_comm_is(dirfd, w->name) && w->n_found < 4)
		w->found[w->n_found++] = pid;
	return w->stop_after && w->visits >= w->stop_after;
}

/* A child named name, stopped until killed. */
static pid_t named_child(const char *name)
{
	int p[2];
	char c;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_NAME, name);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

START_TEST(the_walk_finds_a_process_by_name_and_not_the_caller)
{
	pid_t child = named_child("ck-walk-named");
	struct walk_seen w = {.name = "ck-walk-named"};
	int status;

	prctl(PR_SET_NAME, "ck-walk-named");
	ck_assert_int_eq(corecap_proc_each(note_named, &w), 0);
	prctl(PR_SET_NAME, "ck");
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	ck_assert(!w.saw_self);
	ck_assert_int_eq(w.n_found, 1);
	ck_assert_int_eq(w.found[0], child);
	ck_assert_int_gt(w.visits, 1);
}
END_TEST

START_TEST(the_walk_stops_when_told)
{
	struct walk_seen w = {.name = "", .stop_after = 2};

	ck_assert_int_eq(corecap_proc_each(note_named, &w), 0);
	ck_assert_int_eq(w.visits, 2);
}
END_TEST

START_TEST(a_name_is_matched_whole)
{
	int fd = open("/proc/self", O_RDONLY | O_DIRECTORY);

	ck_assert_int_ge(fd, 0);
	prctl(PR_SET_NAME, "ck-whole");
	ck_assert(corecap_proc_comm_is(fd, "ck-whole"));
	ck_assert(!corecap_proc_comm_is(fd, "ck-whol"));
	ck_assert(!corecap_proc_comm_is(fd, "ck-whole2"));
	ck_assert(!corecap_proc_comm_is(fd, ""));
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/proc_stat");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, fields_of_a_real_line);
	tcase_add_test(tc, a_name_with_blanks_and_parentheses);
	tcase_add_test(tc, garbage_is_refused);
	tcase_add_test(tc, our_own_stat_file);
	tcase_add_test(tc, the_walk_finds_a_process_by_name_and_not_the_caller);
	tcase_add_test(tc, the_walk_stops_when_told);
	tcase_add_test(tc, a_name_is_matched_whole);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
