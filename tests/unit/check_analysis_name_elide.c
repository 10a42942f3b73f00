/*
 * analysis/render/name_elide.c: long names fit their column with the start
 * and the end kept, "…" in the middle, and no token (identifier, number,
 * address, "::") cut in two.
 */
#include <check.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "render/name_elide.h"

#include "check_run.h"

#define ELL "\xe2\x80\xa6"

static char out[512];

/* Whether the cut fell at token boundaries: the kept start is a prefix of
 * s ending where a word character meets another, and the kept end a suffix. */
static void assert_cut_between_tokens(const char *s, const char *e)
{
	const char *mid = strstr(e, ELL);
	size_t head, tail;

	ck_assert_ptr_nonnull(mid);
	head = (size_t)(mid - e);
	tail = strlen(mid + strlen(ELL));
	ck_assert(strncmp(s, e, head) == 0);
	ck_assert(strcmp(s + strlen(s) - tail, mid + strlen(ELL)) == 0);
	/* Never between two word characters. */
	if (head) {
		char a = s[head - 1], b = s[head];
		bool wa = a == '_' || isalnum((unsigned char)a),
		     wb = b == '_' || isalnum((unsigned char)b);

		ck_assert_msg(!(wa && wb) || a == ' ' || b == ' ', "head cut mid-token: %s", e);
	}
}

START_TEST(a_short_name_is_kept_whole)
{
	ck_assert_uint_eq(corecap_name_elide("PG::lock(bool) const+0x27", 36, out, sizeof(out)),
			  25);
	ck_assert_str_eq(out, "PG::lock(bool) const+0x27");
}
END_TEST

START_TEST(a_long_name_keeps_its_start_and_end)
{
	const char *s = "std::_Rb_tree<unsigned long, std::pair<unsigned long const, "
			"ceph::buffer::list>, std::_Select1st<std::pair<unsigned long const, "
			"ceph::buffer::list> > >::_M_insert_unique+0x44";
	size_t w = corecap_name_elide(s, 40, out, sizeof(out));

	ck_assert_uint_le(w, 40);
	ck_assert_uint_eq(w, corecap_name_width(out));
	ck_assert(strncmp(out, "std::_Rb_tree<", 14) == 0);
	ck_assert(strstr(out, "+0x44") != NULL);
	assert_cut_between_tokens(s, out);
}
END_TEST

START_TEST(an_address_is_never_cut)
{
	const char *s = "lock at shards_queue+0x32 [0x5575578abcdef]";
	size_t w = corecap_name_elide(s, 36, out, sizeof(out));

	ck_assert_uint_le(w, 36);
	/* The address survives whole, or not at all. */
	if (strstr(out, "0x55"))
		ck_assert(strstr(out, "0x5575578abcdef]") != NULL);
	ck_assert(strstr(out, "0x32") != NULL);
	assert_cut_between_tokens(s, out);
}
END_TEST

START_TEST(scope_operators_stay_whole)
{
	const char *s = "ceph::osd::scheduler::mClockScheduler::dequeue_op_and_more+0x1234";

	corecap_name_elide(s, 30, out, sizeof(out));
	/* No lone ':' on either side of the ellipsis. */
	ck_assert(strstr(out, ":" ELL) == NULL || strstr(out, "::" ELL) != NULL);
	ck_assert(strstr(out, ELL ":") == NULL || strstr(out, ELL "::") != NULL);
	assert_cut_between_tokens(s, out);
}
END_TEST

START_TEST(one_token_too_long_is_kept_whole)
{
	const char *s = "averyveryveryverylongidentifierwithoutanyboundary";

	ck_assert_uint_eq(corecap_name_elide(s, 20, out, sizeof(out)), strlen(s));
	ck_assert_str_eq(out, s);
}
END_TEST

START_TEST(widths_count_characters_not_bytes)
{
	ck_assert_uint_eq(corecap_name_width("a" ELL "b"), 3);
	ck_assert_uint_eq(corecap_name_width("\xc3\xa9t\xc3\xa9"), 3);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("name_elide");
	TCase *tc = tcase_create("elide");

	tcase_add_test(tc, a_short_name_is_kept_whole);
	tcase_add_test(tc, a_long_name_keeps_its_start_and_end);
	tcase_add_test(tc, an_address_is_never_cut);
	tcase_add_test(tc, scope_operators_stay_whole);
	tcase_add_test(tc, one_token_too_long_is_kept_whole);
	tcase_add_test(tc, widths_count_characters_not_bytes);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
