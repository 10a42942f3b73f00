/* analysis/util/u64map.c: the hash map under every table of the model. */
#include <check.h>
#include <stdlib.h>

#include "util/u64map.h"

#include "check_run.h"

START_TEST(inserted_keys_are_found_and_zero_is_a_key)
{
	struct u64map m;
	bool inserted;
	uint64_t *v;

	corecap_u64map_init(&m);
	ck_assert_ptr_null(corecap_u64map_find(&m, 0));
	v = corecap_u64map_upsert(&m, 0, &inserted);
	ck_assert(inserted);
	*v = 7;
	v = corecap_u64map_upsert(&m, 0, &inserted);
	ck_assert(!inserted);
	ck_assert_uint_eq(*v, 7);
	ck_assert_uint_eq(m.len, 1);
	corecap_u64map_release(&m);
}
END_TEST

/* Against a plain array as reference, through growth and backward-shift deletion. */
START_TEST(random_inserts_and_removes_match_a_reference)
{
	enum { KEYS = 4096 };
	static uint64_t ref[KEYS];
	static bool present[KEYS];
	struct u64map m;
	size_t count = 0, pos;
	uint64_t k, v;

	srandom(7);
	corecap_u64map_init(&m);
	for (int n = 0; n < 200000; n++) {
		unsigned i = (unsigned)(random() % KEYS);
		uint64_t key = (uint64_t)i * 0x1000; /* clustered, like addresses */

		if (random() % 3) {
			uint64_t *slot = corecap_u64map_upsert(&m, key, NULL);

			ck_assert_ptr_nonnull(slot);
			*slot = ref[i] = (uint64_t)random();
			count += !present[i];
			present[i] = true;
		} else {
			ck_assert(corecap_u64map_remove(&m, key) == present[i]);
			count -= present[i];
			present[i] = false;
		}
	}
	ck_assert_uint_eq(m.len, count);
	for (unsigned i = 0; i < KEYS; i++) {
		uint64_t *slot = corecap_u64map_find(&m, (uint64_t)i * 0x1000);

		ck_assert(!!slot == present[i]);
		if (slot)
			ck_assert_uint_eq(*slot, ref[i]);
	}
	for (pos = 0, count = 0; corecap_u64map_next(&m, &pos, &k, &v); count++)
		ck_assert_uint_eq(v, ref[k / 0x1000]);
	ck_assert_uint_eq(count, m.len);
	corecap_u64map_release(&m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis_u64map");
	TCase *tc = tcase_create("map");

	tcase_add_test(tc, inserted_keys_are_found_and_zero_is_a_key);
	tcase_add_test(tc, random_inserts_and_removes_match_a_reference);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
