/*
 * gperf_profile: gperftools' legacy CPU profile is read in both word sizes
 * and byte orders, pprof's address rules are applied, and truncated or
 * garbage input is refused with an error that says what is wrong, never a
 * crash (the garbage tests run under ASan in the sanitizer build).
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/gperf_profile.h"

#include "check_run.h"

#ifndef FLAME_DATA_DIR
#error "FLAME_DATA_DIR must name tests/data/flame"
#endif

/* A profile being built: words of `bytes` bytes in the given byte order. */
struct builder {
	unsigned char buf[4096];
	size_t len;
	unsigned bytes;
	bool big_endian;
};

static void word(struct builder *b, uint64_t v)
{
	for (unsigned i = 0; i < b->bytes; i++) {
		unsigned shift = b->big_endian ? 8 * (b->bytes - 1 - i) : 8 * i;

		b->buf[b->len++] = (unsigned char)(v >> shift);
	}
}

static void text(struct builder *b, const char *s)
{
	memcpy(b->buf + b->len, s, strlen(s));
	b->len += strlen(s);
}

static const char maps_text[] =
	"55d0a0000000-55d0a0001000 r-xp 00001000 08:01 42 /usr/bin/target\n";

/*
 * Two stacks: (3 hits) 0x1003 <- 0x2005 <- 0x3007, and (2 hits) 0x1100
 * <- 0x2105, then the trailer and the maps.
 */
static void build(struct builder *b, unsigned bytes, bool big_endian, unsigned hdr_words)
{
	*b = (struct builder){.bytes = bytes, .big_endian = big_endian};
	word(b, 0);
	word(b, hdr_words);
	word(b, 0);	/* version */
	word(b, 10000); /* period: 100 Hz */
	for (unsigned i = 2; i < hdr_words; i++)
		word(b, 0);
	word(b, 3);
	word(b, 3);
	word(b, 0x1003);
	word(b, 0x2005);
	word(b, 0x3007);
	word(b, 2);
	word(b, 2);
	word(b, 0x1100);
	word(b, 0x2105);
	word(b, 0);
	word(b, 1);
	word(b, 0);
	text(b, maps_text);
}

static void check_two_stacks(const struct gperf_profile *p)
{
	ck_assert_uint_eq(p->period_us, 10000);
	ck_assert_uint_eq(p->version, 0);
	ck_assert_uint_eq(p->n_samples, 2);
	ck_assert_uint_eq(p->total, 5);
	ck_assert_uint_eq(p->samples[0].count, 3);
	ck_assert_uint_eq(p->samples[0].depth, 3);
	ck_assert_uint_eq(p->pcs[p->samples[0].first + 0], 0x1003);
	ck_assert_uint_eq(p->pcs[p->samples[0].first + 2], 0x3007);
	ck_assert_uint_eq(p->samples[1].count, 2);
	ck_assert_uint_eq(p->pcs[p->samples[1].first + 1], 0x2105);
	ck_assert_str_eq(p->maps, maps_text);
}

static void parse_ok(const struct builder *b, struct gperf_profile *p)
{
	char *err = NULL;
	int ret;

	corecap_gperf_profile_init(p);
	ret = corecap_gperf_profile_parse(p, b->buf, b->len, &err);
	if (ret)
		ck_abort_msg("parse failed: %s", err ? err : "?");
	ck_assert_ptr_null(err);
}

/* Parsing must fail with -EINVAL and an error containing `want`. */
static void parse_fails(const void *buf, size_t len, const char *want)
{
	struct gperf_profile p;
	char *err = NULL;
	int ret;

	corecap_gperf_profile_init(&p);
	ret = corecap_gperf_profile_parse(&p, buf, len, &err);
	ck_assert_int_eq(ret, -EINVAL);
	ck_assert_ptr_nonnull(err);
	if (want && !strstr(err, want))
		ck_abort_msg("error '%s' does not say '%s'", err, want);
	ck_assert_uint_eq(p.n_samples, 0);
	free(err);
	corecap_gperf_profile_release(&p);
}

START_TEST(reads_64_bit_little_endian)
{
	struct builder b;
	struct gperf_profile p;

	build(&b, 8, false, 3);
	parse_ok(&b, &p);
	ck_assert_uint_eq(p.slot_bytes, 8);
	ck_assert(!p.big_endian);
	check_two_stacks(&p);
	corecap_gperf_profile_release(&p);
}
END_TEST

START_TEST(reads_32_bit_little_endian)
{
	struct builder b;
	struct gperf_profile p;

	build(&b, 4, false, 3);
	parse_ok(&b, &p);
	ck_assert_uint_eq(p.slot_bytes, 4);
	ck_assert(!p.big_endian);
	check_two_stacks(&p);
	corecap_gperf_profile_release(&p);
}
END_TEST

