/* analysis/pass/thread_origin.c: an unnamed thread's start routine from its stack's outermost
 * frames. */
#include <string.h>
#include <check.h>

#include "pass/thread_origin.h"

#include "check_run.h"

START_TEST(the_routine_above_the_trampolines_names_the_thread)
{
	const char *xrd[] = {"epoll_wait",
			     "XrdPollE::Start(XrdSysSemaphore*, int&)",
			     "XrdStartPolling(void*)",
			     "XrdSysThread_Xeq",
			     "start_thread",
			     "clone3"};
	const char *std_thread[] = {
		"Worker::loop()", "std::thread::_State_impl<std::thread::_Invoker<...> >::_M_run()",
		"execute_native_thread_routine", "start_thread", "__clone"};
	char out[32];

	ck_assert_uint_eq(corecap_thread_origin_routine(xrd, 6, out, sizeof(out)),
			  strlen("XrdStartPolling"));
	ck_assert_str_eq(out, "XrdStartPolling");
	corecap_thread_origin_routine(std_thread, 5, out, sizeof(out));
	ck_assert_str_eq(out, "Worker::loop");
}
END_TEST

START_TEST(a_stack_cut_short_or_unknown_names_nothing)
{
	const char *cut[] = {"__libc_recv", "read"}; /* the unwind stopped in libc */
	const char *unknown[] = {"XrdScheduler::Run()", NULL, "start_thread"};
	const char *only[] = {"XrdSysThread_Xeq", "start_thread", "clone3"};
	const char *longname[] = {"AVeryLongNamespace::AndAnEvenLongerClassName::run()",
				  "start_thread"};
	char out[16];

	ck_assert_uint_eq(corecap_thread_origin_routine(cut, 2, out, sizeof(out)), 0);
	ck_assert_uint_eq(corecap_thread_origin_routine(cut, 0, out, sizeof(out)), 0);
	ck_assert_uint_eq(corecap_thread_origin_routine(only, 3, out, sizeof(out)), 0);
	/* An unknown frame is stepped over, not taken. */
	ck_assert_uint_eq(corecap_thread_origin_routine(unknown, 3, out, sizeof(out)), 15);
	ck_assert_str_eq(out, "XrdScheduler::R"); /* cut to the buffer */
	ck_assert_uint_eq(corecap_thread_origin_routine(longname, 2, out, sizeof(out)), 15);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_thread_origin");
	TCase *tc = tcase_create("thread_origin");

	tcase_add_test(tc, the_routine_above_the_trampolines_names_the_thread);
	tcase_add_test(tc, a_stack_cut_short_or_unknown_names_nothing);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
