/*
 * analysis/model/stack_class.c: a sampled stack's category from its frames'
 * names, given by a fake symbolizer over a handful of addresses named as
 * glibc and Ceph name them.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "model/stack_class.h"

#include "check_run.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

enum {
	LLL_LOCK_WAIT = 0x10,
	MUTEX_LOCK = 0x20,
	SUBMIT_ENTRY = 0x30,
	FUTEX_WAIT = 0x40,
	COND_WAIT = 0x50,
	EPOLL_WAIT = 0x60,
	SENDMSG = 0x70,
	DO_OP = 0x80,
	OSTREAM_OP = 0x90,
	RWLOCK_RDLOCK = 0xa0,
	WRITE_VERSIONED = 0xb0,
	LIBC_WRITE = 0xc0,
	UNKNOWN = 0xd0,
	SYSCALL = 0xe0,
	LIBAIO = 0xf0,
	IO_GETEVENTS = 0x100,
	IO_SUBMIT = 0x110,
	GET_NEXT_COMPLETED = 0x120,
};

static const struct {
	uint64_t addr;
	const char *name;
} names[] = {
	{LLL_LOCK_WAIT, "__lll_lock_wait"},
	{MUTEX_LOCK, "___pthread_mutex_lock"},
	{SUBMIT_ENTRY, "ceph::logging::Log::submit_entry(ceph::logging::Entry&&)"},
	{FUTEX_WAIT, "__futex_abstimed_wait_common"},
	{COND_WAIT, "___pthread_cond_wait"},
	{EPOLL_WAIT, "epoll_wait"},
	{SENDMSG, "__sendmsg"},
	{DO_OP, "PrimaryLogPG::do_op(...)"},
	{OSTREAM_OP, "operator<<(std::ostream&, hobject_t const&)"},
	{RWLOCK_RDLOCK, "__pthread_rwlock_rdlock_full64"},
	{WRITE_VERSIONED, "write@@GLIBC_2.2.5"},
	{LIBC_WRITE, "__libc_write"},
	{SYSCALL, "syscall"},
	{IO_GETEVENTS, "io_getevents@@LIBAIO_0.4"},
	{IO_SUBMIT, "io_submit"},
	{GET_NEXT_COMPLETED, "aio_queue_t::get_next_completed(int, aio_t**, int)"},
};

/* The report's default log symbols that these names exercise. */
static char *log_patterns[] = {"log_*", "ceph::logging::*", "*(std::ostream&*"};

static unsigned symbol_calls, exact_calls;

static const char *fake_symbol(void *ctx, uint64_t addr, int exact)
{
	(void)ctx;
	symbol_calls++;
	exact_calls += exact != 0;
	for (size_t i = 0; i < LEN(names); i++)
		if (names[i].addr == addr)
			return names[i].name;
	return NULL;
}

static struct stack_class cls;

static void setup(void)
{
	symbol_calls = exact_calls = 0;
	corecap_stack_class_init(&cls, log_patterns, LEN(log_patterns), fake_symbol, NULL);
}

static void teardown(void)
{
	corecap_stack_class_release(&cls);
}

/* The category of the stack of these addresses, leaf first. */
#define CLASS_OF(...)                                                                              \
	corecap_stack_class_of(&cls, (const uint64_t[]){__VA_ARGS__},                              \
			       LEN(((const uint64_t[]){__VA_ARGS__})))

START_TEST(a_thread_in_the_lock_wait_leaf_is_waiting_for_a_lock)
{
	ck_assert_int_eq(CLASS_OF(LLL_LOCK_WAIT, MUTEX_LOCK, DO_OP), STACK_LOCK_WAIT);
	ck_assert_int_eq(CLASS_OF(LLL_LOCK_WAIT), STACK_LOCK_WAIT);
}
END_TEST

START_TEST(a_futex_wait_under_a_mutex_or_rwlock_is_a_lock_wait)
{
	ck_assert_int_eq(CLASS_OF(FUTEX_WAIT, MUTEX_LOCK, DO_OP), STACK_LOCK_WAIT);
	ck_assert_int_eq(CLASS_OF(FUTEX_WAIT, RWLOCK_RDLOCK, DO_OP), STACK_LOCK_WAIT);
	/* Within four frames of the leaf, counting the leaf's caller as one. */
	ck_assert_int_eq(CLASS_OF(FUTEX_WAIT, DO_OP, DO_OP, DO_OP, MUTEX_LOCK), STACK_LOCK_WAIT);
}
END_TEST

START_TEST(a_futex_wait_with_the_lock_frame_too_far_up_is_idle)
{
	ck_assert_int_eq(CLASS_OF(FUTEX_WAIT, DO_OP, DO_OP, DO_OP, DO_OP, MUTEX_LOCK), STACK_IDLE);
}
END_TEST

