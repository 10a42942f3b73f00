/*
 * aio_table: an iocb's submission is found again by its completion, once;
 * a resubmitted iocb takes over its stale entry rather than using a
 * second one; a full window refuses (the caller counts it) and frees up
 * when its entries are taken; null and misaligned keys are refused.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "aio_table.h"
#include "util.h"

#include "check_run.h"

static struct aio_table t;

static void reset(void)
{
	memset(&t, 0, sizeof(t));
}

START_TEST(put_then_take_once)
{
	struct aio_entry e;
	int cb = 0;

	reset();
	ck_assert(aio_table_put(&t, &cb, 1234, 7, 2, 1));
	ck_assert(aio_table_take(&t, &cb, &e));
	ck_assert_uint_eq(e.submit_ticks, 1234);
	ck_assert_int_eq(e.fd, 7);
	ck_assert_uint_eq(e.io_class, 2);
	ck_assert_uint_eq(e.call, 1);
	ck_assert(!aio_table_take(&t, &cb, &e));
}
END_TEST

START_TEST(resubmission_reuses_its_entry)
{
	struct aio_entry e;
	int cb = 0;
	unsigned used = 0;

	reset();
	ck_assert(aio_table_put(&t, &cb, 1, 3, 2, 1));
	ck_assert(aio_table_put(&t, &cb, 2, 4, 4, 2));
	for (unsigned i = 0; i < AIO_TABLE_SIZE; i++)
		used += t.e[i].key != 0;
	ck_assert_uint_eq(used, 1);
	ck_assert(aio_table_take(&t, &cb, &e));
	ck_assert_uint_eq(e.submit_ticks, 2);
	ck_assert_uint_eq(e.io_class, 4);
}
END_TEST

START_TEST(a_full_window_refuses_and_recovers)
{
	/* Keys with the same home entry: one pointer's hash, found by search. */
	static uint64_t keys[AIO_TABLE_PROBES + 1];
	struct aio_entry e;
	uint32_t want;
	unsigned n = 0;

	reset();
	want = addr_hash(0x1000, AIO_TABLE_BITS);
	for (uint64_t k = 0x1000; n < AIO_TABLE_PROBES + 1; k += 8)
		if (addr_hash(k, AIO_TABLE_BITS) == want)
			keys[n++] = k;
	for (unsigned i = 0; i < AIO_TABLE_PROBES; i++)
		ck_assert(aio_table_put(&t, (void *)(uintptr_t)keys[i], i, 0, 2, 1));
	ck_assert(!aio_table_put(&t, (void *)(uintptr_t)keys[AIO_TABLE_PROBES], 99, 0, 2, 1));
	ck_assert(aio_table_take(&t, (void *)(uintptr_t)keys[5], &e));
	ck_assert_uint_eq(e.submit_ticks, 5);
	ck_assert(aio_table_put(&t, (void *)(uintptr_t)keys[AIO_TABLE_PROBES], 99, 0, 2, 1));
	/* Every other key is still found, past the freed and re-used entry. */
	for (unsigned i = 0; i < AIO_TABLE_PROBES; i++)
		if (i != 5)
			ck_assert(aio_table_take(&t, (void *)(uintptr_t)keys[i], &e));
	ck_assert(aio_table_take(&t, (void *)(uintptr_t)keys[AIO_TABLE_PROBES], &e));
	ck_assert_uint_eq(e.submit_ticks, 99);
}
END_TEST

START_TEST(null_keys_are_refused)
{
	struct aio_entry e;

	reset();
	ck_assert(!aio_table_put(&t, NULL, 1, 0, 0, 0));
	ck_assert(!aio_table_put(&t, (void *)AIO_TABLE_BUSY, 1, 0, 0, 0));
	ck_assert(!aio_table_take(&t, NULL, &e));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("aio_table");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, put_then_take_once);
	tcase_add_test(tc, resubmission_reuses_its_entry);
	tcase_add_test(tc, a_full_window_refuses_and_recovers);
	tcase_add_test(tc, null_keys_are_refused);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