START_TEST(reads_both_word_sizes_big_endian)
{
	struct builder b;
	struct gperf_profile p;

	build(&b, 4, true, 3);
	parse_ok(&b, &p);
	ck_assert_uint_eq(p.slot_bytes, 4);
	ck_assert(p.big_endian);
	check_two_stacks(&p);
	corecap_gperf_profile_release(&p);
	build(&b, 8, true, 3);
	parse_ok(&b, &p);
	ck_assert_uint_eq(p.slot_bytes, 8);
	ck_assert(p.big_endian);
	check_two_stacks(&p);
	corecap_gperf_profile_release(&p);
}
END_TEST

START_TEST(skips_header_padding_words)
{
	struct builder b;
	struct gperf_profile p;

	build(&b, 8, false, 6);
	parse_ok(&b, &p);
	check_two_stacks(&p);
	corecap_gperf_profile_release(&p);
}
END_TEST

START_TEST(profile_without_samples_is_empty_not_an_error)
{
	struct builder b = {.bytes = 8};
	struct gperf_profile p;

	word(&b, 0);
	word(&b, 3);
	word(&b, 0);
	word(&b, 1000);
	word(&b, 0);
	word(&b, 0);
	word(&b, 1);
	word(&b, 0);
	parse_ok(&b, &p);
	ck_assert_uint_eq(p.n_samples, 0);
	ck_assert_uint_eq(p.total, 0);
	ck_assert_str_eq(p.maps, "");
	corecap_gperf_profile_release(&p);
}
END_TEST

START_TEST(empty_and_short_files_are_refused)
{
	static const unsigned char zeros[12];

	parse_fails("", 0, "empty file");
	parse_fails(zeros, 5, "truncated header");
	parse_fails(zeros, 12, "truncated header");
}
END_TEST

START_TEST(other_profile_kinds_are_named)
{
	static const char heap[] = "heap profile:    1:   100 [    1:   100] @ heapprofile\n";
	static const char text_prof[] = "--- symbol\nbinary=/bin/x\n";

	parse_fails(heap, sizeof(heap) - 1, "heap profile");
	parse_fails(text_prof, sizeof(text_prof) - 1, "symbolized");
	parse_fails("ELF\x7f....garbage....", 19, "not a CPU profile");
}
END_TEST

START_TEST(truncation_anywhere_is_refused_with_its_place)
{
	struct builder b;

	build(&b, 8, false, 3);
	/* Cut inside the first record's PCs: byte 40 is its start. */
	parse_fails(b.buf, 40 + 8 * 3, "truncated sample record at byte 40");
	/* Cut before the trailer: every record is whole but the data never ends. */
	parse_fails(b.buf, 40 + 8 * 5 + 8 * 4, "no end-of-data trailer");
	/* Every length short of the trailer's end fails cleanly. */
	for (size_t len = 0; len < 40 + 8 * 9 + 8 * 3; len++)
		parse_fails(b.buf, len, NULL);
}
END_TEST

START_TEST(corrupt_depths_are_refused)
{
	struct builder b = {.bytes = 8};

	word(&b, 0);
	word(&b, 3);
	word(&b, 0);
	word(&b, 1000);
	word(&b, 0);
	word(&b, 5); /* count */
	word(&b, 0); /* depth 0 */
	word(&b, 0x1234);
	parse_fails(b.buf, b.len, "stack depth 0");
	b.len = 40 + 8;
	word(&b, (uint64_t)1 << 40); /* absurd depth */
	word(&b, 0x1234);
	parse_fails(b.buf, b.len, "corrupt sample record at byte 40");
}
END_TEST

START_TEST(garbage_never_crashes)
{
	unsigned char buf[512];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	struct builder b;

	/* Random bytes behind a valid-looking header, and plain random bytes. */
	for (int round = 0; round < 2000; round++) {
		struct gperf_profile p;
		size_t len = (size_t)(x % sizeof(buf));
		char *err = NULL;
		int ret;

		for (size_t i = 0; i < sizeof(buf); i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[i] = (unsigned char)x;
		}
		if (round % 2 == 0) {
			build(&b, 8, false, 3);
			memcpy(buf, b.buf, 40);
			/* Small depths, so that some records parse before the garbage. */
			for (size_t i = 48; i + 8 <= sizeof(buf); i += 64)
				memset(buf + i + 1, 0, 7);
		}
		corecap_gperf_profile_init(&p);
		ret = corecap_gperf_profile_parse(&p, buf, len, &err);
		ck_assert(ret == 0 || ret == -EINVAL);
		ck_assert(ret == 0 ? err == NULL : err != NULL);
		if (ret == 0)
			for (size_t s = 0; s < p.n_samples; s++)
				ck_assert_uint_le(p.samples[s].first + p.samples[s].depth, p.n_pcs);
		free(err);
		corecap_gperf_profile_release(&p);
	}
}
END_TEST