START_TEST(a_futex_wait_under_a_condition_wait_is_idle)
{
	ck_assert_int_eq(CLASS_OF(FUTEX_WAIT, COND_WAIT, DO_OP), STACK_IDLE);
	ck_assert_int_eq(CLASS_OF(FUTEX_WAIT), STACK_IDLE);
}
END_TEST

START_TEST(any_logging_frame_wins_over_everything)
{
	/* Waiting for the log's lock is the log's time, not lock_wait. */
	ck_assert_int_eq(CLASS_OF(LLL_LOCK_WAIT, MUTEX_LOCK, SUBMIT_ENTRY, DO_OP), STACK_LOGGING);
	ck_assert_int_eq(CLASS_OF(FUTEX_WAIT, MUTEX_LOCK, SUBMIT_ENTRY), STACK_LOGGING);
	/* Waking the log thread, writing, and formatting an entry. */
	ck_assert_int_eq(CLASS_OF(FUTEX_WAIT, COND_WAIT, SUBMIT_ENTRY), STACK_LOGGING);
	ck_assert_int_eq(CLASS_OF(SENDMSG, SUBMIT_ENTRY), STACK_LOGGING);
	ck_assert_int_eq(CLASS_OF(UNKNOWN, OSTREAM_OP, DO_OP), STACK_LOGGING);
	/* Far up the stack still counts, and so does the leaf itself. */
	ck_assert_int_eq(CLASS_OF(DO_OP, DO_OP, DO_OP, DO_OP, DO_OP, DO_OP, DO_OP, SUBMIT_ENTRY),
			 STACK_LOGGING);
	ck_assert_int_eq(CLASS_OF(SUBMIT_ENTRY, DO_OP), STACK_LOGGING);
}
END_TEST

/* Where the class of the stack of these addresses (leaf first) begins, as an index. */
static size_t from_of(const uint64_t *ips, size_t n, int want)
{
	size_t from = 99;

	ck_assert_int_eq(corecap_stack_class_from(&cls, ips, n, &from), want);
	return from;
}
#define FROM_OF(want, ...)                                                                         \
	from_of((const uint64_t[]){__VA_ARGS__}, LEN(((const uint64_t[]){__VA_ARGS__})), want)

START_TEST(a_class_begins_where_its_frames_are)
{
	/* The lock function near the leaf, else the leaf. */
	ck_assert_uint_eq(FROM_OF(STACK_LOCK_WAIT, LLL_LOCK_WAIT, MUTEX_LOCK, DO_OP), 1);
	ck_assert_uint_eq(FROM_OF(STACK_LOCK_WAIT, LLL_LOCK_WAIT, DO_OP), 0);
	ck_assert_uint_eq(FROM_OF(STACK_LOCK_WAIT, FUTEX_WAIT, DO_OP, RWLOCK_RDLOCK, DO_OP), 2);
	/* The condition wait near the leaf, else the leaf. */
	ck_assert_uint_eq(FROM_OF(STACK_IDLE, FUTEX_WAIT, COND_WAIT, DO_OP), 1);
	ck_assert_uint_eq(FROM_OF(STACK_IDLE, EPOLL_WAIT, DO_OP), 0);
	/* The outermost logging frame: all it calls is logging. */
	ck_assert_uint_eq(FROM_OF(STACK_LOGGING, SENDMSG, SUBMIT_ENTRY, OSTREAM_OP, DO_OP), 2);
	ck_assert_uint_eq(FROM_OF(STACK_LOGGING, SUBMIT_ENTRY, DO_OP), 0);
	ck_assert_uint_eq(FROM_OF(STACK_IO, SENDMSG, DO_OP), 0);
	ck_assert_uint_eq(FROM_OF(STACK_CPU, DO_OP, DO_OP), 0);
}
END_TEST

START_TEST(epoll_wait_is_idle)
{
	ck_assert_int_eq(CLASS_OF(EPOLL_WAIT, DO_OP), STACK_IDLE);
}
END_TEST

/* bstore_aio's wait, as its samples show it: libaio's io_getevents (left
 * unnamed: LIBAIO has no name) making the raw syscall under Ceph's reaper;
 * or io_getevents named. Submitting is io; a raw syscall elsewhere is cpu. */
START_TEST(a_reaper_waiting_for_aio_completions_is_idle)
{
	ck_assert_int_eq(CLASS_OF(SYSCALL, LIBAIO, GET_NEXT_COMPLETED), STACK_IDLE);
	ck_assert_int_eq(CLASS_OF(IO_GETEVENTS, GET_NEXT_COMPLETED), STACK_IDLE);
	ck_assert_int_eq(CLASS_OF(SYSCALL, IO_GETEVENTS, GET_NEXT_COMPLETED), STACK_IDLE);
	ck_assert_int_eq(CLASS_OF(IO_SUBMIT, DO_OP), STACK_IO);
	ck_assert_int_eq(CLASS_OF(SYSCALL, DO_OP), STACK_CPU);
}
END_TEST