START_TEST(normalize_moves_callers_into_the_call)
{
	struct builder b;
	struct gperf_profile p;

	build(&b, 8, false, 3);
	parse_ok(&b, &p);
	corecap_gperf_profile_normalize(&p);
	corecap_gperf_profile_normalize(&p); /* idempotent */
	/* The two stacks differ in their second PC: nothing is removed. */
	ck_assert_uint_eq(p.removed_second_pcs, 0);
	ck_assert_uint_eq(p.pcs[p.samples[0].first + 0], 0x1003);
	ck_assert_uint_eq(p.pcs[p.samples[0].first + 1], 0x2004);
	ck_assert_uint_eq(p.pcs[p.samples[0].first + 2], 0x3006);
	ck_assert_uint_eq(p.pcs[p.samples[1].first + 0], 0x1100);
	ck_assert_uint_eq(p.pcs[p.samples[1].first + 1], 0x2104);
	corecap_gperf_profile_release(&p);
}
END_TEST

START_TEST(normalize_removes_a_second_frame_common_to_all_stacks)
{
	struct builder b = {.bytes = 8};
	struct gperf_profile p;

	word(&b, 0);
	word(&b, 3);
	word(&b, 0);
	word(&b, 1000);
	word(&b, 0);
	/* pc, handler frame (0x9001), then a repeat of the pc, then callers. */
	word(&b, 4);
	word(&b, 4);
	word(&b, 0x1000);
	word(&b, 0x9001);
	word(&b, 0x1000);
	word(&b, 0x5001);
	word(&b, 1);
	word(&b, 3);
	word(&b, 0x2000);
	word(&b, 0x9001);
	word(&b, 0x6001);
	word(&b, 0);
	word(&b, 1);
	word(&b, 0);
	parse_ok(&b, &p);
	corecap_gperf_profile_normalize(&p);
	ck_assert_uint_eq(p.removed_second_pcs, 1);
	/* The repeated top PC (0xfff + 1 == 0x1000) goes with the handler frame. */
	ck_assert_uint_eq(p.samples[0].depth, 2);
	ck_assert_uint_eq(p.pcs[p.samples[0].first + 0], 0x1000);
	ck_assert_uint_eq(p.pcs[p.samples[0].first + 1], 0x5000);
	ck_assert_uint_eq(p.samples[1].depth, 2);
	ck_assert_uint_eq(p.pcs[p.samples[1].first + 1], 0x6000);
	corecap_gperf_profile_release(&p);
}
END_TEST

START_TEST(reads_a_real_libprofiler_file)
{
	struct gperf_profile p;
	char *err = NULL;

	corecap_gperf_profile_init(&p);
	if (corecap_gperf_profile_load(&p, FLAME_DATA_DIR "/burn.prof", &err))
		ck_abort_msg("%s", err);
	ck_assert_uint_eq(p.slot_bytes, 8);
	ck_assert_uint_eq(p.period_us, 10000);
	/* libprofiler printed "PROFILE: interrupts/evictions/bytes = 52/0/736". */
	ck_assert_uint_eq(p.total, 52);
	ck_assert_ptr_nonnull(strstr(p.maps, "libprofiler.so"));
	corecap_gperf_profile_release(&p);
}
END_TEST

START_TEST(a_missing_file_is_named_in_the_error)
{
	struct gperf_profile p;
	char *err = NULL;

	corecap_gperf_profile_init(&p);
	ck_assert_int_eq(corecap_gperf_profile_load(&p, "/nonexistent/cpu.prof", &err), -ENOENT);
	ck_assert_str_eq(err,
			 "cannot read profile '/nonexistent/cpu.prof': No such file or directory");
	free(err);
	ck_assert_int_eq(corecap_gperf_profile_load(&p, FLAME_DATA_DIR, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
	free(err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gperf_profile");
	TCase *tc = tcase_create("parse");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, reads_64_bit_little_endian);
	tcase_add_test(tc, reads_32_bit_little_endian);
	tcase_add_test(tc, reads_both_word_sizes_big_endian);
	tcase_add_test(tc, skips_header_padding_words);
	tcase_add_test(tc, profile_without_samples_is_empty_not_an_error);
	tcase_add_test(tc, empty_and_short_files_are_refused);
	tcase_add_test(tc, other_profile_kinds_are_named);
	tcase_add_test(tc, truncation_anywhere_is_refused_with_its_place);
	tcase_add_test(tc, corrupt_depths_are_refused);
	tcase_add_test(tc, garbage_never_crashes);
	tcase_add_test(tc, normalize_moves_callers_into_the_call);
	tcase_add_test(tc, normalize_removes_a_second_frame_common_to_all_stacks);
	tcase_add_test(tc, reads_a_real_libprofiler_file);
	tcase_add_test(tc, a_missing_file_is_named_in_the_error);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