START_TEST(sendmsg_and_write_are_io_under_any_of_their_names)
{
	ck_assert_int_eq(CLASS_OF(SENDMSG, DO_OP), STACK_IO);
	ck_assert_int_eq(CLASS_OF(WRITE_VERSIONED, DO_OP), STACK_IO);
	ck_assert_int_eq(CLASS_OF(LIBC_WRITE, DO_OP), STACK_IO);
}
END_TEST

START_TEST(unknown_frames_and_plain_code_are_cpu)
{
	ck_assert_int_eq(CLASS_OF(DO_OP, DO_OP), STACK_CPU);
	ck_assert_int_eq(CLASS_OF(UNKNOWN, UNKNOWN), STACK_CPU);
	ck_assert_int_eq(CLASS_OF(UNKNOWN), STACK_CPU);
	/* Spinning in the lock function itself is not yet a wait. */
	ck_assert_int_eq(CLASS_OF(MUTEX_LOCK, DO_OP), STACK_CPU);
}
END_TEST

START_TEST(an_empty_stack_is_cpu)
{
	ck_assert_int_eq(corecap_stack_class_of(&cls, NULL, 0), STACK_CPU);
	ck_assert_uint_eq(symbol_calls, 0);
}
END_TEST

START_TEST(each_address_is_named_once)
{
	const uint64_t a[] = {FUTEX_WAIT, MUTEX_LOCK, DO_OP, UNKNOWN};
	const uint64_t b[] = {SENDMSG, DO_OP, UNKNOWN};

	for (int round = 0; round < 100; round++) {
		ck_assert_int_eq(corecap_stack_class_of(&cls, a, LEN(a)), STACK_LOCK_WAIT);
		ck_assert_int_eq(corecap_stack_class_of(&cls, b, LEN(b)), STACK_IO);
	}
	/* a's leaf and three callers, then b's leaf: b's callers were named
	 * for a, and an address without a name is remembered like the rest. */
	ck_assert_uint_eq(symbol_calls, LEN(a) + 1);
}
END_TEST

/* A leaf is a PC; a caller's address is a return address, which may lie
 * past its function's end, so the symbolizer must be told which. */
START_TEST(only_the_leaf_is_named_as_an_exact_address)
{
	ck_assert_int_eq(CLASS_OF(SENDMSG, DO_OP, UNKNOWN), STACK_IO);
	ck_assert_uint_eq(symbol_calls, 3);
	ck_assert_uint_eq(exact_calls, 1);
}
END_TEST

START_TEST(categories_have_their_report_names)
{
	ck_assert_str_eq(corecap_stack_cat_name(STACK_IDLE), "idle");
	ck_assert_str_eq(corecap_stack_cat_name(STACK_CPU), "cpu");
	ck_assert_str_eq(corecap_stack_cat_name(STACK_LOGGING), "logging");
	ck_assert_str_eq(corecap_stack_cat_name(STACK_LOCK_WAIT), "lock_wait");
	ck_assert_str_eq(corecap_stack_cat_name(STACK_IO), "io");
	ck_assert_str_eq(corecap_stack_cat_name(STACK__COUNT), "?");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stack_class");
	TCase *tc = tcase_create("classify");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_thread_in_the_lock_wait_leaf_is_waiting_for_a_lock);
	tcase_add_test(tc, a_futex_wait_under_a_mutex_or_rwlock_is_a_lock_wait);
	tcase_add_test(tc, a_futex_wait_with_the_lock_frame_too_far_up_is_idle);
	tcase_add_test(tc, a_futex_wait_under_a_condition_wait_is_idle);
	tcase_add_test(tc, any_logging_frame_wins_over_everything);
	tcase_add_test(tc, epoll_wait_is_idle);
	tcase_add_test(tc, a_reaper_waiting_for_aio_completions_is_idle);
	tcase_add_test(tc, sendmsg_and_write_are_io_under_any_of_their_names);
	tcase_add_test(tc, unknown_frames_and_plain_code_are_cpu);
	tcase_add_test(tc, an_empty_stack_is_cpu);
	tcase_add_test(tc, each_address_is_named_once);
	tcase_add_test(tc, only_the_leaf_is_named_as_an_exact_address);
	tcase_add_test(tc, categories_have_their_report_names);
	tcase_add_test(tc, a_class_begins_where_its_frames_are);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
